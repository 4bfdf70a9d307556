"""Toy-English generator: gold annotations, agreement, suites, knowledge base, baselines."""

from __future__ import annotations

import dataclasses
import random
import re
import time
from collections import Counter

import numpy as np
import pytest

from bertology_lib.data import suites as toy_suites
from bertology_lib.data import toy_english as te
from bertology_lib.errors import ParameterError

N_BIG = 20_000


@pytest.fixture(scope="module")
def cfg() -> te.ToyEnglishConfig:
    return te.ToyEnglishConfig(n_sentences=N_BIG, seed=0)


@pytest.fixture(scope="module")
def big(cfg):
    t0 = time.perf_counter()
    corpus = te.generate_corpus(cfg)
    elapsed = time.perf_counter() - t0
    lengths = [len(s) for s in corpus]
    print(
        f"\n[toy_english] {N_BIG} sentences in {elapsed:.2f}s; mean length {np.mean(lengths):.1f}, max {max(lengths)}"
    )
    return corpus


@pytest.fixture(scope="module")
def small(cfg):
    return te.generate_corpus(te.ToyEnglishConfig(n_sentences=3000, seed=0))


@pytest.fixture(scope="module")
def suites(cfg):
    return {name: toy_suites.make_suite(name, cfg) for name in te.SUITES}


def _all_sentences(corpus, suites):
    yield from corpus
    for items in suites.values():
        for it in items:
            yield it.sentence


# ---------------------------------------------------------------------------------
# determinism, RNG hygiene, configuration
# ---------------------------------------------------------------------------------


def test_deterministic_and_seed_dependent():
    a = te.generate_corpus(te.ToyEnglishConfig(n_sentences=300, seed=3))
    b = te.generate_corpus(te.ToyEnglishConfig(n_sentences=300, seed=3))
    c = te.generate_corpus(te.ToyEnglishConfig(n_sentences=300, seed=4))
    assert a == b
    assert [s.words for s in a] != [s.words for s in c]
    cfg = te.ToyEnglishConfig(n_sentences=10, seed=3)
    assert toy_suites.make_suite("agreement", cfg, 30) == toy_suites.make_suite("agreement", cfg, 30)
    # prefix property: a bigger corpus starts with the smaller one
    assert te.generate_corpus(te.ToyEnglishConfig(n_sentences=100, seed=3)) == a[:100]


def test_global_rng_untouched():
    random.seed(123)
    np.random.seed(123)
    py_state, np_state = random.getstate(), np.random.get_state()
    cfg = te.ToyEnglishConfig(n_sentences=200, seed=98765, vocab_size=800)
    te.generate_corpus(cfg)
    te.knowledge_base(98766)
    for name in te.SUITES:
        toy_suites.make_suite(name, cfg, 20)
    te.shuffle_words(te.generate_corpus(cfg)[0])
    assert random.getstate() == py_state
    after = np.random.get_state()
    assert all(np.array_equal(x, y) if isinstance(x, np.ndarray) else x == y for x, y in zip(np_state, after))


@pytest.mark.parametrize(
    "kwargs, name, bad",
    [
        ({"n_sentences": -1}, "n_sentences", "-1"),
        ({"n_sentences": 10, "seed": -5}, "seed", "-5"),
        ({"n_sentences": 10, "vocab_size": 10}, "vocab_size", "10"),
        ({"n_sentences": 10, "max_len": 3}, "max_len", "3"),
        ({"n_sentences": 10, "p_negation": 1.5}, "p_negation", "1.5"),
        ({"n_sentences": 10, "zipf_exponent": 0}, "zipf_exponent", "0"),
        ({"n_sentences": 2.5}, "n_sentences", "2.5"),
        ({"n_sentences": True}, "n_sentences", "True"),
    ],
)
def test_bad_config_names_the_value(kwargs, name, bad):
    with pytest.raises(ValueError) as err:
        te.ToyEnglishConfig(**kwargs)
    msg = str(err.value)
    assert f"{name}={bad}" in msg and "allowed" in msg
    assert isinstance(err.value, ParameterError)


def test_to_dict():
    cfg = te.ToyEnglishConfig(n_sentences=5, seed=1)
    d = cfg.to_dict()
    assert d["n_sentences"] == 5 and d["seed"] == 1 and te.ToyEnglishConfig(**d) == cfg


# ---------------------------------------------------------------------------------
# gold annotations
# ---------------------------------------------------------------------------------


