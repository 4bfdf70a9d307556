"""Sphinx extension: the book's exercises are numbered per chapter page, as the student copies number them.

sphinx-exercise numbers its ``{exercise}`` directives with Sphinx's figure numbering, which, in a book whose
table of contents is not numbered, counts on across the whole book ("Exercise 62" in a chapter with four).
After Sphinx assigns those numbers, :func:`renumber_per_page` numbers each page's exercises again from 1 in
their order on the page; the solution toggles read the same numbers. :func:`bertology_lib.book.exercises.export.plain_exercises`
numbers the student copies the same way.

Listed in ``_config.yml`` (``sphinx.extra_extensions``); outside every notebook's stamp.
"""

from __future__ import annotations

from typing import Any

FIGTYPE = "exercise"  # the enumerable node type sphinx-exercise registers


def renumber_per_page(fignumbers: dict[str, dict[str, dict[str, tuple[int, ...]]]]) -> None:
    """Number each page's exercises 1, 2, ... in their current order (``env.toc_fignumbers`` in place)."""
    for types in fignumbers.values():
        numbers = types.get(FIGTYPE)
        if numbers:
            order = sorted(numbers, key=lambda node_id: numbers[node_id])
            types[FIGTYPE] = {node_id: (i,) for i, node_id in enumerate(order, 1)}


def _renumber(app: Any, env: Any) -> list[str]:
    renumber_per_page(env.toc_fignumbers)
    return []


def setup(app: Any) -> dict[str, Any]:
    """Renumber after Sphinx's table-of-contents collector has assigned the book-wide numbers."""
    app.connect("env-get-updated", _renumber, priority=900)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
