"""Intervals and tests, on scipy: the one statistics module of the book.

* :func:`paired_test` (paired t or Wilcoxon) and :class:`PairedTest`; :func:`paired_points` (a gain in
  points over paired seeds), :func:`one_sample_interval`, :func:`ratio_interval`;
* proportions: :func:`wilson_interval` (``scipy.stats.binomtest``), :func:`accuracy_gap`
  (Agresti–Caffo interval of a difference of two proportions), :func:`mean_ci` (normal approximation);
* :func:`bootstrap_ci` (percentile bootstrap of any statistic, seeded) and :func:`spearman`;
* over fine-tuning seeds *and* test items: :func:`seed_item_interval` (a bootstrap over items, any per-seed
  statistic; the analytic version for per-item score matrices is
  :func:`bertology_lib.experiments.survey.behaviour.crossed_interval`), :func:`accuracy_gap_interval`; the
  seed variance beyond test-item noise, :func:`seed_variance`; :func:`rank_interval` (Spearman with an interval).

Everything returns plain floats; nothing is rounded unless a function says so (rules see unrounded
values; rounding is for display).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from bertology_lib.errors import ParameterError
from bertology_lib.validation import check_choice, check_int

METHODS: tuple[str, ...] = ("t", "wilcoxon")
Z95 = 1.959963984540054  # the 97.5% normal quantile


@dataclass(frozen=True)
class PairedTest:
    """``a`` vs ``b`` over paired runs: mean difference ``a - b`` with a 95% t interval, and a p-value."""

    n: int
    mean_a: float
    mean_b: float
    mean_diff: float
    std_diff: float
    ci_low: float
    ci_high: float
    p_value: float
    method: str

    def interval(self) -> tuple[float, float, float]:
        """``(mean_diff, ci_low, ci_high)``: the ``ours`` of :class:`~bertology_lib.book.claims.IntervalAbove`."""
        return (self.mean_diff, self.ci_low, self.ci_high)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def paired_test(a_scores: Sequence[float], b_scores: Sequence[float], method: str = "t") -> PairedTest:
    """Paired test of ``a`` against ``b`` (e.g. duplicated vs baseline, one score per seed).

    ``method``: ``t`` (paired t-test) or ``wilcoxon`` (signed-rank, exact for small n; with 5 pairs its
    two-sided p-value cannot go below 0.0625). The 95% interval of the mean difference is the t interval
    in both cases. Zero spread gives p = 1 when the differences are all 0 and p = 0 otherwise.
    """
    from scipy import stats

    check_choice("method", method, METHODS)
    a = [float(x) for x in a_scores]
    b = [float(x) for x in b_scores]
    if len(a) != len(b):
        raise ParameterError(f"a has {len(a)} scores and b {len(b)}; allowed: equal lengths (paired runs)")
    if len(a) < 2:
        raise ParameterError(f"n={len(a)} pairs is too few; allowed: at least 2")
    if not all(math.isfinite(x) for x in a + b):
        raise ParameterError("scores contain NaN or inf; allowed: finite numbers")
    d = [x - y for x, y in zip(a, b)]
    n = len(d)
    mean = sum(d) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in d) / (n - 1))
    half = float(stats.t.ppf(0.975, n - 1)) * sd / math.sqrt(n)
    if sd <= 1e-12 * max(1.0, abs(mean)):
        p = 1.0 if all(x == 0 for x in d) else 0.0
    elif method == "t":
        p = float(stats.ttest_rel(a, b).pvalue)
    else:
        p = 1.0 if all(x == 0 for x in d) else float(stats.wilcoxon(d).pvalue)
    return PairedTest(n, sum(a) / n, sum(b) / n, mean, sd, mean - half, mean + half, p, method)


def _paired_seeds(a: Mapping[int, float], b: Mapping[int, float]) -> list[int]:
    seeds = sorted(a)
    if any(s not in b for s in seeds):
        raise ParameterError(f"seeds {seeds} are not all in b ({sorted(b)}); allowed: paired seeds")
    return seeds


def paired_points(a: Mapping[int, float], b: Mapping[int, float], digits: int = 1) -> tuple[float, float, float]:
    """Paired (a - b) over the seeds of ``a``, in points (x 100): (mean, 95% low, 95% high), rounded.

    ``a``, ``b``: {seed: score in [0, 1]}; every seed of ``a`` must be in ``b`` (:func:`paired_test`,
    t interval).
    """
    seeds = _paired_seeds(a, b)
    t = paired_test([a[s] for s in seeds], [b[s] for s in seeds])
    return tuple(round(100 * x, digits) for x in t.interval())  # type: ignore[return-value]


def one_sample_interval(values: Sequence[float], digits: int = 3) -> tuple[float, float, float]:
    """Mean of ``values`` with a 95% t interval: (mean, low, high), rounded."""
    v = [float(x) for x in values]
    t = paired_test(v, [0.0] * len(v))
    return tuple(round(x, digits) for x in t.interval())  # type: ignore[return-value]


def ratio_interval(a: Mapping[int, float], b: Mapping[int, float], digits: int = 3) -> tuple[float, float, float]:
    """a / b per seed of ``a`` (e.g. a student's accuracy over its teacher's): mean with a 95% t interval."""
    seeds = _paired_seeds(a, b)
    if any(b[s] == 0 for s in seeds):
        raise ParameterError("b has a zero score; allowed: non-zero denominators")
    return one_sample_interval([a[s] / b[s] for s in seeds], digits)


def wilson_interval(k: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval of a binomial proportion ``k / n`` (``scipy.stats.binomtest``)."""
    from scipy.stats import binomtest

    if (
        isinstance(k, bool)
        or isinstance(n, bool)
        or not isinstance(k, (int, np.integer))
        or not isinstance(n, (int, np.integer))
        or n < 1
        or not 0 <= k <= n
    ):
        raise ParameterError(f"k={k!r}, n={n!r} are not a proportion; allowed: ints with 0 <= k <= n, n >= 1")
    ci = binomtest(int(k), int(n)).proportion_ci(confidence_level=confidence, method="wilson")
    return float(ci.low), float(ci.high)


