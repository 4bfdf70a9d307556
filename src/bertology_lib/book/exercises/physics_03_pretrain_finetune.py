"""Checkers of the exercises of ``physics_03_pretrain_finetune`` (Pretrain, then fine-tune: knowledge augmentation,
Allen-Zhu & Li 2023):

* ``ex-physics03-bits``: the bits of knowledge per bioS person;
* ``ex-physics03-exposures``: how often each fact is read in the quick pretraining, single vs multi5+permute.

Every truth is computed here from the library and the bioS generator at the configuration the exercise names (the
quick sizes, seed 0: :mod:`bertology_lib.book.exercises.quick_physics`), never from the profile the notebook runs
at, so a teacher notebook passes its checks at smoke and at quick alike. Used by that notebook's exercise cells.
"""

from __future__ import annotations

import math
from functools import lru_cache

from bertology_lib.book.exercises.cases import Mistake, judge_value, within
from bertology_lib.book.exercises.checks import as_number, as_pair, checker
from bertology_lib.book.exercises.quick_physics import bio_exposures, physics_config


def physics_bits_truth() -> float:
    """Bits of knowledge per bioS person: log2 of the number of distinct attribute combinations.

    The company city follows from the company, so it adds nothing; birth date, birth city, university,
    major and company are drawn independently and uniformly (Allen-Zhu & Li 2023 §2).
    """
    from bertology_lib.experiments.physics.biographies import possible_values

    counts = possible_values()
    return sum(math.log2(counts[a]) for a in ("birth_date", "birth_city", "university", "major", "company_name"))


@checker("ex-physics03-bits")
def _check_physics_bits(answer):
    """``answer``: bits per person (a number; +-0.1 bit is accepted)."""

    def not_yet(v, truth):
        if abs(v - truth - math.log2(len(set(_company_cities())))) <= 0.1:
            return "too many: the company city is determined by the company, so it carries no information of its own."
        if v > truth:
            return "too many: did you count an attribute twice, or use natural logarithms the wrong way?"
        return (
            "too few: each attribute contributes log2(number of possible values); the birth date has years x "
            "months x days values."
        )

    return judge_value(
        answer,
        read=as_number,
        refuse="expected a number of bits, got {answer!r}.",
        truth=physics_bits_truth,
        match=within(0.1),
        ok="correct: multiply by N people to get what the model must store.",
        not_yet=not_yet,
    )


def _company_cities() -> list[str]:
    from bertology_lib.data import bios

    return list(bios.COMPANY_CITY.values())


@lru_cache(maxsize=4)
def physics_exposures_truth() -> tuple[float, float]:
    """(single, multi5+permute): times each fact (one attribute of one person) is read in the quick
    pretraining (N = 300, seed 0): epochs over the packed BIO windows x biographies per person."""
    cfg = physics_config()
    out = []
    for aug in ("single", "multi5+permute"):
        c = cfg.replace(augmentation=aug)
        out.append(bio_exposures(c) * len(c.dataset().bios) / c.n_people)
    return out[0], out[1]


@checker("ex-physics03-exposures")
def _check_physics_exposures(answer):
    """``answer``: (single, multi5+permute) readings of each fact in the quick pretraining runs (N = 300,
    seed 0, the quick steps and batch size); +-2% each."""
    cfg = physics_config()
    per_bio = cfg.pretrain_steps * cfg.batch_size / cfg.n_people  # a row taken for one biography

    def not_yet(pair, truth):
        which = "single" if not within(rel=0.02)(pair[0], truth[0]) else "multi5+permute"
        return (
            f"the {which} number is off: steps x batch size rows over the number of packed BIO windows is the "
            "number of epochs; multiply by the biographies each person has."
        )

    return judge_value(
        answer,
        read=lambda a: p if (p := as_pair(a)) is not None and all(v > 0 for v in p) else None,
        refuse="expected two positive numbers, (single, multi5+permute), got {answer!r}.",
        truth=physics_exposures_truth,
        match=within(rel=0.02),
        ok=(
            "correct: about as many readings per fact either way, so single's failure to extract is not a lack of "
            "exposure but of variety."
        ),
        mistakes=[
            Mistake(
                "a row of a batch is a window of seq_len tokens holding about two biographies, not one biography: "
                "count the packed windows (training.bio_rows, with the config's packing).",
                lambda t: (per_bio, per_bio / 5),
                match=lambda pair, wrong: any(within(rel=0.02)(v, w) for v in pair for w in wrong),
            ),
            Mistake(
                "for multi5+permute you counted the epochs; every epoch reads each of a person's five "
                "biographies, and each of them states every fact.",
                lambda t: (t[0], t[1] / 5),
            ),
        ],
        not_yet=not_yet,
    )
