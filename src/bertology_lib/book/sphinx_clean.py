"""Sphinx extension of the book build: rendered code without the comments that only its tools read.

The notebooks and the library carry comments for their tools (the cells nbval compares, the lines the linter
skips). They mean nothing to a reader, so the build drops them from every code block it renders and from the
library's source pages (``sphinx.ext.viewcode``): a comment line matching the ``bertology_drop_lines`` pattern,
and a trailing comment matching ``bertology_drop_trailing`` (both set in ``_config.yml``, the only place that
names the markers). The files themselves, which nbval, ruff and the stamps read, keep them; a source page keeps
its line numbers (a dropped line becomes empty there). Listed in ``_config.yml`` (``extra_extensions``).
"""

from __future__ import annotations

import re
from typing import Any

LIBRARY = "bertology_lib"


def clean_source(text: str, drop_lines: str, drop_trailing: str, keep_lines: bool = False) -> str:
    """``text`` without the lines matching ``drop_lines`` (empty lines instead with ``keep_lines``) and without the
    trailing comments matching ``drop_trailing`` (regular expressions; an empty one drops nothing)."""
    line_re = re.compile(drop_lines) if drop_lines else None
    tail_re = re.compile(drop_trailing) if drop_trailing else None
    out = []
    for line in text.split("\n"):
        if line_re is not None and line_re.match(line):
            if keep_lines:
                out.append("")
            continue
        out.append(tail_re.sub("", line) if tail_re is not None else line)
    return "\n".join(out)


def _patterns(app: Any) -> tuple[str, str]:
    return app.config.bertology_drop_lines, app.config.bertology_drop_trailing


def _clean(app: Any, doctree: Any) -> None:
    from docutils import nodes

    lines, trailing = _patterns(app)
    for node in doctree.findall(nodes.literal_block):
        text = node.astext()
        new = clean_source(text, lines, trailing)
        if new != text:
            node.children = [nodes.Text(new)]
            node.rawsource = new


def _module_source(app: Any, modname: str) -> tuple[str, dict] | None:
    """The library module's source for its viewcode page, cleaned line for line (its tags keep their lines)."""
    if not (modname == LIBRARY or modname.startswith(LIBRARY + ".")):
        return None
    from sphinx.pycode import ModuleAnalyzer

    try:
        analyzer = ModuleAnalyzer.for_module(modname)
        analyzer.find_tags()
    except Exception:  # noqa: BLE001 - viewcode's own fallback: no source page for this module
        return None
    return clean_source(analyzer.code, *_patterns(app), keep_lines=True), analyzer.tags


def setup(app: Any) -> dict[str, Any]:
    """Register the patterns (``_config.yml`` sets them) and the cleaning of code blocks and source pages."""
    app.add_config_value("bertology_drop_lines", "", "env")
    app.add_config_value("bertology_drop_trailing", "", "env")
    app.connect("doctree-read", _clean)
    app.connect("viewcode-find-source", _module_source)
    return {"version": "2", "parallel_read_safe": True, "parallel_write_safe": True}
