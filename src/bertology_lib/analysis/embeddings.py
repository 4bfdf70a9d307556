"""The geometry of contextual embeddings, layer by layer (Ethayarajh 2019 and friends).

Inputs are word-level states ``X`` of shape (n_layers + 1, N, d) — layer 0
is the embedding output — from one activation pass
(:func:`bertology_lib.analysis.activations.run_with_cache`), with each row's word
(``words``) and sentence (``sentence_ids``), e.g. the ``word`` and
``sentence`` columns of :func:`bertology_lib.data.word_labels.word_table`.

============================  ==============================================================
:func:`anisotropy`            mean cosine of random word pairs from different sentences
                              (:func:`pair_cosines`: each pair's cosine)
:func:`self_similarity`       mean cosine between occurrences of the same word type
                              (:func:`self_similarity_by_type`: per type)
:func:`intra_similarity`      mean cosine of a sentence's words with the sentence's mean
:func:`mev`                   share of a word's variance its first principal direction
                              (a static embedding) explains, and the same for random rows
                              (:func:`mev_by_type`: per type)
:func:`contextuality`         all of the above per layer, with anisotropy-corrected columns
:func:`position_labels`       word position as a probing target (Lin et al. 2019)
:func:`sentence_states`       [CLS] and mean-pooled sentence vectors of every layer
:func:`pooling_comparison`    probe [CLS] vs mean pooling vs concatenated last layers
:func:`ambiguous_words`       words seen with two or more senses (e.g. UPOS), most balanced first
:func:`sense_separability`    do a word's senses form separable clusters (cross-validated)
:func:`sense_report`          the same for the most balanced ambiguous words
:func:`pca_2d`                a 2-D projection for the figure
:func:`centre_of_gravity`     Tenney et al. (2019)'s expected layer of each probing target
============================  ==============================================================

Everything but :func:`sentence_states` is pure. Used by the survey §4.1
(``survey_04_1_embeddings``) and §4.3 (``survey_04_3_layers``) notebooks.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd
import torch

from bertology_lib.analysis.probing import probe_sweep
from bertology_lib.errors import ParameterError


def _check(X: torch.Tensor, n: int, what: str) -> None:
    if X.dim() != 3 or X.shape[1] != n:
        raise ParameterError(f"X has shape {tuple(X.shape)}; expected (n_layers+1, N={n}, d) aligned with {what}")


def _unit(X: torch.Tensor) -> torch.Tensor:
    X = X.double()
    return X / X.norm(dim=-1, keepdim=True).clamp_min(1e-12)


def type_index(
    words: Sequence[str],
    min_count: int,
    max_occurrences: int | None,
    seed: int = 0,
    rng: np.random.Generator | None = None,
) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """The word types a per-type statistic reads: (rows, type index of each row, type names).

    Types (sorted) with at least ``min_count`` rows; a type with more than ``max_occurrences`` keeps that many,
    sampled without replacement by ``rng`` (a new generator from ``seed`` when None; pass one to go on drawing
    from it afterwards, as Ethayarajh's code does).
    """
    rng = np.random.default_rng(seed) if rng is None else rng
    by_type: dict[str, list[int]] = {}
    for i, w in enumerate(words):
        by_type.setdefault(w, []).append(i)
    rows, idx, names = [], [], []
    for w in sorted(by_type):
        r = by_type[w]
        if len(r) < min_count:
            continue
        if max_occurrences is not None and len(r) > max_occurrences:
            r = sorted(rng.choice(r, size=max_occurrences, replace=False).tolist())
        rows.extend(r)
        idx.extend([len(names)] * len(r))
        names.append(w)
    return np.asarray(rows, dtype=int), np.asarray(idx, dtype=int), names


def pair_cosines(X: torch.Tensor, sentence_ids: Sequence[int], n_pairs: int = 2000, seed: int = 0) -> np.ndarray:
    """(n_layers + 1, n_pairs): the cosine of ``n_pairs`` random word pairs from different sentences, the same
    pairs at every layer (and for any ``X`` of the same rows: a model and its random-init twin are paired)."""
    sid = np.asarray(sentence_ids)
    _check(X, len(sid), "sentence_ids")
    rng = np.random.default_rng(seed)
    i = rng.integers(0, len(sid), size=4 * n_pairs)
    j = rng.integers(0, len(sid), size=4 * n_pairs)
    keep = sid[i] != sid[j]
    i, j = i[keep][:n_pairs], j[keep][:n_pairs]
    if len(i) == 0:
        raise ParameterError("need words from at least two sentences to pair them")
    U = _unit(X)
    return (U[:, i] * U[:, j]).sum(-1).numpy()


def anisotropy(X: torch.Tensor, sentence_ids: Sequence[int], n_pairs: int = 2000, seed: int = 0) -> np.ndarray:
    """Per layer: mean cosine similarity of ``n_pairs`` random word pairs from different sentences.

    The baseline of Ethayarajh (2019, §3.3): if it is high, every
    representation points in roughly the same direction and raw
    similarities mean little. The same pairs are used at every layer
    (:func:`pair_cosines`).
    """
    return pair_cosines(X, sentence_ids, n_pairs, seed).mean(-1)


def self_similarity_by_type(
    X: torch.Tensor, words: Sequence[str], min_count: int = 5, max_occurrences: int | None = 100, seed: int = 0
) -> tuple[np.ndarray, list[str]]:
    """(n_layers + 1, n_types): each word type's mean pairwise cosine of its occurrences (types with at least
    ``min_count`` rows, at most ``max_occurrences`` sampled with ``seed``), and the types' names."""
    _check(X, len(words), "words")
    rows, idx, names = type_index(words, min_count, max_occurrences, seed)
    if not names:
        raise ParameterError(f"no word type occurs {min_count} times or more; lower min_count")
    U = _unit(X[:, rows])  # (P, n, d)
    S = torch.zeros(U.shape[0], len(names), U.shape[-1], dtype=U.dtype).index_add_(1, torch.as_tensor(idx), U)
    k = torch.as_tensor(np.bincount(idx), dtype=U.dtype)
    # Σ_{i≠j} cos(u_i, u_j) = ‖Σ u_i‖² − k
    return (((S**2).sum(-1) - k) / (k * (k - 1))).numpy(), names


