"""The §3.2–§3.3 tests a null model fails: frequency and twin baselines, name swaps where the names carry
number, numeracy probes with held-out numbers, Petroni's frequency baseline, and the claims they feed."""

from __future__ import annotations

import random
from collections import Counter
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
import torch

from bertology_lib import stats
from bertology_lib.analysis import numeracy as nm
from bertology_lib.analysis.probing import ProbeConfig
from bertology_lib.book.claims import AboveBaseline, make_claim, spec
from bertology_lib.data import toy_english
from bertology_lib.data.toy_english import ClozeItem
from bertology_lib.errors import ParameterError
from bertology_lib.experiments.survey import semantics as sem
from bertology_lib.experiments.survey import world_knowledge as wk
from conftest import save_toy_bert

CFG = toy_english.ToyEnglishConfig(n_sentences=300, seed=0, vocab_size=800)


def _item(correct, incorrect, **meta):
    return ClozeItem("t", ("x", "[MASK]"), 1, correct, incorrect, meta)


# ------------------------------------------------------------------------------------------- baselines


def test_frequency_choice_scores_ties_as_a_coin_flip():
    items = [_item("a", "b"), _item("b", "a"), _item("c", "d"), _item("a", "zzz")]
    out = sem.frequency_choice(items, {"a": 5, "b": 2, "c": 1, "d": 1})
    assert out.tolist() == [1.0, 0.0, 0.5, 1.0]


def test_counts_of_words_and_objects():
    sents = toy_english.generate_corpus(CFG)[:50]
    words, objects = sem.word_counts(sents), sem.object_counts(sents)
    assert sum(words.values()) == sum(len(s.words) for s in sents)
    assert sum(objects.values()) == sum(rel == "obj" for s in sents for rel in s.deprels) > 0
    assert all(words[w] >= n for w, n in objects.items())


def test_strongest_baseline_and_twin_alignment():
    name, scores = sem.strongest_baseline({"weak": [0, 1, 0, 0], "strong": [1, 1, 0, 1]})
    assert name == "strong" and scores.tolist() == [1, 1, 0, 1]
    with pytest.raises(ParameterError, match="no baselines"):
        sem.strongest_baseline({})
    scored = pd.DataFrame({"item": [3, 0, 2], "correct": [True, False, True]})
    twin = pd.DataFrame({"item": [0, 1, 2, 3], "correct": [True, True, False, False]})
    assert sem.twin_correct(scored, twin).tolist() == [0.0, 1.0, 0.0]  # matched by item, not by row
    with pytest.raises(ParameterError, match="did not score items"):
        sem.twin_correct(scored, twin[twin.item != 3])
    base = sem.suite_baselines(scored, twin, [_item("a", "b")] * 4, {"a": 2}, frequency="freq")
    assert base["freq"].tolist() == [1.0, 1.0, 1.0] and base["random-init twin"].tolist() == [0.0, 1.0, 0.0]


def test_baseline_table_sets_the_model_beside_its_baselines():
    t = sem.baseline_table([1, 0, 1, 1], {"b": [0, 0, 1, 1]}, by=["x", "x", "y", "y"])
    assert list(t.columns) == ["model", "b", "n"] and list(t.index) == ["x", "y"]
    assert t.loc["x", "model"] == 0.5 and t.loc["y", "b"] == 1.0 and t.n.sum() == 4
    overall = sem.baseline_table([1, 0], {"b": [0, 0]})
    assert overall.loc["all items", "model"] == 0.5


def test_gain_difference_is_zero_for_a_null_model_and_finds_an_effect():
    rng = np.random.default_rng(0)
    a_base, b_base = rng.integers(0, 2, 300), rng.integers(0, 2, 300)
    est, low, high = sem.gain_difference(a_base, a_base, b_base, b_base)  # a null model scores its baselines
    assert est == 0 and low == high == 0
    a = np.where(rng.random(300) < 0.3, 1, a_base)  # gains on suite A only
    est, low, high = sem.gain_difference(a, a_base, b_base, b_base, seed=1)
    assert low > 0 and low < est < high
    with pytest.raises(ParameterError, match="at least 2"):
        sem.gain_difference([1], [0], [1, 0], [1, 0])