def _check_tree(s: te.Sentence) -> None:
    n = len(s.words)
    for field in (s.lemmas, s.upos, s.heads, s.deprels, s.depth, s.chunks, s.roles, s.number):
        assert len(field) == n
    assert s.heads.count(0) == 1, s.text
    root = s.heads.index(0)
    assert s.deprels[root] == "root" and s.depth[root] == 0
    for i, h in enumerate(s.heads):
        assert 0 <= h <= n and h != i + 1
        if h:
            assert s.deprels[i] != "root"
            assert s.depth[i] == s.depth[h - 1] + 1, (s.text, i)
    for i in range(n):  # no cycles: every word reaches the root within n steps
        j, steps = i, 0
        while s.heads[j] != 0:
            j = s.heads[j] - 1
            steps += 1
            assert steps <= n, s.text
    assert set(s.upos) <= set(te.UPOS_TAGS)
    assert set(s.deprels) <= set(te.DEPRELS), set(s.deprels) - set(te.DEPRELS)
    assert set(s.roles) <= {"agent", "patient", "none"}
    prev = "O"
    for c in s.chunks:
        assert c == "O" or re.fullmatch(r"[BI]-(NP|VP|PP)", c), c
        if c.startswith("I-"):
            assert prev != "O" and prev[2:] == c[2:], s.text
        prev = c


def _is_projective(s: te.Sentence) -> bool:
    heads = s.heads
    for d, h in enumerate(heads):
        if not h:
            continue
        lo, hi = sorted((d, h - 1))
        for k in range(lo + 1, hi):
            j = k  # k must be dominated by h-1
            while j != h - 1 and heads[j] != 0:
                j = heads[j] - 1
            if j != h - 1:
                return False
    return True


def test_trees_well_formed_and_projective(big, suites):
    for s in _all_sentences(big[:8000], suites):
        _check_tree(s)
        assert _is_projective(s), s.text


def test_lengths_and_max_len(big, cfg):
    lengths = [len(s) for s in big]
    assert max(lengths) <= cfg.max_len
    assert 8 <= np.mean(lengths) <= 20
    assert max(lengths) >= 30  # long sentences do occur
    short = te.generate_corpus(te.ToyEnglishConfig(n_sentences=500, seed=2, max_len=16))
    assert max(len(s) for s in short) <= 16


def test_roles_and_chunks_are_sensible(small):
    for s in small[:1000]:
        for i, r in enumerate(s.roles):
            if r == "agent":
                assert s.deprels[i] in ("nsubj", "obl:agent", "conj")
            if r == "patient":
                assert s.deprels[i] in ("obj", "nsubj:pass", "conj")
            if s.upos[i] == "NOUN":
                assert s.chunks[i].endswith("NP")
            if s.upos[i] == "ADP":
                assert s.chunks[i] == "B-PP"
    n_roles = Counter(r for s in small for r in s.roles)
    assert n_roles["agent"] > 1000 and n_roles["patient"] > 1000


def test_conllu_round_trip(small):
    conllu = pytest.importorskip("conllu")
    text = "".join(s.to_conllu(f"s{i}") + "\n" for i, s in enumerate(small[:50]))
    parsed = conllu.parse(text)
    assert len(parsed) == 50
    for tl, s in zip(parsed, small[:50]):
        assert [t["form"] for t in tl] == list(s.words)
        assert [t["head"] for t in tl] == list(s.heads)


# ---------------------------------------------------------------------------------
# agreement
# ---------------------------------------------------------------------------------


def _subject_number(s: te.Sentence, subj: int, lex: te.Lexicon, coord: bool = True) -> str | None:
    """Number of the subject headed at ``subj``, read from forms and the tree only.

    ``coord=False`` for antecedents of relative pronouns: a relative clause inside the
    first conjunct refers to that conjunct only.
    """
    w = s.words[subj]
    children = [j for j, h in enumerate(s.heads) if h == subj + 1]
    if coord and any(s.deprels[j] == "conj" for j in children):
        return "Plur"
    if s.upos[subj] == "PRON":
        if w in ("he", "she", "it"):
            return "Sing"
        if w == "they":
            return "Plur"
        # relative pronoun: number of the antecedent (head of the acl:relcl verb)
        j = subj
        while s.deprels[j] != "acl:relcl":
            j = s.heads[j] - 1
        return _subject_number(s, s.heads[j] - 1, lex, coord=False)
    if s.upos[subj] == "PROPN":
        return "Sing"
    forms = lex.noun_form_number.get(w, set())
    if len(forms) == 1:
        return next(iter(forms))
    for j in children:  # number-ambiguous noun: a number-marking determiner or numeral
        if s.deprels[j] == "nummod":
            return "Sing" if s.words[j] == "one" else "Plur"
        if s.words[j] in te.DETS_SG or s.words[j] == "an":
            return "Sing"
        if s.words[j] in te.DETS_PL:
            return "Plur"
    return None  # e.g. "the sheep": genuinely ambiguous


