"""Checkers of the duplication notebooks' exercises (Kao et al. 2020)."""

from __future__ import annotations

from bertology_lib.book.exercises.checks import as_number, checker  # noqa: F401  (used as checkers are added)