def mean_ci(x: Sequence[float], z: float = 1.96) -> tuple[float, float, float]:
    """Mean and a normal-approximation 95% interval of a 0/1 or real sample: (mean, low, high)."""
    x = np.asarray(x, dtype=float)
    m = float(x.mean())
    se = float(x.std(ddof=1) / np.sqrt(len(x))) if len(x) > 1 else float("nan")
    return m, m - z * se, m + z * se


def accuracy_gap(a: Sequence[float], b: Sequence[float], z: float = 1.96) -> tuple[float, float, float]:
    """``mean(a) - mean(b)`` of two 0/1 samples with an Agresti–Caffo 95% interval: (gap, low, high).

    The interval adds one success and one failure to each sample, so it never collapses to a point
    when both accuracies are 0 or 1.
    """
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    if len(a) == 0 or len(b) == 0:
        return float("nan"), float("nan"), float("nan")
    gap = float(a.mean() - b.mean())
    pa, pb = (a.sum() + 1) / (len(a) + 2), (b.sum() + 1) / (len(b) + 2)
    se = math.sqrt(pa * (1 - pa) / (len(a) + 2) + pb * (1 - pb) / (len(b) + 2))
    d = float(pa - pb)
    return gap, d - z * se, d + z * se


def bootstrap_ci(
    data: Sequence[Any] | np.ndarray,
    statistic: Callable[[np.ndarray], float],
    n_resamples: int = 2000,
    seed: int = 0,
    confidence: float = 0.95,
) -> tuple[float, float, float]:
    """(statistic on ``data``, percentile-bootstrap low, high), resampling rows of ``data`` with a seeded RNG."""
    check_int("n_resamples", n_resamples, minimum=10)
    x = np.asarray(data)
    if len(x) < 2:
        raise ParameterError(f"len(data)={len(x)} is too small; allowed: at least 2 rows")
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(x), size=(n_resamples, len(x)))
    reps = np.array([statistic(x[i]) for i in idx], dtype=float)
    alpha = (1 - confidence) / 2
    return float(statistic(x)), float(np.nanquantile(reps, alpha)), float(np.nanquantile(reps, 1 - alpha))


def spearman(x: Sequence[float], y: Sequence[float]) -> float:
    """Spearman rank correlation (average ranks for ties); NaN if either side is constant."""
    from scipy.stats import spearmanr

    if len(x) != len(y) or len(x) < 3:
        raise ParameterError(f"need two sequences of equal length >= 3, got {len(x)} and {len(y)}")
    if len(set(map(float, x))) < 2 or len(set(map(float, y))) < 2:
        return float("nan")  # undefined: a claim built on it is inconclusive
    return float(spearmanr(x, y).statistic)


