"""What each chapter and the whole book conclude, computed from the recorded claims.

The claims ledger lists; this module concludes. For every claim that did not reproduce or is inconclusive it
says *why*, from the ledger's own fields (verdict, instrument checks, interval, registered rule, model, the
other models the same paper finding was measured on), never from typed numbers:

* ``instrument``: a declared instrument check failed (the model did not memorise, the probe cannot see the
  classes), so the run could not measure the claim; the failed checks are named with their values;
* ``underpowered``, ``smaller here``, ``power``: every instrument worked but the interval straddles the rule's
  bar. The sentence gives the run's *minimal detectable effect* (MDE: how far beyond the bar a true value must
  lie for this run to clear the bar four times in five, at the 95% level; read off the interval's own width,
  ``(1.96 + 0.84) / 1.96`` times its half on the bar's side) and compares it with the paper's effect beyond the
  bar when the paper gives a number on the rule's scale: ``underpowered`` when the MDE exceeds it (or the
  paper's value lies on the bar itself: no sample can show it clears the bar), ``smaller here`` when the run
  had the power to see the paper's effect and the effect here is smaller, ``power`` when the paper gives no
  number to size it against. Each also says which side the estimate leans to and how many times the items or
  seeds would settle it if the estimate held (the width of an interval shrinks as one over the square root of
  the sample);
* ``model``: not reproduced here, while the same finding of the same paper reproduces on another model class
  of the book (so it depends on the model: a toy grammar, a contrastive encoder, an English masked LM);
* ``fails here``: not reproduced on every model class the book measured it on, with every instrument working:
  the paper's claim fails at this scale; only a larger run (the ``full`` profile, a hub model) can tell scale
  from the claim itself.

:func:`chapter_markdown` is the end of one notebook's page (the Sphinx extension
:mod:`bertology_lib.book.sphinx_conclusions` puts it under the page's "What we found");
:func:`findings_markdown` is the closing chapter, a synthesis read in five minutes: the counts, what holds
across model classes, what does not and why, each item linked to the cell that computed it. Imported by the
CLI and the Sphinx extension only, so a notebook's stamp never depends on it.
"""

from __future__ import annotations

import html
import math
import re
from statistics import NormalDist
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

from bertology_lib.book import stamps
from bertology_lib.book.claims import ledger
from bertology_lib.book.claims.record import Claim
from bertology_lib.book.claims.registry import load_all
from bertology_lib.book.claims.rules import (
    BeatsBaseline,
    Equivalent,
    IntervalAbove,
    IntervalWithin,
    Verdict,
    fmt,
    with_unit,
)

REASONS = ("instrument", "underpowered", "power", "smaller here", "model", "fails here")
REASON_TITLES = {
    "instrument": "the instrument did not work",
    "underpowered": "underpowered: the run could not see the paper's effect",
    "power": "too little power, and no paper number to size it against",
    "smaller here": "the power was there, the effect here is smaller",
    "model": "depends on the model",
    "fails here": "the paper's claim fails here",
}
INTERVAL_NOTE = (
    "A value written *(0.878, 0.822, 0.918)* reads **(estimate, low, high)**: the estimate and its 95% interval. "
    "Each rule, registered before the run, reads the interval: most say *reproduced* when the whole interval "
    "clears the rule's bar, *not reproduced* when it lies wholly on the other side, and *inconclusive* when it "
    "straddles the bar."
)


@dataclass(frozen=True)
class Reason:
    """Why a claim did not reproduce or is inconclusive: one of :data:`REASONS` and a sentence."""

    kind: str
    text: str


def short(statement: str, limit: int = 110) -> str:
    """The head of a claim's statement: up to its first parenthesis or colon, at most ``limit`` characters
    (cut at a word, with an ellipsis). A colon after a head that only names the setting ("... fine-tuned on
    SST-2: removing 40% of heads ...") does not cut: the claim follows it."""
    head = statement
    for stop in (" (", ": "):
        i = head.find(stop)
        if i > 30 and not (stop == ": " and re.search(r"\bon [\w.-]+$", head[:i])):
            head = head[:i]
    head = head.rstrip(" ,;.")
    if len(head) <= limit:
        return head
    return head[:limit].rsplit(" ", 1)[0].rstrip(" ,;") + "…"


