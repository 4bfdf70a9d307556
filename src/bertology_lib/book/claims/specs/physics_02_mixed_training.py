"""The registered claims of physics_02_mixed_training: mixed training on biographies and questions
(Allen-Zhu & Li 2023 §4).

Instrument checks: every claim that reads knowledge out of a model declares
``memorised`` (:data:`~bertology_lib.book.claims.specs.shared.MEMORISED`): a model that did not store the
facts can neither extract them nor fail to, so the verdict is "inconclusive - instrument".

Each :class:`~bertology_lib.book.claims.registry.ClaimSpec` in ``CLAIMS`` is registered under this module's
name before the notebook runs, in the order the notebook records them; the notebook passes only its
measured values (see :mod:`bertology_lib.book.claims.registry`).
"""

from bertology_lib.book.claims.registry import ClaimSpec
from bertology_lib.book.claims.rules import AtLeast, IntervalAbove, WithinRelative
from bertology_lib.book.claims.specs.shared import MEMORISED

CLAIMS = (
    ClaimSpec(
        "physics3.1.mixed.multi5_permute",
        "The decoder, mixed-trained on multi5+permute, answers questions about QA-test people (mean over seeds)",
        "Allen-Zhu & Li 2023 §3 (mixed training)",
        paper="high (§3)",
        rule=AtLeast(0.7),
        unit="QA-test accuracy",
        checks=(MEMORISED,),
    ),
    ClaimSpec(
        "physics3.1.mixed.above_majority",
        "After mixed training of the decoder on multi5+permute every attribute is far above its majority baseline (smallest margin over attributes)",
        "Allen-Zhu & Li 2023 §3",
        paper="far above",
        rule=AtLeast(0.2),
        unit="accuracy points over majority",
        checks=(MEMORISED,),
    ),
    ClaimSpec(
        "physics3.1.mixed.single",
        "Mixed training of the decoder generalises even on bioS single (paper: N = 100k people)",
        "Allen-Zhu & Li 2023 §3, Fig. 1",
        paper=0.866,
        rule=WithinRelative(0.25),
        unit="QA-test accuracy",
        checks=(MEMORISED,),
    ),
    ClaimSpec(
        "physics3.1.mixed.qa_test_lags",
        "In mixed training the decoder fits QA-train first; QA-test accuracy rises later (steps between both reaching half their final accuracy, per seed: mean, min, max)",
        "Allen-Zhu & Li 2023 §3, Fig. 1b/c",
        paper="QA-test lags",
        rule=IntervalAbove(0.0),
        unit="steps",
        checks=(MEMORISED,),
    ),
    ClaimSpec(
        "physics3.1.mixed.single_grows_with_n",
        "Mixed training of the decoder on bioS single generalises better with more people (QA-test accuracy at the largest minus the smallest N of the sweep, equal exposures; every answer of every seed pooled, 95% interval)",
        "Allen-Zhu & Li 2023 §3 (explanation of Fig. 1)",
        paper="grows with N",
        rule=IntervalAbove(0.05),
        unit="accuracy gain",
        checks=(MEMORISED,),
    ),
)
