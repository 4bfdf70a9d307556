"""The registered claims of the survey §5–§6 notebooks (Rogers et al. 2020): training and size.

Each :class:`~bertology_lib.book.claims.registry.ClaimSpec` is registered before its notebook runs;
see :mod:`bertology_lib.book.claims.registry`.
"""

from bertology_lib.book.claims.registry import ClaimSpec, register
from bertology_lib.book.claims.rules import AtLeast, BeatsBaseline, IntervalAbove, WithinRelative

THREE = "an interval over seeds needs at least 3 of them"
ITEMS = ("paired by seed and test item; the interval covers the sampling of seeds and of test items (a bootstrap of "
         "the test items added to the spread over seeds)")
NONINF = ("a non-inferiority claim: two models that learned nothing would pass it, so it is only judged when the "
          "reference model beats its floor")

register(
    "survey_05b_architecture",
    ClaimSpec(
        "training.heads_matter_less_than_depth",
        "At equal parameters, the number of heads moves held-out MLM accuracy less than the number of layers",
        "Rogers et al. 2020 §5.1; Wang et al. 2019b (K et al. 2020)",
        paper="heads not as significant as layers",
        rule=IntervalAbove(0.0),
        unit="accuracy points, range over depths - range over heads",
        checks=("base_beats_unigram", "three_seeds"),
        note="per seed, the range of held-out MLM accuracy over three depths minus its range over three head counts; "
             "the interval covers seeds and held-out sentences (resampled jointly for every shape). Shapes of models "
             "that learned nothing differ by noise alone, so the base model must beat the unigram baseline "
             "(always the most frequent token) on the same masked words; " + THREE,
    ),
)

register(
    "survey_05c_objectives",
    ClaimSpec(
        "training.whole_word_beats_token",
        "Whole-word masking beats token masking downstream",
        "Rogers et al. 2020 §5.2; Cui et al. 2019",
        paper="whole word > token",
        rule=IntervalAbove(0.0),
        unit="accuracy points",
        checks=("three_seeds",),
        note=ITEMS + "; " + THREE,
    ),
    ClaimSpec(
        "training.span_beats_whole_word",
        "Span masking beats whole-word masking downstream",
        "Rogers et al. 2020 §5.2; Joshi et al. 2020",
        paper="span > whole word",
        rule=IntervalAbove(0.0),
        unit="accuracy points",
        checks=("three_seeds",),
        note=ITEMS + "; our spans are longer than SpanBERT's (mean 4.46 words, not 3.8) and there is no span-boundary "
             "objective; " + THREE,
    ),
)

