"""The registered claims of the Physics of Language Models 3.1 notebooks (Allen-Zhu & Li 2023).

Each :class:`~bertology_lib.book.claims.registry.ClaimSpec` is registered before its notebook runs;
see :mod:`bertology_lib.book.claims.registry`.

Instrument checks (issues 16 and 17): every claim that reads knowledge out of a model declares
``memorised`` (the models it measures reach
:data:`~bertology_lib.experiments.physics.evaluation.MEMORISED` first-token accuracy on their training
biographies; for the BERT claims, the BERT and the decoder both do): a model that did not store the facts
can neither extract them nor fail to, so the verdict is "inconclusive - instrument". The classifier probes
also declare ``classes_seen`` (every attribute: at least
:data:`~bertology_lib.experiments.physics.instruments.CLASSES_SEEN` of the probe-test people have a class some
probe-training person has) and ``probe_positive_control`` (on the single model, the P-probe reads each
attribute at the position just before its value, where a memorising model must hold it, at least
:data:`~bertology_lib.experiments.physics.instruments.POSITIVE_CONTROL` above majority on average). The
celebrity lift also needs the minority above its majority baseline with celebrities
(``minority_above_majority``: a ratio of two floor values is not a lift).
"""

from bertology_lib.book.claims.registry import ClaimSpec, register
from bertology_lib.book.claims.rules import AtLeast, AtMost, IntervalAbove, WithinRelative

register(
    "physics_01_biographies",
    ClaimSpec(
        "physics3.1.data.pool_sizes",
        "bioS draws names from pools of 400/400/1000, birth dates from 200 years x 12 months x 28 days, and attributes from 200 cities, 300 universities, 100 majors and 263 companies",
        "Allen-Zhu & Li 2023 §2",
        paper=1.0,
        rule=AtLeast(1.0),
        unit="share of pools matching",
        kind="setup",
        note="checks the generator's own constants",
    ),
    ClaimSpec(
        "physics3.1.data.templates",
        "Each attribute is written with dozens of sentence templates (the paper uses 46-52 per attribute; ours are fewer)",
        "Allen-Zhu & Li 2023 §2",
        paper="46-52",
        rule=AtLeast(20),
        unit="templates (fewest attribute)",
        kind="setup",
        note="checks the generator's own constants",
    ),
    ClaimSpec(
        "physics3.1.data.company_city_follows_company",
        "The company city is determined by the company (its headquarters)",
        "Allen-Zhu & Li 2023 §2",
        paper=1.0,
        rule=AtLeast(1.0),
        unit="share of companies with one city",
        kind="setup",
        note="checks the generator's own construction",
    ),
    ClaimSpec(
        "physics3.1.data.company_city_majority",
        "Because the city follows the company, the majority baseline for company city is its most common headquarters city, far above the uniform 1 / #company cities",
        "Allen-Zhu & Li 2023 §2 (company city from the company)",
        paper="far above uniform",
        rule=AtLeast(5),
        unit="x uniform share",
        kind="setup",
        note="checks the generator's own construction",
    ),
    ClaimSpec(
        "physics3.1.data.qa_split",
        "Individuals are split in half: QA-train for fine-tuning, QA-test for evaluation",
        "Allen-Zhu & Li 2023 §2 (QA)",
        paper=0.5,
        rule=WithinRelative(0.05),
        unit="share in QA-train",
        kind="setup",
        note="checks the generator's own split",
    ),
    ClaimSpec(
        "physics3.1.data.birth_date_first",
        "In bioS single the sentence order is fixed, birth date first, so the birth date follows the name in every biography",
        "Allen-Zhu & Li 2023 §2 (bioS, fixed order) and §4 (permute)",
        paper=1.0,
        rule=AtLeast(1.0),
        unit="share of single bios",
        kind="setup",
        note="checks the generator's own template order",
    ),
)

