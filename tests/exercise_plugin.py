"""A pytest plugin for nbval runs: every solution cell must pass its own checker.

nbval executes each book notebook's smoke copy under ``tests/regression/`` (the teacher version: solutions in
place). The exercise checker prints ``✅``/``❌`` rather than raising, so nbval alone would let a wrong solution
through; this hook fails a solution cell whose fresh output lacks ``✅ <label>`` or shows ``❌``. Loaded by
``tests/conftest.py``; ``tests/test_notebooks.py`` keeps the copies in step with the book.
"""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    """The teacher's run of every exercise: nbval executes each book notebook's smoke copy (the teacher version,
    solutions in place), and a solution cell passes only if its fresh output says ``✅ <label>`` and no ``❌``
    (the checker prints, it does not raise). ``tests/test_notebooks.py`` keeps the copies in step with the book."""
    result = yield
    cell, outs = getattr(item, "cell", None), getattr(item, "test_outputs", None)
    if cell is not None and outs is not None and Path(str(item.fspath)).suffix == ".ipynb":
        from bertology_lib.book import exercises as ex

        if ex.is_solution_cell(cell):
            label = ex.solution_label(cell)
            printed = "".join(str(o.get("text", "")) + str(o.get("data", {}).get("text/plain", "")) for o in outs)
            assert f"✅ {label}" in printed and "❌" not in printed, (
                f"exercise {label}: the solution does not pass its own checker at smoke; it printed {printed!r}"
            )
    return result
