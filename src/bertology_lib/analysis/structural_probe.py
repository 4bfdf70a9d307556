"""The structural probe (Hewitt & Manning 2019): is a parse tree a linear transform away?

Two probes, each a rank-``r`` linear map ``B`` (r x d) trained on one layer's
word states ``h``:

* **distance probe** — ``‖B(h_i − h_j)‖²`` ≈ the number of edges between words
  ``i`` and ``j`` in the gold dependency tree. Evaluated by **UUAS** (the
  share of gold undirected edges found in the minimum spanning tree of the
  predicted distances) and **DSpr** (Spearman correlation of each word's
  predicted and gold distances).
* **depth probe** — ``‖B h_i‖²`` ≈ the word's depth in the tree. Evaluated by
  **root accuracy** (the word of least predicted depth is the root) and
  **NSpr** (Spearman correlation of predicted and gold depths).

As in the paper: L1 loss normalised by the number of word pairs (distance)
or words (depth) of each sentence, Adam, punctuation left out of the
evaluation (not of training), Spearman averaged over the sentences of each
length from 5 to 50 words and then over lengths. Unlike the paper, each
feature is first divided by its root mean square over the training words (a
diagonal linear map, so the probe family is unchanged — centring would not
be, for the depth probe has no bias; it lets one learning rate fit every
layer) and training runs a fixed number of epochs instead of stopping early.

Probes for all layers are trained together (their losses summed, their
parameters separate): ``X`` is the (n_layers + 1, N, d) tensor of one
activation pass (:func:`bertology_lib.analysis.activations.run_with_cache`), whose
``offsets`` say which rows belong to which sentence. The linear-order
baseline (:func:`right_branching_uuas`) and a random-init model's states
(:func:`bertology_lib.experiments.survey.knowledge.random_init_like`) are the reference points.

Used by the survey §4.3 notebook (``survey_04_3_layers``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np
import pandas as pd
import torch

from bertology_lib.analysis.activations import run_with_cache
from bertology_lib.errors import ParameterError

KINDS = ("distance", "depth")
PUNCT_UPOS = ("PUNCT",)


@dataclass(frozen=True)
class StructuralProbeConfig:
    """How structural probes are trained and scored."""

    rank: int = 64  # rank of B (the paper's best BERT-large probes: 64-128)
    epochs: int = 30  # passes over the training sentences
    lr: float = 3e-3  # Adam learning rate
    batch_size: int = 20  # sentences per step
    seed: int = 0
    min_len: int = 5  # Spearman is averaged over sentence lengths min_len..max_len (the paper: 5-50)
    max_len: int = 50

    def __post_init__(self) -> None:
        for name in ("rank", "epochs", "batch_size", "min_len", "max_len"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ParameterError(f"{name}={v!r} is out of range; allowed: an int >= 1")
        if not self.lr > 0:
            raise ParameterError(f"lr={self.lr} is out of range; allowed: lr > 0")
        if self.min_len > self.max_len:
            raise ParameterError(f"min_len={self.min_len} > max_len={self.max_len}; allowed: min_len <= max_len")

    @classmethod
    def for_profile(cls, profile, **overrides) -> "StructuralProbeConfig":
        """smoke: proves the code path; quick: minutes on 2 cores; full: closer to the paper (rank 128)."""
        name = getattr(profile, "name", profile)
        base = {"smoke": dict(rank=32, epochs=10), "quick": dict(rank=64, epochs=12), "full": dict(rank=128, epochs=40)}
        if name not in base:
            raise ParameterError(f"profile={name!r} is not a profile; allowed: {', '.join(base)}")
        return cls(**{**base[name], **overrides})


RANK_SWEEPS = {"smoke": (2, 32), "quick": (2, 8, 32, 64), "full": (1, 2, 4, 8, 16, 32, 64, 128, 256)}


def rank_sweep(profile) -> tuple[int, ...]:
    """Probe ranks compared per profile (Hewitt & Manning 2019, Fig. 2: UUAS saturates near rank 64)."""
    name = getattr(profile, "name", profile)
    if name not in RANK_SWEEPS:
        raise ParameterError(f"profile={name!r} is not a profile; allowed: {', '.join(RANK_SWEEPS)}")
    return RANK_SWEEPS[name]


# -- gold trees ---------------------------------------------------------------------------------------
def tree_distances(heads: Sequence[int]) -> np.ndarray:
    """(n, n) number of edges between every pair of words; ``heads`` 1-based, 0 = root."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import shortest_path

    n = len(heads)
    arcs = [(i, h - 1) for i, h in enumerate(heads) if h != 0]
    if n == 0:
        return np.zeros((0, 0))
    if len(arcs) != n - 1:
        raise ParameterError(f"heads {list(heads)} do not form a tree with one root")
    r, c = zip(*arcs) if arcs else ((), ())
    g = coo_matrix((np.ones(len(arcs)), (r, c)), shape=(n, n)).tocsr()
    D = shortest_path(g, method="D", directed=False, unweighted=True)
    if not np.isfinite(D).all():
        raise ParameterError(f"heads {list(heads)} do not form a connected tree")
    return D


