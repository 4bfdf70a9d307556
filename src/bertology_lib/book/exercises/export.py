"""Student and teacher notebooks from one source (see :mod:`bertology_lib.book.exercises`)."""

from __future__ import annotations

import ast
import copy
import os
import re
import tempfile
from pathlib import Path

import nbformat

from bertology_lib.errors import BertologyError


SOLUTION_TAG = "solution"
STUB = (
    "from bertology_lib.book.exercises import check\n\n"
    "{name} = ...  # your answer: replace ... (see the exercise above), then run this cell\n"
    'print(check("{label}", {name}))'
)
"""The code of a student's exercise cell after the solution's leading comments: the answer's name bound to a
placeholder (``...``), which :func:`~bertology_lib.book.exercises.checks.check` reports as not attempted, so
*Run all* goes on past an unsolved exercise."""
_CHECK_CALL = re.compile(r'^\s*print\(check\(\s*["\'](?P<label>[\w.:-]+)["\']\s*,\s*(?P<name>[A-Za-z_]\w*)\s*\)\)\s*$')

_EXERCISE_COMMENT = re.compile(r"^\s*#\s*Exercise\s*:?\s*([A-Za-z0-9][\w.:-]*)", re.IGNORECASE)
# opening fence of a directive: ``` or ~~~ or ::: (3 or more), then {name}
_FENCE_OPEN = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|~{3,}|:{3,})\s*\{(?P<name>[\w-]+)\}")
_GATED = {"solution-start", "solution-end"}


class ExerciseError(BertologyError, ValueError):
    """A notebook does not follow the exercise conventions (the message says where)."""


# --------------------------------------------------------------------------- notebooks


def _tags(cell) -> list[str]:
    return list(cell.get("metadata", {}).get("tags", []))


def is_solution_cell(cell) -> bool:
    """True for a code cell tagged ``solution``."""
    return cell.get("cell_type") == "code" and SOLUTION_TAG in _tags(cell)


def _leading_comments(source: str) -> list[str]:
    """The comment lines (and blank lines between them) at the top of a cell."""
    out: list[str] = []
    for line in source.splitlines():
        if line.strip().startswith("#") or (not line.strip() and out):
            out.append(line.rstrip())
        elif not line.strip():
            continue  # blank lines before the first comment
        else:
            break
    while out and not out[-1].strip():
        out.pop()
    return out


def solution_label(cell, index: int | None = None) -> str:
    """The exercise label of a ``solution`` cell: metadata ``exercise`` or a ``# Exercise: <label>`` comment."""
    label = cell.get("metadata", {}).get("exercise")
    if label:
        return str(label)
    for line in _leading_comments(cell.get("source", "")):
        m = _EXERCISE_COMMENT.match(line)
        if m:
            return m.group(1)
    where = f"cell {index}" if index is not None else "a cell"
    raise ExerciseError(
        f"{where} is tagged {SOLUTION_TAG!r} but names no exercise: start it with "
        f'\'# Exercise: <label>\' or set the cell metadata "exercise": "<label>"'
    )


def student_stub(cell, index: int | None = None) -> str:
    """The source that replaces a ``solution`` cell in the student notebook: its leading comments (the task),
    then :data:`STUB` with the name the solution checks (its last line ``print(check("<label>", <name>))``;
    ``answer`` when it ends otherwise)."""
    label = solution_label(cell, index)
    source = cell.get("source", "")
    keep = _leading_comments(source)
    lines = source.strip().splitlines()
    m = _CHECK_CALL.match(lines[-1]) if lines else None
    name = m.group("name") if m and m.group("label") == label else "answer"
    return "\n".join([*keep, STUB.format(label=label, name=name)])


def strip_solution_directives(markdown: str) -> str:
    """Remove every ``{solution}`` directive (backtick, tilde or colon fence) from Markdown.

    ``{exercise}`` and everything else is kept. Gated solutions
    (``{solution-start}``/``{solution-end}``) span cells and are refused with
    :class:`ExerciseError` rather than half-removed.
    """
    lines = markdown.splitlines()
    out: list[str] = []
    i = 0
    while i < len(lines):
        m = _FENCE_OPEN.match(lines[i])
        if m and m.group("name") in _GATED:
            raise ExerciseError(
                "gated {solution-start}/{solution-end} directives are not supported; "
                "use one {solution} directive per exercise"
            )
        if m and m.group("name") == "solution":
            fence = m.group("fence")
            close = re.compile(rf"^\s*{re.escape(fence[0])}{{{len(fence)},}}\s*$")
            j = i + 1
            while j < len(lines) and not close.match(lines[j]):
                j += 1
            if j == len(lines):
                raise ExerciseError(f"unclosed {{solution}} directive opened by {lines[i].strip()!r}")
            i = j + 1
            # drop the blank line that separated it from what follows, if one is left doubled
            if out and not out[-1].strip():
                while i < len(lines) and not lines[i].strip():
                    i += 1
            continue
        out.append(lines[i])
        i += 1
    while out and not out[-1].strip():
        out.pop()
    return "\n".join(out)


