"""The book build's Sphinx extension drops test and lint markers from rendered code, and only those."""

from __future__ import annotations

from docutils import nodes

from bertology_lib.book import sphinx_clean


def test_marker_lines_and_noqa_comments_go_other_comments_stay():
    src = "# NBVAL_CHECK_OUTPUT\nf = lambda x: x  # noqa: E731\nprint(f(1))  # the answer\n  # NBVAL_IGNORE_OUTPUT\nx = '#noqa'"
    assert sphinx_clean.clean_source(src) == "f = lambda x: x\nprint(f(1))  # the answer\nx = '#noqa'"


def test_a_doctree_code_block_is_rewritten():
    block = nodes.literal_block("# NBVAL_CHECK_OUTPUT\nx = 1", "# NBVAL_CHECK_OUTPUT\nx = 1")
    untouched = nodes.literal_block("y = 2", "y = 2")
    doc = nodes.section("", block, untouched)
    sphinx_clean._clean(None, doc)
    assert block.astext() == "x = 1" and untouched.astext() == "y = 2"
