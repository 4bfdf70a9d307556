"""The statistics module against independent computations (scipy, closed forms)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from bertology_lib import stats
from bertology_lib.book.claims import IntervalAbove, Verdict
from bertology_lib.errors import ParameterError


def test_wilson_interval_is_scipys():
    from scipy.stats import binomtest

    for k, n in [(0, 10), (3, 10), (10, 10), (37, 52), (1, 1)]:
        ref = binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
        assert stats.wilson_interval(k, n) == (pytest.approx(ref.low), pytest.approx(ref.high))
    # the closed form with the exact 97.5% quantile gives the same interval
    k, n, z = 37, 52, stats.Z95
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    assert stats.wilson_interval(k, n) == (pytest.approx(centre - half), pytest.approx(centre + half))
    for bad in [(3, 2), (-1, 4), (1, 0), (True, 3)]:
        with pytest.raises(ParameterError, match="not a proportion"):
            stats.wilson_interval(*bad)


def test_mean_ci_normal_approximation():
    x = [0, 1, 1, 1, 0, 1]
    m, lo, hi = stats.mean_ci(x)
    se = np.std(x, ddof=1) / math.sqrt(len(x))
    assert m == pytest.approx(4 / 6) and (lo, hi) == (pytest.approx(m - 1.96 * se), pytest.approx(m + 1.96 * se))


def test_spearman_matches_scipy_and_is_nan_when_constant():
    from scipy.stats import spearmanr

    x, y = [0.1, 0.5, 0.3, 0.9, 0.7], [1, 3, 2, 2, 5]
    assert stats.spearman(x, y) == pytest.approx(spearmanr(x, y).statistic)
    assert math.isnan(stats.spearman([1, 1, 1], [1, 2, 3]))
    with pytest.raises(ParameterError, match="equal length >= 3"):
        stats.spearman([1, 2], [1, 2])


def test_bootstrap_ci_is_seeded_and_covers_the_statistic():
    rng = np.random.default_rng(0)
    x = rng.normal(1.0, 1.0, 200)
    est, lo, hi = stats.bootstrap_ci(x, np.mean, n_resamples=500, seed=3)
    assert est == pytest.approx(x.mean()) and lo < est < hi
    assert stats.bootstrap_ci(x, np.mean, n_resamples=500, seed=3) == (est, lo, hi)  # same seed, same interval
    se = x.std(ddof=1) / math.sqrt(len(x))
    assert hi - lo == pytest.approx(2 * 1.96 * se, rel=0.2)  # close to the normal interval for a mean
    with pytest.raises(ParameterError, match="n_resamples=5"):
        stats.bootstrap_ci(x, np.mean, n_resamples=5)


# -- paired tests ---------------------------------------------------------------------------------


def test_paired_test_on_known_differences():
    from scipy import stats as sps

    b = [70.0, 71.0, 69.5, 72.0, 70.5]
    d = [1.0, 1.2, 0.8, 1.1, 0.9]
    a = [x + y for x, y in zip(b, d)]
    r = stats.paired_test(a, b)
    sd = math.sqrt(sum((x - 1.0) ** 2 for x in d) / 4)  # 0.1581
    half = 2.7764451051977987 * sd / math.sqrt(5)  # t_{0.975, 4}
    assert r.mean_diff == pytest.approx(1.0) and r.std_diff == pytest.approx(sd)
    assert (r.ci_low, r.ci_high) == (pytest.approx(1 - half), pytest.approx(1 + half))
    t = 1.0 / (sd / math.sqrt(5))
    assert r.p_value == pytest.approx(2 * sps.t.sf(t, 4)) and r.p_value < 1e-3
    assert IntervalAbove(0.0).verdict(None, r.interval()) is Verdict.REPRODUCED
    w = stats.paired_test(a, b, method="wilcoxon")
    assert w.p_value == pytest.approx(2 / 32)  # all 5 signs positive: the exact minimum
    assert stats.paired_test(b, a).mean_diff == pytest.approx(-1.0)
    noisy = stats.paired_test([1, 2, 3, 4], [2, 1, 4, 3])
    assert noisy.p_value == pytest.approx(1.0) and noisy.ci_low < 0 < noisy.ci_high
    assert IntervalAbove(0.0).verdict(None, noisy.interval()) is Verdict.INCONCLUSIVE
    assert stats.paired_test([1, 1], [1, 1]).p_value == 1.0
    assert stats.paired_test([2, 2], [1, 1]).p_value == 0.0


@pytest.mark.parametrize(
    "args, match",
    [
        (([1, 2], [1]), "equal lengths"),
        (([1], [1]), "n=1"),
        (([1, float("nan")], [1, 2]), "NaN"),
    ],
)
def test_paired_test_rejects_bad_input(args, match):
    with pytest.raises(ValueError, match=match):
        stats.paired_test(*args)
    with pytest.raises(ValueError, match="method='z'"):
        stats.paired_test([1, 2], [2, 3], method="z")


def test_paired_points_and_ratio_interval():
    a = {0: 0.90, 1: 0.80, 2: 0.85}
    b = {0: 0.85, 1: 0.78, 2: 0.80, 3: 0.5}
    est, lo, hi = stats.paired_points(a, b)
    assert est == 4.0 and lo < est < hi  # mean of (5, 2, 5) points
    t = stats.paired_test([0.90, 0.80, 0.85], [0.85, 0.78, 0.80])
    assert (lo, hi) == (round(100 * t.ci_low, 1), round(100 * t.ci_high, 1))
    r, rlo, rhi = stats.ratio_interval(a, b)
    assert r == round((0.90 / 0.85 + 0.80 / 0.78 + 0.85 / 0.80) / 3, 3) and rlo < r < rhi
    m, mlo, mhi = stats.one_sample_interval([1.0, 2.0, 3.0])
    assert m == 2.0 and mlo < 2.0 < mhi
    with pytest.raises(ParameterError, match="paired seeds"):
        stats.paired_points(b, a)
    with pytest.raises(ParameterError, match="paired seeds"):
        stats.ratio_interval({7: 1.0, 8: 1.0}, a)
    with pytest.raises(ParameterError, match="zero"):
        stats.ratio_interval({0: 1.0, 1: 1.0}, {0: 0.0, 1: 1.0})


def test_accuracy_gap_is_agresti_caffo():
    a = [1] * 8 + [0] * 2
    b = [1] * 3 + [0] * 7
    gap, lo, hi = stats.accuracy_gap(a, b)
    pa, pb = 9 / 12, 4 / 12  # one success and one failure added to each side
    se = math.sqrt(pa * (1 - pa) / 12 + pb * (1 - pb) / 12)
    assert gap == pytest.approx(0.5)
    assert (lo, hi) == pytest.approx((pa - pb - 1.96 * se, pa - pb + 1.96 * se))
    same = stats.accuracy_gap([1] * 20, [1] * 20)  # both perfect: still an interval
    assert same[0] == 0 and same[1] < 0 < same[2]
    assert all(math.isnan(v) for v in stats.accuracy_gap([], [1]))
