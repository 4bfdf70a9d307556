"""Figures: pure functions, results in, matplotlib Figure out.

Notebooks call these as ``plots.<name>(...)`` and add a caption that says what to see. The functions
live in one module per book part; this package re-exports every one of them:

- ``common`` (:mod:`~bertology_lib.plots.common`): the house style, finishing a figure, shared drawing helpers
  (annotated accuracy heatmap, mean bars with one dot per seed);
- ``survey_knowledge`` (:mod:`~bertology_lib.plots.survey_knowledge`): survey §2 (architecture) and §3 (what BERT knows,
  the limits of probing);
- ``survey_localizing`` (:mod:`~bertology_lib.plots.survey_localizing`): survey §4 (embeddings, attention heads, layers);
- ``survey_training`` (:mod:`~bertology_lib.plots.survey_training`): survey §5 (fine-tuning, seeds, pre-training variants);
- ``survey_model_size`` (:mod:`~bertology_lib.plots.survey_model_size`): survey §6 (head pruning, compression);
- ``survey_directions`` (:mod:`~bertology_lib.plots.survey_directions`): survey §7 (CheckList, HANS);
- ``physics`` (:mod:`~bertology_lib.plots.physics`): Physics of Language Models 3.1;
- ``duplication`` (:mod:`~bertology_lib.plots.duplication`): layer duplication (Kao et al. 2020).

Plot modules import nothing from the rest of the library except :mod:`bertology_lib.errors`.
"""

from __future__ import annotations

from bertology_lib.plots.duplication import (
    logit_lens_contrast,
    reconstruction_curves,
    seed_scores,
    similarity_heatmap,
    variant_seed_scores,
)
from bertology_lib.plots.physics import (
    majority_baselines,
    physics_attribute_heatmap,
    physics_extraction_scatter,
    physics_learning_curves,
    physics_probe_curves,
    physics_probe_tables,
    physics_seed_bars,
    physics_sweep,
)
from bertology_lib.plots.survey_directions import failure_rates, hans_accuracy
from bertology_lib.plots.survey_knowledge import (
    accuracy_bars,
    accuracy_over_steps,
    amnesic_bars,
    codelength_curves,
    embedding_norms,
    grouped_accuracy,
    layer_curves,
    learning_curve,
    param_breakdown,
    selectivity_curves,
)
from bertology_lib.plots.survey_localizing import (
    attention_entropy,
    attention_examples,
    attention_norms,
    attention_targets,
    attention_type_shares,
    embedding_geometry,
    expected_layers,
    pooling_curves,
    rank_sweep,
    sense_clusters,
    structural_probe_curves,
    syntactic_heads,
)
from bertology_lib.plots.survey_model_size import (
    compression_curves,
    compression_tradeoff,
    head_ablation_maps,
    head_pruning_curves,
)
from bertology_lib.plots.survey_training import (
    finetuning_strategies,
    layer_change_profile,
    pretraining_variants,
    restore_curves,
    seed_curves,
)

__all__ = [  # every plot function, alphabetically
    "accuracy_bars",
    "accuracy_over_steps",
    "amnesic_bars",
    "attention_entropy",
    "attention_examples",
    "attention_norms",
    "attention_targets",
    "attention_type_shares",
    "codelength_curves",
    "compression_curves",
    "compression_tradeoff",
    "embedding_geometry",
    "embedding_norms",
    "expected_layers",
    "failure_rates",
    "finetuning_strategies",
    "grouped_accuracy",
    "hans_accuracy",
    "head_ablation_maps",
    "head_pruning_curves",
    "layer_change_profile",
    "layer_curves",
    "learning_curve",
    "logit_lens_contrast",
    "majority_baselines",
    "param_breakdown",
    "physics_attribute_heatmap",
    "physics_extraction_scatter",
    "physics_learning_curves",
    "physics_probe_curves",
    "physics_probe_tables",
    "physics_seed_bars",
    "physics_sweep",
    "pooling_curves",
    "pretraining_variants",
    "rank_sweep",
    "reconstruction_curves",
    "restore_curves",
    "seed_curves",
    "seed_scores",
    "selectivity_curves",
    "sense_clusters",
    "similarity_heatmap",
    "structural_probe_curves",
    "syntactic_heads",
    "variant_seed_scores",
]
