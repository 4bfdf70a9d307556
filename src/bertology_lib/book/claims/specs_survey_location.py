"""The registered claims of the survey notebooks on where things live: embeddings and attention heads (Rogers et
al. 2020 §4.1, §4.2), and two of §4.3's layer claims (where agreement is decoded best; constituents before
semantic roles). §4.3's other claims are in :mod:`bertology_lib.book.claims.specs_survey_probing`.

Each :class:`~bertology_lib.book.claims.registry.ClaimSpec` is registered before its notebook runs;
see :mod:`bertology_lib.book.claims.registry`.

Every reproduction here must fail for a model that learned nothing. Where the claim compares a model with a
baseline, the baseline is measured in the same run: the model's random-init twin (same architecture and
tokenizer, untrained), a head that attends uniformly, the majority sense, the best fixed offset. Best layers
and heads are chosen on validation sentences and scored on held-out ones, with 95% intervals that resample
sentences (or word pairs and word types). MiniLM (``all-MiniLM-L6-v2``) is a contrastively fine-tuned
sentence encoder trained with mean pooling, not a masked LM: where that training changes the answer
(anisotropy, context-specificity, [SEP] attention, pooling) the lab's mini-BERT carries the claim and MiniLM
is a second data point with its own ``*_minilm`` row.
"""

from bertology_lib.book.claims.registry import ClaimSpec, register
from bertology_lib.book.claims.rules import BeatsBaseline, Equivalent, IntervalAbove, IntervalWithin

_ETHAYARAJH_TWIN = ("ours: model minus its random-init twin on the same words (the same word pairs), with a 95% "
                    "interval resampling word pairs (and word types for self-similarity). A random network is "
                    "itself anisotropic (every vector contains the same segment embedding), so the paper's "
                    "isotropic 0 is not a baseline a null model fails; the twin is.")
_MEV_NOTE = ("ours: anisotropy-corrected MEV (minus the MEV of as many random rows of the layer), mean over the "
             "contextual layers, 95% interval resampling word types. 'Little' is the paper's < 5%: reproduced when "
             "the interval lies within ±0.05. A model that keeps a word's identity in every layer (the random-init "
             "twins: 0.27 mini-BERT, 0.30 MiniLM at quick) is far outside it; a model whose vectors carry no word "
             "identity would pass, so the instrument check asks the measure to see the static embedding of layer 0 "
             "(its corrected MEV's interval above the margin).")
_SEP_NOTE = ("ours: the layer with the largest mean attention to [SEP] on the validation sentences, its mean attention "
             "to [SEP] on held-out sentences with a 95% interval resampling sentences. 'Most' is the paper's 'over "
             "half' (Clark et al.: more than 50% of BERT-base's attention in layers 6-10). A head attending uniformly "
             "gives [SEP] 1/T (0.07-0.08 on these sentences) and the random-init twin does the same; the instrument "
             "check asks that the stronger of the two stays below half, so that the threshold separates a model that "
             "singles out [SEP] from one that does not.")

