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
from bertology_lib.book.claims.rules import BeatsBaseline, IntervalAbove

BEATS_TWIN = AboveBaseline("beats_twin", "random-init twin")
MLM_BEATS_NGRAM = AboveBaseline("mlm_beats_ngram", "two-sided n-gram")
TWIN_SHOWS_NO_ORDER = Maximum("twin_shows_no_order", 0.05)  # the twin's low end: an untrained net shows no order
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
        "survey3b.reconstruction_every_layer",
        "The English lab BERT's MLM head reconstructs the input from every hidden layer (worst hidden layer, held-out "
        "English sentences)",
        "Kao et al. 2020 §3, Fig. 1",
        paper="high at every layer",
        rule=BeatsBaseline("random-init twin", margin=0.25),
        unit="tokens recovered",
        checks=(Exceeds("mlm_beats_unigram", "masked-word accuracy > unigram", digits=3),),
        note="as dup.reconstruction_every_layer: the worst hidden layer's reconstruction minus the random-init twin's "
        "at that layer, 95% interval resampling sentences; 'high' read as at least 25 points above the null model",
    ),
)