def interval(ours: Any) -> tuple[float, float, float] | None:
    """``(estimate, low, high)`` when ``ours`` is such a triple of finite numbers, else None."""
    if not isinstance(ours, (list, tuple)) or len(ours) != 3:
        return None
    try:
        est, low, high = (float(x) for x in ours)
    except (TypeError, ValueError):
        return None
    return (est, low, high) if all(math.isfinite(x) for x in (est, low, high)) else None


def _bars(rule: Any) -> list[float]:
    """The values an interval must clear for the rule to decide."""
    if isinstance(rule, IntervalAbove):
        return [rule.threshold]
    if isinstance(rule, BeatsBaseline):
        return [rule.margin]
    if isinstance(rule, Equivalent):
        return [-rule.margin, rule.margin]
    if isinstance(rule, IntervalWithin):
        return [rule.lower, rule.upper]
    return []


def power_numbers(c: Claim, rule: Any) -> tuple[float, str, float | None] | None:
    """``(bar, lean, times)`` of an interval that straddles its rule's bar: the bar nearest the estimate, the side
    the estimate lies on (``above``, ``below`` or ``on``) and how many times the items or seeds would make the
    interval clear the bar if the estimate held (the interval's half on the bar's side shrinks as one over the
    square root of the sample; None when the estimate is on the bar). None when ``c.ours`` is no interval
    or no bar of the rule lies inside it."""
    iv = interval(c.ours)
    if iv is None:
        return None
    est, low, high = iv
    inside = [b for b in _bars(rule) if low <= b <= high]
    if not inside:
        return None
    bar = min(inside, key=lambda b: abs(est - b))
    side = est - low if est > bar else high - est
    if abs(est - bar) < 1e-12 or side <= 0:
        return bar, "on", None
    return bar, ("above" if est > bar else "below"), (side / abs(est - bar)) ** 2


Z95 = NormalDist().inv_cdf(0.975)  # the intervals are 95%
Z80 = NormalDist().inv_cdf(0.80)  # power four times in five: the usual planning value


def mde(c: Claim, rule: Any) -> float | None:
    """The minimal detectable effect of ``c``'s measurement against ``rule``'s bar: how far beyond the bar the true
    value must lie for an interval of this width to clear the bar with 80% power at the 95% level,
    ``(Z95 + Z80) / Z95`` times the interval's half on the bar's side (the whole half-width when the estimate
    sits on the bar). None when ``c.ours`` is no interval or no bar of the rule lies inside it."""
    got = power_numbers(c, rule)
    if got is None:
        return None
    bar, lean, _ = got
    est, low, high = interval(c.ours)
    half = (high - low) / 2 if lean == "on" else (est - low if lean == "above" else high - est)
    return (Z95 + Z80) / Z95 * half


NO_EFFECT = {"accuracy points": 0.0, "of the teacher": 1.0}
"""The value of no effect on a rule's scale, by the claim's unit: a difference of accuracy, a ratio to the teacher."""


def no_effect_bound(c: Claim, rule: Any) -> float | None:
    """The no-effect value when ``c`` is a *bound* claim: the paper states a bound ("at most one point lost", "at
    least 97% of the teacher") and the registered rule's bar is that bound (an :class:`IntervalAbove` whose
    threshold is the paper's number), on a scale whose no-effect value is known (:data:`NO_EFFECT`). Such a claim
    is sized at no effect, the value the paper reports within its bound (the usual planning of a non-inferiority
    comparison), not at the bound itself, which no sample could show clears the bar. None otherwise."""
    p = c.paper
    if not isinstance(rule, IntervalAbove) or isinstance(p, bool) or not isinstance(p, (int, float)):
        return None
    if not math.isfinite(float(p)) or abs(float(p) - rule.threshold) > 1e-12 or c.unit not in NO_EFFECT:
        return None
    none = NO_EFFECT[c.unit]
    return none if none > rule.threshold else None


