"""CheckList suites and HANS-like items (survey §7): gold labels, determinism, failure rates, caching."""

from __future__ import annotations

import pandas as pd
import pytest
from conftest import save_toy_bert
import torch

from bertology_lib.data import checklist, hans
from bertology_lib.experiments.survey import behaviour as B
from bertology_lib.training import finetune as F
from bertology_lib.cache import ArtifactCache
from bertology_lib.data import tasks as T
from bertology_lib.data.toy_english import LICENSORS, ToyEnglishConfig
from bertology_lib.errors import ParameterError
from bertology_lib.stats import wilson_interval

torch.set_num_threads(1)

WORLD = ToyEnglishConfig(n_sentences=1, seed=0, vocab_size=3000)


@pytest.fixture(scope="module")
def suite():
    return checklist.negation_suite(WORLD, n_per_test=6, seed=0)


@pytest.fixture(scope="module")
def toy_bert_dir(tmp_path_factory):
    """A tiny random BERT with the toy-English word-level tokenizer (no [UNK] on toy items)."""
    return save_toy_bert(tmp_path_factory.mktemp("toy-bert"), WORLD)


# -- the negation suite ----------------------------------------------------------------


def test_suite_has_every_test_with_its_kind(suite):
    assert [t.name for t in suite] == [n for n, *_ in checklist.NEGATION_TESTS]
    assert {t.kind for t in suite} == set(checklist.KINDS)
    assert all(len(t.items) == 6 for t in suite)


def test_suite_is_deterministic_from_its_seed(suite):
    again = checklist.negation_suite(WORLD, n_per_test=6, seed=0)
    other = checklist.negation_suite(WORLD, n_per_test=6, seed=1)
    assert [i.text for t in suite for i in t.items] == [i.text for t in again for i in t.items]
    assert [i.text for t in suite for i in t.items] != [i.text for t in other for i in t.items]


def test_mft_items_have_the_intended_labels(suite):
    by = {t.name: t for t in suite}
    for name in (
        "not in the main clause",
        "never in the main clause",
        "no on the subject",
        "negated main, affirmative relative",
    ):
        assert all(i.label == 1 for i in by[name].items), name
    for name in ("affirmative", "negated relative clause only", "negated subordinate clause only"):
        assert all(i.label == 0 for i in by[name].items), name
    for i in by["not in the main clause"].items:
        assert "not" in i.text.split()
    for i in by["never in the main clause"].items:
        assert "never" in i.text.split()
    for i in by["no on the subject"].items:
        assert i.text.split()[0] == "no"
    for i in by["affirmative"].items:
        assert not set(i.text.split()) & set(LICENSORS)
    for name in ("negated relative clause only", "negated subordinate clause only"):
        for i in by[name].items:  # a licensor is present, but not in the main clause
            assert "not" in i.text.split()
    for i in by["negated relative clause only"].items:
        assert set(i.text.split()) & {"that", "which", "who"}


def test_inv_and_dir_pairs_keep_or_flip_the_label(suite):
    for t in suite:
        for i in t.items:
            if t.kind == "INV":
                assert i.label == i.perturbed_label and i.text != i.perturbed
            if t.kind == "DIR":
                assert i.perturbed_label == 1 - i.label
                assert (t.direction == 1) == (i.label == 0)
    by = {t.name: t for t in suite}
    for i in by["add a negated relative clause"].items:
        assert i.perturbed.startswith(i.text[:-2]) and "not" in i.perturbed.split()[len(i.text.split()) - 1 :]
    for i in by["change the subject's number"].items:
        assert i.text.split()[1] != i.perturbed.split()[1]


def test_suite_items_use_only_the_worlds_vocabulary(suite):
    task = T.toy_classification(n_train=4, n_dev=2, n_test=2)
    vocab = T.toy_vocabulary(task)
    words = {w for t in suite for i in t.items for s in (i.text, i.perturbed or "") for w in s.split()}
    assert words <= vocab


# -- HANS-like items -----------------------------------------------------------------


def test_hans_items_have_full_overlap_and_intended_labels():
    items = hans.hans_like(WORLD, n_per_category=5, seed=0)
    assert len(items) == 5 * len(hans.HANS_CATEGORIES)
    for e in items:
        assert hans.full_overlap(e.text, e.text_pair), (e.text, e.text_pair)
        assert (e.label == 0) == e.meta["entailed"]
    cats = pd.Series([e.meta["category"] for e in items]).value_counts()
    assert set(cats.index) == {c for c, *_ in hans.HANS_CATEGORIES} and set(cats) == {5}
    by = {}
    for e in items:
        by.setdefault(e.meta["category"], []).append(e)
    assert all(" not " in e.text and " not " not in e.text_pair for e in by["negated premise"])
    assert all(e.text.startswith("if ") for e in by["conditional"])
    assert all(e.text == e.text_pair for e in by["identical sentence"])
    assert hans.hans_like(WORLD, 5, 0)[7].text == items[7].text