def test_above_chance_is_the_wilson_interval_shifted():
    est, low, high = sem.above_chance([1] * 60 + [0] * 20)
    lo, hi = stats.wilson_interval(60, 80)
    assert est == pytest.approx(0.25) and (low, high) == pytest.approx((lo - 0.5, hi - 0.5))
    assert not AboveBaseline("c", "chance").check(sem.above_chance([1, 0] * 40)).passed


# ------------------------------------------------------------------------------------------- name swaps


def test_name_number_items_depend_on_how_many_names_not_which():
    pairs = sem.name_number_items(CFG, 12, seed=3)
    kb = toy_english.knowledge_base(CFG.seed)
    nouns = set(sem.control_nouns(CFG))
    assert len(pairs) == 12 and [p[0].meta["kind"] for p in pairs[:2]] == list(sem.NAME_KINDS)
    for names, control in pairs:
        assert names.meta["version"] == "names" and control.meta["version"] == "nouns"
        assert (names.correct, names.incorrect) == (control.correct, control.incorrect)
        n = 1 if names.meta["kind"] == "one name" else 2
        assert len(names.meta["slots"]) == len(control.meta["slots"]) == n
        assert [names.words[k] for k in names.meta["slots"]] == list(names.meta["fillers"])
        assert all(w in kb.people for w in names.meta["fillers"])
        assert all(control.words[k] in nouns for k in control.meta["slots"])
        assert ("and" in names.words) == (n == 2)
        # the verb agrees: singular after one name, plural after two
        assert names.sentence.number[names.mask_index] == ("Sing" if n == 1 else "Plur")
        assert names.words[names.mask_index] == "[MASK]"
    again = sem.name_number_items(CFG, 12, seed=3)
    assert [p[0].words for p in again] == [p[0].words for p in pairs]  # deterministic


def test_swap_fillers_changes_only_the_fillers():
    names, _ = sem.name_number_items(CFG, 2, seed=0)[1]
    pool = list(toy_english.knowledge_base(CFG.seed).people)
    swaps = sem.swap_fillers(names, pool, 4, random.Random(0))
    slots = set(names.meta["slots"])
    for s in swaps:
        assert all((a == b) != (k in slots) for k, (a, b) in enumerate(zip(names.words, s.words)))
        assert len(set(s.meta["swapped"])) == len(slots) and not set(s.meta["swapped"]) & set(names.words)
        assert (s.correct, s.incorrect, s.mask_index) == (names.correct, names.incorrect, names.mask_index)
    with pytest.raises(ParameterError, match="no replacement"):
        sem.swap_fillers(names, list(names.meta["fillers"]), 1, random.Random(0))


def test_flip_rates_per_frame():
    test = pd.DataFrame(
        {
            "pair": [0, 0, 0, 0, 1, 1, 1, 1],
            "kind": ["one name"] * 4 + ["two names"] * 4,
            "version": ["names", "names", "nouns", "nouns"] * 2,
            "correct_original": [True, True, False, False, True, True, True, True],
            "flipped": [True, False, False, False, False, False, True, True],
        }
    )
    out = sem.flip_rates(test)
    assert list(out.kind) == ["one name", "two names"]
    assert out.flip_names.tolist() == [0.5, 0.0] and out.flip_nouns.tolist() == [0.0, 1.0]
    assert out.correct_names.tolist() == [1.0, 1.0] and out.correct_nouns.tolist() == [0.0, 1.0]


def test_name_swap_test_on_a_tiny_model(tmp_path):
    from transformers import AutoModelForMaskedLM, AutoTokenizer

    folder = save_toy_bert(tmp_path / "toy", CFG)
    model, tok = AutoModelForMaskedLM.from_pretrained(folder).eval(), AutoTokenizer.from_pretrained(folder)
    pairs = sem.name_number_items(CFG, 6, seed=0)
    kb = toy_english.knowledge_base(CFG.seed)
    out = sem.name_swap_test(model, tok, pairs, kb.people, sem.control_nouns(CFG), n_swaps=2, seed=0)
    assert len(out) == 6 * 2 * 2 and set(out.version) == {"names", "nouns"}
    assert (out.flipped == (out.correct_original != out.correct_swapped)).all()
    assert (out.names != out.swapped_names).all()
    frames = sem.flip_rates(out)
    assert len(frames) == 6 and frames.flip_names.between(0, 1).all()
    # the same model as its own twin: no instrument can pass, and the flip gap is measured as it is
    gap = stats.paired_gap(frames.correct_names, frames.correct_names)
    assert not AboveBaseline("beats_twin", "twin").check(gap).passed


