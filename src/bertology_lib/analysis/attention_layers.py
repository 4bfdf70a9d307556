"""In which layers does attention go to [CLS], [SEP] and punctuation? (Clark et al. 2019, Fig. 2)

Clark et al. find BERT-base attending heavily to [CLS] in the early layers, to [SEP] in the middle layers
and to periods and commas in the last layers. :func:`target_profiles` gives, per sentence and layer, the
share of attention (mean over heads and query tokens) that goes to each of the three targets;
:func:`layer_centres` turns them into each target's *centre layer* (the layer index averaged with the
attention share as weight) and :func:`order_interval` tests the ordering [CLS] < [SEP] < punctuation with
a bootstrap over sentences. Uses the roles of :func:`bertology_lib.analysis.attention.token_roles`. Used by
the survey §4.2 notebook.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

from bertology_lib.analysis.attention import token_roles
from bertology_lib.errors import ParameterError

TARGETS = ("cls", "sep", "punct")


def target_profiles(
    patterns: Sequence[Sequence[torch.Tensor]],
    tokens: Sequence[Sequence[str]],
    cls_token: str = "[CLS]",
    sep_token: str = "[SEP]",
) -> np.ndarray:
    """(sentences, layers, 3) array: per sentence and layer, the mean over heads and query tokens of the
    attention that goes to [CLS], [SEP] and punctuation (``patterns[layer][sentence]``: (heads, T, T))."""
    if not patterns or not tokens or len(patterns[0]) != len(tokens):
        raise ParameterError(
            f"{len(patterns)} layers of {len(patterns[0]) if patterns else 0} sentences for "
            f"{len(tokens)} token lists; allowed: patterns[layer][sentence] aligned with tokens"
        )
    roles = [token_roles(t, cls_token, sep_token) for t in tokens]
    out = np.zeros((len(tokens), len(patterns), len(TARGETS)))
    for L, per_sent in enumerate(patterns):
        for s, (a, r) in enumerate(zip(per_sent, roles)):
            a = a.double()
            for k, target in enumerate(TARGETS):
                out[s, L, k] = float(a[:, :, torch.as_tensor(r[target])].sum(-1).mean())  # boolean key mask
    return out


def layer_centres(profiles: np.ndarray, idx: Sequence[int] | None = None) -> np.ndarray:
    """(3,) centre layer of each target over the sentences ``idx`` (default all; repeats allowed): the layer
    index weighted by that layer's mean attention share to the target."""
    p = profiles if idx is None else profiles[np.asarray(idx)]
    mass = p.mean(0)  # (layers, 3)
    total = mass.sum(0)
    layers = np.arange(mass.shape[0])[:, None]
    with np.errstate(invalid="ignore", divide="ignore"):
        return (layers * mass).sum(0) / total


def order_gaps(profiles: np.ndarray, idx: Sequence[int] | None = None) -> tuple[float, float]:
    """(centre of [SEP] - centre of [CLS], centre of punctuation - centre of [SEP]) as shares of the depth
    (the centres divided by the last layer's index: 0 = first layer, 1 = last), so models of different depth
    compare."""
    c = layer_centres(profiles, idx) / max(profiles.shape[1] - 1, 1)
    return float(c[1] - c[0]), float(c[2] - c[1])


def order_interval(
    profiles: np.ndarray, n_resamples: int = 2000, seed: int = 0, confidence: float = 0.95
) -> tuple[float, float, float]:
    """(smaller of the two :func:`order_gaps`, low, high): positive when [CLS] < [SEP] < punctuation, with a
    percentile bootstrap over sentences. A model whose centres coincide (uniform attention) scores about 0, on
    either side by a hair: a rule on it needs a margin (the survey §4.2 claims ask for 0.05 of the depth)."""
    from bertology_lib import stats

    n = len(profiles)
    if n < 2:
        raise ParameterError(f"{n} sentence(s); allowed: at least 2")
    return stats.bootstrap_ci(
        np.arange(n),
        lambda idx: min(order_gaps(profiles, idx)),
        n_resamples=n_resamples,
        seed=seed,
        confidence=confidence,
    )
