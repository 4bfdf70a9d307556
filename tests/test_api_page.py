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