def paper_margin(c: Claim, rule: Any) -> float | None:
    """How far the paper's value lies beyond ``rule``'s bar, on the side the rule calls reproduced (negative or
    zero: on the bar or on the other side), when the paper gives a number on the rule's own scale (an
    :class:`IntervalAbove`, :class:`Equivalent` or :class:`IntervalWithin` rule, whose bars are in the units of
    ``ours``); None otherwise (a sentence, or a rule over a difference from a baseline the paper did not report).
    For a bound claim (:func:`no_effect_bound`) the value of no effect stands for the paper's."""
    p = c.paper
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not math.isfinite(float(p)):
        return None
    p = float(p)
    if isinstance(rule, IntervalAbove):
        none = no_effect_bound(c, rule)
        return (p if none is None else none) - rule.threshold
    if isinstance(rule, Equivalent):
        return rule.margin - abs(p)
    if isinstance(rule, IntervalWithin):
        return min(p - rule.lower, rule.upper - p)
    return None


def _power_at(effect: float, m: float) -> float:
    """The chance an interval whose MDE is ``m`` clears the bar when the true value lies ``effect`` beyond it."""
    se = m / (Z95 + Z80)
    return NormalDist().cdf(effect / se - Z95) if se > 0 else 1.0


def needed_scale(m: float, d: float) -> float:
    """How many times this run's data (seeds and items together) a run needs for an MDE of ``d`` where this one's
    is ``m``: an interval's half-width, and so the MDE, shrinks like one over the square root of the sample, so
    ``(m / d) ** 2`` (at least 1; ``d`` must be positive)."""
    if d <= 0:
        raise ValueError(f"needed_scale: the paper's margin over the bar must be positive, got {d!r}")
    return max(1.0, (m / d) ** 2)


def power_kind(c: Claim, rule: Any) -> tuple[str, float | None, float | None]:
    """``(kind, mde, paper margin)`` of an inconclusive measurement: ``underpowered`` when the MDE exceeds the
    paper's effect beyond the bar (or the paper's value is on the bar), ``smaller here`` when it does not,
    ``power`` when the paper gives no number on the rule's scale or the MDE cannot be read."""
    m = mde(c, rule)
    d = paper_margin(c, rule)
    if m is None or d is None:
        return "power", m, d
    return ("underpowered" if d <= 0 or m > d else "smaller here"), m, d


def _about(x: float) -> str:
    return times_text(x) if x > 100 else f"about {times_text(x)}"


def times_text(x: float) -> str:
    """A multiple as the findings write it: ``1.3×``, ``7×`` (rounded up from 3), ``over 100×``."""
    if x > 100:
        return "over 100×"
    return f"{x:.1f}×" if x < 3 else f"{math.ceil(x)}×"


def power_sentence(c: Claim, rule: Any) -> str:
    """Why an interval rule could not decide, and how much more data would, if the estimate held."""
    got = power_numbers(c, rule)
    if got is None:
        return f"the measurement {fmt(c.ours)} does not settle the rule ({c.rule})."
    bar, lean, times = got
    _, low, high = interval(c.ours)
    text = f"the 95% interval ({fmt(low)}, {fmt(high)}) contains the rule's bar {fmt(bar)}"
    if times is None:
        text += "; the estimate sits on the bar, so more data alone would not decide it."
    else:
        text += (
            f"; the estimate {fmt(interval(c.ours)[0])} lies {lean} it: if it held, {_about(times)} the "
            "items or seeds would settle the verdict."
        )
    kind, m, d = power_kind(c, rule)
    if m is None:
        return text
    mde_text = f" Its minimal detectable effect is {fmt(m)} beyond the bar (80% power at the 95% level)"
    if kind == "power":
        return text + mde_text + "; the paper gives no number on the rule's scale to size it against."
    paper = fmt(float(c.paper))
    if d <= 0:
        return (
            text
            + mde_text
            + f"; the paper's own value ({paper}) lies {'on' if d == 0 else 'short of'} the rule's bar, so even "
            "the paper's effect would not clear it, whatever the sample: underpowered for the claim as stated."
        )
    none = no_effect_bound(c, rule)
    if none is None:
        its, held, at = f"its value {paper}", "had the paper's value held here", "at the paper's value"
    else:
        its = f"the paper states a bound ({paper}), sized at no effect ({fmt(none)})"
        held, at = "had there been no effect", "at no effect"
    pw = _power_at(d, m)
    if kind == "underpowered":
        return (
            text + mde_text + f", more than the paper's margin over the bar ({fmt(d)}; {its}): {held}, this run "
            f"would have cleared the bar with probability {pw:.0%} only, so it is underpowered for the claim. 80% "
            f"power {at} needs {times_text(needed_scale(m, d))} the data (seeds and test items together, at this run's "
            "spread)."
        )
    return (
        text + mde_text + f", within the paper's margin over the bar ({fmt(d)}; {its}): {held}, this run would "
        f"have cleared the bar with probability {pw:.0%}. It had the power; "
        + (
            "the effect here is smaller than the paper's."
            if none is None
            else "the value here lies further from no effect than the paper reports."
        )
    )


