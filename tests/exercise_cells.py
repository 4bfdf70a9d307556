"""Shared checks of the checked exercises, used by the ``test_exercises_*`` files (one per book part).

A test reads an exercise's teacher solution from its notebook (:func:`solution`: the code cell of
``notebooks/<notebook>.ipynb`` tagged ``solution`` whose first line is ``# Exercise: <label>``), never from a copy
of it, and runs it on the notebook's variables rebuilt small (:func:`solve`). A test file lists its notebooks and
their labels as ``NOTEBOOKS`` (notebook name -> its labels) for the convention checks below.
"""

from __future__ import annotations

import re

import contextlib
import functools
import io
import json
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from bertology_lib.book import exercises as ex

ROOT = Path(__file__).resolve().parents[1]


@functools.lru_cache(maxsize=1)
def _solution_cells() -> dict[str, tuple[str, str]]:
    """label -> (notebook name, source) of every solution cell of the book's notebooks."""
    out: dict[str, tuple[str, str]] = {}
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        if path.name.startswith("."):  # the .name.running files of a build
            continue
        for cell in json.loads(path.read_text())["cells"]:
            source = "".join(cell["source"])
            first = source.splitlines()[0] if source else ""
            if (
                cell["cell_type"] == "code"
                and "solution" in cell["metadata"].get("tags", [])
                and first.startswith("# Exercise: ")
            ):
                label = first.removeprefix("# Exercise: ").strip()
                assert label not in out, f"{label} has a solution cell in {out[label][0]} and in {path.stem}"
                out[label] = (path.stem, source)
    return out


def solution(label: str) -> str:
    """The teacher solution of exercise ``label``: its notebook's solution cell, as the notebook has it."""
    cells = _solution_cells()
    assert label in cells, f"no notebook has a solution cell starting with '# Exercise: {label}'"
    return cells[label][1]


def notebook_of(label: str) -> str:
    """The name of the notebook whose solution cell is that of ``label``."""
    solution(label)
    return _solution_cells()[label][0]


