"""The registered claims of physics_04_celebrities: celebrities help the minority (Allen-Zhu & Li 2023
§6).

Instrument checks: every claim that reads knowledge out of a model declares
``memorised`` (:data:`~bertology_lib.book.claims.specs.shared.MEMORISED`): a model that did not store the
facts can neither extract them nor fail to, so the verdict is "inconclusive - instrument".

The celebrity lift also needs the minority above its majority baseline with celebrities
(``minority_above_majority``: a ratio of two floor values is not a lift).

Each :class:`~bertology_lib.book.claims.registry.ClaimSpec` in ``CLAIMS`` is registered under this module's
name before the notebook runs, in the order the notebook records them; the notebook passes only its
measured values (see :mod:`bertology_lib.book.claims.registry`).
"""

from bertology_lib.book.claims.instruments import AboveBaseline
from bertology_lib.book.claims.registry import ClaimSpec
from bertology_lib.book.claims.rules import AtLeast, IntervalAbove, WithinRelative
from bertology_lib.book.claims.specs.shared import MEMORISED

MINORITY_ABOVE_MAJORITY = AboveBaseline("minority_above_majority", "majority")

CLAIMS = (
    ClaimSpec(
        "physics3.1.celebrity.lift",
        "Celebrities lift the minority's QA-test accuracy (ratio with / without, seed means)",
        "Allen-Zhu & Li 2023 §4.3 (4.4% -> 86.8%)",
        paper=19.7,
        rule=AtLeast(3.0),
        unit="x",
        checks=(MEMORISED, MINORITY_ABOVE_MAJORITY),
    ),
    ClaimSpec(
        "physics3.1.celebrity.lift_difference",
        "Celebrities lift the minority's QA-test accuracy by at least 20 points (pooled answers of every seed, "
        "with minus without; interval over the answers)",
        "Allen-Zhu & Li 2023 §4.3 (4.4% -> 86.8%: +82.4 points)",
        paper=0.824,
        rule=IntervalAbove(0.2),
        unit="accuracy gap",
        checks=(MEMORISED, MINORITY_ABOVE_MAJORITY),
        note="the difference, which a low baseline does not inflate as it does the ratio; registered 2026-12-05",
    ),
    ClaimSpec(
        "physics3.1.celebrity.not_more_text",
        "The lift comes from the celebrities, not from more text: the minority extracts more with celebrities than "
        "the same kind of people pretrained with as many extra tokens of real English (the Brown corpus) and twice "
        "the steps (pooled QA-test accuracy, with minus filler)",
        "Allen-Zhu & Li 2023 §4.3 (the celebrities' augmentation is what transfers)",
        paper="celebrities, not extra text, lift the minority",
        rule=IntervalAbove(0.0),
        unit="accuracy gap",
        checks=(MEMORISED, MINORITY_ABOVE_MAJORITY),
        note="control as the paper frames it (unrelated real text, here the Brown corpus, as many tokens as the "
        "celebrities' biographies); the paper's own control number was not at hand. The control trains for twice the "
        "celebrity run's steps (grid.FILLER_STEPS_FACTOR, 2026-12-05): at equal steps it stored 0.708 of its test "
        "people's values (instrument failed); more steps can only help the control, so the rule is unchanged and "
        "stricter",
    ),
    ClaimSpec(
        "physics3.1.celebrity.minority_accuracy",
        "With celebrities, the minority's knowledge becomes extractable (QA-test accuracy on the minority, seed mean)",
        "Allen-Zhu & Li 2023 §4.3",
        paper=0.868,
        rule=WithinRelative(0.25),
        unit="QA-test accuracy",
        checks=(MEMORISED,),
    ),
)