def paired_gap(
    a: Sequence[float],
    b: Sequence[float],
    groups: Sequence[Any] | None = None,
    n_resamples: int = 2000,
    seed: int = 0,
    confidence: float = 0.95,
) -> tuple[float, float, float]:
    """``mean(a) - mean(b)`` over paired items (e.g. 0/1 correctness of two models on the same test tokens),
    with a percentile-bootstrap interval that resamples whole ``groups`` (e.g. sentences: tokens of one
    sentence are not independent; default: every item its own group): (gap, low, high)."""
    check_int("n_resamples", n_resamples, minimum=10)
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.shape != b.shape or a.ndim != 1 or len(a) < 2:
        raise ParameterError(
            f"a and b have shapes {a.shape} and {b.shape}; allowed: two equal 1-d samples of at least 2 paired items"
        )
    g = np.arange(len(a)) if groups is None else np.unique(np.asarray(groups), return_inverse=True)[1]
    if len(g) != len(a):
        raise ParameterError(f"{len(g)} groups for {len(a)} items; allowed: one group label per item")
    n_g = int(g.max()) + 1
    d_sum = np.bincount(g, weights=a - b, minlength=n_g)  # per group: sum of differences and item count
    count = np.bincount(g, minlength=n_g).astype(float)
    rng = np.random.default_rng(seed)
    pick = rng.integers(0, n_g, size=(n_resamples, n_g))
    reps = d_sum[pick].sum(1) / count[pick].sum(1)
    alpha = (1 - confidence) / 2
    return float((a - b).mean()), float(np.quantile(reps, alpha)), float(np.quantile(reps, 1 - alpha))


# -- intervals over fine-tuning seeds *and* test items (survey §5) ---------------------------------------


def seed_item_interval(
    per_seed: Callable[[np.ndarray], Sequence[float]],
    n_items: int,
    n_resamples: int = 2000,
    seed: int = 0,
    confidence: float = 0.95,
) -> tuple[float, float, float]:
    """(estimate, low, high): the mean over seeds of a per-seed statistic measured on test items, with an
    interval that covers the sampling of the seeds *and* of the test items.

    ``per_seed(idx)`` returns the statistic of each of the k seeds on the test items ``idx`` (indices into
    the ``n_items`` items every seed was scored on; the bootstrap passes resamples with repeats). Variance:
    the spread of the k per-seed values over seeds / k (Student's t, k - 1 degrees of freedom) plus the
    variance of their mean over a seeded bootstrap of the items (n_items - 1 degrees of freedom), combined
    with the Welch–Satterthwaite degrees of freedom. The seed-by-item interaction is counted in both terms,
    so the interval errs wide. Used by the survey §5 notebooks (:func:`accuracy_gap_interval`).
    """
    from scipy import stats

    check_int("n_items", n_items, minimum=2)
    check_int("n_resamples", n_resamples, minimum=10)
    full = np.asarray(per_seed(np.arange(n_items)), dtype=float)
    k = len(full)
    if full.ndim != 1 or k < 2 or not np.isfinite(full).all():
        raise ParameterError(f"per_seed gave {full.tolist()!r}; allowed: finite values of at least 2 seeds")
    rng = np.random.default_rng(seed)
    reps = np.array([np.mean(per_seed(rng.integers(0, n_items, n_items))) for _ in range(n_resamples)])
    parts = [(float(full.var(ddof=1)) / k, k - 1), (float(np.nanvar(reps, ddof=1)), n_items - 1)]
    total = sum(v for v, _ in parts)
    est = float(full.mean())
    if total <= 0:  # no spread over seeds or items (e.g. identical constant predictions)
        return est, est, est
    dof = total**2 / sum(v**2 / f for v, f in parts if v > 0)
    half = float(stats.t.ppf(0.5 + confidence / 2, dof)) * math.sqrt(total)
    return est, est - half, est + half


def accuracy_gap_interval(
    a: Any, b: Any = None, counts: Sequence[float] | None = None, scale: float = 100.0, **kw: Any
) -> tuple[float, float, float]:
    """``scale`` x (accuracy of ``a`` - accuracy of ``b``), mean over seeds, with an interval over seeds and test
    items (:func:`seed_item_interval`): in points by default.

    ``a``, ``b``: (seeds, items) arrays of per-item scores (0/1 correct), the same seeds and items in the same
    order (paired); ``b=None`` scores ``a`` alone. With ``counts`` (one per item), the items are groups (e.g.
    sentences) and the arrays hold each group's summed score (e.g. correct masked words of a sentence, out of
    ``counts``): accuracy is then the sum over groups / the sum of counts, and whole groups are resampled.

    Paired per-item scores that never differ (no discordant item in any seed) leave the resampling nothing to
    vary; the interval is then the rule of three, ±``scale`` x 3 / (seeds x items): the share of discordant
    seed-items that 0 of them rules out at 95% (Hanley & Lippman-Hand 1983), instead of a zero-width interval
    that would claim certainty.
    """
    x = np.asarray(a, dtype=float)
    d = x - np.asarray(b, dtype=float) if b is not None else x
    if d.ndim != 2 or d.shape[0] < 2 or d.shape[1] < 2 or not np.isfinite(d).all():
        raise ParameterError(
            f"a and b give shape {d.shape}; allowed: finite (seeds, items) arrays of the same "
            "shape, with at least 2 seeds and 2 items"
        )
    c = np.ones(d.shape[1]) if counts is None else np.asarray(counts, dtype=float)
    if c.shape != (d.shape[1],) or (c < 0).any() or c.sum() <= 0:
        raise ParameterError(f"counts has shape {c.shape}; allowed: one non-negative count per item ({d.shape[1]})")
    if b is not None and counts is None and not d.any():
        bound = scale * 3.0 / d.size
        return 0.0, -bound, bound
    return seed_item_interval(lambda idx: scale * d[:, idx].sum(1) / c[idx].sum(), d.shape[1], **kw)