def _failed_checks(c: Claim) -> str:
    failed = [x for x in c.checks if not x.get("passed")]
    if not failed:
        return c.instrument.removeprefix("failed: ")
    return "; ".join(f"{x['name']} {fmt(x['value'])} (needs {x['requirement']})" for x in failed)


def _finding_key(c: Claim) -> tuple[str, str]:
    """Claims of one paper finding measured on several models share their source and the paper's value."""
    return (c.source, str(c.paper))


def reason(c: Claim, others: Sequence[Claim] = (), rule: Any = None) -> Reason | None:
    """Why ``c`` did not reproduce or is inconclusive (None when it reproduced). ``others``: the rest of the
    ledger, searched for the same finding on other model classes; ``rule``: the registered rule (looked up
    when not given)."""
    if c.verdict == Verdict.REPRODUCED.value:
        return None
    if c.instrument_failed:
        return Reason(
            "instrument",
            f"an instrument did not work ({_failed_checks(c)}), so this run cannot judge the claim either way.",
        )
    here = ledger.model_class(c.model)
    iv = interval(c.ours)
    if iv is not None and iv[1] == iv[2]:
        return Reason(
            "instrument",
            f"its interval {fmt(list(iv))} has zero width (every resample gave the same value, e.g. one test item "
            "decides it), so the measurement shows none of the uncertainty it has: the verdict is not confirmed.",
        )
    if c.verdict == Verdict.INCONCLUSIVE.value:
        if rule is None:
            spec = load_all().get(c.id)
            rule = spec.rule if spec is not None else None
        return Reason(power_kind(c, rule)[0], power_sentence(c, rule))
    same = [o for o in others if o.id != c.id and _finding_key(o) == _finding_key(c)]
    held = sorted({ledger.model_class(o.model) for o in same if o.verdict == Verdict.REPRODUCED.value} - {here})
    unchecked = " (no instrument check declared)" if c.instrument == "no checks declared" else ""
    ours = f"ours {with_unit(c.ours, c.unit)} (paper: {with_unit(c.paper, c.unit)}){unchecked}"
    if held:
        return Reason(
            "model",
            f"on the {here}, {ours}; it reproduces on the {' and the '.join(held)}, so it depends on the model.",
        )
    at = f" at profile {c.profile}" if c.profile else ""
    return Reason(
        "fails here",
        f"on the {here}{at} ({_scale(c)}), {ours}; whether this is the scale or the claim, only a larger run can tell.",
    )


def _scale(c: Claim) -> str:
    return "; ".join(f"{k}: {fmt(v)}" for k, v in c.scale.items()) if c.scale else "scale not recorded"


def _earlier_rules(claims: Sequence[Claim]) -> list[str]:
    """A line naming the claims recorded under another registered statement or rule than the registry's now."""
    old = ledger.stale(claims)
    if not old:
        return []
    nbs = sorted({c.notebook for c in old})
    return [
        f"**{len(old)} claims were recorded under an earlier registered rule or statement** (their notebooks are due "
        f"for re-execution: {', '.join(nbs)}); their verdicts are the earlier rule's.",
        "",
    ]


def _counts_sentence(claims: Sequence[Claim]) -> str:
    n = len(claims)
    k = ledger.summary(claims)
    parts = [f"{k[v.value]} {v.value}" for v in Verdict if k.get(v.value)]
    if k.get(ledger.NULL_PASSES):
        parts.append(f"{k[ledger.NULL_PASSES]} {ledger.NULL_PASSES} (not counted as reproduced)")
    return f"{n} claim{'s' if n != 1 else ''} tested: " + ", ".join(parts) + "."


def _models_sentence(claims: Sequence[Claim]) -> str:
    by: dict[str, int] = {}
    for c in claims:
        m = ledger.model_class(c.model)
        by[m] = by.get(m, 0) + 1
    if list(by) == ["none"]:
        return ""
    return "Measured on: " + ", ".join(f"the {m} ({n})" for m, n in by.items() if m != "none") + "."


