"""The registered claims of physics_03_pretrain_finetune: pretrain, then fine-tune, with and without
knowledge augmentation (Allen-Zhu & Li 2023 §4-5).

Instrument checks: every claim that reads knowledge out of a model declares
``memorised`` (:data:`~bertology_lib.book.claims.specs.shared.MEMORISED`): a model that did not store the
facts can neither extract them nor fail to, so the verdict is "inconclusive - instrument".

Each :class:`~bertology_lib.book.claims.registry.ClaimSpec` in ``CLAIMS`` is registered under this module's
name before the notebook runs, in the order the notebook records them; the notebook passes only its
measured values (see :mod:`bertology_lib.book.claims.registry`).
"""

from bertology_lib.book.claims.registry import ClaimSpec
from bertology_lib.book.claims.rules import AtLeast, AtMost, IntervalAbove
from bertology_lib.book.claims.specs.shared import MEMORISED

CLAIMS = (
    ClaimSpec(
        "physics3.1.finetune.single_not_extractable",
        "Pretrained on bioS single, then fine-tuned, a model answers few questions about QA-test people (mean over seeds)",
        "Allen-Zhu & Li 2023 §4, Fig. 3 (bioS single)",
        paper=0.097,
        rule=AtMost(0.2),
        unit="QA-test accuracy",
        checks=(MEMORISED,),
    ),
    ClaimSpec(
        "physics3.1.finetune.single_without_birth_date",
        "Without birth date (the attribute next to the name in single), bioS single knowledge is almost not extractable",
        "Allen-Zhu & Li 2023 §4 (bioS single)",
        paper="near 0",
        rule=AtMost(0.1),
        unit="QA-test accuracy",
        checks=(MEMORISED,),
    ),
    ClaimSpec(
        "physics3.1.finetune.augmentation_extractable",
        "Pretrained on multi5+permute, the same fine-tuning extracts most of the knowledge (mean over seeds)",
        "Allen-Zhu & Li 2023 §4, Fig. 3 (multi5+permute)",
        paper=0.966,
        rule=AtLeast(0.6),
        unit="QA-test accuracy",
        note="paper: 96.6% QA-test accuracy after fine-tuning a model pretrained on bioS multi5+permute (Fig. 3)",
        checks=(MEMORISED,),
    ),
    ClaimSpec(
        "physics3.1.finetune.lora_same_order",
        "LoRA fine-tuning shows the same ordering: multi5+permute far above single (gap per seed: mean, min, max)",
        "Allen-Zhu & Li 2023 §4 (LoRA fine-tuning)",
        paper="same ordering",
        rule=IntervalAbove(0.1),
        unit="accuracy gap",
        checks=(MEMORISED,),
    ),
    ClaimSpec(
        "physics3.1.finetune.grid_order",
        "Across the augmentation grid, fine-tuned QA-test accuracy follows the paper's order of the cells (Spearman of the cells' seed means with the paper's Fig. 3 numbers; Fisher-z interval in the details)",
        "Allen-Zhu & Li 2023 §4, Fig. 3",
        paper=1.0,
        rule=AtLeast(0.7),
        unit="Spearman rho",
        checks=(MEMORISED,),
        note="paper, Fig. 3 (full fine-tuning, QA-test): single 9.7%, fullname 48.9%, permute1 4.4%, permute5 70.0%, multi5 41.0%, multi5+permute 96.6%; our grid also runs multi2+permute, whose paper number is not in our reference table, so it is left out of the rank correlation",
    ),
    ClaimSpec(
        "physics3.1.finetune.rises_with_multiplicity",
        "The decoder's fine-tuned QA-test accuracy rises with the number of biographies per person, sentences permuted: permute1 (one) < multi2+permute (two) < multi5+permute (five) (the smaller of the two steps between the cells' seed means)",
        "Allen-Zhu & Li 2023 §4, Fig. 3 (multiM)",
        paper="rises with M",
        rule=AtLeast(0.05),
        unit="accuracy step",
        checks=(MEMORISED,),
    ),
    ClaimSpec(
        "physics3.1.finetune.rises_with_permutations",
        "The decoder's fine-tuned QA-test accuracy rises with the number of permuted copies of one biography: permute5 above permute1 (difference of the cells' seed means)",
        "Allen-Zhu & Li 2023 §4, Fig. 3 (permute)",
        paper=0.656,
        rule=AtLeast(0.1),
        unit="accuracy gap",
        checks=(MEMORISED,),
        note="paper, Fig. 3 (full fine-tuning, QA-test): permute1 4.4%, permute5 70.0%",
    ),
    ClaimSpec(
        "physics3.1.finetune.paraphrase_augmentation_helps",
        "On rewritten biographies (bioR-like; a template paraphraser stands in for the paper's LLM rewrites), five rewrites per person make more of the decoder's knowledge extractable than one: multi5 minus single in fine-tuned QA-test accuracy (every answer of both seeds pooled, 95% interval)",
        "Allen-Zhu & Li 2023 §2.2, §4 (bioR)",
        paper="augmentation needed on bioR as on bioS",
        rule=IntervalAbove(0.1),
        unit="accuracy gap",
        checks=(MEMORISED,),
        note="the paper's bioR biographies are written by Llama from each person's facts; ours by the paraphrase "
        "generator of bertology_lib.data.bios.paraphrase (joint and split sentences, random order, sentences with no "
        "fact, first-name and pronoun references; physics_01 shows it), which has far less variety than an LLM",
    ),
)
