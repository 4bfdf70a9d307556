"""The registered claim of survey_03c_english_perturbed: perturbed masking (Wu et al. 2020) on gold UD English EWT
trees read by a masked LM of English (the English lab BERT by default), the survey's §3.1 claim that
``survey3.1.perturbed_masking_arcs`` tests on the toy grammar.

Each :class:`~bertology_lib.book.claims.registry.ClaimSpec` in ``CLAIMS`` is registered under this module's
name before the notebook runs; the notebook passes only its measured values (see
:mod:`bertology_lib.book.claims.registry`).
"""

from bertology_lib.book.claims.registry import ClaimSpec
from bertology_lib.book.claims.rules import IntervalAbove

CLAIMS = (
    ClaimSpec(
        "survey3c.perturbed_masking_arcs",
        "The English lab BERT, without any trained probe: words linked by a dependency arc of a real English sentence "
        "influence each other more than unlinked words at the same distance (perturbed masking on UD English EWT: "
        "normalised impact, linked minus unlinked, trained model minus its random-init twin, 95% interval over "
        "sentences)",
        "Rogers et al. 2020 §3.1; Wu et al. 2020",
        paper="syntactic neighbours influence each other more",
        rule=IntervalAbove(0.0),
        unit="impact gap beyond the twin",
        note="registered 2026-12-06 before any run, with survey3.1.perturbed_masking_arcs's rule: impacts are read "
        "from the last layer (as Wu et al.) and divided by each sentence's mean impact; pairs are compared within each "
        "distance 1-3, so adjacency alone scores 0; the random-init twin's gap (word identity and position) is "
        "subtracted; UD English EWT is not in the model's training text",
    ),
)
