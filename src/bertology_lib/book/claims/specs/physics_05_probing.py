"""The registered claims of physics_05_probing: P- and Q-probing (Allen-Zhu & Li 2023 §5).

Instrument checks: every claim that reads knowledge out of a model declares
``memorised`` (:data:`~bertology_lib.book.claims.specs.shared.MEMORISED`): a model that did not store the
facts can neither extract them nor fail to, so the verdict is "inconclusive - instrument".

The classifier probes also declare ``classes_seen`` (every attribute: at least 0.9 of the probe-test
people have a class some probe-training person has,
:data:`~bertology_lib.experiments.physics.instruments.CLASSES_SEEN`) and ``probe_positive_control`` (on the
single model, the P-probe reads each attribute at the position just before its value, where a memorising
model must hold it, at least 0.3 above majority on average,
:data:`~bertology_lib.experiments.physics.instruments.POSITIVE_CONTROL`); a test keeps those constants and
these thresholds equal.

Each :class:`~bertology_lib.book.claims.registry.ClaimSpec` in ``CLAIMS`` is registered under this module's
name before the notebook runs, in the order the notebook records them; the notebook passes only its
measured values (see :mod:`bertology_lib.book.claims.registry`).
"""

from bertology_lib.book.claims.instruments import Minimum
from bertology_lib.book.claims.registry import ClaimSpec
from bertology_lib.book.claims.rules import AtLeast, AtMost
from bertology_lib.book.claims.specs.shared import MEMORISED

CLASSES_SEEN = Minimum("classes_seen", 0.9)
PROBE_POSITIVE_CONTROL = Minimum("probe_positive_control", 0.3)

CLAIMS = (
    ClaimSpec(
        "physics3.1.probing.q_probe_predicts_extraction",
        "Across the augmentation grid, Q-probe accuracy and fine-tuned QA-test accuracy are strongly correlated (Spearman over models)",
        "Allen-Zhu & Li 2023 §6",
        paper="strong correlation",
        rule=AtLeast(0.7),
        unit="Spearman rho",
        checks=(MEMORISED, CLASSES_SEEN, PROBE_POSITIVE_CONTROL),
    ),
    ClaimSpec(
        "physics3.1.probing.q_probe_vocab_predicts_extraction",
        "Across the augmentation grid, Q-probe accuracy through the model's output embeddings (our small-N probe) and fine-tuned QA-test accuracy are strongly correlated (Spearman over models)",
        "Allen-Zhu & Li 2023 §6",
        paper="strong correlation",
        rule=AtLeast(0.7),
        unit="Spearman rho",
        checks=(MEMORISED,),
    ),
    ClaimSpec(
        "physics3.1.probing.p_probe_at_name",
        "P-probing: in a multi5+permute model the attributes are readable at the person's name, in a single model they are not (mean over attributes except birth date, multi5+permute minus single)",
        "Allen-Zhu & Li 2023 §5",
        paper="large gap",
        rule=AtLeast(0.1),
        unit="probe accuracy gap",
        checks=(MEMORISED, CLASSES_SEEN, PROBE_POSITIVE_CONTROL),
    ),
    ClaimSpec(
        "physics3.1.probing.p_probe_at_name_augmented",
        "P-probing: in a decoder pretrained on multi5+permute the attributes are readable at the person's name (mean probe-test accuracy over attributes except birth date)",
        "Allen-Zhu & Li 2023 §5",
        paper="near 100%",
        rule=AtLeast(0.7),
        unit="probe accuracy",
        checks=(MEMORISED, CLASSES_SEEN, PROBE_POSITIVE_CONTROL),
    ),
    ClaimSpec(
        "physics3.1.probing.p_probe_at_name_single",
        "P-probing: in a decoder pretrained on single the attributes are not readable at the person's name (mean probe-test accuracy over attributes except birth date)",
        "Allen-Zhu & Li 2023 §5",
        paper="near the majority share",
        rule=AtMost(0.3),
        unit="probe accuracy",
        checks=(MEMORISED, CLASSES_SEEN, PROBE_POSITIVE_CONTROL),
    ),
    ClaimSpec(
        "physics3.1.probing.single_reads_late",
        "P-probing a single model: each attribute is best read at or after the position just before its own value, never earlier (share of attributes)",
        "Allen-Zhu & Li 2023 §5",
        paper=1.0,
        rule=AtLeast(1.0),
        unit="share of attributes",
        kind="setup",
        note="follows from next-token prediction on fixed-order text: the attribute is only predictable after its prefix",
    ),
    ClaimSpec(
        "physics3.1.probing.q_probe_augmentation",
        "Q-probing reads more from the bare name of a multi5+permute model than of a single model (mean accuracy, multi5+permute minus single)",
        "Allen-Zhu & Li 2023 §6",
        paper="large gap",
        rule=AtLeast(0.1),
        unit="probe accuracy gap",
        checks=(MEMORISED, CLASSES_SEEN, PROBE_POSITIVE_CONTROL),
    ),
)