# ------------------------------------------------------------------------------------------- numeracy


def test_number_split_and_pairs_never_mix_splits():
    n = np.arange(100)
    split = nm.number_split([n[:50], n[50:]], seed=1)
    parts = [set(split.train), set(split.val), set(split.test)]
    assert sum(len(p) for p in parts) == 100 and not (parts[0] & parts[1] or parts[0] & parts[2] or parts[1] & parts[2])
    assert all(any(x < 50 for x in p) and any(x >= 50 for x in p) for p in parts)  # every split in both halves
    a, b = nm.comparison_pairs(split.test, 500, seed=0)
    assert set(a) | set(b) <= parts[2] and (a != b).all()
    a, b = nm.comparison_pairs([1, 2, 3], 100)
    assert len(a) == 6 and set(zip(a, b)) == {(x, y) for x in (1, 2, 3) for y in (1, 2, 3) if x != y}
    with pytest.raises(ParameterError, match="too small"):
        nm.number_split([n[:5]])
    with pytest.raises(ParameterError, match="cannot form a pair"):
        nm.comparison_pairs([4], 3)


def test_comparison_probe_reads_a_magnitude_axis_and_not_noise():
    rng = np.random.default_rng(0)
    values = np.arange(200)
    signal = torch.tensor(np.c_[values / 200, rng.normal(size=(200, 3))], dtype=torch.float32)
    noise = torch.tensor(rng.normal(size=(200, 4)), dtype=torch.float32)
    X = torch.stack([signal, noise])  # layer 0 carries magnitude, layer 1 none
    split = nm.number_split([values], seed=0)
    probe = nm.comparison_probe(
        X, values, nm.comparison_pairs(split.train, 2000), {"test": nm.comparison_pairs(split.test, 400, seed=1)}
    )
    acc = probe.accuracy("test")
    assert acc[0] > 0.95 and abs(acc[1] - 0.5) < 0.15 and probe.best_layer("test") == 0
    assert probe.correct["test"].shape == (2, 400)


def test_comparison_probe_agrees_with_scikit_learn():
    """Parity: the probe is an L2-regularised logistic regression on standardised differences; for two classes our
    softmax's penalty l2 * (|w1|^2 + |w0|^2) equals (l2 / 2) |w1 - w0|^2 at the optimum, i.e. sklearn's C = 1 / (l2 n)."""
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(1)
    values = np.arange(150)
    feats = np.c_[np.log1p(values), rng.normal(size=(150, 5))].astype(np.float32)
    split = nm.number_split([values], seed=0)
    tr, te = nm.comparison_pairs(split.train, 1500), nm.comparison_pairs(split.test, 400, seed=2)
    l2 = 1e-3
    probe = nm.comparison_probe(torch.tensor(feats)[None], values, tr, {"te": te}, ProbeConfig(l2=l2, max_iter=500))
    d = feats[tr[0]] - feats[tr[1]]
    mu, sd = d.mean(0), d.std(0, ddof=1)
    ref = LogisticRegression(C=1 / (l2 * len(d)), max_iter=5000, tol=1e-8).fit((d - mu) / sd, tr[0] > tr[1])
    theirs = ref.predict((feats[te[0]] - feats[te[1]] - mu) / sd) == (te[0] > te[1])
    assert np.mean(probe.correct["te"][0] == theirs) > 0.98
    assert abs(probe.accuracy("te")[0] - theirs.mean()) < 0.02


