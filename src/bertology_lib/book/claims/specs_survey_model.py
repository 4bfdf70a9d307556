"""The registered claims of the survey §5–§7 notebooks (Rogers et al. 2020): training, size, directions.

Each :class:`~bertology_lib.book.claims.registry.ClaimSpec` is registered before its notebook runs;
see :mod:`bertology_lib.book.claims.registry`.
"""

from bertology_lib.book.claims.registry import ClaimSpec, register
from bertology_lib.book.claims.rules import AtLeast, IntervalAbove, WithinRelative

register(
    "survey_05_2_architecture",
    ClaimSpec(
        "training.heads_matter_less_than_depth",
        "At equal parameters, the number of heads moves held-out MLM accuracy less than the number of layers",
        "Rogers et al. 2020 §5.1; Wang et al. 2019b (K et al. 2020)",
        paper="heads not as significant as layers",
        rule=IntervalAbove(0.0),
        unit="accuracy points, range over depths - range over heads",
    ),
)

register(
    "survey_05_3_objectives",
    ClaimSpec(
        "training.whole_word_beats_token",
        "Whole-word masking beats token masking downstream",
        "Rogers et al. 2020 §5.2; Cui et al. 2019",
        paper="whole word > token",
        rule=IntervalAbove(0.0),
        unit="accuracy points",
    ),
    ClaimSpec(
        "training.span_beats_whole_word",
        "Span masking beats whole-word masking downstream",
        "Rogers et al. 2020 §5.2; Joshi et al. 2020",
        paper="span > whole word",
        rule=IntervalAbove(0.0),
        unit="accuracy points",
    ),
    ClaimSpec(
        "training.nsp_not_needed",
        "Dropping next-sentence prediction does not hurt downstream (within 1 point)",
        "Rogers et al. 2020 §5.2; Liu et al. 2019",
        paper="no NSP matches or beats NSP",
        rule=IntervalAbove(-1.0),
        unit="accuracy points",
    ),
)

register(
    "survey_05_training",
    ClaimSpec(
        "training.full_beats_frozen",
        "Full fine-tuning beats a linear head on frozen last-layer features",
        "Rogers et al. 2020 §5; Devlin et al. 2019 §5.3",
        paper="fine-tuning > feature-based",
        rule=IntervalAbove(0.0),
        unit="accuracy points",
    ),
    ClaimSpec(
        "training.scalar_mix_beats_last",
        "A learned weighted sum of all layers beats the last layer (frozen)",
        "Rogers et al. 2020 §5; Peters et al. 2018",
        paper="mix > last",
        rule=IntervalAbove(0.0),
        unit="accuracy points",
    ),
    ClaimSpec(
        "training.lora_near_full",
        "LoRA (r=8 on query/value) comes within 1 point of full fine-tuning",
        "Rogers et al. 2020 §5; Hu et al. 2022; Houlsby et al. 2019",
        paper=-0.4,
        rule=IntervalAbove(-1.0),
        unit="accuracy points",
    ),
    ClaimSpec(
        "training.top_layers_change_most",
        "Fine-tuning changes the top blocks' weights more than the bottom ones'",
        "Rogers et al. 2020 §5; Kovaleva et al. 2019",
        paper="top layers change most",
        rule=IntervalAbove(0.0),
        unit="relative change, top third - bottom third",
    ),
    ClaimSpec(
        "training.top_layers_change_most_cka",
        "Fine-tuning changes the top blocks' representations more",
        "Rogers et al. 2020 §5; Kovaleva et al. 2019",
        paper="top layers change most",
        rule=IntervalAbove(0.0),
        unit="1 - CKA, top third - bottom third",
    ),
    ClaimSpec(
        "training.restore_lower_half",
        "Restoring the bottom half of the blocks to pre-trained values costs < 1 point",
        "Rogers et al. 2020 §5; Hao et al. 2019",
        paper=-1.0,
        rule=IntervalAbove(-1.0),
        unit="accuracy points",
    ),
    ClaimSpec(
        "training.seed_spread",
        "Fine-tuning outcomes vary substantially across random seeds (range of test accuracy)",
        "Rogers et al. 2020 §5; Dodge et al. 2020",
        paper="several points",
        rule=AtLeast(2.0),
        unit="accuracy points",
    ),
    ClaimSpec(
        "training.early_ranking",
        "The dev ranking of seeds after 25% of fine-tuning predicts the final dev ranking",
        "Rogers et al. 2020 §5; Dodge et al. 2020 §5",
        paper="early performance predicts final",
        rule=AtLeast(0.5),
        unit="Spearman rho",
    ),
    ClaimSpec(
        "training.mask_only_small_cost",
        "[MASK]-only corruption costs less than 1 point against 80/10/10 (POS probe)",
        "Rogers et al. 2020 §5; Devlin et al. 2019, Table 8",
        paper=-0.9,
        rule=IntervalAbove(-1.0),
        unit="accuracy points",
    ),
    ClaimSpec(
        "training.stacking_matches",
        "Progressive stacking reaches the held-out MLM accuracy of training from scratch (within 1 point) with 75% of the compute",
        "Rogers et al. 2020 §5; Gong et al. 2019",
        paper="same quality, ~25% less time",
        rule=IntervalAbove(-1.0),
        unit="accuracy points",
    ),
    ClaimSpec(
        "training.minilm_scalar_mix_beats_last",
        "MiniLM on SST-2: a scalar mix of frozen layers beats the last layer",
        "Rogers et al. 2020 §5; Peters et al. 2018",
        paper="mix > last",
        rule=IntervalAbove(0.0),
        unit="accuracy points",
    ),
)

