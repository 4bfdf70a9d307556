"""Held out means held out: choose a probe's layer on validation items, score it once on test items.

A claim that reads "the best layer" off the test items picks the luckiest of many layers, and a null
model's luckiest layer can look like an effect. Here probes are trained on the training rows, the layer
is chosen by accuracy on the validation rows, and only then scored on the test rows, with the test
items' 0/1 correctness kept so that an interval can resample them (by sentence:
:func:`bertology_lib.stats.paired_gap`).

* :func:`sentence_split3`: train / validation / test rows by sentence, in sentence order.
* :func:`probe_predictions`: every layer's probe, correctness on the validation and test rows.
* :func:`majority_predictions`: the per-word majority baseline (word identity alone) in the same shape.
* :class:`LayerPredictions`: :meth:`~LayerPredictions.chosen_layer` on validation, test correctness there.
* :func:`chosen_depth`: where the chosen layer sits (layer / last layer), with an interval that chooses again
  on resampled validation sentences.

Used by :mod:`bertology_lib.analysis.word_probes` and the survey notebooks that probe layers.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Sequence

import numpy as np
import pandas as pd
import torch

from bertology_lib.analysis.probing import ProbeConfig, encode_labels, fit_probes, standardize
from bertology_lib.errors import ParameterError


@dataclass(frozen=True)
class Split:
    """Row indices of the training, validation and test sentences, and each row's sentence id."""

    train: np.ndarray
    val: np.ndarray
    test: np.ndarray
    groups: np.ndarray  # sentence id of every row of the table


def sentence_split3(table: pd.DataFrame, fractions: Sequence[float] = (0.6, 0.15, 0.25)) -> Split:
    """Split the rows of a word table by sentence, in sentence order: the first ``fractions[0]`` of the
    sentences train, the next ``fractions[1]`` validate, the rest test (so the test sentences are the
    same as a train/test split with the same test share)."""
    f = [float(x) for x in fractions]
    if len(f) != 3 or any(x <= 0 for x in f) or abs(sum(f) - 1) > 1e-9:
        raise ParameterError(
            f"fractions={tuple(fractions)!r} are not allowed; allowed: three positive shares "
            "(train, validation, test) that sum to 1"
        )
    sent = table["sentence"].to_numpy()
    n = int(sent.max()) + 1
    n_tr, n_val = int(round(f[0] * n)), int(round(f[1] * n))
    if n_tr < 1 or n_val < 1 or n - n_tr - n_val < 1:
        raise ParameterError(
            f"{n} sentences are too few for fractions {tuple(f)}; allowed: at least one sentence in each split"
        )
    return Split(
        np.flatnonzero(sent < n_tr),
        np.flatnonzero((sent >= n_tr) & (sent < n_tr + n_val)),
        np.flatnonzero(sent >= n_tr + n_val),
        sent,
    )


@dataclass(frozen=True)
class LayerPredictions:
    """0/1 correctness of one predictor per layer (``P`` layers; 1 for a baseline without layers) on the
    validation rows (``val``: (P, n_val)) and the test rows (``test``: (P, n_test)) of a :class:`Split`."""

    val: np.ndarray
    test: np.ndarray

    def chosen_layer(self, val_mask: np.ndarray | None = None) -> int:
        """The layer with the best validation accuracy (over ``val_mask`` rows; ties: the lowest layer)."""
        v = self.val if val_mask is None else self.val[:, val_mask]
        if v.shape[1] == 0:
            raise ParameterError("no validation rows to choose a layer on; allowed: a non-empty subset")
        return int(np.argmax(v.mean(1)))

    def val_accuracy(self, val_mask: np.ndarray | None = None) -> float:
        """Validation accuracy at the chosen layer."""
        v = self.val if val_mask is None else self.val[:, val_mask]
        return float(v[self.chosen_layer(val_mask)].mean())


def probe_predictions(
    X: torch.Tensor, labels: Sequence, split: Split, cfg: ProbeConfig | None = None
) -> LayerPredictions:
    """Train a probe per layer of ``X`` ((P, N, d), rows aligned with ``labels``) on ``split.train``; return
    each layer's correctness on the validation and test rows."""
    cfg = cfg or ProbeConfig()
    if X.dim() != 3 or X.shape[1] != len(labels):
        raise ParameterError(f"X has shape {tuple(X.shape)}; allowed: (n_layers+1, N={len(labels)}, d)")
    y, classes = encode_labels(labels)
    tr = torch.as_tensor(split.train, dtype=torch.long)
    Xs = standardize(X.float(), tr)
    probes = fit_probes(Xs, y, tr, len(classes), cfg)
    out = []
    with torch.no_grad():
        for rows in (split.val, split.test):
            r = torch.as_tensor(rows, dtype=torch.long)
            out.append((probes.scores(Xs[:, r]).argmax(1) == y[r]).numpy())
    return LayerPredictions(*out)


