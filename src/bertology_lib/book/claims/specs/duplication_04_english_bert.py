"""The registered claims of duplication_04_english_bert: duplicating the English lab BERT's layers on SST-2
(Kao et al. 2020 §4), the protocol of duplication_03_real_encoder on a masked language model of English.

Same source and paper number as the MiniLM row (``dup.no_gain_sst2``), so the findings set the two model
classes side by side. The comparison is only judged when the baseline beats its task's floor (the majority
label) over at least 3 seeds.

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
        "dup.english_no_gain_sst2",
        "Duplication brings no gain on SST-2 (the English lab BERT; 95% CI of the paired gain)",
        "Kao et al. 2020 §4",
        paper=0.0,
        rule=Equivalent(1.0),
        unit="accuracy points",
        checks=(AboveBaseline("baseline_beats_floor"), THREE_SEEDS),
        note="a claim of no effect: reproduced only when the whole interval lies within ±1 point, so too few "
        "seeds or test sentences give inconclusive, not reproduced; the baseline must beat the majority label",
    ),
)