def tree_depths(heads: Sequence[int]) -> np.ndarray:
    """(n,) edges from each word to the root."""
    root = [i for i, h in enumerate(heads) if h == 0]
    if len(root) != 1:
        raise ParameterError(f"heads {list(heads)} have {len(root)} roots; allowed: exactly one")
    return tree_distances(heads)[root[0]]


def gold_edges(heads: Sequence[int], keep: Sequence[bool] | None = None) -> set[frozenset]:
    """Undirected gold edges {i, head(i)} (0-based) between kept words."""
    keep = np.ones(len(heads), bool) if keep is None else np.asarray(keep, bool)
    return {frozenset((i, h - 1)) for i, h in enumerate(heads) if h != 0 and keep[i] and keep[h - 1]}


def mst_edges(D: np.ndarray, keep: Sequence[bool] | None = None) -> set[frozenset]:
    """Undirected edges of the minimum spanning tree of the distance matrix ``D`` over kept words."""
    from scipy.sparse.csgraph import minimum_spanning_tree

    idx = np.flatnonzero(np.ones(len(D), bool) if keep is None else np.asarray(keep, bool))
    if len(idx) < 2:
        return set()
    sub = np.asarray(D, dtype=np.float64)[np.ix_(idx, idx)]
    sub = (sub + sub.T) / 2
    # scipy reads (near-)zero entries of a dense matrix as "no edge"; adding the same constant to
    # every edge changes no spanning tree's rank (they all have n - 1 edges)
    sub = np.maximum(sub, 0) + 1.0
    np.fill_diagonal(sub, 0)
    t = minimum_spanning_tree(sub).tocoo()
    return {frozenset((int(idx[a]), int(idx[b]))) for a, b in zip(t.row, t.col)}


def right_branching_edges(n: int, keep: Sequence[bool] | None = None) -> set[frozenset]:
    """The linear-order tree: each kept word linked to the next kept word."""
    idx = np.flatnonzero(np.ones(n, bool) if keep is None else np.asarray(keep, bool))
    return {frozenset((int(a), int(b))) for a, b in zip(idx[:-1], idx[1:])}


def uuas(pred: Sequence[set], gold: Sequence[set]) -> float:
    """Undirected unlabelled attachment score over a corpus: Σ ``|pred ∩ gold|`` / Σ ``|gold|``."""
    hit = sum(len(p & g) for p, g in zip(pred, gold))
    total = sum(len(g) for g in gold)
    return hit / total if total else float("nan")


def punct_mask(sentence) -> np.ndarray:
    """True for words kept in evaluation (UPOS not punctuation)."""
    return np.array([u not in PUNCT_UPOS for u in sentence.upos])


def right_branching_uuas(sentences: Sequence, exclude_punct: bool = True) -> float:
    """UUAS of the linear-order (right-branching) baseline on sentences with ``heads`` (and ``upos``)."""
    keeps = [punct_mask(s) if exclude_punct else None for s in sentences]
    return uuas(
        [right_branching_edges(len(s.heads), k) for s, k in zip(sentences, keeps)],
        [gold_edges(s.heads, k) for s, k in zip(sentences, keeps)],
    )


# -- the probe ---------------------------------------------------------------------------------------
class StructuralProbe(torch.nn.Module):
    """One rank-``r`` map per layer: ``B`` (n_probes, r, d), with the training standardisation."""

    def __init__(self, n_probes: int, d: int, rank: int, scale: torch.Tensor, seed: int = 0):
        super().__init__()
        g = torch.Generator().manual_seed(seed)
        # initial squared norms of the rescaled states come out near 1
        self.B = torch.nn.Parameter(torch.randn(n_probes, rank, d, generator=g) / np.sqrt(rank * d))
        self.register_buffer("scale", scale)  # (P, 1, 1, d): per-dimension RMS on the training words

    def project(self, Xb: torch.Tensor) -> torch.Tensor:
        """(P, S, n, d) states -> (P, S, n, r)."""
        return torch.einsum("psnd,prd->psnr", Xb / self.scale, self.B)

    @staticmethod
    def squared_distances(Z: torch.Tensor) -> torch.Tensor:
        sq = (Z**2).sum(-1)
        return (sq[..., :, None] + sq[..., None, :] - 2 * Z @ Z.transpose(-1, -2)).clamp_min(0)

    @staticmethod
    def squared_norms(Z: torch.Tensor) -> torch.Tensor:
        return (Z**2).sum(-1)


