"""Checked exercises of the survey's §3 notebooks, what BERT knows (``survey_03_1_syntax`` ...
``survey_03_4_probing_limits``, ``survey_03b_english_bert``, ``survey_03c_english_perturbed``; checkers in the modules of the same names under ``bertology_lib.book.exercises``).

For each exercise the truth agrees with an independent computation, the notebook's solution cell passes its check,
and typical wrong answers fail with their hint, without the answer in the message. The teacher solution of each
exercise is read from its notebook (``exercise_cells.solution``) and run here on the notebook's variables rebuilt
small (the smoke profile).
"""

from __future__ import annotations

import math
import re
from collections import Counter

import numpy as np
import pytest

import exercise_cells as cells
from bertology_lib.book import exercises as ex
from bertology_lib.book.exercises import quick_survey as quick
from bertology_lib.book.exercises import survey_03_1_syntax as s31
from bertology_lib.book.exercises import survey_03_2_semantics as s32
from bertology_lib.book.exercises import survey_03_3_world_knowledge as s33
from bertology_lib.book.exercises import survey_03_4_probing_limits as s34
from bertology_lib.book.exercises import survey_03b_english_bert as s3b
from bertology_lib.book.exercises import survey_03c_english_perturbed as s3c

NOTEBOOKS = {
    "survey_03_1_syntax": ("ex-survey31-ceiling", "ex-survey31-npi"),
    "survey_03_2_semantics": ("ex-survey32-clear", "ex-survey32-objprior"),
    "survey_03_3_world_knowledge": ("ex-survey33-freq", "ex-survey33-chain"),
    "survey_03_4_probing_limits": ("ex-survey34-memorise", "ex-survey34-prior-code"),
    "survey_03b_english_bert": ("ex-s3b-margin", "ex-s3b-attractors"),
    "survey_03c_english_perturbed": ("ex-s3c-impact", "ex-s3c-same-distance"),
}
LABELS = [label for labels in NOTEBOOKS.values() for label in labels]


# -------------------------------------------------------------------------------- conventions


def test_labels_all_registered_with_docstrings():
    assert LABELS and len(LABELS) == len(set(LABELS))  # each label once
    for label in LABELS:
        assert label in ex.CHECKERS and ex.CHECKERS[label].__doc__, label


@pytest.mark.parametrize("label", LABELS)
def test_solution_starts_with_its_label_and_ends_with_the_check(label):
    code = cells.solution(label)
    first, last = code.splitlines()[0], code.strip().splitlines()[-1]
    assert first == f"# Exercise: {label}"
    assert re.fullmatch(rf'print\(check\("{label}", \w+\)\)', last), last


@pytest.mark.parametrize("label", LABELS)
def test_wrong_types_are_refused_politely(label):
    for answer in ("many", None, float("nan"), -1):
        fb = ex.check(label, answer)
        assert not fb.ok and fb.message, (label, answer)


# ================================================================================ survey_03_1_syntax


def test_survey31_ceiling_truth_is_the_oracle_over_ambiguous_types():
    train, test = cells.quick_probe_rows()
    tags: dict[str, Counter] = {}
    for s in train:
        for w, t in zip(s.words, s.upos):
            tags.setdefault(w, Counter())[t] += 1
    amb = {
        w for w, c in tags.items() if sum(c.values()) >= 5 and sum(n / sum(c.values()) >= 0.05 for n in c.values()) >= 2
    }
    test_tags: dict[str, Counter] = {}
    for s in test:
        for w, t in zip(s.words, s.upos):
            if w in amb:
                test_tags.setdefault(w, Counter())[t] += 1
    truth = sum(max(c.values()) for c in test_tags.values()) / sum(sum(c.values()) for c in test_tags.values())
    assert s31.survey31_ceiling_truth() == pytest.approx(truth)
    mistakes = s31._survey31_ceiling_mistakes()
    assert 0.6 < mistakes["majority"] < truth < 0.9  # the oracle is above the training-majority baseline


def test_survey31_ceiling_solution_and_hints():
    from bertology_lib.models import minibert

    cells.solve("ex-survey31-ceiling", **{"minibert": minibert})
    truth, m = s31.survey31_ceiling_truth(), s31._survey31_ceiling_mistakes()
    secret = f"{truth:.3f}"
    cells.fails("ex-survey31-ceiling", m["majority"], "per-word-majority baseline", secret=secret)
    cells.fails("ex-survey31-ceiling", m["all"], "all test words", secret=secret)
    cells.fails("ex-survey31-ceiling", m["test-marked"], "training rows", secret=secret)
    cells.fails("ex-survey31-ceiling", truth - 0.1, "too low", secret=secret)
    cells.fails("ex-survey31-ceiling", min(1.0, truth + 0.1), "too high", secret=secret)
    assert ex.check("ex-survey31-ceiling", round(truth, 3)).ok
    cells.fails("ex-survey31-ceiling", 1.2, "between 0 and 1")