def _finite_agreeing(s: te.Sentence, lex: te.Lexicon):
    """(verb index, marked number, subject index) for every number-marking finite form."""
    out = []
    for i, (w, u) in enumerate(zip(s.words, s.upos)):
        if u not in ("VERB", "AUX"):
            continue
        if u == "VERB":
            if any(s.heads[j] == i + 1 and s.deprels[j] in ("aux", "aux:pass") for j in range(len(s))):
                continue
            info = lex.verb_form_info.get(w, set())
            if w in ("has", "have"):
                info = {"Sing" if w == "has" else "Plur"}
            num = "Sing" if "Sing" in info else "Plur" if "Plur" in info else None
            pred = i
        else:
            num = {
                "is": "Sing",
                "are": "Plur",
                "was": "Sing",
                "were": "Plur",
                "has": "Sing",
                "have": "Plur",
                "does": "Sing",
                "do": "Plur",
            }.get(w)
            pred = s.heads[i] - 1
            first_aux = min(
                j for j in range(len(s)) if s.heads[j] == pred + 1 and s.deprels[j] in ("aux", "aux:pass", "cop")
            )
            if first_aux != i:
                continue
        if num is None:
            continue
        subj = [j for j in range(len(s)) if s.heads[j] == pred + 1 and s.deprels[j] in ("nsubj", "nsubj:pass")]
        assert len(subj) == 1, (s.text, w)
        out.append((i, num, subj[0]))
    return out


def test_agreement_correct_in_every_sentence(big, cfg, suites):
    lex = te.lexicon(cfg)
    n_checked = n_ambiguous = 0
    for s in _all_sentences(big, {k: v for k, v in suites.items() if k != "agreement"}):
        recorded = {a["verb"]: a for a in s.meta["agreement"]}
        for v, num, subj in _finite_agreeing(s, lex):
            assert v in recorded, (s.text, s.words[v])
            assert recorded[v]["number"] == num, (s.text, s.words[v])
            gold = _subject_number(s, subj, lex)
            if gold is None:
                n_ambiguous += 1
                assert s.number[subj] == num
                continue
            assert gold == num, (s.text, s.words[subj], s.words[v])
            n_checked += 1
    assert n_checked > 20_000 and n_ambiguous > 50


def test_corpus_has_long_distance_agreement(big):
    n_att = Counter(len(s.meta.get("attractors", ())) for s in big if s.meta.get("verb_index") is not None)
    types = Counter(t for s in big for t in s.meta.get("attractor_types", ()))
    assert n_att[1] > 200 and n_att[2] > 20 and n_att[3] > 0
    assert types["pp"] > 100 and types["rc"] > 100


def test_agreement_suite_attractors(suites, cfg):
    lex = te.lexicon(cfg)
    items = suites["agreement"]
    assert len(items) >= 200
    counts = Counter(it.meta["n_attractors"] for it in items)
    assert set(counts) == {0, 1, 2, 3} and min(counts.values()) >= 50
    kinds = Counter(it.meta["attractor_kind"] for it in items)
    assert kinds["pp"] and kinds["rc"] and kinds["mixed"]
    for it in items:
        s = it.sentence
        subj, verb = it.meta["subject_index"], it.mask_index
        assert it.meta["verb_index"] == verb and s.words[verb] == it.correct
        subj_num = _subject_number(s, subj, lex)
        assert subj_num == it.meta["number"]
        between = [j for j in range(subj + 1, verb) if s.upos[j] == "NOUN"]
        opposite = [
            j for j in between if lex.noun_form_number[s.words[j]] == {"Plur" if subj_num == "Sing" else "Sing"}
        ]
        assert len(opposite) == len(between) == it.meta["n_attractors"], it.text
        assert te.verb_form_number(it.correct, lex) == subj_num
        assert te.verb_form_number(it.incorrect, lex) not in (None, subj_num)


# ---------------------------------------------------------------------------------
# NPIs
# ---------------------------------------------------------------------------------


