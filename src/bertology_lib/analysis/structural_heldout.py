"""The structural probe held out: layer chosen on validation sentences, UUAS scored once on test sentences,
sentence by sentence so that intervals can resample sentences.

:func:`distance_study` fits Hewitt & Manning's distance probe on every layer of one or more models' states
(trained together, :func:`bertology_lib.analysis.structural_probe.fit_structural_probe`) and keeps, per
sentence, how many gold edges each layer's minimum spanning tree recovers; :class:`DistanceStudy` compares a
model's validation-chosen layer with the stronger of its baselines (another model, e.g. the random-init twin,
and the right-branching tree) and with its own first and last layers. Used by the survey §4.3 notebook.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
import torch

from bertology_lib.analysis import structural_probe as sp
from bertology_lib.errors import ParameterError

RIGHT_BRANCHING = "right-branching"


@dataclass
class DistanceStudy:
    """Per-sentence gold edges recovered by each model's layers (``hits[model]``: (P, n_sentences)) on the
    validation (``val``) and test (``test``) sentences, the gold edge counts, and the right-branching tree's
    hits (a one-layer baseline named :data:`RIGHT_BRANCHING`)."""

    val_hits: dict[str, np.ndarray]
    test_hits: dict[str, np.ndarray]
    val_total: np.ndarray
    test_total: np.ndarray

    def _hits(self, model: str) -> tuple[np.ndarray, np.ndarray]:
        if model not in self.val_hits:
            raise ParameterError(f"model={model!r} is unknown; allowed: {', '.join(self.val_hits)}")
        return self.val_hits[model], self.test_hits[model]

    def chosen_layer(self, model: str) -> int:
        """The layer with the best validation UUAS."""
        return int(np.argmax(self._hits(model)[0].sum(1)))

    def uuas(self, model: str, layer: int | None = None) -> float:
        """Test UUAS of ``model`` at ``layer`` (default: its validation-chosen layer)."""
        layer = self.chosen_layer(model) if layer is None else layer
        return float(self._hits(model)[1][layer].sum() / self.test_total.sum())

    def _interval(self, diff_hits: np.ndarray, n_resamples: int, seed: int) -> tuple[float, float, float]:
        """UUAS difference from per-sentence hit differences (k, n): the minimum over the k rows."""
        n = diff_hits.shape[1]
        est = float((diff_hits.sum(1) / self.test_total.sum()).min())
        rng = np.random.default_rng(seed)
        picks = rng.integers(0, n, size=(n_resamples, n))
        reps = (diff_hits[:, picks].sum(2) / self.test_total[picks].sum(1)).min(0)
        low, high = np.quantile(reps, [0.025, 0.975])
        return est, float(low), float(high)

    def gap(self, model: str, against: Sequence[str], n_resamples: int = 2000, seed: int = 0) -> dict[str, Any]:
        """Test UUAS of ``model`` (validation-chosen layer) minus the stronger on validation of ``against``
        (model names or :data:`RIGHT_BRANCHING`), with a 95% interval resampling test sentences."""
        layer = self.chosen_layer(model)
        base = max(against, key=lambda b: self._hits(b)[0][self.chosen_layer(b)].sum())
        b_layer = self.chosen_layer(base)
        d = (self._hits(model)[1][layer] - self._hits(base)[1][b_layer])[None]
        est, low, high = self._interval(d, n_resamples, seed)
        return {
            "gap": est,
            "low": low,
            "high": high,
            "layer": layer,
            "uuas": self.uuas(model, layer),
            "baseline": base,
            "baseline_layer": b_layer,
            "baseline_uuas": self.uuas(base, b_layer),
            "n_test_sentences": len(self.test_total),
        }

    def middle(self, model: str, n_resamples: int = 2000, seed: int = 0) -> dict[str, Any]:
        """Is the validation-chosen layer better than both the first (embedding) and the last layer on test?
        The smaller of the two UUAS differences, with a 95% interval resampling test sentences (it is 0 when
        the chosen layer is an end layer)."""
        layer = self.chosen_layer(model)
        t = self._hits(model)[1]
        d = np.stack([t[layer] - t[0], t[layer] - t[-1]])
        est, low, high = self._interval(d, n_resamples, seed)
        return {
            "gap": est,
            "low": low,
            "high": high,
            "layer": layer,
            "n_layers": t.shape[0] - 1,
            "relative_depth": layer / max(t.shape[0] - 1, 1),
        }


def _sentence_hits(preds: Sequence[np.ndarray], heads, keeps) -> tuple[np.ndarray, np.ndarray]:
    P = preds[0].shape[0]
    hits, totals = np.zeros((P, len(preds))), np.zeros(len(preds))
    for s, (pred, hs, keep) in enumerate(zip(preds, heads, keeps)):
        g = sp.gold_edges(hs, keep)
        totals[s] = len(g)
        for p in range(P):
            hits[p, s] = len(sp.mst_edges(pred[p], keep) & g)
    return hits, totals


def distance_study(
    states: dict[str, torch.Tensor],
    offsets: Sequence[int],
    sentences: Sequence,
    train: Sequence[int],
    val: Sequence[int],
    test: Sequence[int],
    cfg: sp.StructuralProbeConfig | None = None,
    exclude_punct: bool = True,
) -> DistanceStudy:
    """Fit a distance probe per layer of every model in ``states`` (label -> (n_layers + 1, N, d) states of the
    same words, aligned with ``offsets``) on the ``train`` sentences; count recovered gold edges per
    ``val`` and ``test`` sentence, and the right-branching tree's."""
    cfg = cfg or sp.StructuralProbeConfig()
    if not len(val) or not len(test):
        raise ParameterError("val and test must be non-empty; allowed: sentence indices")
    sizes = {label: x.shape[0] for label, x in states.items()}
    stacked = torch.cat([x.float() for x in states.values()])
    heads = [list(s.heads) for s in sentences]
    keeps = [sp.punct_mask(s) if exclude_punct else np.ones(len(s.heads), bool) for s in sentences]
    probe = sp.fit_structural_probe(stacked, offsets, heads, list(train), "distance", cfg)
    out: dict[str, dict[str, np.ndarray]] = {"val": {}, "test": {}}
    totals = {}
    for name, rows in (("val", list(val)), ("test", list(test))):
        preds = sp.predict(probe, stacked, offsets, rows, "distance")
        hits, totals[name] = _sentence_hits(preds, [heads[s] for s in rows], [keeps[s] for s in rows])
        start = 0
        for label, n in sizes.items():
            out[name][label] = hits[start : start + n]
            start += n
        rb = [
            {e for e in sp.right_branching_edges(len(heads[s]), keeps[s]) if e in sp.gold_edges(heads[s], keeps[s])}
            for s in rows
        ]
        out[name][RIGHT_BRANCHING] = np.array([[len(e) for e in rb]], float)
    return DistanceStudy(out["val"], out["test"], totals["val"], totals["test"])
