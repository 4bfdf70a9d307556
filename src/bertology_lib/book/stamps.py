"""Execution stamps: what an executed notebook's results depend on, so that a build re-runs only what changed.

A stamp (notebook metadata ``bertology_run``) hashes the notebook's cells (not outputs, not the injected
parameters), the parameters it ran with, and the library modules it imports, directly or through other
library modules (:func:`library_closure`; of the notebook registry only the notebook's own entry,
:func:`notebook_spec_text`); beside the hash it records the environment that changes the
numbers (:func:`bertology_lib.runtime.environment`: torch, transformers and numpy versions and the thread
count), and the registered specs of the claims the notebook records (:func:`claims_sha`: statement, rule,
checks, paper number; the spec modules are loaded by name, so no import closure reaches them). A notebook is up
to date when the hashes *and* the environment match (:func:`stale_reason`), so another stack, another thread
count or a changed rule re-executes. :func:`imported_modules` is also what the import-rule
test reads.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any


def library_modules() -> dict[str, Path]:
    """Every module of the package: dotted name -> file (packages by their ``__init__.py``)."""
    pkg = Path(__file__).resolve().parents[1]
    out = {}
    for f in sorted(pkg.rglob("*.py")):
        parts = list(f.relative_to(pkg.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = f
    return out


def imported_modules(source: str, module: str, is_package: bool, known: Mapping[str, Path]) -> set[str]:
    """Package modules that ``source`` imports anywhere (top level or inside functions), absolute or relative."""
    import ast

    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".") if is_package else module.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.add(target)
            found.update(f"{target}.{a.name}" for a in node.names)
    closed = set()
    for name in found:
        parts = name.split(".")
        for k in range(1, len(parts) + 1):  # importing a.b.c runs a and a.b first
            if ".".join(parts[:k]) in known:
                closed.add(".".join(parts[:k]))
    return closed


EXERCISES = "bertology_lib.book.exercises"
SPECS_MODULE = "bertology_lib.book.specs"  # the notebook registry: a notebook depends on its own entry only
_CHECKER_RE = re.compile(r"""@checker\(\s*["']([^"']+)["']""")
_LABEL_RE = re.compile(r"""["'](ex-[A-Za-z0-9_.-]+)["']""")


def checker_modules(known: Mapping[str, Path]) -> dict[str, str]:
    """Which module of :mod:`bertology_lib.book.exercises` defines each exercise's checker: label -> module,
    read from the ``@checker("label")`` decorators in the sources (nothing is imported)."""
    out: dict[str, str] = {}
    for name, f in known.items():
        if name.startswith(EXERCISES + "."):
            out.update({label: name for label in _CHECKER_RE.findall(f.read_text())})
    return out


def notebook_code(notebook: Path) -> str:
    """The Python of a notebook's code cells, without IPython magics and shell lines."""
    nb = json.loads(Path(notebook).read_text())
    return "\n".join(
        "\n".join(line for line in "".join(c["source"]).splitlines() if not line.lstrip().startswith(("%", "!")))
        for c in nb["cells"]
        if c["cell_type"] == "code"
    )


def recorded_claim_ids(notebook: Path, registered: Any) -> list[str]:
    """The registered claim ids that a notebook's code names as string literals (``record_claim("id", ...)``,
    or ids kept in a dict or tuple and recorded in a loop); for an id built at run time (an f-string such as
    ``f"survey4.1.{name}"``) every registered id that starts with the f-string's literal head (up to its last dot)."""
    import ast

    try:
        tree = ast.parse(notebook_code(notebook))
    except SyntaxError:
        return sorted(registered)
    literals = {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
    heads = {
        n.values[0].value.rsplit(".", 1)[0] + "."
        for n in ast.walk(tree)
        if isinstance(n, ast.JoinedStr)
        and n.values
        and isinstance(n.values[0], ast.Constant)
        and "." in str(n.values[0].value)
    }
    return sorted(i for i in registered if i in literals or any(i.startswith(h) for h in heads))


def claims_sha(notebook: Path) -> str:
    """SHA-256 over the registered specs (:mod:`bertology_lib.book.claims.registry`) of the claims the notebook
    records (:func:`recorded_claim_ids`): a changed rule, threshold, check list, statement or paper number
    stales the notebook that records the claim and no other."""
    import dataclasses
    import hashlib

    from bertology_lib.book.claims.registry import load_all

    reg = load_all()
    h = hashlib.sha256()
    for cid in recorded_claim_ids(notebook, reg):
        spec = reg[cid]
        fields = {f.name: getattr(spec, f.name) for f in dataclasses.fields(spec) if f.compare}
        fields["rule"] = spec.rule_id
        h.update(json.dumps(fields, sort_keys=True, default=str).encode())
    return h.hexdigest()


def library_closure(notebook: Path | None = None) -> list[Path]:
    """The library files a notebook's results can depend on: the package modules its code cells import,
    and everything those import in turn (a notebook that cannot be parsed, or no notebook: all of them).

    The exercises package imports every notebook's checker module (so that all checkers register); a notebook's
    results depend only on the checkers of the exercises it checks (the ``"ex-…"`` labels in its code), so
    from that package only those checker modules are followed (:func:`checker_modules`). A change to a physics
    checker then leaves a survey notebook's stamp valid.
    """
    known = library_modules()
    if notebook is None:
        return sorted(known.values())
    code = notebook_code(notebook)
    try:
        todo = imported_modules(code, "__notebook__", False, known)
    except SyntaxError:
        return sorted(known.values())
    owners = checker_modules(known)
    checker_files = set(owners.values())
    own = {owners[label] for label in _LABEL_RE.findall(code) if label in owners}
    done: set[str] = set()
    while todo:
        name = todo.pop()
        if name in done:
            continue
        done.add(name)
        f = known[name]
        found = imported_modules(f.read_text(), name, f.name == "__init__.py", known)
        if name == EXERCISES:
            found = (found - checker_files) | own
        todo |= found - done
    return sorted(known[n] for n in done)


def _is_docstring(node: Any) -> bool:
    import ast

    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)


def hashed_source(path: Path, module: str) -> bytes:
    """What :func:`library_sha` hashes of one module: its syntax tree (:func:`ast.dump`, no line numbers)
    without docstrings, so that comments, docstrings and layout do not stale a stamp (the exercises package
    names no checker module, it discovers them, so a new notebook's checkers leave every other notebook's stamp
    valid); for the notebook registry (:data:`SPECS_MODULE`) without its top-level registration
    statements, whose entry for the notebook :func:`library_sha` hashes instead (:func:`notebook_spec_text`), so
    adding or renaming another notebook leaves every stamp valid. A file that does not parse is hashed as it is."""
    import ast

    try:
        tree = ast.parse(path.read_text())
    except (SyntaxError, UnicodeDecodeError):
        return path.read_bytes()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            if node.body and _is_docstring(node.body[0]):
                node.body = node.body[1:] or [ast.Pass()]
    if module == SPECS_MODULE:  # the registrations, statements at the top level; each notebook hashes its own
        tree.body = [
            n
            for n in tree.body
            if not (isinstance(n, ast.For) or (isinstance(n, ast.Expr) and isinstance(n.value, ast.Call)))
        ]
    return ast.dump(tree).encode()


def library_sha(notebook: Path | None = None) -> str:
    """SHA-256 over the library sources a notebook depends on (:func:`library_closure`; without a
    notebook, the whole package), each as :func:`hashed_source` reads it: changing a module no notebook cell
    reaches, or only a docstring or comment, leaves its stamp valid."""
    import hashlib

    pkg = Path(__file__).resolve().parents[1]
    known = library_modules()
    names = {f: n for n, f in known.items()}
    h = hashlib.sha256()
    for f in library_closure(notebook):
        h.update(str(f.relative_to(pkg)).encode())
        h.update(hashed_source(f, names[f]))
        if names[f] == SPECS_MODULE and notebook is not None:
            h.update(notebook_spec_text(Path(notebook).stem).encode())
    return h.hexdigest()


def notebook_spec_text(name: str) -> str:
    """The registry entry of notebook ``name`` (:mod:`bertology_lib.book.specs`) as stable text: title, part and
    every parameter's name, default, doc, type, bounds and validator (by name); empty for an unregistered
    notebook."""
    import dataclasses

    from bertology_lib.book.specs import SPECS

    spec = SPECS.get(name)
    if spec is None:
        return ""
    params = [
        {
            **{f.name: getattr(p, f.name) for f in dataclasses.fields(p) if f.name != "check"},
            "check": getattr(p.check, "__qualname__", None),
        }
        for p in spec.params
    ]
    return json.dumps(
        {"name": spec.name, "title": spec.title, "part": spec.part, "params": params},
        sort_keys=True,
        default=lambda v: getattr(v, "__name__", repr(v)),
    )


def inputs_sha(path: Path, params: dict[str, Any], lib: str | None = None) -> str:
    """What an executed notebook's results depend on: its cells' sources (not outputs, not the
    injected-parameters cell), the parameters it ran with, and the library sources it imports."""
    import hashlib

    nb = json.loads(path.read_text())
    cells = [
        (c["cell_type"], "".join(c["source"]))
        for c in nb["cells"]
        if "injected-parameters" not in c.get("metadata", {}).get("tags", [])
    ]
    blob = json.dumps({"cells": cells, "params": params, "lib": lib or library_sha(path)}, sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()


STAMP = "bertology_run"  # notebook metadata: {"inputs_sha": ..., "claims_sha": ..., "params": ..., "environment": ...}


def current_environment() -> dict[str, Any]:
    """:func:`bertology_lib.runtime.environment` as plain JSON values (what a stamp records)."""
    from bertology_lib.runtime import environment

    return json.loads(json.dumps(environment(), default=str))


def stamp(path: Path, params: dict[str, Any], env: Mapping[str, Any] | None = None, lib: str | None = None) -> None:
    """Record in ``path``'s metadata what its results depend on: the inputs hash, the parameters and the
    environment (default: this process's, :func:`current_environment`). ``lib``: :func:`library_sha` taken
    when the run started (default: now), so that a library edit made while a notebook ran does not pass for
    what it ran with."""
    import nbformat

    nb = nbformat.read(path, as_version=4)
    nb.metadata[STAMP] = {
        "inputs_sha": inputs_sha(path, params, lib),
        "claims_sha": claims_sha(path),
        "params": params,
        "environment": dict(env) if env is not None else current_environment(),
    }
    tmp = path.with_name(f".{path.stem}.stamp.ipynb")
    nbformat.write(nb, tmp)
    os.replace(tmp, path)


def read_stamp(path: Path) -> dict[str, Any] | None:
    """The stamp of an executed notebook, or None."""
    return json.loads(Path(path).read_text()).get("metadata", {}).get(STAMP) or None


def stale_reason(
    path: Path, params: dict[str, Any], lib: str | None = None, env: Mapping[str, Any] | None = None
) -> str | None:
    """Why ``path`` must be re-executed with ``params`` in environment ``env`` (default: this process's),
    or None when it is up to date."""
    s = read_stamp(path)
    if not s:
        return "never executed in place (no stamp)"
    if s.get("inputs_sha") != inputs_sha(path, params, lib):
        return "its cells, parameters or library sources changed"
    if "claims_sha" in s and s["claims_sha"] != claims_sha(path):  # stamps from before 2026-12-03 lack it
        return "the registered specs of its claims changed"
    env = dict(env) if env is not None else current_environment()
    old = s.get("environment")
    if not old:
        return "its stamp records no environment (package versions, threads)"
    diff = [f"{k} {old.get(k)} -> {env.get(k)}" for k in sorted(set(old) | set(env)) if old.get(k) != env.get(k)]
    return f"environment differs: {', '.join(diff)}" if diff else None


def up_to_date(
    path: Path, params: dict[str, Any], lib: str | None = None, env: Mapping[str, Any] | None = None
) -> bool:
    """True when ``path`` was executed in place with these parameters, sources, library and environment."""
    return stale_reason(path, params, lib, env) is None
