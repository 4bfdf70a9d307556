"""Null models: the same architecture with fresh random weights (the "random-init twin")."""

from __future__ import annotations

import torch


def random_init_like(model):
    """Same architecture and config, fresh random weights (initialised from seed 0), eval mode: the baseline
    a probe or a rule must beat to say anything about what training put into ``model``."""
    torch.manual_seed(0)
    fresh = type(model)(model.config)
    return fresh.eval()
