"""The registered claims of the survey notebooks on architecture and probing (Rogers et al. 2020 §2, §3.1, §3.4, §4.3).

Each :class:`~bertology_lib.book.claims.registry.ClaimSpec` is registered before its notebook runs;
see :mod:`bertology_lib.book.claims.registry`.
"""

from bertology_lib.book.claims.registry import ClaimSpec, register
from bertology_lib.book.claims.rules import AtLeast, AtMost, BeatsBaseline, IntervalAbove, WithinRelative


AS_SHUFFLING = ("as survey3.1.insensitive_to_shuffling: an untrained network can be as insensitive (it knows nothing "
                "the damage could take away), so the model must beat its random-init twin on the intact items")


def _insensitive(name: str, damage: str, scope: str, note: str, share: str = "share of agreement items") -> ClaimSpec:
    """Ettinger's insensitivity claims (§3.1): the cloze preference survives a damaged sentence."""
    return ClaimSpec(f"survey3.1.insensitive_to_{name}",
                     f"BERT's cloze preferences are largely unchanged when {damage} ({scope}{share} whose right/wrong "
                     "answer stays the same, 95% Wilson interval)",
                     "Rogers et al. 2020 §3.1; Ettinger 2020", paper="predictions not altered", rule=IntervalAbove(0.8),
                     unit="same preference", checks=("beats_twin", "mlm_beats_ngram"), null=(1.0, 0.98, 1.0), note=note)


register(
    "survey_02_architecture",
    ClaimSpec(
        "survey2.bert_base_params",
        "BERT-base (L=12, H=768, A=12) has about 110M parameters",
        "Devlin et al. 2019 §3; Rogers et al. 2020 §2",
        paper=110000000.0,
        rule=WithinRelative(0.05),
        unit="parameters",
        kind="setup",
        note="arithmetic on the published configuration: true by construction",
    ),
    ClaimSpec(
        "survey2.bert_large_params",
        "BERT-large (L=24, H=1024, A=16) has about 340M parameters",
        "Devlin et al. 2019 §3; Rogers et al. 2020 §2",
        paper=340000000.0,
        rule=WithinRelative(0.05),
        unit="parameters",
        kind="setup",
        note="arithmetic on the published configuration: true by construction",
    ),
)