register(
    "survey_04_1_embeddings",
    ClaimSpec(
        "survey4.1.anisotropy",
        "Contextual word vectors are more anisotropic than the same network untrained: in every contextual layer two random words (different sentences) have a higher mean cosine than in the random-init twin (smallest gap over layers; lab BERT, toy sentences)",
        "Rogers et al. 2020 §4.1; Ethayarajh 2019 §4.1, Fig. 1",
        paper="well above 0 in every layer (isotropic: 0)",
        rule=BeatsBaseline("random-init twin", 0.0),
        unit="mean cosine over twin",
        note=_ETHAYARAJH_TWIN,
    ),
    ClaimSpec(
        "survey4.1.anisotropy_minilm",
        "The same for MiniLM, a contrastively trained sentence encoder (UD English EWT; a second data point beside the lab BERT)",
        "Rogers et al. 2020 §4.1; Ethayarajh 2019 §4.1, Fig. 1",
        paper="well above 0 in every layer (isotropic: 0)",
        rule=BeatsBaseline("random-init twin", 0.0),
        unit="mean cosine over twin",
        note=_ETHAYARAJH_TWIN + " Contrastive training spreads sentence vectors apart, which can undo anisotropy.",
    ),
    ClaimSpec(
        "survey4.1.anisotropy_grows",
        "Anisotropy grows from the lower to the upper layers more than in the untrained network (last minus first contextual layer, minus the same for the random-init twin; lab BERT)",
        "Rogers et al. 2020 §4.1; Ethayarajh 2019 §4.1",
        paper="increases with depth",
        rule=BeatsBaseline("random-init twin", 0.0),
        unit="cosine over twin",
        note=_ETHAYARAJH_TWIN + " A deep random network's vectors also grow alike with depth.",
    ),
    ClaimSpec(
        "survey4.1.anisotropy_grows_minilm",
        "The same for MiniLM (UD English EWT; a second data point beside the lab BERT)",
        "Rogers et al. 2020 §4.1; Ethayarajh 2019 §4.1",
        paper="increases with depth",
        rule=BeatsBaseline("random-init twin", 0.0),
        unit="cosine over twin",
        note=_ETHAYARAJH_TWIN,
    ),
    ClaimSpec(
        "survey4.1.context_specific",
        "Upper layers are more context-specific: anisotropy-corrected self-similarity falls from the first contextual layer to the last, more than in the random-init twin (lab BERT, toy sentences)",
        "Rogers et al. 2020 §4.1; Ethayarajh 2019 §4.2, Fig. 2",
        paper="self-similarity lower in upper layers",
        rule=BeatsBaseline("random-init twin", 0.0),
        unit="drop in corrected self-similarity over twin",
        note=_ETHAYARAJH_TWIN,
    ),
    ClaimSpec(
        "survey4.1.context_specific_minilm",
        "The same for MiniLM (UD English EWT; a second data point beside the lab BERT)",
        "Rogers et al. 2020 §4.1; Ethayarajh 2019 §4.2, Fig. 2",
        paper="self-similarity lower in upper layers",
        rule=BeatsBaseline("random-init twin", 0.0),
        unit="drop in corrected self-similarity over twin",
        note=_ETHAYARAJH_TWIN,
    ),
    ClaimSpec(
        "survey4.1.static_mev",
        "A static embedding explains little of a word's contextual variance: corrected MEV, mean over contextual layers (lab BERT, toy sentences)",
        "Rogers et al. 2020 §4.1; Ethayarajh 2019 §4.4, Fig. 4",
        paper="< 5% of the variance",
        rule=Equivalent(0.05),
        unit="share of variance",
        checks=("mev_sees_layer0",),
        note=_MEV_NOTE,
        null=(0.27, 0.26, 0.28),
    ),
    ClaimSpec(
        "survey4.1.static_mev_minilm",
        "The same for MiniLM (UD English EWT; a second data point beside the lab BERT)",
        "Rogers et al. 2020 §4.1; Ethayarajh 2019 §4.4, Fig. 4",
        paper="< 5% of the variance",
        rule=Equivalent(0.05),
        unit="share of variance",
        checks=("mev_sees_layer0",),
        note=_MEV_NOTE,
        null=(0.30, 0.29, 0.31),
    ),
    ClaimSpec(
        "survey4.1.sense_clusters",
        "A word's contextual vectors form clusters by sense: nearest-centroid sense accuracy beats the stronger of the random-init twin and the majority sense (MiniLM, UD EWT, words with two or more parts of speech; layer chosen on validation sentences, scored on held-out ones)",
        "Rogers et al. 2020 §4.1; Wiedemann et al. 2019",
        paper="distinct sense clusters",
        rule=BeatsBaseline("the stronger of the random-init twin and the majority sense", 0.0),
        unit="acc. over best baseline",
        checks=("enough_test_occurrences",),
        note="ours: held-out accuracy minus the baseline's, pooled over the test occurrences of the five most balanced "
        "ambiguous words, 95% interval resampling sentences; centroids from the first 60% of the sentences, each "
        "word's layer (and the twin's) chosen on the next 15%. The twin matters: a random network mixes in the "
        "neighbours, which already predict a part of speech. Parts of speech are a coarse, gold stand-in for "
        "Wiedemann et al.'s word senses.",
    ),
    ClaimSpec(
        "survey4.1.mean_pooling",
        "Without fine-tuning, the mean of the token vectors is a better sentence vector than [CLS] (lab BERT, toy task: is the main clause negated; linear probe, each layer chosen on validation sentences, paired on held-out ones)",
        "Rogers et al. 2020 §4.1; Reimers & Gurevych 2019 §4, Table 1",
        paper="mean pooling > [CLS]",
        rule=BeatsBaseline("[CLS]", 0.0),
        unit="accuracy over [CLS]",
        checks=("encoder_beats_twin",),
        note="ours: mean-pooled minus [CLS] probe accuracy on the same held-out sentences, 95% interval resampling "
        "them. Reimers & Gurevych's Table 1 compares the vectors without training anything on them (STS cosine "
        "similarity); a trained probe is a milder test. A random network's mean vector is a bag of word embeddings "
        "and beats its [CLS] too, so the instrument check asks that the model's mean-pooled accuracy beat the "
        "random-init twin's better pooling (interval above 0): else the task does not need a trained encoder.",
    ),
    ClaimSpec(
        "survey4.1.mean_pooling_minilm",
        "The same for MiniLM, which was trained with mean pooling, so that the advantage is built in (SST-2: probes trained on 1,200 training phrases, layers chosen on dev sentences, scored on other dev sentences)",
        "Rogers et al. 2020 §4.1; Reimers & Gurevych 2019 §4, Table 1",
        paper="mean pooling > [CLS]",
        rule=BeatsBaseline("[CLS]", 0.0),
        unit="accuracy over [CLS]",
        checks=("encoder_beats_twin",),
        note="as survey4.1.mean_pooling. MiniLM's contrastive training used the mean of its token vectors as the "
        "sentence vector (a Sentence-BERT recipe), so this row says how its training came out, not what BERT does.",
    ),
)

