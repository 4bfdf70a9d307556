"""Numbers the book's prose quotes, glued from the run that computed them (myst-nb ``glue``).

A notebook's "What we found" text refers to values as ``{glue:text}`key:.2f``` instead of typing them;
these helpers publish the values (numpy scalars as plain Python numbers, so the book can format them)
and, for claims, the verdict and the estimate with its interval under predictable keys.
"""

from __future__ import annotations

from collections.abc import Iterable
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
