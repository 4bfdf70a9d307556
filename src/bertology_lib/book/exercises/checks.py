"""Answer checkers: :func:`checker` registers one per exercise label, :func:`check` runs it, and the
:class:`Feedback` says what is wrong without giving the answer away. Checkers compute the truth
themselves (from the library and the generators), so no answer is typed in."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

from bertology_lib.book.exercises.export import ExerciseError
from bertology_lib.errors import ParameterError


@dataclass(frozen=True)
class Feedback:
    """The verdict on a student's answer: ``ok`` and a message that does not give the answer away."""

    label: str
    ok: bool
    message: str

    def __str__(self) -> str:
        return f"{'✅' if self.ok else '❌'} {self.label}: {self.message}"

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
    """Check ``answer`` to exercise ``label``; print the result for the student."""
    if label not in CHECKERS:
        raise ParameterError(
            f"no checker for exercise {label!r}; exercises with a checker: {', '.join(sorted(CHECKERS))}"
        )
    return CHECKERS[label](answer)


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
    value = as_number(answer)
    return int(value) if value is not None and value.is_integer() else None
