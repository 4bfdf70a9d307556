"""The registered claims of survey_03b_english_bert: the Primer's claims measured on the English lab BERT.

The survey's other notebooks measure a toy-English masked LM (the mini-BERT) and MiniLM, a contrastive sentence
encoder without an MLM head. These claims are measured on a masked language model of real English (the English
lab BERT: MiniLM's encoder with a masked-LM head learned here on 2.9M words of public English, or any other
masked LM given as ``model``), on held-out Brown sentences and UD English EWT. Every rule compares with a
baseline measured in the same run (the model's random-init twin, the per-word majority tag, a two-sided
n-gram model counted on the same text), so a model that learned nothing fails it.

Each :class:`~bertology_lib.book.claims.registry.ClaimSpec` in ``CLAIMS`` is registered under this module's
name before the notebook runs, in the order the notebook records them; the notebook passes only its
measured values (see :mod:`bertology_lib.book.claims.registry`).
"""

from bertology_lib.book.claims.instruments import AboveBaseline, Exceeds, Maximum, Minimum
from bertology_lib.book.claims.registry import ClaimSpec
from bertology_lib.book.claims.rules import BeatsBaseline, Equivalent, IntervalAbove
from bertology_lib.book.claims.specs.duplication_01_reconstruction import WORST_LAYER_MOVED
from bertology_lib.book.claims.specs.survey_04_3_layers import TWIN_MIDDLE_NOT_BEST

BEATS_TWIN = AboveBaseline("beats_twin", "random-init twin")
MLM_BEATS_NGRAM = AboveBaseline("mlm_beats_ngram", "two-sided n-gram")
TWIN_SHOWS_NO_ORDER = Maximum("twin_shows_no_order", 0.05)  # the twin's low end: an untrained net shows no order
MEV_SEES_LAYER0 = Minimum("mev_sees_layer0", 0.05)  # the measure sees layer 0's static embedding
NULL_BELOW_HALF = Maximum("null_below_half", 0.5)  # the stronger of the twin's chosen head and a uniform one
RELATIONS_SCORED = Minimum("relations_scored", 5)
HEADS_TRACK_SYNTAX = AboveBaseline("heads_track_syntax", "offset or twin head")
TREES_RECOVERED = AboveBaseline("trees_recovered", "the stronger baseline")
_PROBE_NOTE = (
    "layer chosen on validation sentences, scored once on held-out test sentences; the baseline is the stronger "
    "(on validation) of the random-init twin and the per-word majority tag; 95% interval resampling test sentences"
)
_TWIN = (
    "the random-init twin (same architecture and tokenizer, untrained) is measured the same way; the rule asks for "
    "the model above it, so geometry that any network of this shape has does not count"
)

