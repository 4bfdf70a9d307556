"""Ethayarajh's (2019) maximum explainable variance as his released code computes it, beside the paper's equation.

The paper defines a word's MEV as σ₁² / Σ σᵢ² of the matrix of its occurrence vectors (§3.4, uncentred); the
book's :func:`bertology_lib.analysis.embeddings.mev` computes that equation, corrected by as many random rows. The
code released with the paper (``kawine/contextual``, ``analyze.py``) computes something else:

* per word and layer, ``PCA(n_components=1)`` on the word's occurrence vectors, i.e. the share of the
  *centred* variance along the first principal direction (the word's mean vector is removed first);
* as the anisotropy baseline, ``TruncatedSVD`` on one random occurrence from each of ``n_random`` random sentences:
  the variance of their projections on the first right singular vector of the *uncentred* matrix over their total
  variance.

:func:`code_mev` gives both per layer so a reader can see which normalisation a number comes from. Used by
``survey_04_1_embeddings`` beside its registered claims (which read the paper's equation).

The repository also holds the numbers behind the paper's figures; :data:`BERT_BASE_ANISOTROPY` is BERT-base's
anisotropy (``bert/embedding_space_stats.json``, "mean cosine similarity across words", layers 0-12, the
paper's "average cosine similarity between randomly sampled words" figure), and :func:`paper_anisotropy` places it
beside a model of another depth.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd
import torch

from bertology_lib.analysis.embeddings import type_index
from bertology_lib.errors import ParameterError
from bertology_lib.validation import check_int


# kawine/contextual @ 84d2f97, bert/embedding_space_stats.json: BERT-base, layer 0 (embeddings) to 12
BERT_BASE_ANISOTROPY: tuple[float, ...] = (
    0.105, 0.168, 0.219, 0.245, 0.327, 0.377, 0.42, 0.398, 0.399, 0.484, 0.561, 0.675, 0.477
)  # fmt: skip


def _centred_first_share(M: torch.Tensor) -> torch.Tensor:
    """(P,) share of the centred variance along the first principal direction of each layer's rows (P, k, d)."""
    C = M.double() - M.double().mean(1, keepdim=True)
    s = torch.linalg.svdvals(C) ** 2
    return s[:, 0] / s.sum(-1).clamp_min(1e-12)


def _uncentred_direction_share(M: torch.Tensor) -> torch.Tensor:
    """(P,) variance of the rows' projections on the first right singular vector of the uncentred matrix, over the
    rows' total variance (scikit-learn's ``TruncatedSVD(...).explained_variance_ratio_[0]``)."""
    M = M.double()
    v = torch.linalg.svd(M, full_matrices=False).Vh[:, 0]  # (P, d)
    proj = torch.einsum("pkd,pd->pk", M, v)
    return proj.var(1) / M.var(1).sum(-1).clamp_min(1e-12)


def code_mev(
    X: torch.Tensor,
    words: Sequence[str],
    sentence_ids: Sequence[int],
    min_count: int = 5,
    max_occurrences: int | None = 100,
    n_random: int = 1000,
    seed: int = 0,
) -> pd.DataFrame:
    """Per layer of ``X`` (n_layers + 1, N, d): ``code_mev`` (mean over word types with ``min_count`` or more
    occurrences, at most ``max_occurrences`` of each, of the centred first-component share), ``code_random`` (the
    code's random-word baseline over one random word of each of ``n_random`` random sentences) and
    ``code_corrected`` (their difference)."""
    if X.dim() != 3 or X.shape[1] != len(words) or len(words) != len(sentence_ids):
        raise ParameterError(
            f"X has shape {tuple(X.shape)} for {len(words)} words and {len(sentence_ids)} sentence ids; allowed: "
            "(n_layers + 1, N, d) with one word and one sentence id per row"
        )
    check_int("min_count", min_count, minimum=2)
    check_int("n_random", n_random, minimum=2)
    rng = np.random.default_rng(seed)
    rows, idx, names = type_index(words, min_count, max_occurrences, rng=rng)  # the rows the book's MEV reads
    if not names:
        raise ParameterError(f"no word type occurs {min_count} times or more; allowed: a lower min_count")
    shares = [_centred_first_share(X[:, rows[idx == t]]) for t in range(len(names))]
    by_sentence: dict[int, list[int]] = {}
    for i, s in enumerate(sentence_ids):
        by_sentence.setdefault(int(s), []).append(i)
    sentences = sorted(by_sentence)
    picked = rng.choice(len(sentences), size=min(n_random, len(sentences)), replace=False)
    random_rows = [int(rng.choice(by_sentence[sentences[k]])) for k in picked]
    mev = torch.stack(shares, -1).mean(-1)
    base = _uncentred_direction_share(X[:, random_rows])
    return pd.DataFrame(
        {
            "layer": range(X.shape[0]),
            "code_mev": mev.numpy(),
            "code_random": base.numpy(),
            "code_corrected": (mev - base).numpy(),
        }
    )


def paper_anisotropy(n_layers: int) -> pd.DataFrame:
    """BERT-base's anisotropy by layer (:data:`BERT_BASE_ANISOTROPY`) at the same relative depth of a model with
    ``n_layers`` transformer layers: ``layer`` (BERT-base's layer i of 12 at i x n_layers / 12, so 0 is the
    embeddings and 12 the last layer in both) and ``value``; ``attrs["label"]`` names the source."""
    check_int("n_layers", n_layers, minimum=1)
    k = len(BERT_BASE_ANISOTROPY) - 1
    out = pd.DataFrame({"layer": [i * n_layers / k for i in range(k + 1)], "value": list(BERT_BASE_ANISOTROPY)})
    out.attrs["label"] = "Ethayarajh 2019: BERT-base"
    return out
