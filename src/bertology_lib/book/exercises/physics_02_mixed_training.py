"""Checkers of the exercises of ``physics_02_mixed_training`` (Mixed training: biographies and questions together,
Allen-Zhu & Li 2023):

* ``ex-physics02-qa-reads``: how many times the quick mixed run shows each QA-train question;
* ``ex-physics02-lag``: how far QA-test's learning curve lags QA-train's, a function run on hidden curves.

Every truth is computed here from the library and the bioS generator at the configuration the exercise names (the
quick sizes, seed 0: :mod:`bertology_lib.book.exercises.quick_physics`), never from the profile the notebook runs
at, so a teacher notebook passes its checks at smoke and at quick alike. Used by that notebook's exercise cells.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

from bertology_lib.book.exercises.cases import Mistake, call_all, judge_value, within
from bertology_lib.book.exercises.checks import as_number, as_positive, checker
from bertology_lib.book.exercises.quick_physics import bio_exposures, physics_config


def _same(a: Any, b: Any) -> bool:
    """Equal outputs: both NaN, numbers within 1e-9, or equal values."""
    fa, fb = as_number(a), as_number(b)
    if _is_number_or_nan(a) and _is_number_or_nan(b) and math.isnan(float(a)) and math.isnan(float(b)):
        return True
    if fa is not None and fb is not None:
        return abs(fa - fb) <= 1e-9
    return a == b


def _is_number_or_nan(x: Any) -> bool:
    if isinstance(x, bool):
        return False
    try:
        float(x)
    except (TypeError, ValueError):
        return False
    return True


def agrees(outputs: Sequence[Any], expected: Sequence[Any]) -> bool:
    return len(outputs) == len(expected) and all(_same(o, e) for o, e in zip(outputs, expected))


@lru_cache(maxsize=4)
def physics_qa_reads_truth() -> float:
    """Times the quick mixed run (N = 300, seed 0) shows each QA-train question: the expected QA rows
    (``mixed_steps x batch_size x qa_share``) over the packed QA windows of the QA-train people
    (:func:`bertology_lib.training.objectives.pack_labeled` of every QA-train pair, ``seq_len`` tokens)."""
    from bertology_lib.experiments.physics.config import bios_tokenizer
    from bertology_lib.experiments.physics.training import qa_examples
    from bertology_lib.training.objectives import pack_labeled

    cfg = physics_config()
    windows, _ = pack_labeled(qa_examples(cfg.dataset(), bios_tokenizer(), "train"), cfg.seq_len)
    return cfg.mixed_steps * cfg.batch_size * cfg.qa_share / len(windows)


@checker("ex-physics02-qa-reads")
def _check_physics_qa_reads(answer):
    """``answer``: how many times the quick mixed run (N = 300, seed 0) shows each QA-train question, on
    average (a number; +-3% accepted)."""
    cfg = physics_config()
    rows = cfg.mixed_steps * cfg.batch_size * cfg.qa_share
    return judge_value(
        answer,
        read=as_positive,
        refuse="expected a positive number of readings, got {answer!r}.",
        truth=physics_qa_reads_truth,
        match=within(rel=0.03),
        ok=(
            "correct: compare it with how often each biography fact is read; the QA-train answers are cheap to "
            "memorise one by one."
        ),
        mistakes=[
            Mistake("too many: only a qa_share of each batch's rows are QA windows.", lambda t: t / cfg.qa_share),
            Mistake(
                "too few: a row is not one question but a window of seq_len tokens packed with many questions; "
                "divide by the number of QA windows.",
                lambda t: rows / (len(cfg.dataset().qa_train) * 6),
            ),
            Mistake(
                "too few: only QA-train people's questions are in the QA pool; QA-test stays unseen.", lambda t: t / 2
            ),
            Mistake(
                "that is how often each biography fact is read; the question asks about QA-train questions.",
                lambda t: (
                    bio_exposures(cfg.replace(augmentation="multi5+permute"), steps=cfg.mixed_steps)
                    * (1 - cfg.qa_share)
                    * 5
                ),
            ),
        ],
        not_yet=(
            "not quite: QA rows = steps x batch size x QA share; each pass over the packed QA windows "
            "(pack_labeled of the QA-train examples) shows every question once."
        ),
    )


@lru_cache(maxsize=4)
def _lag_cases() -> list[tuple[str, Any]]:
    """(kind, curve) hidden cases for the lag exercise: DataFrames with step, bio, qa_train, qa_test."""
    import numpy as np
    import pandas as pd

    def curve(steps, train, test, index=None):
        n = len(steps)
        return pd.DataFrame(
            {"step": steps, "bio": np.linspace(0.1, 1.0, n), "qa_train": train, "qa_test": test}, index=index
        )

    s10 = list(range(240, 2401, 240))
    cases = [
        (
            "rising",
            curve(
                s10,
                [0, 0.1, 0.3, 0.6, 0.8, 0.9, 0.95, 0.97, 0.98, 0.98],
                [0, 0, 0, 0.05, 0.1, 0.2, 0.35, 0.5, 0.6, 0.62],
            ),
        ),
        (
            "final",
            curve(
                s10, [0, 0.4, 0.9, 0.9, 0.8, 0.7, 0.6, 0.6, 0.6, 0.6], [0, 0, 0.1, 0.2, 0.5, 0.3, 0.2, 0.2, 0.25, 0.3]
            ),
        ),
        (
            "equal",
            curve(
                s10, [0, 0.2, 0.25, 0.3, 0.4, 0.4, 0.45, 0.5, 0.5, 0.5], [0, 0, 0, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5]
            ),
        ),
        ("zero", curve(s10, [0, 0.2, 0.4, 0.6, 0.7, 0.8, 0.8, 0.8, 0.8, 0.8], [0] * 10)),
        (
            "negative",
            curve(s10, [0, 0, 0, 0.1, 0.2, 0.4, 0.6, 0.7, 0.8, 0.8], [0, 0.1, 0.2, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3]),
        ),
        (
            "steps",
            curve(
                [10, 20, 50, 100, 200, 500, 1000],
                [0, 0.2, 0.5, 0.7, 0.8, 0.9, 0.9],
                [0, 0, 0.1, 0.2, 0.4, 0.6, 0.7],
                index=range(30, 37),
            ),
        ),
    ]
    rng = np.random.default_rng(19)
    for _ in range(12):
        n = int(rng.integers(4, 12))
        steps = np.sort(rng.choice(np.arange(10, 5000, 10), n, replace=False))
        train = np.round(np.maximum.accumulate(rng.uniform(0, 1, n)) * rng.uniform(0.3, 1), 3)
        test = np.round(rng.uniform(0, 1, n) * rng.uniform(0, 1), 3)
        cases.append(("random", curve(steps.tolist(), train.tolist(), test.tolist(), index=rng.permutation(n) + 5)))
    return cases


def _lag_variant(kind: str) -> Callable:
    """The typical mistakes of the lag exercise, as functions (for the hints)."""
    import numpy as np

    def lag(curve):
        def first(col):
            vals = curve[col].to_numpy(dtype=float)
            ref = vals.max() if kind == "max" else vals[-1]
            target = 0.5 * ref
            hit = np.flatnonzero(vals > target if kind == "strict" else vals >= target)
            if target <= 0 or not len(hit):
                return float("nan")
            return float(hit[0]) if kind == "position" else float(curve["step"].iloc[hit[0]])

        d = first("qa_test") - first("qa_train")
        return -d if kind == "sign" else d

    return lag


@checker("ex-physics02-lag")
def _check_physics_lag(answer):
    """``answer``: a function ``curve -> steps`` (a learning-curve DataFrame with columns step, qa_train, qa_test
    in step order) giving the step where QA-test first reaches half its final accuracy minus the step where
    QA-train does, NaN when either never gets there or ends at 0; run on hidden curves and compared with
    :func:`bertology_lib.experiments.physics.grid.curve_lag` (every case within 1e-9)."""
    from bertology_lib.experiments.physics.grid import curve_lag

    if not callable(answer):
        return False, f"expected a function curve -> number of steps, got {answer!r}."
    cases = _lag_cases()
    curves = [c for _, c in cases]
    outputs, error = call_all(answer, [(c.copy(),) for c in curves])
    if outputs is None:
        return False, error
    if not all(_is_number_or_nan(o) for o in outputs):
        return False, "return a number of steps (a float; NaN where the lag is undefined)."
    expected = [curve_lag(c) for c in curves]
    if agrees(outputs, expected):
        return True, f"correct on all {len(cases)} hidden curves."
    hints = {
        "max": "half of the *final* accuracy, not of the best one: a curve can peak and fall back.",
        "strict": "'reaches half' includes a point exactly at half of the final value (>=, not >).",
        "position": "return steps (the 'step' column), not row positions.",
        "sign": "the sign is reversed: QA-test's step minus QA-train's (positive when QA-test lags).",
    }
    for kind, hint in hints.items():
        if agrees(outputs, [_lag_variant(kind)(c) for c in curves]):
            return False, hint
    bad = next(k for (k, _), o, e in zip(cases, outputs, expected) if not _same(o, e))
    where = {
        "zero": "a curve whose QA-test accuracy ends at 0 (the lag is undefined there: NaN)",
        "steps": "a curve with uneven steps and a row index that does not start at 0 (use positions or iloc)",
        "random": "one of the random curves",
        "final": "a curve that peaks and falls back",
        "equal": "a curve that reaches exactly half of its final value",
        "negative": "a curve where QA-test gets there before QA-train",
    }.get(bad, f"the {bad!r} curve")
    return False, f"not yet: your function disagrees on {where}."