def test_survey31_npi_truth_by_construction():
    truth = s31.survey31_npi_truth()
    # licensed items contain their licensor, unlicensed ones none, scope items one that does not license the slot
    assert truth == {"licensed": 1.0, "unlicensed": 1.0, "scope": 0.0}
    items = quick.suite_items("npi")
    assert Counter(it.meta["condition"] for it in items) == {"licensed": 120, "unlicensed": 60, "scope": 60}
    assert all(it.meta["licensor_in_sentence"] == (it.meta["condition"] != "unlicensed") for it in items)


def test_survey31_npi_solution_and_hints():
    from bertology_lib.data import suites as toy_suites
    from bertology_lib.data import toy_english
    from bertology_lib.models import minibert

    cells.solve("ex-survey31-npi", **{"minibert": minibert, "toy_suites": toy_suites, "toy_english": toy_english})
    cells.fails("ex-survey31-npi", {"licensed": 1.0, "unlicensed": 1.0, "scope": 0.5}, "scope is off")
    cells.fails("ex-survey31-npi", {"licensed": 0.0, "unlicensed": 0.0, "scope": 1.0}, "gets wrong")
    cells.fails("ex-survey31-npi", {"licensed": 0.5, "unlicensed": 1.0, "scope": 0.0}, "licensed")
    cells.fails("ex-survey31-npi", {"licensed": 1.0, "unlicensed": 1.0}, "expected the keys")
    cells.fails("ex-survey31-npi", 0.75, "expected a dict")
    cells.fails("ex-survey31-npi", {"licensed": 2, "unlicensed": 1.0, "scope": 0.0}, "between 0 and 1")


# ================================================================================ survey_03_2_semantics


def test_survey32_clear_truth_against_the_wilson_formula():
    def wilson_low(k, n, z=1.959963984540054):  # the closed form, independent of scipy
        p = k / n
        return (p + z * z / (2 * n) - z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))) / (1 + z * z / n)

    truth = s32.survey32_clear_truth()
    assert wilson_low(truth, 80) > 0.5 >= wilson_low(truth - 1, 80)
    assert truth == 49


def test_survey32_clear_solution_and_hints():
    cells.solve("ex-survey32-clear", **{})
    truth = s32.survey32_clear_truth()
    for wrong, hint in [
        (41, "too few"),
        (truth - 1, "too few"),
        (truth + 1, "too many"),
        (30, "not even above"),
        (truth / 80, "not an accuracy"),
        (81, "between 0 and 80"),
        (48.5, "whole number"),
    ]:
        cells.fails("ex-survey32-clear", wrong, hint)
        assert str(truth) not in re.findall(r"\d+", ex.check("ex-survey32-clear", wrong).message)


@pytest.fixture(scope="module")
def quick_train_counts():
    from bertology_lib.models import minibert

    train, _ = minibert.corpus(minibert.MiniBertConfig.for_profile("quick"))
    return Counter(w for s in train for w, r in zip(s.words, s.deprels) if r == "obj"), Counter(
        w for s in train for w in s.words
    )


def test_survey32_objprior_truth_and_hints(quick_train_counts):
    as_object, anywhere = quick_train_counts
    items = quick.suite_items("selectional")
    truth = np.mean([as_object[it.correct] > as_object[it.incorrect] for it in items])
    assert s32.survey32_objprior_truth() == pytest.approx(truth) and 0.5 < truth < 0.8
    unigram = np.mean([anywhere[it.correct] > anywhere[it.incorrect] for it in items])
    assert abs(unigram - truth) > 0.01
    secret = f"{truth:.3f}"
    cells.fails("ex-survey32-objprior", unigram, "count only its occurrences as an object", secret=secret)
    cells.fails("ex-survey32-objprior", 1 - truth, "gets wrong", secret=secret)
    cells.fails("ex-survey32-objprior", truth + 0.05, "deprel 'obj'", secret=secret)
    assert ex.check("ex-survey32-objprior", truth + 0.001).ok


