"""Classroom exercises from one source: student/teacher notebooks and answer checkers.

A book notebook is the teacher's notebook. Its exercises follow two conventions:

* Markdown: sphinx-exercise directives, an ``exercise`` directive with a
  ``:label:`` and a ``solution`` directive naming that label (collapsed in the book).
* Code: a cell tagged ``solution`` (cell metadata ``tags``) holds a teacher
  solution. Its first comment lines name the exercise, e.g.
  ``# Exercise: ex-survey2-params`` (or the cell metadata has
  ``"exercise": "<label>"``).

:func:`student_notebook` derives the student version: every ``solution`` cell
keeps only its leading comment lines followed by
``raise NotImplementedError("Exercise <label>: write your solution here")``,
every ``{solution}`` directive is removed from the Markdown (``{exercise}``
stays), and all outputs are cleared. :func:`teacher_notebook` is the notebook
unchanged, outputs kept. :func:`export_student` / :func:`export_teacher` write
them atomically; ``bertology export-student`` writes both for the book's
notebooks.

Students check their answers with :func:`check`, which dispatches to the
checker registered for the exercise label with :func:`checker`; the returned
:class:`Feedback` says what is wrong without giving the answer away.

Used by ``notebooks/survey_02_architecture.ipynb`` (exercise
``ex-survey2-params``) and ``bertology export-student``.
"""

from __future__ import annotations

import copy
import math
import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import nbformat

from bertology_lib.errors import BertologyError, ParameterError

SOLUTION_TAG = "solution"
STUB = 'raise NotImplementedError("Exercise {label}: write your solution here")'

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
        f"'# Exercise: <label>' or set the cell metadata \"exercise\": \"<label>\""
    )


def student_stub(cell, index: int | None = None) -> str:
    """The source that replaces a ``solution`` cell in the student notebook."""
    label = solution_label(cell, index)
    keep = _leading_comments(cell.get("source", ""))
    return "\n".join([*keep, STUB.format(label=label)])


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


def _clear(cell) -> None:
    md = cell.setdefault("metadata", {})
    for key in ("papermill", "execution", "collapsed", "scrolled"):
        md.pop(key, None)
    if cell.get("cell_type") == "code":
        cell["outputs"] = []
        cell["execution_count"] = None