def _gather(X: torch.Tensor, offsets: Sequence[int], sents: Sequence[int]) -> tuple[torch.Tensor, torch.Tensor]:
    """Padded (P, S, n_max, d) states and the (S, n_max) word mask of sentences ``sents``."""
    lens = [offsets[s + 1] - offsets[s] for s in sents]
    n = max(lens)
    idx = torch.zeros(len(sents), n, dtype=torch.long)
    mask = torch.zeros(len(sents), n, dtype=torch.bool)
    for k, (s, m) in enumerate(zip(sents, lens)):
        idx[k, :m] = torch.arange(offsets[s], offsets[s] + m)
        mask[k, :m] = True
    return X[:, idx], mask


def _targets(kind: str, heads: Sequence[Sequence[int]], sents: Sequence[int], n: int) -> torch.Tensor:
    if kind == "distance":
        T = torch.zeros(len(sents), n, n)
        for k, s in enumerate(sents):
            m = len(heads[s])
            T[k, :m, :m] = torch.as_tensor(tree_distances(heads[s]), dtype=torch.float32)
    else:
        T = torch.zeros(len(sents), n)
        for k, s in enumerate(sents):
            T[k, : len(heads[s])] = torch.as_tensor(tree_depths(heads[s]), dtype=torch.float32)
    return T


def _check_kind(kind: str) -> None:
    if kind not in KINDS:
        raise ParameterError(f"kind={kind!r} is not a structural probe; allowed: {', '.join(KINDS)}")


def _check_inputs(X: torch.Tensor, offsets: Sequence[int], heads: Sequence[Sequence[int]]) -> None:
    if X.dim() != 3 or X.shape[1] != offsets[-1]:
        raise ParameterError(f"X has shape {tuple(X.shape)}; expected (n_layers+1, N={offsets[-1]}, d)")
    if len(offsets) != len(heads) + 1:
        raise ParameterError(f"{len(offsets) - 1} sentences in offsets but {len(heads)} head lists; they must align")
    for s, h in enumerate(heads):
        if offsets[s + 1] - offsets[s] != len(h):
            raise ParameterError(f"sentence {s}: {offsets[s + 1] - offsets[s]} rows but {len(h)} heads")


def fit_structural_probe(
    X: torch.Tensor,
    offsets: Sequence[int],
    heads: Sequence[Sequence[int]],
    train: Sequence[int],
    kind: str = "distance",
    cfg: StructuralProbeConfig | None = None,
) -> StructuralProbe:
    """Train one ``kind`` probe per layer of ``X`` on the ``train`` sentences (L1 loss, Adam)."""
    _check_kind(kind)
    _check_inputs(X, offsets, heads)
    cfg = cfg or StructuralProbeConfig()
    train = list(train)
    if not train:
        raise ParameterError("train is empty; give the indices of the training sentences")
    rows = torch.cat([torch.arange(offsets[s], offsets[s + 1]) for s in train])
    Xtr = X[:, rows].float()
    scale = Xtr.pow(2).mean(1).sqrt().clamp_min(1e-6)[:, None, None, :]
    probe = StructuralProbe(X.shape[0], X.shape[-1], cfg.rank, scale, cfg.seed)
    # batches of sentences of similar length (little padding), built once; their order shuffled per epoch
    by_len = sorted(train, key=lambda s: (len(heads[s]), s))
    batches = []
    for i in range(0, len(by_len), cfg.batch_size):
        batch = by_len[i : i + cfg.batch_size]
        n = max(len(heads[s]) for s in batch)
        _, mask = _gather(X[:1], offsets, batch)
        lens = mask.sum(1).float()
        T = _targets(kind, heads, batch, n)
        w = (
            (mask[:, :, None] & mask[:, None, :]).float() / lens[:, None, None] ** 2
            if kind == "distance"
            else mask.float() / lens[:, None]
        )
        batches.append((batch, T, w / len(batch)))  # weights: the paper's per-sentence normalisation
    opt = torch.optim.Adam(probe.parameters(), lr=cfg.lr)
    n_steps = cfg.epochs * len(batches)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda t: 0.5 * (1 + np.cos(np.pi * t / n_steps)))
    g = torch.Generator().manual_seed(cfg.seed)
    for _ in range(cfg.epochs):
        for b in torch.randperm(len(batches), generator=g).tolist():
            batch, T, w = batches[b]
            Xb, _ = _gather(X, offsets, batch)
            Z = probe.project(Xb.float())
            pred = probe.squared_distances(Z) if kind == "distance" else probe.squared_norms(Z)
            loss = ((pred - T).abs() * w).sum()  # summed over layers: independent probes
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
    return probe.eval()