register(
    "survey_03_1_syntax",
    ClaimSpec(
        "survey3.1.lab_bert_beats_ngram",
        "The model under test predicts held-out masked words better than a two-sided n-gram model counted on the same training corpus (accuracy gap on the same masked words, 95% interval resampling held-out sentences)",
        "this book's instrument (issue 18): a claim about what BERT knows needs a masked LM that learned more than adjacent-word statistics",
        paper="beats the n-gram reference",
        rule=IntervalAbove(0.0),
        unit="masked-word accuracy gap",
        kind="setup",
        note="the strength table beside it also gives the unigram guess, the random-init twin and word-class accuracy; "
        "the cloze claims of this notebook declare it as their instrument check mlm_beats_ngram",
    ),
    ClaimSpec(
        "survey3.1.pos_in_context",
        "POS is linearly decodable from BERT's states beyond word identity and beyond an untrained network (ambiguous words, held-out sentences)",
        "Rogers et al. 2020 §3.1; Tenney et al. 2019",
        paper="POS decodable",
        rule=BeatsBaseline("the stronger of the random-init twin and the per-word majority"),
        unit="acc. over best baseline",
        note="layer chosen on validation sentences, scored once on held-out test sentences; the baseline is the stronger (on validation) of the random-init twin and the per-word majority tag; 95% interval resampling test sentences",
    ),
    ClaimSpec(
        "survey3.1.tree_depth",
        "Syntactic tree depth is recoverable from BERT's states beyond word identity and beyond an untrained network (held-out sentences)",
        "Rogers et al. 2020 §3.1; Hewitt & Manning 2019",
        paper="trees recoverable",
        rule=BeatsBaseline("the stronger of the random-init twin and the per-word majority"),
        unit="acc. over best baseline",
        note="layer chosen on validation sentences, scored once on held-out test sentences; the baseline is the stronger (on validation) of the random-init twin and the per-word majority tag; 95% interval resampling test sentences",
    ),
    ClaimSpec(
        "survey3.1.agreement_attractors",
        "BERT prefers the verb form agreeing with the subject even with intervening attractors (accuracy on items with 1-3 attractors, 95% Wilson interval)",
        "Rogers et al. 2020 §3.1; Goldberg 2019",
        paper="> 0.8 with attractors",
        rule=IntervalAbove(0.8),
        unit="accuracy",
        checks=("no_attractor_agreement", "beats_twin", "mlm_beats_ngram"),
        null=(0.5, 0.45, 0.55),
        note="instrument: the model must get agreement right without attractors (>= 0.95), beat its random-init "
        "twin on the attractor items (paired interval above 0) and beat the two-sided n-gram reference on held-out "
        "masked words (survey3.1.lab_bert_beats_ngram); otherwise attractors cannot be what it fails on",
    ),
    ClaimSpec(
        "survey3.1.npi_licensing",
        "BERT distinguishes licensed from unlicensed negative-polarity items: it prefers the NPI more often where a licensor licenses it (share choosing the NPI, licensed minus unlicensed items, 95% interval)",
        "Rogers et al. 2020 §3.1; Warstadt et al. 2019",
        paper="sensitive to licensing",
        rule=IntervalAbove(0.0),
        unit="licensing effect",
        checks=("mlm_beats_ngram",),
        note="scored on licensed and unlicensed items only (the scope items, which the survey says BERT fails, are "
        "reported beside it); a model with a fixed preference for the NPI or its plain counterpart scores 0; "
        "instrument: the model beats the two-sided n-gram reference on held-out masked words",
    ),
    ClaimSpec(
        "survey3.1.npi_scope",
        "BERT is worse at an NPI licensor's scope than at its presence: a licensor outside the NPI's scope (in a relative clause on the subject) draws it to the NPI more often than no licensor at all (share choosing the NPI, scope minus unlicensed items, 95% interval)",
        "Rogers et al. 2020 §3.1; Warstadt et al. 2019",
        paper="worse at scope than at licensors",
        rule=BeatsBaseline("the unlicensed items"),
        unit="scope intrusion",
        checks=("detects_licensor", "mlm_beats_ngram"),
        note="the plain word is right on both the scope and the unlicensed items, so chance or a fixed taste for the NPI "
        "or the plain word scores 0 (against a constant chance line, a model that always picks the NPI would pass); "
        "instrument: the model must detect licensors (the licensing effect of survey3.1.npi_licensing above 0), else "
        "an out-of-scope licensor cannot mislead it",
    ),
    _insensitive("shuffling", "word order is shuffled", "",
                 "an untrained network's preferences do not depend on order either, so the claim is only evidence "
                 "when the model knows the items: it must beat its random-init twin on the unshuffled items"),
    _insensitive("truncation", "the sentence is truncated", "the first half of the words before the masked verb "
                 "and all words after it removed; ", AS_SHUFFLING),
    _insensitive("subject_removal", "the main clause's subject is removed", "the whole subject phrase; ",
                 AS_SHUFFLING),
    _insensitive("object_removal", "the main clause's object is removed", "the whole object phrase; agreement "
                 "items whose main clause has an object; ", "as survey3.1.insensitive_to_shuffling; items whose main "
                 "clause has no object are left out (the transform would leave them intact and count as unchanged)",
                 share="share"),
    ClaimSpec(
        "survey3.1.perturbed_masking_arcs",
        "Without any trained probe, words linked by a dependency arc influence each other more than unlinked words at the same distance (perturbed masking: normalised impact, linked minus unlinked, trained model minus its random-init twin, 95% interval resampling sentences)",
        "Rogers et al. 2020 §3.1; Wu et al. 2020",
        paper="syntactic neighbours influence each other more",
        rule=IntervalAbove(0.0),
        unit="impact gap beyond the twin",
        note="impacts are read from the last layer (as Wu et al.) and divided by each sentence's mean impact; pairs "
        "are compared within each distance 1-3, so adjacency alone scores 0; the random-init twin's gap (word identity "
        "and position) is subtracted",
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
        "survey3.1.real_pos_probe",
        "A pretrained encoder's layers encode POS beyond word identity and beyond an untrained network (UD English EWT, held-out sentences)",
        "Rogers et al. 2020 §3.1; Tenney et al. 2019",
        paper="POS decodable",
        rule=BeatsBaseline("the stronger of the random-init twin and the per-word majority"),
        unit="acc. over best baseline",
        note="layer chosen on validation sentences, scored once on held-out test sentences; the baseline is the stronger (on validation) of the random-init twin and the per-word majority tag; 95% interval resampling test sentences",
    ),
)

