"""Exercises from one source: student/teacher export, the stubs, and the answer checkers."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from bertology_lib.book import exercises as ex
from bertology_lib.errors import ParameterError

ROOT = Path(__file__).resolve().parents[1]
NB = ROOT / "notebooks" / "survey_02_architecture.ipynb"
# every book notebook with a code solution: nbval runs its teacher version (tests/regression, exercise_plugin),
# its student version is checked for leaks statically, and survey_02's student version is executed
WITH_SOLUTIONS = sorted(
    p
    for p in (ROOT / "notebooks").glob("*.ipynb")  # not the .name.running files of a build
    if not p.name.startswith(".") and any(ex.is_solution_cell(c) for c in nbformat.read(p, as_version=4).cells)
)
STUB = re.compile(r'^print\(check\("[\w.:-]+", [A-Za-z_]\w*\)\)$')  # the last line of a student's exercise cell


def _nb(*cells) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.cells = list(cells)
    return nb


def _solution_cell(source: str, **md) -> nbformat.NotebookNode:
    c = nbformat.v4.new_code_cell(source, metadata={"tags": ["solution"], **md})
    c.outputs = [nbformat.v4.new_output("stream", text="42\n")]
    c.execution_count = 7
    return c


def _export(tmp_path_factory, nb: Path) -> tuple[Path, Path]:
    out = tmp_path_factory.mktemp("exercises")
    r = subprocess.run(
        [sys.executable, "-m", "bertology_lib.book.cli", "export-student", nb.stem, "--out", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 0, r.stderr
    student, teacher = out / "student" / nb.name, out / "teacher" / nb.name
    assert student.is_file() and teacher.is_file(), r.stdout
    return student, teacher


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> tuple[Path, Path]:
    return _export(tmp_path_factory, NB)


def test_several_notebooks_have_checked_code_exercises():
    assert {"survey_02_architecture", "physics_03_pretrain_finetune", "physics_05_probing"} <= {
        p.stem for p in WITH_SOLUTIONS
    }


def test_every_notebook_has_two_checked_exercises():
    """#19: a teacher can hand out any notebook with at least two answers the checker grades offline."""
    few = {}
    for p in sorted((ROOT / "notebooks").glob("*.ipynb")):
        if p.name.startswith("."):
            continue
        ids = {
            m
            for c in nbformat.read(p, as_version=4).cells
            if ex.is_solution_cell(c)
            for m in re.findall(r'check\("(ex-[\w-]+)"', c.source)
        }
        if len(ids) < 2:
            few[p.stem] = sorted(ids)
    assert not few, f"notebooks with fewer than two checked exercises: {few}"


# ---------------------------------------------------------------- pure functions


def test_stub_keeps_leading_comments_and_names_the_exercise():
    cell = _solution_cell("# Exercise: ex-a\n# hint: use param_breakdown\n\nx = 1\n# later comment\nprint(x)")
    assert ex.student_stub(cell) == (
        "# Exercise: ex-a\n# hint: use param_breakdown\n"
        "from bertology_lib.book.exercises import check\n\n"
        "answer = ...  # your answer: replace ... (see the exercise above), then run this cell\n"
        'print(check("ex-a", answer))'
    )
    # the placeholder takes the name the solution checks; the label may also come from the cell metadata
    named = ex.student_stub(_solution_cell('# Exercise: ex-c\ndef f(x):\n    return x\nprint(check("ex-c", f))'))
    assert named.endswith(
        'f = ...  # your answer: replace ... (see the exercise above), then run this cell\nprint(check("ex-c", f))'
    )
    assert 'print(check("ex-b", answer))' in ex.student_stub(_solution_cell("x = 1", exercise="ex-b"))


def test_the_placeholder_is_not_attempted_and_says_so():
    label = sorted(ex.CHECKERS)[0]
    fb = ex.check(label, ...)
    assert not fb.ok and not fb.attempted and "not attempted" in fb.message
    assert str(fb).startswith(f"⏳ {label}:") and repr(fb) == str(fb)  # a cell's last value shows the line too


def test_solution_cell_without_label_is_refused_with_the_convention():
    with pytest.raises(ex.ExerciseError, match="# Exercise: <label>"):
        ex.student_notebook(_nb(_solution_cell("x = 1")))


