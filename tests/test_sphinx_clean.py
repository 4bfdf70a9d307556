"""The book build's Sphinx extension drops the comments only the tools read from rendered code, and only those."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace

import yaml
from docutils import nodes

from bertology_lib.book import sphinx_clean

CONFIG = yaml.safe_load((Path(__file__).resolve().parents[1] / "_config.yml").read_text())["sphinx"]["config"]
PATTERNS = (CONFIG["bertology_drop_lines"], CONFIG["bertology_drop_trailing"])
CHANCE = CONFIG["bertology_chance_markers"]
APP = SimpleNamespace(
    config=SimpleNamespace(
        bertology_drop_lines=PATTERNS[0], bertology_drop_trailing=PATTERNS[1], bertology_chance_markers=CHANCE
    )
)


def test_the_books_patterns_drop_marker_lines_and_noqa_comments_other_comments_stay():
    src = "# NBVAL_CHECK_OUTPUT\nf = lambda x: x  # noqa: E731\nprint(f(1))  # the answer\n  # NBVAL_IGNORE_OUTPUT\nx = '#noqa'"
    assert sphinx_clean.clean_source(src, *PATTERNS) == "f = lambda x: x\nprint(f(1))  # the answer\nx = '#noqa'"
    # a source page keeps its line numbers; no pattern, no change
    assert sphinx_clean.clean_source(src, *PATTERNS, keep_lines=True).split("\n")[0] == ""
    assert sphinx_clean.clean_source(src, "", "") == src


def test_a_doctree_code_block_is_rewritten():
    block = nodes.literal_block("# NBVAL_CHECK_OUTPUT\nx = 1", "# NBVAL_CHECK_OUTPUT\nx = 1")
    untouched = nodes.literal_block("y = 2", "y = 2")
    doc = nodes.section("", block, untouched)
    sphinx_clean._clean(APP, doc)
    assert block.astext() == "x = 1" and untouched.astext() == "y = 2"


def test_a_library_source_page_keeps_its_lines_and_tags():
    code, tags = sphinx_clean._module_source(APP, "bertology_lib.book.exercises.cases")
    original = (Path(sphinx_clean.__file__).parent / "exercises" / "cases.py").read_text()
    assert "noqa" in original and "noqa" not in code
    assert code.count("\n") == original.count("\n") and "judge_value" in tags
    assert sphinx_clean._module_source(APP, "numpy") is None  # other packages: viewcode's own reading


def test_a_downloaded_notebook_is_cleaned_and_keeps_its_outputs(tmp_path):
    import json

    import nbformat

    nb = nbformat.v4.new_notebook()
    code = nbformat.v4.new_code_cell("# NBVAL_CHECK_OUTPUT\nshift = lambda s: s  # noqa: E731\nprint(1)")
    code.outputs = [nbformat.v4.new_output("stream", text="1\n")]
    nb.cells = [nbformat.v4.new_markdown_cell("# Title"), code]
    path = tmp_path / "page.ipynb"
    nbformat.write(nb, path)
    out = SimpleNamespace(config=APP.config, outdir=str(tmp_path), builder=SimpleNamespace(format="html"))
    (tmp_path / "_sources").mkdir()
    path.rename(tmp_path / "_sources" / "page.ipynb")
    sphinx_clean._clean_downloads(out, None)
    back = json.loads((tmp_path / "_sources" / "page.ipynb").read_text())
    assert "".join(back["cells"][1]["source"]) == "shift = lambda s: s\nprint(1)"
    assert "".join(back["cells"][1]["outputs"][0]["text"]) == "1\n" and "".join(back["cells"][0]["source"]) == "# Title"
    assert not sphinx_clean.clean_notebook(tmp_path / "_sources" / "page.ipynb", *PATTERNS)  # nothing left to drop


def test_a_figure_whose_base64_spells_a_marker_is_wrapped_to_the_same_image(tmp_path):
    """A figure's base64 can spell "noqa" or "nbval" by chance; the downloaded copy wraps it into lines that cut
    every such run (a search of the file finds none) and decodes to the same bytes; other figures stay one string."""
    import base64
    import json

    raw = base64.b64encode(bytes(range(256)) * 60).decode()
    spelled = raw[:300] + "xNOQAx" + raw[306:5000] + "nbVaL" + raw[5005:9000] + "issue" + raw[9005:]
    nb = {
        "cells": [
            {
                "cell_type": "code",
                "source": ["x = 1\n"],
                "metadata": {},
                "outputs": [{"output_type": "display_data", "data": {"image/png": spelled}, "metadata": {}}],
            },
            {
                "cell_type": "code",
                "source": ["y = 2\n"],
                "metadata": {},
                "outputs": [{"output_type": "display_data", "data": {"image/png": "iVBORw0K"}, "metadata": {}}],
            },
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path = tmp_path / "nb.ipynb"
    path.write_text(json.dumps(nb))
    assert sphinx_clean.clean_notebook(path, *PATTERNS, CHANCE)
    text = path.read_text()
    assert not re.search(CHANCE, text.replace("\\n", "\n"), re.IGNORECASE)
    out = json.loads(text)["cells"]
    lines = out[0]["outputs"][0]["data"]["image/png"]
    assert isinstance(lines, list) and all(len(x.rstrip("\n")) <= 76 for x in lines)
    assert base64.b64decode("".join(lines)) == base64.b64decode(spelled)
    assert out[1]["outputs"][0]["data"]["image/png"] == "iVBORw0K"
    assert sphinx_clean.wrap_base64(raw[:200], CHANCE) == raw[:200]
    assert sphinx_clean.wrap_base64(spelled, "") == spelled  # no markers configured: nothing to wrap
