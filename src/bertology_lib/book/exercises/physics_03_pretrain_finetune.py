"""Checkers of the exercises of ``physics_03_pretrain_finetune`` (Pretrain, then fine-tune: knowledge
augmentation, Allen-Zhu & Li 2023):

* ``ex-physics03-bits``: the bits of knowledge per bioS person;
* ``ex-physics03-exposures``: how often each fact is read in the quick pretraining, single vs multi5+permute.

Every truth is computed here from the library and the bioS generator at the configuration the exercise names
(the quick sizes, seed 0: :mod:`bertology_lib.book.exercises.quick`), never from the profile the notebook runs
at, so a teacher notebook passes its checks at smoke and at quick alike. Used by that notebook's exercise cells.
"""

from __future__ import annotations

import math
from functools import lru_cache

from bertology_lib.book.exercises.cases import close
from bertology_lib.book.exercises.checks import as_number, as_pair, checker
from bertology_lib.book.exercises.quick import bio_exposures, physics_config


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
    v = as_number(answer)
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
    pair = as_pair(answer)
    if pair is None or not all(v > 0 for v in pair):
        return False, f"expected two positive numbers, (single, multi5+permute), got {answer!r}."
    truth = physics_exposures_truth()
    ok = [close(v, t, rel=0.02) for v, t in zip(pair, truth)]
    if all(ok):
        return True, ("correct: about as many readings per fact either way, so single's failure to extract is not "
                      "a lack of exposure but of variety.")
    cfg = physics_config()
    per_bio = cfg.pretrain_steps * cfg.batch_size / cfg.n_people  # a row taken for one biography
    if any(close(v, per_bio, rel=0.02) or close(v, per_bio / 5, rel=0.02) for v in pair):
        return False, ("a row of a batch is a window of seq_len tokens holding about two biographies, not one "
                       "biography: count the packed windows (training.bio_rows, with the config's packing).")
    if ok[0] and close(pair[1], truth[1] / 5, rel=0.02):
        return False, ("for multi5+permute you counted the epochs; every epoch reads each of a person's five "
                       "biographies, and each of them states every fact.")
    which = "single" if not ok[0] else "multi5+permute"
    return False, (f"the {which} number is off: steps x batch size rows over the number of packed BIO windows is "
                   "the number of epochs; multiply by the biographies each person has.")
