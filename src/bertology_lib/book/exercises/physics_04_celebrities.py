"""Checkers of the exercises of ``physics_04_celebrities`` (Celebrities help the minority, Allen-Zhu & Li 2023):

* ``ex-physics04-majority``: the minority's majority-baseline accuracy (the grey tick of the ``with`` bar);
* ``ex-physics04-exposures``: how often each minority fact is read in the quick celebrity pretraining.

Every truth is computed here from the library and the bioS generator at the configuration the exercise names (the
quick sizes, seed 0: :mod:`bertology_lib.book.exercises.quick_physics`), never from the profile the notebook runs
at, so a teacher notebook passes its checks at smoke and at quick alike. Used by that notebook's exercise cells.
"""

from __future__ import annotations

from functools import lru_cache

from bertology_lib.book.exercises.cases import Mistake, judge_value, within
from bertology_lib.book.exercises.checks import as_positive, as_share, checker
from bertology_lib.book.exercises.quick_physics import bio_exposures, physics_config


def _celebrity_quick():
    from bertology_lib.experiments.physics.grid import celebrity_config

    return celebrity_config(physics_config())


@lru_cache(maxsize=4)
def physics_minority_majority_truth() -> float:
    """Mean over the six attributes of the minority's accuracy when always answering the most common
    celebrity (QA-train) answer (:func:`bertology_lib.data.bios.majority_baseline`, ties alphabetical), in
    the quick celebrity dataset (300 celebrities + 300 minority people, seed 0): the grey tick of the
    ``with`` bar."""
    from bertology_lib.data import bios

    ds = _celebrity_quick().dataset()
    guess = bios.majority_baseline([ds.people[i] for i in ds.qa_train])
    minority = [ds.people[i] for i in ds.qa_test]
    return sum(sum(p.value(a) == guess[a][0] for p in minority) / len(minority) for a in bios.ATTRIBUTES) / 6


@lru_cache(maxsize=4)
def _in_sample_majority(group: str) -> float:
    from bertology_lib.data import bios

    ds = _celebrity_quick().dataset()
    base = bios.majority_baseline([ds.people[i] for i in ds.groups[group]])
    return sum(share for _, share in base.values()) / len(base)


@checker("ex-physics04-majority")
def _check_physics_minority_majority(answer):
    """``answer``: the minority's mean majority-baseline accuracy in the quick celebrity dataset (a share;
    +-0.0005 accepted, less than one question in 1,800)."""
    return judge_value(
        answer,
        read=as_share,
        refuse="expected a share between 0 and 1, got {answer!r}.",
        truth=physics_minority_majority_truth,
        match=within(0.0005),
        ok="correct: that is the floor the minority's accuracy is compared with, with or without celebrities.",
        mistakes=[
            Mistake(
                "that is how often the celebrities' own most common answer occurs among the celebrities; "
                "score that answer on the minority people instead.",
                lambda t: _in_sample_majority("majority"),
            ),
            Mistake(
                "you took the most common answer among the minority itself; the model can only learn the "
                "celebrities' answers in fine-tuning, so the guess comes from QA-train.",
                lambda t: _in_sample_majority("minority"),
            ),
        ],
        not_yet=(
            "not quite: per attribute, take the most common celebrity answer (bios.majority_baseline on the "
            "celebrities), count the minority people who have it, and average the six shares."
        ),
    )


@lru_cache(maxsize=4)
def physics_minority_exposures_truth() -> float:
    """Times each minority fact is read in the quick celebrity pretraining (``celebrity_config`` of the quick
    sizes: its steps and the packed windows of all 1,800 biographies); a minority person has one biography."""
    return bio_exposures(_celebrity_quick())


@checker("ex-physics04-exposures")
def _check_physics_minority_exposures(answer):
    """``answer``: readings of each minority fact in the quick celebrity pretraining (a number; +-2%)."""
    cfg = _celebrity_quick()

    def not_yet(v, truth):
        if within(rel=0.03)(v, 5 * truth) or v > 2.5 * truth:
            return (
                "that is how often a celebrity's fact is read (or a fact in the run without celebrities); a "
                "minority person has a single biography among many more windows."
            )
        return (
            "not quite: steps x batch size rows over the number of packed windows of the celebrity dataset's "
            "biographies (training.bio_rows, with the config's packing) is the number of epochs."
        )

    return judge_value(
        answer,
        read=as_positive,
        refuse="expected a positive number of readings, got {answer!r}.",
        truth=physics_minority_exposures_truth,
        match=within(rel=0.02),
        ok=(
            "correct: the minority is read several times less often than in the run without celebrities, yet its "
            "knowledge becomes more extractable."
        ),
        mistakes=[
            Mistake(
                "celebrity_config scales the pretraining steps with the data: use its pretrain_steps, not "
                "the quick profile's.",
                lambda t: t * physics_config().pretrain_steps / cfg.pretrain_steps,
            )
        ],
        not_yet=not_yet,
    )