@pytest.fixture(scope="module")
def digit_bert(tmp_path_factory):
    from transformers import BertConfig, BertModel, BertTokenizerFast

    vocab = [
        "[PAD]",
        "[UNK]",
        "[CLS]",
        "[SEP]",
        "[MASK]",
        *map(str, range(10)),
        *[f"##{d}" for d in range(10)],
        "12",
        "34",
    ]
    tok = BertTokenizerFast(vocab={w: i for i, w in enumerate(vocab)}, do_lower_case=True)
    torch.manual_seed(0)
    model = BertModel(
        BertConfig(
            vocab_size=len(vocab),
            hidden_size=16,
            num_hidden_layers=2,
            num_attention_heads=2,
            intermediate_size=32,
            max_position_embeddings=16,
        )
    ).eval()
    return model, tok


def test_number_features_average_the_pieces_and_ignore_padding(digit_bert):
    model, tok = digit_bert
    assert nm.word_pieces(tok, [7, 12, 123, 3456]).tolist() == [1, 1, 2, 3]  # 12 ##3; 34 ##5 ##6
    batch = nm.number_features(model, tok, [7, 123, 3456])
    alone = nm.number_features(model, tok, [7])
    assert batch.shape == (3, 3, 16) and torch.allclose(batch[:, :1], alone, atol=1e-5)
    with torch.no_grad():
        ids = tok("123", return_tensors="pt")
        hs = model(**ids, output_hidden_states=True).hidden_states
    assert torch.allclose(batch[:, 1], torch.stack([h[0, 1:-1].mean(0) for h in hs]), atol=1e-5)


def test_digit_features_spell_numbers_out():
    X = nm.digit_features([7, 42, 305], n_noise=2, seed=0)
    assert X.shape == (1, 3, 5)
    assert X[0, :, :3].tolist() == [[7, 0, 0], [2, 4, 0], [5, 0, 3]]  # units, tens, hundreds
    assert torch.equal(X, nm.digit_features([7, 42, 305], n_noise=2, seed=0))
    with pytest.raises(ParameterError, match="negative"):
        nm.digit_features([-1])


def test_numeracy_end_to_end_on_a_tiny_encoder(digit_bert):
    model, tok = digit_bert
    sizes = sem.SemanticsSizes.for_profile("smoke", n_numbers=200, n_train_pairs=400, n_eval_pairs=200)
    out = sem.numeracy(model, tok, model, tok, sizes, seed=0)
    assert (
        len(out.in_range)
        == len(out.extrapolated)
        == len(out.twin_in_range)
        == len(out.control_extrapolated)
        == len(out.groups)
    )
    assert np.array_equal(out.in_range, out.twin_in_range)  # a model as its own twin: the instrument cannot pass
    assert (
        not AboveBaseline("m", "t").check(stats.paired_gap(out.in_range, out.twin_in_range, groups=out.groups)).passed
    )
    assert out.control_extrapolated.mean() > 0.9  # the positive control: magnitude is linear in the digits
    assert set(out.table["probe trained on"]) == {"whole range", "lower half"}
    assert set(out.table.representation) == {"model", "random-init twin", "digits (positive control)"}
    assert out.table["n pairs"].eq(len(out.in_range)).all() and len(out.layers) == 6
    assert out.pieces["n pairs"].sum() == 2 * 200


def test_real_encoder_and_twin_names():
    assert sem.real_encoder_for("mini-bert") == "minilm"
    assert sem.real_encoder_for("random-init:mini-bert") == "random-init:minilm"
    assert sem.twin_of("minilm") == "random-init:minilm" and sem.twin_of("random-init:minilm") == "random-init:minilm"


# ------------------------------------------------------------------------------------------- world knowledge


def test_relation_word_counts_and_frequency_baseline():
    sents = toy_english.generate_corpus(toy_english.ToyEnglishConfig(n_sentences=2000, seed=0, vocab_size=800))
    counts = wk.relation_word_counts(sents)
    kb = toy_english.knowledge_base(0)
    facts = [s for s in sents if s.meta.get("kind") == "fact" and s.meta["facts"][0][0] == "lives_in"]
    city = kb.lives_in[kb.people[0]]
    assert counts[("lives_in", city)] == sum(city in s.words for s in facts) > 0
    scored = pd.DataFrame(
        {
            "relation": ["lives_in", "lives_in", "occupation"],
            "correct_word": [city, "Nowhere", "zz1"],
            "incorrect_word": ["Nowhere", city, "zz2"],
        }
    )
    assert wk.frequency_baseline(scored, counts).tolist() == [1.0, 0.0, 0.5]
    assert wk.extracted_kb_baseline(pd.DataFrame({"n_stated": [0, 3]})).tolist() == [0.5, 1.0]