@torch.no_grad()
def predict(
    probe: StructuralProbe,
    X: torch.Tensor,
    offsets: Sequence[int],
    sents: Sequence[int],
    kind: str = "distance",
    batch_size: int = 64,
) -> list[np.ndarray]:
    """Per sentence: predicted (P, n, n) squared distances or (P, n) squared norms (depths)."""
    _check_kind(kind)
    out = []
    sents = list(sents)
    for i in range(0, len(sents), batch_size):
        batch = sents[i : i + batch_size]
        Xb, mask = _gather(X, offsets, batch)
        Z = probe.project(Xb.float())
        P = probe.squared_distances(Z) if kind == "distance" else probe.squared_norms(Z)
        for k, s in enumerate(batch):
            m = int(mask[k].sum())
            out.append((P[:, k, :m, :m] if kind == "distance" else P[:, k, :m]).double().numpy())
    return out


def _rank_rows(a: np.ndarray) -> np.ndarray:
    from scipy.stats import rankdata

    return rankdata(a, axis=-1)


def _row_pearson(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a = a - a.mean(-1, keepdims=True)
    b = b - b.mean(-1, keepdims=True)
    den = np.sqrt((a**2).sum(-1) * (b**2).sum(-1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, (a * b).sum(-1) / den, np.nan)


def _length_macro(values: dict[int, list[np.ndarray]], n_probes: int) -> np.ndarray:
    """Mean per sentence length, then mean over lengths (NaN when no length qualifies)."""
    if not values:
        return np.full(n_probes, np.nan)
    return np.nanmean(np.stack([np.nanmean(np.stack(v), 0) for v in values.values()]), 0)


def evaluate(
    preds: Sequence[np.ndarray],
    heads: Sequence[Sequence[int]],
    kind: str = "distance",
    keeps: Sequence[Sequence[bool]] | None = None,
    cfg: StructuralProbeConfig | None = None,
) -> pd.DataFrame:
    """Score predictions (:func:`predict`) against gold trees; one row per layer.

    Distance: ``uuas`` (MST over kept words vs gold edges between kept words)
    and ``spearman`` (DSpr: per word, its predicted vs gold distances to the
    kept words; averaged per sentence, per length in ``min_len..max_len``, then
    over lengths). Depth: ``root_acc`` (the kept word of least predicted depth
    is the root; sentences whose root is kept) and ``spearman`` (NSpr).
    ``keeps[s]``: words kept in evaluation (default all; usually
    :func:`punct_mask`).
    """
    _check_kind(kind)
    cfg = cfg or StructuralProbeConfig()
    P = preds[0].shape[0]
    keeps = [np.ones(len(h), bool) if keeps is None else np.asarray(keeps[s], bool) for s, h in enumerate(heads)]
    by_len: dict[int, list[np.ndarray]] = {}
    if kind == "distance":
        hits, total = np.zeros(P), 0
        for pred, hs, keep in zip(preds, heads, keeps):
            g = gold_edges(hs, keep)
            total += len(g)
            for p in range(P):
                hits[p] += len(mst_edges(pred[p], keep) & g)
            n = int(keep.sum())
            if cfg.min_len <= n <= cfg.max_len:
                k = np.flatnonzero(keep)
                gold = tree_distances(hs)[np.ix_(k, k)]
                pr = pred[:, k][:, :, k]  # (P, n, n)
                rho = _row_pearson(_rank_rows(pr), _rank_rows(gold)[None])  # (P, n)
                by_len.setdefault(n, []).append(np.nanmean(rho, -1))
        return pd.DataFrame(
            {
                "layer": range(P),
                "probe": "distance",
                "uuas": hits / total if total else np.nan,
                "spearman": _length_macro(by_len, P),
            }
        )
    right, n_roots = np.zeros(P), 0
    for pred, hs, keep in zip(preds, heads, keeps):
        root = [i for i, h in enumerate(hs) if h == 0][0]
        k = np.flatnonzero(keep)
        if keep[root]:
            n_roots += 1
            right += k[pred[:, k].argmin(-1)] == root
        n = len(k)
        if cfg.min_len <= n <= cfg.max_len:
            gold = tree_depths(hs)[k]
            rho = _row_pearson(_rank_rows(pred[:, k]), _rank_rows(gold)[None])
            by_len.setdefault(n, []).append(rho)
    return pd.DataFrame(
        {
            "layer": range(P),
            "probe": "depth",
            "root_acc": right / n_roots if n_roots else np.nan,
            "spearman": _length_macro(by_len, P),
        }
    )


def probe_report(
    X: torch.Tensor | dict[str, torch.Tensor],
    offsets: Sequence[int],
    sentences: Sequence,
    train: Sequence[int],
    test: Sequence[int],
    cfg: StructuralProbeConfig | None = None,
    kinds: Sequence[str] = KINDS,
    ranks: Sequence[int] | None = None,
    model_label: str = "model",
    exclude_punct: bool = True,
) -> pd.DataFrame:
    """Distance and depth probes on every layer, for each rank; scored on held-out sentences.

    ``X``: (n_layers + 1, N, d) states, or a dict model label -> such states
    of the same words (e.g. a trained model and its random-init twin): their
    layers are stacked and trained together — independent probes, one
    optimiser loop. ``sentences``: objects with ``heads`` (and ``upos``, for
    punctuation), aligned with ``offsets``. One row per (model, probe, rank,
    layer): ``uuas`` or ``root_acc``, ``spearman``.
    """
    cfg = cfg or StructuralProbeConfig()
    states = X if isinstance(X, dict) else {model_label: X}
    sizes = {label: x.shape[0] for label, x in states.items()}
    if len({x.shape[1:] for x in states.values()}) != 1:
        raise ParameterError(
            f"states have shapes {[tuple(x.shape) for x in states.values()]}; "
            "they must describe the same words with the same width"
        )
    stacked = torch.cat([x.float() for x in states.values()]) if len(states) > 1 else next(iter(states.values()))
    model_of = [label for label, n in sizes.items() for _ in range(n)]
    layer_of = [layer for n in sizes.values() for layer in range(n)]
    heads = [list(s.heads) for s in sentences]
    keeps = [punct_mask(s) if exclude_punct else np.ones(len(s.heads), bool) for s in sentences]
    test = list(test)
    frames = []
    for rank in ranks or [cfg.rank]:
        c = StructuralProbeConfig(**{**cfg.__dict__, "rank": int(rank)})
        for kind in kinds:
            probe = fit_structural_probe(stacked, offsets, heads, train, kind, c)
            preds = predict(probe, stacked, offsets, test, kind)
            df = evaluate(preds, [heads[s] for s in test], kind, [keeps[s] for s in test], c)
            frames.append(
                df.assign(rank=int(rank), model=[model_of[i] for i in df.layer], layer=[layer_of[i] for i in df.layer])
            )
    out = pd.concat(frames, ignore_index=True)
    for col in ("uuas", "root_acc"):
        if col not in out:
            out[col] = np.nan
    return out[["model", "probe", "rank", "layer", "uuas", "root_acc", "spearman"]]


def probe_models(
    models: dict[str, tuple],
    sentences: Sequence,
    train: Sequence[int],
    test: Sequence[int],
    cfg: StructuralProbeConfig | None = None,
    kinds: Sequence[str] = KINDS,
    ranks: Sequence[int] | None = None,
    lowercase: bool = False,
    batch_size: int = 64,
    cache: bool = False,
) -> pd.DataFrame:
    """:func:`probe_report` for models (label -> (model, tokenizer)) on the same sentences.

    One activation pass per model (from the artifact cache when ``cache``); the
    models' probes are trained together.
    """
    states, offsets = {}, None
    for label, (model, tok) in models.items():
        words = [[w.lower() for w in s.words] if lowercase else list(s.words) for s in sentences]
        acts = run_with_cache(model, tok, words, batch_size=batch_size, cache=cache)
        states[label], offsets = acts.resid, acts.offsets
    return probe_report(states, offsets, sentences, train, test, cfg, kinds, ranks)


def best_layer(report: pd.DataFrame, model: str, probe: str = "distance", rank: int | None = None) -> pd.Series:
    """The row of the best layer (UUAS for distance, root accuracy for depth) of one model and probe."""
    r = report[(report.model == model) & (report.probe == probe)]
    if rank is not None:
        r = r[r["rank"] == rank]
    if r.empty:
        raise KeyError(f"no rows for model={model!r}, probe={probe!r}, rank={rank!r}")
    metric = "uuas" if probe == "distance" else "root_acc"
    return r.loc[r[metric].idxmax()]
