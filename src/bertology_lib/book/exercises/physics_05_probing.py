"""Checkers of the exercises of ``physics_05_probing`` (Where the knowledge is stored: P- and Q-probing, Allen-Zhu & Li
2023):

* ``ex-physics05-ceiling``: the share of Q-probe test people whose university no training person has (one minus it
  is the probe's accuracy ceiling);
* ``ex-physics05-chance``: the chance that unrelated numbers pass the rule "Spearman rho >= 0.7" over the quick
  grid's models.

Every truth is computed here from the library and the bioS generator at the configuration the exercise names (the
quick sizes, seed 0: :mod:`bertology_lib.book.exercises.quick_physics`), never from the profile the notebook runs
at, so a teacher notebook passes its checks at smoke and at quick alike. Used by that notebook's exercise cells.
"""

from __future__ import annotations

import itertools
from functools import lru_cache

from bertology_lib.book.exercises.cases import Mistake, judge_value, within
from bertology_lib.book.exercises.checks import as_share, checker


def physics_unseen_truth(n_people: int | None = None, seed: int = 0, attribute: str = "university") -> float:
    """Share of Q-probe test people whose ``attribute`` value no probe-training person has (``n_people``: the
    ``quick`` profile's N when None).

    Uses the probe split of :func:`bertology_lib.experiments.physics.probing.q_probe` (seed ``seed``, half the people)
    on the bioS people of ``BioConfig(n_people, seed)``: a linear probe cannot predict a class it never saw,
    so one minus this share is the probe's accuracy ceiling.
    """
    from bertology_lib.data import bios
    from bertology_lib.experiments.physics.probing import people_split

    if n_people is None:
        from bertology_lib.experiments.physics.config import PhysicsConfig

        n_people = PhysicsConfig.for_profile("quick").n_people
    people = bios.sample_people(n_people, seed)
    tr, te = people_split(len(people), None, 0.5, seed)
    seen = {people[i].value(attribute) for i in tr}
    return float(sum(people[i].value(attribute) not in seen for i in te) / len(te))


@checker("ex-physics05-ceiling")
def _check_physics_unseen(answer):
    """``answer``: a share in [0, 1] (+-0.005 accepted) for the quick people (N = 300, seed 0) with the paper's pools."""
    return judge_value(
        answer,
        read=as_share,
        refuse="expected a share between 0 and 1, got {answer!r}.",
        truth=physics_unseen_truth,
        match=within(0.005),
        ok="correct: one minus it is the best accuracy any probe can reach on university.",
        mistakes=[
            Mistake(
                "that is the share of test people whose university *was* seen; the question asks the opposite.",
                lambda t: 1 - t,
            )
        ],
        not_yet=(
            "not quite: use the probe's own split (people_split from bertology_lib.experiments.physics.probing, "
            "seed 0, train_fraction 0.5) and compare each test person's university with the set of training "
            "ones."
        ),
    )


def _grid_models(profile: str = "quick") -> int:
    from bertology_lib.experiments.physics.grid import Plan

    return sum(len(s) for s in Plan.for_profile(profile).grid_seeds.values())


@lru_cache(maxsize=16)
def spearman_null_tail(n: int, rho: float = 0.7, two_sided: bool = False, strict: bool = False) -> float:
    """Probability that the Spearman correlation of ``n`` untied values with a random order reaches ``rho``
    (``>= rho``; ``> rho`` when ``strict``; ``|r|`` when ``two_sided``): exact over all n! orders up to
    n = 9, beyond that from 1,000,000 seeded random orders (standard error below 0.0005)."""
    import numpy as np

    if n < 3:
        raise ValueError(f"n={n} is out of range; allowed: at least 3 points")
    if n <= 9:
        flat = np.fromiter(itertools.chain.from_iterable(itertools.permutations(range(n))), dtype=np.int8)
        orders = flat.reshape(-1, n).astype(np.int32)
    else:
        orders = np.random.default_rng(0).permuted(np.tile(np.arange(n, dtype=np.int32), (1_000_000, 1)), axis=1)
    r = 1 - 6 * ((orders - np.arange(n)) ** 2).sum(1) / (n * (n * n - 1))
    r = np.abs(r) if two_sided else r
    eps = 1e-9
    return float(np.mean(r > rho + eps) if strict else np.mean(r >= rho - eps))


def physics_chance_truth() -> float:
    """Chance that unrelated numbers pass the rule "Spearman rho >= 0.7" over the quick grid's models (one
    point per augmentation and seed): the exact one-sided permutation probability."""
    return spearman_null_tail(_grid_models("quick"))


@checker("ex-physics05-chance")
def _check_physics_chance(answer):
    """``answer``: P(rho >= 0.7) for the quick grid's number of models under random pairing (a probability;
    +-0.001: at the quick grid's 14 models the truth is about 0.003, and a Monte Carlo estimate with 200,000
    shuffles has a standard error near 0.00013)."""
    n = _grid_models("quick")
    points = (
        "check the number of points: one per pretrained model of the quick grid, i.e. per (augmentation, seed) "
        "in px.Plan.for_profile('quick').grid_seeds."
    )
    return judge_value(
        answer,
        read=as_share,
        refuse="expected a probability between 0 and 1, got {answer!r}.",
        truth=physics_chance_truth,
        match=within(0.001),
        ok="correct: a passing rho is evidence, but with this few models not overwhelming evidence.",
        mistakes=[
            Mistake(
                "that counts |rho| >= 0.7; the rule asks for a positive correlation only (one-sided).",
                lambda t: spearman_null_tail(n, two_sided=True),
            ),
            Mistake(
                "close: a rho of exactly 0.7 passes the rule too (>=, not >).",
                lambda t: spearman_null_tail(n, strict=True),
            ),
            Mistake(
                "that is the chance of failing the rule; the question asks for the chance of passing it.",
                lambda t: 1 - t,
            ),
            *(Mistake(points, lambda t, k=k: spearman_null_tail(k)) for k in range(3, 11) if k != n),
        ],
        not_yet=(
            "not quite: pair the ranks 0..n-1 with every order of them (itertools.permutations, or many random "
            "shuffles), compute rho = 1 - 6 sum(d^2) / (n (n^2 - 1)) and count how often it is >= 0.7."
        ),
    )
