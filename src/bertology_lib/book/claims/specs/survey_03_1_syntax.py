"""The registered claims of survey_03_1_syntax: syntactic knowledge (Rogers et al. 2020 §3.1).

Probing claims are judged on held-out sentences against the stronger of the random-init twin and the
per-word majority; cloze claims need a lab BERT that beats its twin and the two-sided n-gram.

Each :class:`~bertology_lib.book.claims.registry.ClaimSpec` in ``CLAIMS`` is registered under this module's
name before the notebook runs, in the order the notebook records them; the notebook passes only its
measured values (see :mod:`bertology_lib.book.claims.registry`).
"""

from bertology_lib.book.claims.instruments import AboveBaseline, Minimum
from bertology_lib.book.claims.registry import ClaimSpec
from bertology_lib.book.claims.rules import BeatsBaseline, IntervalAbove

BEATS_TWIN = AboveBaseline("beats_twin", "random-init twin")
MLM_BEATS_NGRAM = AboveBaseline("mlm_beats_ngram", "two-sided n-gram")

AS_SHUFFLING = (
    "as survey3.1.insensitive_to_shuffling: an untrained network can be as insensitive (it knows nothing "
    "the damage could take away), so the model must beat its random-init twin on the intact items"
)


def _insensitive(
    name: str, damage: str, scope: str, note: str, share: str = "share of agreement items", by_construction: str = ""
) -> ClaimSpec:
    """Ettinger's insensitivity claims (§3.1): the cloze preference survives a damaged sentence."""
    return ClaimSpec(
        f"survey3.1.insensitive_to_{name}",
        f"The mini-BERT's cloze preferences are largely unchanged when {damage} ({scope}{share} whose right/wrong "
        "answer stays the same, 95% Wilson interval)",
        "Rogers et al. 2020 §3.1; Ettinger 2020",
        paper="predictions not altered",
        rule=IntervalAbove(0.8),
        unit="same preference",
        checks=(BEATS_TWIN, MLM_BEATS_NGRAM),
        null=(1.0, 0.98, 1.0),
        note=note,
        by_construction=by_construction,
    )