register(
    "survey_04_2_attention_heads",
    ClaimSpec(
        "survey4.2.layer_pattern",
        "Attention goes to [CLS] in earlier layers, to [SEP] in middle layers and to punctuation in later ones (each target's attention-weighted centre layer as a share of the depth; the smaller of the two gaps, 95% interval resampling held-out sentences; lab BERT, toy sentences)",
        "Rogers et al. 2020 §4.2; Clark et al. 2019 §3, Fig. 2",
        paper="[CLS] early, [SEP] middle, punctuation late",
        rule=IntervalAbove(0.05),
        unit="share of depth",
        checks=("twin_shows_no_order",),
        note="the margin: uniform attention puts every centre in the middle and scores 0 give or take a hair, so the "
        "gap must exceed 0.05 of the depth (in BERT-base the centres lie several of its 12 layers apart); instrument: "
        "the random-init twin's ordering interval must not lie above that margin, else the order comes from the "
        "architecture and the data, not from training",
    ),
    ClaimSpec(
        "survey4.2.layer_pattern_minilm",
        "Attention goes to [CLS] in earlier layers, to [SEP] in middle layers and to punctuation in later ones (as survey4.2.layer_pattern; MiniLM, a contrastively trained sentence encoder, on UD English EWT)",
        "Rogers et al. 2020 §4.2; Clark et al. 2019 §3, Fig. 2",
        paper="[CLS] early, [SEP] middle, punctuation late",
        rule=IntervalAbove(0.05),
        unit="share of depth",
        checks=("twin_shows_no_order",),
        note="as survey4.2.layer_pattern; MiniLM is not a masked LM, so it is a second data point, not BERT",
    ),
    ClaimSpec(
        "survey4.2.sep_attention",
        "In some middle-to-upper layers most attention goes to [SEP] (the layer chosen on validation sentences, its mean attention to [SEP] on held-out ones; lab BERT, toy sentences)",
        "Rogers et al. 2020 §4.2; Clark et al. 2019 §3, Fig. 2",
        paper="> 0.5 in BERT-base layers 6-10",
        rule=IntervalAbove(0.5),
        unit="mean attention to [SEP]",
        checks=("null_below_half",),
        note=_SEP_NOTE,
        null=(0.078, 0.074, 0.082),
    ),
    ClaimSpec(
        "survey4.2.sep_attention_minilm",
        "The same for MiniLM, a contrastively trained sentence encoder (UD English EWT; a second data point beside the lab BERT)",
        "Rogers et al. 2020 §4.2; Clark et al. 2019 §3, Fig. 2",
        paper="> 0.5 in BERT-base layers 6-10",
        rule=IntervalAbove(0.5),
        unit="mean attention to [SEP]",
        checks=("null_below_half",),
        note=_SEP_NOTE,
        null=(0.067, 0.063, 0.072),
    ),
    ClaimSpec(
        "survey4.2.punct_attention",
        "Some layer attends to punctuation more than chance and more than an untrained network (the layer chosen on validation sentences, its mean attention to punctuation on held-out ones, minus the stronger of the random-init twin's chosen layer and a uniform head; lab BERT, toy sentences)",
        "Rogers et al. 2020 §4.2; Clark et al. 2019 §3, Fig. 2",
        paper="heavy attention to periods and commas in the last layers (BERT-base)",
        rule=IntervalAbove(0.0),
        unit="mean attention to punctuation beyond the stronger null",
        note="the interval is the model's (resampling held-out sentences), shifted by the null's point value; the twin "
        "and the uniform head are chosen and scored the same way, so a model that does not single punctuation out "
        "sits at or below them and fails. Clark et al. report no single threshold for punctuation, so the claim asks "
        "for more than the null rather than for 'most'.",
    ),
    ClaimSpec(
        "survey4.2.punct_attention_minilm",
        "The same for MiniLM, a contrastively trained sentence encoder (UD English EWT; a second data point beside the lab BERT)",
        "Rogers et al. 2020 §4.2; Clark et al. 2019 §3, Fig. 2",
        paper="heavy attention to periods and commas in the last layers (BERT-base)",
        rule=IntervalAbove(0.0),
        unit="mean attention to punctuation beyond the stronger null",
        note="as survey4.2.punct_attention",
    ),
    ClaimSpec(
        "survey4.2.sep_noop_gradient",
        "Attention to [SEP] is a no-op: in the layer that attends most to [SEP], the share of the masked-LM loss's gradient with respect to the attention weights that falls on [SEP] is smaller than the share of attention on it (attention share - gradient share; 95% interval resampling held-out sentences; lab BERT, toy sentences)",
        "Rogers et al. 2020 §4.2; Clark et al. 2019 §3, Fig. 3",
        paper="attention to [SEP] high in layers 6-10 while the gradient-based importance of that attention is low",
        rule=IntervalAbove(0.0),
        unit="share, attention - gradient",
        checks=("sep_attention_beyond_twin",),
        note="gradient share: sum over heads and queries of |dL/dα| on the [SEP] key over the same sum on every key, "
        "L the masked-LM loss with 15% of the tokens masked; Clark et al. plot the two per layer and do not define "
        "a single number, so the share difference is ours. Instrument: the layer chosen (the most [SEP]-attending) "
        "must attend to [SEP] more than the random-init twin's most [SEP]-attending layer (paired interval over "
        "sentences above 0), else there is no heavy attention to explain. The twin's gap is about 0 (both shares "
        "near 1/T) and fails the rule. MiniLM has no masked-LM head, so the loss the test needs does not exist for it.",
    ),
    ClaimSpec(
        "survey4.2.coreference_head_minilm",
        "Some head does coreference: from a pronoun it attends most to its antecedent (the head chosen on half of the items, its accuracy on the other half, minus the stronger of the nearest-mention baseline and the random-init twin's head chosen the same way; MiniLM, a contrastively trained sentence encoder, on sentences with two names of different gender and a pronoun that fits one of them)",
        "Rogers et al. 2020 §4.2; Clark et al. 2019 §4.2 (coreference), Table 2",
        paper="best head 65% of antecedents vs 27% for the nearest mention (BERT-base, CoNLL-2012)",
        rule=IntervalAbove(0.0),
        unit="held-out accuracy, best head - stronger baseline",
        note="our test is easier than CoNLL-2012: the antecedent is fixed by the pronoun's gender alone, and the two "
        "names come in minimal pairs (the same sentence with the roles swapped), so the nearest mention is right on "
        "exactly half; a head that matches a pronoun to a name of its gender passes, which is a surface cue, not "
        "the paper's general coreference. The toy corpus has no coreference (its pronouns refer to no one), so the "
        "lab BERT is not tested. A random network's best head scores about a quarter and fails.",
    ),
    ClaimSpec(
        "survey4.2.positional_heads",
        "Some heads attend mostly to the previous or the next token (the head and direction chosen on validation sentences, its mean attention there on held-out ones; MiniLM, UD EWT)",
        "Rogers et al. 2020 §4.2; Clark et al. 2019 §3.1, Fig. 1",
        paper="heads that attend heavily to the previous or next token",
        rule=IntervalAbove(0.5),
        unit="mean attention",
        checks=("null_below_half",),
        note="ours: 95% interval resampling held-out sentences; 'mostly' is read as more than half. A uniform head gives "
        "the neighbour 1/T and the random-init twin's most positional head the same (0.07 at quick); the instrument "
        "check asks the stronger of the two to stay below half.",
        null=(0.067, 0.062, 0.072),
    ),
    ClaimSpec(
        "survey4.2.heterogeneous_minority",
        "Fewer than half of the attention maps are heterogeneous: most are vertical, diagonal, vertical+diagonal or block patterns (MiniLM, UD EWT sentence pairs; share of maps of those four types)",
        "Rogers et al. 2020 §4.2; Kovaleva et al. 2019 §4.1, Fig. 2",
        paper="< 50% heterogeneous",
        rule=IntervalAbove(0.5),
        unit="share of maps with a pattern",
        checks=("twin_maps_heterogeneous",),
        note="ours: the share of maps of the four patterned types, 95% interval resampling sentence pairs. The random-init "
        "twin's near-uniform maps are heterogeneous under the same rules (share with a pattern near 0); the "
        "instrument check asks that they stay below half, so that the rules do not call a model without patterns "
        "patterned (short inputs would: uniform attention over 5 tokens is 'diagonal').",
        null=(0.0, 0.0, 0.01),
    ),
    ClaimSpec(
        "survey4.2.syntactic_heads",
        "For particular dependency relations a single head attends to the syntactic head far more often than the stronger of a fixed-offset baseline and the random-init twin's best head (MiniLM, UD EWT; heads chosen on validation sentences, scored on held-out ones; mean over relations)",
        "Rogers et al. 2020 §4.2; Clark et al. 2019 §4.1, Table 1",
        paper="e.g. det 94% vs 52%, dobj 87% vs 40%",
        rule=BeatsBaseline("the stronger of the best fixed offset and the twin's best head", 0.1),
        unit="acc. over best baseline",
        checks=("relations_scored",),
        note="ours: per relation, the best head's held-out accuracy minus the baseline's (of the two, the one better on "
        "the validation sentences), mean over relations, 95% interval resampling held-out sentences. 'Far more' "
        "is read as 10 points on average over relations. The twin's best head is chosen among as many candidates "
        "as the model's, so selection alone cannot make the difference. Clark et al. chose and scored on the same "
        "data.",
    ),
    ClaimSpec(
        "survey4.2.syntactic_heads_toy",
        "The same in the controlled lab: the mini-BERT's best head per relation beats the stronger of the fixed-offset baseline and its random-init twin's best head (toy trees, held-out, mean over relations)",
        "Rogers et al. 2020 §4.2; Clark et al. 2019 §4.1, Table 1",
        paper="e.g. det 94% vs 52%, dobj 87% vs 40%",
        rule=BeatsBaseline("the stronger of the best fixed offset and the twin's best head", 0.1),
        unit="acc. over best baseline",
        checks=("relations_scored",),
        note="as survey4.2.syntactic_heads. On templated toy sentences a random network's heads already act as fixed "
        "offsets of their own, which is why the twin is a baseline.",
    ),
    ClaimSpec(
        "survey4.2.no_single_syntax_head",
        "No single head holds the whole tree: reading each arc with its relation's best head beats the single best head over all relations by more than 5 points, in a model whose heads do track syntax (MiniLM, UD EWT, held-out arcs)",
        "Rogers et al. 2020 §4.2; Clark et al. 2019 §4.1",
        paper="no head does well overall",
        rule=BeatsBaseline("the single best head over all arcs", 0.05),
        unit="acc. over single head",
        checks=("heads_track_syntax",),
        note="ours: paired by held-out arc, 95% interval resampling sentences; heads chosen on validation sentences. A "
        "random network also has no head for the whole tree, and on templated sentences its per-relation heads beat "
        "its single best head too (toy twin: +0.09); so the instrument check asks that the model's heads track "
        "syntax at all (survey4.2.syntactic_heads: per-relation heads above the stronger baseline, interval above "
        "0). Replaces 'the single best head's accuracy <= 0.5', which a random network passes.",
    ),
    ClaimSpec(
        "survey4.2.norms_cls_sep",
        "Weighted by the norm of the transformed vectors, most of the attention to [CLS] and [SEP] disappears (share lost, all layers pooled; MiniLM, UD EWT)",
        "Rogers et al. 2020 §4.2; Kobayashi et al. 2020 §4, Fig. 2",
        paper="[SEP]/[CLS] focus largely vanishes",
        rule=IntervalAbove(0.5),
        unit="share of [CLS]/[SEP] focus lost",
        checks=("twin_keeps_focus",),
        note="ours: 1 - (share by norm / share by weight), pooled over layers and heads, 95% interval resampling held-out "
        "sentences; 'most' is more than half. In the random-init twin all value vectors have similar norms and almost "
        "nothing is lost (0.002 at quick); the instrument check asks that the twin lose less than half.",
        null=(0.002, 0.0, 0.004),
    ),
)

