"""Shared pieces of the exercise checkers: the common skeleton of a checker, run a student's function on hidden cases,
compare numbers, build models without moving the notebook's random state.

Most checkers follow one skeleton: read the answer (a number, a whole number, a pair, or the outputs of a function
run on hidden cases), compute the truth, accept an answer within a tolerance of it, else name the first typical
mistake the answer matches (each with its hint), else say "not yet" with a hint. :func:`judge_value` is that
skeleton for an answer that is a value (its mistakes: :class:`Mistake`), :func:`judge_function` for an answer that
is a function (its mistakes: a table per hidden case), :func:`judge_each_case` for a function judged one hidden case
at a time; :func:`within` is the usual tolerance. A checker that is genuinely different writes its own steps with
the pieces below. Used by the checker modules of every notebook.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bertology_lib.book.exercises.checks import as_number, as_scalar

Match = Callable[[Any, Any], bool]
"""Whether an answer (or an output) counts as a target: ``match(value, target)``."""


def within(tol: float = 0.0, rel: float = 0.0) -> Match:
    """The match of a numeric answer: within ``tol``, or ``rel`` x ``|target|``, of the target; a sequence of
    numbers element by element (as many values as targets)."""

    def match(value: Any, target: Any) -> bool:
        if isinstance(target, (tuple, list)):
            return len(value) == len(target) and all(match(v, t) for v, t in zip(value, target))
        return abs(value - target) <= max(tol, rel * abs(target))

    return match


@dataclass(frozen=True)
class Mistake:
    """A typical wrong answer to a value exercise and the hint it earns (:func:`judge_value`): ``wrong(truth)`` is
    that answer, computed only when the answer is not right; ``match`` compares with it where the mistake needs
    another tolerance than the truth."""

    hint: str
    wrong: Callable[[Any], Any]
    match: Match | None = None


def judge_value(
    answer: Any,
    *,
    read: Callable[[Any], Any],
    refuse: str,
    truth: Callable[[], Any],
    ok: str,
    not_yet: str | Callable[[Any, Any], str],
    match: Match = operator.eq,
    mistakes: Sequence[Mistake] = (),
    screen: Callable[[Any], str | None] | None = None,
) -> tuple[bool, str]:
    """The checker skeleton for an answer that is a value; returns ``(ok, message)``.

    ``read(answer)`` gives the value (None: the answer is refused with ``refuse``, formatted with ``answer``);
    ``screen(value)`` may refuse it with a message before the truth is computed; a value that ``match``es
    ``truth()`` gets ``ok``; else the hint of the first of ``mistakes`` whose wrong answer it matches; else
    ``not_yet``, a message or a function of the value and the truth.
    """
    value = read(answer)
    if value is None:
        return False, refuse.format(answer=answer)
    if screen is not None and (message := screen(value)):
        return False, message
    target = truth()
    if match(value, target):
        return True, ok
    for m in mistakes:
        if (m.match or match)(value, m.wrong(target)):
            return False, m.hint
    return False, not_yet if isinstance(not_yet, str) else not_yet(value, target)


def judge_function(
    answer: Any,
    name: str,
    cases: Sequence[tuple],
    *,
    read: Callable[[Any], Any],
    refuse: str,
    truth: Callable[..., Any],
    ok: str,
    not_yet: str | Callable[[int, list, list], str],
    match: Match = operator.eq,
    mistakes: Callable[..., Mapping[str, Any]] | None = None,
    hints: Mapping[str, str] | None = None,
    show: Callable[[tuple], str] | None = None,
    inputs: Callable[[tuple], tuple] | None = None,
    screen: Callable[[list], str | None] | None = None,
    truth_first: bool = False,
) -> tuple[bool, str]:
    """The checker skeleton for an answer that is a function, run on every hidden case; returns ``(ok, message)``.

    ``answer(*case)`` runs on every case (:func:`run_cases`, whose message refuses a value or a function that
    raises; ``show`` names a case there), or ``answer(*inputs(case))`` (copies, say, that the answer cannot
    change, or fewer arguments than the truth needs); ``read`` reads every output (one it cannot read refuses the answer
    with ``refuse``, formatted with ``first``, the first output, ``kind``, its type's name, and ``bad``, the
    first output not read); ``screen(values)`` may refuse them with a message; outputs that ``match``
    ``truth(*case)`` on every case get ``ok``; else the hint of the first key of ``hints`` whose wrong output
    (``mistakes(*case)[key]``, the table of typical mistakes on a case, computed once) matches on every case;
    else ``not_yet``, a message or a function of the first case off, the values and the truths.
    ``truth_first`` computes the truths and the mistakes before the answer runs (for cases the answer could
    change, such as models).
    """
    truths = rows = None
    if truth_first:
        truths = [truth(*c) for c in cases]
        rows = [mistakes(*c) for c in cases] if mistakes is not None else []
    got, err = run_cases(answer, name, [inputs(c) for c in cases] if inputs else cases, show)
    if err:
        return False, err
    values = [read(g) for g in got]
    if any(v is None for v in values):
        bad = next(g for g, v in zip(got, values) if v is None)
        return False, refuse.format(first=got[0], kind=type(got[0]).__name__, bad=bad)
    if screen is not None and (message := screen(values)):
        return False, message
    if truths is None:
        truths = [truth(*c) for c in cases]
    if all(match(v, t) for v, t in zip(values, truths)):
        return True, ok
    if mistakes is not None:
        if rows is None:
            rows = [mistakes(*c) for c in cases]
        for key, hint in (hints or {}).items():
            if all(match(v, row[key]) for v, row in zip(values, rows)):
                return False, hint
    if isinstance(not_yet, str):
        return False, not_yet
    i = next(i for i, (v, t) in enumerate(zip(values, truths)) if not match(v, t))
    return False, not_yet(i, values, truths)


def judge_each_case(
    answer: Any,
    cases: Sequence[Any],
    *,
    inputs: Callable[[Any], tuple],
    truth: Callable[..., float],
    mistakes: Mapping[str, Callable[..., float]],
    ok: str,
    not_yet: str,
    tol: float = 1e-6,
) -> tuple[bool, str]:
    """The checker skeleton of the §4 exercises whose answer is a function returning a number, judged one hidden
    case at a time; returns ``(ok, message)``.

    For each case in turn ``answer(*inputs(case))`` runs (:func:`call`, whose message refuses a value or a
    function that raises) and its output must be a number (:func:`as_scalar`); one within ``tol`` of
    ``truth(*case)`` moves on to the next case, else the first hint of ``mistakes`` (hint -> the wrong function)
    whose output on this case it matches, else ``not_yet``; an answer right on every case gets ``ok``.
    """
    for case in cases:
        out, err = call(answer, *inputs(case))
        if err:
            return False, err
        v = as_scalar(out)
        if v is None:
            return False, f"expected your function to return a number, got {type(out).__name__}."
        if abs(v - truth(*case)) <= tol:
            continue
        for hint, wrong in mistakes.items():
            if abs(v - wrong(*case)) <= tol:
                return False, hint
        return False, not_yet
    return True, ok


def run_cases(
    answer: Any, name: str, cases: Sequence[tuple], show: Callable[[tuple], str] | None = None
) -> tuple[list | None, str | None]:
    """``answer(*case)`` for every case: ``(outputs, None)``, or ``(None, message)`` when ``answer`` is not a
    function or raises (the student's error is reported, never raised)."""
    if not callable(answer):
        return None, (
            f"expected the function {name} itself (pass `{name}`, not `{name}(...)`), got {type(answer).__name__}."
        )
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
