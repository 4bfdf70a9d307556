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
        "A pre-trained encoder struggles with numbers (MiniLM, the sentence encoder, as BERT in the paper): magnitude read from its number states does not carry beyond the numbers a probe was trained on (comparison probes scored on held-out numbers of the upper half of the range, trained on the whole range vs on the lower half only; 95% interval)",
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
    ClaimSpec(
        "survey3.2.entity_types",
        "BERT's states encode entity types: a linear probe reads a noun's type (person, animal or thing) from the states of nouns it never saw in training (the layer chosen on other held-out nouns), beyond the stronger of the random-init twin and the majority type (lab BERT, toy sentences; 95% interval resampling test nouns)",
        "Rogers et al. 2020 §3.2; Tenney et al. 2019b (edge probing), Table 2",
        paper="entity types encoded well above lexical baselines (BERT-large)",
        rule=IntervalAbove(0.0),
        unit="accuracy over the stronger baseline",
        note="Tenney et al. label spans with OntoNotes' 18 entity types; the toy corpus's nouns carry a semantic class, "
        "grouped here into three types. The probe is held out by word, not by sentence: a word's type is a property "
        "of the word, so a probe scored on words it trained on could read it off the word's identity. A network "
        "that learned nothing has no shared features for new words of a type and scores at or below the majority.",
    ),
    ClaimSpec(
        "survey3.2.semantic_roles",
        "BERT's states encode semantic roles: a linear probe reads whether a noun is the agent, the patient or neither (held-out sentences, the layer chosen on validation sentences), beyond the stronger of the random-init twin and each noun's most frequent training role (lab BERT, toy sentences; nouns only; 95% interval resampling test sentences)",
        "Rogers et al. 2020 §3.2; Tenney et al. 2019b (edge probing), Table 2",
        paper="semantic roles encoded well above lexical baselines (BERT-large)",
        rule=IntervalAbove(0.0),
        unit="accuracy over the stronger baseline",
        note="word-level stand-in for the span-based SRL edge probe: the role on each noun's head word, agent on active "
        "subjects and passive by-phrases, patient on objects and passive subjects. Proto-roles (Reisinger et al.'s "
        "graded properties such as volition or change of state) have no annotation in the toy corpus and are not "
        "tested.",
    ),
    ClaimSpec(
        "survey3.2.addition_hard",
        "A pre-trained encoder struggles with addition beyond the numbers it was probed on (MiniLM, as BERT in the paper): the sum of two held-out numbers from the upper half of the range is decoded worse by a probe trained on the lower half than by one trained on the whole range (mean absolute error as a share of the largest sum, paired by pair, 95% interval)",
        "Rogers et al. 2020 §3.2; Wallace et al. 2019 §3-§5 (addition, extrapolation)",
        paper="addition decoded within the training range; probes fail to extrapolate",
        rule=IntervalAbove(0.05),
        unit="error increase, share of the largest sum",
        checks=("sum_beyond_twin", "probe_extrapolates_on_digits"),
        note="as survey3.2.numbers_hard for Wallace et al.'s addition task: a ridge-regression probe per layer from the "
        "two numbers' states (MiniLM, numbers 0-999 in digits) to their sum, its layer chosen on validation pairs "
        "from the upper half. 'Fails to extrapolate' is read as at least 5% of the largest sum added to the mean "
        "error. Instruments: in range the model's probe must beat the random-init twin's (paired, interval above "
        "0), and the same pipeline on the digit-by-digit control must extrapolate (mean error at most 1% of the "
        "largest sum), else the probe, not the model, fails.",
    ),
    ClaimSpec(
        "survey3.2.word_pieces_cost_magnitude",
        "Splitting numbers into word pieces costs learned magnitude: the encoder's gain over its random-init twin in comparing two numbers is larger when both are single word pieces than when both are split into several (MiniLM, held-out number pairs; 95% interval)",
        "Rogers et al. 2020 §3.2; Wallace et al. 2019 §4 (sub-word pieces)",
        paper="numbers split into sub-word pieces are represented worse",
        rule=IntervalAbove(0.0),
        unit="gain over twin, whole - split",
        checks=("twin_leaves_room",),
        note="the pairs are the held-out pairs of the numeracy probe above (numbers 0-999 in digits, the whole-range "
        "probe at its chosen layer). The gain over the twin, not the accuracy, is compared: a number's pieces "
        "alone carry magnitude (more pieces, a larger number), which a random network reads too. Instrument: the "
        "twin must leave room on both kinds of pairs (at least 0.1 of them wrong), else a gain cannot show on the "
        "kind it already solves.",
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
        "survey3.3.competitive_with_kb",
        "BERT's fact recall is competitive with a knowledge base: on the same LAMA-style items, its accuracy comes within 0.05 of a knowledge base read off its training corpus (paired by item, 95% interval)",
        "Rogers et al. 2020 §3.3; Petroni et al. 2019 §4, Table 2",
        paper="BERT-large close to a relation-extraction knowledge base with oracle entity linking",
        rule=IntervalAbove(-0.05),
        unit="accuracy, model - KB",
        checks=("facts_in_training_split",),
        note="Petroni et al.'s knowledge bases are built by relation extractors that miss facts; the toy corpus states "
        "its facts in fixed templates, so a knowledge base read off the training split by those templates holds every "
        "stated fact (a coin flip on the rest). 'Competitive' is read as within 0.05 of accuracy. A model that knows nothing "
        "scores 0.5 against the KB's 1.0 and fails.",
    ),
    ClaimSpec(
        "survey3.3.accuracy_falls_with_steps",
        "Reasoning with stated facts gets harder with the number of inference steps: held-out size comparisons that chain two stated comparisons are answered better than those that need three or more (accuracy gap, 95% interval)",
        "Rogers et al. 2020 §3.3; Talmor et al. 2020 (oLMpics); Richardson & Sabharwal 2020",
        paper="accuracy falls as more inference steps are needed",
        rule=IntervalAbove(0.0),
        unit="accuracy gap, 2 steps - 3 or more",
        checks=("stated_sizes_known",),
        note="steps: the fewest comparisons the corpus states that chain the smaller thing to the bigger one. More "
        "steps also mean a larger difference in size, which makes a comparison easier for a model that places things "
        "on a size scale, so the rule can come out either way. Judged only when the stated comparisons are known "
        "(as survey3.3.no_size_inference).",
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
