"""Representational similarity between layers.

Used by the layer-duplication notebooks (why one MLM head decodes every
layer) and the §4 embedding analyses.
"""

from __future__ import annotations

import torch

from bertology_lib.errors import ParameterError


def linear_cka(X: torch.Tensor, Y: torch.Tensor) -> float:
    """Linear centred kernel alignment (Kornblith et al. 2019) of two (n, d) representations."""
    if X.shape[0] != Y.shape[0] or X.shape[0] < 2:
        raise ParameterError(f"X has {X.shape[0]} rows and Y {Y.shape[0]}; they must describe the same items; "
                             "allowed: the same number of rows, >= 2")
    X = X.double() - X.double().mean(0)
    Y = Y.double() - Y.double().mean(0)
    hsic = (X.T @ Y).norm() ** 2
    return float(hsic / ((X.T @ X).norm() * (Y.T @ Y).norm()))


def cka_matrix(layers: torch.Tensor) -> torch.Tensor:
    """(L, L) linear CKA between every pair of layers of a (L, n, d) tensor."""
    n = layers.shape[0]
    out = torch.eye(n, dtype=torch.float64)
    for i in range(n):
        for j in range(i + 1, n):
            out[i, j] = out[j, i] = linear_cka(layers[i], layers[j])
    return out