def chapter_items(claims: Sequence[Claim], everything: Sequence[Claim] = ()) -> list[tuple[Claim, Reason]]:
    """``(claim, reason)`` for every reproduction among ``claims`` that did not reproduce or is inconclusive,
    in the page's order."""
    reg = load_all()
    pool = list(everything) or list(claims)
    out = []
    for c in ledger.reproductions(claims):
        spec = reg.get(c.id)
        r = reason(c, pool, spec.rule if spec is not None else None)
        if r is not None:
            out.append((c, r))
    return out


CONSTRUCTION_TITLE = "reproduced, but the data can decide it"
NULL_TITLE = "reproduced, but a null model passes too"


def null_items(claims: Sequence[Claim]) -> list[tuple[Claim, str]]:
    """``(claim, sentence)`` for every reproduced claim among ``claims`` that the book's null-model run (the
    random-init twin) reproduces too (:func:`~bertology_lib.book.claims.ledger.null_passes`): not evidence."""
    out = []
    for c in ledger.reproductions(claims):
        if ledger.null_passes(c):
            ours = (c.details or {}).get("null_ours")
            out.append(
                (
                    c,
                    "reproduced, but the random-init twin passes the same rule"
                    + (f" ({with_unit(ours, c.unit)})" if ours is not None else "")
                    + ", so the row is no evidence and is not counted as reproduced.",
                )
            )
    return out


def construction_items(claims: Sequence[Claim], everything: Sequence[Claim] = ()) -> list[tuple[Claim, str]]:
    """``(claim, sentence)`` for every reproduced claim among ``claims`` whose registered spec says what in the
    generated data can decide it (``ClaimSpec.by_construction``); the sentence says what the row that measures
    beyond the data (``ClaimSpec.beyond``, looked up in ``everything``) reads, or that none does."""
    reg = load_all()
    pool = {c.id: c for c in (list(everything) or list(claims))}
    out = []
    for c in ledger.reproductions(claims):
        spec = reg.get(c.id)
        if spec is None or not spec.by_construction or c.verdict != Verdict.REPRODUCED.value:
            continue
        b = pool.get(spec.beyond) if spec.beyond else None
        if b is not None:
            tail = (
                f"the row that asks for more than the data gives ({short(b.statement, 80)}) reads {b.verdict}, "
                f"{with_unit(b.ours, b.unit)}."
            )
        elif spec.beyond:
            tail = f"the row that measures beyond the data ({spec.beyond}) is not in this rendering."
        else:
            tail = "no row of the book measures beyond the data yet, so this reproduction shows what the data gives."
        out.append((c, f"reproduced, but {spec.by_construction}; {tail}"))
    return out


def stale_note(path: Path) -> str | None:
    """Why the executed notebook's outputs predate its cells, library or claim specs (None when they do not);
    the environment (threads, versions) is another machine's business and is not counted."""
    s = stamps.read_stamp(path)
    if not s:
        return "it was never executed in place"
    why = stamps.stale_reason(path, s.get("params") or {}, env=s.get("environment") or {})
    return None if why is None or why.startswith("environment") else why


@dataclass(frozen=True)
class Chapter:
    """A page's conclusion: ``lead`` (the counts and the models), ``stale`` (why its outputs predate the
    sources, or empty) and ``groups``: ``(reason title, [(claim, sentence)])`` in :data:`REASONS` order."""

    lead: str
    stale: str
    groups: list[tuple[str, list[tuple[Claim, str]]]]


def chapter(claims: Sequence[Claim], everything: Sequence[Claim] = (), stale: str | None = None) -> Chapter | None:
    """The conclusion of one notebook's page from the claims it recorded (None when it records none):
    rendered under the page's "What we found" by :mod:`bertology_lib.book.sphinx_conclusions`."""
    rep = ledger.reproductions(claims)
    if not rep:
        return None
    lead = f"{_counts_sentence(rep)} {_models_sentence(rep)}".strip()
    items = chapter_items(claims, everything)
    groups = []
    for kind in REASONS:
        chosen = [(c, r.text) for c, r in items if r.kind == kind]
        if chosen:
            groups.append((f"{REASON_TITLES[kind].capitalize()} ({len(chosen)})", chosen))
    built = construction_items(claims, everything)
    if built:
        groups.append((f"{CONSTRUCTION_TITLE.capitalize()} ({len(built)})", built))
    nulls = null_items(claims)
    if nulls:
        groups.append((f"{NULL_TITLE.capitalize()} ({len(nulls)})", nulls))
    note = (
        f"These outputs predate the page's cells or the library as they now are ({stale}); the next build "
        "re-executes the page, and its numbers may move."
        if stale
        else ""
    )
    return Chapter(lead, note, groups)


