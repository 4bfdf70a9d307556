"""Power first: what each comparison's design can detect, before it runs again.

A registered rule that reads an interval against a bar can only decide when the interval is narrower than the
distance from the estimate to the bar. Whether it *can* see the paper's effect is a property of the design (the
seeds and test items it uses), not of the outcome, so it should be known before compute is spent. This module
computes, for every comparison of the book whose rule reads an interval (whatever its verdict: the plan must not
depend on the outcome), the planning numbers of its next run at the design it last ran at:

* its **minimal detectable effect** (MDE): how far beyond the rule's bar a true value must lie for an interval of
  this width to clear the bar four times in five at the 95% level, ``(1.96 + 0.84) / 1.96`` times the interval's
  half on the side that must clear the bar. The planning spread is the recorded run's (the usual pilot-based
  planning: same design, same spread); ``scale`` (``bertology power --scale``) gives the MDE of a run with that
  many times the seeds and items together (an interval's half-width shrinks as one over the square root of the
  sample);
* the paper's margin beyond the bar, when the paper gives a number on the rule's scale
  (:func:`bertology_lib.book.conclusions.paper_margin`);
* the **decision** (:data:`DECISIONS`): ``powered`` (MDE within the paper's margin: run as designed),
  ``more data`` (80% power at the paper's effect needs ``k`` times the seeds and items, ``k`` at most
  :data:`AFFORDABLE`: give it them), ``underpowered`` (it needs more: at this profile an inconclusive result
  is underpowered, not evidence against the paper, and the compute is better not spent on it; the ``full``
  profile or a GPU is where it can be decided; an interval that clears its bar still counts), ``untestable as stated`` (the paper's own value lies on or short
  of the bar: no sample can show it clears it), ``no paper number`` (the MDE is stated alone).

A *bound* claim (the paper states "at most one point lost", and the rule's bar is that bound) is sized at no
effect (:func:`bertology_lib.book.conclusions.no_effect_bound`), as a non-inferiority comparison is planned.
Imported by the CLI and the book's closing chapter only, so no notebook's stamp depends on it.
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from bertology_lib.book.claims.record import Claim
from bertology_lib.book.claims.rules import BeatsBaseline, Equivalent, IntervalAbove, IntervalWithin, fmt
from bertology_lib.book.conclusions import Z80, Z95, interval, needed_scale, paper_margin, short, times_text
from bertology_lib.errors import ParameterError

DECISIONS = ("powered", "more data", "underpowered", "untestable as stated", "no paper number")
DECISION_TEXT = {
    "powered": "can see the paper's effect as designed",
    "more data": "at most AFFORDABLE its seeds and items to see the paper's effect",
    "underpowered": "more than AFFORDABLE its seeds and items to see the paper's effect",
    "untestable as stated": "the paper's own value lies on the bar: no sample can show it clears it",
    "no paper number": "the paper gives no number on the rule's scale: the MDE is stated alone",
}
AFFORDABLE = 2.0  # times the seeds and items a rerun at the same profile can pay (the quick budgets have little slack)
DESIGN_KEYS = ("seeds", "trainings", "test examples", "test sentences", "items", "held-out sentences", "people")


@dataclass(frozen=True)
class Plan:
    """The planning numbers of one comparison (see the module docstring)."""

    id: str
    notebook: str
    statement: str
    verdict: str
    design: str  # the seeds and items it ran at, from the claim's scale
    mde: float  # at ``scale`` times the recorded design
    margin: float | None  # the paper's effect beyond the bar
    needed: float | None  # times the data 80% power at the paper's effect needs (from the scaled design)
    decision: str
    unit: str = ""


def _ruled(rule: Any) -> bool:
    return isinstance(rule, (IntervalAbove, BeatsBaseline, Equivalent, IntervalWithin))


def planning_half(c: Claim, rule: Any) -> float | None:
    """The half of ``c``'s interval on the side that must clear ``rule``'s bar for *reproduced*: the lower half
    for a bar the interval must lie above (:class:`IntervalAbove`, :class:`BeatsBaseline`), the larger half for
    a band it must lie within (:class:`Equivalent`, :class:`IntervalWithin`: either side may be the one that
    fails). None when ``c.ours`` is no interval or the rule reads none."""
    iv = interval(c.ours)
    if iv is None or not _ruled(rule):
        return None
    est, low, high = iv
    if isinstance(rule, (IntervalAbove, BeatsBaseline)):
        return max(0.0, est - low)
    return max(0.0, est - low, high - est)


def design_text(scale: Mapping[str, Any]) -> str:
    """The seeds and items of a claim's scale, as ``seeds 5 × test examples 300`` (what its interval resamples)."""
    parts = [f"{k} {scale[k]}" for k in DESIGN_KEYS if k in scale]
    return " × ".join(parts) if parts else "—"


