"""The one validation path: every bad value raises :class:`~bertology_lib.errors.ParameterError`
with a message that names the value and says what is allowed.

:class:`Param` describes a notebook or CLI parameter (its default, type, bounds, choices, an extra
check); the ``check_*`` helpers are the same checks for function arguments and config fields, built
on :meth:`Param.validate`, so a library function and a notebook parameter fail the same way::

    check_int("steps", steps, minimum=1)         # steps=0 is out of range; allowed: an int >= 1
    check_choice("strategy", s, ("full", "lora"))  # strategy='x' is not allowed; allowed: 'full', 'lora'
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from bertology_lib.errors import ParameterError

_TYPE_NAMES = {int: "an int", float: "a float", str: "a string", bool: "a bool"}


def _num(v: float) -> str:
    return repr(int(v)) if float(v).is_integer() and abs(v) < 1e15 else repr(v)


@dataclass(frozen=True)
class Param:
    """One parameter: its default, type and allowed values.

    ``choices`` lists allowed values; ``minimum``/``maximum`` bound numbers (inclusive, or exclusive
    with ``open_min``/``open_max``); ``check(value, param=name)`` is an extra validator (e.g. model
    names) that raises :class:`ParameterError` itself, naming ``param``.
    """

    name: str
    default: Any
    doc: str
    type: type
    choices: tuple[Any, ...] | None = None
    minimum: float | None = None
    maximum: float | None = None
    check: Callable[..., Any] | None = field(default=None, compare=False)
    open_min: bool = False
    open_max: bool = False

    def allowed(self) -> str:
        """Human-readable description of the allowed values."""
        if self.choices is not None:
            return ", ".join(repr(c) for c in self.choices)
        what = _TYPE_NAMES.get(self.type, self.type.__name__)
        lo, hi = self.minimum, self.maximum
        if lo is not None and hi is not None:
            left, right = ("(" if self.open_min else "["), (")" if self.open_max else "]")
            return f"{what} in {left}{_num(lo)}, {_num(hi)}{right}"
        if lo is not None:
            return f"{what} {'>' if self.open_min else '>='} {_num(lo)}"
        if hi is not None:
            return f"{what} {'<' if self.open_max else '<='} {_num(hi)}"
        return what

    def coerce(self, value: Any) -> Any:
        """Convert a string from the command line to this parameter's type."""
        if not isinstance(value, str) or self.type is str:
            return value
        try:
            if self.type is bool:
                low = value.strip().lower()
                if low in ("true", "1", "yes"):
                    return True
                if low in ("false", "0", "no"):
                    return False
                raise ValueError(value)
            return self.type(value)
        except ValueError:
            raise ParameterError(
                f"{self.name}={value!r} is not {_TYPE_NAMES.get(self.type, self.type.__name__)}; "
                f"allowed: {self.allowed()}"
            ) from None

    def validate(self, value: Any) -> Any:
        """Return ``value`` (ints widened to float where a float is asked) or raise."""
        ok_type = isinstance(value, self.type) and not (self.type in (int, float) and isinstance(value, bool))
        if self.type is int and not ok_type and _is_numpy_int(value):
            value, ok_type = int(value), True
        if (
            self.type is float
            and not ok_type
            and (isinstance(value, int) or _is_numpy_number(value))
            and not isinstance(value, bool)
        ):
            value, ok_type = float(value), True
        if not ok_type:
            raise ParameterError(f"{self.name}={value!r} has type {type(value).__name__}; allowed: {self.allowed()}")
        if self.type is float and not math.isfinite(value):
            raise ParameterError(f"{self.name}={value!r} is not finite; allowed: {self.allowed()}")
        if self.choices is not None and value not in self.choices:
            raise ParameterError(f"{self.name}={value!r} is not allowed; allowed: {self.allowed()}")
        lo_bad = self.minimum is not None and (value <= self.minimum if self.open_min else value < self.minimum)
        hi_bad = self.maximum is not None and (value >= self.maximum if self.open_max else value > self.maximum)
        if lo_bad or hi_bad:
            raise ParameterError(f"{self.name}={value!r} is out of range; allowed: {self.allowed()}")
        if self.check is not None:
            self.check(value, param=self.name)
        return value


def _is_numpy_int(v: Any) -> bool:
    return type(v).__module__ == "numpy" and hasattr(v, "dtype") and v.dtype.kind in "iu"


def _is_numpy_number(v: Any) -> bool:
    return type(v).__module__ == "numpy" and hasattr(v, "dtype") and v.dtype.kind in "iuf"


def check_int(name: str, value: Any, minimum: int | None = None, maximum: int | None = None) -> int:
    """``value`` as an int (bools refused) within ``[minimum, maximum]``."""
    return Param(name, None, "", int, minimum=minimum, maximum=maximum).validate(value)


def check_float(
    name: str,
    value: Any,
    minimum: float | None = None,
    maximum: float | None = None,
    open_min: bool = False,
    open_max: bool = False,
) -> float:
    """``value`` as a finite float (ints accepted, bools refused) within the given bounds."""
    return Param(
        name, None, "", float, minimum=minimum, maximum=maximum, open_min=open_min, open_max=open_max
    ).validate(value)


def check_fraction(name: str, value: Any, open_min: bool = True, open_max: bool = True) -> float:
    """A float in (0, 1) (the ends included when ``open_min``/``open_max`` are false)."""
    return check_float(name, value, 0.0, 1.0, open_min=open_min, open_max=open_max)


def check_bool(name: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise ParameterError(f"{name}={value!r} is not allowed; allowed: True or False")
    return value


def check_choice(name: str, value: Any, choices: Sequence[Any]) -> Any:
    """``value`` if it is one of ``choices``."""
    return Param(name, None, "", object, choices=tuple(choices)).validate(value)


def check_seed(seed: Any, name: str = "seed") -> int:
    """A seed: an int >= 0."""
    return check_int(name, seed, minimum=0)


def check_seeds(seeds: Any, name: str = "seeds") -> list[int]:
    """A non-empty list of distinct seeds (ints >= 0)."""
    try:
        out = list(seeds)
    except TypeError:
        raise ParameterError(
            f"{name}={seeds!r} is not a list; allowed: a non-empty list of distinct ints >= 0"
        ) from None
    if (
        not out
        or len(set(out)) != len(out)
        or any(isinstance(s, bool) or not (isinstance(s, int) or _is_numpy_int(s)) or s < 0 for s in out)
    ):
        raise ParameterError(f"{name}={out!r} are invalid; allowed: a non-empty list of distinct ints >= 0")
    return [int(s) for s in out]


def check_subset(name: str, values: Any, allowed: Sequence[Any], non_empty: bool = True) -> list[Any]:
    """A list of distinct values, each one of ``allowed``."""
    out = list(values) if not isinstance(values, str) else [values]
    bad = [v for v in out if v not in allowed]
    if bad or (non_empty and not out) or len(set(out)) != len(out):
        raise ParameterError(
            f"{name}={out!r} are invalid; allowed: distinct values from {', '.join(repr(a) for a in allowed)}"
        )
    return out
