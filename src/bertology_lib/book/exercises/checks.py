"""Answer checkers: :func:`checker` registers one per exercise label, :func:`check` runs it, and the
:class:`Feedback` says what is wrong without giving the answer away. Checkers compute the truth
themselves (from the library and the generators), so no answer is typed in.

Also the readers every checker module uses to read a student's answer (or a student's function's output):
:func:`as_number`, :func:`as_whole_number`, :func:`as_share`, :func:`as_positive`, :func:`as_shares`,
:func:`as_pair`, :func:`as_scalar`; each gives None (or a message) for what it cannot read, never an exception."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

from bertology_lib.book.exercises.export import ExerciseError
from bertology_lib.errors import ParameterError


@dataclass(frozen=True, repr=False)
class Feedback:
    """The verdict on a student's answer: ``ok`` and a message that does not give the answer away. It shows as
    its ``✅``/``❌`` line whether printed or left as a cell's last value."""

    label: str
    ok: bool
    message: str
    attempted: bool = True

    def __str__(self) -> str:
        mark = "✅" if self.ok else "❌" if self.attempted else "⏳"
        return f"{mark} {self.label}: {self.message}"

    def __repr__(self) -> str:
        return str(self)

    def __bool__(self) -> bool:
        return self.ok


CHECKERS: dict[str, Callable[[Any], Feedback]] = {}


def checker(label: str) -> Callable[[Callable[[Any], tuple[bool, str]]], Callable[[Any], Feedback]]:
    """Register the decorated function as the checker of exercise ``label``.

    The function takes the answer and returns ``(ok, message)`` (or a
    :class:`Feedback`).
    """

    def register(fn):
        if label in CHECKERS:
            raise ExerciseError(f"a checker for {label!r} is already registered")

        def run(answer):
            res = fn(answer)
            return res if isinstance(res, Feedback) else Feedback(label, bool(res[0]), str(res[1]))

        run.__name__ = fn.__name__
        run.__doc__ = fn.__doc__
        CHECKERS[label] = run
        return run

    return register


def check(label: str, answer: Any) -> Feedback:
    """Check ``answer`` to exercise ``label``; print the result for the student. The placeholder ``...`` of a
    student notebook's exercise cell is not attempted yet (no checker runs, nothing fails loudly)."""
    if label not in CHECKERS:
        raise ParameterError(
            f"no checker for exercise {label!r}; exercises with a checker: {', '.join(sorted(CHECKERS))}"
        )
    if answer is Ellipsis:
        return Feedback(label, False, NOT_ATTEMPTED, attempted=False)
    return CHECKERS[label](answer)


NOT_ATTEMPTED = "not attempted yet: replace the ... in this cell with your answer and run it again."
"""The message of an exercise whose answer is still the student notebook's placeholder."""


def as_number(answer: Any) -> float | None:
    """``answer`` as a finite float, or None (booleans, text, NaN and infinities are not numbers here)."""
    if isinstance(answer, bool):
        return None
    try:
        value = float(answer)
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None


def as_whole_number(answer: Any) -> int | None:
    """``answer`` as an int when it is a whole number (``3`` or ``3.0``), or None."""
    value = as_number(answer)
    return int(value) if value is not None and value.is_integer() else None


def as_share(answer: Any) -> float | None:
    """``answer`` as a number in [0, 1], or None."""
    v = as_number(answer)
    return v if v is not None and 0.0 <= v <= 1.0 else None


def as_positive(answer: Any) -> float | None:
    """``answer`` as a number above 0, or None."""
    v = as_number(answer)
    return v if v is not None and v > 0 else None


def as_shares(answer: Any, keys: tuple[str, ...]) -> tuple[dict[str, float] | None, str]:
    """``answer`` (a dict, or a pandas Series) as shares with exactly ``keys``; else None and what is wrong."""
    if hasattr(answer, "to_dict") and not isinstance(answer, dict):
        answer = answer.to_dict()
    if not isinstance(answer, dict):
        return None, f"expected a dict {{{', '.join(repr(k) for k in keys)}: accuracy}}, got {type(answer).__name__}."
    if set(answer) != set(keys):
        return None, (
            f"expected the keys {', '.join(repr(k) for k in keys)}; got {', '.join(repr(k) for k in answer) or 'none'}."
        )
    values = {k: as_share(answer[k]) for k in keys}
    bad = [k for k, v in values.items() if v is None]
    if bad:
        return None, f"every value must be an accuracy between 0 and 1; not so for {', '.join(map(repr, bad))}."
    return values, ""


def as_pair(answer: Any) -> tuple[float, float] | None:
    """``answer`` as two finite numbers (a tuple, list or array of length 2), or None."""
    try:
        items = list(answer)
    except TypeError:
        return None
    if len(items) != 2:
        return None
    a, b = as_number(items[0]), as_number(items[1])
    return None if a is None or b is None else (a, b)


def as_scalar(out: Any) -> float | None:
    """``float(out)`` when it is finite (a 0-d tensor, a numpy scalar; a bool counts as 0 or 1), or None: what a
    student's function returns where a number is expected."""
    try:
        return as_number(float(out))
    except (TypeError, ValueError, RuntimeError):
        return None