register(
    "survey_04_3_layers",
    ClaimSpec(
        "survey4.3.agreement_upper_middle",
        "Subject-verb agreement is best decoded in the upper-middle layers: the layer at which a probe best recovers the number a finite verb agrees with (chosen on validation sentences), as a relative depth (layer / last layer), lies in the upper-middle range (toy, mini-BERT; 95% interval choosing the layer again on resampled validation sentences)",
        "Rogers et al. 2020 §4.3; Goldberg 2019; Jawahar et al. 2019",
        paper="upper-middle layers",
        rule=IntervalWithin(0.5, 0.9),
        unit="relative depth",
        checks=("agreement_beats_baselines",),
        note="'upper-middle' is read as from the middle of the network up to, not including, its top: relative depth "
        "0.5 to 0.9 (at 6 layers the range holds layers 3-5, at 12 layers 6-10; the embedding layer is 0 and the "
        "last layer 1, both outside). A probe that finds nothing "
        "chooses a layer by chance, inside the range too: the instrument asks that the probe at the chosen layer "
        "beat the stronger (on validation) of the random-init twin and the per-word majority on held-out test "
        "sentences (interval above 0), i.e. that it reads agreement from context, not from the verb's form alone.",
    ),
    ClaimSpec(
        "survey4.3.chunks_decodable",
        "BERT's states encode constituents, as Tenney et al.'s edge probes find: a linear probe reads each word's chunk tag (held-out sentences, the layer chosen on validation sentences) beyond the stronger of the random-init twin and each word's most frequent training tag (toy, mini-BERT; 95% interval resampling test sentences)",
        "Rogers et al. 2020 §3.1, §4.3; Tenney et al. 2019b (edge probing), Table 2",
        paper="constituents encoded well above lexical baselines (BERT-large)",
        rule=IntervalAbove(0.0),
        unit="accuracy over the stronger baseline",
        note="word-level stand-in for the span-labelling constituent probe: the BIO chunk tag of every word (the same "
        "probes as survey4.3.constituents_before_roles). The per-word majority is the lexical baseline Tenney et al. "
        "compare with (their non-contextual layer 0); a probe that only recognises words cannot beat it on words whose "
        "tag depends on context.",
    ),
    ClaimSpec(
        "survey4.3.constituents_before_roles",
        "Syntax before semantics, as in Tenney et al.'s edge probes: constituents (each word's chunk tag) are resolved at a lower expected layer than semantic roles (toy, mini-BERT; held-out sentences, 95% interval)",
        "Rogers et al. 2020 §4.3; Tenney et al. 2019 §3, Fig. 1",
        paper="constituents at a lower expected layer than semantic roles (BERT-large)",
        rule=IntervalAbove(0.0),
        unit="layers, roles - constituents",
        checks=("chunk_beats_twin", "role_beats_twin"),
        note="Tenney et al.'s edge probes label spans; ours are word-level stand-ins on the same sentences: each "
        "word's BIO chunk tag for constituents, each word's agent/patient role for semantic roles. Expected layers "
        "from the probes' test accuracy per layer (as survey4.3.pipeline_order), the interval resampling test "
        "sentences; judged only when both probes beat the random-init twin (a network that learned nothing has no "
        "gains to place, and its expected layers differ by noise).",
    ),
    ClaimSpec(
        "survey4.3.middle_layers_transfer",
        "The middle layers serve many tasks best (Liu et al.): averaged over the probing tasks (POS, chunks, dependency relations, tree depth, semantic roles), an inner layer chosen on validation sentences beats the better end of the network (embedding output or last layer, also chosen on validation) on held-out sentences (lab BERT, toy sentences; 95% interval resampling test sentences)",
        "Rogers et al. 2020 §4.3; Liu et al. 2019a §5 (layerwise transferability)",
        paper="middle layers are the most transferable (BERT)",
        rule=IntervalAbove(0.0),
        unit="mean share of tasks right, inner layer - better end",
        checks=("twin_middle_not_best",),
        note="Liu et al. train linear probes on 16 tasks for every layer and find BERT's middle layers best on "
        "average, its last layer specialised to pre-training. Ours averages word-level linear probes over the "
        "tasks the toy corpus labels. Instrument: the random-init twin scored the same way must not show it "
        "(its interval's lower end at most 0); else an inner layer wins by the architecture's mixing of "
        "context, not by training. A model whose best layer is an end (the last, or the embeddings) fails the rule.",
    ),
    ClaimSpec(
        "survey4.3.middle_layers_transfer_minilm",
        "The same on UD English EWT (POS, dependency relations, tree depth) for MiniLM, a contrastively trained sentence encoder (a second data point beside the lab BERT)",
        "Rogers et al. 2020 §4.3; Liu et al. 2019a §5 (layerwise transferability)",
        paper="middle layers are the most transferable (BERT)",
        rule=IntervalAbove(0.0),
        unit="mean share of tasks right, inner layer - better end",
        checks=("twin_middle_not_best",),
        note="as survey4.3.middle_layers_transfer; MiniLM's contrastive training shapes its last layer for sentence "
        "similarity, which is a different specialisation from BERT's masked-LM top layer",
    ),
)