_EXERCISE = re.compile(
    r"^(?P<fence>`{3,}|~{3,}|:{3,})\s*\{exercise\}[^\n]*\n(?P<body>.*?)^(?P=fence)[ \t]*$", re.M | re.S
)
_LIST_ITEM = re.compile(r"\s*([-*+]|\d+[.)])\s")
_RELATIVE_LINK = re.compile(r"\]\((?P<target>\.{1,2}/[^)\s#]+)(?P<anchor>#[^)\s]*)?\)")


def _unwrap(text: str) -> str:
    """Each paragraph's wrapped lines joined into one (list items, code blocks and blank lines kept), so the text
    reflows at any width in Jupyter, JupyterLab and VS Code."""
    out: list[str] = []
    para: list[str] = []
    in_code = False

    def flush() -> None:
        if para:
            out.append(" ".join(para))
            para.clear()

    for line in text.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            flush()
            in_code = not in_code
            out.append(line)
        elif in_code:
            out.append(line)
        elif not line.strip():
            flush()
            out.append("")
        elif _LIST_ITEM.match(line):
            flush()
            para.append(line.rstrip())
        else:
            para.append(line.strip() if para else line.rstrip())
    flush()
    return "\n".join(out)


def plain_exercises(markdown: str, start: int = 1) -> tuple[str, int]:
    """``markdown`` with every ``{exercise}`` directive written as plain Markdown, as a student's notebook shows it
    in any front end (a MyST directive reads there as a raw block): a bold ``Exercise N`` heading, numbered from
    ``start`` in the notebook's order, with the label in code and "discussion question" for one labelled
    ``:class: discussion``, then the text with its paragraphs unwrapped. Returns (Markdown, the next number)."""
    number = start

    def one(m: re.Match) -> str:
        nonlocal number
        lines = m.group("body").splitlines()
        options = {}
        while lines and lines[0].startswith(":"):
            key, _, value = lines.pop(0)[1:].partition(":")
            options[key.strip()] = value.strip()
        kind = " (discussion question)" if options.get("class") == "discussion" else ""
        label = f" `{options['label']}`" if options.get("label") else ""
        head = f"**Exercise {number}**{kind}{label}"
        number += 1
        return head + "\n\n" + _unwrap("\n".join(lines).strip("\n"))

    return _EXERCISE.sub(one, markdown), number


def relink(markdown: str, src_dir: Path, dest_dir: Path) -> str:
    """Relative links (``../book/claims_ledger.md``) rewritten to resolve from ``dest_dir``, the folder a copy of a
    notebook written in ``src_dir`` is saved to; links to files that do not exist are left alone."""

    def one(m: re.Match) -> str:
        target = (Path(src_dir) / m.group("target")).resolve()
        if not target.exists():
            return m.group(0)
        rel = os.path.relpath(target, Path(dest_dir).resolve())
        return f"]({Path(rel).as_posix()}{m.group('anchor') or ''})"

    return _RELATIVE_LINK.sub(one, markdown)


def _clear(cell) -> None:
    md = cell.setdefault("metadata", {})
    for key in ("papermill", "execution", "collapsed", "scrolled"):
        md.pop(key, None)
    if cell.get("cell_type") == "code":
        cell["outputs"] = []
        cell["execution_count"] = None


_CODE_MAGICS = {"time", "timeit", "capture", "prun"}  # magics whose argument is Python run in the cell


def _python(source: str) -> ast.Module | None:
    """``source`` parsed as Python, IPython magics (``%``, ``!``) turned into calls first; None if it is not
    Python (e.g. a cell magic for another language)."""
    try:
        from IPython.core.inputtransformer2 import TransformerManager

        source = TransformerManager().transform_cell(source)
    except ImportError:  # pragma: no cover - IPython ships with the kernel
        pass
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    for node in list(ast.walk(tree)):  # code inside %time / %%time / %%capture … is code of the cell too
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("run_line_magic", "run_cell_magic")
            and len(node.args) >= 2
            and all(isinstance(a, ast.Constant) and isinstance(a.value, str) for a in node.args)
            and node.args[0].value in _CODE_MAGICS
        ):
            inner = _python(node.args[-1].value)
            if inner is not None:
                tree.body.extend(inner.body)
    return tree


