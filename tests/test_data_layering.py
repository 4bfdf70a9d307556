"""The data layer's house rules, checked statically on its source (no imports run).

DESIGN.md: data/ imports only the core modules and other data modules; no import cycles (also
not through imports inside functions); no private name imported across modules; no module over
about 500 lines; every ``__all__`` lists only names that exist.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
DATA = SRC / "bertology_lib" / "data"
CORE = {
    "bertology_lib.errors",
    "bertology_lib.validation",
    "bertology_lib.profiles",
    "bertology_lib.seeding",
    "bertology_lib.cache",
    "bertology_lib.stats",
}
FILES = sorted(DATA.rglob("*.py"))
BEHAVIOUR = SRC / "bertology_lib" / "experiments" / "survey" / "behaviour.py"


def _module(path: Path) -> str:
    parts = path.relative_to(SRC).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> list[tuple[str, list[str]]]:
    """(module, imported names) of every import in the file, at any depth (functions included)."""
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out.extend((a.name, []) for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module == "bertology_lib" and node.level == 0:
            out.extend((f"bertology_lib.{a.name}", []) for a in node.names)  # ``from bertology_lib import stats``
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.append((node.module, [a.name for a in node.names]))
    return out


def test_data_imports_only_core_and_data_modules():
    bad = [
        (_module(f), m)
        for f in FILES
        for m, _ in _imports(f)
        if m.startswith("bertology_lib") and m not in CORE and not m.startswith("bertology_lib.data")
    ]
    assert not bad


def test_no_private_name_crosses_a_module():
    files = FILES + [BEHAVIOUR]
    bad = [
        (_module(f), m, n)
        for f in files
        for m, names in _imports(f)
        if m.startswith("bertology_lib")
        for n in names
        if n.startswith("_")
    ]
    assert not bad


def test_no_import_cycles_in_the_data_layer():
    modules = {_module(f): f for f in FILES}
    graph = {m: {i for i, _ in _imports(f) if i in modules and i != m} for m, f in modules.items()}
    done: set[str] = set()

    def visit(m: str, path: list[str]) -> None:
        if m in path:
            raise AssertionError(f"import cycle: {' -> '.join(path[path.index(m) :] + [m])}")
        if m in done:
            return
        for n in sorted(graph[m]):
            visit(n, path + [m])
        done.add(m)

    for m in sorted(graph):
        visit(m, [])


@pytest.mark.parametrize("path", FILES + [BEHAVIOUR], ids=lambda p: _module(p))
def test_every_name_in_all_exists(path):
    # module size: tests/test_layout.py's one policy (1,000 lines at most, over 500 listed for review)
    mod = importlib.import_module(_module(path))
    missing = [n for n in getattr(mod, "__all__", ()) if not hasattr(mod, n)]
    assert not missing