def test_survey32_objprior_solution(quick_train_counts):
    from bertology_lib.data import suites as toy_suites
    from bertology_lib.models import minibert

    cells.solve("ex-survey32-objprior", **{"minibert": minibert, "toy_suites": toy_suites})


# ================================================================================ survey_03_3_world_knowledge


def _kb():
    from bertology_lib.data.toy_english import knowledge_base
    from bertology_lib.models import minibert

    # the notebook's kb at smoke: knowledge_base(corpus_cfg.seed); the corpus seed is 0 at every profile
    return knowledge_base(minibert.MiniBertConfig.for_profile("smoke").corpus_config().seed)


def test_survey33_freq_truth_counts_people_per_object():
    kb = _kb()
    residents = Counter(kb.lives_in.values())
    workers = Counter(kb.occupation.values())
    items = quick.suite_items("knowledge")
    expect = {}
    for rel, counts in (("lives_in", residents), ("occupation", workers)):
        its = [it for it in items if it.meta["relation"] == rel]
        assert all(it.correct == it.meta["fact"][2] for it in its)  # the masked word is the fact's object
        expect[rel] = np.mean(
            [
                0.5 if counts[it.correct] == counts[it.incorrect] else float(counts[it.correct] > counts[it.incorrect])
                for it in its
            ]
        )
    assert s33.survey33_freq_truth() == pytest.approx(expect)
    assert all(0.5 < v < 0.8 for v in expect.values())


def test_survey33_freq_solution_and_hints():
    from bertology_lib.data import suites as toy_suites
    from bertology_lib.models import minibert

    cells.solve("ex-survey33-freq", **{"minibert": minibert, "toy_suites": toy_suites, "kb": _kb()})
    cells.fails("ex-survey33-freq", s33._survey33_freq(0.0), "ties")
    cells.fails("ex-survey33-freq", s33._survey33_freq(1.0), "ties")
    truth = s33.survey33_freq_truth()
    cells.fails("ex-survey33-freq", {**truth, "occupation": 0.5}, "occupation")
    cells.fails("ex-survey33-freq", {"lives_in": 0.6}, "expected the keys")


def test_survey33_chain_truth_by_a_distance_matrix():
    kb = _kb()
    things = kb.size_order
    idx = {w: i for i, w in enumerate(things)}
    D = np.full((len(things), len(things)), np.inf)
    np.fill_diagonal(D, 0)
    for a, b in kb.stated_size_pairs:
        D[idx[a], idx[b]] = 1
    for k in range(len(things)):  # Floyd-Warshall
        D = np.minimum(D, D[:, [k]] + D[[k], :])
    held = [D[idx[a], idx[b]] for a, b in kb.heldout_size_pairs]
    assert s33.survey33_chain_truth() == pytest.approx(np.mean(held))
    assert min(held) >= 2 and np.isfinite(held).all()


def test_survey33_chain_solution_and_hints():
    kb = _kb()
    cells.solve("ex-survey33-chain", **{"kb": kb})
    truth = s33.survey33_chain_truth()
    rank = {w: i for i, w in enumerate(kb.size_order)}
    mean_rank = np.mean([rank[b] - rank[a] for a, b in kb.heldout_size_pairs])
    secret = f"{truth:.2f}"
    cells.fails("ex-survey33-chain", mean_rank, "shortcuts", secret=secret)
    cells.fails("ex-survey33-chain", 1.5, "at least two", secret=secret)
    cells.fails("ex-survey33-chain", truth + 0.5, "breadth-first", secret=secret)
    every = s33._size_chains(sorted(kb.heldout_size_pairs | kb.stated_size_pairs), kb.stated_size_pairs)
    cells.fails("ex-survey33-chain", np.mean(every), "held-out pairs only", secret=secret)


# ================================================================================ survey_03_4_probing_limits


def test_survey34_memorise_truth_by_hand():
    from bertology_lib.analysis import probing

    train, test = cells.quick_probe_rows()
    words_tr = [w for s in train for w in s.words]
    words_te = [w for s in test for w in s.words]
    tags = [t for s in train + test for t in s.upos]
    control = probing.control_labels(words_tr + words_te, tags, seed=0)
    c_tr, c_te = control[: len(words_tr)], control[len(words_tr) :]
    label_of = dict(zip(words_tr, c_tr))
    fallback = Counter(c_tr).most_common(1)[0][0]
    truth = np.mean([label_of.get(w, fallback) == c for w, c in zip(words_te, c_te)])
    assert s34.survey34_memorise_truth() == pytest.approx(truth) and 0.85 < truth < 1


