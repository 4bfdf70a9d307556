"""Probing every layer of several models for word-level gold labels, on the same sentences and split.

:func:`probe_models` chains the library's pieces the same way for every survey notebook: the gold word
table (:func:`bertology_lib.data.word_labels.word_table`), one activation pass per model
(:func:`bertology_lib.analysis.activations.run_with_cache`), and all-layer linear probes trained
together (:func:`bertology_lib.analysis.probing.layer_report`). :func:`heldout_probes` does the same with a
train / validation / test split: layers chosen on validation, scored once on test, compared with baselines
(another model, the random-init twin, the per-word majority) with an interval over test sentences.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    import torch

from bertology_lib import stats
from bertology_lib.analysis import heldout, probing
from bertology_lib.analysis.activations import run_with_cache
from bertology_lib.data import word_labels
from bertology_lib.errors import ParameterError


def probe_models(
    models: dict[str, tuple],
    sentences,
    targets,
    train_frac: float = 0.75,
    probe_iter: int = 100,
    lowercase: bool = False,
    ambiguous_target: str | None = "upos",
    cache: bool = False,
) -> pd.DataFrame:
    """Probe every layer of each model for each target on the same sentences and split.

    ``models``: label -> (model, tokenizer). One activation pass per model
    (read from the artifact cache when ``cache``);
    probes for all layers trained together (:func:`probing.layer_report`).
    Adds an ``ambiguous`` subset (words seen with ≥ 2 tags of
    ``ambiguous_target`` in training) when asked.
    """
    table = word_labels.word_table(sentences, lowercase=lowercase)
    n_train = int(round(train_frac * len(sentences)))
    tr, te = word_labels.sentence_split(table, n_train)
    subsets = {}
    if ambiguous_target:
        subsets["ambiguous"] = word_labels.ambiguous_mask(table, tr, ambiguous_target)
    cfg = probing.ProbeConfig(max_iter=probe_iter)
    frames = []
    for label, (model, tok) in models.items():
        acts = run_with_cache(model, tok, [s.words for s in sentences], batch_size=64, cache=cache)
        frames.append(probing.layer_report(acts.resid, table, targets, tr, te, cfg, subsets=subsets, model_label=label))
    return pd.concat(frames, ignore_index=True)


def best_layer(report: pd.DataFrame, target: str, model: str, subset: str = "all") -> pd.Series:
    """The row of the best layer for one (target, model, subset)."""
    r = report[(report.target == target) & (report.model == model) & (report.subset == subset)]
    if r.empty:
        raise ParameterError(
            f"no rows for target={target!r}, model={model!r}, subset={subset!r}; allowed: "
            f"targets {sorted(set(report.target))}, models {sorted(set(report.model))}"
        )
    return r.loc[r.accuracy.idxmax()]


MAJORITY = "per-word majority"


@dataclass
class HeldOutProbes:
    """Layer probes of several models on one train / validation / test split (:func:`heldout_probes`).

    ``predictions[(model, target)]`` and ``majority[target]`` hold 0/1 correctness on the validation and
    test rows; ``subsets`` maps a name (``all``, ``ambiguous``) to a boolean mask over the table's rows."""

    table: pd.DataFrame
    split: heldout.Split
    subsets: dict[str, np.ndarray]
    predictions: dict[tuple[str, str], heldout.LayerPredictions]
    majority: dict[str, heldout.LayerPredictions]
    probe: str = "linear"

    def _masks(self, subset: str) -> tuple[np.ndarray, np.ndarray]:
        if subset not in self.subsets:
            raise ParameterError(f"subset={subset!r} is unknown; allowed: {', '.join(self.subsets)}")
        m = self.subsets[subset]
        return m[self.split.val], m[self.split.test]

    def _get(self, model: str, target: str) -> heldout.LayerPredictions:
        if model == MAJORITY:
            return self.majority[target]
        if (model, target) not in self.predictions:
            models = sorted({m for m, _ in self.predictions})
            targets = sorted({t for _, t in self.predictions})
            raise ParameterError(
                f"no probes for model={model!r}, target={target!r}; allowed: models "
                f"{models + [MAJORITY]}, targets {targets}"
            )
        return self.predictions[(model, target)]

    def report(self) -> pd.DataFrame:
        """One row per (model, target, subset, layer): test ``accuracy``, ``val_accuracy``, the per-word
        ``majority`` on the same test rows, ``n_test`` and whether the layer is the one ``chosen`` on
        validation."""
        rows = []
        for (model, target), p in self.predictions.items():
            for subset in self.subsets:
                vm, tm = self._masks(subset)
                if not tm.any() or not vm.any():
                    continue
                chosen = p.chosen_layer(vm)
                maj = float(self.majority[target].test[0, tm].mean())
                for layer in range(p.test.shape[0]):
                    rows.append(
                        {
                            "target": target,
                            "subset": subset,
                            "layer": layer,
                            "model": model,
                            "accuracy": float(p.test[layer, tm].mean()),
                            "val_accuracy": float(p.val[layer, vm].mean()),
                            "majority": maj,
                            "n_test": int(tm.sum()),
                            "chosen": layer == chosen,
                            "probe": self.probe,
                        }
                    )
        return pd.DataFrame(rows)

    def gap(
        self,
        model: str,
        target: str,
        against: Sequence[str],
        subset: str = "all",
        seed: int = 0,
        n_resamples: int = 2000,
    ) -> dict[str, Any]:
        """``model``'s test accuracy at its validation-chosen layer minus the strongest of the ``against``
        baselines (model labels or :data:`MAJORITY`; strongest = best validation accuracy, each at its own
        validation-chosen layer), with a 95% interval resampling test sentences.

        Returns ``gap``, ``low``, ``high``, ``layer``, ``accuracy``, ``baseline`` (its name),
        ``baseline_layer``, ``baseline_accuracy`` and ``n_test``."""
        if not against:
            raise ParameterError(f"against is empty; allowed: one or more baselines (model labels or {MAJORITY!r})")
        vm, tm = self._masks(subset)
        p = self._get(model, target)
        layer = p.chosen_layer(vm)
        base = max(against, key=lambda b: self._get(b, target).val_accuracy(vm))
        bp = self._get(base, target)
        b_layer = bp.chosen_layer(vm)
        a, b = p.test[layer, tm], bp.test[b_layer, tm]
        g, low, high = stats.paired_gap(a, b, self.split.groups[self.split.test][tm], n_resamples, seed)
        return {
            "gap": g,
            "low": low,
            "high": high,
            "layer": layer,
            "accuracy": float(a.mean()),
            "baseline": base,
            "baseline_layer": b_layer,
            "baseline_accuracy": float(b.mean()),
            "n_test": int(tm.sum()),
        }

    def chosen_depth(
        self, model: str, target: str, subset: str = "all", seed: int = 0, n_resamples: int = 2000
    ) -> dict[str, Any]:
        """Relative depth (layer / last layer) of ``model``'s layer chosen on validation for ``target``, with a
        95% interval choosing it again on resampled validation sentences
        (:func:`bertology_lib.analysis.heldout.chosen_depth`)."""
        vm, _ = self._masks(subset)
        return heldout.chosen_depth(self._get(model, target), self.split.groups[self.split.val], vm, n_resamples, seed)

    def transfer_gap(
        self, model: str, targets: Sequence[str], seed: int = 0, n_resamples: int = 2000
    ) -> dict[str, Any]:
        """Do the middle layers serve many tasks best (Liu et al. 2019)? Per word, the share of ``targets`` the
        layer probes get right; the inner layer (not the embedding output, not the last layer) with the best
        validation mean, minus the better end (embedding output or last layer, also chosen on validation), on
        the test words, with a 95% interval resampling test sentences.

        Returns ``gap``, ``low``, ``high``, ``layer``, ``end_layer``, ``n_layers`` (the last layer's index),
        ``by_layer`` (test mean per layer) and ``n_test``."""
        if not targets:
            raise ParameterError("targets is empty; allowed: one or more probed targets")
        preds = [self._get(model, t) for t in targets]
        val = np.mean([p.val.astype(float) for p in preds], axis=0)
        test = np.mean([p.test.astype(float) for p in preds], axis=0)
        last = val.shape[0] - 1
        if last < 2:
            raise ParameterError(f"{model!r} has {last + 1} probed layers; allowed: at least 3 (an inner layer)")
        layer = 1 + int(np.argmax(val[1:last].mean(1)))
        end = 0 if val[0].mean() >= val[last].mean() else last
        g, low, high = stats.paired_gap(test[layer], test[end], self.split.groups[self.split.test], n_resamples, seed)
        return {
            "gap": g,
            "low": low,
            "high": high,
            "layer": layer,
            "end_layer": end,
            "n_layers": last,
            "by_layer": test.mean(1).round(3).tolist(),
            "n_test": int(test.shape[1]),
        }


