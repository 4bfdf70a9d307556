"""Evaluation suites on toy English: masked minimal pairs with gold answers.

Each :class:`~bertology_lib.data.toy_english.ClozeItem` is a sentence with one masked
position and two candidates (correct, incorrect) plus metadata, built with the same
grammar primitives as the corpus (so every item also carries an annotated sentence).
:func:`make_suite` is the one entry point; the suite names are
:data:`~bertology_lib.data.toy_english.SUITES`.

Modules:

* ``common``: the masked item and the noun/verb choices every suite shares.
* ``syntax``: ``agreement`` (attractors, :data:`AGREEMENT_STRUCTURES`) and ``npi`` (licensing).
* ``semantics``: ``role_reversal``, ``selectional`` and ``numbers``.
* ``coreference``: two names, one pronoun, the antecedent fixed by gender (Clark et al.'s coreference head).
* ``knowledge``: ``entity_swap``, ``knowledge`` (stated facts) and ``inference`` (held-out facts).

Used by the survey_03_* notebooks.
"""

from __future__ import annotations

import random
from typing import Callable

from bertology_lib.data.suites.knowledge import entity_swap_items, inference_items, knowledge_items
from bertology_lib.data.suites.semantics import numbers_items, role_reversal_items, selectional_items
from bertology_lib.data.suites.syntax import AGREEMENT_STRUCTURES, agreement_items, npi_items
from bertology_lib.data.toy_english import SUITES, Builder, ClozeItem, ToyEnglishConfig
from bertology_lib.errors import ParameterError
from bertology_lib.validation import check_choice, check_int

__all__ = ["make_suite", "SUITES", "SUITE_BUILDERS", "AGREEMENT_STRUCTURES"]

SUITE_BUILDERS: dict[str, Callable[[Builder, int], list[ClozeItem]]] = {
    "agreement": agreement_items,
    "npi": npi_items,
    "role_reversal": role_reversal_items,
    "selectional": selectional_items,
    "numbers": numbers_items,
    "entity_swap": entity_swap_items,
    "knowledge": knowledge_items,
    "inference": inference_items,
}
assert set(SUITE_BUILDERS) == set(SUITES)


def make_suite(name: str, config: ToyEnglishConfig, n_items: int = 240) -> list[ClozeItem]:
    """``n_items`` items of suite ``name`` (:data:`SUITES`), deterministic from ``config.seed``."""
    check_choice("name", name, SUITES)
    if not isinstance(config, ToyEnglishConfig):
        raise ParameterError(f"config={config!r} is not a ToyEnglishConfig; allowed: a ToyEnglishConfig")
    check_int("n_items", n_items, minimum=1)
    rng = random.Random(f"toy-english-suite:{name}:{config.seed}")
    return SUITE_BUILDERS[name](Builder(config, rng), n_items)