register(
    "physics_02_mixed_training",
    ClaimSpec(
        "physics3.1.mixed.multi5_permute",
        "Mixed training on multi5+permute answers questions about QA-test people (mean over seeds)",
        "Allen-Zhu & Li 2023 §3 (mixed training)",
        paper="high (§3)",
        rule=AtLeast(0.7),
        unit="QA-test accuracy",
        checks=("memorised",),
    ),
    ClaimSpec(
        "physics3.1.mixed.above_majority",
        "After mixed training on multi5+permute every attribute is far above its majority baseline (smallest margin over attributes)",
        "Allen-Zhu & Li 2023 §3",
        paper="far above",
        rule=AtLeast(0.2),
        unit="accuracy points over majority",
        checks=("memorised",),
    ),
    ClaimSpec(
        "physics3.1.mixed.single",
        "Mixed training generalises even on bioS single (paper: N = 100k people)",
        "Allen-Zhu & Li 2023 §3, Fig. 1",
        paper=0.866,
        rule=WithinRelative(0.25),
        unit="QA-test accuracy",
        checks=("memorised",),
    ),
    ClaimSpec(
        "physics3.1.mixed.qa_test_lags",
        "In mixed training the model fits QA-train first; QA-test accuracy rises later (steps between both reaching half their final accuracy, per seed: mean, min, max)",
        "Allen-Zhu & Li 2023 §3, Fig. 1b/c",
        paper="QA-test lags",
        rule=IntervalAbove(0.0),
        unit="steps",
        checks=("memorised",),
    ),
    ClaimSpec(
        "physics3.1.mixed.single_grows_with_n",
        "Mixed training on bioS single generalises better with more people (QA-test accuracy at the largest minus the smallest N of the sweep, equal exposures)",
        "Allen-Zhu & Li 2023 §3 (explanation of Fig. 1)",
        paper="grows with N",
        rule=AtLeast(0.05),
        unit="accuracy gain",
        checks=("memorised",),
    ),
)

register(
    "physics_03_pretrain_finetune",
    ClaimSpec(
        "physics3.1.finetune.single_not_extractable",
        "Pretrained on bioS single, then fine-tuned, a model answers few questions about QA-test people (mean over seeds)",
        "Allen-Zhu & Li 2023 §4, Fig. 3 (bioS single)",
        paper=0.097,
        rule=AtMost(0.2),
        unit="QA-test accuracy",
        checks=("memorised",),
    ),
    ClaimSpec(
        "physics3.1.finetune.single_without_birth_date",
        "Without birth date (the attribute next to the name in single), bioS single knowledge is almost not extractable",
        "Allen-Zhu & Li 2023 §4 (bioS single)",
        paper="near 0",
        rule=AtMost(0.1),
        unit="QA-test accuracy",
        checks=("memorised",),
    ),
    ClaimSpec(
        "physics3.1.finetune.augmentation_extractable",
        "Pretrained on multi5+permute, the same fine-tuning extracts most of the knowledge (mean over seeds)",
        "Allen-Zhu & Li 2023 §4, Fig. 3 (multi5+permute)",
        paper=0.966,
        rule=AtLeast(0.6),
        unit="QA-test accuracy",
        note="paper: 96.6% QA-test accuracy after fine-tuning a model pretrained on bioS multi5+permute (Fig. 3)",
        checks=("memorised",),
    ),
    ClaimSpec(
        "physics3.1.finetune.grid_order",
        "Across the augmentation grid, fine-tuned QA-test accuracy follows the paper's order of the cells (Spearman of the cells' seed means with the paper's Fig. 3 numbers; Fisher-z interval in the details)",
        "Allen-Zhu & Li 2023 §4, Fig. 3",
        paper=1.0,
        rule=AtLeast(0.7),
        unit="Spearman rho",
        checks=("memorised",),
        note="paper, Fig. 3 (full fine-tuning, QA-test): single 9.7%, fullname 48.9%, permute1 4.4%, permute5 70.0%, multi5 41.0%, multi5+permute 96.6%; our grid also runs multi2+permute, whose paper number is not in our reference table, so it is left out of the rank correlation",
    ),
    ClaimSpec(
        "physics3.1.finetune.lora_same_order",
        "LoRA fine-tuning shows the same ordering: multi5+permute far above single (gap per seed: mean, min, max)",
        "Allen-Zhu & Li 2023 §4 (LoRA fine-tuning)",
        paper="same ordering",
        rule=IntervalAbove(0.1),
        unit="accuracy gap",
        checks=("memorised",),
    ),
)

