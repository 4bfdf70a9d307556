"""Instrument checks: the preconditions a claim's measurement needs, declared with its registered spec.

A claim's spec (:class:`~bertology_lib.book.claims.registry.ClaimSpec`, in
``book/claims/specs/<notebook>.py``) declares each instrument check as an :class:`Instrument`: its name, what
it compares and the threshold. The notebook passes only what it measured, by name
(``record_claim(id, ours=..., checks={"memorised": 0.97, "three_seeds": len(seeds)})``), and
:meth:`Instrument.check` turns that value into a :class:`Check` (passed or not, the value, the requirement in
words), which the claim records. A threshold is changed in the spec, never in a notebook.

============================  ======================================================  ==============================
declared                      the measured value the notebook passes                  passed when
============================  ======================================================  ==============================
``Minimum(name, t)``          a number                                                value >= t (NaN fails)
``Maximum(name, t)``          a number                                                value <= t (NaN fails)
``AboveBaseline(name, b)``    ``(estimate, low, high)`` of measure - baseline b       low > 0
``AboveBaseline(name)``       ``((estimate, low, high), b)``: b chosen in the run     low > 0
``Exceeds(name, text)``       ``(a, b)``                                              a > b
``NoFailures(name, text)``    the list of what failed (e.g. variants)                 the list is empty
============================  ======================================================  ==============================

Used by the spec modules, :func:`bertology_lib.book.claims.record.make_claim` and the tests of the verdicts.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from bertology_lib.book.claims.rules import fmt
from bertology_lib.errors import ParameterError


@dataclass(frozen=True)
class Check:
    """One evaluated instrument check: did the measurement's precondition hold (``passed``)? ``value`` is what
    was measured and ``requirement`` what it had to meet, in words (e.g. ``">= 0.95"``). Made by
    :meth:`Instrument.check`; recorded with the claim."""

    name: str
    passed: bool
    value: Any = None
    requirement: str = ""

    def line(self) -> str:
        return f"{self.name} {fmt(self.value)} ({'ok' if self.passed else 'failed'}: {self.requirement})"


def _number(name: str, value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        raise ParameterError(f"instrument check {name!r} got {value!r}; allowed: a number") from None


def _interval(name: str, value: Any) -> list[float]:
    try:
        est, low, high = (float(x) for x in value)
    except (TypeError, ValueError):
        raise ParameterError(
            f"instrument check {name!r} got {value!r}; allowed: an interval (estimate, low, high)"
        ) from None
    return [est, low, high]


@dataclass(frozen=True)
class Instrument:
    """Base class: one declared instrument check (``name``, unique within its claim's spec)."""

    name: str

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.isidentifier():
            raise ParameterError(f"instrument name={self.name!r} is not allowed; allowed: a Python identifier")

    def requirement(self) -> str:  # pragma: no cover - abstract
        raise NotImplementedError

    def check(self, measured: Any) -> Check:  # pragma: no cover - abstract
        raise NotImplementedError


def _check_threshold(inst: Instrument) -> None:
    t = inst.threshold  # type: ignore[attr-defined]
    if isinstance(t, bool) or not isinstance(t, (int, float)) or not math.isfinite(t):
        raise ParameterError(f"instrument {inst.name!r}: threshold={t!r} is not allowed; allowed: a finite number")


@dataclass(frozen=True)
class Minimum(Instrument):
    """Passed when the measured number is at least ``threshold`` (a NaN fails)."""

    threshold: float

    def __post_init__(self) -> None:
        super().__post_init__()
        _check_threshold(self)

    def requirement(self) -> str:
        return f">= {fmt(self.threshold)}"

    def check(self, measured: Any) -> Check:
        v = _number(self.name, measured)
        return Check(self.name, math.isfinite(v) and v >= self.threshold, v, self.requirement())


@dataclass(frozen=True)
class Maximum(Instrument):
    """Passed when the measured number is at most ``threshold`` (a NaN fails)."""

    threshold: float

    def __post_init__(self) -> None:
        super().__post_init__()
        _check_threshold(self)

    def requirement(self) -> str:
        return f"<= {fmt(self.threshold)}"

    def check(self, measured: Any) -> Check:
        v = _number(self.name, measured)
        return Check(self.name, math.isfinite(v) and v <= self.threshold, v, self.requirement())


@dataclass(frozen=True)
class AboveBaseline(Instrument):
    """Passed when the interval ``(estimate, low, high)`` of (measure - baseline), measured in the same run, has
    low > 0. ``baseline`` names it; ``None`` when the run chooses it (the strongest of several, a task's floor
    predictor): the notebook then passes ``(interval, baseline name)``."""

    baseline: str | None = None

    def requirement(self, baseline: str | None = None) -> str:
        return f"above {baseline or self.baseline or 'the baseline named in the run'} (interval low > 0)"

    def check(self, measured: Any) -> Check:
        if self.baseline is None:
            if not (isinstance(measured, (tuple, list)) and len(measured) == 2 and isinstance(measured[1], str)):
                raise ParameterError(
                    f"instrument check {self.name!r} got {measured!r}; allowed: (interval, name of "
                    "the baseline) — its spec leaves the baseline to the run"
                )
            measured, baseline = measured
        else:
            baseline = self.baseline
        est, low, high = _interval(self.name, measured)
        return Check(self.name, math.isfinite(low) and low > 0, [est, low, high], self.requirement(baseline))


@dataclass(frozen=True)
class Exceeds(Instrument):
    """Passed when the first of two measured numbers ``(a, b)`` is larger (``text``: what they are, e.g.
    ``"masked-word accuracy > unigram"``); the values are recorded rounded to ``digits`` when given, compared
    unrounded."""

    text: str
    digits: int | None = None

    def requirement(self) -> str:
        return self.text

    def check(self, measured: Any) -> Check:
        if not (isinstance(measured, (tuple, list)) and len(measured) == 2):
            raise ParameterError(f"instrument check {self.name!r} got {measured!r}; allowed: two numbers (a, b)")
        a, b = measured
        shown = [a, b] if self.digits is None else [round(a, self.digits), round(b, self.digits)]
        return Check(self.name, bool(a > b), shown, self.text)


@dataclass(frozen=True)
class NoFailures(Instrument):
    """Passed when the measured list of failures (e.g. the variants whose MLM does not beat the unigram) is
    empty; ``text`` says what every item must meet."""

    text: str

    def requirement(self) -> str:
        return self.text

    def check(self, measured: Any) -> Check:
        if isinstance(measured, (str, bytes)) or not hasattr(measured, "__len__"):
            raise ParameterError(f"instrument check {self.name!r} got {measured!r}; allowed: the list of failures")
        return Check(self.name, not measured, list(measured), self.text)
