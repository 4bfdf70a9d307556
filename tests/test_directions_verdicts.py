"""Survey §7 verdicts (issue 16): training data where overlap predicts entailment, intervals over seeds and
test items, and the instrument check that a constant classifier fails."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import torch
from conftest import save_toy_bert
from scipy import stats as scipy_stats

from bertology_lib import stats
from bertology_lib.book.claims import AboveBaseline, load_all, make_claim
from bertology_lib.data import hans
from bertology_lib.data import tasks as T
from bertology_lib.data.toy_english import ToyEnglishConfig
from bertology_lib.errors import ParameterError
from bertology_lib.experiments.survey import behaviour as B
from bertology_lib.training import finetune as F

torch.set_num_threads(1)

WORLD = ToyEnglishConfig(n_sentences=1, seed=0, vocab_size=3000)
IDS = (
    "survey7.checklist_exceeds_iid_error",
    "survey7.hans_overlap_heuristic",
    "survey7.hans_heuristic_from_data",
    "survey7.sst2_negation_mft",
)


@pytest.fixture(scope="module")
def pool():
    return T.toy_nli(n_train=900, n_dev=0, n_test=0, world_seed=0, vocab_size=3000)


def _cells(examples):
    out: dict = {}
    for e in examples:
        key = (e.meta["overlap"] >= 1.0, e.label)
        out[key] = out.get(key, 0) + 1
    return out


# -- the training distributions ------------------------------------------------------------------


def test_mix_counts_fix_the_overlap_share_and_keep_labels_balanced():
    for n, o, e in ((2000, 0.2, 0.9), (2000, 0.2, 1 / 3), (80, 0.2, 0.9), (7, 0.5, 0.0)):
        c = hans.mix_counts(n, o, e)
        assert sum(c.values()) == n
        n_full = sum(v for (full, _), v in c.items() if full)
        assert n_full == round(o * n) and c[(True, T.ENTAILMENT)] == round(e * n_full)
        per_label = [c[(True, lab)] + c[(False, lab)] for lab in (T.ENTAILMENT, T.NEUTRAL, T.CONTRADICTION)]
        assert max(per_label) - min(per_label) <= 1
    assert hans.mix_counts(2000, 0.2, 0.9)[(True, T.ENTAILMENT)] == 360
    with pytest.raises(ParameterError, match="overlap_share \\* entailed_share <= 1/3"):
        hans.mix_counts(300, 0.6, 0.9)


def test_nli_mix_draws_disjoint_iid_splits_from_the_stated_mix(pool):
    items = hans.hans_like(pool, 8, seed=0)
    mix = hans.nli_mix(pool, 300, 60, 0.9, 0.2, exclude=items)
    train, test = mix.examples("train"), mix.examples("test")
    assert _cells(train) == {k: v for k, v in hans.mix_counts(300, 0.2, 0.9).items() if v}
    assert _cells(test) == {k: v for k, v in hans.mix_counts(60, 0.2, 0.9).items() if v}
    pairs = lambda xs: {(e.text, e.text_pair) for e in xs}  # noqa: E731
    assert not pairs(train) & pairs(test)
    assert not (pairs(train) | pairs(test)) & pairs(items)
    assert hans.overlap_table(train).loc[True, "entailment"] == pytest.approx(0.9)
    again = hans.nli_mix(pool, 300, 60, 0.9, 0.2, exclude=items)
    assert [e.id for e in again.examples("train")] == [e.id for e in train]
    assert [e.id for e in hans.nli_mix(pool, 300, 60, 0.9, 0.2, seed=1).examples("train")] != [e.id for e in train]
    flat = hans.overlap_table(hans.nli_mix(pool, 300, 60, 1 / 3, 0.2).examples("train"))
    assert flat.loc[True, "entailment"] == pytest.approx(1 / 3, abs=0.02)  # overlap says nothing about the label
    with pytest.raises(ParameterError, match="a larger pool"):
        hans.nli_mix(pool, 3000, 60, 0.9, 0.2)


def test_hans_tasks_differ_only_in_the_entailed_share_among_full_overlap_pairs(pool):
    ts = B.hans_tasks(pool, 240, 60)
    assert list(ts) == list(B.HANS_CONDITIONS)
    for name, t in ts.items():
        table = hans.overlap_table(t.examples("train"))
        assert table.loc[True, "n"] == round(B.FULL_OVERLAP_SHARE * 240)
        assert table.loc[True, "entailment"] == pytest.approx(B.HANS_CONDITIONS[name], abs=0.02)
        assert len(t.examples("test")) == 60


# -- intervals over seeds and items --------------------------------------------------------------


def test_crossed_interval_reduces_to_the_t_interval_over_seeds_when_items_agree():
    per_seed = np.array([0.7, 0.75, 0.72])
    m = np.repeat(per_seed[:, None], 20, axis=1)  # every item of a seed scores the same: no item variance
    est, lo, hi = B.crossed_interval(m)
    assert (est, lo, hi) == pytest.approx(stats.paired_test(per_seed.tolist(), [0.0] * 3).interval())


def test_crossed_interval_reduces_to_the_t_interval_over_items_when_seeds_agree():
    rng = np.random.default_rng(0)
    items = (rng.random(40) < 0.6).astype(float)
    m = np.tile(items, (3, 1))  # identical seeds
    est, lo, hi = B.crossed_interval(m)
    ref = scipy_stats.t.interval(0.95, len(items) - 1, loc=items.mean(), scale=scipy_stats.sem(items))
    assert est == pytest.approx(items.mean()) and (lo, hi) == pytest.approx(ref)


def test_crossed_interval_groups_weigh_equally_and_differences_subtract():
    m = np.array([[1, 1, 0, 0, 0, 0], [1, 1, 0, 0, 0, 1]], dtype=float)
    groups = ["a", "a", "b", "b", "b", "b"]
    est, lo, hi = B.crossed_interval(m, plus_groups=groups)
    assert est == pytest.approx(np.mean([(1 + 0) / 2, (1 + 0.25) / 2]))
    e2, *_ = B.crossed_interval(m, np.zeros((2, 3)) + 0.5, plus_groups=groups)
    assert e2 == pytest.approx(est - 0.5)
    assert B.crossed_interval(np.zeros((3, 5)), np.zeros((3, 4))) == (0.0, 0.0, 0.0)  # no spread: a point
    with pytest.raises(ParameterError, match="the same seeds"):
        B.crossed_interval(m, np.zeros((3, 3)))
    with pytest.raises(ParameterError, match="at least 2 items per group"):
        B.crossed_interval(m, plus_groups=["a", "a", "b", "b", "b", "c"])
    with pytest.raises(ParameterError, match="shape"):
        B.crossed_interval(np.zeros(5))


def test_crossed_interval_covers_a_crossed_seed_and_item_population():
    rng = np.random.default_rng(1)
    covered = 0
    for _ in range(200):
        item, seed = rng.normal(0, 1, 150), rng.normal(0, 0.3, 3)
        p = 1 / (1 + np.exp(-(0.3 + item[None, :] + seed[:, None])))
        x = (rng.random(p.shape) < p).astype(float)
        pop = 1 / (1 + np.exp(-(0.3 + rng.normal(0, 1, 3000)[None, :] + rng.normal(0, 0.3, 300)[:, None])))
        _, lo, hi = B.crossed_interval(x)
        covered += lo <= pop.mean() <= hi
    assert covered / 200 >= 0.9


# -- the instrument check and the claims ---------------------------------------------------------


def _iid(rows):
    return pd.DataFrame([{"seed": s, "item_correct": tuple(c)} for s, c in rows])


def test_floor_correct_matches_floor_scores_and_a_constant_classifier_fails_the_check(pool):
    t = hans.nli_mix(pool, 150, 60, 0.9, 0.2)
    f = B.floor_correct(t)
    assert f.mean() == pytest.approx(T.floor_scores(t)["accuracy"])
    iid = _iid([(s, f) for s in (0, 1, 2)])  # the majority-label classifier, three seeds
    gap = B.floor_gap(iid, t, [0, 1, 2])
    assert gap == (0.0, 0.0, 0.0) and not AboveBaseline("iid_beats_floor", "majority").check(gap).passed
    golds = [e.label for e in t.examples("test")]
    good = _iid([(s, [int(i % 5 != s) for i in range(len(golds))]) for s in (0, 1, 2)])  # 80% right
    assert AboveBaseline("iid_beats_floor", "majority").check(B.floor_gap(good, t, [0, 1, 2])).passed


def _hans_outcomes(correct_by_condition, seeds=(0, 1, 2), n=6):
    rows = []
    for cond, fn in correct_by_condition.items():
        for s in seeds:
            for i, (cat, _, entailed) in enumerate(hans.HANS_CATEGORIES):
                for j in range(n):
                    rows.append(
                        {
                            "item": i * n + j,
                            "category": cat,
                            "heuristic": "",
                            "entailed": entailed,
                            "correct": fn(entailed, s, j),
                            "condition": cond,
                            "seed": s,
                        }
                    )
    return pd.DataFrame(rows)


def test_hans_gaps_and_the_null_model_never_reproduce(pool):
    seeds = [0, 1, 2]
    always_entailment = lambda entailed, s, j: entailed  # noqa: E731 - right on controls, wrong on the rest
    out = _hans_outcomes({"MNLI-like": always_entailment, "uninformative": always_entailment})
    ts = B.hans_tasks(pool, 150, 60)
    iid = pd.concat([_iid([(s, B.floor_correct(t)) for s in seeds]).assign(condition=c) for c, t in ts.items()])
    gap = B.hans_gap(out, iid, seeds, "MNLI-like")
    assert gap[0] == pytest.approx(B.floor_correct(ts["MNLI-like"]).mean())  # 1/3 - 0: the rule alone would pass
    assert B.hans_data_gap(out, seeds, "uninformative", "MNLI-like") == (0.0, 0.0, 0.0)
    checks = {
        "iid_beats_floor": (B.floor_gap(iid[iid.condition == "MNLI-like"], ts["MNLI-like"], seeds), "majority"),
        "three_seeds": 3,
    }
    claim = make_claim("survey7.hans_overlap_heuristic", ours=gap, checks=checks)
    assert claim.verdict == "inconclusive" and claim.instrument_failed
    # a model that learned: better on the non-entailed items when overlap was uninformative
    learned = _hans_outcomes({"MNLI-like": lambda e, s, j: e or j == 0, "uninformative": lambda e, s, j: e or j < 4})
    est, lo, hi = B.hans_data_gap(learned, seeds, "uninformative", "MNLI-like")
    assert est == pytest.approx(4 / 6 - 1 / 6) and lo < est < hi


def test_checklist_gap_is_the_suite_mean_failure_rate_minus_the_iid_error():
    seeds = [0, 1, 2]
    rows = [
        {"seed": s, "test": t, "item": i, "failed": bool(t == "b" and i < 2 + s)}
        for s in seeds
        for t in ("a", "b")
        for i in range(4)
    ]
    results = pd.DataFrame(rows)
    iid = _iid([(s, [1] * 9 + [0]) for s in seeds])  # error 0.1
    est, lo, hi = B.checklist_gap(results, iid, seeds)
    assert est == pytest.approx(np.mean([(0 + (2 + s) / 4) / 2 for s in seeds]) - 0.1) and lo < est < hi
    one, *_ = B.checklist_gap(results, iid, seeds, tests=["b"])
    assert one == pytest.approx(np.mean([(2 + s) / 4 for s in seeds]) - 0.1)
    with pytest.raises(ParameterError, match="match no rows"):
        B.checklist_gap(results, iid, seeds, tests=["zzz"])
    with pytest.raises(ParameterError, match="seeds \\[7\\]"):
        B.checklist_gap(results, iid, [0, 7])


def test_registered_specs_need_the_model_to_have_learned_the_task():
    reg = load_all()
    for cid in IDS:
        s = reg[cid]
        names = [c.name for c in s.checks]
        assert s.notebook in ("survey_07_directions", "survey_07b_real_encoder") and s.note and "three_seeds" in names
        assert any(c.endswith("beats_floor") for c in names)
        null = s.null if s.null is not None else (0.0, -0.05, 0.05)
        at_floor = ((0.0, -0.05, 0.05), "always 'negative'")  # a null model sits at its task's floor
        measured = {c: 3 if c == "three_seeds" else at_floor for c in names}
        assert make_claim(cid, ours=null, checks=measured).verdict != "reproduced"


# -- the sweeps keep per-item outcomes -----------------------------------------------------------


def test_sweeps_record_per_item_iid_outcomes(tmp_path_factory, tmp_cache):
    from bertology_lib.cache import ArtifactCache

    toy = save_toy_bert(tmp_path_factory.mktemp("toy-bert"), WORLD)
    small = T.toy_nli(n_train=120, n_dev=0, n_test=0, world_seed=0, vocab_size=3000)
    items = hans.hans_like(small, 2, seed=0)
    ts = B.hans_tasks(small, 30, 12, exclude=items)
    cfg = F.FinetuneConfig(max_steps=2, batch_size=8, eval_batch_size=32, eval_splits=("test",))
    out, iid = B.hans_sweep(ts, toy, items, [0, 1], cfg, ArtifactCache(tmp_cache))
    assert set(out.item) == set(range(len(items)))
    for _, row in iid.iterrows():
        assert len(row.item_correct) == 12 and np.mean(row.item_correct) == pytest.approx(row.accuracy)
    gap = B.floor_gap(iid[iid.condition == "MNLI-like"], ts["MNLI-like"], [0, 1])
    assert len(gap) == 3 and gap[1] <= gap[0] <= gap[2]
