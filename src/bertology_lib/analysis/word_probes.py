"""Probing every layer of several models for word-level gold labels, on the same sentences and split.

:func:`probe_models` chains the library's pieces the same way for every survey notebook: the gold word
table (:func:`bertology_lib.data.word_labels.word_table`), one activation pass per model
(:func:`bertology_lib.analysis.activations.run_with_cache`), and all-layer linear probes trained
together (:func:`bertology_lib.analysis.probing.layer_report`).
"""

from __future__ import annotations

import pandas as pd

from bertology_lib.analysis import probing
from bertology_lib.analysis.activations import run_with_cache
from bertology_lib.data import word_labels
from bertology_lib.errors import ParameterError


def probe_models(models: dict[str, tuple], sentences, targets, train_frac: float = 0.75,
                 probe_iter: int = 100, lowercase: bool = False,
                 ambiguous_target: str | None = "upos", cache: bool = False) -> pd.DataFrame:
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
        frames.append(probing.layer_report(acts.resid, table, targets, tr, te, cfg,
                                           subsets=subsets, model_label=label))
    return pd.concat(frames, ignore_index=True)


def best_layer(report: pd.DataFrame, target: str, model: str, subset: str = "all") -> pd.Series:
    """The row of the best layer for one (target, model, subset)."""
    r = report[(report.target == target) & (report.model == model) & (report.subset == subset)]
    if r.empty:
        raise ParameterError(f"no rows for target={target!r}, model={model!r}, subset={subset!r}; allowed: "
                             f"targets {sorted(set(report.target))}, models {sorted(set(report.model))}")
    return r.loc[r.accuracy.idxmax()]
