"""The registered claims of survey_05d_nsp: next-sentence prediction (Rogers et al. 2020 §5.2).

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
from bertology_lib.book.claims.specs.shared import THREE_SEEDS, THREE, ITEMS, NONINF

CLAIMS = (
    ClaimSpec(
        "training.nsp_not_needed",
        "Dropping next-sentence prediction does not hurt downstream (within 1 point)",
        "Rogers et al. 2020 §5.2; Liu et al. 2019",
        paper="no NSP matches or beats NSP",
        rule=IntervalAbove(-1.0),
        unit="accuracy points",
        checks=(AboveBaseline("nsp_model_beats_floor"), AboveBaseline("nsp_learned", "chance (0.5)"), THREE_SEEDS),
        note=NONINF + " (the NSP model's downstream accuracy above the majority label), and when the NSP head learned "
        "something (training accuracy above chance, over seeds): otherwise both models lack NSP; "
        + ITEMS
        + "; "
        + THREE,
    ),
)
