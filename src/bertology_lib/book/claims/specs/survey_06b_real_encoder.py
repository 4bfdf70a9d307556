"""The registered claims of survey_06b_real_encoder: pruning and quantising MiniLM (Rogers et al. 2020 §6).

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

TEACHER_BEATS_FLOOR = AboveBaseline("teacher_beats_floor")

CLAIMS = (
    ClaimSpec(
        "size.minilm_heads_40pct",
        "MiniLM on SST-2: removing 40% of heads costs less than 1 point",
        "Rogers et al. 2020 §6; Michel et al. 2019 §4",
        paper=-1.0,
        rule=IntervalAbove(-1.0),
        unit="accuracy points",
        checks=(TEACHER_BEATS_FLOOR, THREE_SEEDS),
        note="a non-inferiority claim: two models at the floor would pass it, so it is only judged when the full model beats the task's floor (majority label) over seeds, with at least 3 seeds (SST-2 majority label)",
    ),
    ClaimSpec(
        "size.minilm_int8_accuracy",
        "MiniLM on SST-2: int8 quantisation costs less than 1 point",
        "Rogers et al. 2020 §6; Zafrir et al. 2019",
        paper=-1.0,
        rule=IntervalAbove(-1.0),
        unit="accuracy points",
        checks=(TEACHER_BEATS_FLOOR, THREE_SEEDS),
        note="a non-inferiority claim: two models at the floor would pass it, so it is only judged when the full model beats the task's floor (majority label) over seeds, with at least 3 seeds (SST-2 majority label)",
    ),
)