def student_notebook(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """The student version of ``nb`` (a new notebook; ``nb`` is not changed).

    ``solution`` cells become stubs that raise ``NotImplementedError``,
    ``{solution}`` directives are removed, outputs and execution metadata are
    cleared.
    """
    out = copy.deepcopy(nb)
    for i, cell in enumerate(out.cells):
        if is_solution_cell(cell):
            cell["source"] = student_stub(cell, i)
        elif cell.get("cell_type") == "markdown":
            cell["source"] = strip_solution_directives(cell.get("source", ""))
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
    return write_notebook(student_notebook(_read(src)), dest)


def export_teacher(src: Path, dest: Path) -> Path:
    """Write the teacher version (unchanged, outputs kept) of ``src`` to ``dest``; return ``dest``."""
    return write_notebook(teacher_notebook(_read(src)), dest)


# --------------------------------------------------------------------------- checkers


@dataclass(frozen=True)
class Feedback:
    """The verdict on a student's answer: ``ok`` and a message that does not give the answer away."""

    label: str
    ok: bool
    message: str

    def __str__(self) -> str:
        return f"{'✅' if self.ok else '❌'} {self.label}: {self.message}"

    def __bool__(self) -> bool:
        return self.ok


CHECKERS: dict[str, Callable[[Any], Feedback]] = {}


def checker(label: str) -> Callable[[Callable[[Any], tuple[bool, str]]], Callable[[Any], Feedback]]:
    """Register the decorated function as the checker of exercise ``label``.

    The function takes the answer and returns ``(ok, message)`` (or a
    :class:`Feedback`).
    """

    def register(fn):
        if label in CHECKERS:
            raise ExerciseError(f"a checker for {label!r} is already registered")

        def run(answer):
            res = fn(answer)
            return res if isinstance(res, Feedback) else Feedback(label, bool(res[0]), str(res[1]))

        run.__name__ = fn.__name__
        run.__doc__ = fn.__doc__
        CHECKERS[label] = run
        return run

    return register


def check(label: str, answer: Any) -> Feedback:
    """Check ``answer`` to exercise ``label``; print the result for the student."""
    if label not in CHECKERS:
        raise ParameterError(
            f"no checker for exercise {label!r}; exercises with a checker: {', '.join(sorted(CHECKERS))}"
        )
    return CHECKERS[label](answer)


def _as_number(answer: Any) -> float | None:
    """``answer`` as a finite float, or None (booleans, text, NaN and infinities are not numbers here)."""
    if isinstance(answer, bool):
        return None
    try:
        value = float(answer)
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None


def _as_whole_number(answer: Any) -> int | None:
    value = _as_number(answer)
    return int(value) if value is not None and value.is_integer() else None


def _encoder_params(n_layers: int, hidden_size: int = 768) -> int:
    """Self-attention + feed-forward parameters of ``n_layers`` BERT layers (no embeddings, no pooler)."""
    from bertology_lib.experiments.survey.architecture import (
        bert_config,
        param_breakdown,
    )

    cfg = bert_config("bert-base")
    cfg.num_hidden_layers = n_layers
    assert cfg.hidden_size == hidden_size
    parts = param_breakdown(cfg)
    return parts["self-attention (all layers)"] + parts["feed-forward (all layers)"]


def survey2_params_truth() -> int:
    """The smallest number of 768-wide BERT layers whose encoder parameters exceed
    BERT-large's token-embedding matrix (computed, not typed in)."""
    from bertology_lib.experiments.survey.architecture import (
        bert_config,
        param_breakdown,
    )

    target = param_breakdown(bert_config("bert-large"))["token embeddings"]
    n = 1
    while _encoder_params(n) <= target:
        n += 1
    return n


@checker("ex-survey2-params")
def _check_survey2_params(answer):
    """``answer``: a whole number of layers."""
    n = _as_whole_number(answer)
    if n is None:
        return False, (
            f"expected a whole number of layers, got {answer!r}. If you divided two parameter "
            "counts, decide which way to round: the layers must hold *more* parameters than the "
            "embedding matrix."
        )
    if n < 1:
        return False, f"{n} is not a number of layers; a BERT has at least one."
    truth = survey2_params_truth()
    if n == truth:
        return True, "correct: that is the smallest number of layers that outweighs the embedding matrix."
    if n < truth:
        return False, (
            f"too few: {n} layer(s) of width 768 hold fewer parameters than BERT-large's "
            "token-embedding matrix (vocab_size x 1024). Count one layer's self-attention and "
            "feed-forward parameters with param_breakdown, then compare."
        )
    return False, (
        f"too many: {n} layers do exceed BERT-large's token-embedding matrix, but fewer layers "
        "already do; the exercise asks for the smallest number."
    )


# --------------------------------------------------------------------------- physics exercises


def physics_bits_truth() -> float:
    """Bits of knowledge per bioS person: log2 of the number of distinct attribute combinations.

    The company city follows from the company, so it adds nothing; birth date, birth city, university,
    major and company are drawn independently and uniformly (Allen-Zhu & Li 2023 §2).
    """
    import math

    from bertology_lib.experiments.physics.biographies import possible_values

    counts = possible_values()
    return sum(math.log2(counts[a]) for a in ("birth_date", "birth_city", "university", "major", "company_name"))


@checker("ex-physics03-bits")
def _check_physics_bits(answer):
    """``answer``: bits per person (a number; +-0.1 bit is accepted)."""
    v = _as_number(answer)
    if v is None:
        return False, f"expected a number of bits, got {answer!r}."
    truth = physics_bits_truth()
    if abs(v - truth) <= 0.1:
        return True, "correct: multiply by N people to get what the model must store."
    if abs(v - truth - math.log2(len(set(_company_cities())))) <= 0.1:
        return False, ("too many: the company city is determined by the company, so it carries no "
                       "information of its own.")
    if v > truth:
        return False, "too many: did you count an attribute twice, or use natural logarithms the wrong way?"
    return False, ("too few: each attribute contributes log2(number of possible values); the birth date "
                   "has years x months x days values.")


def _company_cities() -> list[str]:
    from bertology_lib.data import bios

    return list(bios.COMPANY_CITY.values())


def physics_unseen_truth(n_people: int = 300, seed: int = 0, attribute: str = "university") -> float:
    """Share of Q-probe test people whose ``attribute`` value no probe-training person has.

    Uses the probe split of :func:`bertology_lib.experiments.physics.probing.q_probe` (seed ``seed``, half the people)
    on the bioS people of ``BioConfig(n_people, seed)``: a linear probe cannot predict a class it never saw,
    so one minus this share is the probe's accuracy ceiling.
    """
    from bertology_lib.data import bios
    from bertology_lib.experiments.physics.probing import people_split

    people = bios.sample_people(n_people, seed)
    tr, te = people_split(len(people), None, 0.5, seed)
    seen = {people[i].value(attribute) for i in tr}
    return float(sum(people[i].value(attribute) not in seen for i in te) / len(te))


@checker("ex-physics05-ceiling")
def _check_physics_unseen(answer):
    """``answer``: a share in [0, 1] (+-0.005 accepted) for the quick dataset (N = 300, seed 0)."""
    v = _as_number(answer)
    if v is None or not 0.0 <= v <= 1.0:
        return False, f"expected a share between 0 and 1, got {answer!r}."
    truth = physics_unseen_truth()
    if abs(v - truth) <= 0.005:
        return True, "correct: one minus it is the best accuracy any probe can reach on university."
    if abs(v - (1 - truth)) <= 0.005:
        return False, "that is the share of test people whose university *was* seen; the question asks the opposite."
    return False, ("not quite: use the probe's own split (physics_probing._people_split with seed 0 and "
                   "train_fraction 0.5) and compare each test person's university with the set of training ones.")
