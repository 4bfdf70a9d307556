"""One seeding helper; data generators use private generators instead."""

from __future__ import annotations

import os
import random

import numpy as np
import torch


def set_seed(seed: int, deterministic: bool = True) -> torch.Generator:
    """Seed Python, NumPy and torch for a training or evaluation run.

    Returns a private :class:`torch.Generator` seeded the same way, for code
    that should not depend on global state (data order, masking).
    """
    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)
    if deterministic:
        os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
        torch.use_deterministic_algorithms(True, warn_only=True)
    g = torch.Generator()
    g.manual_seed(seed)
    return g
