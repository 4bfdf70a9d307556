"""The registered claims of survey_05b_architecture: depth vs heads in pre-training (Rogers et al. 2020
§5.1).

Each :class:`~bertology_lib.book.claims.registry.ClaimSpec` in ``CLAIMS`` is registered under this module's
name before the notebook runs, in the order the notebook records them; the notebook passes only its
measured values (see :mod:`bertology_lib.book.claims.registry`).
"""

from bertology_lib.book.claims.instruments import AboveBaseline
from bertology_lib.book.claims.registry import ClaimSpec
from bertology_lib.book.claims.rules import IntervalAbove
from bertology_lib.book.claims.specs.shared import THREE_SEEDS, THREE

CLAIMS = (
    ClaimSpec(
        "training.heads_matter_less_than_depth",
        "At equal parameters, the number of heads moves held-out MLM accuracy less than the number of layers",
        "Rogers et al. 2020 §5.1; Wang et al. 2019b (K et al. 2020)",
        paper="heads not as significant as layers",
        rule=IntervalAbove(0.0),
        unit="accuracy points, range over depths - range over heads",
        checks=(AboveBaseline("base_beats_unigram", "the unigram baseline"), THREE_SEEDS),
        note="per seed, the range of held-out MLM accuracy over three depths minus its range over three head counts; "
        "the interval covers seeds and held-out sentences (resampled jointly for every shape). Shapes of models "
        "that learned nothing differ by noise alone, so the base model must beat the unigram baseline "
        "(always the most frequent token) on the same masked words; " + THREE,
    ),
)
