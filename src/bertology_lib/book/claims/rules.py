"""Rules: how a claim's measured value and the paper's become a verdict, stated before the number is seen.

Every rule gives :class:`Verdict` ``reproduced``, ``not reproduced`` or ``inconclusive``. Interval rules
take ``ours = (estimate, low, high)``; rules that compare with a baseline take the interval of
``ours - baseline`` measured in the same run (a null model, the majority class, a random-init twin),
so that a model that learned nothing cannot pass. :class:`Equivalent` is the rule for "no effect"
claims: it needs the interval inside the equivalence margin, so a low-power comparison is inconclusive,
not "reproduced".
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum
from typing import Any, ClassVar, Sequence

from bertology_lib.errors import ParameterError


class Verdict(str, Enum):
    REPRODUCED = "reproduced"
    NOT_REPRODUCED = "not reproduced"
    INCONCLUSIVE = "inconclusive"


def fmt(v: Any) -> str:
    """Deterministic, rounded rendering of a number (3 significant digits)."""
    if isinstance(v, bool) or v is None:
        return str(v)
    if isinstance(v, int) and abs(v) < 10_000:
        return str(v)
    if isinstance(v, (int, float)):
        if not math.isfinite(v):
            return str(v)
        a = abs(v)
        for div, suffix in ((1e9, "B"), (1e6, "M"), (1e3, "k")):
            if a >= div:
                return f"{v / div:.3g}{suffix}"
        return f"{v:.3g}"
    if isinstance(v, (tuple, list)):
        return "(" + ", ".join(fmt(x) for x in v) + ")"
    return str(v)


def with_unit(v: Any, unit: str) -> str:
    """``fmt(v)`` followed by the unit when ``v`` is a number (not for textual paper findings)."""
    numeric = isinstance(v, (int, float)) and not isinstance(v, bool) or isinstance(v, (list, tuple))
    return fmt(v) + (f" {unit}" if unit and numeric else "")


RULE_KINDS: tuple[str, ...] = ("threshold", "interval", "baseline", "equivalence", "range")


@dataclass(frozen=True)
class Rule:
    """Base class: a stated rule that turns (paper, ours) into a verdict.

    Every rule declares its ``kind`` (:data:`RULE_KINDS`), which says what a null model measures under it
    (``tests/test_claims_registry.py``): ``threshold`` (a raw score against a constant: no measured baseline),
    ``interval`` / ``baseline`` (an interval of a difference from a baseline: a null gives 0), ``equivalence``
    (no effect within a margin), ``range`` (a location such as a depth, which chance can put anywhere).
    """

    kind: ClassVar[str] = ""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.kind not in RULE_KINDS:
            raise ParameterError(f"rule {cls.__name__} has kind={cls.kind!r}; allowed: {', '.join(RULE_KINDS)}")

    def describe(self) -> str:  # pragma: no cover - abstract
        raise NotImplementedError

    def verdict(self, paper: Any, ours: Any) -> Verdict:  # pragma: no cover - abstract
        raise NotImplementedError


@dataclass(frozen=True)
class WithinRelative(Rule):
    """Reproduced when ``|ours - paper| <= tol * |paper|``."""

    kind: ClassVar[str] = "threshold"

    tol: float

    def describe(self) -> str:
        return f"|ours - paper| <= {self.tol:.0%} of paper"

    def verdict(self, paper: float, ours: float) -> Verdict:
        ok = abs(float(ours) - float(paper)) <= self.tol * abs(float(paper))
        return Verdict.REPRODUCED if ok else Verdict.NOT_REPRODUCED


@dataclass(frozen=True)
class AtLeast(Rule):
    """Reproduced when ``ours >= threshold`` (the paper's number is context)."""

    kind: ClassVar[str] = "threshold"

    threshold: float

    def describe(self) -> str:
        return f"ours >= {fmt(self.threshold)}"

    def verdict(self, paper: Any, ours: float) -> Verdict:
        return Verdict.REPRODUCED if float(ours) >= self.threshold else Verdict.NOT_REPRODUCED


@dataclass(frozen=True)
class AtMost(Rule):
    """Reproduced when ``ours <= threshold``."""

    kind: ClassVar[str] = "threshold"

    threshold: float

    def describe(self) -> str:
        return f"ours <= {fmt(self.threshold)}"

    def verdict(self, paper: Any, ours: float) -> Verdict:
        return Verdict.REPRODUCED if float(ours) <= self.threshold else Verdict.NOT_REPRODUCED


@dataclass(frozen=True)
class IntervalAbove(Rule):
    """For noisy effects: ``ours = (estimate, low, high)`` (e.g. a 95% interval).

    Reproduced when ``low > threshold``; not reproduced when ``high <
    threshold``; inconclusive when the interval straddles it.
    """

    kind: ClassVar[str] = "interval"

    threshold: float = 0.0

    def describe(self) -> str:
        return (
            f"interval low > {fmt(self.threshold)}: reproduced; high < {fmt(self.threshold)}: "
            "not reproduced; else inconclusive"
        )

    def verdict(self, paper: Any, ours: Sequence[float]) -> Verdict:
        _, low, high = (float(x) for x in ours)
        if low > self.threshold:
            return Verdict.REPRODUCED
        if high < self.threshold:
            return Verdict.NOT_REPRODUCED
        return Verdict.INCONCLUSIVE


@dataclass(frozen=True)
class IntervalContains(Rule):
    """For claims of *no* effect: ``ours = (estimate, low, high)``.

    Reproduced when the interval contains ``value`` (no detectable effect);
    not reproduced when it excludes it.
    """

    kind: ClassVar[str] = "interval"

    value: float = 0.0

    def describe(self) -> str:
        return f"interval contains {fmt(self.value)}: reproduced (no detectable effect); else not reproduced"

    def verdict(self, paper: Any, ours: Sequence[float]) -> Verdict:
        _, low, high = (float(x) for x in ours)
        return Verdict.REPRODUCED if low <= self.value <= high else Verdict.NOT_REPRODUCED


@dataclass(frozen=True)
class IntervalWithin(Rule):
    """For claims that a value lies in a range (e.g. where in the network something is best decoded, as a
    relative depth): ``ours = (estimate, low, high)``.

    Reproduced when the whole interval lies within ``[lower, upper]``; not reproduced when it lies wholly
    outside; inconclusive when it straddles a bound. A model that learned nothing can land anywhere, in the
    range too, so a claim under this rule needs an instrument check that such a model fails (the probe
    beats its baselines).
    """

    kind: ClassVar[str] = "range"

    lower: float
    upper: float

    def __post_init__(self) -> None:
        if not (
            isinstance(self.lower, (int, float))
            and isinstance(self.upper, (int, float))
            and math.isfinite(self.lower)
            and math.isfinite(self.upper)
            and self.lower < self.upper
        ):
            raise ParameterError(
                f"lower={self.lower!r}, upper={self.upper!r} are not allowed; allowed: two "
                "finite numbers, lower < upper"
            )

    def describe(self) -> str:
        lo, hi = fmt(self.lower), fmt(self.upper)
        return f"interval within [{lo}, {hi}]: reproduced; wholly outside it: not reproduced; else inconclusive"

    def verdict(self, paper: Any, ours: Sequence[float]) -> Verdict:
        _, low, high = (float(x) for x in ours)
        if self.lower <= low and high <= self.upper:
            return Verdict.REPRODUCED
        if high < self.lower or low > self.upper:
            return Verdict.NOT_REPRODUCED
        return Verdict.INCONCLUSIVE


@dataclass(frozen=True)
class BeatsBaseline(Rule):
    """``ours = (estimate, low, high)``: the interval of (measure - ``baseline``), both measured in the
    same run. Reproduced when low > ``margin``; not reproduced when high < ``margin``; else inconclusive.

    The rule a null model fails: a model that learned nothing sits at its baseline, so its interval
    straddles 0 (inconclusive) or lies below it.
    """

    kind: ClassVar[str] = "baseline"

    baseline: str
    margin: float = 0.0

    def describe(self) -> str:
        m = fmt(self.margin)
        return (
            f"interval of ours - {self.baseline}: low > {m}: reproduced; high < {m}: not reproduced; else inconclusive"
        )

    def verdict(self, paper: Any, ours: Sequence[float]) -> Verdict:
        return IntervalAbove(self.margin).verdict(paper, ours)


@dataclass(frozen=True)
class Equivalent(Rule):
    """A claim of *no* effect: ``ours = (estimate, low, high)`` of the effect.

    Reproduced when the whole interval lies within ``[-margin, margin]`` (the effect is at most the
    margin, with the power to say so); not reproduced when it lies beyond the margin on one side;
    inconclusive otherwise (the data cannot tell no effect from an effect the size of the margin).
    Choose ``margin`` below the effect the paper would count as one.
    """

    kind: ClassVar[str] = "equivalence"

    margin: float

    def __post_init__(self) -> None:
        if isinstance(self.margin, bool) or not isinstance(self.margin, (int, float)) or not self.margin > 0:
            raise ParameterError(f"margin={self.margin!r} is out of range; allowed: a number > 0")

    def describe(self) -> str:
        m = fmt(self.margin)
        return (
            f"interval within [-{m}, {m}]: reproduced (no effect larger than {m}); beyond it: not "
            "reproduced; else inconclusive (too little power)"
        )

    def verdict(self, paper: Any, ours: Sequence[float]) -> Verdict:
        _, low, high = (float(x) for x in ours)
        if -self.margin <= low and high <= self.margin:
            return Verdict.REPRODUCED
        if low > self.margin or high < -self.margin:
            return Verdict.NOT_REPRODUCED
        return Verdict.INCONCLUSIVE


def rule_id(rule: Rule) -> str:
    """A short, stable name of a rule and its parameters, e.g. ``IntervalAbove(-1)``."""
    args = ", ".join(fmt(v) if not isinstance(v, str) else v for v in vars(rule).values())
    return f"{type(rule).__name__}({args})"