def _link(c: Claim, titles: dict[str, str]) -> str:
    title = short(c.statement, 90)
    anchor = (c.details or {}).get("anchor")
    href = f"../notebooks/{c.notebook}.html" + (f"#{anchor}" if anchor else "")
    return f'<a href="{href}">{title}</a>'


def across_models(claims: Sequence[Claim]) -> list[tuple[tuple[str, str], dict[str, list[Claim]]]]:
    """Paper findings measured on two or more model classes: ``((source, paper), {model class: claims})``."""
    groups: dict[tuple[str, str], dict[str, list[Claim]]] = {}
    for c in ledger.reproductions(claims):
        groups.setdefault(_finding_key(c), {}).setdefault(ledger.model_class(c.model), []).append(c)
    return [(k, v) for k, v in groups.items() if len(v) >= 2]


_MARK = {"reproduced": "✅", "not reproduced": "❌", "inconclusive": "❔"}
MODEL_ORDER = ("toy lab BERT", "MiniLM (contrastive encoder)", "English lab BERT", "decoder", "hub model", "none")


def _n(k: int, noun: str) -> str:
    return f"{k} {noun}{'' if k == 1 else 's'}"


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0] + "…"


def _mark(c: Claim) -> str:
    """A verdict's mark linked to the claim's cell, the claim in its tooltip."""
    anchor = (c.details or {}).get("anchor")
    href = f"../notebooks/{c.notebook}.html" + (f"#{anchor}" if anchor else "")
    title = html.escape(short(c.statement, 140), quote=True)
    return f'<a href="{href}" title="{title}">{_MARK[c.verdict]}</a>'


