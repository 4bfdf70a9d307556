"""Where knowledge lives, the survey's §4.1 (Rogers et al. 2020): embedding claims measured against null models.

Each function returns the numbers a registered claim of ``survey_04_1_embeddings`` needs, with 95% intervals,
so that a model that learned nothing cannot pass:

* :func:`geometry_claims`: Ethayarajh (2019)'s anisotropy, its growth with depth, context-specificity
  (anisotropy-corrected self-similarity) and static MEV of a model, each against the same measure of its
  random-init twin on the same words (word pairs and word types resampled).
* :func:`sense_heldout`: do a word's vectors separate its senses? Centroids from training sentences, the
  layer chosen on validation sentences, scored on test sentences against the stronger of the twin and the
  majority sense (Wiedemann et al. 2019).
* :func:`pooling_heldout`: [CLS] vs mean pooling (Reimers & Gurevych 2019) with each layer chosen on
  validation sentences, paired on test sentences, and the model against its twin (the instrument check).

The §4.2 attention claims use :mod:`bertology_lib.analysis.attention_heldout` directly.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd
import torch

from bertology_lib import stats
from bertology_lib.analysis import embeddings as emb
from bertology_lib.analysis.heldout import Split, probe_predictions
from bertology_lib.analysis.probing import ProbeConfig
from bertology_lib.errors import ParameterError


def _interval(values: Sequence[float]) -> tuple[float, float]:
    v = np.asarray(values, dtype=float)
    return float(np.quantile(v, 0.025)), float(np.quantile(v, 0.975))


def geometry_claims(
    X: torch.Tensor,
    X_twin: torch.Tensor,
    words: Sequence[str],
    sentence_ids: Sequence[int],
    min_count: int = 5,
    n_pairs: int = 2000,
    max_occurrences: int | None = 100,
    seed: int = 0,
    n_resamples: int = 1000,
) -> dict:
    """Ethayarajh's measures of a model (``X``) against its random-init twin (``X_twin``, the same rows), each
    ``(estimate, low, high)`` with a percentile-bootstrap interval that resamples the word pairs of the
    anisotropy and the word types of self-similarity and MEV (the same draws for both models):

    * ``anisotropy``: the smallest, over contextual layers (1..last), of model minus twin mean cosine;
    * ``anisotropy_grows``: (last minus first contextual layer) of the model minus the same of the twin;
    * ``context_specific``: the drop of anisotropy-corrected self-similarity from the first contextual layer
      to the last, model minus twin;
    * ``static_mev`` and ``static_mev_twin``: corrected MEV (minus random rows), mean over contextual layers;
    * ``layer0_mev``: corrected MEV of the embedding layer (a static embedding: the positive control).

    ``by_layer``: a DataFrame of the per-layer values of both models; ``n_pairs``, ``n_types``."""
    if X.shape[:2] != X_twin.shape[:2]:
        raise ParameterError(f"X {tuple(X.shape)} and X_twin {tuple(X_twin.shape)} must hold the same layers and rows")
    P = X.shape[0]
    if P < 3:
        raise ParameterError(f"X has {P} layers; allowed: an embedding layer and at least two contextual layers")
    C = [emb.pair_cosines(x, sentence_ids, n_pairs, seed) for x in (X, X_twin)]  # (P, n) each
    S = [emb.self_similarity_by_type(x, words, min_count, max_occurrences, seed)[0] for x in (X, X_twin)]
    M = [np.subtract(*emb.mev_by_type(x, words, min_count, max_occurrences, seed)) for x in (X, X_twin)]
    first, last = 1, P - 1

    def measures(pi: np.ndarray, ti: np.ndarray) -> dict[str, float]:
        a = [c[:, pi].mean(-1) for c in C]  # (P,) anisotropy of each model
        drop = [(s[first, ti] - s[last, ti]).mean() - (ai[first] - ai[last]) for s, ai in zip(S, a)]
        mev = [m[first:, ti].mean() for m in M]
        return {
            "anisotropy": float((a[0] - a[1])[first:].min()),
            "anisotropy_grows": float((a[0][last] - a[0][first]) - (a[1][last] - a[1][first])),
            "context_specific": float(drop[0] - drop[1]),
            "static_mev": float(mev[0]),
            "static_mev_twin": float(mev[1]),
            "layer0_mev": float(M[0][0, ti].mean()),
        }

    n_p, n_t = C[0].shape[1], S[0].shape[1]
    point = measures(np.arange(n_p), np.arange(n_t))
    rng = np.random.default_rng(seed)
    reps = [measures(rng.integers(0, n_p, n_p), rng.integers(0, n_t, n_t)) for _ in range(n_resamples)]
    out: dict = {k: (v, *_interval([r[k] for r in reps])) for k, v in point.items()}
    out["by_layer"] = pd.DataFrame(
        {
            "layer": range(P),
            "anisotropy": C[0].mean(-1),
            "anisotropy_twin": C[1].mean(-1),
            "self_similarity_adj": S[0].mean(-1) - C[0].mean(-1),
            "self_similarity_adj_twin": S[1].mean(-1) - C[1].mean(-1),
            "mev_adj": M[0].mean(-1),
            "mev_adj_twin": M[1].mean(-1),
        }
    )
    out["n_pairs"], out["n_types"] = int(n_p), int(n_t)
    return out


def _nearest_centroid(X: torch.Tensor, y: np.ndarray, train: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """(P, len(rows)) correctness of nearest-centroid predictions from the ``train`` rows, per layer."""
    classes = sorted(set(y[train]))
    Xd = X.double()
    C = torch.stack([Xd[:, train[y[train] == c]].mean(1) for c in classes], 1)  # (P, n_classes, d)
    pred = torch.cdist(Xd[:, rows], C).argmin(-1).numpy()
    return np.asarray(classes)[pred] == y[rows][None, :]


def sense_heldout(
    X: torch.Tensor,
    X_twin: torch.Tensor,
    words: Sequence[str],
    senses: Sequence,
    sentence_ids: Sequence[int],
    n_words: int = 5,
    min_per_sense: int = 5,
    fractions: Sequence[float] = (0.6, 0.15, 0.25),
    seed: int = 0,
    n_resamples: int = 2000,
) -> tuple[pd.DataFrame, dict]:
    """Sense clusters, held out: for the ``n_words`` most balanced ambiguous words
    (:func:`~bertology_lib.analysis.embeddings.ambiguous_words`), nearest-centroid sense predictions with
    centroids from the first ``fractions[0]`` of the sentences, the layer chosen on the next ``fractions[1]``
    and scored on the rest; the baseline of each word is the stronger on validation of the random-init
    twin (same procedure) and the training majority sense. Returns one row per word and the test accuracy
    gap over all test occurrences, with an interval resampling sentences (``gap``, ``low``, ``high``,
    ``accuracy``, ``baseline_accuracy``, ``n_test``, ``n_words``)."""
    words, senses = list(words), np.asarray([str(s) for s in senses])
    sid = np.asarray(sentence_ids)
    f = np.cumsum([float(x) for x in fractions])
    n_s = int(sid.max()) + 1
    cut1, cut2 = int(round(f[0] * n_s)), int(round(f[1] * n_s))
    amb = emb.ambiguous_words(words, senses, min_per_sense).head(n_words)
    rows, ours, base, groups = [], [], [], []
    for w, ss in zip(amb.word, amb.senses):
        keep = set(ss.split("/"))
        idx = np.array([i for i, v in enumerate(words) if v == w and senses[i] in keep])
        tr, va, te = idx[sid[idx] < cut1], idx[(sid[idx] >= cut1) & (sid[idx] < cut2)], idx[sid[idx] >= cut2]
        if len(set(senses[tr])) < 2 or len(va) == 0 or len(te) == 0:
            continue
        m_val, t_val = (_nearest_centroid(x, senses, tr, va).mean(1) for x in (X, X_twin))
        L, tL = int(np.argmax(m_val)), int(np.argmax(t_val))
        majority = pd.Series(senses[tr]).value_counts().index[0]
        maj_val = float((senses[va] == majority).mean())
        use_twin = t_val[tL] > maj_val
        c = _nearest_centroid(X[L : L + 1], senses, tr, te)[0]
        b = _nearest_centroid(X_twin[tL : tL + 1], senses, tr, te)[0] if use_twin else senses[te] == majority
        rows.append(
            {
                "word": w,
                "senses": ss,
                "n_test": len(te),
                "layer": L,
                "accuracy": float(c.mean()),
                "baseline": f"twin layer {tL}" if use_twin else "majority sense",
                "baseline_accuracy": float(b.mean()),
                "gain": float(c.mean() - b.mean()),
            }
        )
        ours.append(c)
        base.append(b)
        groups.append(sid[te])
    table = pd.DataFrame(
        rows, columns=["word", "senses", "n_test", "layer", "accuracy", "baseline", "baseline_accuracy", "gain"]
    )
    if not rows:
        return table, {"gap": float("nan"), "low": float("nan"), "high": float("nan"), "n_test": 0, "n_words": 0}
    a, b = np.concatenate(ours), np.concatenate(base)
    gap, low, high = stats.paired_gap(a, b, np.concatenate(groups), n_resamples, seed)
    return table, {
        "gap": gap,
        "low": low,
        "high": high,
        "accuracy": float(a.mean()),
        "baseline_accuracy": float(b.mean()),
        "n_test": int(len(a)),
        "n_words": len(rows),
    }


def pooling_heldout(
    states: dict[str, torch.Tensor],
    twin_states: dict[str, torch.Tensor],
    labels: Sequence,
    train: Sequence[int],
    val: Sequence[int],
    test: Sequence[int],
    cfg: ProbeConfig | None = None,
    concat_last: int = 4,
    seed: int = 0,
    n_resamples: int = 2000,
) -> tuple[pd.DataFrame, dict]:
    """[CLS] vs mean pooling, held out: a linear probe per layer trained on ``train``, each pooling's layer
    chosen on ``val``, both scored on the same ``test`` sentences.

    ``states``/``twin_states``: :func:`~bertology_lib.analysis.embeddings.sentence_states` of the model and
    its random-init twin. Returns one row per (model, pooling, layer) with ``val_acc``, ``test_acc`` and
    ``chosen`` (plus the last ``concat_last`` mean-pooled layers side by side, as Devlin et al. do), and a
    dict: ``gap``/``low``/``high`` of mean minus [CLS] (paired by test sentence), ``cls``/``mean`` test
    accuracies and layers, and ``vs_twin``: the model's mean pooling minus the twin's better pooling
    (chosen on validation), ``(gap, low, high)``."""
    split = Split(np.asarray(train), np.asarray(val), np.asarray(test), np.arange(len(labels)))
    frames, chosen = [], {}
    for who, st in (("model", states), ("twin", twin_states)):
        n = st["mean"].shape[0]
        last = list(range(max(1, n - concat_last), n))
        for name, X in (
            ("cls", st["cls"]),
            ("mean", st["mean"]),
            (f"concat last {len(last)} (mean)", emb.concat_layers(st["mean"], last)),
        ):
            p = probe_predictions(X, list(labels), split, cfg)
            L = p.chosen_layer()
            chosen[(who, name)] = (p.val[L].mean(), L, p.test[L])
            frames.append(
                pd.DataFrame(
                    {
                        "model": who,
                        "pooling": name,
                        "layer": range(p.val.shape[0]) if X.shape[0] > 1 else [n - 1],
                        "val_acc": p.val.mean(1),
                        "test_acc": p.test.mean(1),
                        "chosen": [i == L for i in range(p.val.shape[0])],
                    }
                )
            )
    (_, L_cls, c_cls), (_, L_mean, c_mean) = chosen[("model", "cls")], chosen[("model", "mean")]
    gap, low, high = stats.paired_gap(c_mean, c_cls, None, n_resamples, seed)
    twin_best = max((chosen[("twin", k)] for k in ("cls", "mean")), key=lambda v: v[0])
    vs_twin = stats.paired_gap(c_mean, twin_best[2], None, n_resamples, seed)
    return pd.concat(frames, ignore_index=True), {
        "gap": gap,
        "low": low,
        "high": high,
        "cls": float(c_cls.mean()),
        "cls_layer": L_cls,
        "mean": float(c_mean.mean()),
        "mean_layer": L_mean,
        "twin": float(twin_best[2].mean()),
        "vs_twin": vs_twin,
        "n_test": int(len(c_cls)),
    }
