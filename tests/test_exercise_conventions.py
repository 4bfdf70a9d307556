"""Conventions every notebook's exercises follow, checked once over every checker module.

The notebooks and their labels are read from the checkers themselves (``@checker("<label>")`` in
``book/exercises/<notebook>.py``), so a new exercise is covered without listing it here. The part files
(``test_exercises_<part>.py``) test what each checker accepts and rejects.
"""

from __future__ import annotations

import exercise_cells as cells
import pytest

from bertology_lib.book.stamps import checker_modules, library_modules


def _labels_by_notebook() -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for label, module in checker_modules(library_modules()).items():
        out.setdefault(module.rsplit(".", 1)[1], []).append(label)
    return {nb: sorted(labels) for nb, labels in sorted(out.items())}


NOTEBOOKS = _labels_by_notebook()
NO_SOLUTION_DIRECTIVE = {"ex-physics03-bits", "ex-physics05-ceiling"}  # their cells are the answer itself


def test_every_notebook_with_exercises_is_seen():
    assert len(NOTEBOOKS) >= 20 and all(NOTEBOOKS.values())


@pytest.mark.parametrize("notebook", sorted(NOTEBOOKS))
def test_the_notebook_carries_its_solution_cells(notebook):
    cells.assert_notebook_cells({notebook: [lb for lb in NOTEBOOKS[notebook] if lb not in NO_SOLUTION_DIRECTIVE]})


@pytest.mark.parametrize("notebook", sorted(NOTEBOOKS))
def test_its_regression_copy_carries_the_tested_solution_cells(notebook):
    """What nbval runs is what the tests run: the smoke copy holds the notebook's solution cells, tagged for
    ``exercise_plugin``, and its reference run passed every check."""
    cells.assert_regression_copies_carry({notebook: NOTEBOOKS[notebook]})


def _exercises(notebook) -> list[tuple[str, bool]]:
    """(label, labelled a discussion question) of every ``{exercise}`` directive in a notebook's Markdown."""
    import json
    import re

    md = "\n".join(
        "".join(c["source"]) for c in json.loads(notebook.read_text())["cells"] if c["cell_type"] == "markdown"
    )
    return [
        (m.group(1), bool(m.group(2))) for m in re.finditer(r"\{exercise\}\n:label: (\S+)\n(:class: discussion\n)?", md)
    ]


def test_every_exercise_has_a_checker_or_is_labelled_a_discussion_question():
    """A class never meets an exercise that asks for an answer and cannot tell it whether it is right: each
    exercise has a checker (``@checker``) and a work cell, or says it is an open discussion question."""
    from pathlib import Path

    checked = {label for labels in NOTEBOOKS.values() for label in labels}
    seen, orphans = 0, []
    for path in sorted((Path(__file__).parents[1] / "notebooks").glob("*.ipynb")):
        for label, discussion in _exercises(path):
            seen += 1
            if discussion == (label in checked):  # a checker and a discussion label, or neither
                orphans.append(f"{path.stem}: {label} ({'both' if discussion else 'neither'})")
    assert seen >= 89 and not orphans, orphans
