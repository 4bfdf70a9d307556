"""The null-model run: every notebook rerun with its models replaced by their random-init twins.

A rule that a model with no knowledge can pass is not evidence. ``bertology run --null`` reruns notebooks with
every model parameter (``model``, ``real_model``) set to ``random-init:<its default>`` (the same architecture
and tokenizer, untrained: :mod:`bertology_lib.models.registry`), into ``_build/runs/null/``, and
:func:`write_record` keeps what their claims came out as in ``book/null_model_run.json``, which the closing
chapter reports (:func:`findings_section`). A claim that a null model reproduces is named there with the
registered note that explains why (e.g. a claim about probes rather than about the model).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any, Sequence

from bertology_lib.models.registry import RANDOM_INIT

MODEL_PARAMS = ("model", "real_model")
# Claims for which a random-init twin is no null: what they measure does not depend on what the model learned (a
# wall-clock speed-up depends on the architecture only). Their null rows, those of the setup checks (constants and
# arithmetic) and those whose model the twin does not replace (the row reads a model the notebook trains itself,
# the same in the book's run and the null run) are recorded as NO_TEST (with the reason), never as a verdict, so
# the ledger neither discounts them for a null that passes nor credits them with one that fails.
NO_TEST = "not a null test"
NOT_A_NULL_TEST: dict[str, str] = {
    "size.heads_speedup": "a speed-up from removing heads depends on the architecture, not on what the weights learned",
    "size.distil_speedup": "a speed-up from fewer layers depends on the architecture, not on what the weights learned",
}
NULL_DIR = Path("_build") / "runs" / "null"
RECORD = Path("book") / "null_model_run.json"


def null_params(spec) -> dict[str, str]:
    """The parameters of ``spec``'s null run: each model parameter set to the random-init twin of its default."""
    out = {}
    for p in spec.params:
        if p.name in MODEL_PARAMS and not str(p.default).startswith(RANDOM_INIT):
            out[p.name] = f"{RANDOM_INIT}{p.default}"
    return out


def default_notebooks(names: Sequence[str]) -> list[str]:
    """The notebooks a bare ``--null`` reruns: every one with a model parameter (§3-§7 and the duplication
    notebooks; :func:`null_params` is not empty). The physics notebooks train their own models from the generator
    and have none; survey_05b-05d compare pretraining choices of models they train themselves."""
    from bertology_lib.book.specs import get_spec

    return [n for n in names if null_params(get_spec(n))]


def write_record(root: Path, profile: str) -> Path:
    """Collect the claims of every null run under ``_build/runs/null/`` into ``book/null_model_run.json``.

    A run of some notebooks updates the record rather than replacing it: the rows and parameters of the
    notebooks run now (and any older row of a claim they now carry, e.g. one that moved to a new notebook) are
    replaced; the rest of an existing record at the same profile and environment is kept, so the null run can
    be repeated one notebook at a time. At another profile or environment the record starts afresh."""
    from bertology_lib.book import claims
    from bertology_lib.book.execution import run_notebooks
    from bertology_lib.book.stamps import STAMP, current_environment

    keys = ("python", "torch", "transformers", "threads")
    rows, runs, envs, books = [], {}, [], {}
    for nb in run_notebooks(root / NULL_DIR):
        book_nb = root / "notebooks" / nb.name  # the book's own run: which model each of its rows read
        books[nb.stem] = book_stamp(book_nb)
        read = {c.id: c.model for c in claims.claims_in_notebook(book_nb)} if book_nb.is_file() else {}
        meta = json.loads(nb.read_text()).get("metadata", {})
        runs[nb.stem] = (meta.get(STAMP) or {}).get("params", meta.get("papermill", {}).get("parameters", {}))
        envs.append({k: v for k, v in ((meta.get(STAMP) or {}).get("environment") or {}).items() if k in keys})
        for c in claims.claims_in_notebook(nb):
            rows.append(
                {
                    "id": c.id,
                    "notebook": nb.stem,
                    "verdict": NO_TEST
                    if c.id in NOT_A_NULL_TEST or c.kind == "setup" or read.get(c.id) == c.model
                    else c.verdict,
                    **(
                        {"why": f"the twin does not reach the model this row reads ({c.model})"}
                        if read.get(c.id) == c.model and c.kind != "setup"
                        else {}
                    ),
                    "instrument": c.instrument,
                    "ours": c.ours,
                    "unit": c.unit,
                    "model": c.model,
                    "kind": c.kind,
                }
            )
    # the environment the runs ran in (their stamps), not this process's: the record may be written apart
    env = envs[0] if envs and all(e == envs[0] for e in envs) and envs[0] else None
    env = env or {k: v for k, v in current_environment().items() if k in keys}
    old = load_record(root)
    if old and old.get("profile") == profile and old.get("environment") == env:
        ids = {r["id"] for r in rows}
        kept = [r for r in old.get("claims", []) if r["notebook"] not in runs and r["id"] not in ids]
        books = {**{n: b for n, b in (old.get("book_stamps") or {}).items() if n not in runs}, **books}
        runs = {**{n: p for n, p in old.get("runs", {}).items() if n not in runs}, **runs}
        rows = sorted(kept + rows, key=lambda r: r["notebook"])  # stable: each notebook's claims in their order
    record = {
        "profile": profile,
        "written": time.strftime("%Y-%m-%d"),
        "runs": dict(sorted(runs.items())),
        "claims": rows,
        "environment": env,
        "book_stamps": dict(sorted(books.items())),
    }
    out = root / RECORD
    tmp = out.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
    tmp.replace(out)
    return out


