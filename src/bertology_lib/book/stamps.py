"""Execution stamps: what an executed notebook's results depend on, so that a build re-runs only what changed.

A stamp (notebook metadata ``bertology_run``) hashes the notebook's cells (not outputs, not the injected
parameters), the parameters it ran with, and the library modules it imports, directly or through other
library modules (:func:`library_closure`). :func:`imported_modules` is also what the import-rule test
reads.
"""

from __future__ import annotations

import json
import os
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


def library_closure(notebook: Path | None = None) -> list[Path]:
    """The library files a notebook's results can depend on: the package modules its code cells import,
    and everything those import in turn (a notebook that cannot be parsed, or no notebook: all of them)."""
    known = library_modules()
    if notebook is None:
        return sorted(known.values())
    nb = json.loads(Path(notebook).read_text())
    code = "\n".join(
        "\n".join(line for line in "".join(c["source"]).splitlines() if not line.lstrip().startswith(("%", "!")))
        for c in nb["cells"] if c["cell_type"] == "code")
    try:
        todo = imported_modules(code, "__notebook__", False, known)
    except SyntaxError:
        return sorted(known.values())
    done: set[str] = set()
    while todo:
        name = todo.pop()
        if name in done:
            continue
        done.add(name)
        f = known[name]
        todo |= imported_modules(f.read_text(), name, f.name == "__init__.py", known) - done
    return sorted(known[n] for n in done)


def library_sha(notebook: Path | None = None) -> str:
    """SHA-256 over the library sources a notebook depends on (:func:`library_closure`; without a
    notebook, the whole package): changing a module no notebook cell reaches leaves its stamp valid."""
    import hashlib

    pkg = Path(__file__).resolve().parents[1]
    h = hashlib.sha256()
    for f in library_closure(notebook):
        h.update(str(f.relative_to(pkg)).encode())
        h.update(f.read_bytes())
    return h.hexdigest()


def inputs_sha(path: Path, params: dict[str, Any], lib: str | None = None) -> str:
    """What an executed notebook's results depend on: its cells' sources (not outputs, not the
    injected-parameters cell), the parameters it ran with, and the library sources it imports."""
    import hashlib

    nb = json.loads(path.read_text())
    cells = [(c["cell_type"], "".join(c["source"])) for c in nb["cells"]
             if "injected-parameters" not in c.get("metadata", {}).get("tags", [])]
    blob = json.dumps({"cells": cells, "params": params, "lib": lib or library_sha(path)}, sort_keys=True,
                      default=str)
    return hashlib.sha256(blob.encode()).hexdigest()


STAMP = "bertology_run"  # notebook metadata key: {"inputs_sha": ..., "params": ...}


def stamp(path: Path, params: dict[str, Any]) -> None:
    import nbformat

    nb = nbformat.read(path, as_version=4)
    nb.metadata[STAMP] = {"inputs_sha": inputs_sha(path, params), "params": params}
    tmp = path.with_name(f".{path.stem}.stamp.ipynb")
    nbformat.write(nb, tmp)
    os.replace(tmp, path)


def up_to_date(path: Path, params: dict[str, Any], lib: str | None = None) -> bool:
    """True when ``path`` was executed in place with these parameters, these sources and this library."""
    stamp = json.loads(path.read_text()).get("metadata", {}).get(STAMP)
    return bool(stamp) and stamp.get("inputs_sha") == inputs_sha(path, params, lib)
