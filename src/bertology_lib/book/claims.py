"""The claims ledger.

A notebook records each claim it tests with :func:`record_claim`: an id, the
claim, its source (paper, section/figure/table), the paper's figure, ours, a
:class:`Rule` that turns them into a verdict, and the verdict the rule gives.
Nothing is typed by hand: the verdict is always ``rule.verdict(...)``.

The executed notebooks are the record. ``record_claim`` displays a short
text/markdown line (what nbval compares, rounded) and stores the full claim in
the output's metadata under ``bertology_claim``; :func:`collect` reads them
back from the notebooks, for the book's "Claims ledger" page and
``bertology claims``.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import asdict, dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any, Iterable, Sequence

METADATA_KEY = "bertology_claim"


class Verdict(str, Enum):
    REPRODUCED = "reproduced"
    NOT_REPRODUCED = "not reproduced"
    INCONCLUSIVE = "inconclusive"


def fmt(v: Any) -> str:
    """Deterministic, rounded rendering of a number (3 significant digits)."""
    if isinstance(v, bool) or v is None:
        return str(v)
    if isinstance(v, int) and abs(v) < 10_000:
        return str(v)
    if isinstance(v, (int, float)):
        if not math.isfinite(v):
            return str(v)
        a = abs(v)
        for div, suffix in ((1e9, "B"), (1e6, "M"), (1e3, "k")):
            if a >= div:
                return f"{v / div:.3g}{suffix}"
        return f"{v:.3g}"
    if isinstance(v, (tuple, list)):
        return "(" + ", ".join(fmt(x) for x in v) + ")"
    return str(v)


def with_unit(v: Any, unit: str) -> str:
    """``fmt(v)`` followed by the unit when ``v`` is a number (not for textual paper findings)."""
    numeric = isinstance(v, (int, float)) and not isinstance(v, bool) or isinstance(v, (list, tuple))
    return fmt(v) + (f" {unit}" if unit and numeric else "")


# -- rules ---------------------------------------------------------------------
@dataclass(frozen=True)
class Rule:
    """Base class: a stated rule that turns (paper, ours) into a verdict."""

    def describe(self) -> str:  # pragma: no cover - abstract
        raise NotImplementedError

    def verdict(self, paper: Any, ours: Any) -> Verdict:  # pragma: no cover - abstract
        raise NotImplementedError


@dataclass(frozen=True)
class WithinRelative(Rule):
    """Reproduced when ``|ours - paper| <= tol * |paper|``."""

    tol: float

    def describe(self) -> str:
        return f"|ours - paper| <= {self.tol:.0%} of paper"

    def verdict(self, paper: float, ours: float) -> Verdict:
        ok = abs(float(ours) - float(paper)) <= self.tol * abs(float(paper))
        return Verdict.REPRODUCED if ok else Verdict.NOT_REPRODUCED


@dataclass(frozen=True)
class AtLeast(Rule):
    """Reproduced when ``ours >= threshold`` (the paper's number is context)."""

    threshold: float

    def describe(self) -> str:
        return f"ours >= {fmt(self.threshold)}"

    def verdict(self, paper: Any, ours: float) -> Verdict:
        return Verdict.REPRODUCED if float(ours) >= self.threshold else Verdict.NOT_REPRODUCED


@dataclass(frozen=True)
class AtMost(Rule):
    """Reproduced when ``ours <= threshold``."""

    threshold: float

    def describe(self) -> str:
        return f"ours <= {fmt(self.threshold)}"

    def verdict(self, paper: Any, ours: float) -> Verdict:
        return Verdict.REPRODUCED if float(ours) <= self.threshold else Verdict.NOT_REPRODUCED


@dataclass(frozen=True)
class IntervalAbove(Rule):
    """For noisy effects: ``ours = (estimate, low, high)`` (e.g. a 95% interval).

    Reproduced when ``low > threshold``; not reproduced when ``high <
    threshold``; inconclusive when the interval straddles it.
    """

    threshold: float = 0.0

    def describe(self) -> str:
        return (
            f"interval low > {fmt(self.threshold)}: reproduced; high < {fmt(self.threshold)}: "
            "not reproduced; else inconclusive"
        )

    def verdict(self, paper: Any, ours: Sequence[float]) -> Verdict:
        _, low, high = (float(x) for x in ours)
        if low > self.threshold:
            return Verdict.REPRODUCED
        if high < self.threshold:
            return Verdict.NOT_REPRODUCED
        return Verdict.INCONCLUSIVE


@dataclass(frozen=True)
class IntervalContains(Rule):
    """For claims of *no* effect: ``ours = (estimate, low, high)``.

    Reproduced when the interval contains ``value`` (no detectable effect);
    not reproduced when it excludes it.
    """

    value: float = 0.0

    def describe(self) -> str:
        return f"interval contains {fmt(self.value)}: reproduced (no detectable effect); else not reproduced"

    def verdict(self, paper: Any, ours: Sequence[float]) -> Verdict:
        _, low, high = (float(x) for x in ours)
        return Verdict.REPRODUCED if low <= self.value <= high else Verdict.NOT_REPRODUCED


# -- claims --------------------------------------------------------------------
@dataclass(frozen=True)
class Claim:
    id: str
    statement: str
    source: str  # paper, section / figure / table
    paper: Any  # the paper's figure (number or short text)
    ours: Any
    rule: str
    verdict: str
    unit: str = ""
    notebook: str = ""
    profile: str = ""
    model: str = ""
    seed: int | None = None
    details: dict = field(default_factory=dict)

    def line(self) -> str:
        """One deterministic line (what nbval compares)."""
        return (
            f"[{self.verdict.upper()}] {self.id}: paper {with_unit(self.paper, self.unit)}, "
            f"ours {with_unit(self.ours, self.unit)} (rule: {self.rule}; {self.source})"
        )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def anchor(self) -> str:
        """The HTML id of the claim's output in its notebook page (what the ledger links to)."""
        return "claim-" + re.sub(r"[^A-Za-z0-9._-]", "-", self.id)

    def _repr_markdown_(self) -> str:
        icon = {"reproduced": "✅", "not reproduced": "❌", "inconclusive": "❔"}[self.verdict]
        return (
            f'<span id="{self.anchor}"></span>'
            f"**{icon} {self.verdict}** — *{self.statement}* ({self.source}). "
            f"Paper: {with_unit(self.paper, self.unit)}; ours: {with_unit(self.ours, self.unit)}. "
            f"Rule: {self.rule}. `{self.id}`"
        )


def make_claim(
    id: str,
    statement: str,
    source: str,
    paper: Any,
    ours: Any,
    rule: Rule,
    unit: str = "",
    params: Any = None,
    details: dict | None = None,
) -> Claim:
    """Build a :class:`Claim` whose verdict is computed by ``rule``.

    A measurement that could not be made (``ours`` is or contains NaN / None) is inconclusive whatever
    the rule, and is stored as ``null``.
    """
    ours_j = _plain(ours)
    unmeasured = ours_j is None or (isinstance(ours_j, list) and any(x is None for x in ours_j))
    return Claim(
        id=id,
        statement=statement,
        source=source,
        paper=_plain(paper),
        ours=ours_j,
        rule=rule.describe(),
        verdict=(Verdict.INCONCLUSIVE if unmeasured else rule.verdict(paper, ours)).value,
        unit=unit,
        notebook=getattr(params, "notebook", ""),
        profile=str(getattr(params, "profile", "") or ""),
        model=str(getattr(params, "values", {}).get("model", "")) if params is not None else "",
        seed=getattr(params, "seed", None),
        details=_plain(details or {}),
    )


def _plain(v: Any) -> Any:
    """Numpy/torch scalars and tuples -> JSON-friendly Python values (NaN and infinities -> None)."""
    if hasattr(v, "item") and callable(v.item) and getattr(v, "ndim", 0) == 0:
        v = v.item()
    if isinstance(v, float) and not math.isfinite(v):
        return None
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if isinstance(v, dict):
        return {str(k): _plain(x) for k, x in v.items()}
    return v


def record_claim(*args: Any, **kwargs: Any) -> Claim:
    """Make a claim (see :func:`make_claim`) and display it into the notebook's record."""
    claim = make_claim(*args, **kwargs)
    try:
        from IPython.display import display

        display(
            {"text/plain": claim.line(), "text/markdown": claim._repr_markdown_()},
            raw=True,
            metadata={METADATA_KEY: claim.to_dict()},
        )
    except ImportError:  # pragma: no cover - IPython ships with ipykernel
        print(claim.line())
    return claim


# -- reading the ledger back ----------------------------------------------------
def claims_in_notebook(path: str | Path) -> list[Claim]:
    """Every claim recorded in an executed notebook's outputs, in order."""
    nb = json.loads(Path(path).read_text())
    out: list[Claim] = []
    for cell in nb.get("cells", []):
        for o in cell.get("outputs", []) or []:
            meta = (o.get("metadata") or {}).get(METADATA_KEY)
            if meta:
                d = dict(meta)
                d.setdefault("details", {})
                d["details"] = {**d["details"], "cell_id": cell.get("id", "")}
                claim = Claim(**d)
                shown = "".join((o.get("data") or {}).get("text/markdown", ""))
                if f'id="{claim.anchor}"' in shown:  # outputs recorded before anchors existed lack it
                    claim.details["anchor"] = claim.anchor
                out.append(claim)
    return out


def collect(paths: Iterable[str | Path]) -> list[Claim]:
    """Claims from several notebooks, in the order given."""
    claims: list[Claim] = []
    for p in paths:
        claims.extend(claims_in_notebook(p))
    return claims


def ledger_frame(claims: Sequence[Claim]):
    """The ledger as a pandas DataFrame (one row a claim)."""
    import pandas as pd

    rows = [
        {
            "id": c.id,
            "verdict": c.verdict,
            "claim": c.statement,
            "source": c.source,
            "paper": with_unit(c.paper, c.unit),
            "ours": with_unit(c.ours, c.unit),
            "rule": c.rule,
            "notebook": c.notebook,
            "profile": c.profile,
            "model": c.model,
        }
        for c in claims
    ]
    return pd.DataFrame(rows, columns=["id", "verdict", "claim", "source", "paper", "ours",
                                       "rule", "notebook", "profile", "model"])


def summary(claims: Sequence[Claim]) -> dict[str, int]:
    counts = {v.value: 0 for v in Verdict}
    for c in claims:
        counts[c.verdict] = counts.get(c.verdict, 0) + 1
    return counts


PART_TITLES = {"survey": "Survey — A Primer in BERTology", "physics": "Physics of language models",
               "duplication": "Layer duplication"}
_ICON = {"reproduced": "✅", "not reproduced": "❌", "inconclusive": "❔"}


def _by_part(claims: Sequence[Claim], parts: dict[str, str]) -> dict[str, list[Claim]]:
    out: dict[str, list[Claim]] = {}
    for c in claims:
        out.setdefault(parts.get(c.notebook, "other"), []).append(c)
    return out


def _counts_line(claims: Sequence[Claim]) -> str:
    return ", ".join(f"{n} {v}" for v, n in summary(claims).items())


def _notebook_link(c: Claim, titles: dict[str, str]) -> str:
    """A link to the cell that computed ``c`` when its output carries the anchor, else to the page."""
    nb = c.notebook
    if not nb:
        return ""
    title = titles.get(nb, nb)
    anchor = (c.details or {}).get("anchor")
    if anchor:  # raw HTML: Sphinx does not know output ids as targets; the browser test checks them
        return f'<a href="../notebooks/{nb}.html#{anchor}">{title}</a>'
    return f"[{title}](../notebooks/{nb}.ipynb)"


def ledger_markdown(claims: Sequence[Claim], notebook_titles: dict[str, str] | None = None,
                    parts: dict[str, str] | None = None) -> str:
    """The "Claims ledger" book page, generated from the executed notebooks.

    ``parts`` maps a notebook name to its part (survey, physics, duplication);
    claims are grouped by part with summary counts.
    """
    titles = notebook_titles or {}
    lines = [
        "# Claims ledger",
        "",
        "Every claim the book tests, read back from the executed notebooks when the book",
        "was built. The verdict is computed in the notebook by the stated rule; nothing",
        "here is typed by hand. Regenerated by `bertology build` (or `bertology claims",
        "--markdown`). ✅ reproduced · ❌ not reproduced · ❔ inconclusive.",
        "",
        f"**{len(claims)} claims**: {_counts_line(claims)}.",
        "",
    ]
    if not claims:
        lines.append("No executed notebook has recorded a claim yet.")
        return "\n".join(lines) + "\n"
    for part, items in _by_part(claims, parts or {}).items():
        lines += [f"## {PART_TITLES.get(part, part.title())}", "",
                  f"{len(items)} claims: {_counts_line(items)}.", "",
                  "| verdict | claim | source | paper | ours | rule | notebook (profile, model) |",
                  "| --- | --- | --- | --- | --- | --- | --- |"]
        for c in items:
            nb = c.notebook
            link = _notebook_link(c, titles)
            cells = [
                f"{_ICON.get(c.verdict, '')} {c.verdict}",
                f"{c.statement} (`{c.id}`)",
                c.source,
                with_unit(c.paper, c.unit),
                with_unit(c.ours, c.unit),
                c.rule,
                f"{link} ({c.profile}, {c.model})",
            ]
            lines.append("| " + " | ".join(x.replace("|", "\\|") for x in cells) + " |")
        lines.append("")
    return "\n".join(lines) + "\n"


def findings_markdown(claims: Sequence[Claim], notebook_titles: dict[str, str] | None = None,
                      parts: dict[str, str] | None = None) -> str:
    """The closing chapter "What reproduced and what did not", written from the ledger.

    Every sentence is assembled from recorded claims: statement, source,
    our number and the rule; nothing is typed by hand.
    """
    titles = notebook_titles or {}
    lines = [
        "# What reproduced and what did not",
        "",
        "This chapter is generated from the [claims ledger](claims_ledger.md) each time the",
        "book is built, so it always says what the executed notebooks found, at the profile",
        "they ran with. A claim that did not reproduce at small scale is a finding about",
        "that scale, with its evidence in the linked notebook.",
        "",
    ]
    if not claims:
        return "\n".join(lines + ["No executed notebook has recorded a claim yet."]) + "\n"
    profiles = sorted({c.profile for c in claims if c.profile})
    lines += [f"Profile(s) of this rendering: {', '.join(profiles) or 'unknown'}. "
              f"Overall: {_counts_line(claims)}.", ""]
    for part, items in _by_part(claims, parts or {}).items():
        lines += [f"## {PART_TITLES.get(part, part.title())}", ""]
        for verdict in Verdict:
            chosen = [c for c in items if c.verdict == verdict.value]
            if not chosen:
                continue
            lines += [f"### {_ICON[verdict.value]} {verdict.value.capitalize()} ({len(chosen)})", ""]
            for c in chosen:
                lines.append(
                    f"- **{c.statement}** ({c.source}). Paper: {with_unit(c.paper, c.unit)}; ours: "
                    f"{with_unit(c.ours, c.unit)} (rule: {c.rule}) — {_notebook_link(c, titles)}."
                )
            lines.append("")
    return "\n".join(lines) + "\n"
