"""The registered claims of survey_05c_objectives: what to mask in pre-training (Rogers et al. 2020 §5.2).

Each :class:`~bertology_lib.book.claims.registry.ClaimSpec` in ``CLAIMS`` is registered under this module's
name before the notebook runs, in the order the notebook records them; the notebook passes only its
measured values (see :mod:`bertology_lib.book.claims.registry`).
"""

from bertology_lib.book.claims.registry import ClaimSpec
from bertology_lib.book.claims.rules import IntervalAbove
from bertology_lib.book.claims.specs.shared import THREE_SEEDS, THREE, ITEMS

CLAIMS = (
    ClaimSpec(
        "training.whole_word_beats_token",
        "Whole-word masking beats token masking downstream",
        "Rogers et al. 2020 §5.2; Cui et al. 2019",
        paper="whole word > token",
        rule=IntervalAbove(0.0),
        unit="accuracy points",
        checks=(THREE_SEEDS,),
        note=ITEMS + "; " + THREE,
    ),
    ClaimSpec(
        "training.span_beats_whole_word",
        "Span masking beats whole-word masking downstream",
        "Rogers et al. 2020 §5.2; Joshi et al. 2020",
        paper="span > whole word",
        rule=IntervalAbove(0.0),
        unit="accuracy points",
        checks=(THREE_SEEDS,),
        note=ITEMS + "; our spans are longer than SpanBERT's (mean 4.46 words, not 3.8) and there is no span-boundary "
        "objective; " + THREE,
    ),
)