def self_similarity(
    X: torch.Tensor, words: Sequence[str], min_count: int = 5, max_occurrences: int | None = 100, seed: int = 0
) -> np.ndarray:
    """Per layer: mean over word types (≥ ``min_count`` occurrences) of the mean pairwise cosine of its occurrences.

    Ethayarajh (2019) SelfSim: 1 for a static embedding, lower the more a
    word's representation depends on its context. Types with more than
    ``max_occurrences`` rows are subsampled (fixed ``seed``).
    """
    return self_similarity_by_type(X, words, min_count, max_occurrences, seed)[0].mean(-1)


def intra_similarity(X: torch.Tensor, sentence_ids: Sequence[int]) -> np.ndarray:
    """Per layer: mean over sentences of the mean cosine between each word and the sentence's mean vector.

    Ethayarajh (2019) IntraSim: high when the words of a sentence share a
    direction (context makes them alike).
    """
    sid = np.asarray(sentence_ids)
    _check(X, len(sid), "sentence_ids")
    _, inv = np.unique(sid, return_inverse=True)
    inv_t = torch.as_tensor(inv)
    Xd = X.double()
    means = torch.zeros(X.shape[0], inv.max() + 1, X.shape[-1], dtype=Xd.dtype).index_add_(1, inv_t, Xd)
    cos = (_unit(Xd) * _unit(means)[:, inv_t]).sum(-1)  # (P, N)
    per_sent = torch.zeros(X.shape[0], inv.max() + 1, dtype=Xd.dtype).index_add_(1, inv_t, cos)
    per_sent /= torch.as_tensor(np.bincount(inv), dtype=Xd.dtype)
    return per_sent.mean(-1).numpy()


def _mev(M: torch.Tensor) -> torch.Tensor:
    s = torch.linalg.svdvals(M.double()) ** 2  # (P, min(k, d))
    return s[:, 0] / s.sum(-1).clamp_min(1e-12)