def test_hans_non_entailed_hypotheses_are_false_in_the_knowledge_base():
    from bertology_lib.data.toy_english import knowledge_base

    kb = knowledge_base(WORLD.seed)
    for e in hans.hans_like(WORLD, n_per_category=8, seed=2):
        if e.meta["entailed"] or e.meta["category"] == "reversed comparison":
            continue
        w = e.text_pair.split()
        if "lives" in w:
            assert kb.lives_in[w[0]] != w[-2]
        else:  # "X is a/an O ."
            assert kb.occupation[w[0]] != w[-2]


def test_full_overlap():
    assert hans.full_overlap("a b c .", "c a .")
    assert not hans.full_overlap("a b .", "a d .")


def test_overlap_table_and_biased_split():
    pool = T.toy_nli(n_train=300, n_dev=6, n_test=6)
    t = hans.overlap_table(pool.examples("train"))
    assert set(t.index) == {False, True}
    assert t.drop(columns="n").sum(axis=1).round(6).eq(1).all()
    biased = hans.nli_split(pool, 150, biased=True)
    tr = biased.examples("train")
    assert len(tr) == 150
    assert all(e.label == 0 for e in tr if e.meta["overlap"] >= 1.0)
    assert hans.overlap_table(tr).loc[True, "entailment"] == 1.0
    assert biased.examples("test") == pool.examples("test")
    assert hans.nli_split(pool, 150).examples("train") == pool.examples("train")[:150]
    with pytest.raises(ParameterError, match="n_train=10000"):
        hans.nli_split(pool, 10000)


# -- failure rates -------------------------------------------------------------------


class _Fixed(torch.nn.Module):
    """A fake head model: P(class 1) = 0.9 when the text contains 'not', else 0.2."""

    def __init__(self, tok):
        super().__init__()
        self.not_id = tok.convert_tokens_to_ids("not")
        self.encoder = torch.nn.Module()
        self.encoder.config = type("C", (), {"max_position_embeddings": 64})()

    def forward(self, input_ids, attention_mask=None, token_type_ids=None, labels=None):
        has = (input_ids == self.not_id).any(-1).float()  # (B,)
        p1 = 0.2 + 0.7 * has
        from types import SimpleNamespace

        return SimpleNamespace(logits=torch.stack([torch.log(1 - p1), torch.log(p1)], -1), loss=None)


def test_run_tests_and_failure_rates_on_a_bag_of_words_model(suite, toy_bert_dir):
    tok = F.ModelSource(toy_bert_dir).load_tokenizer()
    res = B.run_tests(_Fixed(tok), tok, suite, ("affirmative", "negated"))
    table = B.failure_table(res).set_index("test")
    # a "contains not" rule passes plain negation and fails every scope decoy
    assert table.loc["not in the main clause", "failure_rate"] == 0.0
    assert table.loc["never in the main clause", "failure_rate"] == 1.0
    assert table.loc["negated relative clause only", "failure_rate"] == 1.0
    assert table.loc["negated subordinate clause only", "failure_rate"] == 1.0
    assert table.loc["swap the subject noun", "failure_rate"] == 0.0
    base_aff = res[(res.test == "add a negated relative clause") & (res.label == 0)]
    assert (
        base_aff.failed.all() and not res[(res.test == "add a negated relative clause") & (res.label == 1)].failed.any()
    )
    assert table.loc["negate the main clause", "failure_rate"] == 0.0  # 0.2 -> 0.9
    assert table.loc["remove the main-clause negation", "failure_rate"] == 0.0
    row = table.loc["affirmative"]
    assert (row.ci_low, row.ci_high) == pytest.approx(wilson_interval(int(row.failures), int(row.n)))
    both = pd.concat([res.assign(seed=0), res.assign(seed=1)])
    summ = B.summarise_seeds(B.failure_table(both)).set_index("test")
    assert summ.loc["never in the main clause", "mean"] == 1.0 and summ.loc["affirmative", "std"] == 0.0


def test_dir_tolerance():
    t = checklist.BehaviourTest(
        "d", "DIR", "c", "", (checklist.TestItem("a", 0, "b", 1),), target=1, direction=1, tolerance=0.1
    )
    assert not B.item_failed(t, {"p_before": 0.5, "p_after": 0.45})
    assert B.item_failed(t, {"p_before": 0.5, "p_after": 0.35})