# ------------------------------------------------------------------------------------------- the claims


NULL_CHECKS = {  # what the notebooks' instrument checks measure on a random-init twin scored against itself
    "selectional_beats_baseline": ((0.0, -0.05, 0.05), "b"),  # (interval, the baseline chosen in the run)
    "magnitude_beyond_word_pieces": (0.0, 0.0, 0.0),
    "probe_extrapolates_on_digits": 0.99,  # data, not model
    "solves_one_name": sem.above_chance([1, 0] * 50),
    "solves_two_names": sem.above_chance([0, 1] * 50),
    "beats_twin": (0.0, 0.0, 0.0),
    "facts_in_training_split": 1.0,
    "stated_sizes_known": (0.0, 0.0, 0.0),
    "recalls_facts": ((0.0, -0.05, 0.05), "frequency"),
}

CLAIMS = [
    "survey3.2.selectional_gradient",
    "survey3.2.role_reversal_weak",
    "survey3.2.numbers_hard",
    "survey3.2.name_swap_brittle",
    "survey3.3.fact_recall",
    "survey3.3.no_size_inference",
    "survey3.3.wording_matters",
]


NULL_GAPS = [(0.0, -0.05, 0.05), (0.0, -0.3, 0.3), (-0.1, -0.2, -0.01)]  # a null model against its own baseline
LARGE_GAP = (0.3, 0.2, 0.4)  # what a null model can still show on a failure claim (word pieces that do not extrapolate)


@pytest.mark.parametrize("claim_id", CLAIMS)
def test_a_null_model_reproduces_none_of_these_claims(claim_id):
    """A twin scored against a baseline it is part of measures a gap of at most 0; a failure claim's gap (stated
    minus held out, in range minus extrapolated) can be large for a model that knows nothing, so there the
    instrument checks, as a twin measures them, must turn the verdict into 'inconclusive'."""
    s = spec(claim_id)
    checks = {c.name: NULL_CHECKS[c.name] for c in s.checks}
    values = NULL_GAPS + ([] if s.rule_id.startswith("BeatsBaseline") else [LARGE_GAP])
    for ours in values:
        c = make_claim(claim_id, ours=ours, checks=checks, params=SimpleNamespace(values={"model": "random-init:x"}))
        assert c.verdict != "reproduced", (claim_id, ours)
    if not s.rule_id.startswith("BeatsBaseline"):
        assert s.checks and make_claim(claim_id, ours=LARGE_GAP, checks=checks).instrument.startswith("failed")


def _wording_rows(correct, relation="r", margin=None):
    """Scored wording items: ``correct`` is (facts, templates) 0/1; one row per fact and template."""
    correct = np.asarray(correct, dtype=float)
    n, k = correct.shape
    margin = correct - 0.5 if margin is None else margin
    return pd.DataFrame(
        [
            {
                "item": f * k + t,
                "relation": relation,
                "template": t,
                "subject": f"p{f}",
                "correct": bool(correct[f, t]),
                "margin": float(margin[f, t]) if np.ndim(margin) else 0.0,
                "correct_word": f"right{f % 3}",
                "incorrect_word": "wrong",
            }
            for f in range(n)
            for t in range(k)
        ]
    )


