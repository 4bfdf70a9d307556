"""The registered claims of duplication_03_real_encoder: duplicating the layers of MiniLM on SST-2 (Kao et
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
from bertology_lib.book.claims.rules import Equivalent
from bertology_lib.book.claims.specs.shared import THREE_SEEDS

CLAIMS = (
    ClaimSpec(
        "dup.no_gain_sst2",
        "Duplication brings no gain on SST-2 (real MiniLM encoder; 95% CI of the paired gain)",
        "Kao et al. 2020 §4",
        paper=0.0,
        rule=Equivalent(1.0),
        unit="accuracy points",
        checks=(AboveBaseline("baseline_beats_floor"), THREE_SEEDS),
        note="a claim of no effect: reproduced only when the whole interval lies within ±1 point (a gain the size "
        "of the paper's on other tasks would show), so too few seeds or test sentences give inconclusive, "
        "not reproduced; the baseline must beat the majority label",
    ),
)
