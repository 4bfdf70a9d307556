"""The registered claims of survey_03_4_probing_limits: the limitations of probing (Rogers et al. 2020
§3.4).

Each :class:`~bertology_lib.book.claims.registry.ClaimSpec` in ``CLAIMS`` is registered under this module's
name before the notebook runs, in the order the notebook records them; the notebook passes only its
measured values (see :mod:`bertology_lib.book.claims.registry`).
"""

from bertology_lib.book.claims.instruments import Minimum
from bertology_lib.book.claims.registry import ClaimSpec
from bertology_lib.book.claims.rules import BeatsBaseline, IntervalAbove

CLAIMS = (
    ClaimSpec(
        "survey3.4.mlp_less_selective",
        "An expressive (MLP) probe is less selective than a linear probe: it also fits a control task of random per-word labels (selectivity, layer mean, 95% interval over test sentences)",
        "Rogers et al. 2020 §3.4; Hewitt & Liang 2019",
        paper="linear more selective",
        rule=IntervalAbove(0.0),
        unit="selectivity, linear - MLP (layer mean)",
        note="a claim about probes, not about the model: it can hold on any representation that separates word "
        "types, a random network's included (the null-model run names it as the expected exception)",
    ),
    ClaimSpec(
        "survey3.4.mdl_trained_vs_random",
        "POS is easier to extract (shorter online codelength) from the trained model than from the same network with random weights (bits per word saved, each at its shortest layer, 95% interval over sentences)",
        "Rogers et al. 2020 §3.4; Voita & Titov 2020",
        paper="trained codelength shorter",
        rule=BeatsBaseline("random-init twin"),
        unit="bits per word, random - trained",
        note="both layers are chosen again in every resample, so the interval includes the choice of layer",
    ),
    ClaimSpec(
        "survey3.4.amnesic_pos",
        "Removing POS information from a middle layer hurts masked-word prediction more than removing as many random directions (MLM-accuracy drop, INLP minus each random control, 95% interval over the controls)",
        "Rogers et al. 2020 §3.4; Elazar et al. 2021",
        paper="LM relies on POS",
        rule=BeatsBaseline("random projections of the same rank"),
        unit="MLM acc. drop over random",
        checks=(Minimum("property_removed", 0.10),),
        note="instrument: INLP must actually remove POS, i.e. a probe retrained after INLP is at least 10 points below "
        "one retrained after the random projections; else the drop is not about POS",
    ),
    ClaimSpec(
        "survey3.4.real_mlp_less_selective",
        "On a real pretrained encoder and real sentences, an MLP UPOS probe is less selective than a linear one (selectivity, layer mean, 95% interval over test sentences)",
        "Rogers et al. 2020 §3.4; Hewitt & Liang 2019",
        paper="linear more selective",
        rule=IntervalAbove(0.0),
        unit="selectivity, linear - MLP (layer mean)",
        note="a claim about probes (see survey3.4.mlp_less_selective)",
    ),
)
