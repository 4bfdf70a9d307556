"""The registered claims of the survey notebooks on embeddings and attention heads (Rogers et al. 2020 §4.1, §4.2).

Each :class:`~bertology_lib.book.claims.registry.ClaimSpec` is registered before its notebook runs;
see :mod:`bertology_lib.book.claims.registry`.
"""

from bertology_lib.book.claims.registry import ClaimSpec, register
from bertology_lib.book.claims.rules import AtLeast, AtMost

register(
    "survey_04_1_embeddings",
    ClaimSpec(
        "survey4.1.anisotropy",
        "Contextual word vectors are anisotropic: two random words have a clearly positive mean cosine in every contextual layer (minimum over layers; UD EWT)",
        "Rogers et al. 2020 §4.1; Ethayarajh 2019 §4.1, Fig. 1",
        paper="well above 0 in every layer (isotropic: 0)",
        rule=AtLeast(0.1),
        unit="mean cosine",
    ),
    ClaimSpec(
        "survey4.1.anisotropy_grows",
        "Anisotropy grows from the lower to the upper layers (last layer minus first contextual layer)",
        "Rogers et al. 2020 §4.1; Ethayarajh 2019 §4.1",
        paper="increases with depth",
        rule=AtLeast(0.05),
        unit="cosine",
    ),
    ClaimSpec(
        "survey4.1.context_specific",
        "Upper layers are more context-specific: anisotropy-corrected self-similarity falls from the first contextual layer to the last",
        "Rogers et al. 2020 §4.1; Ethayarajh 2019 §4.2, Fig. 2",
        paper="self-similarity lower in upper layers",
        rule=AtLeast(0.05),
        unit="drop in corrected self-similarity",
    ),
    ClaimSpec(
        "survey4.1.static_mev",
        "A static embedding explains little of a word's contextual variance: corrected MEV, mean over contextual layers",
        "Rogers et al. 2020 §4.1; Ethayarajh 2019 §4.4, Fig. 4",
        paper="< 5% of the variance",
        rule=AtMost(0.05),
        unit="share of variance",
    ),
    ClaimSpec(
        "survey4.1.sense_clusters",
        "A word's contextual vectors form clusters by sense (UD EWT, words with two or more parts of speech; best layer, nearest-centroid accuracy over the majority sense, mean over words)",
        "Rogers et al. 2020 §4.1; Wiedemann et al. 2019",
        paper="distinct sense clusters",
        rule=AtLeast(0.15),
        unit="acc. over majority",
    ),
    ClaimSpec(
        "survey4.1.mean_pooling",
        "Without fine-tuning, the mean of the token vectors is a better sentence vector than [CLS] (SST-2, best layer of each, linear probe)",
        "Reimers & Gurevych 2019 §4, Table 1",
        paper="mean pooling > [CLS]",
        rule=AtLeast(0.01),
        unit="accuracy difference",
    ),
)

register(
    "survey_04_2_attention_heads",
    ClaimSpec(
        "survey4.2.sep_attention",
        "In some middle-to-upper layers most attention goes to [SEP] (the layer with the highest mean attention to [SEP])",
        "Rogers et al. 2020 §4.2; Clark et al. 2019 §3, Fig. 2",
        paper="> 0.5 in BERT-base layers 6-10",
        rule=AtLeast(0.5),
        unit="mean attention to [SEP]",
    ),
    ClaimSpec(
        "survey4.2.positional_heads",
        "Some heads attend mostly to the previous or the next token (the most positional head's mean attention to it)",
        "Rogers et al. 2020 §4.2; Clark et al. 2019 §3, Fig. 1",
        paper="> 0.5 for several heads",
        rule=AtLeast(0.5),
        unit="mean attention",
    ),
    ClaimSpec(
        "survey4.2.heterogeneous_minority",
        "Fewer than half of the attention maps are heterogeneous; most are vertical, diagonal or block patterns (sentence pairs)",
        "Rogers et al. 2020 §4.2; Kovaleva et al. 2019 §4.1, Fig. 2",
        paper="< 50% heterogeneous",
        rule=AtMost(0.5),
        unit="share of maps",
    ),
    ClaimSpec(
        "survey4.2.syntactic_heads",
        "For particular dependency relations a single head attends to the syntactic head far more often than a fixed-offset baseline (UD EWT, held-out, mean over relations)",
        "Rogers et al. 2020 §4.2; Clark et al. 2019 §4.1, Table 1",
        paper="e.g. det 94% vs 52%, dobj 87% vs 40%",
        rule=AtLeast(0.1),
        unit="acc. over offset baseline",
    ),
    ClaimSpec(
        "survey4.2.syntactic_heads_toy",
        "The same in the controlled lab: the mini-BERT's best head per relation beats the fixed-offset baseline (toy trees, held-out, mean over relations)",
        "Rogers et al. 2020 §4.2; Clark et al. 2019 §4.1, Table 1",
        paper="specialist heads exist",
        rule=AtLeast(0.1),
        unit="acc. over offset baseline",
    ),
    ClaimSpec(
        "survey4.2.no_single_syntax_head",
        "No single head holds the whole tree: the best head's accuracy over all relations together stays low (UD EWT, held-out)",
        "Rogers et al. 2020 §4.2; Clark et al. 2019 §4.1",
        paper="no head does well overall",
        rule=AtMost(0.5),
        unit="accuracy",
    ),
    ClaimSpec(
        "survey4.2.norms_cls_sep",
        "Weighted by the norm of the transformed vectors, most of the attention to [CLS] and [SEP] disappears (share lost, all layers pooled)",
        "Rogers et al. 2020 §4.2; Kobayashi et al. 2020 §4, Fig. 2",
        paper="[SEP]/[CLS] focus largely vanishes",
        rule=AtLeast(0.5),
        unit="share of [CLS]/[SEP] focus lost",
    ),
)
