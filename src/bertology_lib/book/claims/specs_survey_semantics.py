"""The registered claims of the survey notebooks on semantics and world knowledge (Rogers et al. 2020 §3.2, §3.3).

Each :class:`~bertology_lib.book.claims.registry.ClaimSpec` is registered before its notebook runs;
see :mod:`bertology_lib.book.claims.registry`.
"""

from bertology_lib.book.claims.registry import ClaimSpec, register
from bertology_lib.book.claims.rules import AtLeast, IntervalAbove

register(
    "survey_03_2_semantics",
    ClaimSpec(
        "survey3.2.selectional_gradient",
        "BERT prefers the more plausible object along a selectional gradient (tip the waiter > tip the chef > tip the robin): even the weakest contrast is above chance",
        "Rogers et al. 2020 §3.2; Ettinger 2020",
        paper="good > bad completions by category",
        rule=IntervalAbove(0.5),
        unit="accuracy (weakest contrast, 95% CI)",
    ),
    ClaimSpec(
        "survey3.2.role_reversal_weak",
        "BERT is weaker on role reversal than on category (selectional) contrasts",
        "Rogers et al. 2020 §3.2; Ettinger 2020",
        paper="less sensitive to role reversal",
        rule=IntervalAbove(0.1),
        unit="accuracy gap, selectional - role reversal (95% CI)",
    ),
    ClaimSpec(
        "survey3.2.numbers_hard",
        "BERT struggles with numbers: in the same stated facts the count is recalled worse than the animal (numerals as values; no magnitude or arithmetic tested)",
        "Rogers et al. 2020 §3.2; Wallace et al. 2019",
        paper="numbers poorly represented",
        rule=IntervalAbove(0.1),
        unit="accuracy gap, animal - count (95% CI)",
    ),
    ClaimSpec(
        "survey3.2.name_swap_brittle",
        "BERT is brittle to named-entity replacement: swapping names for others of the same type changes a prediction that should not depend on them (verb agreement)",
        "Rogers et al. 2020 §3.2; Balasubramanian et al. 2020",
        paper="predictions change under name swaps",
        rule=AtLeast(0.1),
        unit="flip rate",
    ),
)

register(
    "survey_03_3_world_knowledge",
    ClaimSpec(
        "survey3.3.fact_recall",
        "BERT recalls facts stated in its training corpus (LAMA-style cloze, true vs false object)",
        "Rogers et al. 2020 §3.3; Petroni et al. 2019",
        paper="recalls relational facts",
        rule=IntervalAbove(0.75),
        unit="accuracy (95% CI)",
    ),
    ClaimSpec(
        "survey3.3.no_size_inference",
        "BERT knows stated properties but cannot reason with them: size comparisons the corpus never states are answered worse than the stated ones",
        "Rogers et al. 2020 §3.3; Forbes et al. 2019",
        paper="knows properties, cannot compare sizes",
        rule=IntervalAbove(0.1),
        unit="accuracy gap, stated - held out (95% CI)",
    ),
)
