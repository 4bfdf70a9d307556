"""The survey §3.2–§3.3 steps: suite tables with chance, gaps, name swaps, fact mentions, sizes."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from bertology_lib.experiments.survey import knowledge as survey
from bertology_lib.data import toy_english, suites as toy_suites

CFG = toy_english.ToyEnglishConfig(n_sentences=300, seed=0, vocab_size=800)


def _scored(correct, **cols):
    return pd.DataFrame({"item": range(len(correct)), "correct": correct, **cols})


def test_suite_accuracy_overall_and_by_group_carry_chance():
    df = _scored([True, True, False, True], g=["a", "a", "b", "b"])
    overall = survey.suite_accuracy(df)
    assert list(overall.columns) == ["accuracy", "ci_low", "ci_high", "n", "stderr", "chance"]
    assert overall.accuracy[0] == 0.75 and overall.n[0] == 4 and overall.chance[0] == 0.5
    assert overall.ci_low[0] < 0.75 < overall.ci_high[0]
    by = survey.suite_accuracy(df, "g", chance=0.25)
    assert list(by.g) == ["a", "b"] and list(by.accuracy) == [1.0, 0.5] and set(by.chance) == {0.25}
    summary = survey.suite_summary({"x": df, "y": df[df.g == "a"]})
    assert list(summary.suite) == ["x", "y"] and list(summary.n) == [4, 2]


def test_accuracy_by_bins_drops_empty_bins():
    df = _scored([True, False, True, True], gap=[0.1, 0.2, 2.0, 2.2])
    out = survey.accuracy_by_bins(df, "gap", [0, 1, 1.5, 2.5])
    assert list(out.n) == [2, 2] and list(out.accuracy) == [0.5, 1.0]
    assert list(out.gap_bin) == ["0 to 1", "1.5 to 2.5"]


def test_pair_outcomes_counts_pairs_and_skips_incomplete_ones():
    df = _scored([True, True, True, False, False, False, True], pair_id=[0, 0, 1, 1, 2, 2, 3])
    out = survey.pair_outcomes(df).set_index("outcome")
    assert out.n.tolist() == [1, 1, 1]  # pair 3 has one scored member only
    assert out.share.sum() == pytest.approx(1.0) and out.chance.sum() == pytest.approx(1.0)


def test_count_vs_animal_keeps_owners_of_two_or_more():
    kb = SimpleNamespace(owns={"Ana": (3, "cat"), "Bo": (1, "dog")})
    numbers = pd.DataFrame(
        {"kind": ["quantity_fact", "numeral_noun"], "person": ["Ana", None], "correct": [False, True]}
    )
    knowledge = pd.DataFrame(
        {"relation": ["owns", "owns", "lives_in"], "subject": ["Ana", "Bo", "Ana"], "correct": [True, True, False]}
    )
    out = survey.count_vs_animal(numbers, knowledge, kb)
    assert sorted(zip(out.slot, out.person, out.correct)) == [("animal", "Ana", True), ("count", "Ana", False)]


def test_name_swap_pairs_change_only_names_and_mask_the_verb():
    kb = toy_english.knowledge_base(CFG.seed)
    items = toy_suites.make_suite("entity_swap", CFG, 24) + toy_suites.make_suite("selectional", CFG, 4)
    pairs = survey.name_swap_pairs(items, kb, seed=1)
    assert len(pairs) == 24  # selectional items name nobody
    names = {"person": set(kb.people), "city": set(kb.cities), "country": set(kb.countries)}
    for orig, swap in pairs:
        assert orig.words[orig.mask_index] == toy_english.MASK == swap.words[swap.mask_index]
        assert (orig.correct, orig.incorrect) == (swap.correct, swap.incorrect)
        assert orig.correct != orig.incorrect
        changed = [(a, b) for a, b in zip(orig.words, swap.words) if a != b]
        assert changed and len(changed) == orig.meta["n_names"]
        for a, b in changed:
            assert any(a in pool and b in pool for pool in names.values())
    assert survey.name_swap_pairs(items, kb, seed=1)[0][1].words == pairs[0][1].words  # deterministic


def test_name_swap_flips_on_a_tiny_model():
    from bertology_lib.models import minibert

    mcfg = minibert.MiniBertConfig.for_profile("smoke")
    tok = minibert.tokenizer_for(mcfg)
    model = minibert.build_model(mcfg, len(tok)).eval()
    kb = toy_english.knowledge_base(mcfg.corpus_seed)
    pairs = survey.name_swap_pairs(toy_suites.make_suite("knowledge", mcfg.corpus_config(), 30), kb)
    out = survey.name_swap_flips(model, tok, pairs)
    assert len(out) == len(pairs) > 0
    assert (out.flipped == (out.correct_original != out.correct_swapped)).all()
    assert (out.correct_original == (out.margin_original > 0)).all()
    assert (out.names != out.swapped_names).all()
    assert out.names.iloc[0] == " ".join(w for w in pairs[0][0].words if w in set(kb.names))


def test_fact_mentions_and_buckets():
    sents = toy_english.generate_corpus(CFG)
    mentions = survey.fact_mentions(sents)
    n_fact = sum(1 for s in sents if s.meta.get("kind") == "fact")
    assert sum(mentions.values()) == n_fact > 0
    assert [survey.mention_bucket(n) for n in (0, 1, 3, 9, 10, 25, 80)] == [
        "0",
        "1",
        "2-4",
        "5-9",
        "10-19",
        "20-49",
        "50+",
    ]
    with pytest.raises(ValueError):
        survey.mention_bucket(-1)
    items = toy_suites.make_suite("knowledge", CFG, 10)
    scored = _scored([True] * 10)
    out = survey.with_fact_mentions(scored, items, mentions)
    assert list(out.n_stated) == [mentions.get(tuple(it.meta["fact"]), 0) for it in items]
    assert set(out.stated_bucket.astype(str)) <= {"0", "1", "2-4"}


def test_frame_decides_only_size_templates_two_and_three():
    df = pd.DataFrame({"relation": ["smaller_than"] * 4 + ["lives_in"] * 2, "template": [0, 1, 2, 3, 2, 0]})
    assert survey.frame_decides(df).tolist() == [False, False, True, True, False, False]


def test_size_items_cover_every_pair_with_the_right_answer():
    kb = toy_english.knowledge_base(CFG.seed)
    items = survey.size_items(CFG)
    n_pairs = len(kb.stated_size_pairs) + len(kb.heldout_size_pairs)
    assert len(items) == 2 * n_pairs
    order = {w: k for k, w in enumerate(kb.size_order)}
    for it in items:
        small, big = it.meta["small"], it.meta["big"]
        assert order[small] < order[big] and it.meta["rank_distance"] == order[big] - order[small]
        assert ((small, big) in kb.stated_size_pairs) == it.meta["stated"]
        first = it.words[1]  # "the X is [MASK] than the Y ."
        assert it.words[it.mask_index] == toy_english.MASK
        assert it.correct == ("bigger" if first == big else "smaller")
        assert {it.correct, it.incorrect} == {"bigger", "smaller"}
    # distance 2 is where stated and held-out pairs meet
    d2 = {it.meta["status"] for it in items if it.meta["rank_distance"] == 2}
    assert d2 == {"stated", "held out"}


def test_stated_vs_heldout_matches_relations_and_drops_frame_decided_rows():
    know = pd.DataFrame(
        {
            "relation": ["lives_in_country", "smaller_than", "smaller_than", "owns"],
            "template": [0, 0, 3, 0],
            "stated": True,
            "correct": [True, True, False, True],
        }
    )
    inf = pd.DataFrame(
        {
            "relation": ["lives_in_country", "city_in_country", "smaller_than"],
            "template": [1, 0, 2],
            "stated": False,
            "correct": [False, True, True],
        }
    )
    out = survey.stated_vs_heldout(know, inf)
    got = {(r, s): (a, n) for r, s, a, n in zip(out.relation, out.status, out.accuracy, out.n)}
    assert got == {
        ("lives_in_country", "stated"): (1.0, 1),
        ("lives_in_country", "held out"): (0.0, 1),
        ("city_in_country", "held out"): (1.0, 1),
        ("smaller_than", "stated"): (1.0, 1),
    }
    sizes = pd.DataFrame(
        {"relation": "smaller_than", "template": [0, 1], "stated": [True, False], "correct": [False, False]}
    )
    out2 = survey.stated_vs_heldout(know, inf, sizes)
    sz = out2[out2.relation == "smaller_than"]
    assert list(sz.status) == ["stated", "held out"] and list(sz.accuracy) == [0.0, 0.0]
    assert list(out2.relation)[0] == "lives_in_country"


def test_accuracy_bars_returns_a_figure():
    import matplotlib

    matplotlib.use("Agg")
    from bertology_lib import plots

    df = survey.suite_accuracy(
        _scored([True, False, True, True], g=["a", "a", "b", "b"], h=["x", "y", "x", "y"]), ["g", "h"]
    )
    fig = plots.accuracy_bars(df, "g", hue="h", title="t")
    assert len(fig.axes[0].patches) == 4
    fig2 = plots.accuracy_bars(survey.suite_accuracy(_scored([True, False], g=["a", "b"]), "g"), "g")
    assert len(fig2.axes[0].patches) == 2
    chance = [ln for ln in fig2.axes[0].lines if np.allclose(ln.get_ydata(), 0.5) and len(ln.get_ydata()) == 2]
    assert chance, "no chance line"


def test_fact_inventory_counts_relations_and_never_states_held_out_facts():
    kb = toy_english.knowledge_base(CFG.seed)
    inv = survey.fact_inventory(kb).set_index("relation")
    assert inv.stated.sum() == len(kb.stated_facts()) and inv["held out"].sum() == len(kb.heldout_facts())
    assert inv.loc["smaller_than", "held out"] == len(kb.heldout_size_pairs)
    mentions = survey.fact_mentions(toy_english.generate_corpus(CFG))
    inv = survey.fact_inventory(kb, mentions).set_index("relation")
    assert (inv["held-out mentions"] == 0).all()
    assert ((inv["stated facts in corpus"] >= 0) & (inv["stated facts in corpus"] <= 1)).all()
