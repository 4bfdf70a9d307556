"""Physics of Language Models 3.1 (Allen-Zhu & Li 2023): knowledge storage and extraction.

================  =================================================================================
module            holds
================  =================================================================================
``config``        :class:`~bertology_lib.experiments.physics.config.PhysicsConfig`: a run's settings
``training``      pretraining, QA fine-tuning (full / LoRA), mixed training of the decoders
``evaluation``    QA accuracy, memorisation, learning curves, word-aligned encoding
``probing``       P-probing and Q-probing (the layer chosen on validation people)
``instruments``   the probes' instrument checks: classes seen, the positive control
``bert``          the BERT comparison
``grid``          the notebooks' grids over augmentations, seeds, N and QA shares
``paraphrase``    pretrain + fine-tune on the bioR-like rewritten biographies (physics_03)
``jobs``          the models as units of work trained side by side (``bertology train-physics``)
``biographies``   inspecting the bioS data (tables, highlighted examples)
================  =================================================================================
"""