def test_npis_only_licensed_in_corpus(big):
    n_npi = 0
    for s in big:
        lic = set(s.meta["licensors"])
        for i in s.meta["npis"]:
            n_npi += 1
            clause = s.heads[i] - 1 if s.deprels[i] != "det" else s.heads[s.heads[i] - 1] - 1
            clause_lic = [
                j
                for j in lic
                if s.heads[j] - 1 == clause
                or (
                    s.words[j] == "no"
                    and s.deprels[s.heads[j] - 1] in ("nsubj", "nsubj:pass")
                    and s.heads[s.heads[j] - 1] - 1 == clause
                )
            ]
            assert clause_lic, s.text
        assert all(w in te.LICENSORS for w in (s.words[j] for j in lic))
    assert n_npi > 300


# ---------------------------------------------------------------------------------
# suites in general
# ---------------------------------------------------------------------------------


def test_selectional_gradient_in_corpus_and_suite(big, cfg, suites):
    lex = te.lexicon(cfg)
    cls = {}
    for n in lex.nouns:
        cls[n.sg] = cls[n.pl] = n.cls
    from bertology_lib.data.suites.semantics import patient_gradient

    grad = {v.base: patient_gradient(v, sorted(lex.by_class)) for v in lex.transitive}
    tally = Counter()
    for s in big:
        for i, d in enumerate(s.deprels):
            if d == "obj" and s.upos[i] == "NOUN":
                g = grad.get(s.lemmas[s.heads[i] - 1])
                if g:
                    c = cls[s.words[i]]
                    tally[
                        "high"
                        if c == g[0]
                        else "mid"
                        if c == g[1]
                        else "low"
                        if c not in dict(lex.verb_by_base[s.lemmas[s.heads[i] - 1]].patient)
                        else "other"
                    ] += 1
    assert tally["high"] > 3 * tally["mid"] > 0 and tally["mid"] > tally["low"] / 5
    tip = [it for it in suites["selectional"] if it.meta["verb"] == "tip"]
    assert any(it.correct == "waiter" and it.incorrect == "robin" for it in tip)
    for it in suites["selectional"]:
        assert it.meta["good_pref"] > it.meta["bad_pref"]


# ---------------------------------------------------------------------------------
# knowledge base
# ---------------------------------------------------------------------------------


def test_knowledge_base_is_consistent():
    kb = te.knowledge_base(0)
    assert kb is te.knowledge_base(0) and kb != te.knowledge_base(1)
    assert len(set(kb.names)) == len(kb.names)
    for k, c in kb.capital.items():
        assert kb.city_country[c] == k
    order = {w: i for i, w in enumerate(kb.size_order)}
    for a, b in kb.stated_size_pairs | kb.heldout_size_pairs:
        assert order[a] < order[b]
    assert not kb.stated_size_pairs & kb.heldout_size_pairs
    assert len(kb.heldout_size_pairs) > 40
    stated = {(f.relation, f.subject, f.object) for f in kb.stated_facts()}
    assert not stated & {(f.relation, f.subject, f.object) for f in kb.heldout_facts()}


def test_stated_facts_are_in_the_corpus_and_heldout_ones_never(big, cfg, suites):
    kb = te.knowledge_base(cfg.seed)
    said = Counter(f for s in big for f in s.meta.get("facts", ()))
    for f in kb.stated_facts():
        assert said[(f.relation, f.subject, f.object)] >= 2, f
    for it in suites["knowledge"]:
        assert said[it.meta["fact"]] >= 1
    inferred = {it.meta["fact"] for it in suites["inference"]}
    assert len(suites["inference"]) >= 200 and len(inferred) >= 60
    texts = [set(s.words) for s in big]
    for rel, a, b in inferred:
        assert (rel, a, b) not in said
        for words in texts:
            if a in words and b in words:
                if rel == "smaller_than":
                    assert not words & {"bigger", "smaller", "larger"}, (a, b)
                elif rel == "city_in_country":
                    assert "capital" in words, (a, b)
                else:  # lives_in_country: the person and the country never co-occur
                    raise AssertionError((a, b))


# ---------------------------------------------------------------------------------
# vocabulary, frequency profile, POS ambiguity
# ---------------------------------------------------------------------------------


def test_vocabulary_and_zipf(big, cfg):
    vocab = te.vocabulary(cfg)
    assert vocab == sorted(set(vocab))
    freq = Counter(w for s in big for w in s.words)
    assert set(freq) <= set(vocab)
    assert len(freq) >= 2000
    ranks = np.arange(1, len(freq) + 1)
    counts = np.array(sorted(freq.values(), reverse=True), dtype=float)
    sel = (ranks >= 10) & (ranks <= 1000)
    slope = np.polyfit(np.log(ranks[sel]), np.log(counts[sel]), 1)[0]
    print(
        f"\n[toy_english] vocabulary {len(vocab)} forms, {len(freq)} types seen, "
        f"{sum(freq.values())} tokens, rank-frequency slope {slope:.2f}"
    )
    assert -1.8 < slope < -0.7
    hapax = sum(1 for c in freq.values() if c == 1)
    assert hapax > 100  # a long tail


