"""Checkers of the exercises of ``survey_04_1_embeddings`` (§4.1 BERT embeddings, Rogers et al. 2020):

* ``ex-survey41-selfsim``: Ethayarajh's self-similarity of a word's occurrence vectors;
* ``ex-survey41-mev``: the share of variance the first principal direction explains (MEV).

Both answers are functions, run on hidden occurrence matrices built here and compared with the truth case
by case. Used by that notebook's exercise cells.
"""

from __future__ import annotations

from bertology_lib.book.exercises.cases import judge_each_case
from bertology_lib.book.exercises.checks import checker


def _occurrence_matrices():
    """Hidden (k, d) occurrence matrices: a shared offset (anisotropy), noise and unequal row norms."""
    import torch

    g = torch.Generator().manual_seed(4100)
    out = []
    for k, d, offset in ((2, 4, 1.0), (5, 16, 2.0), (9, 8, 0.5), (30, 32, 3.0), (4, 3, 0.0)):
        mu = offset * torch.randn(d, generator=g, dtype=torch.float64)
        V = mu + torch.randn(k, d, generator=g, dtype=torch.float64)
        out.append(V * (0.5 + 2.5 * torch.rand(k, 1, generator=g, dtype=torch.float64)))
    return out


def _pairwise_cos(V):
    U = V / V.norm(dim=-1, keepdim=True)
    return U @ U.T


def self_similarity_truth(V) -> float:
    """Mean cosine over the k(k-1) ordered pairs of different rows of ``V`` (k, d): Ethayarajh's SelfSim."""
    k = V.shape[0]
    C = _pairwise_cos(V.double())
    return float(sum(C[i, j] for i in range(k) for j in range(k) if i != j) / (k * (k - 1)))


@checker("ex-survey41-selfsim")
def _check_survey41_selfsim(answer):
    """``answer``: a function ``V (k, d) tensor -> float``, the mean cosine between different occurrences;
    within 1e-6 of the truth on five hidden matrices (k = 2 to 30, with a shared offset)."""

    def with_diagonal(V):
        return float(_pairwise_cos(V).mean())

    def dots(V):
        k = V.shape[0]
        G = V @ V.T
        return float((G.sum() - G.trace()) / (k * (k - 1)))

    mistakes = {
        "you included each occurrence's similarity with itself (1); average over pairs of different occurrences.": with_diagonal,
        "cosines, not dot products: divide each vector by its norm first.": dots,
        "do not centre the vectors: SelfSim is on the raw vectors, and the anisotropy correction is a separate "
        "step (minus the layer's anisotropy).": lambda V: self_similarity_truth(V - V.mean(0)),
    }
    return judge_each_case(
        answer,
        [(V,) for V in _occurrence_matrices()],
        inputs=lambda c: (c[0].clone(),),
        truth=self_similarity_truth,
        mistakes=mistakes,
        ok="correct: 1 for a static embedding, lower the more each occurrence depends on its context.",
        not_yet="not quite: normalise the rows, take all cosines between different rows (i != j) and average them.",
    )


def mev_truth(V) -> float:
    """Ethayarajh's MEV of ``V`` (k, d), uncentred: the largest eigenvalue of VᵀV over its trace (= σ₁² / Σσᵢ²)."""
    import torch

    G = V.double().T @ V.double()
    return float(torch.linalg.eigvalsh(G)[-1] / G.trace())


@checker("ex-survey41-mev")
def _check_survey41_mev(answer):
    """``answer``: a function ``V (k, d) tensor -> float``, the share of variance of the uncentred occurrence
    matrix its first principal direction explains; within 1e-6 on five hidden matrices."""
    import torch

    def svals(V):
        return torch.linalg.svdvals(V.double())

    mistakes = {
        "Ethayarajh's MEV is on the uncentred matrix of occurrences (a static embedding is a vector, not a "
        "direction around the mean): do not subtract the mean.": lambda V: mev_truth(V - V.mean(0)),
        "variance goes with the square of the singular values: sigma_1^2 / sum sigma_i^2.": lambda V: float(
            svals(V)[0] / svals(V).sum()
        ),
        "that is the share the first direction does *not* explain.": lambda V: 1 - mev_truth(V),
    }
    return judge_each_case(
        answer,
        [(V,) for V in _occurrence_matrices()],
        inputs=lambda c: (c[0].clone(),),
        truth=mev_truth,
        mistakes=mistakes,
        ok="correct: near 1 when one static vector would do, low when contexts spread the occurrences.",
        not_yet="not quite: take the singular values of V (k, d) and return the first one's share of the energy.",
    )
