"""Sphinx extension of the book build: rendered code without the comments that only its tools read.

The notebooks and the library carry comments for their tools (the cells nbval compares, the lines the linter
skips). They mean nothing to a reader, so the build drops them from every code block it renders and from the
library's source pages (``sphinx.ext.viewcode``): a comment line matching the ``bertology_drop_lines`` pattern,
and a trailing comment matching ``bertology_drop_trailing`` (both set in ``_config.yml``, the only place that
names the markers). The copies of the notebooks a reader downloads from a page (``_sources/**/*.ipynb``, the
page's download button) are cleaned the same way once the build has written them. The files themselves, which
nbval, ruff and the stamps read, keep them; a source page keeps its line numbers (a dropped line becomes empty
there). Listed in ``_config.yml`` (``extra_extensions``).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
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


def wrap_base64(data: str | list[str], markers: str, width: int = 76) -> str | list[str]:
    """``data`` (a figure's base64 text) unchanged when the regular expression ``markers`` (case-insensitive; the
    letters of a tool's marker, ``bertology_chance_markers`` in ``_config.yml``) finds nothing in it. Base64 data can
    spell such letters by chance: no reader sees them, but a search of the downloaded file finds them, so the data
    is then returned as lines (nbformat's multi-line string; base64 decoders skip the line breaks) of at most
    ``width`` characters, with a further break inside every match, so that no line holds one. The image is the same
    bytes. An empty ``markers`` wraps nothing."""
    if not markers:
        return data
    pattern = re.compile(markers, re.IGNORECASE)
    flat = ("".join(data) if isinstance(data, list) else data).replace("\n", "")
    if not pattern.search(flat):
        return data
    cuts = set(range(width, len(flat), width))
    while True:
        bounds = [0, *sorted(cuts), len(flat)]
        lines = [flat[a:b] for a, b in zip(bounds, bounds[1:])]
        hits = [(a, m) for a, line in zip(bounds, lines) if (m := pattern.search(line))]
        if not hits:
            return [line + "\n" for line in lines[:-1]] + lines[-1:]
        cuts.update(a + m.start() + 2 for a, m in hits)  # cut inside each match (every marker is >= 4 letters)


def clean_notebook(path: Path, drop_lines: str, drop_trailing: str, chance_markers: str = "") -> bool:
    """Rewrite the notebook at ``path`` with :func:`clean_source` applied to its code cells and its figures' base64
    data wrapped where it spells one of ``chance_markers`` by chance (:func:`wrap_base64`; atomically; True when
    something changed).
    Its markdown, metadata and the other outputs stay as they are."""
    nb = json.loads(path.read_text())
    changed = False
    for cell in nb.get("cells", []):
        if cell.get("cell_type") != "code":
            continue
        for out in cell.get("outputs", []) or []:
            for mime, data in (out.get("data") or {}).items():
                if mime.startswith("image/") and mime != "image/svg+xml":
                    wrapped = wrap_base64(data, chance_markers)
                    if wrapped is not data:
                        out["data"][mime] = wrapped
                        changed = True
        src = "".join(cell.get("source", []))
        new = clean_source(src, drop_lines, drop_trailing)
        if new != src:
            cell["source"] = new.splitlines(keepends=True)
            changed = True
    if changed:
        tmp = path.with_suffix(".ipynb.tmp")
        tmp.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n")
        os.replace(tmp, path)
    return changed


def _clean_downloads(app: Any, exception: Exception | None) -> None:
    """The notebooks a reader downloads from the built pages, cleaned like the rendered code."""
    if exception is not None or app.builder.format != "html":
        return
    for path in sorted(Path(app.outdir, "_sources").rglob("*.ipynb")):
        clean_notebook(path, *_patterns(app), app.config.bertology_chance_markers)


def setup(app: Any) -> dict[str, Any]:
    """Register the patterns (``_config.yml`` sets them) and the cleaning of code blocks and source pages."""
    app.add_config_value("bertology_drop_lines", "", "env")
    app.add_config_value("bertology_drop_trailing", "", "env")
    app.add_config_value("bertology_chance_markers", "", "env")
    app.connect("doctree-read", _clean)
    app.connect("viewcode-find-source", _module_source)
    app.connect("build-finished", _clean_downloads)
    return {"version": "3", "parallel_read_safe": True, "parallel_write_safe": True}