def test_survey34_memorise_solution_and_hints():
    from bertology_lib.analysis import probing
    from bertology_lib.data import word_labels
    from bertology_lib.models import minibert

    cells.solve("ex-survey34-memorise", **{"minibert": minibert, "word_labels": word_labels, "probing": probing})
    table, tr, te = quick.probe_table()
    secret = f"{s34.survey34_memorise_truth():.3f}"
    cells.fails(
        "ex-survey34-memorise",
        probing.majority_baseline(table.word.tolist(), table.upos.tolist(), tr, te),
        "real POS tags",
        secret=secret,
    )
    seen = set(table.word.iloc[tr])
    cells.fails("ex-survey34-memorise", np.mean([w in seen for w in table.word.iloc[te]]), "unseen", secret=secret)
    cells.fails("ex-survey34-memorise", 0.5, "control_labels", secret=secret)


def test_survey34_prior_code_truth_and_hints():
    train, _ = cells.quick_probe_rows()
    tags = [t for s in train for t in s.upos]
    p = np.array(list(Counter(tags).values())) / len(tags)
    entropy = float(-(p * np.log2(p)).sum())
    truth = np.log2(14) / entropy
    assert s34.survey34_prior_code_truth() == pytest.approx(truth) and 1 < truth < 2
    cells.fails("ex-survey34-prior-code", truth / math.log(2), "nats")
    cells.fails("ex-survey34-prior-code", 1 / truth, "uniform bits over")
    cells.fails("ex-survey34-prior-code", truth + 0.1, "log2(C)")
    assert ex.check("ex-survey34-prior-code", round(truth, 3)).ok


def test_survey34_prior_code_solution():
    from bertology_lib.data import word_labels
    from bertology_lib.models import minibert

    cells.solve("ex-survey34-prior-code", **{"minibert": minibert, "word_labels": word_labels})


# ================================================================================ survey_03b_english_bert


def _margin_by_hand(mlm, tok, item, *, mask=True, at=None, sign=1.0):
    """One sentence, no padding: the logit difference at the verb's first piece (or at token ``at``)."""
    import torch

    enc = tok(list(item.words), is_split_into_words=True, return_tensors="pt")
    pos = enc.word_ids().index(item.verb) if at is None else at(item)
    if mask:
        enc["input_ids"][0, pos] = tok.mask_token_id
    with torch.no_grad():
        logits = mlm(**enc).logits[0, pos]
    right, wrong = tok.convert_tokens_to_ids([item.right, item.wrong])
    return sign * float(logits[right] - logits[wrong])


def test_s3b_margin_truth_is_the_logit_difference_at_the_masked_verb():
    mlm, tok = s3b.margin_model()
    items = s3b.margin_items()
    assert all(it.words[it.verb] == it.right for it in items)
    # the hidden sentences split words before the verb, so word index and token index differ
    assert any(tok(list(it.words), is_split_into_words=True).word_ids().index(it.verb) > it.verb + 1 for it in items)
    for it in items:
        assert s3b.margin_truth(it) == pytest.approx(_margin_by_hand(mlm, tok, it), abs=1e-4)
    assert len({round(s3b.margin_truth(it), 2) for it in items}) == len(items)  # a constant answer cannot pass


def test_s3b_margin_solution_and_wrong_answers():
    import pandas as pd

    from bertology_lib.training.english_bert import agreement_accuracy

    mlm, tok = s3b.margin_model()
    items = s3b.margin_items()
    agr = pd.DataFrame(
        {
            "n_attractors": [i % 2 for i in range(len(items))],
            "correct": [float(c) for c in agreement_accuracy(mlm, tok, items)],
        }
    )
    cells.solve("ex-s3b-margin", mlm=mlm, tok=tok, items=items, agr=agr, pd=pd)
    cells.fails("ex-s3b-margin", lambda m, t, it: _margin_by_hand(m, t, it, mask=False), "[MASK] first")
    cells.fails("ex-s3b-margin", lambda m, t, it: _margin_by_hand(m, t, it, at=lambda i: i.verb), "word_ids")
    cells.fails("ex-s3b-margin", lambda m, t, it: _margin_by_hand(m, t, it, at=lambda i: i.verb + 1), "+1")
    cells.fails("ex-s3b-margin", lambda m, t, it: _margin_by_hand(m, t, it, sign=-1.0), "minus the wrong")
    cells.fails("ex-s3b-margin", lambda m, t, it: _margin_by_hand(m, t, it) > 0, "should return a number")
    cells.fails("ex-s3b-margin", lambda m, t, it: 0.0, "not yet")
    cells.assert_function_answer_needed("ex-s3b-margin")


