"""The registered claims of the survey §2–§3 notebooks (Rogers et al. 2020): architecture, what BERT knows.

Each :class:`~bertology_lib.book.claims.registry.ClaimSpec` is registered before its notebook runs;
see :mod:`bertology_lib.book.claims.registry`.
"""

from bertology_lib.book.claims.registry import ClaimSpec, register
from bertology_lib.book.claims.rules import AtLeast, IntervalAbove, WithinRelative

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
    "survey_03_2_semantics",
    ClaimSpec(
        "survey3.2.selectional_gradient",
        "BERT prefers the more plausible object along a selectional gradient (tip the waiter > tip the chef > tip the robin): even the weakest contrast is above chance",
        "Rogers et al. 2020 §3.2; Ettinger 2020",
        paper="good > bad completions by category",
        rule=IntervalAbove(0.5),
        unit="accuracy (weakest contrast, 95% CI)",
    ),
    ClaimSpec(
        "survey3.2.role_reversal_weak",
        "BERT is weaker on role reversal than on category (selectional) contrasts",
        "Rogers et al. 2020 §3.2; Ettinger 2020",
        paper="less sensitive to role reversal",
        rule=IntervalAbove(0.1),
        unit="accuracy gap, selectional - role reversal (95% CI)",
    ),
    ClaimSpec(
        "survey3.2.numbers_hard",
        "BERT struggles with numbers: in the same stated facts the count is recalled worse than the animal (numerals as values; no magnitude or arithmetic tested)",
        "Rogers et al. 2020 §3.2; Wallace et al. 2019",
        paper="numbers poorly represented",
        rule=IntervalAbove(0.1),
        unit="accuracy gap, animal - count (95% CI)",
    ),
    ClaimSpec(
        "survey3.2.name_swap_brittle",
        "BERT is brittle to named-entity replacement: swapping names for others of the same type changes a prediction that should not depend on them (verb agreement)",
        "Rogers et al. 2020 §3.2; Balasubramanian et al. 2020",
        paper="predictions change under name swaps",
        rule=AtLeast(0.1),
        unit="flip rate",
    ),
)

register(
    "survey_03_3_world_knowledge",
    ClaimSpec(
        "survey3.3.fact_recall",
        "BERT recalls facts stated in its training corpus (LAMA-style cloze, true vs false object)",
        "Rogers et al. 2020 §3.3; Petroni et al. 2019",
        paper="recalls relational facts",
        rule=IntervalAbove(0.75),
        unit="accuracy (95% CI)",
    ),
    ClaimSpec(
        "survey3.3.no_size_inference",
        "BERT knows stated properties but cannot reason with them: size comparisons the corpus never states are answered worse than the stated ones",
        "Rogers et al. 2020 §3.3; Forbes et al. 2019",
        paper="knows properties, cannot compare sizes",
        rule=IntervalAbove(0.1),
        unit="accuracy gap, stated - held out (95% CI)",
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
