"""Sphinx extension of the book build: the rendered code cells without the test and lint markers.

The notebooks carry markers for their tools: ``# NBVAL_CHECK_OUTPUT`` (the cells nbval compares in the
smoke copies) and ``# noqa: ...`` (ruff). They mean nothing to a reader, so the build drops a marker line and
a trailing ``# noqa`` comment from every code block it renders (:func:`clean_source`); the notebooks
themselves, which nbval and the stamps read, keep them. Listed in ``_config.yml`` (``extra_extensions``).
"""

from __future__ import annotations

import re
from typing import Any

MARKER_LINE = re.compile(r"^\s*#\s*NBVAL_[A-Z_]+\s*$")
NOQA = re.compile(r"(?:^|\s+)#\s*noqa\b(?::[^#\n]*)?\s*$")


def clean_source(text: str) -> str:
    """``text`` without nbval marker lines and without trailing ``# noqa`` comments."""
    return "\n".join(NOQA.sub("", line) for line in text.split("\n") if not MARKER_LINE.match(line))


def _clean(app: Any, doctree: Any) -> None:
    from docutils import nodes

    for node in doctree.findall(nodes.literal_block):
        text = node.astext()
        if "NBVAL_" in text or "noqa" in text:
            new = clean_source(text)
            if new != text:
                node.children = [nodes.Text(new)]
                node.rawsource = new


def setup(app: Any) -> dict[str, Any]:
    """Register the cleaning on every document read."""
    app.connect("doctree-read", _clean)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