register(
    "survey_05d_nsp",
    ClaimSpec(
        "training.nsp_not_needed",
        "Dropping next-sentence prediction does not hurt downstream (within 1 point)",
        "Rogers et al. 2020 §5.2; Liu et al. 2019",
        paper="no NSP matches or beats NSP",
        rule=IntervalAbove(-1.0),
        unit="accuracy points",
        checks=("nsp_model_beats_floor", "nsp_learned", "three_seeds"),
        note=NONINF + " (the NSP model's downstream accuracy above the majority label), and when the NSP head learned "
             "something (training accuracy above chance, over seeds): otherwise both models lack NSP; " + ITEMS
             + "; " + THREE,
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
        checks=("three_seeds",),
        note=ITEMS + "; " + THREE,
    ),
    ClaimSpec(
        "training.scalar_mix_beats_last",
        "A learned weighted sum of all layers beats the last layer (frozen)",
        "Rogers et al. 2020 §5; Peters et al. 2018",
        paper="mix > last",
        rule=IntervalAbove(0.0),
        unit="accuracy points",
        checks=("three_seeds",),
        note="both heads and the mix weights are fitted on the training split only, nothing is chosen on the test "
             "split; " + ITEMS + "; " + THREE,
    ),
    ClaimSpec(
        "training.lora_near_full",
        "LoRA (r=8 on query/value) comes within 1 point of full fine-tuning",
        "Rogers et al. 2020 §5; Hu et al. 2022, Table 2",
        paper=0.3,
        rule=IntervalAbove(-1.0),
        unit="accuracy points",
        checks=("full_beats_floor", "three_seeds"),
        note="paper: RoBERTa-base on SST-2, LoRA 95.1 vs full fine-tuning 94.8 (GLUE average 87.2 vs 86.4). "
             + NONINF + " (full fine-tuning above the majority label, over seeds); " + ITEMS + "; " + THREE,
    ),
    ClaimSpec(
        "training.top_layers_change_most",
        "Fine-tuning changes the top blocks' weights more than the bottom ones'",
        "Rogers et al. 2020 §5; Kovaleva et al. 2019",
        paper="top layers change most",
        rule=IntervalAbove(0.0),
        unit="relative change, top third - bottom third",
        checks=("three_seeds",),
        note="paired by seed (weights: no test items); " + THREE,
    ),
    ClaimSpec(
        "training.top_layers_change_most_cka",
        "Fine-tuning changes the top blocks' representations more",
        "Rogers et al. 2020 §5; Kovaleva et al. 2019",
        paper="top layers change most",
        rule=IntervalAbove(0.0),
        unit="1 - CKA, top third - bottom third",
        checks=("three_seeds",),
        note="paired by seed, on every token of the test sentences (not resampled); " + THREE,
    ),
    ClaimSpec(
        "training.restore_lower_half",
        "Restoring the bottom half of the blocks to pre-trained values costs < 1 point",
        "Rogers et al. 2020 §4.3, §5; Hao et al. 2019",
        paper="does not dramatically hurt",
        rule=IntervalAbove(-1.0),
        unit="accuracy points",
        checks=("full_beats_floor", "three_seeds"),
        note=NONINF + " (the fine-tuned model above the majority label, over seeds); " + ITEMS + "; " + THREE,
    ),
    ClaimSpec(
        "training.seed_spread",
        "Fine-tuning outcomes vary across random seeds beyond what test-item sampling explains",
        "Rogers et al. 2020 §5; Dodge et al. 2020",
        paper="several points",
        rule=BeatsBaseline("test-item noise", 0.0),
        unit="points, seed sd of test accuracy beyond test-item noise",
        checks=("three_seeds",),
        null=(0.0, 0.0, 1.0),  # seeds that differ by test noise alone: an sd of 0 whose interval reaches 0
        note="a range of test accuracy over seeds is partly test noise (one of 200 sentences is 0.5 points): the "
             "seed standard deviation of the expected accuracy is estimated from the seeds-by-items table (seed mean "
             "square minus the seed-by-item mean square, what test-item noise alone gives) with the exact F interval "
             "of a variance component; reproduced when its low end is above 0 (one-sided 2.5% F test). An sd cannot "
             "be negative, so the rule gives reproduced or inconclusive",
    ),
    ClaimSpec(
        "training.early_ranking",
        "The dev ranking of seeds after 25% of fine-tuning predicts the final dev ranking",
        "Rogers et al. 2020 §5; Dodge et al. 2020 §5",
        paper="early performance predicts final",
        rule=BeatsBaseline("shuffled seeds (rho 0)", 0.0),
        unit="Spearman rho",
        checks=("three_seeds",),
        note="Spearman's rho over seeds of dev accuracy at 25% of training and at the end, with the Fisher-z interval "
             "of Bonett & Wright (2000); the baseline is what a random pairing of early and final scores gives (rho "
             "0). The dev items are shared by every seed and not resampled; constant scores make rho undefined "
             "(inconclusive)",
    ),
    ClaimSpec(
        "training.mask_only_small_cost",
        "[MASK]-only corruption costs less than 1 point against 80/10/10 (POS probe)",
        "Rogers et al. 2020 §5; Devlin et al. 2019, Table 8",
        paper=-0.9,
        rule=IntervalAbove(-1.0),
        unit="accuracy points",
        checks=("probe_beats_word_identity", "three_seeds"),
        note="paper: NER, feature-based (94.9 -> 94.0). The probe's layer is chosen on validation sentences and scored "
             "on test sentences. " + NONINF + ": the 80/10/10 model's probe must beat the per-word majority tag on "
             "the same test words (what word identity alone gives, and all a random-init twin's probe can reach); "
             + ITEMS + " (test sentences resampled whole); " + THREE,
    ),
    ClaimSpec(
        "training.stacking_matches",
        "Progressive stacking reaches the held-out MLM accuracy of training from scratch (within 1 point) with 75% of the compute",
        "Rogers et al. 2020 §5; Gong et al. 2019",
        paper="similar quality, less training time",
        rule=IntervalAbove(-1.0),
        unit="accuracy points",
        checks=("reference_beats_unigram", "three_seeds"),
        note=NONINF + " (the model trained at full depth beats the unigram baseline, always the most frequent token, "
             "on the same masked words, over seeds); " + ITEMS + " (held-out sentences resampled whole); " + THREE,
    ),
    ClaimSpec(
        "training.minilm_scalar_mix_beats_last",
        "MiniLM on SST-2: a scalar mix of frozen layers beats the last layer",
        "Rogers et al. 2020 §5; Peters et al. 2018",
        paper="mix > last",
        rule=IntervalAbove(0.0),
        unit="accuracy points",
        checks=("three_seeds",),
        note="test = all 872 sentences of GLUE's SST-2 dev file (before: its first 400 in file order); heads and mix "
             "weights are fitted on SST-2 training phrases only, nothing is chosen on the test sentences; " + ITEMS
             + "; " + THREE,
    ),    ClaimSpec(
        "training.pretraining_beats_random_init",
        "Pre-training pays: full fine-tuning from the pre-trained weights beats the same fine-tuning from a random initialisation of the same architecture (same data, seeds and steps)",
        "Rogers et al. 2020 §5; Hao et al. 2019; Kovaleva et al. 2019",
        paper="pre-trained weights fine-tune to better generalisation than random initialisation",
        rule=IntervalAbove(0.0),
        unit="accuracy points",
        checks=("full_beats_floor", "three_seeds"),
        note="the pre-trained runs are the strategy table's full fine-tunings (seeds paired); the random-init runs "
             "fine-tune the random-init twin with the same configuration; " + ITEMS + "; " + THREE,
    ),
    ClaimSpec(
        "training.init_seed_spread",
        "Dodge et al.'s two seeds one at a time: the weight-initialisation seed alone (the new head's weights and dropout; batch order fixed) moves fine-tuning outcomes beyond what test-item sampling explains",
        "Rogers et al. 2020 §5; Dodge et al. 2020 §4",
        paper="weight initialisation and data order each contribute comparable variance",
        rule=BeatsBaseline("test-item noise", 0.0),
        unit="points, seed sd of test accuracy beyond test-item noise",
        checks=("three_seeds",),
        null=(0.0, 0.0, 1.0),
        note="as training.seed_spread, on runs that differ only in the head's initial weights and the dropout "
             "masks (the batches come in the order of the first seed); a seed that changed nothing gives identical "
             "runs, an sd of 0, and fails",
    ),
    ClaimSpec(
        "training.order_seed_spread",
        "... and the data-order seed alone (the order of the training batches; head weights and dropout fixed) moves them too",
        "Rogers et al. 2020 §5; Dodge et al. 2020 §4",
        paper="weight initialisation and data order each contribute comparable variance",
        rule=BeatsBaseline("test-item noise", 0.0),
        unit="points, seed sd of test accuracy beyond test-item noise",
        checks=("three_seeds",),
        null=(0.0, 0.0, 1.0),
        note="as training.init_seed_spread with the roles swapped; both share the run of the first seed",
    ),
    ClaimSpec(
        "training.longer_pretraining_mlm",
        "Training longer helps (RoBERTa): the mini-BERT at the end of pre-training predicts more held-out masked words than its own checkpoint at about a third of the steps (the same masks; 95% interval resampling held-out sentences)",
        "Rogers et al. 2020 §5; Liu et al. 2019b (RoBERTa) §5, Table 4",
        paper="longer pre-training keeps improving (100K -> 300K -> 500K steps)",
        rule=IntervalAbove(0.0),
        unit="masked-word accuracy, final - checkpoint",
        note="one run read at two of its kept checkpoints, not two runs with their own schedules (the learning rate "
             "is still high at the earlier one); the earlier checkpoint is the kept one nearest a third of the steps. "
             "A checkpoint compared with itself scores 0 and fails",
    ),
    ClaimSpec(
        "training.longer_pretraining_downstream",
        "... and it fine-tunes better: full fine-tuning on the toy task from the final mini-BERT beats fine-tuning from the same earlier checkpoint (same seeds and data)",
        "Rogers et al. 2020 §5; Liu et al. 2019b (RoBERTa) §5, Table 4",
        paper="longer pre-training improves the downstream tasks",
        rule=IntervalAbove(0.0),
        unit="accuracy points",
        checks=("full_beats_floor", "three_seeds"),
        note="the final model's runs are the strategy table's full fine-tunings (seeds paired); " + ITEMS + "; " + THREE,
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
        checks=('teacher_beats_floor', 'three_seeds'),
        note="a non-inferiority claim: two models at the floor would pass it, so it is only judged when the full model beats the task's floor (majority label) over seeds, with at least 3 seeds",
    ),
    ClaimSpec(
        "size.importance_beats_random",
        "At 40% of heads removed, the importance order beats a random order",
        "Rogers et al. 2020 §6; Michel et al. 2019 Fig. 3",
        paper="importance ≫ random",
        rule=IntervalAbove(0.0),
        unit="accuracy points",
        checks=('three_seeds',),
        note='an interval over seeds needs at least 3 of them',
    ),
    ClaimSpec(
        "size.one_head_per_layer",
        "Most layers can be reduced to a single head (share of layers losing < 1 point)",
        "Rogers et al. 2020 §6; Michel et al. 2019 §3, Table 2",
        paper="most layers",
        rule=AtLeast(0.5),
        checks=('teacher_beats_floor',),
        note="a share of layers against a constant: only judged when the fine-tuned model beats the task's floor (a model that learned nothing loses nothing)",
    ),
    ClaimSpec(
        "size.head_removal_improves",
        "Disabling one head (chosen on dev) improves test accuracy",
        "Rogers et al. 2020 §6; Kovaleva et al. 2019 §6",
        paper=3.2,
        rule=IntervalAbove(0.0),
        unit="accuracy points",
        checks=('three_seeds',),
        note='the head is chosen on dev and scored on test; an interval over seeds needs at least 3 of them',
    ),
    ClaimSpec(
        "size.layers_dropped",
        "Dropping the top third of blocks before fine-tuning keeps at least 98% of accuracy",
        "Rogers et al. 2020 §6; Sajjad et al. 2020",
        paper=0.98,
        rule=IntervalAbove(0.98),
        unit="of the teacher",
        null=(1.0, 0.99, 1.01),  # a teacher at chance and its copy keep 100% of nothing
        checks=('teacher_beats_floor', 'three_seeds'),
        note='a ratio to the teacher: a teacher at the floor keeps 100% of nothing, so the teacher must beat the floor; at least 3 seeds',
    ),
    ClaimSpec(
        "size.int8_accuracy",
        "Dynamic int8 quantisation costs less than 1 accuracy point",
        "Rogers et al. 2020 §6; Zafrir et al. 2019, Table 1",
        paper=-1.0,
        rule=IntervalAbove(-1.0),
        unit="accuracy points",
        checks=('teacher_beats_floor', 'three_seeds'),
        note="a non-inferiority claim: two models at the floor would pass it, so it is only judged when the full model beats the task's floor (majority label) over seeds, with at least 3 seeds",
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
        checks=('teacher_beats_floor', 'three_seeds'),
        note="a non-inferiority claim: two models at the floor would pass it, so it is only judged when the full model beats the task's floor (majority label) over seeds, with at least 3 seeds",
    ),
    ClaimSpec(
        "size.ticket_matches_full",
        "A rewound magnitude ticket at 50% sparsity matches the full model (within 1 point)",
        "Rogers et al. 2020 §6; Chen et al. 2020",
        paper=-1.0,
        rule=IntervalAbove(-1.0),
        unit="accuracy points",
        checks=('teacher_beats_floor', 'three_seeds'),
        note="a non-inferiority claim: two models at the floor would pass it, so it is only judged when the full model beats the task's floor (majority label) over seeds, with at least 3 seeds",
    ),
    ClaimSpec(
        "size.ticket_beats_random",
        "The lottery ticket beats a random mask of the same sparsity",
        "Rogers et al. 2020 §6; Chen et al. 2020; cf. Prasanna et al. 2020",
        paper="ticket > random",
        rule=IntervalAbove(0.0),
        unit="accuracy points",
        checks=('three_seeds',),
        note='an interval over seeds needs at least 3 of them',
    ),
    ClaimSpec(
        "size.distil_retention",
        "A distilled half-depth student keeps 97% of the teacher's accuracy",
        "Rogers et al. 2020 §6; Sanh et al. 2019",
        paper=0.97,
        rule=IntervalAbove(0.97),
        unit="of the teacher",
        null=(1.0, 0.99, 1.01),  # a teacher at chance and its student keep 100% of nothing
        checks=('teacher_beats_floor', 'three_seeds'),
        note='a ratio to the teacher: the teacher must beat the floor; at least 3 seeds',
    ),
    ClaimSpec(
        "size.distil_beats_plain",
        "Distillation beats fine-tuning the same student without a teacher",
        "Rogers et al. 2020 §6; Sun et al. 2019, Table 1",
        paper="PKD > fine-tuning",
        rule=IntervalAbove(0.0),
        unit="accuracy points",
        checks=('three_seeds',),
        note='an interval over seeds needs at least 3 of them',
    ),
    ClaimSpec(
        "size.heads_alike_within_layer",
        "Attention heads of the same layer attend more alike than heads of different layers (similarity of two heads' attention, 1 - Jensen-Shannon divergence / ln 2 averaged over query tokens; mean over pairs within a layer minus mean over pairs across layers, beyond the random-init twin's difference, paired by sentence, 95% interval)",
        "Rogers et al. 2020 §6; Clark et al. 2019 §6, Fig. 6",
        paper="heads within the same layer are often close to each other (BERT-base)",
        rule=BeatsBaseline("the random-init twin's within - across difference"),
        unit="similarity, within - across layer, over the twin's",
        checks=("heads_differ",),
        note="Clark et al. place BERT-base's heads by the Jensen-Shannon divergence between their attention "
             "distributions and find heads of one layer close together: the redundancy that lets most heads go "
             "(Michel et al. 2019). Measured, as theirs, on the pre-trained encoder (the one the teachers are "
             "fine-tuned from), on the task's test sentences; the interval resamples sentences. The null model: a "
             "random-init twin's heads attend almost uniformly, so all its pairs are nearly identical and its "
             "within - across difference is a few millionths, yet with an interval so narrow that it can exclude 0 "
             "either way; hence the rule compares the model's difference with the twin's, sentence by sentence "
             "(a null run, where the model is the twin, gives exactly 0: inconclusive). A trained model whose "
             "attention stayed near uniform would still differ from the twin by such specks, so the instrument asks "
             "that heads of different layers attend differently at all: mean dissimilarity (1 - similarity) across "
             "layers >= 0.05, a twentieth of the largest possible",
    ),
    ClaimSpec(
        "size.heads_speedup",
        "Physically removing 40% of heads speeds up CPU inference (speed-up per timing round, 95% interval)",
        "Rogers et al. 2020 §6; Michel et al. 2019 §6",
        paper=1.175,
        rule=IntervalAbove(1.0),
        unit="x",
        note='speed-up per interleaved timing round (teacher time / pruned time), 95% interval over rounds: one timing run is noisy (re-executions gave 1.23, 1.18, 1.12, 1.07). It does not depend on the weights, so a null model reproduces it by design',
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
    "survey_06b_real_encoder",
    ClaimSpec(
        "size.minilm_heads_40pct",
        "MiniLM on SST-2: removing 40% of heads costs less than 1 point",
        "Rogers et al. 2020 §6; Michel et al. 2019 §4",
        paper=-1.0,
        rule=IntervalAbove(-1.0),
        unit="accuracy points",
        checks=('teacher_beats_floor', 'three_seeds'),
        note="a non-inferiority claim: two models at the floor would pass it, so it is only judged when the full model beats the task's floor (majority label) over seeds, with at least 3 seeds (SST-2 majority label)",
    ),
    ClaimSpec(
        "size.minilm_int8_accuracy",
        "MiniLM on SST-2: int8 quantisation costs less than 1 point",
        "Rogers et al. 2020 §6; Zafrir et al. 2019",
        paper=-1.0,
        rule=IntervalAbove(-1.0),
        unit="accuracy points",
        checks=('teacher_beats_floor', 'three_seeds'),
        note="a non-inferiority claim: two models at the floor would pass it, so it is only judged when the full model beats the task's floor (majority label) over seeds, with at least 3 seeds (SST-2 majority label)",
    ),
)