def _bound_and_changed(tree: ast.Module) -> tuple[set[str], set[str]]:
    """Names a cell binds (assignments, imports, definitions, loop and ``with`` targets) and names whose object
    it changes in place (``x[...] = …``, ``x.attr = …``, ``x += …``); nested function bodies are not the cell's
    top-level names but their definitions are."""
    bound, changed = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            bound.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.Attribute, ast.Subscript)) and isinstance(node.ctx, (ast.Store, ast.Del)):
            base = node.value
            while isinstance(base, (ast.Attribute, ast.Subscript)):
                base = base.value
            if isinstance(base, ast.Name):
                changed.add(base.id)
    return bound, changed


def _loaded(tree: ast.Module) -> set[str]:
    """Names a cell reads, less the parameters of the functions and lambdas it defines (their own locals)."""
    params = {a.arg for a in ast.walk(tree) if isinstance(a, ast.arg)}
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)} - params


def solution_leaks(nb: nbformat.NotebookNode) -> list[str]:
    """Where the student version would fail outside its stubs: a later non-solution cell that reads a name
    which only a solution cell bound or changed in place. One line per leak (empty: none).

    A student notebook replaces each solution by a stub that raises, so whatever the solution defined is
    missing below it. The check is static (names, not values): it catches a cell that uses a solution's
    variable, not a solution that changes an object through a method call.
    """
    leaks: list[str] = []
    from_solution: dict[str, str] = {}  # name -> label of the solution that last bound or changed it
    for i, cell in enumerate(nb.cells):
        if cell.get("cell_type") != "code":
            continue
        tree = _python(cell.get("source", ""))
        if tree is None:
            continue
        bound, changed = _bound_and_changed(tree)
        if is_solution_cell(cell):
            label = solution_label(cell, i)
            from_solution.update({name: label for name in bound | changed})
            continue
        for name in sorted((_loaded(tree) - bound) & from_solution.keys()):
            leaks.append(
                f"cell {i} reads {name!r}, which only the solution of {from_solution[name]} "
                f"binds or changes; the student version has a stub there"
            )
        for name in bound:
            from_solution.pop(name, None)
    return leaks


def student_notebook(
    nb: nbformat.NotebookNode, src_dir: Path | None = None, dest_dir: Path | None = None
) -> nbformat.NotebookNode:
    """The student version of ``nb`` (a new notebook; ``nb`` is not changed).

    ``solution`` cells become stubs with a placeholder answer (:data:`STUB`),
    ``{solution}`` directives are removed, ``{exercise}`` directives become plain Markdown numbered in the
    notebook (:func:`plain_exercises`), relative links are rewritten to resolve from ``dest_dir`` when the
    notebook's folder ``src_dir`` is given (:func:`relink`), outputs and execution metadata are
    cleared. A notebook whose later cells read what a solution defines is refused
    (:func:`solution_leaks`): its student version would fail outside the stubs.
    """
    leaks = solution_leaks(nb)
    if leaks:
        raise ExerciseError("the student version would fail outside its stubs: " + "; ".join(leaks))
    out = copy.deepcopy(nb)
    number = 1
    for i, cell in enumerate(out.cells):
        if is_solution_cell(cell):
            cell["source"] = student_stub(cell, i)
        elif cell.get("cell_type") == "markdown":
            text, number = plain_exercises(strip_solution_directives(cell.get("source", "")), number)
            cell["source"] = relink(text, src_dir, dest_dir) if src_dir is not None and dest_dir is not None else text
        _clear(cell)
    out.metadata.pop("papermill", None)
    return out


def teacher_notebook(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """The teacher version of ``nb``: an unchanged copy, solutions and outputs kept."""
    for i, cell in enumerate(nb.cells):
        if is_solution_cell(cell):
            solution_label(cell, i)  # the same conventions are enforced for both versions
    return copy.deepcopy(nb)


def write_notebook(nb: nbformat.NotebookNode, dest: Path) -> Path:
    """Validate ``nb`` and write it to ``dest`` atomically (temp file, then ``os.replace``)."""
    dest = Path(dest)
    nbformat.validate(nb)
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{dest.stem}.", suffix=".tmp", dir=dest.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            nbformat.write(nb, f)
        os.replace(tmp, dest)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return dest


def _read(src: Path) -> nbformat.NotebookNode:
    src = Path(src)
    if not src.is_file():
        raise FileNotFoundError(f"notebook {src} does not exist")
    return nbformat.read(src, as_version=4)


def export_student(src: Path, dest: Path) -> Path:
    """Write the student version of notebook ``src`` to ``dest``; return ``dest``."""
    return write_notebook(student_notebook(_read(src), Path(src).parent, Path(dest).parent), dest)


def export_teacher(src: Path, dest: Path) -> Path:
    """Write the teacher version (unchanged, outputs kept) of ``src`` to ``dest``; return ``dest``."""
    return write_notebook(teacher_notebook(_read(src)), dest)


# --------------------------------------------------------------------------- checkers
