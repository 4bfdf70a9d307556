"""Probing classifiers on all layers at once, with controls.

Features come from one activation pass (:mod:`bertology_lib.analysis.activations`) as
a tensor ``X`` of shape ``(n_layers + 1, N, d_model)``. :func:`probe_sweep`
trains one probe per layer *together*: the layers' probes are independent, so
their losses are summed and optimised in one batched problem (a linear probe
is multinomial logistic regression solved with full-batch L-BFGS; an MLP probe
uses Adam). ``tests/test_probing.py`` checks the linear probe against
scikit-learn's ``LogisticRegression``.

Also here: control tasks and selectivity (Hewitt & Liang 2019), online
(MDL) codelength (Voita & Titov 2020), and iterative nullspace projection for
amnesic probing (Ravfogel et al. 2020; Elazar et al. 2021).

Used by the survey §3 and §4 notebooks and by Physics P-/Q-probing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F

PROBE_KINDS = ("linear", "mlp")


@dataclass(frozen=True)
class ProbeConfig:
    """How probes are trained. ``l2`` is the weight penalty (mean over weights x l2)."""

    kind: str = "linear"
    l2: float = 1e-3
    max_iter: int = 200  # L-BFGS iterations (linear) or epochs (mlp)
    hidden: int = 128  # MLP width
    lr: float = 1e-3  # MLP learning rate
    batch_size: int = 1024  # MLP minibatch
    seed: int = 0

    def __post_init__(self) -> None:
        if self.kind not in PROBE_KINDS:
            raise ValueError(f"kind={self.kind!r} is not a probe kind; allowed: {', '.join(PROBE_KINDS)}")
        if self.l2 < 0:
            raise ValueError(f"l2={self.l2} is out of range; allowed: l2 >= 0")
        if self.max_iter < 1 or self.hidden < 1 or self.batch_size < 1:
            raise ValueError(
                f"max_iter={self.max_iter}, hidden={self.hidden}, batch_size={self.batch_size}: "
                "each must be >= 1"
            )


class LayerProbes(torch.nn.Module):
    """``n_probes`` independent probes applied to ``X[l]`` for each l."""

    def __init__(self, n_probes: int, d_in: int, n_classes: int, cfg: ProbeConfig) -> None:
        super().__init__()
        g = torch.Generator().manual_seed(cfg.seed)
        self.kind = cfg.kind
        if cfg.kind == "linear":
            self.W = torch.nn.Parameter(torch.zeros(n_probes, d_in, n_classes))
            self.b = torch.nn.Parameter(torch.zeros(n_probes, 1, n_classes))
        else:
            s1, s2 = 1 / math.sqrt(d_in), 1 / math.sqrt(cfg.hidden)
            self.W1 = torch.nn.Parameter((torch.rand(n_probes, d_in, cfg.hidden, generator=g) * 2 - 1) * s1)
            self.b1 = torch.nn.Parameter(torch.zeros(n_probes, 1, cfg.hidden))
            self.W = torch.nn.Parameter((torch.rand(n_probes, cfg.hidden, n_classes, generator=g) * 2 - 1) * s2)
            self.b = torch.nn.Parameter(torch.zeros(n_probes, 1, n_classes))

    def forward(self, X: torch.Tensor) -> torch.Tensor:  # X: (P, N, d) -> (P, N, C)
        if self.kind == "mlp":
            X = torch.relu(torch.baddbmm(self.b1, X, self.W1))
        return torch.baddbmm(self.b, X, self.W)

    def penalty(self) -> torch.Tensor:
        return sum((p**2).sum(dim=tuple(range(1, p.dim()))) for n, p in self.named_parameters()
                   if n.startswith("W")).sum()


def _standardize(X: torch.Tensor, train: torch.Tensor) -> torch.Tensor:
    mu = X[:, train].mean(1, keepdim=True)
    sd = X[:, train].std(1, keepdim=True).clamp_min(1e-6)
    return (X - mu) / sd


def fit_probes(X: torch.Tensor, y: torch.Tensor, train: torch.Tensor, n_classes: int,
               cfg: ProbeConfig) -> LayerProbes:
    """Fit one probe per leading index of ``X`` (already standardised) on rows ``train``."""
    torch.manual_seed(cfg.seed)
    P, _, d = X.shape
    probes = LayerProbes(P, d, n_classes, cfg)
    Xt, yt = X[:, train], y[train]
    n = len(train)

    def loss_fn(xb, yb):
        logits = probes(xb)  # (P, n, C)
        ce = F.cross_entropy(logits.reshape(-1, n_classes), yb.repeat(P), reduction="sum") / len(yb)
        return ce + cfg.l2 * probes.penalty()

    if cfg.kind == "linear":
        opt = torch.optim.LBFGS(probes.parameters(), lr=1, max_iter=cfg.max_iter,
                                history_size=20, line_search_fn="strong_wolfe",
                                tolerance_grad=1e-6, tolerance_change=1e-9)

        def closure():
            opt.zero_grad()
            loss = loss_fn(Xt, yt)
            loss.backward()
            return loss

        opt.step(closure)
    else:
        opt = torch.optim.Adam(probes.parameters(), lr=cfg.lr)
        g = torch.Generator().manual_seed(cfg.seed)
        for _ in range(cfg.max_iter):
            perm = torch.randperm(n, generator=g)
            for i in range(0, n, cfg.batch_size):
                idx = perm[i : i + cfg.batch_size]
                opt.zero_grad()
                loss_fn(Xt[:, idx], yt[idx]).backward()
                opt.step()
    return probes


def _as_index(idx) -> torch.Tensor:
    return torch.as_tensor(np.asarray(idx), dtype=torch.long)


def _encode_labels(labels: Sequence) -> tuple[torch.Tensor, list]:
    classes = sorted(set(labels), key=str)
    lookup = {c: i for i, c in enumerate(classes)}
    return torch.tensor([lookup[v] for v in labels], dtype=torch.long), classes


@torch.no_grad()
def _accuracy(probes: LayerProbes, X: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return (probes(X).argmax(-1) == y).float().mean(1)  # (P,)


def probe_sweep(X: torch.Tensor, labels: Sequence, train_idx, test_idx, cfg: ProbeConfig | None = None,
                layer_names: Sequence | None = None) -> pd.DataFrame:
    """Accuracy of a probe per layer: one row per layer (``train_acc``, ``test_acc``).

    ``X``: (n_layers + 1, N, d) features; ``labels``: N labels of any hashable
    type; ``train_idx``/``test_idx``: row indices. Features are standardised
    with training statistics.
    """
    cfg = cfg or ProbeConfig()
    if X.dim() != 3 or X.shape[1] != len(labels):
        raise ValueError(f"X has shape {tuple(X.shape)}; expected (n_layers+1, N={len(labels)}, d)")
    y, classes = _encode_labels(labels)
    tr, te = _as_index(train_idx), _as_index(test_idx)
    Xs = _standardize(X.float(), tr)
    probes = fit_probes(Xs, y, tr, len(classes), cfg)
    names = list(layer_names) if layer_names is not None else list(range(X.shape[0]))
    return pd.DataFrame({
        "layer": names,
        "train_acc": _accuracy(probes, Xs[:, tr], y[tr]).numpy(),
        "test_acc": _accuracy(probes, Xs[:, te], y[te]).numpy(),
        "probe": cfg.kind,
    })


def control_labels(word_types: Sequence[str], labels: Sequence, seed: int = 0) -> list:
    """Hewitt & Liang (2019) control task: each word *type* gets a fixed random label.

    Labels are drawn from the empirical label distribution, so the control
    has the real task's output space and type-level consistency but no
    linguistic content.
    """
    if len(word_types) != len(labels):
        raise ValueError(f"{len(word_types)} word types but {len(labels)} labels; they must align")
    rng = np.random.default_rng(seed)
    pool = list(labels)
    assign: dict[str, object] = {}
    for w in sorted(set(word_types)):
        assign[w] = pool[int(rng.integers(len(pool)))]
    return [assign[w] for w in word_types]


def selectivity(X: torch.Tensor, word_types: Sequence[str], labels: Sequence, train_idx, test_idx,
                cfg: ProbeConfig | None = None, seed: int = 0) -> pd.DataFrame:
    """Per layer: task accuracy, control-task accuracy, and selectivity (their difference)."""
    task = probe_sweep(X, labels, train_idx, test_idx, cfg)
    ctrl = probe_sweep(X, control_labels(word_types, labels, seed), train_idx, test_idx, cfg)
    return pd.DataFrame({
        "layer": task.layer, "probe": task.probe, "task_acc": task.test_acc,
        "control_acc": ctrl.test_acc, "selectivity": task.test_acc - ctrl.test_acc,
    })


MDL_FRACTIONS = (0.001, 0.002, 0.004, 0.008, 0.016, 0.032, 0.0625, 0.125, 0.25, 0.5, 1.0)


def online_codelength(X: torch.Tensor, labels: Sequence, train_idx, cfg: ProbeConfig | None = None,
                      fractions: Sequence[float] = MDL_FRACTIONS) -> pd.DataFrame:
    """Online (prequential) codelength per layer, in bits (Voita & Titov 2020).

    The first block is sent with the uniform code; each next block is sent
    with a probe trained on all blocks before it. Compression = uniform
    codelength / online codelength (higher = labels easier to extract).
    """
    cfg = cfg or ProbeConfig()
    y, classes = _encode_labels(labels)
    tr = _as_index(train_idx)
    g = torch.Generator().manual_seed(cfg.seed)
    tr = tr[torch.randperm(len(tr), generator=g)]
    n, C = len(tr), len(classes)
    ends = sorted({max(2, int(round(f * n))) for f in fractions} | {n})
    Xs = _standardize(X.float(), tr)
    bits = torch.full((X.shape[0],), ends[0] * math.log2(C))
    for start, end in zip(ends[:-1], ends[1:]):
        probes = fit_probes(Xs, y, tr[:start], C, cfg)
        with torch.no_grad():
            logp = F.log_softmax(probes(Xs[:, tr[start:end]]), -1)  # (P, m, C)
            nll = -logp.gather(-1, y[tr[start:end]].view(1, -1, 1).expand(X.shape[0], -1, 1)).squeeze(-1)
        bits += nll.sum(1) / math.log(2)
    uniform = n * math.log2(C)
    return pd.DataFrame({"layer": range(X.shape[0]), "codelength_bits": bits.numpy(),
                         "uniform_bits": uniform, "compression": uniform / bits.numpy()})


def inlp_projection(X: torch.Tensor, labels: Sequence, n_iter: int = 10,
                    cfg: ProbeConfig | None = None) -> tuple[torch.Tensor, list[float]]:
    """Iterative nullspace projection (Ravfogel et al. 2020) on one layer's features.

    ``X``: (N, d). Returns the projection ``P`` (d, d) that removes the
    directions successive linear probes used, and each iteration's training
    accuracy (it should fall towards the majority rate).
    """
    cfg = cfg or ProbeConfig(max_iter=100)
    y, classes = _encode_labels(labels)
    d = X.shape[1]
    Xc = X.float() - X.float().mean(0)
    P = torch.eye(d)
    accs, directions = [], []
    all_idx = torch.arange(len(y))
    for _ in range(n_iter):
        Z = (Xc @ P).unsqueeze(0)
        probes = fit_probes(Z, y, all_idx, len(classes), cfg)
        accs.append(float(_accuracy(probes, Z, y)[0]))
        W = probes.W.detach()[0]  # (d, C)
        directions.append(W.T)
        basis = torch.linalg.qr(torch.cat(directions).T).Q  # (d, k) orthonormal
        P = torch.eye(d) - basis @ basis.T
    return P, accs


def random_projection(d: int, rank: int, seed: int = 0) -> torch.Tensor:
    """Projection removing ``rank`` random directions: the amnesic control."""
    if not 0 <= rank <= d:
        raise ValueError(f"rank={rank} is out of range; allowed: 0..{d}")
    g = torch.Generator().manual_seed(seed)
    Q = torch.linalg.qr(torch.randn(d, rank, generator=g)).Q if rank else torch.zeros(d, 0)
    return torch.eye(d) - Q @ Q.T


def majority_baseline(word_types: Sequence[str], labels: Sequence, train_idx, test_idx) -> float:
    """Accuracy of tagging each test word with its most frequent training label
    (unseen words: the overall most frequent label)."""
    from collections import Counter, defaultdict

    per: dict[str, Counter] = defaultdict(Counter)
    overall: Counter = Counter()
    for i in train_idx:
        per[word_types[i]][labels[i]] += 1
        overall[labels[i]] += 1
    default = overall.most_common(1)[0][0]
    hits = [
        (per[word_types[i]].most_common(1)[0][0] if word_types[i] in per else default) == labels[i]
        for i in test_idx
    ]
    return float(np.mean(hits))


def layer_report(X: torch.Tensor, table: pd.DataFrame, targets: Sequence[str], train_idx, test_idx,
                 cfg: ProbeConfig | None = None, subsets: dict[str, np.ndarray] | None = None,
                 model_label: str = "model") -> pd.DataFrame:
    """Probe every layer for every target; one row per (target, subset, layer).

    ``table`` is a :func:`bertology_lib.data.word_labels.word_table` aligned with
    ``X``'s rows. ``subsets`` maps a name to a boolean row mask applied to the
    *test* rows (e.g. ambiguous words); ``all`` is always reported. The
    per-word majority baseline of each (target, subset) is in ``majority``.
    """
    cfg = cfg or ProbeConfig()
    subsets = {"all": np.ones(len(table), bool), **(subsets or {})}
    words = table["word"].tolist()
    test_idx = np.asarray(test_idx)
    out = []
    for target in targets:
        labels = table[target].tolist()
        y, classes = _encode_labels(labels)
        tr = _as_index(train_idx)
        Xs = _standardize(X.float(), tr)
        probes = fit_probes(Xs, y, tr, len(classes), cfg)
        with torch.no_grad():
            pred = probes(Xs[:, _as_index(test_idx)]).argmax(-1)  # (P, n_test)
        for name, mask in subsets.items():
            keep = torch.as_tensor(mask[test_idx])
            if not bool(keep.any()):
                continue
            acc = (pred[:, keep] == y[_as_index(test_idx)][keep]).float().mean(1)
            maj = majority_baseline(words, labels, train_idx, test_idx[mask[test_idx]])
            for layer, a in enumerate(acc.tolist()):
                out.append({"target": target, "subset": name, "layer": layer, "accuracy": a,
                            "majority": maj, "model": model_label, "probe": cfg.kind,
                            "n_test": int(keep.sum())})
    return pd.DataFrame(out)