def test_s3b_attractors_truth_is_what_agreement_items_counts():
    cases = s3b.attractor_cases()
    truths = [s3b.attractor_truth(*c) for c in cases]
    assert truths == [1, 1, 0, 1, 1, 1, 1, 1, 0]
    # by hand: "The tax bills of the state legislature have": 'state' modifies, 'legislature' attracts
    words, tags, subject, verb = next(c for c in cases if c[0][1] == "tax")
    assert (words[subject], words[verb]) == ("bills", "have")


def test_s3b_attractors_solution_and_wrong_answers():
    import pandas as pd

    from bertology_lib.experiments.survey.english import held_out_brown

    items, _ = held_out_brown(200)
    agr = pd.DataFrame({"n_attractors": [it.n_attractors for it in items]})
    out = cells.solve("ex-s3b-attractors", items=items, agr=agr)
    assert "attractors in 200 items" in out
    from bertology_lib.data.english import NOUNISH, base_tag, number_of

    def nouns(tags, s, v):
        return [j for j in range(s + 1, v) if base_tag(tags[j]) in NOUNISH]

    def other(tags, v):
        return lambda j: number_of(tags[j]) not in (None, number_of(tags[v]))

    cells.fails("ex-s3b-attractors", lambda w, t, s, v: len(nouns(t, s, v)), "verb's own number")
    cells.fails(
        "ex-s3b-attractors",
        lambda w, t, s, v: sum(1 for j in nouns(t, s, v) if base_tag(t[j]).endswith("s") != (number_of(t[v]) == "pl")),
        "head of a noun phrase",
    )
    cells.fails("ex-s3b-attractors", lambda w, t, s, v: 0, "not yet")
    cells.fails("ex-s3b-attractors", lambda w, t, s, v: 0.5, "whole number")
    cells.assert_function_answer_needed("ex-s3b-attractors")


# ================================================================================ survey_03c_english_perturbed


def _impact_by_hand(
    model,
    tok,
    words,
    i,
    j,
    *,
    first=(True, False),
    second=(True, True),
    read=None,
    pool="mean",
    layer=-1,
    distance="euclid",
):
    """One masked copy per reading, no batching: the distance between word ``read`` (default i)'s vectors with
    (i masked?, j masked?) = ``first`` and = ``second``; the typical mistakes as options."""
    import torch

    enc = tok(list(words), is_split_into_words=True, return_tensors="pt")
    wid = enc.word_ids()
    read = i if read is None else read

    def vec(mask_i, mask_j):
        ids = enc["input_ids"].clone()
        for t, w in enumerate(wid):
            if (w == i and mask_i) or (w == j and mask_j):
                ids[0, t] = tok.mask_token_id
        with torch.no_grad():
            h = model(input_ids=ids, output_hidden_states=True).hidden_states[layer][0]
        own = [t for t, w in enumerate(wid) if w == read]
        return h[own].mean(0) if pool == "mean" else h[own[0]]

    a, b = vec(*first), vec(*second)
    if distance == "cosine":
        return float(1 - torch.nn.functional.cosine_similarity(a, b, dim=0))
    d = float(torch.linalg.vector_norm(a - b))
    return d * d if distance == "squared" else d


def test_s3c_impact_truth_is_the_distance_between_two_masked_readings():
    for k, text, i, j in s3c.S3C_IMPACT_CASES:
        mlm, tok = s3c.impact_model(k)
        words = text.split()
        assert len(tok.tokenize(words[i])) > 1  # the mean over word i's pieces is not its first piece
        truth = s3c.s3c_impact_truth(k, text, i, j)
        assert truth == pytest.approx(_impact_by_hand(mlm, tok, words, i, j), rel=1e-5, abs=1e-6)
        # the hidden cases tell every typical mistake from the truth
        for key, wrong in s3c._impact_mistakes(k, text, i, j).items():
            assert abs(wrong - truth) > 1e-3 * truth, (key, k, text)
    assert len({round(s3c.s3c_impact_truth(*c), 3) for c in s3c.S3C_IMPACT_CASES}) == len(s3c.S3C_IMPACT_CASES)


