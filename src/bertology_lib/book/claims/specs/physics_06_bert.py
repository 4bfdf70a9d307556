"""The registered claims of physics_06_bert: what a masked language model can extract (Allen-Zhu & Li
2023 §7).

Instrument checks: every claim that reads knowledge out of a model declares
``memorised`` (:data:`~bertology_lib.book.claims.specs.shared.MEMORISED`): a model that did not store the
facts can neither extract them nor fail to, so the verdict is "inconclusive - instrument". For the BERT claims,
the BERT and the decoder both must have stored the biographies.

Each :class:`~bertology_lib.book.claims.registry.ClaimSpec` in ``CLAIMS`` is registered under this module's
name before the notebook runs, in the order the notebook records them; the notebook passes only its
measured values (see :mod:`bertology_lib.book.claims.registry`).
"""

from bertology_lib.book.claims.registry import ClaimSpec
from bertology_lib.book.claims.rules import AtLeast
from bertology_lib.book.claims.specs.shared import MEMORISED

CLAIMS = (
    ClaimSpec(
        "physics3.1.bert.worse_than_decoder",
        "On multi5+permute data a BERT (MLM) model extracts less knowledge than the decoder (mean QA-test accuracy, decoder minus BERT)",
        "Allen-Zhu & Li 2023 §7",
        paper="decoder far above",
        rule=AtLeast(0.1),
        unit="accuracy gap",
        checks=(MEMORISED,),
    ),
    ClaimSpec(
        "physics3.1.bert.birth_date_easiest",
        "For the BERT model, birth date is the best-extracted attribute (birth-date accuracy minus the best other attribute)",
        "Allen-Zhu & Li 2023 §7",
        paper="birth date best",
        rule=AtLeast(0.01),
        unit="accuracy gap",
        checks=(MEMORISED,),
    ),
)
