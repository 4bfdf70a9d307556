"""Shared pieces of the exercise checkers: run a student's function on hidden cases, compare numbers,
build models without moving the notebook's random state. Used by the checker modules of every book part."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from bertology_lib.book.exercises.checks import as_number


def run_cases(answer: Any, name: str, cases: Sequence[tuple], show: Callable[[tuple], str] | None = None
         ) -> tuple[list | None, str | None]:
    """``answer(*case)`` for every case: ``(outputs, None)``, or ``(None, message)`` when ``answer`` is not a
    function or raises (the student's error is reported, never raised)."""
    if not callable(answer):
        return None, (f"expected the function {name} itself (pass `{name}`, not `{name}(...)`), "
                      f"got {type(answer).__name__}.")
    out = []
    for case in cases:
        try:
            out.append(answer(*case))
        except Exception as e:  # noqa: BLE001 - a student's bug becomes feedback
            where = show(case) if show else f"{name}{case!r}"
            return None, f"{where} raised {type(e).__name__}: {e}"
    return out, None


def call(fn: Any, *args) -> tuple[Any, str]:
    """``(fn(*args), "")``, or ``(None, a message)`` when ``fn`` is not callable or raises (the form of the
    §2-§4 checkers, which try one hidden case at a time)."""
    if not callable(fn):
        return None, f"expected a function, got {type(fn).__name__}: pass the function itself, not its result."
    try:
        return fn(*args), ""
    except Exception as e:  # noqa: BLE001 (the student's code: report any error, do not crash the check)
        return None, f"your function raised {type(e).__name__}: {e}"


def call_all(fn: Callable, cases: Sequence[tuple]) -> tuple[list[Any] | None, str]:
    """Call ``fn(*case)`` on every case: (outputs, "") or (None, a message naming the first exception); the
    physics checkers' form (they check that ``fn`` is callable first, with their own message)."""
    out = []
    for case in cases:
        try:
            out.append(fn(*case))
        except Exception as e:  # noqa: BLE001  (the student's code: report it, never crash the checker)
            return None, f"your function raised {type(e).__name__}: {e}"
    return out, ""


def near(value: float | None, target: float, tol: float) -> bool:
    """``value`` (not None) within ``tol`` of ``target``."""
    return value is not None and abs(value - target) <= tol


def close(value: float, target: float, rel: float = 0.0, abs_tol: float = 0.0) -> bool:
    """``value`` within ``abs_tol`` or ``rel`` x ``|target|`` of ``target`` (NaN never matches)."""
    return abs(value - target) <= max(abs_tol, rel * abs(target))


def close_all(values: Sequence[float], targets: Sequence[float], tol: float) -> bool:
    """Every value within ``tol`` of its target (and as many values as targets)."""
    return len(values) == len(targets) and all(abs(v - t) <= tol for v, t in zip(values, targets))


def numbers(x: Any, n: int | None = None) -> list[float] | None:
    """``x`` as a list of finite floats (``n`` of them when given), or None."""
    if isinstance(x, (str, bytes, dict)) or not hasattr(x, "__iter__"):
        return None
    vals = [as_number(v) for v in x]
    if any(v is None for v in vals) or (n is not None and len(vals) != n):
        return None
    return vals  # type: ignore[return-value]


def quiet_build(make: Callable[[], Any]) -> Any:
    """``make()`` without touching the global torch random state (model inits draw from it)."""
    import torch

    with torch.random.fork_rng(devices=[]):
        return make()