CLAIMS = (
    ClaimSpec(
        "survey3b.english_beats_ngram",
        "The English lab BERT predicts held-out masked words of English better than a two-sided n-gram model "
        "counted on its own training text (accuracy gap on the same masked words, 95% interval resampling sentences)",
        "this book's instrument: a claim about what a masked LM of English knows needs one that learned more than "
        "adjacent-word statistics",
        paper="beats the n-gram reference",
        rule=IntervalAbove(0.0),
        unit="masked-word accuracy gap",
        kind="setup",
        note="held-out sentences from the test documents of Brown, the State of the Union addresses and Moby Dick; "
        "the cloze claims of this notebook declare it as their instrument check mlm_beats_ngram",
    ),
    ClaimSpec(
        "survey3b.agreement_attractors",
        "The English lab BERT prefers the verb form agreeing with the subject even with attractors between them, "
        "on naturally occurring held-out Brown sentences (accuracy on items with 1-3 attractors, 95% Wilson interval)",
        "Rogers et al. 2020 §3.1; Goldberg 2019; Linzen et al. 2016",
        paper="> 0.8 with attractors",
        rule=IntervalAbove(0.8),
        unit="accuracy",
        checks=(Minimum("no_attractor_agreement", 0.9), BEATS_TWIN, MLM_BEATS_NGRAM),
        null=(0.5, 0.4, 0.6),
        note="items: a finite is/are, was/were or has/have whose subject is found from the Brown tags, with only "
        "prepositional phrases in between (data.english.agreement_items); attractors are the nouns in between of the "
        "other number. Instrument: agreement without attractors >= 0.9 on the same held-out documents, the model "
        "above its random-init twin on the attractor items, and above the two-sided n-gram on masked words",
    ),
    ClaimSpec(
        "survey3b.negation_insensitive",
        "The English lab BERT is insensitive to negation: in 'robins are not [MASK]' it still prefers the true "
        "category (birds) over another category of the items (trees), as in the affirmative sentence (share of "
        "negated items preferring the true category, 95% interval resampling category members)",
        "Rogers et al. 2020 §3.2; Ettinger 2020 (NEG-136)",
        paper="the true category preferred under negation too",
        rule=IntervalAbove(0.5),
        unit="share preferring the true category",
        checks=(Minimum("knows_categories", 0.75), BEATS_TWIN, MLM_BEATS_NGRAM),
        note="Ettinger's NEG-136 in plural form (no article that would give the category away): 12 categories of "
        "4 members, each member against each other category, in both conditions (data.english_cloze.negation_items). "
        "The design is balanced, so a model that ignores the subject scores 0.5 on the affirmative items; the "
        "instrument asks that the model know the categories: affirmative accuracy >= 0.75 and above its random-init "
        "twin (paired by item), else what it prefers under negation says nothing about negation",
    ),
    ClaimSpec(
        "survey3b.npi_licensing",
        "The English lab BERT distinguishes licensed from unlicensed negative-polarity items in real English "
        "sentences: it prefers the NPI (ever, any) more often when a negative subject licenses it (share choosing the "
        "NPI, licensed minus unlicensed items, paired by frame, 95% interval)",
        "Rogers et al. 2020 §3.1; Warstadt et al. 2019",
        paper="sensitive to licensing",
        rule=IntervalAbove(0.0),
        unit="licensing effect",
        checks=(MLM_BEATS_NGRAM,),
        note="as survey3.1.npi_licensing, on items written in real words (data.english_cloze.npi_items): 'no boy "
        "that the girl likes has [MASK] been to paris' against 'the boy that the girl likes ...', NPI against a plain "
        "word that fits both (already, some). The licensor stands four or more words from the slot, outside a "
        "two-sided n-gram's window; a fixed taste for the NPI or the plain word scores 0, and so does the "
        "random-init twin (its effect is recorded beside)",
    ),
    ClaimSpec(
        "survey3b.npi_scope",
        "The English lab BERT is worse at an NPI licensor's scope than at its presence: a negative word inside a "
        "relative clause on the subject ('the boy that no girl likes has [MASK] been ...'), which does not license the "
        "NPI, draws it to the NPI more often than no licensor at all (share choosing the NPI, scope minus unlicensed "
        "items, paired by frame, 95% interval)",
        "Rogers et al. 2020 §3.1; Warstadt et al. 2019",
        paper="worse at scope than at licensors",
        rule=BeatsBaseline("the unlicensed items"),
        unit="scope intrusion",
        checks=(AboveBaseline("detects_licensor", "unlicensed items"), MLM_BEATS_NGRAM),
        note="as survey3.1.npi_scope: the plain word is right in both the scope and the unlicensed items, so chance or "
        "a fixed taste scores 0; judged only when the model detects licensors (survey3b.npi_licensing above 0), else "
        "an out-of-scope licensor cannot mislead it",
    ),
    ClaimSpec(
        "survey3b.role_reversal_sensitive",
        "The English lab BERT is sensitive to role reversal: a role-typical verb is more probable with the roles as "
        "expected ('the man forgot which customer the waiter had [MASK]': served) than reversed ('... which waiter "
        "the customer had [MASK]'), the same words in both (share of item pairs, 95% interval resampling events)",
        "Rogers et al. 2020 §3.1; Ettinger 2020 (ROLE-88)",
        paper="generally distinguishes the roles, less sharply than humans",
        rule=IntervalAbove(0.5),
        unit="share of pairs",
        checks=(AboveBaseline("knows_events", "random-init twin"), MLM_BEATS_NGRAM),
        note="registered 2026-12-05 before any run; Ettinger's ROLE-88 sensitivity test (after Chow et al. 2016) in "
        "our own words (data.english_cloze.role_items: 26 events x 4 frames); pairs whose verb the tokenizer splits "
        "are left out. The subject stands two words before the mask, outside the two-sided n-gram's window, and both "
        "sentences hold the same words, so a bag of words scores 0.5 at best; judged only when the model puts the "
        "verbs in its top 20 more often than its random-init twin (knows_events), else it has no preference to reverse",
    ),
    ClaimSpec(
        "survey3b.pos_brown",
        "POS is linearly decodable from the English lab BERT's states beyond word identity and beyond an untrained "
        "network (held-out Brown sentences, the Brown tags mapped to UD's coarse tags)",
        "Rogers et al. 2020 §3.1; Tenney et al. 2019",
        paper="POS decodable",
        rule=BeatsBaseline("the stronger of the random-init twin and the per-word majority"),
        unit="acc. over best baseline",
        note=_PROBE_NOTE,
    ),
    ClaimSpec(
        "survey3b.pos_ud",
        "The same on UD English EWT (held-out sentences of another corpus and tagging)",
        "Rogers et al. 2020 §3.1; Tenney et al. 2019",
        paper="POS decodable",
        rule=BeatsBaseline("the stronger of the random-init twin and the per-word majority"),
        unit="acc. over best baseline",
        note=_PROBE_NOTE,
    ),
    ClaimSpec(
        "survey3b.middle_layers_transfer",
        "The English lab BERT's middle layers serve many tasks best (Liu et al.): averaged over linear probes for POS, "
        "dependency relation and tree depth on UD English EWT, an inner layer chosen on validation sentences beats the "
        "better end of the network (embedding output or last layer, also chosen on validation) on held-out sentences "
        "(95% interval resampling test sentences)",
        "Rogers et al. 2020 §4.3; Liu et al. 2019a §5 (layerwise transferability)",
        paper="middle layers are the most transferable (BERT)",
        rule=IntervalAbove(0.0),
        unit="mean share of tasks right, inner layer - better end",
        checks=(TWIN_MIDDLE_NOT_BEST,),
        note="as survey4.3.middle_layers_transfer_minilm, on a masked LM of English: the random-init twin scored the "
        "same way must not show it (its interval's lower end at most 0), else an inner layer wins by the "
        "architecture's mixing of context, not by training; a model whose best layer is an end fails the rule",
    ),
    ClaimSpec(
        "survey3b.layer_pattern",
        "In the English lab BERT, attention goes to [CLS] in earlier layers, to [SEP] in middle layers and to "
        "punctuation in later ones (held-out UD English EWT sentences)",
        "Rogers et al. 2020 §4.2; Clark et al. 2019 §3, Fig. 2",
        paper="[CLS] early, [SEP] middle, punctuation late",
        rule=IntervalAbove(0.05),
        unit="share of depth",
        checks=(TWIN_SHOWS_NO_ORDER,),
        note="as survey4.2.layer_pattern: ours is the smaller of the two depth gaps ([SEP] after [CLS], punctuation "
        "after [SEP]) with a 95% interval over sentences; the twin's value is recorded beside it",
    ),
    ClaimSpec(
        "survey3b.anisotropy",
        "The English lab BERT's contextual word vectors are anisotropic: two random words' vectors have a positive "
        "mean cosine in every layer, beyond its random-init twin (UD English EWT)",
        "Rogers et al. 2020 §4.1; Ethayarajh 2019 §4.1, Fig. 1",
        paper="well above 0 in every layer (isotropic: 0)",
        rule=BeatsBaseline("random-init twin", 0.0),
        unit="mean cosine over twin",
        note=_TWIN,
    ),
    ClaimSpec(
        "survey3b.anisotropy_grows",
        "The English lab BERT's anisotropy increases with depth, beyond its random-init twin (UD English EWT)",
        "Rogers et al. 2020 §4.1; Ethayarajh 2019 §4.1",
        paper="increases with depth",
        rule=BeatsBaseline("random-init twin", 0.0),
        unit="cosine over twin",
        note=_TWIN,
    ),
    ClaimSpec(
        "survey3b.context_specific",
        "The English lab BERT's upper layers are more context-specific: a word's corrected self-similarity drops "
        "in the upper layers, beyond its random-init twin (UD English EWT)",
        "Rogers et al. 2020 §4.1; Ethayarajh 2019 §4.2, Fig. 2",
        paper="self-similarity lower in upper layers",
        rule=BeatsBaseline("random-init twin", 0.0),
        unit="drop in corrected self-similarity over twin",
        note=_TWIN,
    ),
    ClaimSpec(
        "survey3b.static_mev",
        "A static embedding explains little of a word's contextual variance in the English lab BERT: corrected MEV, "
        "mean over contextual layers (UD English EWT)",
        "Rogers et al. 2020 §4.1; Ethayarajh 2019 §4.4, Fig. 4",
        paper="< 5% of the variance",
        rule=Equivalent(0.05),
        unit="share of variance",
        checks=(MEV_SEES_LAYER0,),
        note="as survey4.1.static_mev: anisotropy-corrected MEV (minus that of as many random rows of the layer), "
        "mean over contextual layers, 95% interval resampling word types; reproduced when the interval lies within "
        "±0.05; the instrument asks the measure to see layer 0's static embedding",
    ),
    ClaimSpec(
        "survey3b.positional_heads",
        "Some head of the English lab BERT attends mostly to the previous or the next token (head and direction "
        "chosen on the first three quarters of the UD EWT sentences, its mean attention on the last quarter)",
        "Rogers et al. 2020 §4.2; Clark et al. 2019 §3.1, Fig. 1",
        paper="heads that attend heavily to the previous or next token",
        rule=IntervalAbove(0.5),
        unit="mean attention",
        checks=(NULL_BELOW_HALF,),
        note="as survey4.2.positional_heads: 'mostly' read as more than half; 95% interval resampling held-out "
        "sentences; the instrument asks the stronger of a uniform head and the random-init twin's head chosen the "
        "same way to stay below half",
    ),
    ClaimSpec(
        "survey3b.syntactic_heads",
        "For particular dependency relations a single head of the English lab BERT attends to the syntactic head far "
        "more often than the stronger of a fixed-offset baseline and the random-init twin's best head (UD EWT; heads "
        "chosen on the first three quarters of the sentences, scored on the last; mean over relations)",
        "Rogers et al. 2020 §4.2; Clark et al. 2019 §4.1, Table 1",
        paper="e.g. det 94% vs 52%, dobj 87% vs 40%",
        rule=BeatsBaseline("the stronger of the best fixed offset and the twin's best head", 0.1),
        unit="acc. over best baseline",
        checks=(RELATIONS_SCORED,),
        note="as survey4.2.syntactic_heads: per relation the best head's held-out accuracy minus the baseline's (the "
        "one better on the selection sentences), mean over relations, 95% interval resampling held-out sentences; "
        "'far more' read as 10 points",
    ),
    ClaimSpec(
        "survey3b.no_single_syntax_head",
        "No single head of the English lab BERT holds the whole tree: reading each arc with its relation's best head "
        "beats the single best head over all relations by more than 5 points, in a model whose heads do track "
        "syntax (UD EWT, held-out arcs)",
        "Rogers et al. 2020 §4.2; Clark et al. 2019 §4.1",
        paper="no head does well overall",
        rule=BeatsBaseline("the single best head over all arcs", 0.05),
        unit="acc. over single head",
        checks=(HEADS_TRACK_SYNTAX,),
        note="as survey4.2.no_single_syntax_head: paired by held-out arc, 95% interval resampling sentences; the "
        "instrument asks survey3b.syntactic_heads' gain to be above 0, since a random network has no whole-tree "
        "head either",
    ),
    ClaimSpec(
        "survey3b.coreference_head",
        "Some head of the English lab BERT does coreference: from a pronoun it attends most to its antecedent (the "
        "head chosen on half of the items, its accuracy on the other half, minus the stronger of the "
        "nearest-mention baseline and the random-init twin's head chosen the same way; sentences with two names of "
        "different gender and a pronoun that fits one of them)",
        "Rogers et al. 2020 §4.2; Clark et al. 2019 §4.2 (coreference), Table 2",
        paper="best head 65% of antecedents vs 27% for the nearest mention (BERT-base, CoNLL-2012)",
        rule=IntervalAbove(0.0),
        unit="held-out accuracy, best head - stronger baseline",
        note="as survey4.2.coreference_head_minilm: easier than CoNLL-2012 (the pronoun's gender alone fixes the "
        "antecedent; the names come in minimal pairs, so the nearest mention is right on half)",
    ),
    ClaimSpec(
        "survey3b.structural_probe",
        "A linear map of the English lab BERT's states recovers parse trees better than its random-init twin and the "
        "right-branching baseline (UD EWT; the distance probe's layer chosen on validation sentences, UUAS on "
        "held-out ones)",
        "Rogers et al. 2020 §4.3; Hewitt & Manning 2019 §4, Table 1",
        paper="BERT-large UUAS 0.82 vs linear 0.49",
        rule=BeatsBaseline("the stronger of the random-init twin and the right-branching tree", 0.05),
        unit="UUAS over best baseline",
        note="as survey4.3.structural_probe_real, with the margin of survey4.3.structural_probe_toy (a random network "
        "beat another by 0.024 UUAS in a null-model run): the gain must exceed 0.05; 60/15/25 split by sentence, "
        "the baseline the stronger on validation, 95% interval resampling test sentences",
    ),
    ClaimSpec(
        "survey3b.syntax_middle",
        "Syntax is most prominent in the English lab BERT's middle layers: the distance probe's layer chosen on "
        "validation beats both the embedding layer and the last layer on held-out sentences (the smaller of the two "
        "UUAS gains, 95% interval)",
        "Rogers et al. 2020 §4.3; Hewitt & Manning 2019 §4, Fig. 1",
        paper="BERT-large: layer 16 of 24",
        rule=IntervalAbove(0.0),
        unit="UUAS over the end layers",
        checks=(TREES_RECOVERED,),
        note="as survey4.3.syntax_middle: judged when the probe recovers trees beyond both baselines "
        "(survey3b.structural_probe)",
    ),
    ClaimSpec(
        "survey3b.reconstruction_every_layer",
        "The English lab BERT's MLM head reconstructs the input from every hidden layer (worst hidden layer, held-out "
        "English sentences)",
        "Kao et al. 2020 §3, Fig. 1",
        paper="high at every layer",
        rule=BeatsBaseline("random-init twin", margin=0.25),
        unit="tokens recovered",
        checks=(Exceeds("mlm_beats_unigram", "masked-word accuracy > unigram", digits=3), WORST_LAYER_MOVED),
        note="as dup.reconstruction_every_layer: the worst hidden layer's reconstruction minus the random-init twin's "
        "at that layer, 95% interval resampling sentences; 'high' read as at least 25 points above the null model; "
        "the layer read must have moved the tokens' states from their embeddings (the residual-path control)",
    ),
)
