"""Representational similarity between layers.

Used by the layer-duplication notebooks (why one MLM head decodes every
layer) and the §4 embedding analyses. :func:`adjacent_similarity` is the
measurement behind the claim that neighbouring layers share one space
(Kao et al. 2020): linear CKA of adjacent layers against the same layers
with the word pairing shuffled, with an interval over sentences.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from bertology_lib.errors import ParameterError


def linear_cka(X: torch.Tensor, Y: torch.Tensor) -> float:
    """Linear centred kernel alignment (Kornblith et al. 2019) of two (n, d) representations."""
    if X.shape[0] != Y.shape[0] or X.shape[0] < 2:
        raise ParameterError(
            f"X has {X.shape[0]} rows and Y {Y.shape[0]}; they must describe the same items; "
            "allowed: the same number of rows, >= 2"
        )
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


def _block_grams(X: torch.Tensor, Y: torch.Tensor, block: torch.Tensor, n_blocks: int):
    """Per block of rows: X^T Y (n_blocks, d, e), the column sums of X and Y, and the row counts."""
    d, e = X.shape[1], Y.shape[1]
    S = torch.zeros(n_blocks, d, e, dtype=torch.float64)
    for b in range(n_blocks):
        m = block == b
        S[b] = X[m].T @ Y[m]
    sx = torch.zeros(n_blocks, d, dtype=torch.float64).index_add_(0, block, X)
    sy = torch.zeros(n_blocks, e, dtype=torch.float64).index_add_(0, block, Y)
    return S, sx, sy


def _centred_norms(stats, weights: torch.Tensor, n: torch.Tensor) -> torch.Tensor:
    """||X^T Y - sx sy^T / n||_F for every row of block ``weights`` (R, n_blocks): the centred cross-products
    of the resampled rows, from per-block statistics."""
    S, sx, sy = stats
    out = []
    flat = S.reshape(S.shape[0], -1)
    for w in weights.split(max(1, 2**22 // flat.shape[1])):  # about 32 MB of resampled cross-products at a time
        A = (w @ flat).reshape(len(w), S.shape[1], S.shape[2])
        u, v, k = w @ sx, w @ sy, w @ n
        out.append((A - u[:, :, None] * v[:, None, :] / k[:, None, None]).flatten(1).norm(dim=1))
    return torch.cat(out)


def adjacent_similarity(
    layers: torch.Tensor, offsets: Sequence[int], first: int = 1, n_blocks: int = 50, seed: int = 0
) -> dict[str, Any]:
    """How similar neighbouring layers are, beyond unrelated representations: for every adjacent pair
    (ℓ, ℓ + 1) with ℓ >= ``first`` (default: hidden layers only, 0 being the embeddings), linear CKA of the
    two layers' word vectors minus linear CKA of the same two layers with the words of layer ℓ + 1 shuffled
    (a seeded permutation: what unrelated representations of the same spread score). The claim reads the
    least similar pair.

    ``layers``: (L + 1, n_words, d); ``offsets``: sentence ``s`` owns rows ``offsets[s]:offsets[s+1]``. The 95%
    interval is a delete-one-block jackknife over ``n_blocks`` blocks of consecutive sentences (sentences are
    independent draws, so blocks are too), the least similar pair chosen again without each block. Not a
    bootstrap: a resample that repeats sentences repeats words, and repeated words inflate CKA. Returns
    ``gap``, ``low``, ``high``, ``pair`` (ℓ of that pair), ``cka`` and ``shuffled`` (per pair, ℓ = first..L-1),
    ``mean_cka``, ``n_blocks``, ``n_sentences``."""
    offsets = list(offsets)
    n_sent = len(offsets) - 1
    if layers.dim() != 3 or layers.shape[0] < first + 2 or n_sent < 2 or offsets[-1] != layers.shape[1]:
        raise ParameterError(
            f"layers of shape {tuple(layers.shape)} with {n_sent} sentences ending at row "
            f"{offsets[-1] if offsets else None}; allowed: (L + 1, n_words, d) with at least "
            f"{first + 2} layers and offsets over >= 2 sentences covering every row"
        )
    n_blocks = max(2, min(int(n_blocks), n_sent))
    sent_block = np.arange(n_sent) * n_blocks // n_sent
    block = torch.as_tensor(np.repeat(sent_block, np.diff(offsets)), dtype=torch.long)
    perm = torch.as_tensor(np.random.default_rng(seed).permutation(layers.shape[1]), dtype=torch.long)
    w = torch.cat(
        [torch.ones(1, n_blocks), 1 - torch.eye(n_blocks)]
    ).double()  # the full sample, then without each block
    n = torch.bincount(block, minlength=n_blocks).to(torch.float64)
    X = [layers[i].double() for i in range(layers.shape[0])]
    norm: dict[Any, torch.Tensor] = {}

    def cka(a: torch.Tensor, b: torch.Tensor, key_a: Any, key_b: Any) -> torch.Tensor:
        for key, x in ((key_a, a), (key_b, b)):
            if key not in norm:
                norm[key] = _centred_norms(_block_grams(x, x, block, n_blocks), w, n)
        return _centred_norms(_block_grams(a, b, block, n_blocks), w, n) ** 2 / (norm[key_a] * norm[key_b])

    pairs = range(first, layers.shape[0] - 1)
    same = torch.stack([cka(X[i], X[i + 1], i, i + 1) for i in pairs])  # (pairs, 1 + n_blocks)
    shuf = torch.stack([cka(X[i], X[i + 1][perm], i, ("shuffled", i + 1)) for i in pairs])
    gaps = (same - shuf).numpy()
    worst = int(np.argmin(gaps[:, 0]))
    loo = gaps[:, 1:].min(0)  # the least similar pair, chosen again without each block
    se = float(np.sqrt((n_blocks - 1) / n_blocks * ((loo - loo.mean()) ** 2).sum()))
    g = float(gaps[worst, 0])
    return {
        "gap": g,
        "low": g - 1.96 * se,
        "high": g + 1.96 * se,
        "pair": first + worst,
        "cka": [float(x) for x in same[:, 0]],
        "shuffled": [float(x) for x in shuf[:, 0]],
        "mean_cka": float(same[:, 0].mean()),
        "n_blocks": n_blocks,
        "n_sentences": n_sent,
    }
