"""The house rules of the library's layout, measured on the code (issue #15).

* tools (core modules, data, models, training, analysis, interventions) never import the book's chapter
  code (``experiments``), the book (``book``) or the figures (``plots``); ``plots`` import no tool either;
* no import cycle between modules, counting imports inside functions;
* no private (underscore) name imported from another module;
* no module over the size limit, and every module imports.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

from bertology_lib.book.stamps import imported_modules, library_modules

MODULES = library_modules()
PKG = "bertology_lib"
UPPER = (f"{PKG}.experiments", f"{PKG}.book", f"{PKG}.plots")
MAX_LINES = 500


def _is_under(name: str, prefixes) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def _graph() -> dict[str, set[str]]:
    graph = {}
    for name, path in MODULES.items():
        deps = imported_modules(path.read_text(), name, path.name == "__init__.py", MODULES)
        # importing a.b.c runs the package a.b's __init__ too; only count real modules, not own parents
        graph[name] = {d for d in deps if d != name and not name.startswith(d + ".")}
    return graph


GRAPH = _graph()


def test_every_module_imports():
    for name in MODULES:
        importlib.import_module(name)


def test_tools_never_import_the_book_the_experiments_or_the_figures():
    bad = sorted(f"{m} -> {d}" for m, deps in GRAPH.items() if not _is_under(m, UPPER)
                 for d in deps if _is_under(d, UPPER))
    assert bad == []


def test_plots_import_no_library_code_but_core():
    allowed = {f"{PKG}", f"{PKG}.errors", f"{PKG}.validation", f"{PKG}.plots"}
    bad = sorted(f"{m} -> {d}" for m, deps in GRAPH.items() if _is_under(m, (f"{PKG}.plots",))
                 for d in deps if not (d in allowed or _is_under(d, (f"{PKG}.plots",))))
    assert bad == []


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in graph:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in graph:
        if v not in index:
            visit(v)
    return out


def test_no_import_cycles_even_through_imports_inside_functions():
    # package __init__ files that only re-export their own submodules are not part of a cycle
    graph = {m: {d for d in deps if not (MODULES[d].name == "__init__.py" and m.startswith(d + "."))}
             for m, deps in GRAPH.items()}
    assert _cycles(graph) == []


def test_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_private_name_crosses_a_module():
    bad = []
    for name, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(PKG):
                bad += [f"{name}: from {node.module} import {a.name}" for a in node.names
                        if a.name.startswith("_") and not a.name.startswith("__")]
    assert bad == []


def test_notebooks_and_tests_import_no_private_name():
    root = Path(__file__).resolve().parents[1]
    import json

    bad = []
    for nb in sorted((root / "notebooks").glob("*.ipynb")):
        for cell in json.loads(nb.read_text())["cells"]:
            if cell["cell_type"] != "code":
                continue
            src = "\n".join(ln for ln in "".join(cell["source"]).splitlines() if not ln.lstrip().startswith(("%", "!")))
            for node in ast.walk(ast.parse(src)):
                if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(PKG):
                    bad += [f"{nb.name}: {a.name}" for a in node.names if a.name.startswith("_")]
    assert bad == []


@pytest.mark.parametrize("name", sorted(MODULES))
def test_module_size(name):
    n = len(MODULES[name].read_text().splitlines())
    assert n <= MAX_LINES, f"{name} has {n} lines; split it by what it holds"
