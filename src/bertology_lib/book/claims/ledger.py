"""Reading the ledger back from the executed notebooks, and the two book pages written from it.

The executed notebooks are the record: :func:`collect` reads every recorded claim back from their
outputs, for the "Claims ledger" page (:func:`ledger_markdown`), the closing chapter
(:func:`findings_markdown`) and ``bertology claims``.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Iterable, Sequence

from bertology_lib.book.claims.record import METADATA_KEY, Claim
from bertology_lib.book.claims.registry import load_all
from bertology_lib.book.claims.rules import Verdict, fmt, with_unit


NULL_RECORD = Path("book") / "null_model_run.json"  # written by bertology_lib.book.null_run
NULL_PASSES = "reproduced by a null model too"  # a count's key: reproduced rows that are not evidence


def _null_rows(path: Path) -> tuple[str, dict[str, dict]]:
    """(profile, id -> row) of the null-model record of the book that holds the notebook at ``path`` (its
    folder's parent holds ``book/``); empty when there is none."""
    record = path.resolve().parent.parent / NULL_RECORD
    if not record.is_file():
        return "", {}
    data = json.loads(record.read_text())
    return str(data.get("profile", "")), {r["id"]: r for r in data.get("claims", [])}


def null_verdict(c: Claim) -> str:
    """What the claim's rule gave for the random-init twin in the book's null-model run (``bertology run
    --null``, same profile), or ``""`` when the run does not cover it."""
    return str((c.details or {}).get("null_verdict", ""))


def null_passes(c: Claim) -> bool:
    """A reproduction that the null model reproduces too: not evidence, and not counted as reproduced."""
    return c.verdict == Verdict.REPRODUCED.value and null_verdict(c) == Verdict.REPRODUCED.value


def claims_in_notebook(path: str | Path) -> list[Claim]:
    """Every claim recorded in an executed notebook's outputs, in order; each with what the book's null-model run
    gave for it at the same profile (``details["null_verdict"]``, ``details["null_ours"]``), where it has one."""
    nb = json.loads(Path(path).read_text())
    null_profile, null = _null_rows(Path(path))
    out: list[Claim] = []
    for cell in nb.get("cells", []):
        for o in cell.get("outputs", []) or []:
            meta = (o.get("metadata") or {}).get(METADATA_KEY)
            if meta:
                d = dict(meta)
                d.setdefault("details", {})
                d["details"] = {**d["details"], "cell_id": cell.get("id", "")}
                spec = load_all().get(d.get("id"))
                if spec is not None:  # what a claim is (reproduction or setup check) is the registry's call
                    d["kind"] = spec.kind
                    if spec.by_construction:  # so is what the data alone can decide (outside the claim stamp)
                        d["details"] = {**d["details"], "by_construction": spec.by_construction, "beyond": spec.beyond}
                    if not d.get("rule_id") and d.get("rule") == spec.rule.describe():  # recorded before rule ids
                        d["rule_id"] = spec.rule_id
                row = null.get(d.get("id"))
                if row is not None and null_profile == d.get("profile"):
                    d["details"] = {**d["details"], "null_verdict": row["verdict"], "null_ours": row.get("ours")}
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
    """The ledger as a pandas DataFrame (one row a claim): verdict, instrument status, kind, model, scale,
    the paper's value and ours, the rule id, where it was computed."""
    import pandas as pd

    cols = [
        "id",
        "verdict",
        "instrument",
        "kind",
        "claim",
        "source",
        "paper",
        "ours",
        "rule_id",
        "rule",
        "model",
        "scale",
        "notebook",
        "profile",
    ]
    rows = [
        {
            "id": c.id,
            "verdict": c.verdict,
            "instrument": instrument_status(c),
            "kind": c.kind,
            "claim": c.statement,
            "source": c.source,
            "paper": with_unit(c.paper, c.unit),
            "ours": with_unit(c.ours, c.unit),
            "rule_id": c.rule_id,
            "rule": c.rule,
            "model": c.model,
            "scale": _scale_text(c),
            "notebook": c.notebook,
            "profile": c.profile,
        }
        for c in claims
    ]
    return pd.DataFrame(rows, columns=cols)


def summary(claims: Sequence[Claim]) -> dict[str, int]:
    """Counts by verdict (every claim given; see :func:`counts` for reproductions vs setup checks). A reproduction
    that the null model reproduces too (:func:`null_passes`) is counted under :data:`NULL_PASSES`, not as
    reproduced (that key appears only when such a row exists)."""
    out = {v.value: 0 for v in Verdict}
    for c in claims:
        key = NULL_PASSES if null_passes(c) else c.verdict
        out[key] = out.get(key, 0) + 1
    return out


def reproductions(claims: Sequence[Claim]) -> list[Claim]:
    """The claims the counts are about: setup checks (generator constants, arithmetic) left out."""
    return [c for c in claims if c.kind != "setup"]


def instrument_status(c: Claim) -> str:
    """``ok``, ``failed`` or ``not checked`` (no instrument check declared)."""
    return "failed" if c.instrument_failed else ("ok" if c.instrument == "ok" else "not checked")


def counts(claims: Sequence[Claim]) -> dict[str, dict[str, int]]:
    """Reproductions by verdict and by instrument status, and the number of setup checks."""
    rep = reproductions(claims)
    by_inst = {"ok": 0, "failed": 0, "not checked": 0}
    for c in rep:
        by_inst[instrument_status(c)] += 1
    return {"verdict": summary(rep), "instrument": by_inst, "setup": {"setup checks": len(claims) - len(rep)}}


def model_class(model: str) -> str:
    """The class of model a claim was measured on, as the ledger's model filter names it: ``toy lab BERT`` (a
    masked LM of the toy grammar: the mini-BERT and the §5 lab BERTs), ``English lab BERT``, ``MiniLM
    (contrastive encoder)``, ``decoder`` (the physics models, BERT beside them included), ``hub model`` (any
    other name: a model loaded with ``from_pretrained``) or ``none`` (arithmetic on the data)."""
    m = (model or "").lower()
    if not m:
        return "none"
    if "decoder" in m:
        return "decoder"
    if m.startswith("english-bert") or "english lab" in m:
        return "English lab BERT"
    if m.startswith(("mini-bert", "minibert", "lab bert", "random-init:mini")):
        return "toy lab BERT"
    if "minilm" in m:
        return "MiniLM (contrastive encoder)"
    return "hub model"


PART_TITLES = {
    "survey": "Survey — A Primer in BERTology",
    "physics": "Physics of language models",
    "duplication": "Layer duplication",
}
_ICON = {"reproduced": "✅", "not reproduced": "❌", "inconclusive": "❔"}


def _by_part(claims: Sequence[Claim], parts: dict[str, str]) -> dict[str, list[Claim]]:
    out: dict[str, list[Claim]] = {}
    for c in claims:
        out.setdefault(parts.get(c.notebook, "other"), []).append(c)
    return out


def _counts_line(claims: Sequence[Claim]) -> str:
    return ", ".join(f"{n} {v}" for v, n in summary(claims).items())


def stale(claims: Sequence[Claim]) -> list[Claim]:
    """Claims recorded under another statement, source, rule or unit than the registry now holds: their
    notebooks are due for re-execution (a rule changes in a commit of its own, before it is run)."""
    reg = load_all()
    out = []
    for c in claims:
        s = reg.get(c.id)
        if s is None or (c.statement, c.source, c.rule, c.unit) != (s.statement, s.source, s.rule.describe(), s.unit):
            out.append(c)
    return out


def _stale_note(claims: Sequence[Claim]) -> list[str]:
    old = stale(claims)
    if not old:
        return []
    nbs = sorted({c.notebook for c in old})
    return [
        f"**{len(old)} claims were recorded under an earlier registered rule** (their notebooks are due for "
        f"re-execution: {', '.join(nbs)}); their verdicts below are the earlier rule's: "
        f"{', '.join(c.id for c in old)}.",
        "",
    ]


def _opening(claims: Sequence[Claim]) -> list[str]:
    k = counts(claims)
    inst = k["instrument"]
    n_rep = sum(k["verdict"].values())
    return [
        f"**{n_rep} claims tested**: {_counts_line(reproductions(claims))}. By instrument status: "
        f"{inst['ok']} with every declared check passed, {inst['failed']} inconclusive because an instrument "
        f"did not work, {inst['not checked']} with no instrument check declared. "
        f"{k['setup']['setup checks']} setup checks (generator constants, arithmetic) are listed apart and "
        "not counted.",
        "",
    ] + _stale_note(claims)


def _notebook_href(c: Claim) -> str:
    anchor = (c.details or {}).get("anchor")
    return f"../notebooks/{c.notebook}.html" + (f"#{anchor}" if anchor else "")


def _notebook_link(c: Claim, titles: dict[str, str]) -> str:
    """A link to the cell that computed ``c`` when its output carries the anchor, else to the page."""
    if not c.notebook:
        return ""
    title = titles.get(c.notebook, c.notebook)
    if (c.details or {}).get("anchor"):  # raw HTML: Sphinx does not know output ids as targets
        return f'<a href="{_notebook_href(c)}">{title}</a>'
    return f"[{title}](../notebooks/{c.notebook}.ipynb)"


def _scale_text(c: Claim) -> str:
    if not c.scale:
        return "not recorded"
    return "; ".join(f"{k}: {fmt(v)}" for k, v in c.scale.items())


def _row(c: Claim, part: str, titles: dict[str, str]) -> str:
    e = html.escape
    checks = (
        "; ".join(
            f"{x['name']} {fmt(x['value'])} ({'ok' if x['passed'] else 'failed'}: {x['requirement']})" for x in c.checks
        )
        or "none declared"
    )
    more = (
        f"<details><summary>rule, model, scale, checks</summary><p><b>Source</b>: {e(c.source)}. "
        f"<b>Rule</b> <code>{e(c.rule_id or '')}</code>: {e(c.rule)}. <b>Model</b>: {e(c.model or 'n/a')} "
        f"(profile {e(c.profile or '?')}, seed {e(str(c.seed))}). <b>Scale</b>: {e(_scale_text(c))}. "
        f"<b>Instrument checks</b>: {e(checks)}.</p></details>"
    )
    verdict = c.verdict + (" — instrument" if c.instrument_failed else "")
    nv = null_verdict(c)
    if nv:
        ours = (c.details or {}).get("null_ours")
        more = more.replace(
            "</p></details>",
            f" <b>Null model</b> (the random-init twin, <code>bertology run --null</code>): {e(nv)}"
            + (f", {e(with_unit(ours, c.unit))}" if ours is not None else "")
            + (
                "; a rule the null passes is no evidence, so this row is not counted as reproduced"
                if null_passes(c)
                else ""
            )
            + ".</p></details>",
        )
    built = (c.details or {}).get("by_construction", "")
    if built:
        beyond = (c.details or {}).get("beyond", "")
        more = more.replace(
            "</p></details>",
            f" <b>The data can decide it</b>: {e(built)}."
            + (f" Measured beyond the data in <code>{e(beyond)}</code>." if beyond else "")
            + "</p></details>",
        )
    link = f'<a href="{e(_notebook_href(c))}">{e(titles.get(c.notebook, c.notebook))}</a>' if c.notebook else ""
    cells = [
        f"{_ICON.get(c.verdict, '')} {e(verdict)}"
        + (f'<br><span class="ledger-tag" title="{e(built)}">the data can decide it</span>' if built else "")
        + ('<br><span class="ledger-tag">a null model passes too: not counted</span>' if null_passes(c) else ""),
        f"{e(c.statement)} <code>{e(c.id)}</code>{more}",
        e(PART_TITLES.get(part, part).split(" — ")[0]),
        e(with_unit(c.paper, c.unit)),
        e(with_unit(c.ours, c.unit)),
        link,
    ]
    attrs = (
        f'data-part="{e(part)}" data-verdict="{e(c.verdict)}" data-instrument="{instrument_status(c)}" '
        f'data-kind="{e(c.kind)}" data-model="{e(model_class(c.model))}" data-construction="{"yes" if built else "no"}" '
        f'data-null="{e(nv or "not run")}"'
    )
    return f"<tr {attrs}>" + "".join(f"<td>{x}</td>" for x in cells) + "</tr>"


def _table(claims: Sequence[Claim], parts: dict[str, str], titles: dict[str, str], table_id: str) -> list[str]:
    head = "".join(
        f'<th data-sort="{i}">{h}</th>'
        for i, h in enumerate(("verdict", "claim", "part", "paper", "ours", "where it was computed"))
    )
    rows = [_row(c, parts.get(c.notebook, "other"), titles) for c in claims]
    return [
        f'<div class="ledger-wrap"><table class="ledger" id="{table_id}"><thead><tr>{head}</tr></thead><tbody>',
        *rows,
        "</tbody></table></div>",
        "",
    ]


def ledger_markdown(
    claims: Sequence[Claim], notebook_titles: dict[str, str] | None = None, parts: dict[str, str] | None = None
) -> str:
    """The "Claims ledger" book page, generated from the executed notebooks.

    One table of the reproductions (verdict, claim, part, paper, ours, a link to the cell that computed
    it; source, rule, model, scale and instrument checks one click away), filterable by part, verdict,
    instrument status and model class (:func:`model_class`) and sortable by column (``book/_static/ledger.js``,
    offline; a query such as ``?verdict=reproduced&sort=ours`` opens the page filtered and sorted), then the
    setup checks. ``parts`` maps a notebook name to its part (survey, physics, duplication).
    """
    titles, parts = notebook_titles or {}, parts or {}
    lines = [
        "# Claims ledger",
        "",
        "Every claim the book tests, read back from the executed notebooks when the book was built. Each",
        "claim's rule was registered in the library before the notebook ran (`bertology_lib/book/claims`); the",
        "verdict is computed in the notebook by that rule, and is *inconclusive — instrument* when a check the",
        "measurement needs failed (the model did not memorise, the probe does not beat its baseline). Nothing",
        "here is typed by hand. Regenerated by `bertology build` (or `bertology claims --markdown`).",
        "✅ reproduced · ❌ not reproduced · ❔ inconclusive.",
        "",
    ]
    if not claims:
        lines.append("No executed notebook has recorded a claim yet.")
        return "\n".join(lines) + "\n"
    lines += _opening(claims)
    lines += ['<div class="ledger-filters" data-table="ledger-claims"></div>', ""]
    lines += _table(reproductions(claims), parts, titles, "ledger-claims")  # ids apart from the headings' ids
    setup = [c for c in claims if c.kind == "setup"]
    if setup:
        lines += [
            "## Setup checks (not counted)",
            "",
            "Checks of the generators' own constants and of arithmetic: true by construction when the code",
            "is right, so they test the code, not the papers.",
            "",
        ]
        lines += _table(setup, parts, titles, "ledger-setup")
    return "\n".join(lines) + "\n"


def findings_markdown(
    claims: Sequence[Claim], notebook_titles: dict[str, str] | None = None, parts: dict[str, str] | None = None
) -> str:
    """The closing chapter "What reproduced and what did not", written from the ledger.

    It opens with the counts by verdict and by instrument status; every sentence is assembled from
    recorded claims: statement, source, our number and the rule; nothing is typed by hand. Setup
    checks are left out.
    """
    titles = notebook_titles or {}
    lines = [
        "# What reproduced and what did not",
        "",
        "This chapter is generated from the [claims ledger](claims_ledger.md) each time the",
        "book is built, so it always says what the executed notebooks found, at the profile",
        "they ran with. A claim that did not reproduce at small scale is a finding about",
        "that scale, with its evidence in the linked notebook; an *inconclusive — instrument*",
        "claim says the measurement could not be made at this scale, not that the paper is wrong.",
        "",
    ]
    if not claims:
        return "\n".join(lines + ["No executed notebook has recorded a claim yet."]) + "\n"
    profiles = sorted({c.profile for c in claims if c.profile})
    lines += [f"Profile(s) of this rendering: {', '.join(profiles) or 'unknown'}.", ""]
    lines += _opening(claims)
    for part, items in _by_part(reproductions(claims), parts or {}).items():
        lines += [f"## {PART_TITLES.get(part, part.title())}", ""]
        for verdict in Verdict:
            chosen = [c for c in items if c.verdict == verdict.value]
            if not chosen:
                continue
            lines += [f"### {_ICON[verdict.value]} {verdict.value.capitalize()} ({len(chosen)})", ""]
            for c in chosen:
                inst = f" Instrument: {c.instrument}." if c.instrument_failed else ""
                lines.append(
                    f"- **{c.statement}** ({c.source}). Paper: {with_unit(c.paper, c.unit)}; ours: "
                    f"{with_unit(c.ours, c.unit)} (rule: {c.rule}).{inst} — {_notebook_link(c, titles)}."
                )
            lines.append("")
    return "\n".join(lines) + "\n"