# -- fine-tuning with cached weights ---------------------------------------------------


def test_finetune_keep_model_caches_weights_and_reloads_the_same_model(toy_bert_dir, tmp_cache, suite):
    task = T.toy_classification(n_train=16, n_dev=4, n_test=8)
    cfg = F.FinetuneConfig(max_steps=3, batch_size=8, eval_batch_size=16, eval_splits=("test",))
    cache = ArtifactCache(tmp_cache)
    r1 = F.finetune(task, toy_bert_dir, cfg, seed=0, cache=cache, keep_model=True)
    r2 = F.finetune(task, toy_bert_dir, cfg, seed=0, cache=cache, keep_model=True)
    (m1, tok), (m2, tok2) = (r1.fine_tuned, r1.tokenizer), (r2.fine_tuned, r2.tokenizer)
    assert not r1.cached and r2.cached
    assert r1.metrics == r2.metrics
    texts = [i.text for i in suite[0].items]
    p1 = B.predict_probs(m1, tok, texts, ("a", "n"))
    p2 = B.predict_probs(m2, tok2, texts, ("a", "n"))
    assert torch.allclose(p1, p2)
    assert len(list(cache.entries())) == 1


def test_sst2_suite_is_well_formed():
    sents = ["a gorgeous , witty , seductive movie .", "the plot is nothing but boilerplate clichés ."]
    s = checklist.sst2_suite(sents, n_per_test=6, seed=0)
    assert [t.name for t in s] == [n for n, *_ in checklist.SST2_TESTS]
    by = {t.name: t for t in s}
    assert all(i.label == 0 and " not " in i.text for i in by["negated positive"].items)
    assert [i.label for i in by["simple sentiment"].items] == [1, 0] * 3
    assert all(i.perturbed != i.text for i in by["typo"].items)
    assert all(" not " in i.perturbed for i in by["negate the sentiment"].items)
    assert [i.text for t in s for i in t.items] == [i.text for t in checklist.sst2_suite(sents, 6, 0) for i in t.items]


# -- bad input -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: checklist.negation_suite(WORLD, n_per_test=0), "n_per_test=0"),
        (lambda: checklist.negation_suite("nope"), "world='nope'"),
        (lambda: checklist.negation_suite(WORLD, seed=-1), "seed=-1"),
        (lambda: hans.hans_like(WORLD, n_per_category=True), "n_per_category=True"),
        (lambda: checklist.sst2_suite([], 4), "sentences"),
        (lambda: checklist.BehaviourTest("x", "FOO", "c", "", ()), "kind='FOO'"),
        (lambda: checklist.BehaviourTest("x", "MFT", "c", "", (checklist.TestItem("a"),)), "without a label"),
        (
            lambda: checklist.BehaviourTest("x", "DIR", "c", "", (checklist.TestItem("a", 0, "b"),), direction=0),
            "direction=0",
        ),
        (lambda: B.BehaviourSizes.for_profile("huge"), "profile='huge'"),
        (lambda: B.failure_table(pd.DataFrame()), "results are empty"),
    ],
)
def test_bad_input_raises_parameter_error(call, match):
    with pytest.raises(ParameterError, match=match):
        call()


def test_star_import_gives_every_name_in_all():
    namespace: dict = {}
    exec("from bertology_lib.experiments.survey.behaviour import *", namespace)
    assert set(B.__all__) <= set(namespace)
    for mod in (checklist, hans):
        assert all(hasattr(mod, n) for n in mod.__all__)


@pytest.mark.parametrize(
    "call, match",
    [
        (
            lambda: checklist.BehaviourTest(
                "x", "DIR", "c", "", (checklist.TestItem("a", 0, "b"),), direction=1, tolerance=1.0
            ),
            "tolerance=1.0",
        ),
        (lambda: hans.nli_split(T.toy_nli(n_train=3, n_dev=0, n_test=0), 2, biased="yes"), "biased='yes'"),
        (lambda: B.checklist_sweep(None, None, [], [0, 0]), "seeds=\\[0, 0\\]"),
    ],
)
def test_more_bad_input(call, match):
    with pytest.raises(ParameterError, match=match):
        call()


def test_sizes_grow_with_the_profile():
    s, q, f = (B.BehaviourSizes.for_profile(p) for p in ("smoke", "quick", "full"))
    assert s.n_per_test < q.n_per_test <= f.n_per_test
    assert q.n_seeds >= 3 and f.n_seeds >= 3
