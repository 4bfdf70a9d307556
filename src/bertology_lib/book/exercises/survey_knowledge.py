"""Checkers of the survey notebooks' exercises (Rogers et al. 2020): survey knowledge."""

from __future__ import annotations

from bertology_lib.book.exercises.checks import as_number, checker  # noqa: F401  (used as checkers are added)