def test_choose_wordings_reads_templates_chosen_on_the_other_half():
    rows = _wording_rows(np.column_stack([np.ones(40), np.zeros(40), np.ones(40) * (np.arange(40) % 2)]))
    chosen = wk.choose_wordings(rows, seed=0)
    assert len(chosen) == 40 and set(chosen.fold) == {0, 1} and (chosen.groupby("fold").size() == 20).all()
    assert (chosen.best_template == 0).all() and (chosen.worst_template == 1).all()
    assert chosen.best.mean() == 1.0 and chosen.worst.mean() == 0.0
    assert (rows.set_index("item").loc[chosen.best_item, "template"] == 0).all()
    ties = wk.choose_wordings(_wording_rows(np.ones((10, 2)), margin=np.tile([[1.0, 2.0]], (10, 1))), seed=0)
    assert (ties.best_template == 1).all()  # a tie in accuracy goes to the larger mean margin
    partial = rows[~((rows.subject == "p0") & (rows.template == 2))]  # a template that could not be scored
    assert "p0" not in set(wk.choose_wordings(partial).subject)
    with pytest.raises(ParameterError, match="margin"):
        wk.choose_wordings(rows.drop(columns="margin"))


def test_a_model_that_answers_every_wording_alike_has_no_wording_gap():
    """Templates that differ only by noise: picked on the same facts the best and worst differ (selection
    bias), picked on the other half they do not, on average over many draws."""
    rng = np.random.default_rng(0)
    cross, same = [], []
    for rep in range(300):
        correct = rng.random((30, 3)) < 0.6  # every template recalls 60% of facts, independently
        chosen = wk.choose_wordings(_wording_rows(correct), seed=rep)
        cross.append(chosen.best.mean() - chosen.worst.mean())
        acc = correct.mean(0)
        same.append(acc.max() - acc.min())
    se = np.std(cross) / np.sqrt(len(cross))
    assert abs(np.mean(cross)) < 3 * se and np.mean(same) > 10 * se


def test_wording_effect_sets_the_gap_beside_its_instrument_and_the_twin():
    model = _wording_rows(np.column_stack([np.ones(40), np.arange(40) % 2]))  # template 0 knows every fact
    twin = _wording_rows(np.zeros((40, 2)))
    counts = Counter({("r", "right0"): 5})  # the frequency baseline prefers one object in three
    fx = wk.wording_effect(model, twin, counts, seed=0)
    assert fx.gap[0] == pytest.approx(0.5) and fx.gap[1] > 0
    assert fx.baseline == "frequency" and fx.recall[1] > 0  # recall at the best template beats both baselines
    assert fx.twin_gap == (0.0, 0.0, 0.0)
    assert {"frequency at best", "random-init twin at best"} <= set(fx.chosen.columns)
    null = wk.wording_effect(twin, twin, counts, seed=0)  # a model that knows nothing: no gap, failed instrument
    assert null.gap == (0.0, 0.0, 0.0) and not AboveBaseline("recalls_facts").check((null.recall, null.baseline)).passed
    tiny = wk.wording_effect(model[model.subject == "p0"], twin, counts)
    assert all(np.isnan(tiny.gap)) and all(np.isnan(tiny.recall))


def test_wording_suite_scores_on_a_tiny_model(tmp_path):
    """End to end: the suite's items are single toy-English words, so a word-level model scores all of them."""
    from bertology_lib.analysis.cloze import score_items
    from bertology_lib.models.registry import load_model, load_tokenizer

    cfg = toy_english.ToyEnglishConfig(n_sentences=5, seed=0)
    folder = save_toy_bert(tmp_path / "toy", cfg)
    model, tok = load_model(folder, head="mlm"), load_tokenizer(folder)
    items = wk.wording_suite(cfg)
    assert [it.words for it in items] == [it.words for it in wk.wording_suite(cfg)]  # deterministic
    scored = score_items(model, tok, items)
    assert len(scored) == len(items)
    fx = wk.wording_effect(scored, scored, wk.relation_word_counts([]), seed=0)
    assert len(fx.chosen) == len({(it.meta["relation"], it.meta["subject"]) for it in items})
    assert fx.recall[0] <= 0 and fx.gap == fx.twin_gap  # a model that is its own twin beats no baseline