register(
    "survey_06_model_size",
    ClaimSpec(
        "size.heads_40pct",
        "Removing 40% of attention heads (least important first) costs less than 1 accuracy point",
        "Rogers et al. 2020 §6; Michel et al. 2019 §4, Fig. 3",
        paper=-1.0,
        rule=IntervalAbove(-1.0),
        unit="accuracy points",
    ),
    ClaimSpec(
        "size.importance_beats_random",
        "At 40% of heads removed, the importance order beats a random order",
        "Rogers et al. 2020 §6; Michel et al. 2019 Fig. 3",
        paper="importance ≫ random",
        rule=IntervalAbove(0.0),
        unit="accuracy points",
    ),
    ClaimSpec(
        "size.one_head_per_layer",
        "Most layers can be reduced to a single head (share of layers losing < 1 point)",
        "Rogers et al. 2020 §6; Michel et al. 2019 §3, Table 2",
        paper="most layers",
        rule=AtLeast(0.5),
    ),
    ClaimSpec(
        "size.head_removal_improves",
        "Disabling one head (chosen on dev) improves test accuracy",
        "Rogers et al. 2020 §6; Kovaleva et al. 2019 §6",
        paper=3.2,
        rule=IntervalAbove(0.0),
        unit="accuracy points",
    ),
    ClaimSpec(
        "size.layers_dropped",
        "Dropping the top third of blocks before fine-tuning keeps at least 98% of accuracy",
        "Rogers et al. 2020 §6; Sajjad et al. 2020",
        paper=0.98,
        rule=IntervalAbove(0.98),
        unit="of the teacher",
        null=(1.0, 0.99, 1.01),  # a teacher at chance and its copy keep 100% of nothing
    ),
    ClaimSpec(
        "size.int8_accuracy",
        "Dynamic int8 quantisation costs less than 1 accuracy point",
        "Rogers et al. 2020 §6; Zafrir et al. 2019, Table 1",
        paper=-1.0,
        rule=IntervalAbove(-1.0),
        unit="accuracy points",
    ),
    ClaimSpec(
        "size.int8_linear_4x",
        "int8 makes the Linear weights about 4x smaller",
        "Rogers et al. 2020 §6; Zafrir et al. 2019",
        paper=4.0,
        rule=WithinRelative(0.1),
        unit="x",
        kind="setup",
        note="arithmetic: one byte per int8 weight against four per float32",
    ),
    ClaimSpec(
        "size.magnitude_40pct",
        "40% of the block weights can be pruned by magnitude with less than 1 point lost",
        "Rogers et al. 2020 §6; Gordon et al. 2020",
        paper=-1.0,
        rule=IntervalAbove(-1.0),
        unit="accuracy points",
    ),
    ClaimSpec(
        "size.ticket_matches_full",
        "A rewound magnitude ticket at 50% sparsity matches the full model (within 1 point)",
        "Rogers et al. 2020 §6; Chen et al. 2020",
        paper=-1.0,
        rule=IntervalAbove(-1.0),
        unit="accuracy points",
    ),
    ClaimSpec(
        "size.ticket_beats_random",
        "The lottery ticket beats a random mask of the same sparsity",
        "Rogers et al. 2020 §6; Chen et al. 2020; cf. Prasanna et al. 2020",
        paper="ticket > random",
        rule=IntervalAbove(0.0),
        unit="accuracy points",
    ),
    ClaimSpec(
        "size.distil_retention",
        "A distilled half-depth student keeps 97% of the teacher's accuracy",
        "Rogers et al. 2020 §6; Sanh et al. 2019",
        paper=0.97,
        rule=IntervalAbove(0.97),
        unit="of the teacher",
        null=(1.0, 0.99, 1.01),  # a teacher at chance and its student keep 100% of nothing
    ),
    ClaimSpec(
        "size.distil_beats_plain",
        "Distillation beats fine-tuning the same student without a teacher",
        "Rogers et al. 2020 §6; Sun et al. 2019, Table 1",
        paper="PKD > fine-tuning",
        rule=IntervalAbove(0.0),
        unit="accuracy points",
    ),
    ClaimSpec(
        "size.minilm_heads_40pct",
        "MiniLM on SST-2: removing 40% of heads costs less than 1 point",
        "Rogers et al. 2020 §6; Michel et al. 2019 §4",
        paper=-1.0,
        rule=IntervalAbove(-1.0),
        unit="accuracy points",
    ),
    ClaimSpec(
        "size.minilm_int8_accuracy",
        "MiniLM on SST-2: int8 quantisation costs less than 1 point",
        "Rogers et al. 2020 §6; Zafrir et al. 2019",
        paper=-1.0,
        rule=IntervalAbove(-1.0),
        unit="accuracy points",
    ),
    ClaimSpec(
        "size.heads_speedup",
        "Physically removing 40% of heads speeds up CPU inference",
        "Rogers et al. 2020 §6; Michel et al. 2019 §6",
        paper=1.175,
        rule=AtLeast(1.05),
        unit="x",
    ),
    ClaimSpec(
        "size.distil_speedup",
        "The half-depth distilled student is much faster than the teacher",
        "Rogers et al. 2020 §6; Sanh et al. 2019",
        paper=1.6,
        rule=AtLeast(1.3),
        unit="x",
        kind="setup",
        note="follows from the student having fewer layers; timing, not a finding about BERT",
    ),
)

