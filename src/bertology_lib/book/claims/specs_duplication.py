"""The registered claims of the duplication notebooks (Kao et al. 2020).

Each :class:`~bertology_lib.book.claims.registry.ClaimSpec` is registered before its notebook runs;
see :mod:`bertology_lib.book.claims.registry`.
"""

from bertology_lib.book.claims.registry import ClaimSpec, register
from bertology_lib.book.claims.rules import BeatsBaseline, Equivalent, IntervalAbove

register(
    "duplication_01_reconstruction",
    ClaimSpec(
        "dup.reconstruction_every_layer",
        "The pre-trained MLM head reconstructs the input from every hidden layer (worst hidden layer)",
        "Kao et al. 2020 §3, Fig. 1",
        paper="high at every layer",
        rule=BeatsBaseline("random-init twin", margin=0.25),
        unit="tokens recovered",
        checks=("mlm_beats_unigram",),
        note="ours: the worst hidden layer's reconstruction minus the random-init twin's at that layer, with a 95% "
        "interval from resampling sentences; 'high' is read as at least 25 points above the null model. The "
        "instrument: the model must be a working masked LM (held-out masked-word accuracy above always "
        "predicting the most frequent token).",
    ),
    ClaimSpec(
        "dup.reconstruction_after_duplication",
        "After duplicating layers, without training, the head still reconstructs the input from every layer (worst hidden layer)",
        "Kao et al. 2020 §3-4",
        paper="high at every layer",
        rule=BeatsBaseline("random-init twin", margin=0.25),
        unit="tokens recovered",
        checks=("mlm_beats_unigram",),
        note="as dup.reconstruction_every_layer, with both models duplicated by the same pattern",
    ),
    ClaimSpec(
        "dup.reconstruction_across_variants",
        "The head reconstructs the input from every hidden layer in BERTs of other shapes too: the mini-BERT and the lab BERTs of the §5.2 grid (2 to 8 blocks, 1 to 16 heads, equal block parameters; the worst variant's worst hidden layer over its random-init twin)",
        "Kao et al. 2020 §3, Fig. 1 (BERT-base and BERT-large)",
        paper="high at every layer, in each model tested",
        rule=BeatsBaseline("random-init twin", margin=0.25),
        unit="tokens recovered",
        checks=("every_variant_mlm_beats_unigram",),
        note="as dup.reconstruction_every_layer, for each variant (first seed of each lab shape, their cached "
        "pre-training), and the smallest gap over variants is the claim's number; the instrument asks that every "
        "variant be a working masked LM. Kao et al.'s variants are hub models (BERT-base, BERT-large); readers with "
        "the network can pass one as the notebook's model.",
    ),
    ClaimSpec(
        "dup.adjacent_layers_similar",
        "Neighbouring hidden layers share one representation space: every pair of adjacent hidden layers is more similar (linear CKA over words) than the same two layers with their words shuffled (the least similar pair, 95% interval)",
        "Kao et al. 2020 §3 (RQ2)",
        paper="adjacent layers similar",
        rule=BeatsBaseline("the same pair with its words shuffled"),
        unit="linear CKA over shuffled",
        checks=("mlm_beats_unigram",),
        note="ours: for each adjacent pair of hidden layers (embeddings excluded), CKA minus CKA with the words of the "
        "upper layer permuted (what unrelated representations of the same spread score), the least similar pair, "
        "with a delete-one-block jackknife interval over blocks of sentences (a bootstrap would repeat words, which "
        "inflates CKA). Unrelated layers score 0. A random network's neighbouring layers are similar too (the "
        "residual stream carries each layer into the next; its values are in the details), so the rule alone does "
        "not tell a trained model from a null one: the claim is judged only for a working masked LM, the kind of "
        "model whose head Kao et al. find reading every layer.",
    ),
)

register(
    "duplication_02_boost",
    ClaimSpec(
        "dup.boost_qa",
        "Duplicating blocks before fine-tuning improves extractive QA with unanswerable questions (F1 gain, paired by seed, 95% CI)",
        "Kao et al. 2020 §4, Table 2 (SQuAD 2.0)",
        paper=1.5,
        rule=IntervalAbove(0.0),
        unit="F1 points",
        checks=("baseline_beats_floor", "three_seeds"),
        note="instrument: the baseline's F1 is above always answering 'no answer' (interval over seeds), and the "
        "interval over seeds has at least 3 seeds",
    ),
    ClaimSpec(
        "dup.ensemble_beyond_ensembling",
        "An ensemble of duplicated variants beats an ensemble of as many baseline seeds (toy QA F1)",
        "Kao et al. 2020 §4 (ensembles)",
        paper="ensembles of variants help",
        rule=IntervalAbove(0.0),
        unit="F1 points",
        checks=("baseline_beats_floor", "three_seeds"),
        note="instrument: the baseline's F1 is above always answering 'no answer', with at least 3 seeds",
    ),
)

register(
    "duplication_02b_nli_classification",
    ClaimSpec(
        "dup.boost_nli",
        "Duplicating blocks before fine-tuning improves NLI accuracy (paired by seed, 95% CI)",
        "Kao et al. 2020 §4 (SNLI)",
        paper=0.6,
        rule=IntervalAbove(0.0),
        unit="accuracy points",
        checks=("baseline_beats_floor", "three_seeds"),
        note="instrument: the baseline is above always predicting the majority label, with at least 3 seeds",
    ),
)

register(
    "duplication_03_real_encoder",
    ClaimSpec(
        "dup.no_gain_sst2",
        "Duplication brings no gain on SST-2 (real MiniLM encoder; 95% CI of the paired gain)",
        "Kao et al. 2020 §4",
        paper=0.0,
        rule=Equivalent(1.0),
        unit="accuracy points",
        checks=("baseline_beats_floor", "three_seeds"),
        note="a claim of no effect: reproduced only when the whole interval lies within ±1 point (a gain the size "
        "of the paper's on other tasks would show), so too few seeds or test sentences give inconclusive, "
        "not reproduced; the baseline must beat the majority label",
    ),
)