def test_strip_solution_directives_all_fences_keeps_exercises():
    md = (
        "Intro\n\n```{exercise}\n:label: e1\n\nDo it.\n```\n\n"
        "```{solution} e1\n:class: dropdown\n\nDone.\n```\n\n"
        ":::{solution} e1\nColon fenced.\n:::\n\n"
        "````{solution} e1\n```python\nx = 1\n```\n````\n\nOutro"
    )
    out = ex.strip_solution_directives(md)
    assert "{solution}" not in out and "Done." not in out and "x = 1" not in out and "Colon" not in out
    assert out == "Intro\n\n```{exercise}\n:label: e1\n\nDo it.\n```\n\nOutro"
    with pytest.raises(ex.ExerciseError, match="unclosed"):
        ex.strip_solution_directives("```{solution} e1\nno end")
    with pytest.raises(ex.ExerciseError, match="gated"):
        ex.strip_solution_directives("```{solution-start} e1\n```")


def test_student_clears_outputs_teacher_keeps_them_and_input_is_untouched():
    nb = _nb(nbformat.v4.new_markdown_cell("```{solution} e\nS\n```"), _solution_cell("# Exercise: e\nx = 42"))
    before = nbformat.writes(nb)
    student, teacher = ex.student_notebook(nb), ex.teacher_notebook(nb)
    assert nbformat.writes(nb) == before
    assert nbformat.writes(teacher) == before
    assert student.cells[0].source == "" and student.cells[1].outputs == []
    assert student.cells[1].execution_count is None


# ---------------------------------------------------------------- the book's notebook


def test_export_student_stubs_every_solution_and_drops_solution_directives(exported):
    student, teacher = (nbformat.read(p, as_version=4) for p in exported)
    original = nbformat.read(NB, as_version=4)
    sol = [i for i, c in enumerate(original.cells) if ex.is_solution_cell(c)]
    assert sol, "the notebook has no solution cell"
    for i in sol:
        src = student.cells[i].source
        assert STUB.match(src.splitlines()[-1]), src
        comments, stub = src.split("\nfrom bertology_lib.book.exercises import check\n", 1)
        assert all(line.startswith("#") for line in comments.splitlines()), "only the comments stay"
        assert re.fullmatch(r"\n\w+ = \.\.\.  # your answer[^\n]*\nprint\(check\([^\n]*\)\)", stub), stub
    md = "\n".join(c.source for c in student.cells if c.cell_type == "markdown")
    assert "{solution}" not in md
    assert "{exercise}" not in md  # plain Markdown, one numbered heading per exercise
    assert len(re.findall(r"\*\*Exercise \d+\*\*", md)) == sum(
        c.source.count("{exercise}") for c in original.cells if c.cell_type == "markdown"
    )
    assert all(not c.get("outputs") for c in student.cells if c.cell_type == "code")
    assert teacher.cells == original.cells  # teacher: unchanged, outputs kept


def _execute(path: Path, out: Path, allow_errors: bool) -> nbformat.NotebookNode:
    """Run a notebook at profile smoke (papermill-injected parameters) the way the CLI does."""
    import papermill as pm
    from nbclient import NotebookClient

    nb = pm.iorw.load_notebook_node(str(path))  # as papermill.execute_notebook loads it: every cell gets its tags
    nb.metadata.setdefault("papermill", {})  # papermill.execute_notebook adds it the same way
    nb = pm.parameterize.parameterize_notebook(nb, {"profile": "smoke"})
    NotebookClient(
        nb,
        timeout=300,
        kernel_name="python3",
        allow_errors=allow_errors,
        resources={"metadata": {"path": str(NB.parent)}},
    ).execute()
    nbformat.write(nb, out)
    return nb


def _errors(nb) -> list[tuple[int, str]]:
    return [
        (i, o["ename"])
        for i, c in enumerate(nb.cells)
        if c.cell_type == "code"
        for o in c.get("outputs", [])
        if o["output_type"] == "error"
    ]


@pytest.mark.notebook
def test_student_notebook_runs_to_the_end_with_its_exercises_not_attempted(exported, tmp_path):
    """End to end on one notebook (*Run all* never stops at an unsolved exercise);
    :func:`test_no_book_notebook_leaks_a_solution` covers the others statically."""
    nb = _execute(exported[0], tmp_path / "student.ipynb", allow_errors=True)
    assert _errors(nb) == []
    stubs = [c for c in nb.cells if ex.is_solution_cell(c)]
    assert stubs
    for c in stubs:
        text = "".join(o.get("text", "") for o in c.outputs)
        assert "⏳" in text and "not attempted" in text, text