def test_noun_types_and_probes_held_out_by_word():
    cfg = toy_english.ToyEnglishConfig(n_sentences=150, seed=0)
    sents = toy_english.generate_corpus(cfg)
    table = sem.noun_types(sents, cfg)
    assert set(table.type) <= set(sem.ENTITY_TYPES) and len(set(table.type)) == 3
    assert all(sents[s].upos[p] == "NOUN" for s, p in zip(table.sentence, table.position))
    n_words = sum(len(s) for s in sents)
    offsets = np.cumsum([0] + [len(s) for s in sents])[:-1]
    rows = np.asarray([offsets[s] + p for s, p in zip(table.sentence, table.position)])
    y = pd.Categorical(table.type, categories=sem.ENTITY_TYPES).codes
    g = torch.Generator().manual_seed(0)
    noise = torch.randn(2, n_words, 6, generator=g)
    typed = noise.clone()
    typed[1, rows, :3] += 4.0 * torch.nn.functional.one_hot(torch.as_tensor(y, dtype=torch.long), 3).float()
    probes = sem.entity_type_probes({"typed": typed, "noise": noise}, offsets, table, seed=0, probe_iter=50)
    sp = probes.split
    train_words, test_words = set(table.lemma.iloc[sp.train]), set(table.lemma.iloc[sp.test])
    assert not train_words & test_words  # held out by word
    assert probes.gap("typed", "type", ["noise", "per-word majority"])["low"] > 0.3
    assert probes.gap("noise", "type", ["per-word majority"])["low"] < 0.1  # the null does not pass
    with pytest.raises(ParameterError, match="too few"):
        sem.entity_type_probes({"typed": typed}, offsets, table[table.lemma.isin(sorted(set(table.lemma))[:5])])


def test_context_probe_reads_types_the_contexts_carry():
    """The baseline that knows the generator: a probe on each new noun's PPMI-SVD vector from the training split
    reads its type when each type has its own verbs, and a model that only has noise does not beat it; with
    verbs shared by every type the contexts carry no type."""
    rng = np.random.default_rng(0)
    verbs = {"person": ["talks", "writes"], "animal": ["barks", "grazes"], "thing": ["breaks", "rusts"]}
    nouns = {t: [f"{t[:2]}{k}" for k in range(40)] for t in verbs}

    def corpus(typed: bool) -> list[list[str]]:
        every = [v for vs in verbs.values() for v in vs]
        return [
            ["the", n, str(rng.choice(verbs[t] if typed else every)), "."]
            for t, ns in nouns.items()
            for n in ns
            for _ in range(6)
        ]

    probe = corpus(True)
    table = pd.DataFrame([{"sentence": i, "position": 1, "lemma": s[1], "type": s[1][:2]} for i, s in enumerate(probe)])
    table["type"] = table["type"].map({"pe": "person", "an": "animal", "th": "thing"})
    offsets = np.arange(len(probe)) * 4
    noise = torch.randn(2, 4 * len(probe), 6, generator=torch.Generator().manual_seed(0))
    kw = dict(seed=0, probe_iter=50)
    probes = sem.entity_type_probes({"noise": noise}, offsets, table, context_sentences=corpus(True), **kw)
    typed = probes.gap(sem.CONTEXT_COUNTS, "type", ["per-word majority"])
    assert typed["low"] > 0.3 and typed["accuracy"] > 0.9
    assert probes.gap("noise", "type", [sem.CONTEXT_COUNTS])["high"] < 0  # a model without the contexts loses
    flat = sem.entity_type_probes({"noise": noise}, offsets, table, context_sentences=corpus(False), **kw)
    assert flat.gap(sem.CONTEXT_COUNTS, "type", ["per-word majority"])["accuracy"] < 0.5  # near chance (1/3)


def test_context_vectors_shape_and_bad_input():
    from bertology_lib.analysis.ngram_cloze import context_vectors

    sents = [["a", "b", "c", "d"], ["c", "b", "e"], ["d", "a"]]
    x = context_vectors(sents, ["b", "z", "b"], window=1, dim=3)
    assert x.shape == (3, 3) and not x[1].any() and np.array_equal(x[0], x[2])  # z never occurs: a zero row
    with pytest.raises(ParameterError, match="window=0"):
        context_vectors(sents, ["a"], window=0)
    with pytest.raises(ParameterError, match="words is empty"):
        context_vectors(sents, [])
    with pytest.raises(ParameterError, match="no word pairs"):
        context_vectors([["a"]], ["a"])


