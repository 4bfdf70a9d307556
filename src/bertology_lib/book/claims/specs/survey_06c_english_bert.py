"""The registered claims of survey_06c_english_bert: pruning and quantising the English lab BERT on SST-2
(Rogers et al. 2020 §6), the protocol of survey_06b_real_encoder on a masked language model of English.

Same statements' sources and paper numbers as the MiniLM rows (``size.minilm_heads_40pct``,
``size.minilm_int8_accuracy``), so the findings set the two model classes side by side. A comparison between
fine-tuned models is only judged when the reference beats its task's floor (the majority label) and, for an
interval over seeds, with at least 3 seeds.

Each :class:`~bertology_lib.book.claims.registry.ClaimSpec` in ``CLAIMS`` is registered under this module's
name before the notebook runs, in the order the notebook records them; the notebook passes only its
measured values (see :mod:`bertology_lib.book.claims.registry`).
"""

from bertology_lib.book.claims.registry import ClaimSpec
from bertology_lib.book.claims.rules import IntervalAbove
from bertology_lib.book.claims.specs.shared import THREE_SEEDS
from bertology_lib.book.claims.specs.survey_06b_real_encoder import TEACHER_BEATS_FLOOR

_NON_INFERIORITY = (
    "a non-inferiority claim: two models at the floor would pass it, so it is only judged when the full model "
    "beats the task's floor (majority label) over seeds, with at least 3 seeds; intervals over seeds and test "
    "sentences together"
)

CLAIMS = (
    ClaimSpec(
        "size.english_heads_40pct",
        "The English lab BERT fine-tuned on SST-2: removing 40% of heads, least important first, costs less "
        "than 1 point",
        "Rogers et al. 2020 §6; Michel et al. 2019 §4",
        paper=-1.0,
        rule=IntervalAbove(-1.0),
        unit="accuracy points",
        checks=(TEACHER_BEATS_FLOOR, THREE_SEEDS),
        note=_NON_INFERIORITY,
    ),
    ClaimSpec(
        "size.english_int8_accuracy",
        "The English lab BERT fine-tuned on SST-2: int8 quantisation costs less than 1 point",
        "Rogers et al. 2020 §6; Zafrir et al. 2019",
        paper=-1.0,
        rule=IntervalAbove(-1.0),
        unit="accuracy points",
        checks=(TEACHER_BEATS_FLOOR, THREE_SEEDS),
        note=_NON_INFERIORITY,
    ),
)
