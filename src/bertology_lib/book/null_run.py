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
    rows, runs, envs = [], {}, []
    for nb in run_notebooks(root / NULL_DIR):
        book_nb = root / "notebooks" / nb.name  # the book's own run: which model each of its rows read
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
        runs = {**{n: p for n, p in old.get("runs", {}).items() if n not in runs}, **runs}
        rows = sorted(kept + rows, key=lambda r: r["notebook"])  # stable: each notebook's claims in their order
    record = {
        "profile": profile,
        "written": time.strftime("%Y-%m-%d"),
        "runs": dict(sorted(runs.items())),
        "claims": rows,
        "environment": env,
    }
    out = root / RECORD
    tmp = out.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
    tmp.replace(out)
    return out


def load_record(root: Path) -> dict[str, Any] | None:
    p = root / RECORD
    return json.loads(p.read_text()) if p.is_file() else None


def findings_section(record: dict[str, Any] | None) -> list[str]:
    """Markdown lines for the closing chapter: what the null models' claims came out as, and every
    "reproduced" among them named with its registered note."""
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