def test_piece_gain_gap_compares_gains_over_the_twin_and_reports_room():
    rng = np.random.default_rng(0)
    n = 400
    kind = np.array(["both whole", "both split"] * (n // 2))
    twin = rng.random(n) < 0.6
    model = np.where(kind == "both whole", rng.random(n) < 0.95, twin)  # gains only on whole-token pairs
    pairs = pd.DataFrame({"kind": kind, "first": np.arange(n), "model": model.astype(int), "twin": twin.astype(int)})
    out = sem.piece_gain_gap(pairs, seed=0)
    assert out["low"] > 0.2 and 0.3 < out["room"] < 0.5
    null = sem.piece_gain_gap(pairs.assign(model=pairs.twin), seed=0)
    assert null["gap"] == 0 and null["low"] <= 0 <= null["high"]  # the twin against itself: nothing
    missing = sem.piece_gain_gap(pairs[pairs.kind == "both whole"], seed=0)
    assert np.isnan(missing["gap"]) and missing["room"] == 0.0


def test_chain_lengths_count_stated_steps():
    stated = [("ant", "cat"), ("cat", "dog"), ("dog", "horse"), ("ant", "dog")]
    pairs = [("ant", "dog"), ("cat", "horse"), ("ant", "horse"), ("horse", "ant"), ("cat", "cat")]
    assert wk.chain_lengths(stated, pairs).tolist() == [1, 2, 2, -1, 0]


def test_addition_probe_recovers_sums_from_digits_and_not_from_noise():
    numbers = np.arange(200)
    X = nm.digit_features(numbers, n_noise=4, seed=0)
    noise = torch.randn(1, 200, 7, generator=torch.Generator().manual_seed(0))
    train = nm.comparison_pairs(numbers[:120], 600, seed=0)  # hundreds digit seen (0 and 1)
    far = nm.comparison_pairs(numbers[150:], 300, seed=1)
    right = nm.addition_probe(X, numbers, train, {"far": far}, l2=1e-3)
    null = nm.addition_probe(noise, numbers, train, {"far": far})
    assert right.error["far"].shape == (1, 300) and right.mean_error("far")[0] < 1.0  # linear in digits: exact
    assert null.mean_error("far")[0] > 50 and right.best_layer("far") == 0
    with pytest.raises(ParameterError, match="l2=0"):
        nm.addition_probe(X, numbers, train, {"far": far}, l2=0)


def test_cooccurrence_choice_reads_the_verb_object_pairs_of_the_corpus():
    from bertology_lib.data.toy_english.sentence import ClozeItem
    from bertology_lib.experiments.survey import semantics as sem

    class S:  # the fields verb_object_counts reads
        def __init__(self, words, lemmas, deprels, heads):
            self.words, self.lemmas, self.deprels, self.heads = words, lemmas, deprels, heads

    corpus = [
        S(
            ["the", "cook", "ate", "the", "apples"],
            ["the", "cook", "eat", "the", "apple"],
            ["det", "nsubj", "root", "det", "obj"],
            [2, 3, 0, 5, 3],
        )
    ] * 2
    corpus.append(
        S(["she", "saw", "the", "house"], ["she", "see", "the", "house"], ["nsubj", "root", "det", "obj"], [2, 0, 4, 2])
    )
    pairs, lemma_of = sem.verb_object_counts(corpus)
    assert pairs[("eat", "apple")] == 2 and pairs[("see", "house")] == 1 and lemma_of["apples"] == "apple"

    def item(good, bad):
        return ClozeItem("selectional", ("x",), 0, good, bad, {"verb": "eat"})

    out = sem.cooccurrence_choice(
        [item("apples", "house"), item("house", "apples"), item("pears", "house")], pairs, lemma_of
    )
    assert out.tolist() == [1.0, 0.0, 0.5]
    with pytest.raises(ValueError, match="no meta\\['verb'\\]"):
        sem.cooccurrence_choice([ClozeItem("s", ("x",), 0, "a", "b", {})], pairs, lemma_of)
