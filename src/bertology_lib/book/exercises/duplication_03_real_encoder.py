"""Checkers of the exercises of ``duplication_03_real_encoder`` (Duplicating the layers of a real encoder, Kao et al.
2020):

* ``ex-dup3-no-gain``: the verdict of a claim of *no* gain under the equivalence rule;
* ``ex-dup3-detectable``: the gain a paired t test could detect at these seeds.

Every answer is a function, run on hidden cases; the truths come from the library (``stats.paired_test``, the claim
rule ``Equivalent``, ``experiments.duplication.boost.detectable_gain``) on inputs built here, so none depends on the
profile the notebook runs at. Used by that notebook's exercise cells.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

from bertology_lib.book.exercises.cases import judge_function, within
from bertology_lib.book.exercises.checks import as_number, checker


DUP3_NO_GAIN_CASES: tuple[tuple[tuple[float, ...], float], ...] = (
    ((0.3, -0.2, 0.5, 0.1, 0.0), 1.0),  # tight around 0: within the margin
    ((0.4, -1.5, 2.0, 0.8, -0.9), 1.0),  # mean inside the margin, interval wider than it
    ((2.5, 3.1, 2.8, 3.6, 2.2), 1.0),  # wholly above the margin
    ((-2.0, -2.6, -1.7, -3.0), 1.0),  # a loss, wholly below -margin
    ((1.6, 0.8, 2.4, 1.2, 2.0), 1.0),  # mean beyond the margin, interval straddling it
    ((0.2, 0.9, 0.55), 1.0),  # inside with 1.96, not with t(0.975, 2)
    ((0.6, 0.7, 0.5, 0.65), 0.5),  # above 0, beyond a smaller margin
    ((1.2, 0.4, 1.0, 0.9, 0.5, 1.1), 2.0),  # above 0 yet within a wider margin
)


def dup3_no_gain_truth(gains: Sequence[float], margin: float) -> str:
    """The verdict of a claim of no effect on per-seed paired gains: the claim rule ``Equivalent(margin)`` on
    the 95% t interval of the mean gain (``stats.paired_test`` against 0): whole interval within ±margin:
    reproduced; wholly beyond it on one side: not reproduced; else inconclusive."""
    from bertology_lib import stats
    from bertology_lib.book.claims.rules import Equivalent

    interval = stats.paired_test(list(gains), [0.0] * len(gains)).interval()
    return Equivalent(margin).verdict(None, interval).value


def _no_gain_mistakes(gains: Sequence[float], margin: float) -> dict[str, str]:
    from scipy import stats as st

    n = len(gains)
    m = sum(gains) / n
    sd = math.sqrt(sum((g - m) ** 2 for g in gains) / (n - 1))

    def interval(q):
        half = q * sd / math.sqrt(n)
        return m - half, m + half

    lo, hi = interval(float(st.t.ppf(0.975, n - 1)))
    zlo, zhi = interval(1.959964)

    def rule(low, high):
        if -margin <= low and high <= margin:
            return "reproduced"
        return "not reproduced" if low > margin or high < -margin else "inconclusive"

    return {
        "mean": "reproduced" if abs(m) <= margin else "not reproduced",
        "contains zero": "reproduced" if lo <= 0 <= hi else "not reproduced",
        "partly outside": "reproduced" if -margin <= lo and hi <= margin else "not reproduced",
        "above zero": "not reproduced" if lo > 0 else ("reproduced" if hi < 0 else "inconclusive"),
        "one side": (
            "reproduced" if -margin <= lo and hi <= margin else "not reproduced" if lo > margin else "inconclusive"
        ),
        "z": rule(zlo, zhi),
    }


_NO_GAIN_HINTS = {
    "mean": "a mean gain within the margin is not enough: the whole 95% interval must lie within ±margin, and one "
    "that crosses the margin is inconclusive (too few seeds to tell).",
    "contains zero": "an interval that contains 0 is not evidence of no gain when it is wider than the margin: "
    "'not significant' is not 'no effect'.",
    "partly outside": "not reproduced only when the whole interval lies beyond the margin on one side; an interval "
    "that crosses the margin is inconclusive.",
    "above zero": "this is a claim of *no* gain, judged by the equivalence rule (the interval within ±margin), "
    "not a claim of a gain (the interval above 0).",
    "one side": "a loss larger than the margin is an effect too: an interval wholly below -margin is not reproduced.",
    "z": "with a few seeds the interval uses Student's t with n - 1 degrees of freedom; 1.96 is its large-n limit.",
}


_VERDICTS = ("reproduced", "not reproduced", "inconclusive")


def _verdict_text(x: Any) -> str | None:
    x = getattr(x, "value", x)
    return x.strip().lower() if isinstance(x, str) and x.strip().lower() in _VERDICTS else None


@checker("ex-dup3-no-gain")
def _check_dup3_no_gain(answer):
    """``answer``: a function ``no_gain_verdict(gains, margin)`` taking the per-seed paired gains (duplicated
    minus baseline, in points) and the equivalence margin, returning ``"reproduced"`` when the whole 95% t
    interval of the mean gain lies within ±margin, ``"not reproduced"`` when it lies wholly beyond the margin on
    one side, ``"inconclusive"`` otherwise; run on hidden gains, exact."""

    def not_yet(i, v, t):
        gains, margin = DUP3_NO_GAIN_CASES[i]
        return (
            f"not yet: no_gain_verdict({list(gains)}, {margin}) = {v[i]!r} is wrong; compute the 95% t interval "
            "of the mean gain and compare both of its ends with -margin and +margin."
        )

    return judge_function(
        answer,
        "no_gain_verdict",
        DUP3_NO_GAIN_CASES,
        show=lambda c: f"no_gain_verdict({list(c[0])}, {c[1]})",
        read=_verdict_text,
        refuse=f"return one of {', '.join(repr(v) for v in _VERDICTS)}, got {{bad!r}}.",
        truth=dup3_no_gain_truth,
        mistakes=_no_gain_mistakes,
        hints=_NO_GAIN_HINTS,
        ok=(
            "correct: a claim of no effect needs power — with few seeds the interval is wider than the margin and "
            "the honest verdict is inconclusive, not 'no gain'."
        ),
        not_yet=not_yet,
    )


DUP3_DETECTABLE_CASES: tuple[tuple[float, int], ...] = ((1.0, 5), (2.5, 3), (0.6, 2), (0.02, 10), (4.0, 30))


def _fake_results(sd_diff: float, n: int) -> dict[str, list]:
    """Per-seed results shaped as ``finetune.FinetuneResult`` (only ``score``) whose paired differences have
    standard deviation exactly ``sd_diff``."""
    z = [i - (n - 1) / 2 for i in range(n)]
    s = math.sqrt(sum(v * v for v in z) / (n - 1))

    def result(v: float):
        return SimpleNamespace(score=lambda split="test", metric=None, v=v: v)

    return {"variant": [result(0.5 + sd_diff * v / s) for v in z], "baseline": [result(0.5)] * n}


def dup3_detectable_truth(sd_diff: float, n: int) -> float:
    """The smallest true gain a two-sided paired t test at 5% detects with 80% power from ``n`` seeds whose
    paired differences have standard deviation ``sd_diff``: ``dup.detectable_gain`` on results with exactly
    that spread, (t(0.975, n-1) + t(0.8, n-1)) x sd_diff / sqrt(n)."""
    from bertology_lib.experiments.duplication import boost as dup

    return dup.detectable_gain(_fake_results(sd_diff, n), "variant")["detectable"]


def _detectable_mistakes(sd: float, n: int) -> dict[str, float]:
    from scipy import stats as st

    def t(q, df=n - 1):
        return float(st.t.ppf(q, df))

    se = sd / math.sqrt(n)
    return {
        "z": (1.959964 + 0.841621) * se,
        "one-sided": (t(0.95) + t(0.8)) * se,
        "no power": t(0.975) * se,
        "minus": (t(0.975) - t(0.8)) * se,
        "n df": (t(0.975, n) + t(0.8, n)) * se,
        "no sqrt": (t(0.975) + t(0.8)) * sd,
        "sd over n": (t(0.975) + t(0.8)) * sd / n,
    }


_DETECTABLE_HINTS = {
    "z": "with a few seeds use Student's t quantiles with n - 1 degrees of freedom; 1.96 and 0.84 are their large-n "
    "limits.",
    "one-sided": "the paired test is two-sided at the 5% level: its critical value is t(0.975, n - 1), not "
    "t(0.95, n - 1).",
    "no power": "a true gain at the critical value is detected only half of the time; for 80% power add "
    "t(0.8, n - 1) standard errors.",
    "minus": "the power quantile adds: a gain detected 80% of the time sits t(0.8, n - 1) standard errors above the "
    "critical value, not below it.",
    "n df": "the t quantiles have n - 1 degrees of freedom (n paired differences, one mean estimated).",
    "no sqrt": "the mean of n paired differences has standard error sd_diff / sqrt(n): more seeds detect smaller "
    "gains.",
    "sd over n": "the standard error of a mean of n differences is sd_diff / sqrt(n), not sd_diff / n.",
}


@checker("ex-dup3-detectable")
def _check_dup3_detectable(answer):
    """``answer``: a function ``detectable_gain(sd_diff, n)`` returning the smallest true gain that a two-sided
    paired t test at the 5% level detects with 80% power from n seeds whose paired differences have standard
    deviation sd_diff, in sd_diff's units; run on hidden values, within 1e-6 relative."""
    return judge_function(
        answer,
        "detectable_gain",
        DUP3_DETECTABLE_CASES,
        read=as_number,
        refuse="detectable_gain should return a number, got {first!r}.",
        truth=dup3_detectable_truth,
        match=within(rel=1e-6),
        mistakes=_detectable_mistakes,
        hints=_DETECTABLE_HINTS,
        ok=(
            "correct: it shrinks like 1 / sqrt(n), and faster at few seeds where the t quantiles are large; a 'no "
            "gain' verdict means something only once it is below the margin."
        ),
        not_yet=lambda i, v, t: (
            f"not yet: detectable_gain{DUP3_DETECTABLE_CASES[i]} = {v[i]:.4g} is too "
            f"{'large' if v[i] > t[i] else 'small'}; it is (t(0.975, n - 1) + t(0.8, n - 1)) "
            "x sd_diff / sqrt(n)."
        ),
    )