def probes_from_states(
    states: dict[str, "torch.Tensor"],
    table: pd.DataFrame,
    targets: Sequence[str],
    fractions: Sequence[float] = (0.6, 0.15, 0.25),
    probe_iter: int = 100,
    ambiguous_target: str | None = "upos",
) -> HeldOutProbes:
    """:func:`heldout_probes` from cached states: ``states`` maps a model label to (n_layers + 1, N, d) word
    states aligned with the rows of ``table`` (a :func:`~bertology_lib.data.word_labels.word_table`, possibly
    with extra target columns)."""
    split = heldout.sentence_split3(table, fractions)
    subsets = {"all": np.ones(len(table), bool)}
    if ambiguous_target:
        subsets["ambiguous"] = word_labels.ambiguous_mask(table, split.train, ambiguous_target)
    cfg = probing.ProbeConfig(max_iter=probe_iter)
    words = table["word"].tolist()
    majority = {t: heldout.majority_predictions(words, table[t].tolist(), split) for t in targets}
    preds = {
        (label, t): heldout.probe_predictions(X, table[t].tolist(), split, cfg)
        for label, X in states.items()
        for t in targets
    }
    return HeldOutProbes(table, split, subsets, preds, majority, cfg.kind)


def heldout_probes(
    models: dict[str, tuple],
    sentences,
    targets: Sequence[str],
    fractions: Sequence[float] = (0.6, 0.15, 0.25),
    probe_iter: int = 100,
    lowercase: bool = False,
    ambiguous_target: str | None = "upos",
    cache: bool = False,
) -> HeldOutProbes:
    """Probe every layer of each model for each target with a train / validation / test split by sentence
    (:func:`bertology_lib.analysis.heldout.sentence_split3`): one activation pass per model, probes for all
    layers trained together on the training sentences; adds an ``ambiguous`` subset (words seen with ≥ 2
    values of ``ambiguous_target`` in training) when asked. Choose layers and compare models with
    :meth:`HeldOutProbes.gap`."""
    table = word_labels.word_table(sentences, lowercase=lowercase)
    states = {
        label: run_with_cache(model, tok, [s.words for s in sentences], batch_size=64, cache=cache).resid
        for label, (model, tok) in models.items()
    }
    return probes_from_states(states, table, targets, fractions, probe_iter, ambiguous_target)