def decide(mde: float, margin: float | None, affordable: float = AFFORDABLE) -> tuple[str, float | None]:
    """``(decision, needed)`` for a comparison whose MDE is ``mde`` and the paper's margin beyond the bar
    ``margin`` (None: no paper number); ``needed`` is how many times the data 80% power at the paper's effect
    needs, ``(mde / margin) ** 2`` at least 1 (None when it cannot be sized)."""
    if margin is None:
        return "no paper number", None
    if margin <= 0:
        return "untestable as stated", None
    needed = needed_scale(mde, margin)
    if mde <= margin:
        return "powered", needed
    return ("more data" if needed <= affordable else "underpowered"), needed


def plan(
    claims: Sequence[Claim], rules: Mapping[str, Any], scale: float = 1.0, affordable: float = AFFORDABLE
) -> list[Plan]:
    """The power plan of every comparison among ``claims`` whose registered rule (``rules``: claim id -> rule)
    reads an interval and whose record holds one, at ``scale`` times the recorded seeds and items (a planned
    rerun's design); setup checks are left out."""
    for name, x in (("scale", scale), ("affordable", affordable)):
        if not isinstance(x, (int, float)) or isinstance(x, bool) or not math.isfinite(x) or x <= 0:
            raise ParameterError(f"{name}={x!r} is invalid; allowed: a number > 0 (times the seeds and items)")
    out = []
    for c in claims:
        if c.kind == "setup":
            continue
        rule = rules.get(c.id)
        half = planning_half(c, rule)
        if half is None:
            continue
        m = (Z95 + Z80) / Z95 * half / math.sqrt(scale)
        d = paper_margin(c, rule)
        decision, needed = decide(m, d, affordable)
        out.append(Plan(c.id, c.notebook, c.statement, c.verdict, design_text(c.scale), m, d, needed, decision, c.unit))
    return out


def counts(plans: Sequence[Plan]) -> dict[str, int]:
    return {d: sum(p.decision == d for p in plans) for d in DECISIONS}


def _needed_text(p: Plan) -> str:
    return "—" if p.needed is None else times_text(p.needed)


def plan_frame(plans: Sequence[Plan]):
    """The plan as a table (one row a comparison), for ``bertology power``."""
    import pandas as pd

    return pd.DataFrame(
        [
            {
                "claim": p.id,
                "verdict": p.verdict,
                "design": p.design,
                "MDE": fmt(p.mde),
                "paper margin": "—" if p.margin is None else fmt(p.margin),
                "needs": _needed_text(p),
                "decision": p.decision,
            }
            for p in plans
        ]
    )


def plan_markdown(
    plans: Sequence[Plan], titles: Mapping[str, str] | None = None, affordable: float = AFFORDABLE
) -> list[str]:
    """Markdown lines for the closing chapter: the counts by decision, then every comparison that cannot see the
    paper's effect as designed, one row each, grouped by decision (``powered`` and ``no paper number`` rows are
    counted, not listed)."""
    titles = titles or {}
    k = counts(plans)
    lines = [
        "## Power first: what each comparison can detect",
        "",
        f"{len(plans)} comparisons read an interval; planned at the design each ran at, whatever its verdict: "
        + ", ".join(f"**{k[d]}** {d}" for d in DECISIONS if k[d])
        + ". An underpowered inconclusive result is not evidence against the paper (`bertology power` prints the "
        "plan; `--scale` plans a larger run).",
        "",
    ]
    for d in ("more data", "underpowered", "untestable as stated"):
        rows = [p for p in plans if p.decision == d]
        if not rows:
            continue
        text = html.escape(DECISION_TEXT[d].replace("AFFORDABLE", times_text(affordable)))
        lines += [
            f"<details><summary><b>{d}</b> ({len(rows)}): {text}</summary>",
            "",
            "| claim | notebook | design | MDE | paper's margin | needs |",
            "| --- | --- | --- | --- | --- | --- |",
        ]
        for p in sorted(rows, key=lambda p: (-(p.needed or 0), p.id)):
            nb = f'<a href="../notebooks/{p.notebook}.html">{titles.get(p.notebook, p.notebook)}</a>'
            margin = (
                "on or short of the bar"
                if p.margin is not None and p.margin <= 0
                else ("—" if p.margin is None else fmt(p.margin))
            )
            lines.append(
                f"| `{p.id}`: {short(p.statement, 80)} | {nb} | {p.design} | {fmt(p.mde)} | {margin} | "
                f"{_needed_text(p)} |"
            )
        lines += ["", "</details>", ""]
    return lines