register(
    "survey_07_directions",
    ClaimSpec(
        "survey7.checklist_exceeds_iid_error",
        "Held-out accuracy overstates capability: a behavioural suite exposes a failure rate well above the i.i.d. error (toy negation classifier; suite mean minus i.i.d. error, paired by seed, 95% CI)",
        "Rogers et al. 2020 §7; Ribeiro et al. 2020 §3, Table 1",
        paper="failure rates far above held-out error",
        rule=IntervalAbove(0.05),
        unit="failure rate - error",
        null=(0.5, 0.4, 0.6),  # a constant classifier fails every test item of the other label
    ),
    ClaimSpec(
        "survey7.hans_overlap_heuristic",
        "NLI fine-tuning adopts the lexical-overlap heuristic: accuracy on non-entailed full-overlap pairs is far below i.i.d. accuracy (toy NLI, standard training data; i.i.d. minus HANS-like, paired by seed, 95% CI)",
        "Rogers et al. 2020 §7; McCoy et al. 2019 §5, Fig. 2",
        paper="near 0 on non-entailed HANS vs ~0.84 on MNLI",
        rule=IntervalAbove(0.1),
        unit="accuracy",
        null=(0.5, 0.4, 0.6),  # always answering 'entailment' scores 0 on non-entailed overlap pairs
    ),
    ClaimSpec(
        "survey7.hans_heuristic_from_data",
        "The heuristic is learned from the data: when full overlap always means entailment in training, accuracy on non-entailed full-overlap pairs drops (standard minus overlap-biased training, paired by seed, 95% CI)",
        "McCoy et al. 2019 §1, §7",
        paper="heuristics valid for almost all MNLI training pairs are adopted",
        rule=IntervalAbove(0.1),
        unit="accuracy",
        null=(0.5, 0.4, 0.6),  # always answering 'entailment' scores 0 on non-entailed overlap pairs
    ),
    ClaimSpec(
        "survey7.sst2_negation_mft",
        "A sentiment model fails a simple negation test far more often than its i.i.d. error (SST-2 on MiniLM; 'negated positive' failure rate minus i.i.d. error, paired by seed, 95% CI)",
        "Rogers et al. 2020 §7; Ribeiro et al. 2020 Table 1",
        paper="negation MFT failures far above test error",
        rule=IntervalAbove(0.05),
        unit="failure rate - error",
        null=(0.5, 0.4, 0.6),  # a constant classifier fails every test item of the other label
    ),
)
