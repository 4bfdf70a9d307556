"""The registered claims of survey_03_3_world_knowledge: world knowledge (Rogers et al. 2020 §3.3).

Each :class:`~bertology_lib.book.claims.registry.ClaimSpec` in ``CLAIMS`` is registered under this module's
name before the notebook runs, in the order the notebook records them; the notebook passes only its
measured values (see :mod:`bertology_lib.book.claims.registry`).
"""

from bertology_lib.book.claims.instruments import AboveBaseline, Minimum
from bertology_lib.book.claims.registry import ClaimSpec
from bertology_lib.book.claims.rules import BeatsBaseline, IntervalAbove

STATED_SIZES_KNOWN = AboveBaseline("stated_sizes_known", "random-init twin")
FACTS_IN_TRAINING_SPLIT = Minimum("facts_in_training_split", 0.95)

CLAIMS = (
    ClaimSpec(
        "survey3.3.fact_recall",
        "The mini-BERT recalls facts stated in its training corpus beyond what the objects' frequency gives (LAMA-style cloze, true vs false object; accuracy over the stronger of Petroni et al.'s frequency baseline and the random-init twin, paired by item, 95% interval)",
        "Rogers et al. 2020 §3.3; Petroni et al. 2019, Table 2",
        paper="T-REx P@1 32.3 (BERT-large), above the frequency baseline",
        rule=BeatsBaseline("the stronger of the frequency baseline and the random-init twin"),
        unit="accuracy over best baseline",
        checks=(FACTS_IN_TRAINING_SPLIT,),
        note="Petroni et al. compare BERT with a subject-blind frequency baseline and with knowledge bases built by "
        "relation extraction. In the toy corpus a knowledge base read off the training split by its templates holds "
        "every tested fact (shown beside the claim), so 'competitive with a KB' would ask for near-perfect recall; "
        "the rule asks the question a null model fails: does the model know whose fact it is, beyond which objects "
        "are common for the relation? Frame-decided size templates are left out. Instrument: at least 95% of the "
        "tested facts occur in the training split.",
    ),
    ClaimSpec(
        "survey3.3.competitive_with_kb",
        "The mini-BERT's fact recall is competitive with a knowledge base: on the same LAMA-style items, its accuracy comes within 0.05 of a knowledge base read off its training corpus (paired by item, 95% interval)",
        "Rogers et al. 2020 §3.3; Petroni et al. 2019 §4, Table 2",
        paper="BERT-large close to a relation-extraction knowledge base with oracle entity linking",
        rule=IntervalAbove(-0.05),
        unit="accuracy, model - KB",
        checks=(FACTS_IN_TRAINING_SPLIT,),
        note="Petroni et al.'s knowledge bases are built by relation extractors that miss facts; the toy corpus states "
        "its facts in fixed templates, so a knowledge base read off the training split by those templates holds every "
        "stated fact (a coin flip on the rest). 'Competitive' is read as within 0.05 of accuracy. A model that knows nothing "
        "scores 0.5 against the KB's 1.0 and fails.",
    ),
    ClaimSpec(
        "survey3.3.wording_matters",
        "What the mini-BERT recalls depends on the wording of the query: the same facts are recalled more often in one template of their relation than in another (each relation's best minus worst template, both chosen on the other half of its facts, paired by fact, 95% interval)",
        "Rogers et al. 2020 §3.3; Petroni et al. 2019; Jiang et al. 2020",
        paper="mined and paraphrased queries recall more facts than the manual LAMA templates (BERT-base)",
        rule=IntervalAbove(0.0),
        unit="accuracy, best - worst template",
        checks=(AboveBaseline("recalls_facts"),),
        note="the corpus states each fact in every template of its relation in turn, so the data favour no wording; "
        "Petroni et al. and Jiang et al. find that BERT recalls a fact in some phrasings and not in others. Every "
        "stated fact is asked in every template of its relation with the same false object (size comparisons are "
        "left out: their templates differ in the answer, bigger or smaller, not only in the wording). The best and "
        "worst template of the facts that are scored would turn noise into a gap, so each relation's best and worst "
        "templates are chosen on one half of its facts (by accuracy, ties by the mean margin) and read on the "
        "other half, both ways; the interval resamples facts. A model that answers every wording alike, or knows "
        "nothing, has a gap of 0 in expectation (the random-init twin's own gap, chosen the same way, is in the "
        "details). Instrument: at its best template the model must recall facts beyond the stronger of Petroni et "
        "al.'s frequency baseline and the random-init twin on the same items (paired interval above 0), else there "
        "is no recall whose wording could matter.",
    ),
    ClaimSpec(
        "survey3.3.no_size_inference",
        "The mini-BERT knows stated properties but cannot reason with them: size comparisons the corpus never states are answered worse than the stated ones",
        "Rogers et al. 2020 §3.3; Forbes et al. 2019",
        paper="knows properties, cannot compare sizes",
        rule=IntervalAbove(0.1),
        unit="accuracy gap, stated - held out (95% CI)",
        checks=(STATED_SIZES_KNOWN,),
        note="a model that knows no sizes, or answers by the sentence frame, scores stated and held-out comparisons "
        "alike, so 'cannot infer' is only evidence when the stated comparisons are known: the instrument requires "
        "the model to beat its random-init twin on them (paired interval above 0).",
    ),
    ClaimSpec(
        "survey3.3.accuracy_falls_with_steps",
        "Reasoning with stated facts gets harder with the number of inference steps: held-out size comparisons that chain two stated comparisons are answered better than those that need three or more (accuracy gap, 95% interval)",
        "Rogers et al. 2020 §3.3; Talmor et al. 2020 (oLMpics); Richardson & Sabharwal 2020",
        paper="accuracy falls as more inference steps are needed",
        rule=IntervalAbove(0.0),
        unit="accuracy gap, 2 steps - 3 or more",
        checks=(STATED_SIZES_KNOWN,),
        note="steps: the fewest comparisons the corpus states that chain the smaller thing to the bigger one. More "
        "steps also mean a larger difference in size, which makes a comparison easier for a model that places things "
        "on a size scale, so the rule can come out either way. Judged only when the stated comparisons are known "
        "(as survey3.3.no_size_inference).",
    ),
)
