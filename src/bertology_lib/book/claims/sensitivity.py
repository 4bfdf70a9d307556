"""How a gated verdict depends on where its instrument's bar sits: a sensitivity line, not a second verdict.

A claim whose instrument check is a bar (the physics models' memorisation, ``memorised >= 0.95``) can hang on a
model just under or just over it. :func:`bar_sensitivity` says what the verdict would be at other bars (by
default 0.93 and 0.97) from the same recorded claim: the registered rule's verdict where the check's value clears
the bar, *inconclusive — instrument* where it does not. The registered bar stays the one that decides; the line
only shows how close to the edge the verdict stands. Imported by the notebooks that print it, not by the ledger.
"""

from __future__ import annotations

from typing import Sequence

from bertology_lib.book.claims.record import Claim
from bertology_lib.book.claims.registry import spec as registered
from bertology_lib.errors import ParameterError

BARS = (0.93, 0.97)


def bar_sensitivity(claim: Claim, check: str, bars: Sequence[float] = BARS) -> dict[float, str]:
    """``{bar: verdict}``: the claim's verdict if its instrument check ``check`` needed ``value >= bar``."""
    found = [x for x in claim.checks if x.get("name") == check]
    if not found:
        names = sorted(x.get("name") for x in claim.checks)
        raise ParameterError(f"claim {claim.id!r} has no instrument check {check!r}; allowed: {names}")
    value = float(found[0]["value"])
    measured = claim.verdict  # the rule's own verdict when the instrument passed
    if claim.instrument_failed:  # what the rule says of the value the failed instrument held back
        values = claim.ours if isinstance(claim.ours, (list, tuple)) else [claim.ours]
        if any(v is None or v != v for v in values):  # not measured (None or NaN): inconclusive whatever the bar
            measured = "inconclusive"
        else:
            measured = registered(claim.id).rule.verdict(claim.paper, claim.ours).value
    return {float(b): (measured if value >= b else "inconclusive — instrument") for b in bars}


def sensitivity_line(claim: Claim, check: str = "memorised", bars: Sequence[float] = BARS) -> str:
    """One printed line: the check's value and the verdict at each of ``bars`` (see :func:`bar_sensitivity`)."""
    by_bar = bar_sensitivity(claim, check, bars)
    value = next(float(x["value"]) for x in claim.checks if x.get("name") == check)
    shown = ", ".join(f"at {b:g}: {v}" for b, v in by_bar.items())
    return f"{claim.id}: {check} {value:.4f}; the verdict if the bar were elsewhere (not a second verdict): {shown}"