CLAIMS = (
    ClaimSpec(
        "survey3.1.lab_bert_beats_ngram",
        "The model under test predicts held-out masked words better than a two-sided n-gram model counted on the same training corpus (accuracy gap on the same masked words, 95% interval resampling held-out sentences)",
        "this book's instrument, not a claim of the Primer: a claim about what BERT knows needs a masked LM that learned more than adjacent-word statistics",
        paper="beats the n-gram reference",
        rule=IntervalAbove(0.0),
        unit="masked-word accuracy gap",
        kind="setup",
        note="the strength table beside it also gives the unigram guess, the random-init twin and word-class accuracy; "
        "the cloze claims of this notebook declare it as their instrument check mlm_beats_ngram",
    ),
    ClaimSpec(
        "survey3.1.pos_in_context",
        "POS is linearly decodable from the mini-BERT's states beyond word identity and beyond an untrained network (ambiguous words, held-out sentences; mean over three trainings, 95% interval over trainings and test sentences)",
        "Rogers et al. 2020 §3.1; Tenney et al. 2019",
        paper="POS decodable",
        rule=BeatsBaseline("the stronger of the random-init twin and the per-word majority"),
        unit="acc. over best baseline",
        note="layer chosen on validation sentences (per training), scored once on held-out test sentences; the baseline is the stronger (on validation) of the random-init twin and the per-word majority tag; the 95% interval covers the three trainings (Student's t over trainings) and the test sentences (bootstrap), combined (bertology_lib.experiments.survey.trainings); a model other than the mini-BERT has one training and an interval resampling test sentences",
    ),
    ClaimSpec(
        "survey3.1.tree_depth",
        "Syntactic tree depth is recoverable from the mini-BERT's states beyond word identity and beyond an untrained network (held-out sentences; mean over three trainings, 95% interval over trainings and test sentences)",
        "Rogers et al. 2020 §3.1; Hewitt & Manning 2019",
        paper="trees recoverable",
        rule=BeatsBaseline("the stronger of the random-init twin and the per-word majority"),
        unit="acc. over best baseline",
        note="layer chosen on validation sentences (per training), scored once on held-out test sentences; the baseline is the stronger (on validation) of the random-init twin and the per-word majority tag; the 95% interval covers the three trainings (Student's t over trainings) and the test sentences (bootstrap), combined (bertology_lib.experiments.survey.trainings); a model other than the mini-BERT has one training and an interval resampling test sentences",
    ),
    ClaimSpec(
        "survey3.1.agreement_attractors",
        "The mini-BERT prefers the verb form agreeing with the subject even with intervening attractors (accuracy on items with 1-3 attractors, mean over three trainings, 95% interval over trainings and items)",
        "Rogers et al. 2020 §3.1; Goldberg 2019",
        paper="> 0.8 with attractors",
        rule=IntervalAbove(0.8),
        unit="accuracy",
        checks=(Minimum("no_attractor_agreement", 0.95), BEATS_TWIN, MLM_BEATS_NGRAM),
        null=(0.5, 0.45, 0.55),
        note="instrument: the model must get agreement right without attractors (>= 0.95), beat its random-init "
        "twin on the attractor items (paired interval above 0) and beat the two-sided n-gram reference on held-out "
        "masked words (survey3.1.lab_bert_beats_ngram); otherwise attractors cannot be what it fails on. Over "
        "three trainings: the no-attractor check reads the weakest training, the twin check the mean gap over "
        "trainings and items, the n-gram check the first training",
    ),
    ClaimSpec(
        "survey3.1.main_auxiliary",
        "BERT's representations are hierarchical rather than linear: a probe tells the main clause's auxiliary from one inside a relative clause (held-out sentences, the layer chosen on validation sentences) beyond the stronger of the random-init twin, each auxiliary form's majority label, and the linear rule 'the first (or the last) auxiliary is the main one' (lab BERT, toy sentences; 95% interval resampling test sentences)",
        "Rogers et al. 2020 §3.1; Lin et al. 2019 §4 (main auxiliary)",
        paper="the main auxiliary is identified from BERT's states, beyond linear-order cues",
        rule=IntervalAbove(0.0),
        unit="accuracy over the stronger baseline",
        note="Lin et al. probe the main auxiliary in sentences whose subject carries a relative clause; the toy "
        "corpus's relative clauses (on subjects and objects) give sentences with an auxiliary in the main clause and "
        "one in an embedded clause, labelled from the gold tree. The linear rule is chosen on the training sentences. "
        "Lin et al.'s second test, agreement with the hierarchical subject across intervening nouns, is "
        "survey3.1.agreement_attractors.",
    ),
    ClaimSpec(
        "survey3.1.npi_licensing",
        "The mini-BERT distinguishes licensed from unlicensed negative-polarity items: it prefers the NPI more often where a licensor licenses it (share choosing the NPI, licensed minus unlicensed items, mean over three trainings, 95% interval over trainings and items)",
        "Rogers et al. 2020 §3.1; Warstadt et al. 2019",
        paper="sensitive to licensing",
        rule=IntervalAbove(0.0),
        unit="licensing effect",
        checks=(MLM_BEATS_NGRAM,),
        note="scored on licensed and unlicensed items only (the scope items, which the survey says BERT fails, are "
        "reported beside it); a model with a fixed preference for the NPI or its plain counterpart scores 0; "
        "instrument: the model beats the two-sided n-gram reference on held-out masked words",
        by_construction="the toy grammar puts NPIs only in licensed clauses, so a filler's neighbours in the training split can decide the licensing effect",
        beyond="survey3.1.npi_licensing_beyond_ngram",
    ),
    ClaimSpec(
        "survey3.1.npi_licensing_beyond_ngram",
        "The mini-BERT's NPI licensing effect exceeds what adjacent words give: its effect minus that of a two-sided "
        "n-gram counted on its training split, choosing between the same fillers on the same items (share choosing "
        "the NPI, licensed minus unlicensed, model minus n-gram, 95% interval)",
        "Rogers et al. 2020 §3.1; Warstadt et al. 2019",
        paper="sensitive to licensing",
        rule=IntervalAbove(0.0),
        unit="licensing effect over the n-gram",
        note="registered 2026-12-05 before any run: the toy grammar puts NPIs only in licensed clauses, so counts of "
        "a filler's neighbours in the training split can decide the licensing effect by construction "
        "(analysis.ngram_cloze: the (left, filler, right) triple, then the bigrams, then frequency; a tie counts 0.5). "
        "This row asks for an effect beyond adjacent-word statistics; an n-gram itself scores 0",
    ),
    ClaimSpec(
        "survey3.1.npi_scope",
        "The mini-BERT is worse at an NPI licensor's scope than at its presence: a licensor outside the NPI's scope (in a relative clause on the subject) draws it to the NPI more often than no licensor at all (share choosing the NPI, scope minus unlicensed items, 95% interval)",
        "Rogers et al. 2020 §3.1; Warstadt et al. 2019",
        paper="worse at scope than at licensors",
        rule=BeatsBaseline("the unlicensed items"),
        unit="scope intrusion",
        checks=(AboveBaseline("detects_licensor", "unlicensed items"), MLM_BEATS_NGRAM),
        note="the plain word is right on both the scope and the unlicensed items, so chance or a fixed taste for the NPI "
        "or the plain word scores 0 (against a constant chance line, a model that always picks the NPI would pass); "
        "instrument: the model must detect licensors (the licensing effect of survey3.1.npi_licensing above 0), else "
        "an out-of-scope licensor cannot mislead it",
    ),
    _insensitive(
        "shuffling",
        "word order is shuffled",
        "",
        "an untrained network's preferences do not depend on order either, so the claim is only evidence "
        "when the model knows the items: it must beat its random-init twin on the unshuffled items; on items with "
        "attractors the order is part of the answer's cue (which noun is the subject): see the cue-kept row below",
    ),
    _insensitive(
        "truncation",
        "the sentence is truncated",
        "the first half of the words before the masked verb and all words after it removed; ",
        AS_SHUFFLING + "; the cut often removes the subject, the answer's cue: see the cue-kept row below",
    ),
    _insensitive(
        "subject_removal",
        "the main clause's subject is removed",
        "the whole subject phrase; ",
        AS_SHUFFLING + "; on agreement items the subject is the answer's only cue, so a model that uses it must change "
        "its mind: this design cannot show Ettinger's result (see the cue-kept rows below)",
    ),
    _insensitive(
        "object_removal",
        "the main clause's object is removed",
        "the whole object phrase; agreement items whose main clause has an object; ",
        "as survey3.1.insensitive_to_shuffling; items whose main "
        "clause has no object are left out (the transform would leave them intact and count as unchanged)",
        share="share",
        by_construction="in the toy grammar the verb agrees with the subject alone, so removing the object removes "
        "no agreement cue: any model that reads the subject is insensitive to it",
    ),
    _insensitive(
        "shuffling_cue_kept",
        "word order is shuffled",
        "agreement items whose every noun has the subject's number, so the answer's cue survives as a bag of words; ",
        "registered 2026-12-05 before any run: Ettinger's test on items whose answer does not hinge on the damaged "
        "order, so it can come out either way (a model that reads the number off the nouns keeps its answer, one "
        "that needs their order may not); the whole-suite rows above remove the cue with the order. Judged as "
        "survey3.1.insensitive_to_shuffling: the model must beat its random-init twin on the intact items",
    ),
    _insensitive(
        "truncation_cue_kept",
        "the sentence is truncated",
        "the first half of the words before the masked verb and all words after it removed, on agreement items "
        "whose subject survives the cut; ",
        "registered 2026-12-05 before any run: as survey3.1.insensitive_to_shuffling_cue_kept, the answer's cue (the "
        "subject, in order) survives the damage, so the test can come out either way",
    ),
    ClaimSpec(
        "survey3.1.perturbed_masking_arcs",
        "Without any trained probe, words linked by a dependency arc influence each other more than unlinked words at the same distance (perturbed masking: normalised impact, linked minus unlinked, trained model minus its random-init twin, mean over three trainings, 95% interval over trainings and sentences)",
        "Rogers et al. 2020 §3.1; Wu et al. 2020",
        paper="syntactic neighbours influence each other more",
        rule=IntervalAbove(0.0),
        unit="impact gap beyond the twin",
        note="impacts are read from the last layer (as Wu et al.) and divided by each sentence's mean impact; pairs "
        "are compared within each distance 1-3, so adjacency alone scores 0; the random-init twin's gap (word identity "
        "and position) is subtracted",
    ),
    ClaimSpec(
        "survey3.1.real_pos_probe",
        "A pretrained encoder's layers encode POS beyond word identity and beyond an untrained network (UD English EWT, held-out sentences)",
        "Rogers et al. 2020 §3.1; Tenney et al. 2019",
        paper="POS decodable",
        rule=BeatsBaseline("the stronger of the random-init twin and the per-word majority"),
        unit="acc. over best baseline",
        note="layer chosen on validation sentences, scored once on held-out test sentences; the baseline is the stronger (on validation) of the random-init twin and the per-word majority tag; 95% interval resampling test sentences",
    ),
)