def test_s3c_impact_wrong_answers():
    import torch

    assert ex.check("ex-s3c-impact", _impact_by_hand).ok
    assert ex.check("ex-s3c-impact", lambda m, t, w, i, j: torch.tensor(_impact_by_hand(m, t, w, i, j))).ok
    cells.fails("ex-s3c-impact", lambda *a: _impact_by_hand(*a, first=(False, False)), "in the first reading too")
    cells.fails("ex-s3c-impact", lambda *a: _impact_by_hand(*a, second=(False, True)), "as well as word j")
    cells.fails(
        "ex-s3c-impact", lambda *a: _impact_by_hand(*a, first=(False, False), second=(False, True)), "in both readings"
    )
    cells.fails("ex-s3c-impact", lambda *a: _impact_by_hand(*a, pool="first"), "mean over all its tokens")
    cells.fails("ex-s3c-impact", lambda *a: _impact_by_hand(*a, layer=0), "not the embeddings")
    cells.fails("ex-s3c-impact", lambda *a: _impact_by_hand(*a, layer=-2), "hidden_states[-1]")
    cells.fails("ex-s3c-impact", lambda *a: _impact_by_hand(*a, distance="cosine"), "not the cosine distance")
    cells.fails("ex-s3c-impact", lambda *a: _impact_by_hand(*a, distance="squared"), "not its square")
    cells.fails("ex-s3c-impact", lambda m, t, w, i, j: _impact_by_hand(m, t, w, j, i), "impact of word i on word j")
    cells.fails("ex-s3c-impact", lambda m, t, w, i, j: _impact_by_hand(m, t, w, i, j, read=j), "not j's")
    cells.fails("ex-s3c-impact", lambda *a: _impact_by_hand(*a) * 1.01, "not yet")
    cells.fails("ex-s3c-impact", lambda *a: 1.0, "not yet")
    cells.fails("ex-s3c-impact", lambda *a: None, "should return a number")
    cells.fails("ex-s3c-impact", lambda *a: _impact_by_hand(*a) > 0, "should return a number")

    def first_piece_masked(model, tok, words, i, j):
        enc = tok(list(words), is_split_into_words=True, return_tensors="pt")
        wid = enc.word_ids()

        def vec(masked):
            ids = enc["input_ids"].clone()
            for w in masked:
                ids[0, wid.index(w)] = tok.mask_token_id
            with torch.no_grad():
                h = model(input_ids=ids, output_hidden_states=True).hidden_states[-1][0]
            return h[[t for t, w in enumerate(wid) if w == i]].mean(0)

        return float(torch.linalg.vector_norm(vec([i]) - vec([i, j])))

    cells.fails("ex-s3c-impact", first_piece_masked, "not only the first")

    def train_mode(model, tok, words, i, j):  # dropout on: a different number on every call
        model.train()
        return _impact_by_hand(model, tok, words, i, j)

    cells.fails("ex-s3c-impact", train_mode, "not yet")


def _gap_by_hand(impacts, heads, max_distance=3, *, scale="off", arcs="both", unlinked="same", heads_base=1):
    """Plain loops over ordered pairs; the typical mistakes as options."""
    n = len(heads)
    off = [impacts[i][j] for i in range(n) for j in range(n) if i != j]
    s = {"off": sum(off) / len(off), "none": 1.0, "all": sum(off) / (n * n)}[scale]
    linked = set()
    for d, h in enumerate(heads):
        if h:
            head = h - 1 if heads_base == 1 else h
            if arcs in ("both", "down"):
                linked.add((d, head))
            if arcs in ("both", "up"):
                linked.add((head, d))
    out = []
    for dist in range(1, max_distance + 1):
        lk, un = [], []
        for i in range(n):
            for j in range(n):
                if abs(i - j) == dist:
                    (lk if (i, j) in linked else un).append(impacts[i][j] / s)
        if unlinked == "anywhere":
            un = [impacts[i][j] / s for i in range(n) for j in range(n) if i != j and (i, j) not in linked]
        if lk and un:
            out.append((dist, sum(lk) / len(lk), sum(un) / len(un)))
    return out


def test_s3c_gap_truth_by_plain_loops():
    cases = s3c.s3c_gap_cases()
    assert len({len(h) for _, h, _ in cases}) >= 4 and {len(h) for _, h, _ in cases} <= set(range(5, 10))
    lost = 0
    for impacts, heads, max_d in cases:
        assert heads.count(0) == 1 and (np.diag(impacts) == 0).all() and (impacts >= 0).all()
        truth = s3c.s3c_gap_truth(impacts, heads, max_d)
        want = _gap_by_hand(impacts.tolist(), heads, max_d)
        assert [t[0] for t in truth] == [w[0] for w in want]
        assert np.allclose([t[1:] for t in truth], [w[1:] for w in want], rtol=1e-12)
        lost += len(truth) < max_d  # a distance without a linked or an unlinked pair gives no term
        for key, wrong in s3c._gap_mistakes(impacts, heads, max_d).items():
            assert key == "fixed 3" or not s3c._terms_match(wrong, truth), key
    assert lost >= 2 and {c[2] for c in cases} > {3}
    # every typical mistake is told from the truth on some case
    for key in s3c._GAP_HINTS:
        assert any(not s3c._terms_match(s3c._gap_mistakes(*c)[key], s3c.s3c_gap_truth(*c)) for c in cases), key


