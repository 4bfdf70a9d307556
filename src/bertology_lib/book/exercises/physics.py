"""Checkers of the physics notebooks' exercises (Allen-Zhu & Li 2023)."""

from __future__ import annotations

import math

from bertology_lib.book.exercises.checks import as_number, checker


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
    v = as_number(answer)
    if v is None or not 0.0 <= v <= 1.0:
        return False, f"expected a share between 0 and 1, got {answer!r}."
    truth = physics_unseen_truth()
    if abs(v - truth) <= 0.005:
        return True, "correct: one minus it is the best accuracy any probe can reach on university."
    if abs(v - (1 - truth)) <= 0.005:
        return False, "that is the share of test people whose university *was* seen; the question asks the opposite."
    return False, ("not quite: use the probe's own split (physics_probing._people_split with seed 0 and "
                   "train_fraction 0.5) and compare each test person's university with the set of training ones.")
