"""The registered claims of the survey notebooks on semantics and world knowledge (Rogers et al. 2020 §3.2, §3.3).

Each :class:`~bertology_lib.book.claims.registry.ClaimSpec` is registered before its notebook runs;
see :mod:`bertology_lib.book.claims.registry`.
"""

from bertology_lib.book.claims.registry import ClaimSpec, register
from bertology_lib.book.claims.rules import BeatsBaseline, IntervalAbove

register(
    "survey_03_2_semantics",
    ClaimSpec(
        "survey3.2.selectional_gradient",
        "BERT prefers the more plausible object by semantic category (tip the waiter > tip the chef > tip the robin) beyond what the objects' frequency gives (all three contrasts of the gradient, paired by item, 95% interval)",
        "Rogers et al. 2020 §3.2; Ettinger 2020",
        paper="good > bad completions by category",
        rule=BeatsBaseline("the stronger of a verb-blind object-frequency baseline and the random-init twin"),
        unit="accuracy over best baseline",
        note="chance (0.5) is no baseline here: a verb-blind baseline that prefers the candidate seen more often as "
        "an object in the training split (a tie counts 0.5) scores well above it, because the classes verbs prefer "
        "are frequent objects in general. The baseline is the stronger of it and the random-init twin on the same "
        "items; the interval resamples items. The per-contrast gains are shown beside the claim.",
    ),
    ClaimSpec(
        "survey3.2.role_reversal_weak",
        "BERT is less sensitive to role reversal than to category: its gain over its baseline is larger on selectional contrasts than on role-reversal pairs (each suite against the stronger of a frequency baseline and the random-init twin, 95% bootstrap interval)",
        "Rogers et al. 2020 §3.2; Ettinger 2020",
        paper="less sensitive to role reversal",
        rule=IntervalAbove(0.0),
        unit="gain difference, selectional - role reversal",
        checks=("selectional_beats_baseline",),
        note="a model that knows nothing, or only word frequencies, gains nothing on either suite, and a raw accuracy "
        "gap would reward the object-frequency prior of the selectional items (role-reversal pairs use the same "
        "nouns in both orders, so any verb-blind baseline scores exactly 0.5 there). So each suite is scored as a "
        "gain over its own strongest baseline, and the instrument requires the category knowledge the contrast "
        "needs: the selectional gain must be above 0 (interval over items).",
    ),
    ClaimSpec(
        "survey3.2.numbers_hard",
        "BERT struggles with numbers: magnitude read from its number states does not carry beyond the numbers a probe was trained on (comparison probes scored on held-out numbers of the upper half of the range, trained on the whole range vs on the lower half only; 95% interval)",
        "Rogers et al. 2020 §3.2; Wallace et al. 2019, Fig. 1",
        paper="magnitude decoded within the training range; probes fail to extrapolate",
        rule=IntervalAbove(0.0),
        unit="accuracy gap, whole-range - lower-half probe",
        checks=("magnitude_beyond_word_pieces", "probe_extrapolates_on_digits"),
        note="measured on MiniLM (a contrastively fine-tuned BERT-architecture encoder with WordPiece; in a "
        "null-model run its random-init twin): the lab's numerals are nine whole words its corpus never compares, "
        "so the lab BERT cannot show numeracy. Numbers 0-999 in digits are split into train / validation / test "
        "numbers within each half; pairs never mix splits; each probe is read at its best layer for the upper half, "
        "chosen on validation pairs there (the reading most favourable to extrapolation); the interval resamples "
        "test pairs grouped by their first number. Instruments: on the same far pairs the whole-range probe must "
        "beat the random-init twin's (which reads magnitude from shared leading word pieces), else the magnitude "
        "is the tokenizer's, not the model's; and the same pipeline must extrapolate (>= 0.9) on a positive "
        "control that spells numbers out digit by digit, else the probe, not the model, fails to extrapolate.",
    ),
    ClaimSpec(
        "survey3.2.name_swap_brittle",
        "BERT is brittle to named-entity replacement: swapping names for other names changes predictions that depend only on how many names there are more often than swapping common nouns in the same places (verb after one name or two coordinated names; share of swaps that change the prediction, names minus nouns, paired by frame, 95% interval)",
        "Rogers et al. 2020 §3.2; Balasubramanian et al. 2020",
        paper="85% of coreference predictions change under name replacement",
        rule=BeatsBaseline("swaps of common nouns in the same places"),
        unit="flip rate over nouns",
        checks=("solves_one_name", "solves_two_names", "beats_twin"),
        note="toy English has no pronoun anaphora and its names carry no gender, so the paper's coreference test "
        "cannot be built; the closest decision it supports that depends on the names' features and never on which "
        "names they are is the verb's number after one name or two. The control swaps common person nouns in the "
        "same frames, so a model brittle to any word swap does not pass. Instrument: with the original names the "
        "model must get the verb right (95% Wilson interval above 0.5, for one name and for two) and beat its "
        "random-init twin, else its predictions do not follow the names' number and a flip says nothing.",
    ),
)

register(
    "survey_03_3_world_knowledge",
    ClaimSpec(
        "survey3.3.fact_recall",
        "BERT recalls facts stated in its training corpus beyond what the objects' frequency gives (LAMA-style cloze, true vs false object; accuracy over the stronger of Petroni et al.'s frequency baseline and the random-init twin, paired by item, 95% interval)",
        "Rogers et al. 2020 §3.3; Petroni et al. 2019, Table 2",
        paper="T-REx P@1 32.3 (BERT-large), above the frequency baseline",
        rule=BeatsBaseline("the stronger of the frequency baseline and the random-init twin"),
        unit="accuracy over best baseline",
        checks=("facts_in_training_split",),
        note="Petroni et al. compare BERT with a subject-blind frequency baseline and with knowledge bases built by "
        "relation extraction. In the toy corpus a knowledge base read off the training split by its templates holds "
        "every tested fact (shown beside the claim), so 'competitive with a KB' would ask for near-perfect recall; "
        "the rule asks the question a null model fails: does the model know whose fact it is, beyond which objects "
        "are common for the relation? Frame-decided size templates are left out. Instrument: at least 95% of the "
        "tested facts occur in the training split.",
    ),
    ClaimSpec(
        "survey3.3.no_size_inference",
        "BERT knows stated properties but cannot reason with them: size comparisons the corpus never states are answered worse than the stated ones",
        "Rogers et al. 2020 §3.3; Forbes et al. 2019",
        paper="knows properties, cannot compare sizes",
        rule=IntervalAbove(0.1),
        unit="accuracy gap, stated - held out (95% CI)",
        checks=("stated_sizes_known",),
        note="a model that knows no sizes, or answers by the sentence frame, scores stated and held-out comparisons "
        "alike, so 'cannot infer' is only evidence when the stated comparisons are known: the instrument requires "
        "the model to beat its random-init twin on them (paired interval above 0).",
    ),
    ClaimSpec(
        "survey3.3.wording_matters",
        "What BERT recalls depends on the wording of the query: the same facts are recalled more often in one template of their relation than in another (each relation's best minus worst template, both chosen on the other half of its facts, paired by fact, 95% interval)",
        "Rogers et al. 2020 §3.3; Petroni et al. 2019; Jiang et al. 2020",
        paper="mined and paraphrased queries recall more facts than the manual LAMA templates (BERT-base)",
        rule=IntervalAbove(0.0),
        unit="accuracy, best - worst template",
        checks=("recalls_facts",),
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
)
