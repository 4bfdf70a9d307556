"""Shared checks of the checked exercises' solution cells, used by the ``test_exercises_*`` files that keep the
cells as ``SOLUTIONS`` (the cell's exact source per label) and ``NOTEBOOKS`` (notebook name -> its labels)."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from bertology_lib.book import exercises as ex

ROOT = Path(__file__).resolve().parents[1]


def solve(solutions: Mapping[str, str], label: str, capsys, **names) -> str:
    """Run the solution cell of ``label`` on ``names`` (the notebook's variables); its printed output."""
    ns = {"display": print, **names}
    t = time.perf_counter()
    exec(compile(solutions[label], f"<{label}>", "exec"), ns)  # noqa: S102 - the notebook cell itself
    out = capsys.readouterr().out
    assert f"✅ {label}:" in out, out
    assert time.perf_counter() - t < 60, f"{label}: the solution cell is too slow for class time"
    return out


def fails(label: str, answer, *hint: str) -> None:
    """``answer`` fails the check of ``label``, with every one of ``hint`` in the message."""
    fb = ex.check(label, answer)
    assert not fb.ok, fb
    for h in hint:
        assert h in fb.message, fb.message


def assert_conventions(solutions: Mapping[str, str], labels: Sequence[str], count: int) -> None:
    """Every label has a documented checker and a solution cell that follows the conventions: its label first,
    the check printed last, at most 25 logic lines of at most 120 characters, a stub that keeps the check call."""
    assert set(labels) <= set(ex.CHECKERS) and len(set(labels)) == count
    for label in labels:
        code = solutions[label]
        assert code.splitlines()[0] == f"# Exercise: {label}"
        assert code.rstrip().splitlines()[-1].startswith(f'print(check("{label}", ')
        assert all(len(line) <= 120 for line in code.splitlines()), label
        logic = [ln for ln in code.splitlines() if ln.strip() and not ln.strip().startswith("#")]
        assert len(logic) <= 25, f"{label}: {len(logic)} logic lines"
        stub = ex.student_stub({"source": code, "metadata": {"tags": ["solution"]}})
        assert stub.splitlines()[-1] == f'raise NotImplementedError("Exercise {label}: write your solution here")'
        assert f'check("{label}"' in stub, "the student keeps the instructions, with the check call"
        assert ex.CHECKERS[label].__doc__, label  # says what the answer is and the tolerance


def assert_notebook_cells(notebooks: Mapping[str, Sequence[str]], solutions: Mapping[str, str]) -> None:
    """Every notebook carries its exercises, each cell exactly the tested one, after its directives, and no later
    cell reads what only a solution defines."""
    import nbformat

    for nb_name, labels in notebooks.items():
        nb = nbformat.read(ROOT / "notebooks" / f"{nb_name}.ipynb", as_version=4)
        cells = {ex.solution_label(c): c for c in nb.cells if ex.is_solution_cell(c)}
        md = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
        for label in labels:
            assert label in cells, f"{nb_name}: no solution cell for {label}"
            assert cells[label].source == solutions[label], f"{nb_name}: {label} differs from SOLUTIONS"
            assert cells[label].metadata.get("tags") == ["solution", "hide-cell"]
            assert f":label: {label}" in md and f"{{solution}} {label}" in md
        assert not ex.solution_leaks(nb), f"{nb_name}: a later cell reads what only a solution defines"


def assert_function_answer_needed(label: str) -> None:
    """A value instead of the function, and a function that raises, both fail with a message saying so."""
    fb = ex.check(label, 42)
    assert not fb.ok and "itself" in fb.message

    def broken(*args):
        raise ZeroDivisionError("oops")

    fb = ex.check(label, broken)
    assert not fb.ok and "ZeroDivisionError: oops" in fb.message
