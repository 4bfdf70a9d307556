"""The registered claims of survey_02_architecture: BERT's parameter counts (Rogers et al. 2020 §2),
setup checks listed apart from the reproductions.

Each :class:`~bertology_lib.book.claims.registry.ClaimSpec` in ``CLAIMS`` is registered under this module's
name before the notebook runs, in the order the notebook records them; the notebook passes only its
measured values (see :mod:`bertology_lib.book.claims.registry`).
"""

from bertology_lib.book.claims.registry import ClaimSpec
from bertology_lib.book.claims.rules import WithinRelative

CLAIMS = (
    ClaimSpec(
        "survey2.bert_base_params",
        "BERT-base (L=12, H=768, A=12) has about 110M parameters",
        "Devlin et al. 2019 §3; Rogers et al. 2020 §2",
        paper=110000000.0,
        rule=WithinRelative(0.05),
        unit="parameters",
        kind="setup",
        note="arithmetic on the published configuration: true by construction",
    ),
    ClaimSpec(
        "survey2.bert_large_params",
        "BERT-large (L=24, H=1024, A=16) has about 340M parameters",
        "Devlin et al. 2019 §3; Rogers et al. 2020 §2",
        paper=340000000.0,
        rule=WithinRelative(0.05),
        unit="parameters",
        kind="setup",
        note="arithmetic on the published configuration: true by construction",
    ),
)
