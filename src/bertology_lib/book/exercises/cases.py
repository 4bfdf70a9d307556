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
