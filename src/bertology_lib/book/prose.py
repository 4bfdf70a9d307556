"""Numbers the book's prose quotes, glued from the run that computed them (myst-nb ``glue``).

A notebook's "What we found" text refers to values as ``{glue:text}`key:.2f``` instead of typing them;
these helpers publish the values (numpy scalars as plain Python numbers, so the book can format them)
and, for claims, the verdict and the estimate with its interval under predictable keys.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from bertology_lib.book.claims import Claim


def _publish(name: str, value: Any) -> None:
    from myst_nb import glue

    glue(name, value, display=False)


def glue_value(name: str, value: Any) -> None:
    """Publish ``value`` under ``name`` (a numpy scalar becomes the Python number it holds)."""
    _publish(name, value.item() if hasattr(value, "item") else value)


def glue_claims(claims: Iterable[Claim], prefix: str) -> list[str]:
    """Publish each claim under ``{prefix}{id after its first dot}``: ``..._v`` the verdict (with
    " — instrument" when an instrument check failed), the key itself
    the estimate, and ``..._lo`` / ``..._hi`` its interval when ``ours`` is ``(estimate, low, high)``.
    Returns the keys published."""
    keys = []
    for claim in claims:
        key = prefix + claim.id.split(".", 1)[-1]
        glue_value(f"{key}_v", claim.verdict + (" — instrument" if claim.instrument_failed else ""))
        ours = claim.ours if isinstance(claim.ours, (list, tuple)) else (claim.ours,)
        for suffix, x in zip(("", "_lo", "_hi"), ours):
            glue_value(key + suffix, x)
            keys.append(key + suffix)
        keys.append(f"{key}_v")
    return keys


def bar_reading(holding: Sequence[str], n_intervals: int, n_models: int, minimum: int = 4) -> str:
    """The sentence that tells the reader whether a verdict hangs on the draw of models it was measured on: of
    ``n_intervals`` intervals around estimates judged against one bar, ``holding`` names those that contain it
    (e.g. "the linear probe's"); with fewer than ``minimum`` models no interval can be drawn."""
    if n_models < minimum:
        return f"With {n_models} models no interval can be drawn (it needs {minimum})"
    two = n_intervals == 2
    if not holding:
        subject = "Neither interval holds" if two else "None of the intervals holds"
        return f"{subject} the bar, so {'neither' if two else 'no'} verdict hangs on this draw of the models"
    if len(holding) == n_intervals:
        subject = "Both intervals hold" if two else f"All {n_intervals} intervals hold"
        return (
            f"{subject} the bar, so another training of the same recipes can move {'either' if two else 'any'} "
            "verdict across it"
        )
    verb = "holds" if len(holding) == 1 else "hold"
    return (
        f"Only {' and '.join(holding)} interval{'s' if len(holding) > 1 else ''} {verb} the bar, so "
        f"{'that verdict' if len(holding) == 1 else 'those verdicts'} could move with another training of the same "
        "recipes"
    )
