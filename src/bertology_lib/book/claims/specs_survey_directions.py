"""The registered claims of the survey notebook on directions: behavioural tests (Rogers et al. 2020 §7).

Each :class:`~bertology_lib.book.claims.registry.ClaimSpec` is registered before its notebook runs;
see :mod:`bertology_lib.book.claims.registry`.
"""

from bertology_lib.book.claims.registry import ClaimSpec, register
from bertology_lib.book.claims.rules import IntervalAbove

register(
    "survey_07_directions",
    ClaimSpec(
        "survey7.checklist_exceeds_iid_error",
        "Held-out accuracy overstates capability: a behavioural suite exposes a failure rate well above the i.i.d. error (toy negation classifier; suite mean minus i.i.d. error, paired by seed, 95% CI)",
        "Rogers et al. 2020 §7; Ribeiro et al. 2020 §3, Table 1",
        paper="failure rates far above held-out error",
        rule=IntervalAbove(0.05),
        unit="failure rate - error",
        null=(0.5, 0.4, 0.6),  # a constant classifier fails every test item of the other label
    ),
    ClaimSpec(
        "survey7.hans_overlap_heuristic",
        "NLI fine-tuning adopts the lexical-overlap heuristic: accuracy on non-entailed full-overlap pairs is far below i.i.d. accuracy (toy NLI, standard training data; i.i.d. minus HANS-like, paired by seed, 95% CI)",
        "Rogers et al. 2020 §7; McCoy et al. 2019 §5, Fig. 2",
        paper="near 0 on non-entailed HANS vs ~0.84 on MNLI",
        rule=IntervalAbove(0.1),
        unit="accuracy",
        null=(0.5, 0.4, 0.6),  # always answering 'entailment' scores 0 on non-entailed overlap pairs
    ),
    ClaimSpec(
        "survey7.hans_heuristic_from_data",
        "The heuristic is learned from the data: when full overlap always means entailment in training, accuracy on non-entailed full-overlap pairs drops (standard minus overlap-biased training, paired by seed, 95% CI)",
        "McCoy et al. 2019 §1, §7",
        paper="heuristics valid for almost all MNLI training pairs are adopted",
        rule=IntervalAbove(0.1),
        unit="accuracy",
        null=(0.5, 0.4, 0.6),  # always answering 'entailment' scores 0 on non-entailed overlap pairs
    ),
    ClaimSpec(
        "survey7.sst2_negation_mft",
        "A sentiment model fails a simple negation test far more often than its i.i.d. error (SST-2 on MiniLM; 'negated positive' failure rate minus i.i.d. error, paired by seed, 95% CI)",
        "Rogers et al. 2020 §7; Ribeiro et al. 2020 Table 1",
        paper="negation MFT failures far above test error",
        rule=IntervalAbove(0.05),
        unit="failure rate - error",
        null=(0.5, 0.4, 0.6),  # a constant classifier fails every test item of the other label
    ),
)