def test_pos_majority_baseline(big):
    train, test = big[:15000], big[15000:]
    amb = te.ambiguous_words(train)
    res = te.per_word_majority_baseline(train, test)
    print(
        f"\n[toy_english] majority POS baseline: overall {res['accuracy']:.3f}, "
        f"ambiguous {res['ambiguous_accuracy']:.3f} ({int(res['n_ambiguous_types'])} types, "
        f"{int(res['n_ambiguous_tokens'])} tokens), unambiguous {res['unambiguous_accuracy']:.3f}"
    )
    assert res["accuracy"] > 0.9
    assert res["ambiguous_accuracy"] < 0.85
    assert res["n_ambiguous_tokens"] / res["n_tokens"] > 0.03
    # noun/verb ambiguity is part of it: some word is tagged both NOUN and VERB often
    nv = [w for w, c in amb.items() if min(c["NOUN"], c["VERB"]) >= 20]
    assert len(nv) >= 20
    assert {"that", "her"} <= set(amb)


# ---------------------------------------------------------------------------------
# insensitivity transforms
# ---------------------------------------------------------------------------------


def test_transforms(small, suites):
    s = next(x for x in small if any(d == "obj" for d in x.deprels) and len(x) > 8)
    sh = te.shuffle_words(s, seed=1)
    assert sorted(sh.words) == sorted(s.words) and sh.words[-1] == s.words[-1]
    assert sh.words != s.words
    tr = te.truncate(s, 4)
    assert tr.words == s.words[:4]
    assert len(te.truncate(s, 0.5)) == round(len(s) * 0.5)
    ns = te.remove_subject(s)
    subj = next(
        i for i, (h, d) in enumerate(zip(s.heads, s.deprels)) if d in ("nsubj", "nsubj:pass") and s.heads[h - 1] == 0
    )
    assert s.words[subj] not in ns.words or len(ns) < len(s)
    assert "nsubj" not in [d for d, h in zip(ns.deprels, ns.heads) if h and ns.heads[h - 1] == 0]
    no = te.remove_object(s)
    assert len(no) < len(s)
    for t in (sh, tr, ns, no):
        assert len(t.upos) == len(t.words) == len(t.heads)
        assert all(0 <= h <= len(t) for h in t.heads)
    for it in suites["agreement"][:40]:
        for name in te.TRANSFORMS:
            new = te.apply_transform(it, name)
            if new is None:
                continue
            assert new.words[new.mask_index] == te.MASK and new.words.count(te.MASK) == 1
            assert new.correct == it.correct and new.meta["transform"] == name
    with pytest.raises(ParameterError, match="transform='reverse'.*'shuffle'"):
        te.apply_transform(suites["agreement"][0], "reverse")
    with pytest.raises(ParameterError, match="keep=0 "):
        te.truncate(s, 0)
    with pytest.raises(ParameterError, match="keep=1.5 "):
        te.truncate(s, 1.5)


def test_sample_seed_draws_new_sentences_in_the_same_words():
    base = te.ToyEnglishConfig(n_sentences=400, seed=3)
    assert base.key()["sample_seed"] is None  # every field in the key, at any value
    fresh = dataclasses.replace(base, sample_seed=99)
    assert fresh.to_dict()["sample_seed"] == 99
    a, b = te.generate_corpus(base), te.generate_corpus(fresh)
    assert [s.text for s in a] != [s.text for s in b]
    assert te.vocabulary(base) == te.vocabulary(fresh)  # same lexicon and facts
    words = set(te.vocabulary(base))
    assert all(w in words for s in b for w in s.words)
    with pytest.raises(ParameterError, match="sample_seed"):
        dataclasses.replace(base, sample_seed=-1)


def test_fresh_sentences_are_in_vocabulary_and_not_in_the_corpus():
    from bertology_lib.models import minibert

    cfg = minibert.MiniBertConfig.for_profile("smoke")
    tok = minibert.tokenizer_for(cfg)
    fresh = minibert.fresh_sentences(cfg, 300)
    assert len(fresh) == 300
    ids = [i for s in fresh for i in tok(s.text)["input_ids"]]
    assert tok.unk_token_id not in ids
    train, held = minibert.corpus(cfg)
    assert not {s.text for s in fresh} & {s.text for s in train + held}