register(
    "physics_04_celebrities",
    ClaimSpec(
        "physics3.1.celebrity.lift",
        "Celebrities lift the minority's QA-test accuracy (ratio with / without, seed means)",
        "Allen-Zhu & Li 2023 §4.3 (4.4% -> 86.8%)",
        paper=19.7,
        rule=AtLeast(3.0),
        unit="x",
        checks=("memorised", "minority_above_majority"),
    ),
    ClaimSpec(
        "physics3.1.celebrity.minority_accuracy",
        "With celebrities, the minority's knowledge becomes extractable (QA-test accuracy on the minority, seed mean)",
        "Allen-Zhu & Li 2023 §4.3",
        paper=0.868,
        rule=WithinRelative(0.25),
        unit="QA-test accuracy",
        checks=("memorised",),
    ),
    ClaimSpec(
        "physics3.1.celebrity.not_more_text",
        "The lift comes from the celebrities, not from more text: the minority extracts more with celebrities than "
        "the same kind of people pretrained with as many extra tokens of word-shuffled biographies and as many "
        "steps (pooled QA-test accuracy, with minus filler)",
        "Allen-Zhu & Li 2023 §4.3 (the celebrities' augmentation is what transfers)",
        paper="celebrities, not extra text, lift the minority",
        rule=IntervalAbove(0.0),
        unit="accuracy gap",
        checks=("memorised", "minority_above_majority"),
        note="control chosen here (issue 17): the paper's own control number was not at hand",
    ),
)

register(
    "physics_05_probing",
    ClaimSpec(
        "physics3.1.probing.q_probe_predicts_extraction",
        "Across the augmentation grid, Q-probe accuracy and fine-tuned QA-test accuracy are strongly correlated (Spearman over models)",
        "Allen-Zhu & Li 2023 §6",
        paper="strong correlation",
        rule=AtLeast(0.7),
        unit="Spearman rho",
        checks=("memorised", "classes_seen", "probe_positive_control"),
    ),
    ClaimSpec(
        "physics3.1.probing.q_probe_vocab_predicts_extraction",
        "Across the augmentation grid, Q-probe accuracy through the model's output embeddings (our small-N probe) and fine-tuned QA-test accuracy are strongly correlated (Spearman over models)",
        "Allen-Zhu & Li 2023 §6",
        paper="strong correlation",
        rule=AtLeast(0.7),
        unit="Spearman rho",
        checks=("memorised",),
    ),
    ClaimSpec(
        "physics3.1.probing.p_probe_at_name",
        "P-probing: in a multi5+permute model the attributes are readable at the person's name, in a single model they are not (mean over attributes except birth date, multi5+permute minus single)",
        "Allen-Zhu & Li 2023 §5",
        paper="large gap",
        rule=AtLeast(0.1),
        unit="probe accuracy gap",
        checks=("memorised", "classes_seen", "probe_positive_control"),
    ),
    ClaimSpec(
        "physics3.1.probing.single_reads_late",
        "P-probing a single model: each attribute is best read at or after the position just before its own value, never earlier (share of attributes)",
        "Allen-Zhu & Li 2023 §5",
        paper=1.0,
        rule=AtLeast(1.0),
        unit="share of attributes",
        kind="setup",
        note="follows from next-token prediction on fixed-order text: the attribute is only predictable after its prefix",
    ),
    ClaimSpec(
        "physics3.1.probing.q_probe_augmentation",
        "Q-probing reads more from the bare name of a multi5+permute model than of a single model (mean accuracy, multi5+permute minus single)",
        "Allen-Zhu & Li 2023 §6",
        paper="large gap",
        rule=AtLeast(0.1),
        unit="probe accuracy gap",
        checks=("memorised", "classes_seen", "probe_positive_control"),
    ),
)

register(
    "physics_06_bert",
    ClaimSpec(
        "physics3.1.bert.worse_than_decoder",
        "On multi5+permute data a BERT (MLM) model extracts less knowledge than the decoder (mean QA-test accuracy, decoder minus BERT)",
        "Allen-Zhu & Li 2023 §7",
        paper="decoder far above",
        rule=AtLeast(0.1),
        unit="accuracy gap",
        checks=("memorised",),
    ),
    ClaimSpec(
        "physics3.1.bert.birth_date_easiest",
        "For the BERT model, birth date is the best-extracted attribute (birth-date accuracy minus the best other attribute)",
        "Allen-Zhu & Li 2023 §7",
        paper="birth date best",
        rule=AtLeast(0.01),
        unit="accuracy gap",
        checks=("memorised",),
    ),
)