@pytest.mark.parametrize("nb_path", WITH_SOLUTIONS, ids=lambda p: p.stem)
def test_no_book_notebook_leaks_a_solution(nb_path):
    """No later cell of a book notebook reads what only a solution defines, so each student version runs up to
    its stubs (the teacher version runs under nbval)."""
    assert ex.solution_leaks(nbformat.read(nb_path, as_version=4)) == []


def _code(source: str) -> nbformat.NotebookNode:
    return nbformat.v4.new_code_cell(source)


def test_solution_leaks_names_the_cell_the_name_and_the_exercise():
    sol = _solution_cell("# Exercise: ex-a\nanswer = 41 + 1\nscores['x'] = 1\nfrom math import tau")
    leaky = _nb(_code("scores = {}"), sol, _code("print(answer)"), _code("%time y = scores['x']\nz = tau"))
    leaks = ex.solution_leaks(leaky)
    assert leaks == [
        "cell 2 reads 'answer', which only the solution of ex-a binds or changes; the student version has a stub there",
        "cell 3 reads 'scores', which only the solution of ex-a binds or changes; the student version has a stub there",
        "cell 3 reads 'tau', which only the solution of ex-a binds or changes; the student version has a stub there",
    ]
    with pytest.raises(ex.ExerciseError, match="cell 2 reads 'answer'"):
        ex.student_notebook(leaky)
    # rebinding before use, reading before the solution, and a solution's own names are fine
    clean = _nb(
        _code("answer = 0"),
        sol,
        _code("answer = 1\nprint(answer)"),
        _code("scores = {}; print(scores)"),
        _code("def f(tau=2):\n    return tau"),
        _code("print(f())"),
    )
    assert ex.solution_leaks(clean) == []
    assert ex.student_notebook(clean).cells[1].source.endswith('print(check("ex-a", answer))')


def _nbval(folder: Path, *cells) -> subprocess.CompletedProcess:
    """Run nbval (lax, as ``make test`` does) with the exercise plugin on a notebook made of ``cells``."""
    nb = _nb(*cells)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, folder / "nb.ipynb")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "tests"), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "exercise_plugin",
            "-p",
            "no:cacheprovider",
            "--nbval-lax",
            "--nbval-current-env",
            "--rootdir",
            str(folder),
            "nb.ipynb",
        ],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.notebook
def test_nbval_fails_a_solution_that_its_checker_rejects(tmp_path):
    """The teacher versions run under nbval (``tests/regression``); the plugin turns a ❌ into a failure."""
    for name, printed, passes in [
        ("right", "✅ ex-a: yes", True),
        ("wrong", "❌ ex-a: no", False),
        ("silent", "", False),
        ("other-label", "✅ ex-b: yes", False),
    ]:
        folder = tmp_path / name
        folder.mkdir()
        r = _nbval(folder, nbformat.v4.new_code_cell("x = 1"), _solution_cell(f"# Exercise: ex-a\nprint({printed!r})"))
        assert (r.returncode == 0) == passes, (name, r.stdout[-2000:])
        if not passes:
            assert "exercise ex-a: the solution does not pass its own checker" in r.stdout, r.stdout[-2000:]


def test_every_teacher_version_is_what_nbval_runs():
    """The teacher export is the book notebook itself, and nbval runs its smoke copy: one execution serves both."""
    from bertology_lib.book.exercises import teacher_notebook

    for p in WITH_SOLUTIONS:
        nb = nbformat.read(p, as_version=4)
        assert teacher_notebook(nb).cells == nb.cells
        assert (ROOT / "tests" / "regression" / p.name).is_file(), f"{p.name} has no nbval copy"


# ---------------------------------------------------------------- checkers


def test_each_notebook_has_one_checker_module_named_after_it_with_exactly_its_exercises():
    """``book/exercises/<notebook>.py`` defines the checkers of that notebook's solution cells and no others, and
    the package registers every such module it finds (the per-notebook test files are ``test_exercises_<part>``)."""
    from bertology_lib.book import stamps

    owners = stamps.checker_modules(stamps.library_modules())
    checked = {
        p.stem: {ex.solution_label(c) for c in nbformat.read(p, as_version=4).cells if ex.is_solution_cell(c)}
        for p in WITH_SOLUTIONS
    }
    modules = {m.rsplit(".", 1)[1] for m in owners.values()}
    assert modules == set(checked) == set(ex.NOTEBOOK_MODULES)
    for name, labels in checked.items():
        assert {label for label, m in owners.items() if m.endswith(f".{name}")} == labels, name
    assert len(ex.CHECKERS) == len(owners) == sum(map(len, checked.values()))