def run_solution(label: str, **names) -> str:
    """Run the notebook's solution cell of ``label`` on ``names`` (the notebook's variables); what it printed."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(solution(label), f"<{label}>", "exec"), {"display": print, **names})  # noqa: S102 - the cell
    return out.getvalue()


def solve(label: str, **names) -> str:
    """Run the solution cell of ``label`` on ``names``: it must pass its own check (``✅``, no ``❌``) within class
    time; what it printed."""
    t = time.perf_counter()
    out = run_solution(label, **names)
    assert f"✅ {label}:" in out and "❌" not in out, out
    assert time.perf_counter() - t < 60, f"{label}: the solution cell is too slow for class time"
    return out


def fails(label: str, answer, *hint: str, secret: str | None = None) -> ex.Feedback:
    """``answer`` fails the check of ``label``, with every one of ``hint`` in the message (and not ``secret``)."""
    fb = ex.check(label, answer)
    assert not fb.ok and "❌" in str(fb), (answer, fb)
    for h in hint:
        assert h in fb.message, fb.message
    if secret is not None:
        assert secret not in fb.message, f"gives the answer away: {fb.message}"
    return fb


def assert_conventions(labels: Sequence[str], count: int) -> None:
    """Every label has a documented checker and a solution cell that follows the conventions: its label first,
    the check printed last, at most 25 logic lines of at most 120 characters, a stub that keeps the check call."""
    assert set(labels) <= set(ex.CHECKERS) and len(set(labels)) == count
    for label in labels:
        code = solution(label)
        assert code.splitlines()[0] == f"# Exercise: {label}"
        assert code.rstrip().splitlines()[-1].startswith(f'print(check("{label}", ')
        assert all(len(line) <= 120 for line in code.splitlines()), label
        logic = [ln for ln in code.splitlines() if ln.strip() and not ln.strip().startswith("#")]
        assert len(logic) <= 25, f"{label}: {len(logic)} logic lines"
        stub = ex.student_stub({"source": code, "metadata": {"tags": ["solution"]}})
        assert re.fullmatch(rf'print\(check\("{label}", [A-Za-z_]\w*\)\)', stub.splitlines()[-1])  # on the placeholder
        assert f'check("{label}"' in stub, "the student keeps the instructions, with the check call"
        assert ex.CHECKERS[label].__doc__, label  # says what the answer is and the tolerance


def assert_notebook_cells(notebooks: Mapping[str, Sequence[str]]) -> None:
    """Every notebook carries its exercises: a solution cell per label (read by the library as that label's),
    tagged to hide, after its directives, and no later cell reads what only a solution defines."""
    import nbformat

    for nb_name, labels in notebooks.items():
        nb = nbformat.read(ROOT / "notebooks" / f"{nb_name}.ipynb", as_version=4)
        cells = {ex.solution_label(c): c for c in nb.cells if ex.is_solution_cell(c)}
        md = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
        for label in labels:
            assert label in cells, f"{nb_name}: no solution cell for {label}"
            assert notebook_of(label) == nb_name and cells[label].source == solution(label), label
            assert cells[label].metadata.get("tags") == ["solution", "hide-cell"]
            assert f":label: {label}" in md and f"{{solution}} {label}" in md
        assert not ex.solution_leaks(nb), f"{nb_name}: a later cell reads what only a solution defines"


def assert_regression_copies_carry(notebooks: Mapping[str, Sequence[str]]) -> None:
    """The smoke copies that nbval runs (``tests/regression``) carry every solution cell as the notebook has it,
    tagged ``solution`` (the tag by which ``exercise_plugin`` grades the cell), beside the exercise's directive,
    and their reference run printed the check's ✅: nbval really grades the solution the tests run."""
    for nb_name, labels in notebooks.items():
        nb = json.loads((ROOT / "tests" / "regression" / f"{nb_name}.ipynb").read_text())
        code = {
            "".join(c["source"]).splitlines()[0]: c
            for c in nb["cells"]
            if c["cell_type"] == "code" and "".join(c["source"]).startswith("# Exercise: ")
        }
        md = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
        for label in labels:
            cell = code.get(f"# Exercise: {label}")
            assert cell is not None, f"tests/regression/{nb_name}.ipynb lacks the solution cell of {label}"
            assert "".join(cell["source"]) == solution(label), f"{nb_name}: the copy's {label} cell drifted"
            assert cell["metadata"].get("tags") == ["solution", "hide-cell"], f"{nb_name}: {label} is not tagged"
            assert f":label: {label}" in md, f"{nb_name}: the copy lacks the exercise directive of {label}"
            printed = "".join(
                "".join(o.get("text", "")) + "".join(o.get("data", {}).get("text/plain", ""))
                for o in cell.get("outputs", [])
            )
            assert f"✅ {label}" in printed and "❌" not in printed, f"{nb_name}: {label} printed {printed!r}"


def assert_function_answer_needed(label: str) -> None:
    """A value instead of the function, and a function that raises, both fail with a message saying so."""
    fb = ex.check(label, 42)
    assert not fb.ok and "itself" in fb.message

    def broken(*args):
        raise ZeroDivisionError("oops")

    fb = ex.check(label, broken)
    assert not fb.ok and "ZeroDivisionError: oops" in fb.message


# -------------------------------------------------------------------------------- notebook variables rebuilt


@functools.lru_cache(maxsize=1)
def minilm():
    """The book's real encoder and its tokenizer (``all-MiniLM-L6-v2``), loaded once for the §2 and §4 tests."""
    from bertology_lib.models.registry import load_model, load_tokenizer

    return load_model("minilm"), load_tokenizer("minilm")


def quick_probe_rows():
    """The quick probe sentences split 1,125 / 375, rebuilt here independently of the checkers' helpers."""
    from bertology_lib.data.toy_english import ToyEnglishConfig, generate_corpus
    from bertology_lib.models import minibert

    cfg = minibert.MiniBertConfig.for_profile("quick")  # fresh draws in the corpus's words, 1,500 sentences
    sents = minibert.fresh_sentences(cfg, 1500)
    assert sents[0].text not in {
        x.text
        for x in generate_corpus(
            ToyEnglishConfig(n_sentences=cfg.n_sentences, seed=cfg.corpus_seed, vocab_size=cfg.vocab_size)
        )
    }
    return sents[:1125], sents[1125:]
