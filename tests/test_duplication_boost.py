import numpy as np
import pytest
from scipy import stats as scipy_stats

from bertology_lib.errors import ParameterError

from bertology_lib.experiments.duplication import boost as dup
from bertology_lib.training import finetune as ft
from bertology_lib.book.claims import IntervalContains, Verdict
from bertology_lib.data.tasks import toy_classification


def test_interval_contains_rule():
    assert IntervalContains(0).verdict(None, (0.1, -0.2, 0.4)) is Verdict.REPRODUCED
    assert IntervalContains(0).verdict(None, (0.5, 0.2, 0.8)) is Verdict.NOT_REPRODUCED


def test_boost_table_and_fair_ensembles(tiny_bert_dir):
    task = toy_classification(n_train=24, n_dev=8, n_test=16, vocab_size=500)
    base = ft.as_source(str(tiny_bert_dir))
    sources = dup.variants(base, n_blocks=2, k=1)
    assert list(sources) == ["baseline", "first 1 duplicated", "every block duplicated"]
    cfg = ft.FinetuneConfig.for_profile("smoke", max_steps=3)
    res = dup.run(task, sources, seeds=[0, 1], cfg=cfg)
    t = dup.table(res)
    assert list(t.variant) == list(sources) and t.loc[0, "n_seeds"] == 2
    assert {"gain", "ci_low", "ci_high", "p_value"} <= set(t.columns)
    e = dup.fair_ensembles(res, ["first 1 duplicated", "every block duplicated"])
    assert len(e) == 2 and set(e.metric) == {"accuracy"}
    with pytest.raises(ValueError, match="3 ensemble members need at least 3 baseline seeds"):
        dup.fair_ensembles(res, ["baseline"] * 3)
    assert dup.BoostSizes.for_profile("quick").n_seeds >= 3  # the fewest a three-member fair ensemble accepts
    assert dup.BoostSizes.for_profile("full").n_seeds >= 5


def test_second_variant_every_or_last_block(tiny_bert_dir):
    from bertology_lib.errors import ParameterError

    base = ft.as_source(str(tiny_bert_dir))
    last = dup.variants(base, n_blocks=2, k=1, second="last")
    assert list(last) == ["baseline", "first 1 duplicated", "last block duplicated"]
    assert (
        len(
            __import__("bertology_lib.interventions.hooks", fromlist=["blocks"]).blocks(
                last["last block duplicated"].load_model()
            )
        )
        == 3
    )
    with pytest.raises(ParameterError, match="second='middle' is not allowed; allowed: 'every', 'last'"):
        dup.variants(base, n_blocks=2, k=1, second="middle")
    assert dup.BoostSizes.for_profile("full").second == "every"


def test_detectable_gain_scales_with_the_seed_spread():
    from types import SimpleNamespace

    def res(scores):
        return [SimpleNamespace(score=lambda split, metric=None, v=v: v) for v in scores]

    results = {"baseline": res([0.50, 0.50, 0.50, 0.50]), "dup": res([0.51, 0.53, 0.50, 0.52])}
    out = dup.detectable_gain(results, "dup")
    gains = np.array([0.01, 0.03, 0.0, 0.02])
    t = scipy_stats.t.ppf(0.975, 3) + scipy_stats.t.ppf(0.8, 3)
    assert out["seeds"] == 4 and out["sd_gain"] == pytest.approx(gains.std(ddof=1))
    assert out["detectable"] == pytest.approx(t * gains.std(ddof=1) / 2)
    flat = dup.detectable_gain({"baseline": res([0.5, 0.5, 0.5]), "dup": res([0.5, 0.5, 0.5])}, "dup")
    assert np.isnan(flat["detectable"])  # no spread measured: unknown, not "any gain is detectable"
    with pytest.raises(ParameterError, match="variant='nope'"):
        dup.detectable_gain(results, "nope")


def test_toy_config_per_task_and_profile():
    from types import SimpleNamespace

    qa, nli, cls = (SimpleNamespace(name=n) for n in ("toy_qa", "toy_nli", "toy_classification"))
    quick = {t.name: dup.toy_config("quick", t) for t in (qa, nli, cls)}
    # each task its own calibrated (lr, epochs); every one scored on its test split only
    assert {n: (c.lr, c.epochs) for n, c in quick.items()} == dict(dup.BoostSizes.for_profile("quick").toy_training)
    assert quick["toy_qa"].lr > quick["toy_classification"].lr
    assert all(c.eval_splits == ("test",) for c in quick.values())
    assert dup.toy_config("smoke", qa) == ft.FinetuneConfig.for_profile("smoke")
    with pytest.raises(
        ParameterError,
        match="task 'toy_sst' has no toy fine-tuning settings at profile 'quick'; "
        "allowed: toy_classification, toy_nli, toy_qa",
    ):
        dup.toy_config("quick", SimpleNamespace(name="toy_sst"))