def test_the_solution_cell_checks_fail_when_a_notebook_or_its_regression_copy_loses_a_cell(tmp_path, monkeypatch):
    """The part files' ``test_notebooks_carry_their_solution_cells`` and
    ``test_regression_copies_carry_the_tested_solution_cells`` read files in the repository and can fail."""
    import json
    import shutil

    import exercise_cells as cells

    name, labels = "survey_02_architecture", {"survey_02_architecture": ("ex-survey2-params",)}
    for folder in ("notebooks", "tests/regression"):
        (tmp_path / folder).mkdir(parents=True)
        shutil.copy(ROOT / folder / f"{name}.ipynb", tmp_path / folder / f"{name}.ipynb")
    monkeypatch.setattr(cells, "ROOT", tmp_path)
    cells._solution_cells.cache_clear()
    try:
        cells.assert_notebook_cells(labels)
        cells.assert_regression_copies_carry(labels)
        copy = tmp_path / "tests" / "regression" / f"{name}.ipynb"
        nb = json.loads(copy.read_text())
        cell = next(c for c in nb["cells"] if "".join(c["source"]).startswith("# Exercise: ex-survey2-params"))
        cell["metadata"]["tags"] = ["hide-cell"]  # nbval's plugin would no longer grade it
        copy.write_text(json.dumps(nb))
        with pytest.raises(AssertionError, match="not tagged"):
            cells.assert_regression_copies_carry(labels)
        book = tmp_path / "notebooks" / f"{name}.ipynb"
        nb = json.loads(book.read_text())
        nb["cells"] = [c for c in nb["cells"] if not "".join(c["source"]).startswith("# Exercise: ex-survey2-params")]
        book.write_text(json.dumps(nb))
        cells._solution_cells.cache_clear()
        with pytest.raises(AssertionError, match="no solution cell"):
            cells.assert_notebook_cells(labels)
    finally:
        cells._solution_cells.cache_clear()


def test_unknown_label_names_the_known_ones():
    with pytest.raises(ParameterError, match=r"'ex-nope'.*ex-survey2-params"):
        ex.check("ex-nope", 1)
    with pytest.raises(ex.ExerciseError, match="already registered"):
        ex.checker("ex-survey2-params")(lambda a: (True, ""))


def test_student_copies_show_exercises_as_plain_markdown_numbered_in_the_notebook():
    from bertology_lib.book.exercises.export import plain_exercises

    md = (
        "## Exercises\n\n```{exercise}\n:label: ex-a\n\nFirst line of a\nwrapped paragraph.\n\n* an item\n"
        "  continued\n```\n\n```{exercise}\n:label: ex-b\n:class: discussion\n\nOpen question.\n```"
    )
    out, nxt = plain_exercises(md, start=3)
    assert nxt == 5 and "{exercise}" not in out and ":label:" not in out
    assert "**Exercise 3** `ex-a`\n\nFirst line of a wrapped paragraph.\n\n* an item continued" in out
    assert "**Exercise 4** (discussion question) `ex-b`\n\nOpen question." in out


def test_student_copies_relink_relative_links_to_resolve_from_their_folder(tmp_path):
    from bertology_lib.book.exercises.export import relink

    (tmp_path / "book").mkdir()
    (tmp_path / "book" / "ledger.md").write_text("x")
    (tmp_path / "notebooks").mkdir()
    dest = tmp_path / "_build" / "student" / "student"
    md = "see the [ledger](../book/ledger.md#top) and [gone](../book/missing.md)"
    out = relink(md, tmp_path / "notebooks", dest)
    assert "[ledger](../../../book/ledger.md#top)" in out and "[gone](../book/missing.md)" in out
    assert (dest / "../../../book/ledger.md").resolve() == (tmp_path / "book" / "ledger.md").resolve()


def test_every_student_copy_numbers_its_exercises_from_one_and_shows_no_directive(tmp_path):
    from bertology_lib.book.exercises.export import export_student

    root = Path(__file__).resolve().parents[1]
    for src in sorted((root / "notebooks").glob("*.ipynb")):
        nb = nbformat.read(export_student(src, tmp_path / "student" / src.name), as_version=4)
        md = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
        numbers = [int(n) for n in re.findall(r"\*\*Exercise (\d+)\*\*", md)]
        assert numbers == list(range(1, len(numbers) + 1)), src.stem
        assert "{exercise}" not in md and "{solution}" not in md and "](../book/" not in md, src.stem
