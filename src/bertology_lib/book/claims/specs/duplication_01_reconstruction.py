"""The registered claims of duplication_01_reconstruction: the MLM head reconstructs the input from every
layer (Kao et al. 2020 §3-4).

The instrument of every claim: the model is a working masked LM (its held-out masked-word accuracy
beats the unigram's; for the variants, every variant's does). The reconstruction claims also declare the
residual-path control, ``worst_layer_moved``: the layer read moved the tokens' states from their embeddings.

Each :class:`~bertology_lib.book.claims.registry.ClaimSpec` in ``CLAIMS`` is registered under this module's
name before the notebook runs, in the order the notebook records them; the notebook passes only its
measured values (see :mod:`bertology_lib.book.claims.registry`).
"""

from bertology_lib.book.claims.instruments import Exceeds, Minimum, NoFailures
from bertology_lib.book.claims.registry import ClaimSpec
from bertology_lib.book.claims.rules import BeatsBaseline

MLM_BEATS_UNIGRAM = Exceeds("mlm_beats_unigram", "masked-word accuracy > unigram", digits=3)
# The residual-path control (registered 2026-12-05 before any run with it): a network whose blocks pass their input
# through unchanged reconstructs it from every layer trivially, so the layer the claim reads must have carried the
# tokens' states away from their embeddings: mean 1 - cos(state, embedding state) of at least 0.1 (cos <= 0.9).
MOVED_BAR = 0.1
WORST_LAYER_MOVED = Minimum("worst_layer_moved", MOVED_BAR)

CLAIMS = (
    ClaimSpec(
        "dup.reconstruction_every_layer",
        "The mini-BERT's pre-trained MLM head reconstructs the input from every hidden layer (worst hidden layer)",
        "Kao et al. 2020 §3, Fig. 1",
        paper="high at every layer",
        rule=BeatsBaseline("random-init twin", margin=0.25),
        unit="tokens recovered",
        checks=(MLM_BEATS_UNIGRAM, WORST_LAYER_MOVED),
        note="ours: the worst hidden layer's reconstruction minus the random-init twin's at that layer, with a 95% "
        "interval from resampling sentences; 'high' is read as at least 25 points above the null model. The "
        "instruments: the model must be a working masked LM (held-out masked-word accuracy above always "
        "predicting the most frequent token), and the layer read must have moved the tokens' states away from "
        "their embeddings (mean 1 - cosine >= 0.1), the control for the residual path: blocks that pass the input "
        "through unchanged would reconstruct it from every layer without telling anything.",
    ),
    ClaimSpec(
        "dup.reconstruction_after_duplication",
        "After duplicating the mini-BERT's layers, without training, its head still reconstructs the input from every layer (worst hidden layer)",
        "Kao et al. 2020 §3-4",
        paper="high at every layer",
        rule=BeatsBaseline("random-init twin", margin=0.25),
        unit="tokens recovered",
        checks=(MLM_BEATS_UNIGRAM, WORST_LAYER_MOVED),
        note="as dup.reconstruction_every_layer, with both models duplicated by the same pattern",
    ),
    ClaimSpec(
        "dup.adjacent_layers_similar",
        "Neighbouring hidden layers share one representation space: every pair of adjacent hidden layers is more similar (linear CKA over words) than the same two layers with their words shuffled (the least similar pair, 95% interval)",
        "Kao et al. 2020 §3 (RQ2)",
        paper="adjacent layers similar",
        rule=BeatsBaseline("the same pair with its words shuffled"),
        unit="linear CKA over shuffled",
        checks=(MLM_BEATS_UNIGRAM,),
        note="ours: for each adjacent pair of hidden layers (embeddings excluded), CKA minus CKA with the words of the "
        "upper layer permuted (what unrelated representations of the same spread score), the least similar pair, "
        "with a delete-one-block jackknife interval over blocks of sentences (a bootstrap would repeat words, which "
        "inflates CKA). Unrelated layers score 0. A random network's neighbouring layers are similar too (the "
        "residual stream carries each layer into the next; its values are in the details), so the rule alone does "
        "not tell a trained model from a null one: the claim is judged only for a working masked LM, the kind of "
        "model whose head Kao et al. find reading every layer.",
    ),
    ClaimSpec(
        "dup.reconstruction_across_variants",
        "The head reconstructs the input from every hidden layer in BERTs of other shapes too: the mini-BERT and the lab BERTs of the §5.2 grid (2 to 8 blocks, 1 to 16 heads, equal block parameters; the worst variant's worst hidden layer over its random-init twin)",
        "Kao et al. 2020 §3, Fig. 1 (BERT-base and BERT-large)",
        paper="high at every layer, in each model tested",
        rule=BeatsBaseline("random-init twin", margin=0.25),
        unit="tokens recovered",
        checks=(
            NoFailures("every_variant_mlm_beats_unigram", "every variant: masked-word accuracy > unigram"),
            Minimum("every_variant_worst_layer_moved", MOVED_BAR),  # the smallest over the variants
        ),
        note="as dup.reconstruction_every_layer, for each variant (first seed of each lab shape, their cached "
        "pre-training), and the smallest gap over variants is the claim's number; the instruments ask that every "
        "variant be a working masked LM and that each variant's worst layer moved its tokens' states from their "
        "embeddings (the smallest such move over the variants >= 0.1, the residual-path control). Kao et al.'s variants are hub models (BERT-base, BERT-large); readers with "
        "the network can pass one as the notebook's model.",
    ),
)