def findings_markdown(
    claims: Sequence[Claim],
    notebook_titles: dict[str, str] | None = None,
    parts: dict[str, str] | None = None,
    stale: Mapping[str, str] | None = None,
) -> str:
    """The closing chapter: counts by part and model class, what holds across model classes, and what does not
    hold and why (:func:`reason`), each item one line linked to its cell; the ledger keeps the full rows."""
    titles, parts = notebook_titles or {}, parts or {}
    lines = [
        "# What reproduced and what did not",
        "",
        "Generated from the executed notebooks each time the book is built: every count and sentence below is",
        "assembled from the recorded claims; the [claims ledger](claims_ledger.md) holds every row with its rule,",
        "model, scale and instrument checks.",
        "",
        INTERVAL_NOTE,
        "",
    ]
    rep = ledger.reproductions(claims)
    if not rep:
        return "\n".join(lines + ["No executed notebook has recorded a claim yet."]) + "\n"
    profiles = sorted({c.profile for c in rep if c.profile})
    lines += [f"Profile(s) of this rendering: {', '.join(profiles) or 'unknown'}. {_counts_sentence(rep)}", ""]
    lines += _earlier_rules(claims)
    if stale:
        names = ", ".join(f'<a href="../notebooks/{n}.html">{html.escape(titles.get(n, n))}</a>' for n in stale)
        lines += [  # folded: a transient state, and the closing chapter must stay short (FINDINGS_MAX_PX)
            f"<details><summary><b>{len(stale)} of the pages' outputs predate their cells or the library as they "
            "now are</b> (which)</summary>",
            "",
            "Their numbers are those of their last execution, and the next build re-executes them:",
            "",
            names + ".",
            "",
            "</details>",
            "",
        ]
    # counts by part and model class
    models = sorted({ledger.model_class(c.model) for c in rep})
    head = "| part | model | claims | ✅ reproduced | ❌ not reproduced | ❔ inconclusive | of them: instrument |"
    lines += ["## In numbers", "", head, "| --- | --- | --- | --- | --- | --- | --- |"]
    for part in ("survey", "physics", "duplication", "other"):
        for m in models:
            sub = [c for c in rep if parts.get(c.notebook, "other") == part and ledger.model_class(c.model) == m]
            if not sub:
                continue
            k = ledger.summary(sub)
            inst = sum(c.instrument_failed for c in sub)
            name = ledger.PART_TITLES.get(part, part).split(" — ")[0]
            extra = f" (+{k[ledger.NULL_PASSES]} a null model passes too)" if k.get(ledger.NULL_PASSES) else ""
            lines.append(
                f"| {name} | {m} | {len(sub)} | {k['reproduced']}{extra} | {k['not reproduced']} | "
                f"{k['inconclusive']} | {inst} |"
            )
    lines.append("")
    # across model classes
    groups = across_models(rep)
    if groups:
        classes = [m for m in MODEL_ORDER if any(m in by for _, by in groups)]
        lines += [
            "## One finding, several models",
            "",
            f"{_n(len(groups), 'paper finding')} {'was' if len(groups) == 1 else 'were'} measured on more than one class of model (hover a mark for the",
            "claim, click it for the cell that computed it). A finding that holds on every class is the book's",
            "firmest; one that splits says what it depends on.",
            "",
            "| finding (paper) | " + " | ".join(classes) + " | across models |",
            "| --- | " + " | ".join("---" for _ in classes) + " | --- |",
        ]
        for (source, paper), by_model in groups:
            verdicts = {c.verdict for cs in by_model.values() for c in cs}
            agree = (
                "holds on every model"
                if verdicts == {"reproduced"}
                else "fails on every model"
                if verdicts == {"not reproduced"}
                else "undecided on every model"
                if verdicts == {"inconclusive"}
                else "splits"
            )
            cells = [" ".join(_mark(c) for c in by_model.get(m, [])) for m in classes]
            finding = f"{_cut(source.split('; ')[-1], 60)}: {_cut(paper, 60)}"
            lines.append(f"| {html.escape(finding).replace('|', '/')} | " + " | ".join(cells) + f" | {agree} |")
        lines.append("")
    # what did not reproduce, and why
    items = chapter_items(rep, rep)
    lines += [
        "## What did not reproduce, and why",
        "",
        f"{_n(len(items), 'claim')} did not reproduce or {'is' if len(items) == 1 else 'are'} inconclusive. By reason: "
        + ", ".join(f"{REASON_TITLES[k]} {sum(r.kind == k for _, r in items)}" for k in REASONS)
        + ". Each reason is summarised; its claims, with the sentence that explains each, are one click away.",
        "",
    ]
    for kind in REASONS:
        chosen = [(c, r) for c, r in items if r.kind == kind]
        if not chosen:
            continue
        lines += [f"### {REASON_TITLES[kind].capitalize()} ({len(chosen)})", ""]
        summary_line = _reason_summary(kind, [c for c, _ in chosen])
        if summary_line:
            lines += [summary_line, ""]
        rows = [f"<li>{_link(c, titles)} ({html.escape(c.source)}): {html.escape(r.text)}</li>" for c, r in chosen]
        lines += [f"<details><summary>the {len(chosen)} claims</summary><ul>", *rows, "</ul></details>", ""]
    built = construction_items(rep, rep)
    if built:
        lines += [
            f"## {CONSTRUCTION_TITLE.capitalize()}",
            "",
            f"{_n(len(built), 'reproduced claim')} {'rests' if len(built) == 1 else 'rest'} on generated data that can "
            "decide the result without the ability the claim names (the registry says what decides it); where a row "
            "asks for more than the data gives, its verdict is the one to read.",
            "",
            f"<details><summary>the {len(built)} claims</summary><ul>",
            *[f"<li>{_link(c, titles)} ({html.escape(c.source)}): {html.escape(t)}</li>" for c, t in built],
            "</ul></details>",
            "",
        ]
    nulls = null_items(rep)
    if nulls:
        lines += [
            f"## {NULL_TITLE.capitalize()}",
            "",
            f"{_n(len(nulls), 'claim')} passed {'its' if len(nulls) == 1 else 'their'} registered rule with the model "
            "replaced by its random-init twin as well (the null-model run below): such a rule cannot tell a model "
            "that knows from one that does not, so these rows are not counted as reproduced.",
            "",
            f"<details><summary>the {len(nulls)} claims</summary><ul>",
            *[f"<li>{_link(c, titles)} ({html.escape(c.source)}): {html.escape(t)}</li>" for c, t in nulls],
            "</ul></details>",
            "",
        ]
    lines += [
        "Everything that reproduced is in the ledger: "
        '<a href="claims_ledger.html?verdict=reproduced">the ledger filtered to reproduced claims</a>.',
        "",
    ]
    return "\n".join(lines) + "\n"