def book_stamp(book_notebook: Path) -> dict[str, str] | None:
    """What a null run is matched to: the hashes of the book's own run of the notebook (its stamp's inputs and
    claim specs), when that run is up to date with the notebook's cells, library and specs now; None when it is
    not (a null run then describes code the book's numbers do not come from) or the book has no run."""
    from bertology_lib.book import stamps

    s = stamps.read_stamp(book_notebook) if book_notebook.is_file() else None
    if not s or stamps.stale_reason(book_notebook, s.get("params") or {}, env=s.get("environment")) is not None:
        return None
    return {"inputs_sha": s.get("inputs_sha"), "claims_sha": s.get("claims_sha")}


def currency(root: Path, record: dict[str, Any] | None = None) -> dict[str, str | None]:
    """For every notebook a null run covers (:func:`default_notebooks`): None when the record's null run matches
    the book's current run of it (:func:`book_stamp` then and now), else why not. The book's numbers change only
    with its stamp, so a stamp that changed since the null run leaves that notebook's null rows describing other
    code: ``bertology build`` reruns them (``--no-null`` skips it)."""
    from bertology_lib.book.specs import notebook_paths

    record = record if record is not None else load_record(root)
    names = default_notebooks([p.stem for p in notebook_paths(root)])
    recorded = (record or {}).get("book_stamps") or {}
    out: dict[str, str | None] = {}
    for n in names:
        now = book_stamp(root / "notebooks" / f"{n}.ipynb")
        if not record or n not in (record.get("runs") or {}):
            out[n] = "no null run recorded"
        elif n not in recorded:
            out[n] = "its null run predates the record's book stamps (unknown which run of the book it matches)"
        elif recorded[n] is None:
            out[n] = "the book's run was not up to date when its null run was recorded"
        elif now is None:
            out[n] = "the book's run is not up to date now"
        elif now != recorded[n]:
            out[n] = "the book's run changed since its null run (new stamp)"
        else:
            out[n] = None
    return out


def load_record(root: Path) -> dict[str, Any] | None:
    p = root / RECORD
    return json.loads(p.read_text()) if p.is_file() else None


def findings_section(record: dict[str, Any] | None, stale: dict[str, str | None] | None = None) -> list[str]:
    """Markdown lines for the closing chapter: what the null models' claims came out as, every "reproduced"
    among them named with its registered note, and (``stale``: :func:`currency`) the notebooks whose null run
    does not match the book's current run."""
    from bertology_lib.book.claims.registry import load_all

    lines = ["## The null-model run", ""]
    if not record or not record.get("claims"):
        return lines + ["No null-model run is recorded yet (`bertology run --null --profile quick` writes one).", ""]
    rows = [r for r in record["claims"] if r.get("kind") != "setup" and r["verdict"] != NO_TEST]
    untested = [r for r in record["claims"] if r["verdict"] == NO_TEST and r.get("kind") != "setup"]
    counts: dict[str, int] = {}
    for r in rows:
        counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
    failed = sum(1 for r in rows if str(r.get("instrument", "")).startswith("failed"))
    lines += [
        f"Every model of {len(record['runs'])} notebooks was replaced by its **random-init twin** (same "
        f"architecture and tokenizer, no training) and the notebooks rerun at `{record['profile']}`: a rule "
        "that such a model passes is not evidence. Of their "
        f"{len(rows)} claims, "
        + ", ".join(f"{n} {v}" for v, n in sorted(counts.items()))
        + f" ({failed} of them because an instrument check failed, as it should for a model that knows "
        "nothing).",
        "",
    ]
    behind = {n: why for n, why in (stale or {}).items() if why}
    if behind:
        lines += [  # one folded line: the list is for whoever wants it, the page stays a synthesis
            f"<details><summary><b>Not current for {len(behind)} of {len(stale or {})} notebooks</b> (which, "
            "and why)</summary>",
            "",
            "Their null runs do not match the book's current runs, so what their twins gave may describe other "
            "code. `bertology build` reruns them (by hand: `bertology run --null --profile "
            + str(record["profile"])
            + " <notebooks>`).",
            "",
            *[f"- {n}: {why}" for n, why in behind.items()],
            "",
            "</details>",
            "",
        ]
    elif stale:
        lines += [f"Every one of the {len(stale)} null runs matches the book's current run of its notebook.", ""]
    reg = load_all()
    passed = [r for r in rows if r["verdict"] == "reproduced"]
    if passed:
        lines += [f"<details><summary>Reproduced by a null model, and why ({len(passed)})</summary>", ""]
        for r in passed:
            note = reg[r["id"]].note if r["id"] in reg else ""
            lines.append(
                f"- `{r['id']}` ({r['notebook']}): {note or 'no registered explanation: the rule needs a fix.'}"
            )
        lines += ["", "</details>", ""]
    else:
        lines += ["No claim came out reproduced for a null model.", ""]
    if untested:
        lines += [f"<details><summary>Not a test for a null model, and why ({len(untested)})</summary>", ""]
        lines += [
            f"- `{r['id']}` ({r['notebook']}): {NOT_A_NULL_TEST.get(r['id']) or r.get('why', '')}" for r in untested
        ]
        lines += ["", "</details>", ""]
    return lines