register(
    "survey_03_4_probing_limits",
    ClaimSpec(
        "survey3.4.mlp_less_selective",
        "An expressive (MLP) probe is less selective than a linear probe: it also fits a control task of random per-word labels (selectivity, layer mean, 95% interval over test sentences)",
        "Rogers et al. 2020 §3.4; Hewitt & Liang 2019",
        paper="linear more selective",
        rule=IntervalAbove(0.0),
        unit="selectivity, linear - MLP (layer mean)",
        note="a claim about probes, not about the model: it can hold on any representation that separates word "
        "types, a random network's included (the null-model run names it as the expected exception)",
    ),
    ClaimSpec(
        "survey3.4.mdl_trained_vs_random",
        "POS is easier to extract (shorter online codelength) from the trained model than from the same network with random weights (bits per word saved, each at its shortest layer, 95% interval over sentences)",
        "Rogers et al. 2020 §3.4; Voita & Titov 2020",
        paper="trained codelength shorter",
        rule=BeatsBaseline("random-init twin"),
        unit="bits per word, random - trained",
        note="both layers are chosen again in every resample, so the interval includes the choice of layer",
    ),
    ClaimSpec(
        "survey3.4.amnesic_pos",
        "Removing POS information from a middle layer hurts masked-word prediction more than removing as many random directions (MLM-accuracy drop, INLP minus each random control, 95% interval over the controls)",
        "Rogers et al. 2020 §3.4; Elazar et al. 2021",
        paper="LM relies on POS",
        rule=BeatsBaseline("random projections of the same rank"),
        unit="MLM acc. drop over random",
        checks=("property_removed",),
        note="instrument: INLP must actually remove POS, i.e. a probe retrained after INLP is at least 10 points below "
        "one retrained after the random projections; else the drop is not about POS",
    ),
    ClaimSpec(
        "survey3.4.real_mlp_less_selective",
        "On a real pretrained encoder and real sentences, an MLP UPOS probe is less selective than a linear one (selectivity, layer mean, 95% interval over test sentences)",
        "Rogers et al. 2020 §3.4; Hewitt & Liang 2019",
        paper="linear more selective",
        rule=IntervalAbove(0.0),
        unit="selectivity, linear - MLP (layer mean)",
        note="a claim about probes (see survey3.4.mlp_less_selective)",
    ),
)

register(
    "survey_04_3_layers",
    ClaimSpec(
        "survey4.3.pipeline_order",
        "Layers follow the classical pipeline: semantic roles are resolved at a higher expected layer than POS (toy, mini-BERT; held-out sentences, 95% interval)",
        "Rogers et al. 2020 §4.3; Tenney et al. 2019 §3, Fig. 1",
        paper="POS < parsing < roles",
        rule=IntervalAbove(0.0),
        unit="layers, roles - POS",
        checks=("upos_beats_twin", "role_beats_twin"),
        note="expected layers from the probes' test accuracy per layer, the interval resampling test sentences; "
        "only judged when the probes for both targets beat the random-init twin (else the curves say nothing "
        "about what training put where)",
    ),
    ClaimSpec(
        "survey4.3.position_fades",
        "Linear word-order information is strongest in the lowest layers and fades with depth, more than in an untrained network (position probe, layer 0 minus last layer, minus the same for the random-init twin; UD EWT, held-out sentences)",
        "Rogers et al. 2020 §4.3; Lin et al. 2019 §4",
        paper="decreases with depth",
        rule=BeatsBaseline("random-init twin"),
        unit="fade, accuracy",
        note="a random network also loses position with depth (random mixing), so the fade counts only beyond the "
        "twin's; the interval resamples test sentences",
    ),
    ClaimSpec(
        "survey4.3.structural_probe_real",
        "A linear map of a pretrained encoder's states recovers parse trees better than an untrained network and the right-branching baseline (UD EWT; layer chosen on validation sentences, UUAS on held-out ones)",
        "Rogers et al. 2020 §4.3; Hewitt & Manning 2019 §4, Table 1",
        paper="BERT-large UUAS 0.82 vs linear 0.49",
        rule=BeatsBaseline("the stronger of the random-init twin and the right-branching tree"),
        unit="UUAS over best baseline",
        note="the baseline is the stronger on validation; the interval resamples test sentences",
    ),
    ClaimSpec(
        "survey4.3.structural_probe_toy",
        "The same in the controlled lab: the mini-BERT's layer chosen on validation recovers toy parse trees better than its random-init twin and the right-branching baseline (held-out sentences)",
        "Rogers et al. 2020 §4.3; Hewitt & Manning 2019 §4",
        paper="trees recoverable",
        rule=BeatsBaseline("the stronger of the random-init twin and the right-branching tree", margin=0.05),
        unit="UUAS over best baseline",
        note="as survey4.3.structural_probe_real, with a margin: in the null-model run of 2026-12-02 one random network "
        "beat another by 0.024 UUAS [0.008, 0.040] on these toy trees (a margin of 0 let a null model pass), so the "
        "gain must exceed 0.05",
    ),
    ClaimSpec(
        "survey4.3.syntax_middle",
        "Syntax is most prominent in the middle layers: the distance probe's layer chosen on validation beats both the embedding layer and the last layer on held-out sentences (the smaller of the two UUAS gains, 95% interval)",
        "Rogers et al. 2020 §4.3; Hewitt & Manning 2019 §4, Fig. 1",
        paper="BERT-large: layer 16 of 24",
        rule=IntervalAbove(0.0),
        unit="UUAS over the end layers",
        checks=("trees_recovered",),
        null=(0.02, 0.01, 0.03),
        note="a random network's layers differ by noise, and a middle layer may win by chance: the claim is only "
        "judged when the probe recovers trees beyond both baselines (survey4.3.structural_probe_real)",
    ),
)
