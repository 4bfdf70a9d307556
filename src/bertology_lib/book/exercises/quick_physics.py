"""What the physics checkers compute their truths on: the quick physics configuration (N = 300, seed 0),
fixed whatever profile a notebook runs at, so that a teacher notebook passes its checks at smoke and at quick
alike, and how often a pretraining run reads one biography. Used by the checker modules of the physics notebooks.
"""

from __future__ import annotations


def physics_config():
    """The physics configuration at ``quick``: every truth is fixed there, whatever profile the notebook runs."""
    from bertology_lib.experiments.physics.config import PhysicsConfig

    return PhysicsConfig.for_profile("quick")


def bio_exposures(cfg, steps: int | None = None, batch_size: int | None = None) -> float:
    """Times one biography's facts are read in a decoder pretraining run of ``cfg``, per copy of a person:
    rows read (``steps x batch_size``) over the BIO windows of ``cfg.dataset()`` packed as ``cfg.packing`` says
    (the epochs)."""
    from bertology_lib.experiments.physics.config import bios_tokenizer
    from bertology_lib.experiments.physics.training import bio_rows

    steps = cfg.pretrain_steps if steps is None else steps
    batch_size = cfg.batch_size if batch_size is None else batch_size
    return steps * batch_size / len(bio_rows(cfg.dataset(), bios_tokenizer(), cfg.seq_len, cfg.packing)[0])
