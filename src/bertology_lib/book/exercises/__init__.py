"""Classroom exercises from one source: student/teacher notebooks and answer checkers.

A book notebook is the teacher's notebook. Its exercises follow two conventions:

* Markdown: sphinx-exercise directives, an ``exercise`` directive with a
  ``:label:`` and a ``solution`` directive naming that label (collapsed in the book).
* Code: a cell tagged ``solution`` (cell metadata ``tags``) holds a teacher
  solution. Its first comment lines name the exercise, e.g.
  ``# Exercise: ex-survey2-params`` (or the cell metadata has
  ``"exercise": "<label>"``).

:func:`student_notebook` derives the student version: every ``solution`` cell
keeps only its leading comment lines followed by a placeholder answer,
``<name> = ...`` and the solution's own ``print(check("<label>", <name>))``
(:data:`STUB`: :func:`check` reports ``...`` as not attempted, so *Run all*
goes on past an unsolved exercise), every ``{solution}`` directive is removed from the Markdown (``{exercise}``
stays), and all outputs are cleared; it refuses a notebook whose later cells read
what only a solution defines (:func:`solution_leaks`), since that student version
would fail outside its stubs. :func:`teacher_notebook` is the notebook
unchanged, outputs kept. :func:`export_student` / :func:`export_teacher` write
them atomically; ``bertology export-student`` writes both for the book's
notebooks.

The tests run every teacher version under nbval (``tests/regression``: a solution
cell fails unless its checker prints ``✅``), check every student version with
:func:`solution_leaks`, and execute one student version end to end.

Students check their answers with :func:`check`, which dispatches to the
checker registered for the exercise label with :func:`checker`; the returned
:class:`Feedback` says what is wrong without giving the answer away.

Where things are:

* one module per notebook with exercises (checkers), named exactly after the notebook
  (``survey_03_1_syntax``, ``physics_04_celebrities``, ``duplication_02b_nli_classification``, ...; listed
  in :data:`NOTEBOOK_MODULES`): each defines its exercises' truths and, under ``@checker("<label>")``, their
  checkers. This package imports every such module it finds, so a new notebook's checkers need its module and
  nothing else;
* the shared pieces, by concept: ``checks`` (the registry, :func:`check`, :class:`Feedback` and the answer
  readers such as :func:`as_number`), ``cases`` (running a student's function on hidden cases, comparing
  numbers, building models quietly, and the common checker skeleton), ``quick_survey`` and ``quick_physics`` (the
  quick-profile data the survey's and the physics truths are computed on) and ``export`` (student and teacher
  notebooks);
* their tests: ``tests/test_exercises_<part>.py`` (``survey_02`` ... ``survey_07``, ``physics``, ``duplication``),
  which read each teacher solution from its notebook.

Used by every notebook's exercises and ``bertology export-student``.
"""

import importlib
import pkgutil

from bertology_lib.book.exercises.checks import CHECKERS, Feedback, as_number, as_whole_number, check, checker
from bertology_lib.book.exercises.export import (
    SOLUTION_TAG,
    STUB,
    ExerciseError,
    export_student,
    export_teacher,
    is_solution_cell,
    solution_label,
    solution_leaks,
    strip_solution_directives,
    student_notebook,
    student_stub,
    teacher_notebook,
    write_notebook,
)

SHARED_MODULES = ("cases", "checks", "export", "quick_physics", "quick_survey")
"""The modules of this package that hold no exercise's checker."""

NOTEBOOK_MODULES = tuple(m.name for m in pkgutil.iter_modules(__path__) if m.name not in SHARED_MODULES)
"""The checker modules, one per notebook with exercises, each named after its notebook; importing them
registers their checkers."""

for _name in NOTEBOOK_MODULES:  # importing a module registers its checkers
    importlib.import_module(f"{__name__}.{_name}")

__all__ = [
    "CHECKERS",
    "NOTEBOOK_MODULES",
    "SHARED_MODULES",
    "Feedback",
    "as_number",
    "as_whole_number",
    "check",
    "checker",
    "SOLUTION_TAG",
    "STUB",
    "ExerciseError",
    "export_student",
    "export_teacher",
    "is_solution_cell",
    "solution_label",
    "solution_leaks",
    "strip_solution_directives",
    "student_notebook",
    "student_stub",
    "teacher_notebook",
    "write_notebook",
]
