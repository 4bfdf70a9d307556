"""The registered claims of duplication_02b_nli_classification: duplicating layers on toy NLI (Kao et
al. 2020 §5).

A comparison between fine-tuned models is only judged when the reference beats its task's floor (always
the majority label, or no answer for QA; the floor's name comes from the run) and, for an interval over
seeds, with at least 3 seeds.

Each :class:`~bertology_lib.book.claims.registry.ClaimSpec` in ``CLAIMS`` is registered under this module's
name before the notebook runs, in the order the notebook records them; the notebook passes only its
measured values (see :mod:`bertology_lib.book.claims.registry`).
"""

from bertology_lib.book.claims.instruments import AboveBaseline
from bertology_lib.book.claims.registry import ClaimSpec
from bertology_lib.book.claims.rules import IntervalAbove
from bertology_lib.book.claims.specs.shared import THREE_SEEDS

CLAIMS = (
    ClaimSpec(
        "dup.boost_nli",
        "Duplicating blocks before fine-tuning improves NLI accuracy (paired by seed, 95% CI)",
        "Kao et al. 2020 §4 (SNLI)",
        paper=0.6,
        rule=IntervalAbove(0.0),
        unit="accuracy points",
        checks=(AboveBaseline("baseline_beats_floor"), THREE_SEEDS),
        note="instrument: the baseline is above always predicting the majority label, with at least 3 seeds",
    ),
)