def test_s3c_gap_wrong_answers():
    assert ex.check("ex-s3c-same-distance", _gap_by_hand).ok
    assert ex.check("ex-s3c-same-distance", lambda *a: [list(t) for t in _gap_by_hand(*a)]).ok
    fails = cells.fails
    fails("ex-s3c-same-distance", lambda *a: _gap_by_hand(*a, scale="none"), "mean off-diagonal impact first")
    fails("ex-s3c-same-distance", lambda *a: _gap_by_hand(*a, scale="all"), "off-diagonal entries only")
    fails("ex-s3c-same-distance", lambda *a: _gap_by_hand(*a, unlinked="anywhere"), "at the same distance d")
    fails("ex-s3c-same-distance", lambda *a: _gap_by_hand(*a, arcs="down"), "in both directions")
    fails("ex-s3c-same-distance", lambda *a: _gap_by_hand(*a, arcs="up"), "in both directions")
    fails("ex-s3c-same-distance", lambda *a: _gap_by_hand(*a, heads_base=0), "1-based")
    fails("ex-s3c-same-distance", lambda imp, h, d=3: _gap_by_hand(imp, h, 3), "not always 3")
    fails("ex-s3c-same-distance", lambda *a: [(d, un, lk) for d, lk, un in _gap_by_hand(*a)], "comes first")

    def upper(impacts, heads, max_distance=3):  # only i < j
        n, arcs = (
            len(heads),
            {(d, h - 1) for d, h in enumerate(heads) if h} | {(h - 1, d) for d, h in enumerate(heads) if h},
        )
        s = impacts[~np.eye(n, dtype=bool)].mean()
        out = []
        for d in range(1, max_distance + 1):
            pairs = [(i, i + d) for i in range(n - d)]
            lk, un = [impacts[p] / s for p in pairs if p in arcs], [impacts[p] / s for p in pairs if p not in arcs]
            if lk and un:
                out.append((d, np.mean(lk), np.mean(un)))
        return out

    fails("ex-s3c-same-distance", upper, "both i < j and i > j")

    def pooled(impacts, heads, max_distance=3):  # one term: every linked pair against every unlinked one
        n = len(heads)
        arcs = {(d, h - 1) for d, h in enumerate(heads) if h} | {(h - 1, d) for d, h in enumerate(heads) if h}
        s = impacts[~np.eye(n, dtype=bool)].mean()
        pairs = [(i, j) for i in range(n) for j in range(n) if i != j]
        return [
            (
                1,
                np.mean([impacts[p] / s for p in pairs if p in arcs]),
                np.mean([impacts[p] / s for p in pairs if p not in arcs]),
            )
        ]

    fails("ex-s3c-same-distance", pooled, "one pooled term mixes distances")

    def with_empty(impacts, heads, max_distance=3):  # a term for every distance, NaN where a kind of pair is missing
        got = {d: (lk, un) for d, lk, un in _gap_by_hand(impacts, heads, max_distance)}
        return [(d, *got.get(d, (float("nan"), float("nan")))) for d in range(1, max_distance + 1)]

    fails("ex-s3c-same-distance", with_empty, "leave out a distance")
    fails("ex-s3c-same-distance", lambda *a: _gap_by_hand(*a)[::-1], "in increasing d")
    fails("ex-s3c-same-distance", lambda *a: [(d, lk * 1.01, un) for d, lk, un in _gap_by_hand(*a)], "not yet")
    fails("ex-s3c-same-distance", lambda *a: [], "your distances are []")
    fails("ex-s3c-same-distance", lambda *a: 0.3, "list of (distance, linked, unlinked)")
    fails("ex-s3c-same-distance", lambda *a: [(1, 0.5)], "list of (distance, linked, unlinked)")


def _toy_mlm(tok, seed):
    import torch
    from transformers import BertConfig, BertForMaskedLM

    torch.manual_seed(seed)
    cfg = BertConfig(
        vocab_size=len(tok),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=64,
        attn_implementation="eager",
    )
    return BertForMaskedLM(cfg).eval()


