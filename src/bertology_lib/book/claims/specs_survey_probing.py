"""The registered claims of the survey notebooks on architecture and probing (Rogers et al. 2020 §2, §3.1, §3.4, §4.3).

Each :class:`~bertology_lib.book.claims.registry.ClaimSpec` is registered before its notebook runs;
see :mod:`bertology_lib.book.claims.registry`.
"""

from bertology_lib.book.claims.registry import ClaimSpec, register
from bertology_lib.book.claims.rules import AtLeast, AtMost, WithinRelative

register(
    "survey_02_architecture",
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

register(
    "survey_03_1_syntax",
    ClaimSpec(
        "survey3.1.pos_in_context",
        "POS is linearly decodable from BERT's states beyond word identity (best layer vs per-word majority, on ambiguous words)",
        "Rogers et al. 2020 §3.1; Tenney et al. 2019",
        paper="POS decodable",
        rule=AtLeast(0.1),
        unit="acc. over majority",
    ),
    ClaimSpec(
        "survey3.1.tree_depth",
        "Syntactic tree depth is recoverable from BERT's states (best trained layer vs best random-init layer)",
        "Rogers et al. 2020 §3.1; Hewitt & Manning 2019",
        paper="trees recoverable",
        rule=AtLeast(0.05),
        unit="acc. over random init",
    ),
    ClaimSpec(
        "survey3.1.agreement_attractors",
        "BERT prefers the verb form agreeing with the subject even with intervening attractors",
        "Rogers et al. 2020 §3.1; Goldberg 2019",
        paper="> 0.8 with attractors",
        rule=AtLeast(0.8),
        unit="accuracy",
    ),
    ClaimSpec(
        "survey3.1.npi_licensing",
        "BERT distinguishes licensed from unlicensed negative-polarity items",
        "Rogers et al. 2020 §3.1; Warstadt et al. 2019",
        paper="sensitive to licensing",
        rule=AtLeast(0.8),
        unit="accuracy",
    ),
    ClaimSpec(
        "survey3.1.insensitive_to_shuffling",
        "BERT's cloze preferences are largely unchanged when word order is shuffled",
        "Rogers et al. 2020 §3.1; Ettinger 2020",
        paper="predictions not altered",
        rule=AtLeast(0.8),
        unit="same preference",
    ),
    ClaimSpec(
        "survey3.1.real_pos_probe",
        "A pretrained encoder's layers encode POS beyond word identity and beyond an untrained network (UD English EWT, held-out sentences)",
        "Rogers et al. 2020 §3.1; Tenney et al. 2019",
        paper="POS decodable",
        rule=AtLeast(0.02),
        unit="acc. over best baseline",
    ),
)

register(
    "survey_03_4_probing_limits",
    ClaimSpec(
        "survey3.4.mlp_less_selective",
        "An expressive (MLP) probe is less selective than a linear probe: it also fits a control task of random per-word labels",
        "Rogers et al. 2020 §3.4; Hewitt & Liang 2019",
        paper="linear more selective",
        rule=AtLeast(0.01),
        unit="selectivity, linear - MLP (layer mean)",
    ),
    ClaimSpec(
        "survey3.4.mdl_trained_vs_random",
        "POS is easier to extract (shorter online codelength) from the trained model than from the same network with random weights",
        "Rogers et al. 2020 §3.4; Voita & Titov 2020",
        paper="trained codelength shorter",
        rule=AtLeast(1.1),
        unit="x codelength, random / trained",
    ),
    ClaimSpec(
        "survey3.4.amnesic_pos",
        "Removing POS information from a middle layer hurts masked-word prediction more than removing as many random directions",
        "Rogers et al. 2020 §3.4; Elazar et al. 2021",
        paper="LM relies on POS",
        rule=AtLeast(0.01),
        unit="MLM acc. drop over worst random",
    ),
    ClaimSpec(
        "survey3.4.real_mlp_less_selective",
        "On a real pretrained encoder and real sentences, an MLP UPOS probe is less selective than a linear one",
        "Rogers et al. 2020 §3.4; Hewitt & Liang 2019",
        paper="linear more selective",
        rule=AtLeast(0.01),
        unit="selectivity, linear - MLP (layer mean)",
    ),
)

register(
    "survey_04_3_layers",
    ClaimSpec(
        "survey4.3.pipeline_order",
        "Layers follow the classical pipeline: semantic roles are resolved at a higher expected layer than POS (toy, mini-BERT)",
        "Rogers et al. 2020 §4.3; Tenney et al. 2019 §3, Fig. 1",
        paper="POS < parsing < roles",
        rule=AtLeast(0.0),
        unit="layers",
    ),
    ClaimSpec(
        "survey4.3.position_fades",
        "Linear word-order information is strongest in the lowest layers and fades with depth (position probe, layer 0 minus last layer, UD EWT)",
        "Rogers et al. 2020 §4.3; Lin et al. 2019 §4",
        paper="decreases with depth",
        rule=AtLeast(0.05),
        unit="accuracy",
    ),
    ClaimSpec(
        "survey4.3.structural_probe_real",
        "A linear map of a pretrained encoder's states recovers parse trees better than an untrained network and the right-branching baseline (UD EWT, held-out sentences, best layer's UUAS)",
        "Rogers et al. 2020 §4.3; Hewitt & Manning 2019 §4, Table 1",
        paper="BERT-large UUAS 0.82 vs linear 0.49",
        rule=AtLeast(0.02),
        unit="UUAS over best baseline",
    ),
    ClaimSpec(
        "survey4.3.structural_probe_toy",
        "The same in the controlled lab: the mini-BERT's best layer recovers toy parse trees better than its random-init twin and the right-branching baseline (held-out)",
        "Rogers et al. 2020 §4.3; Hewitt & Manning 2019 §4",
        paper="trees recoverable",
        rule=AtLeast(0.02),
        unit="UUAS over best baseline",
    ),
    ClaimSpec(
        "survey4.3.syntax_middle",
        "Syntax is most prominent in the middle layers: the distance probe's best layer is neither the embedding layer nor the last (|best layer / n_layers - 0.5|)",
        "Rogers et al. 2020 §4.3; Hewitt & Manning 2019 §4, Fig. 1",
        paper="BERT-large: layer 16 of 24",
        rule=AtMost(0.34),
    ),
)