def mev_by_type(
    X: torch.Tensor, words: Sequence[str], min_count: int = 5, max_occurrences: int | None = 100, seed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """(n_layers + 1, n_types) each: every word type's MEV and that of as many random rows (see :func:`mev`)."""
    _check(X, len(words), "words")
    rows, idx, names = type_index(words, min_count, max_occurrences, seed)
    if not names:
        raise ParameterError(f"no word type occurs {min_count} times or more; lower min_count")
    rng = np.random.default_rng(seed + 1)
    ours, base = [], []
    for t in range(len(names)):
        r = rows[idx == t]
        ours.append(_mev(X[:, r]))
        base.append(_mev(X[:, rng.choice(X.shape[1], size=len(r), replace=False)]))
    return torch.stack(ours, -1).numpy(), torch.stack(base, -1).numpy()


def mev(
    X: torch.Tensor, words: Sequence[str], min_count: int = 5, max_occurrences: int | None = 100, seed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """Per layer: mean maximum explainable variance of word types, and of random rows of the same counts.

    MEV(w) = σ₁² / Σ σᵢ² of the (uncentred) matrix of w's occurrence vectors
    (Ethayarajh 2019, §3.4): the share of its variance that the best single
    vector — a static embedding — explains. The baseline draws, for every
    type, the same number of random rows of any word (fixed ``seed``): what
    MEV is without any word identity, given the layer's anisotropy.
    """
    ours, base = mev_by_type(X, words, min_count, max_occurrences, seed)
    return ours.mean(-1), base.mean(-1)


def contextuality(
    X: torch.Tensor,
    words: Sequence[str],
    sentence_ids: Sequence[int],
    min_count: int = 5,
    n_pairs: int = 2000,
    max_occurrences: int | None = 100,
    seed: int = 0,
) -> pd.DataFrame:
    """Ethayarajh (2019)'s measures per layer, raw and corrected for anisotropy.

    Columns: ``anisotropy``, ``self_similarity``, ``intra_similarity``,
    ``mev``, ``mev_baseline``, and the corrected ``self_similarity_adj`` /
    ``intra_similarity_adj`` (minus anisotropy, as in the paper) and
    ``mev_adj`` (minus the random-rows baseline); ``n_types`` word types
    entered self-similarity and MEV.
    """
    aniso = anisotropy(X, sentence_ids, n_pairs, seed)
    ss = self_similarity(X, words, min_count, max_occurrences, seed)
    intra = intra_similarity(X, sentence_ids)
    m, mb = mev(X, words, min_count, max_occurrences, seed)
    n_types = len(type_index(words, min_count, max_occurrences, seed)[2])
    return pd.DataFrame(
        {
            "layer": range(X.shape[0]),
            "anisotropy": aniso,
            "self_similarity": ss,
            "intra_similarity": intra,
            "mev": m,
            "mev_baseline": mb,
            "self_similarity_adj": ss - aniso,
            "intra_similarity_adj": intra - aniso,
            "mev_adj": m - mb,
            "n_types": n_types,
        }
    )


# -- Lin et al. 2019: linear word order ------------------------------------------------------------
def position_labels(positions: Sequence[int], cap: int = 10) -> list[str]:
    """Word positions (0-based) as class labels, the last class ``"{cap}+"`` for positions ≥ cap.

    Lin et al. (2019) probe BERT's layers for the token's position: it is
    exact at the embedding layer (position embeddings) and fades with depth.
    """
    if cap < 1:
        raise ParameterError(f"cap={cap} is out of range; allowed: cap >= 1")
    return [str(int(p)) if p < cap else f"{cap}+" for p in positions]


# -- sentence representations ---------------------------------------------------------------------
POOLINGS = ("cls", "mean")


@torch.no_grad()
def sentence_states(
    model, tokenizer, texts: Sequence[str], batch_size: int = 32, max_length: int = 128
) -> dict[str, torch.Tensor]:
    """Every layer's [CLS] state and mean of the non-special token states, for each text.

    Returns ``{"cls": (n_layers + 1, n, d), "mean": (n_layers + 1, n, d)}``;
    one forward pass per batch.
    """
    if not texts:
        raise ParameterError("texts is empty")
    model.eval()
    device = next(model.parameters()).device
    cls, mean = [], []
    for start in range(0, len(texts), batch_size):
        enc = tokenizer(
            list(texts[start : start + batch_size]),
            return_tensors="pt",
            padding=True,
            truncation=True,
            max_length=max_length,
            return_special_tokens_mask=True,
        )
        special = enc.pop("special_tokens_mask")
        inputs = {k: v.to(device) for k, v in enc.items() if k in ("input_ids", "attention_mask", "token_type_ids")}
        hs = torch.stack(model(**inputs, output_hidden_states=True).hidden_states).float().cpu()  # (L+1, B, T, d)
        keep = (enc["attention_mask"].bool() & ~special.bool()).float()  # (B, T)
        cls.append(hs[:, :, 0])
        mean.append(torch.einsum("lbtd,bt->lbd", hs, keep) / keep.sum(1).clamp_min(1)[None, :, None])
    return {"cls": torch.cat(cls, 1), "mean": torch.cat(mean, 1)}


def concat_layers(X: torch.Tensor, layers: Sequence[int]) -> torch.Tensor:
    """(1, n, k·d): the given layers of ``X`` (n_layers + 1, n, d) side by side."""
    return torch.cat([X[i] for i in layers], dim=-1).unsqueeze(0)


def pooling_comparison(
    states: dict[str, torch.Tensor], labels: Sequence, train_idx, test_idx, cfg=None, concat_last: int = 4
) -> pd.DataFrame:
    """Probe accuracy of [CLS] vs mean pooling at every layer, and of the last layers' mean vectors concatenated.

    ``states``: :func:`sentence_states`; one linear probe per layer
    (:func:`bertology_lib.analysis.probing.probe_sweep`). The ``concat`` row joins the
    mean-pooled vectors of the last ``concat_last`` layers (as Devlin et al.
    2019 concatenate the last four layers for feature-based NER); its
    ``layer`` is the last layer.
    """
    frames = []
    for name in POOLINGS:
        df = probe_sweep(states[name], labels, train_idx, test_idx, cfg)
        frames.append(df.assign(pooling=name))
    n = states["mean"].shape[0]
    last = list(range(max(1, n - concat_last), n))
    df = probe_sweep(concat_layers(states["mean"], last), labels, train_idx, test_idx, cfg, layer_names=[n - 1])
    frames.append(df.assign(pooling=f"concat last {len(last)} (mean)"))
    return pd.concat(frames, ignore_index=True)[["pooling", "layer", "train_acc", "test_acc"]]


# -- sense clusters ----------------------------------------------------------------------------------
def pca_2d(X: torch.Tensor) -> np.ndarray:
    """(n, 2) coordinates on the first two principal components of the (n, d) rows."""
    Xc = X.double() - X.double().mean(0)
    _, _, V = torch.linalg.svd(Xc, full_matrices=False)
    return (Xc @ V[:2].T).numpy()


def ambiguous_words(words: Sequence[str], senses: Sequence, min_per_sense: int = 5) -> pd.DataFrame:
    """Words seen with two or more senses, each at least ``min_per_sense`` times; most balanced first.

    One row per word: ``word``, ``senses`` (the qualifying senses joined by
    "/"), ``n`` (their occurrences) and ``minority`` (the rarest qualifying
    sense's count, the sort key). ``senses`` can be any per-occurrence label,
    e.g. UPOS for words like "that" or "like".
    """
    df = pd.DataFrame({"word": list(words), "sense": [str(s) for s in senses]})
    counts = df.groupby(["word", "sense"]).size()
    counts = counts[counts >= min_per_sense]
    rows = []
    for w, c in counts.groupby(level=0):
        if len(c) >= 2:
            rows.append(
                {
                    "word": w,
                    "senses": "/".join(c.index.get_level_values(1)),
                    "n": int(c.sum()),
                    "minority": int(c.min()),
                }
            )
    out = pd.DataFrame(rows, columns=["word", "senses", "n", "minority"])
    return out.sort_values(["minority", "n", "word"], ascending=[False, False, True]).reset_index(drop=True)


def sense_separability(X: torch.Tensor, senses: Sequence, n_folds: int = 5, seed: int = 0) -> pd.DataFrame:
    """Per layer: cross-validated nearest-centroid accuracy at telling a word's senses apart.

    ``X``: (n_layers + 1, n, d) states of one word type's occurrences;
    ``senses``: a label per occurrence. Centroids come from the training
    folds (Euclidean distance); ``majority`` is the accuracy of always
    guessing the most frequent sense. Well above it = separable clusters.
    """
    y = np.asarray([str(s) for s in senses])
    _check(X, len(y), "senses")
    classes = sorted(set(y))
    if len(classes) < 2:
        raise ParameterError(f"senses has one value ({classes}); need two or more")
    rng = np.random.default_rng(seed)
    fold = rng.permutation(len(y)) % n_folds
    Xd = X.double()
    correct = torch.zeros(X.shape[0], dtype=torch.float64)
    for f in range(n_folds):
        tr, te = fold != f, fold == f
        if not te.any():
            continue
        cents = []
        for c in classes:
            m = tr & (y == c)
            cents.append(Xd[:, m].mean(1) if m.any() else torch.full_like(Xd[:, 0], float("inf")))
        C = torch.stack(cents, 1)  # (P, n_classes, d)
        dist = torch.cdist(Xd[:, te], C.nan_to_num(posinf=1e30))  # (P, n_te, n_classes)
        pred = dist.argmin(-1)
        gold = torch.as_tensor([classes.index(v) for v in y[te]])
        correct += (pred == gold).double().sum(-1)
    majority = max((y == c).mean() for c in classes)
    return pd.DataFrame(
        {"layer": range(X.shape[0]), "accuracy": (correct / len(y)).numpy(), "majority": float(majority), "n": len(y)}
    )


def sense_report(
    X: torch.Tensor,
    words: Sequence[str],
    senses: Sequence,
    n_words: int = 5,
    min_per_sense: int = 5,
    n_folds: int = 5,
    seed: int = 0,
) -> pd.DataFrame:
    """:func:`sense_separability` for the ``n_words`` most balanced :func:`ambiguous_words`.

    Only occurrences of each word's qualifying senses enter. One row per
    (word, layer), with ``senses`` and ``gain`` = accuracy − majority.
    """
    words, senses = list(words), [str(v) for v in senses]
    _check(X, len(words), "words")
    amb = ambiguous_words(words, senses, min_per_sense).head(n_words)
    frames = []
    for w, ss in zip(amb.word, amb.senses):
        keep = set(ss.split("/"))
        rows = [i for i, (v, s) in enumerate(zip(words, senses)) if v == w and s in keep]
        df = sense_separability(X[:, rows], [senses[i] for i in rows], n_folds, seed)
        frames.append(df.assign(word=w, senses=ss, gain=df.accuracy - df.majority))
    cols = ["word", "senses", "layer", "accuracy", "majority", "gain", "n"]
    return pd.concat(frames, ignore_index=True)[cols] if frames else pd.DataFrame(columns=cols)


# -- layer summaries (§4.3) --------------------------------------------------------------------------
def centre_of_gravity(
    report: pd.DataFrame, score: str = "accuracy", by: Sequence[str] = ("target", "model")
) -> pd.DataFrame:
    """Tenney et al. (2019)'s expected layer of each probing target, from per-layer scores.

    Tenney et al. score probes on a *cumulative* mix of layers 0..ℓ and
    average ℓ weighted by the gain Δ(ℓ) = score(ℓ) − score(ℓ−1). Our probes
    read one layer each, so the running maximum of the scores stands in for
    the cumulative score (what is available up to layer ℓ); the expected
    layer is Σ ℓ Δ(ℓ) / Σ Δ(ℓ) over ℓ ≥ 1, and 0 when no layer improves on
    layer 0 (everything the probe finds is already in the embeddings).
    ``report``: one row per (``by``..., ``layer``), e.g.
    :func:`bertology_lib.analysis.probing.layer_report` restricted to one subset.
    """
    rows = []
    for key, d in report.groupby(list(by), sort=False):
        d = d.sort_values("layer")
        s = d[score].cummax().to_numpy()
        gain = np.diff(s)
        layers = d.layer.to_numpy()[1:]
        total = gain.sum()
        key = key if isinstance(key, tuple) else (key,)
        rows.append(
            {
                **dict(zip(by, key)),
                "expected_layer": float((layers * gain).sum() / total) if total > 0 else 0.0,
                "best_layer": int(d.layer.to_numpy()[int(np.argmax(d[score].to_numpy()))]),
                "best": float(d[score].max()),
                "layer0": float(d[score].iloc[0]),
            }
        )
    return pd.DataFrame(rows)
