"""The API page documents every module of the library, package by package, in the layout's order."""

from __future__ import annotations

import re
from pathlib import Path

from bertology_lib.book.stamps import library_modules

ROOT = Path(__file__).resolve().parents[1]
API = ROOT / "book" / "api.md"


def documented() -> list[str]:
    return re.findall(r"^\.\. automodule:: (\S+)$", API.read_text(), flags=re.M)


def test_every_module_is_on_the_api_page_once():
    names = documented()
    assert len(names) == len(set(names)), "a module is documented twice"
    assert sorted(names) == sorted(library_modules()), "book/api.md and the package disagree"


def test_every_package_says_what_its_modules_hold():
    for name, path in library_modules().items():
        if path.name == "__init__.py":
            doc = path.read_text().lstrip()
            assert doc.startswith(('"""', "'''")) and len(doc.split('"""')[1].strip()) > 40, name


def package_modules() -> dict[str, list[str]]:
    """Each package of the library -> its direct submodules and subpackages (short names)."""
    mods = library_modules()
    out: dict[str, list[str]] = {}
    for name, path in mods.items():
        if path.name == "__init__.py":
            out[name] = sorted(m.rsplit(".", 1)[1] for m in mods if m.rsplit(".", 1)[0] == name and m != name)
    return out


def notebook_names() -> set[str]:
    return {p.stem for p in (ROOT / "notebooks").glob("*.ipynb")}


def undocumented(doc: str, modules: list[str]) -> list[str]:
    """The modules a package docstring does not name as ````module````; a package of one module per notebook
    (every module named after a notebook, the docstring saying so) names the convention instead."""
    per_notebook = notebook_names() if "one module per notebook" in doc else set()
    return [m for m in modules if m not in per_notebook and f"``{m}``" not in doc]


def test_every_package_docstring_names_each_of_its_modules():
    import ast

    missing = {}
    for pkg, modules in package_modules().items():
        doc = ast.get_docstring(ast.parse(library_modules()[pkg].read_text())) or ""
        if undocumented(doc, modules):
            missing[pkg] = undocumented(doc, modules)
    assert missing == {}, f"package docstrings that do not say what these modules hold: {missing}"


def test_the_docstring_check_catches_a_missing_module():
    assert undocumented("``a`` holds x", ["a", "b"]) == ["b"]
    assert undocumented("``a`` and ``b``", ["a", "b"]) == []
    assert undocumented("one module per notebook", ["not_a_notebook"]) == ["not_a_notebook"]
    assert undocumented("one module per notebook; ``shared``", ["survey_02_architecture", "shared"]) == []