def majority_predictions(words: Sequence[str], labels: Sequence, split: Split) -> LayerPredictions:
    """Tag each word with its most frequent training label (unseen words: the overall most frequent one):
    what word identity alone predicts, as a one-layer :class:`LayerPredictions`."""
    per: dict[str, Counter] = defaultdict(Counter)
    overall: Counter = Counter()
    for i in split.train:
        per[words[i]][labels[i]] += 1
        overall[labels[i]] += 1
    default = overall.most_common(1)[0][0]

    def correct(rows: np.ndarray) -> np.ndarray:
        return np.array(
            [[(per[words[i]].most_common(1)[0][0] if words[i] in per else default) == labels[i] for i in rows]],
            dtype=bool,
        )

    return LayerPredictions(correct(split.val), correct(split.test))


def expected_layer(acc: np.ndarray) -> float:
    """Tenney et al. (2019)'s expected layer from per-layer scores (the running maximum stands in for their
    cumulative mix of layers; see :func:`bertology_lib.analysis.embeddings.centre_of_gravity`): Σ ℓ Δ(ℓ) / Σ Δ(ℓ)
    over ℓ ≥ 1, 0 when no layer improves on layer 0."""
    s = np.maximum.accumulate(np.asarray(acc, float))
    gain = np.diff(s)
    total = gain.sum()
    return float((np.arange(1, len(s)) * gain).sum() / total) if total > 0 else 0.0


def expected_layer_gap(
    a: np.ndarray, b: np.ndarray, groups: np.ndarray, n_resamples: int = 2000, seed: int = 0
) -> tuple[float, float, float]:
    """Expected layer of target ``a`` minus that of target ``b`` from 0/1 test correctness per layer ((P, n) each,
    the same test items), with a 95% interval resampling ``groups`` (e.g. sentences): (gap, low, high)."""
    if a.shape != b.shape or len(groups) != a.shape[1]:
        raise ParameterError(
            f"a {a.shape}, b {b.shape} and {len(groups)} groups differ; allowed: (P, n) each with one group per item"
        )
    _, inv = np.unique(np.asarray(groups), return_inverse=True)
    n_g = int(inv.max()) + 1
    sa = np.stack([np.bincount(inv, weights=r, minlength=n_g) for r in a.astype(float)])
    sb = np.stack([np.bincount(inv, weights=r, minlength=n_g) for r in b.astype(float)])
    cnt = np.bincount(inv, minlength=n_g).astype(float)

    def diff(pick: np.ndarray) -> float:
        n = cnt[pick].sum()
        return expected_layer(sa[:, pick].sum(1) / n) - expected_layer(sb[:, pick].sum(1) / n)

    rng = np.random.default_rng(seed)
    reps = [diff(rng.integers(0, n_g, n_g)) for _ in range(n_resamples)]
    low, high = np.quantile(reps, [0.025, 0.975])
    return diff(np.arange(n_g)), float(low), float(high)


def chosen_depth(
    p: LayerPredictions,
    val_groups: np.ndarray,
    val_mask: np.ndarray | None = None,
    n_resamples: int = 2000,
    seed: int = 0,
) -> dict[str, float]:
    """Where the layer chosen on validation sits in the network: its relative depth ℓ / L (0 = the embedding
    output, 1 = the last layer), with a 95% percentile interval that chooses the layer again on resampled
    validation sentences (``val_groups``: the sentence of each validation row; ``val_mask``: a subset of them).

    A noisy flat curve (a probe that finds nothing, or finds it everywhere) gives a wide interval: the choice
    is then not a location; an exactly flat one gives layer 0 (ties go to the lowest layer: nothing the later
    layers add). Returns ``depth``, ``low``, ``high`` (on the grid ℓ / L), ``layer``, ``n_layers``
    (L), ``val_accuracy`` (per layer) and ``n_val_sentences``."""
    v = p.val if val_mask is None else p.val[:, val_mask]
    g = np.asarray(val_groups) if val_mask is None else np.asarray(val_groups)[val_mask]
    if v.shape[0] < 2 or v.shape[1] == 0 or len(g) != v.shape[1]:
        raise ParameterError(
            f"validation correctness of shape {v.shape} with {len(g)} groups; allowed: at least "
            "2 layers, a non-empty subset, one group per validation row"
        )
    _, inv = np.unique(g, return_inverse=True)
    n_g = int(inv.max()) + 1
    sums = np.stack([np.bincount(inv, weights=r, minlength=n_g) for r in v.astype(float)])  # (P, n_groups)
    rng = np.random.default_rng(seed)
    counts = np.stack([np.bincount(rng.integers(0, n_g, n_g), minlength=n_g) for _ in range(n_resamples)])
    layers = np.argmax(counts @ sums.T, axis=1)  # (R,): the layer chosen in each resample (ties: the lowest)
    L = v.shape[0] - 1
    layer = p.chosen_layer(val_mask)
    return {
        "depth": layer / L,
        "low": float(np.quantile(layers, 0.025, method="lower")) / L,
        "high": float(np.quantile(layers, 0.975, method="higher")) / L,
        "layer": layer,
        "n_layers": L,
        "val_accuracy": [float(x) for x in v.mean(1)],
        "n_val_sentences": n_g,
    }
