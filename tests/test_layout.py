"""The house rules of the library's layout, measured on the code (issues #15, #36).

* packages have ranks (core modules < data < models < training < analysis < interventions < experiments <
  book; plots apart, imported by notebooks only): a module imports only packages of lower rank, counting
  imports inside functions -- which also rules out import cycles between packages;
* tools (core modules, data, models, training, analysis, interventions) never import the book's chapter
  code (``experiments``), the book (``book``) or the figures (``plots``); ``plots`` import no tool either;
* no import cycle between modules, counting imports inside functions;
* no private (underscore) name crosses a module: neither imported (``from m import _x``, in the library,
  the notebooks and the tests) nor reached by attribute (``m._x``, in the library and the notebooks);
* every module imports; no module over :data:`MAX_LINES`, and those over :data:`REVIEW_LINES` are listed
  in a warning (a review signal: group code by concept, not by file size).
"""

from __future__ import annotations

import ast
import importlib
import json
import warnings
from pathlib import Path

import pytest

from bertology_lib.book.stamps import imported_modules, library_modules

MODULES = library_modules()
PKG = "bertology_lib"
ROOT = Path(__file__).resolve().parents[1]
UPPER = (f"{PKG}.experiments", f"{PKG}.book", f"{PKG}.plots")
RANKS = {
    "core": 0,
    "data": 1,
    "models": 2,
    "training": 3,
    "analysis": 4,
    "interventions": 5,
    "experiments": 6,
    "book": 7,
    "plots": 8,
}  # plots: pure figures, imported by notebooks only (they import core only)
MAX_LINES = 1000  # a hard limit: a god module
REVIEW_LINES = 500  # a review signal: listed in a warning, not a failure


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
    bad = sorted(
        f"{m} -> {d}" for m, deps in GRAPH.items() if not _is_under(m, UPPER) for d in deps if _is_under(d, UPPER)
    )
    assert bad == []


def test_plots_import_no_library_code_but_core():
    allowed = {f"{PKG}", f"{PKG}.errors", f"{PKG}.validation", f"{PKG}.plots"}
    bad = sorted(
        f"{m} -> {d}"
        for m, deps in GRAPH.items()
        if _is_under(m, (f"{PKG}.plots",))
        for d in deps
        if not (d in allowed or _is_under(d, (f"{PKG}.plots",)))
    )
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
    graph = {
        m: {d for d in deps if not (MODULES[d].name == "__init__.py" and m.startswith(d + "."))}
        for m, deps in GRAPH.items()
    }
    assert _cycles(graph) == []


def test_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def package_of(module: str) -> str:
    """The ranked package a module belongs to: ``core`` for the modules directly in the library."""
    parts = module.split(".")
    return parts[1] if len(parts) > 2 or (len(parts) == 2 and parts[1] in RANKS) else "core"


def _rank_violations(graph: dict[str, set[str]]) -> list[str]:
    """Every import of a package of the same or a higher rank than the importer's (a package's own modules
    aside)."""
    bad = []
    for m, deps in graph.items():
        a = package_of(m)
        for d in deps:
            b = package_of(d)
            if a != b and RANKS[b] >= RANKS[a]:
                bad.append(f"{m} ({a}) -> {d} ({b})")
    return sorted(bad)


def test_a_module_imports_only_packages_of_lower_rank():
    assert _rank_violations(GRAPH) == []


def test_rank_checker_finds_an_upward_import():
    graph = {
        f"{PKG}.models.minibert": {f"{PKG}.training.loop", f"{PKG}.models.tokenization", f"{PKG}.cache"},
        f"{PKG}.training.loop": {f"{PKG}.models.task_heads", f"{PKG}.training.masking"},
        f"{PKG}.cache": {f"{PKG}.profiles"},
        f"{PKG}.profiles": {f"{PKG}.experiments.survey.sizes"},
    }
    assert _rank_violations(graph) == [
        f"{PKG}.models.minibert (models) -> {PKG}.training.loop (training)",
        f"{PKG}.profiles (core) -> {PKG}.experiments.survey.sizes (experiments)",
    ]


