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

Modules: ``export`` (student and teacher notebooks), ``checks`` (the checker registry), ``cases`` (shared
checker pieces: hidden cases, number comparisons), and one module
of checkers per book part (``survey``, ``survey_knowledge`` (§2-§3.3), ``survey_knowledge2`` (§3.4, §4), ``survey_training`` (§5), ``survey_training2`` (§5 III), ``survey_size`` (§6, §7), ``survey_real`` (§6 II, §7 II), ``physics`` (physics 01-03), ``physics2`` (physics 04-06), ``duplication``, ``duplication2`` (duplication 02-03)), imported here so that every
checker is registered. Used by every notebook's exercises and ``bertology export-student``.
"""

from bertology_lib.book.exercises import (  # noqa: F401  (importing them registers the checkers)
    duplication,
    duplication2,
    physics,
    physics2,
    survey,
    survey_knowledge,
    survey_knowledge2,
    survey_real,
    survey_size,
    survey_training,
    survey_training2,
)
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

__all__ = ["CHECKERS", "Feedback", "as_number", "as_whole_number", "check", "checker", "SOLUTION_TAG", "STUB",
           "ExerciseError", "export_student", "export_teacher", "is_solution_cell", "solution_label",
           "solution_leaks", "strip_solution_directives", "student_notebook", "student_stub", "teacher_notebook", "write_notebook"]