def _reason_summary(kind: str, claims: Sequence[Claim]) -> str:
    """One computed sentence over the claims of one reason: which checks failed, how wide the intervals are."""
    if kind == "instrument":
        names: dict[str, int] = {}
        for c in claims:
            for x in c.checks:
                if not x.get("passed"):
                    names[x["name"]] = names.get(x["name"], 0) + 1
        flat = sum(1 for c in claims if not c.instrument_failed)  # the zero-width intervals (reason())
        parts = [f"`{n}` ({k})" for n, k in sorted(names.items(), key=lambda t: -t[1])]
        text = ("Failed checks: " + ", ".join(parts) + ".") if parts else ""
        if flat:
            text += f" {flat} more with a zero-width interval (a measurement without its uncertainty)."
        return text.strip()
    by: dict[str, int] = {}
    if kind == "model":  # folded like the other reasons: the table "One finding, several models" shows the split
        for c in claims:
            m = ledger.model_class(c.model)
            by[m] = by.get(m, 0) + 1
        return (
            "Each fails on the model it was measured on and reproduces on another class of model (a finding that "
            "splits in the table above): "
            + ", ".join(f"{n} on the {m}" for m, n in sorted(by.items(), key=lambda t: -t[1]))
            + "."
        )
    if kind == "fails here":
        for c in claims:
            m = ledger.model_class(c.model)
            by[m] = by.get(m, 0) + 1
        return (
            "With every declared instrument working, these fail on the model they were measured on: "
            + ", ".join(f"{n} on the {m}" for m, n in sorted(by.items(), key=lambda t: -t[1]))
            + ". Each is a finding about that model at this scale."
        )
    if kind in ("power", "underpowered", "smaller here"):
        reg = load_all()
        leans, needs, ratios = {"above": 0, "below": 0, "on": 0}, [], []
        for c in claims:
            spec = reg.get(c.id)
            rule = spec.rule if spec is not None else None
            got = power_numbers(c, rule)
            if got is None or got[2] is None:
                leans["on"] += 1
            else:
                leans[got[1]] += 1
                needs.append(got[2])
            _, m, d = power_kind(c, rule)
            if m is not None and d is not None:
                ratios.append((m, d))
        text = (
            f"Every instrument worked; each interval straddles its rule's bar. {leans['above']} estimates lie above "
            f"the bar, {leans['below']} below it"
            + (f", {leans['on']} on it or undecidable" if leans["on"] else "")
            + "."
        )
        if kind == "underpowered" and ratios:
            on_bar = sum(1 for _, d in ratios if d <= 0)
            beyond = sorted(m / d for m, d in ratios if d > 0)
            if beyond:
                text += (
                    f" For {_n(len(beyond), 'claim')} the minimal detectable effect is "
                    f"{times_text(beyond[len(beyond) // 2])} the paper's effect beyond the bar (median)"
                    + (f"; for {on_bar} the paper's own value lies on the bar" if on_bar else "")
                    + ": a run of this size could not have seen the paper's effect, so these say nothing either way."
                )
            elif on_bar:
                text += f" For {on_bar} the paper's own value lies on the bar: no sample can show it clears it."
        if kind == "smaller here":
            text += (
                " Each run had the power to see the paper's effect (its minimal detectable effect within the "
                "paper's effect beyond the bar), so the effect here is smaller than the paper reports."
            )
        if kind == "power":
            text += " The paper gives no number on the rule's scale, so the minimal detectable effect is stated alone."
        if not needs or kind == "smaller here":
            return text
        median = sorted(needs)[len(needs) // 2]
        return (
            text + f" If the estimates held, the median claim would need {_about(median)} its items or seeds: "
            "more data, not a better instrument, decides them."
        )
    return ""