def seed_variance(scores: Any, scale: float = 100.0, confidence: float = 0.95) -> dict[str, float]:
    """How much the seed moves a score beyond test-item noise (Dodge et al. 2020's seed variance, measured
    on a finite test set): ``scores`` (k seeds, n items) per-item scores (0/1 correct) of k runs on the same items.

    Two-way layout without replication: MS_seed = n x variance of the seeds' means, MS_res = the seed-by-item
    interaction mean square (what item noise alone makes seeds differ by). The seed standard deviation of the
    expected score is sqrt((MS_seed - MS_res) / n) (0 when negative), with the exact interval of a variance
    component: F = MS_seed / MS_res ~ (1 + n θ) F(k - 1, (k - 1)(n - 1)), θ = σ²_seed / σ²_res, σ²_res
    estimated by MS_res. Returns, scaled by ``scale`` (points): ``sd``, ``low``, ``high``, ``observed_sd`` (the
    seeds' spread on this test set), ``noise_sd`` (the spread item noise alone gives, sqrt(MS_res / n)),
    ``range``; and ``F``, ``p`` (one-sided: seeds matter beyond item noise), ``n_seeds``, ``n_items``.
    """
    from scipy import stats

    x = np.asarray(scores, dtype=float)
    if x.ndim != 2 or x.shape[0] < 2 or x.shape[1] < 2 or not np.isfinite(x).all():
        raise ParameterError(
            f"scores has shape {x.shape}; allowed: a finite (seeds, items) array with at least 2 seeds and 2 items"
        )
    k, n = x.shape
    rows = x.mean(1)
    resid = x - rows[:, None] - x.mean(0)[None, :] + x.mean()
    ms_seed = n * float(rows.var(ddof=1))
    ms_res = float((resid**2).sum()) / ((k - 1) * (n - 1))
    noise = math.sqrt(ms_res / n)
    out = {
        "observed_sd": scale * float(rows.std(ddof=1)),
        "noise_sd": scale * noise,
        "range": scale * float(rows.max() - rows.min()),
        "n_seeds": k,
        "n_items": n,
    }
    if ms_res <= 1e-15:  # no interaction: seeds differ by a constant or not at all
        sd = scale * math.sqrt(ms_seed / n)
        return {
            "sd": sd,
            "low": sd,
            "high": sd,
            "F": math.inf if ms_seed > 0 else float("nan"),
            "p": 0.0 if ms_seed > 0 else 1.0,
            **out,
        }
    f = ms_seed / ms_res
    df1, df2 = k - 1, (k - 1) * (n - 1)
    alpha = 1 - confidence
    f_hi, f_lo = float(stats.f.ppf(1 - alpha / 2, df1, df2)), float(stats.f.ppf(alpha / 2, df1, df2))

    def sd(ratio: float) -> float:  # sigma_seed when MS_seed / MS_res = ratio * (1 + n theta)
        return scale * noise * math.sqrt(max(0.0, ratio - 1.0))

    return {"sd": sd(f), "low": sd(f / f_hi), "high": sd(f / f_lo), "F": f, "p": float(stats.f.sf(f, df1, df2)), **out}


def rank_interval(x: Sequence[float], y: Sequence[float], confidence: float = 0.95) -> tuple[float, float, float]:
    """Spearman's rho of ``x`` and ``y`` with the Fisher-z interval of Bonett & Wright (2000): var(z) =
    (1 + rho² / 2) / (n - 3). (nan, nan, nan) when a side is constant (the rank correlation is undefined)."""
    from scipy import stats

    if len(x) != len(y) or len(x) < 4:
        raise ParameterError(f"x and y have {len(x)} and {len(y)} values; allowed: equal lengths >= 4")
    rho = spearman(x, y)
    if not math.isfinite(rho):
        return rho, rho, rho
    z = math.atanh(min(max(rho, -0.999999), 0.999999))
    half = float(stats.norm.ppf(0.5 + confidence / 2)) * math.sqrt((1 + rho**2 / 2) / (len(x) - 3))
    return rho, math.tanh(z - half), math.tanh(z + half)