def _dotted(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        head = _dotted(node.value)
        return None if head is None else f"{head}.{node.attr}"
    return None


def _private_attribute_uses(source: str, modules, where: str) -> list[str]:
    """Every ``m._x`` in ``source`` where ``m`` names a library module (``import a.b as m``, ``from a import
    b as m``, or a dotted ``a.b._x``): a private name reached across modules by attribute."""
    tree = ast.parse(source)
    aliases: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] == PKG:
                    aliases[a.asname or PKG] = a.name if a.asname else PKG
        elif isinstance(node, ast.ImportFrom) and not node.level and (node.module or "").split(".")[0] == PKG:
            for a in node.names:
                if f"{node.module}.{a.name}" in modules:
                    aliases[a.asname or a.name] = f"{node.module}.{a.name}"
    bad = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            dotted = _dotted(node.value)
            if dotted is None or dotted.split(".")[0] not in aliases:
                continue
            head, *rest = dotted.split(".")
            if ".".join([aliases[head], *rest]) in modules:
                bad.add(f"{where}: {dotted}.{node.attr}")
    return sorted(bad)


def _code_cells(nb: Path) -> list[str]:
    """The code cells of a notebook, without IPython magics and shell lines (not Python)."""
    out = []
    for cell in json.loads(nb.read_text())["cells"]:
        if cell["cell_type"] == "code":
            out.append(
                "\n".join(ln for ln in "".join(cell["source"]).splitlines() if not ln.lstrip().startswith(("%", "!")))
            )
    return out


def test_no_private_name_is_reached_by_attribute_across_modules():
    bad = []
    for name, path in MODULES.items():
        bad += _private_attribute_uses(path.read_text(), MODULES, name)
    for nb in sorted((ROOT / "notebooks").glob("*.ipynb")):
        for src in _code_cells(nb):
            bad += _private_attribute_uses(src, MODULES, nb.name)
    assert bad == []


def test_private_attribute_finder_finds_one():
    src = (
        "from bertology_lib.experiments.physics import bert as pbert\nimport bertology_lib.cache\n"
        "import bertology_lib.models.registry as reg\n"
        "pbert._bert_rows(1)\nbertology_lib.cache._sha256(p)\nreg._hub_offline()\n"
        "pbert.bert_rows(1)\nself._x\npbert.__name__\n"
    )
    modules = {f"{PKG}.experiments.physics.bert", f"{PKG}.cache", f"{PKG}.models.registry"}
    assert _private_attribute_uses(src, modules, "m") == [
        "m: bertology_lib.cache._sha256",
        "m: pbert._bert_rows",
        "m: reg._hub_offline",
    ]


def test_no_private_name_crosses_a_module():
    bad = []
    for name, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(PKG):
                bad += [
                    f"{name}: from {node.module} import {a.name}"
                    for a in node.names
                    if a.name.startswith("_") and not a.name.startswith("__")
                ]
    assert bad == []


def _private_imports(source: str, where: str) -> list[str]:
    tree = ast.parse(source)
    return [
        f"{where}: {a.name}"
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(PKG)
        for a in node.names
        if a.name.startswith("_") and not a.name.startswith("__")
    ]


def test_notebooks_and_tests_import_no_private_name():
    bad = []
    for nb in sorted((ROOT / "notebooks").glob("*.ipynb")):
        for src in _code_cells(nb):
            bad += _private_imports(src, nb.name)
    tests = sorted((ROOT / "tests").glob("*.py"))
    assert len(tests) > 50  # the tests themselves, not an empty glob
    for path in tests:
        bad += _private_imports(path.read_text(), path.name)
    assert bad == []


def test_private_import_finder_finds_one():
    assert _private_imports("def f():\n    from bertology_lib.book.cli import _check_params, main\n", "t") == [
        "t: _check_params"
    ]


@pytest.mark.parametrize("name", sorted(MODULES))
def test_module_size(name):
    n = len(MODULES[name].read_text().splitlines())
    assert n <= MAX_LINES, f"{name} has {n} lines; split it by what it holds"


def test_modules_over_the_review_size_are_listed():
    """Not a failure: a module past :data:`REVIEW_LINES` asks a reviewer whether it is still one concept."""
    long = {name: len(path.read_text().splitlines()) for name, path in MODULES.items()}
    long = {name: n for name, n in sorted(long.items()) if n > REVIEW_LINES}
    if long:
        warnings.warn(
            pytest.PytestWarning(
                f"{len(long)} modules over {REVIEW_LINES} lines (review: one concept each?): "
                + ", ".join(f"{name} ({n})" for name, n in long.items())
            )
        )
