"""The registered claims of survey_05_training: fine-tuning and pre-training (Rogers et al. 2020 §5).

A comparison between fine-tuned models is only judged when the reference beats its task's floor (always
the majority label, or no answer for QA; the floor's name comes from the run) and, for an interval over
seeds, with at least 3 seeds.

Each :class:`~bertology_lib.book.claims.registry.ClaimSpec` in ``CLAIMS`` is registered under this module's
name before the notebook runs, in the order the notebook records them; the notebook passes only its
measured values (see :mod:`bertology_lib.book.claims.registry`).
"""

from bertology_lib.book.claims.instruments import AboveBaseline
from bertology_lib.book.claims.registry import ClaimSpec
from bertology_lib.book.claims.rules import BeatsBaseline, IntervalAbove
from bertology_lib.book.claims.specs.shared import THREE_SEEDS, THREE, ITEMS, NONINF

FULL_BEATS_FLOOR = AboveBaseline("full_beats_floor")

CLAIMS = (
    ClaimSpec(
        "training.pretraining_beats_random_init",
        "Pre-training pays: full fine-tuning from the pre-trained weights beats the same fine-tuning from a random initialisation of the same architecture (same data, seeds and steps)",
        "Rogers et al. 2020 §5; Hao et al. 2019; Kovaleva et al. 2019",
        paper="pre-trained weights fine-tune to better generalisation than random initialisation",
        rule=IntervalAbove(0.0),
        unit="accuracy points",
        checks=(FULL_BEATS_FLOOR, THREE_SEEDS),
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
        checks=(THREE_SEEDS,),
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
        checks=(THREE_SEEDS,),
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
        checks=(FULL_BEATS_FLOOR, THREE_SEEDS),
        note="the final model's runs are the strategy table's full fine-tunings (seeds paired); "
        + ITEMS
        + "; "
        + THREE,
    ),
    ClaimSpec(
        "training.full_beats_frozen",
        "Full fine-tuning beats a linear head on frozen last-layer features",
        "Rogers et al. 2020 §5; Devlin et al. 2019 §5.3",
        paper="fine-tuning > feature-based",
        rule=IntervalAbove(0.0),
        unit="accuracy points",
        checks=(THREE_SEEDS,),
        note=ITEMS + "; " + THREE,
    ),
    ClaimSpec(
        "training.scalar_mix_beats_last",
        "A learned weighted sum of all layers beats the last layer (frozen)",
        "Rogers et al. 2020 §5; Peters et al. 2018",
        paper="mix > last",
        rule=IntervalAbove(0.0),
        unit="accuracy points",
        checks=(THREE_SEEDS,),
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
        checks=(FULL_BEATS_FLOOR, THREE_SEEDS),
        note="paper: RoBERTa-base on SST-2, LoRA 95.1 vs full fine-tuning 94.8 (GLUE average 87.2 vs 86.4). "
        + NONINF
        + " (full fine-tuning above the majority label, over seeds); "
        + ITEMS
        + "; "
        + THREE,
    ),
    ClaimSpec(
        "training.top_layers_change_most",
        "Fine-tuning changes the top blocks' weights more than the bottom ones'",
        "Rogers et al. 2020 §5; Kovaleva et al. 2019",
        paper="top layers change most",
        rule=IntervalAbove(0.0),
        unit="relative change, top third - bottom third",
        checks=(THREE_SEEDS,),
        note="paired by seed (weights: no test items); " + THREE,
    ),
    ClaimSpec(
        "training.top_layers_change_most_cka",
        "Fine-tuning changes the top blocks' representations more",
        "Rogers et al. 2020 §5; Kovaleva et al. 2019",
        paper="top layers change most",
        rule=IntervalAbove(0.0),
        unit="1 - CKA, top third - bottom third",
        checks=(THREE_SEEDS,),
        note="paired by seed, on every token of the test sentences (not resampled); " + THREE,
    ),
    ClaimSpec(
        "training.restore_lower_half",
        "Restoring the bottom half of the blocks to pre-trained values costs < 1 point",
        "Rogers et al. 2020 §4.3, §5; Hao et al. 2019",
        paper="does not dramatically hurt",
        rule=IntervalAbove(-1.0),
        unit="accuracy points",
        checks=(FULL_BEATS_FLOOR, THREE_SEEDS),
        note=NONINF + " (the fine-tuned model above the majority label, over seeds); " + ITEMS + "; " + THREE,
    ),
    ClaimSpec(
        "training.seed_spread",
        "Fine-tuning outcomes vary across random seeds beyond what test-item sampling explains",
        "Rogers et al. 2020 §5; Dodge et al. 2020",
        paper="several points",
        rule=BeatsBaseline("test-item noise", 0.0),
        unit="points, seed sd of test accuracy beyond test-item noise",
        checks=(THREE_SEEDS,),
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
        checks=(THREE_SEEDS,),
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
        checks=(AboveBaseline("probe_beats_word_identity", "the per-word majority tag"), THREE_SEEDS),
        note="paper: NER, feature-based (94.9 -> 94.0). The probe's layer is chosen on validation sentences and scored "
        "on test sentences. " + NONINF + ": the 80/10/10 model's probe must beat the per-word majority tag on "
        "the same test words (what word identity alone gives, and all a random-init twin's probe can reach); "
        + ITEMS
        + " (test sentences resampled whole); "
        + THREE,
    ),
    ClaimSpec(
        "training.stacking_matches",
        "Progressive stacking reaches the held-out MLM accuracy of training from scratch (within 1 point) with 75% of the compute",
        "Rogers et al. 2020 §5; Gong et al. 2019",
        paper="similar quality, less training time",
        rule=IntervalAbove(-1.0),
        unit="accuracy points",
        checks=(AboveBaseline("reference_beats_unigram", "the unigram baseline"), THREE_SEEDS),
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
        checks=(THREE_SEEDS,),
        note="test = all 872 sentences of GLUE's SST-2 dev file (before: its first 400 in file order); heads and mix "
        "weights are fitted on SST-2 training phrases only, nothing is chosen on the test sentences; "
        + ITEMS
        + "; "
        + THREE,
    ),
)
