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
        "physics3.1.bert.paper_recipe.worse_than_decoder",
        "At the paper's recipe (whole-word masking of 15% of the words, the decoder's pretraining steps, no hint of "
        "the answer's length), a BERT pretrained on multi5+permute extracts less knowledge than the decoder (mean "
        "QA-test accuracy, decoder minus BERT)",
        "Allen-Zhu & Li 2023 §7",
        paper="decoder far above",
        rule=AtLeast(0.1),
        unit="accuracy gap",
        checks=(MEMORISED,),
        note="registered 2026-12-05; both models must have stored their biographies (memorised)",
    ),
    ClaimSpec(
        "physics3.1.bert.paper_recipe.birth_date_easiest",
        "At the paper's recipe, birth date is the BERT's best-extracted attribute (birth date scored per component, "
        "the mean of month, day and year, minus the best other attribute's exact match)",
        "Allen-Zhu & Li 2023 §7",
        paper="birth date best",
        rule=AtLeast(0.01),
        unit="accuracy gap",
        checks=(MEMORISED,),
        note="registered 2026-12-05",
    ),
    ClaimSpec(
        "physics3.1.bert.worse_than_decoder",
        "With the stronger recipe of the profile (a second arm: at quick more than eight times the decoder's steps and 40% "
        "masked words, so that the BERT stores its biographies), a BERT pretrained on multi5+permute extracts less "
        "knowledge than the decoder (mean QA-test accuracy, decoder minus BERT; no hint of the answer's length)",
        "Allen-Zhu & Li 2023 §7",
        paper="decoder far above",
        rule=AtLeast(0.1),
        unit="accuracy gap",
        checks=(MEMORISED,),
        note="since 2026-12-05 the BERT fills a fixed number of answer slots (before, one [MASK] per answer word)",
    ),
    ClaimSpec(
        "physics3.1.bert.birth_date_easiest",
        "With the stronger recipe, birth date is the BERT's best-extracted attribute (birth date scored per "
        "component, the mean of month, day and year, minus the best other attribute's exact match)",
        "Allen-Zhu & Li 2023 §7",
        paper="birth date best",
        rule=AtLeast(0.01),
        unit="accuracy gap",
        checks=(MEMORISED,),
        note="since 2026-12-05 scored per date component, as the paper's per-attribute table (before, the exact "
        "match of the four-word date)",
    ),
)