def _toy_sentences():
    from bertology_lib.data.real import UDSentence

    rows = [
        ("The thermodynamicists praised the new laboratory .", (2, 3, 0, 6, 6, 3, 3)),
        ("Oysters are cheap in Baltimore", (3, 3, 0, 5, 3)),
        ("She quietly photographed the astronauts yesterday", (3, 3, 0, 5, 3, 3)),
        ("His unconventionality surprised everyone at the party", (2, 3, 0, 3, 7, 7, 3)),
        ("We left early", (2, 0, 2)),
        ("Dogs bark loudly at night in winter", (2, 0, 2, 5, 2, 7, 2)),
    ]
    return [UDSentence(f"toy-{k}", tuple(t.split()), (), (), heads, ()) for k, (t, heads) in enumerate(rows)]


def test_s3c_solutions_pass():
    import torch

    from bertology_lib.analysis import perturbed_masking as perturbed
    from bertology_lib.experiments.survey import perturbed as pm

    _, tok = s3c.impact_model(0)  # MiniLM's WordPiece tokenizer, as the English lab BERT's
    with torch.random.fork_rng(devices=[]):
        mlm, twin = _toy_mlm(tok, 1), _toy_mlm(tok, 2)
    sents = _toy_sentences()
    terms = {name: pm.impact_terms(m, tok, sents) for name, m in (("trained", mlm), ("random init", twin))}
    ns = {"mlm": mlm, "tok": tok, "twin": twin, "sents": sents, "terms": terms, "perturbed": perturbed, "pm": pm}
    out = cells.solve("ex-s3c-impact", **ns)
    m = perturbed.impact_matrix(mlm, tok, sents[0].words)
    # the closest linked pair first in sorted order: words 0 and 1 ('The' depends on 'thermodynamicists')
    assert f"linked: impact of 'thermodynamicists' on 'The', 1 apart: {m[0, 1]:.4f} (library {m[0, 1]:.4f})" in out
    assert "unlinked: impact of" in out and "1 apart" in out.split("unlinked:")[1]

    out = cells.solve("ex-s3c-same-distance", **ns)
    for name, model in (("trained", mlm), ("random init", twin)):
        pooled = []
        for s in sents[:5]:
            imp = perturbed.impact_matrix(model, tok, s.words)
            n, arcs = len(s.words), perturbed.arc_pairs(s.heads)
            scale = imp[~np.eye(n, dtype=bool)].mean()
            lk = [imp[i, j] / scale for i in range(n) for j in range(n) if i != j and (i, j) in arcs]
            un = [imp[i, j] / scale for i in range(n) for j in range(n) if i != j and (i, j) not in arcs]
            pooled.append(np.mean(lk) - np.mean(un))
        matched = perturbed.arc_gap(terms[name][:5])
        assert f"{name}: pooled gap {np.mean(pooled):+.3f}, same-distance gap {matched:+.3f}" in out
    arcs = [abs(d - h + 1) for s in sents for d, h in enumerate(s.heads) if h]
    assert f"{sum(a == 1 for a in arcs) / len(arcs):.0%} of the gold arcs of the 6 sentences join adjacent words" in out


def test_s3c_checking_never_moves_the_global_random_state():
    import torch

    state, np_state = torch.random.get_rng_state(), np.random.get_state()

    def train_mode(model, tok, words, i, j):  # dropout on: draws random numbers
        model.train()
        return _impact_by_hand(model, tok, words, i, j)

    ex.check("ex-s3c-impact", train_mode)
    ex.check("ex-s3c-impact", _impact_by_hand)
    ex.check("ex-s3c-impact", lambda *a: float(torch.rand(1)))
    ex.check("ex-s3c-same-distance", _gap_by_hand)
    ex.check("ex-s3c-same-distance", lambda *a: [(1, float(torch.rand(1)), 0.5)])
    assert torch.equal(state, torch.random.get_rng_state())
    assert all(np.array_equal(a, b) for a, b in zip(np_state[1:2], np.random.get_state()[1:2]))


def test_s3c_exercises_follow_the_conventions():
    cells.assert_conventions(NOTEBOOKS["survey_03c_english_perturbed"], 2)
    cells.assert_notebook_cells({"survey_03c_english_perturbed": NOTEBOOKS["survey_03c_english_perturbed"]})
    for label in NOTEBOOKS["survey_03c_english_perturbed"]:
        cells.assert_function_answer_needed(label)
