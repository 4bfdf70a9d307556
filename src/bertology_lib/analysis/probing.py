"""Probing classifiers on all layers at once, with controls.

Features come from one activation pass (:mod:`bertology_lib.analysis.activations`) as
a tensor ``X`` of shape ``(n_layers + 1, N, d_model)``. :func:`probe_sweep`
trains one probe per layer *together*: the layers' probes are independent, so
their losses are summed and optimised in one batched problem (a linear probe
is multinomial logistic regression solved with full-batch L-BFGS; an MLP probe
uses Adam). ``tests/test_probing.py`` checks the linear probe against
scikit-learn's ``LogisticRegression``.

Layout: classes sit on the middle axis. Logits are ``(P, C, n)`` =
``baddbmm(b, W, Xᵀ)`` with ``W`` of shape ``(P, C, d)``, and the loss is
``F.cross_entropy(Z, y.expand(P, n))``: the softmax then runs along ``n``-long
rows and the matmuls have an ``n``-wide output, which is what makes the sweep
fast (``benchmarks/README.md``, section *Probing*). ``LayerProbes.forward`` still
returns ``(P, n, C)`` (a transposed view).

Also here: control tasks and selectivity (Hewitt & Liang 2019), online
(MDL) codelength (Voita & Titov 2020), and iterative nullspace projection for
amnesic probing (Ravfogel et al. 2020; Elazar et al. 2021).

Used by the survey §3 and §4 notebooks and by Physics P-/Q-probing.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F

from bertology_lib.errors import ParameterError
from bertology_lib.validation import check_choice, check_float, check_int

PROBE_KINDS = ("linear", "mlp")


@dataclass(frozen=True)
class ProbeConfig:
    """How probes are trained. ``l2`` weighs the penalty: ``l2`` x the sum of squared weights (biases free)."""

    kind: str = "linear"
    l2: float = 1e-3
    max_iter: int = 200  # L-BFGS iterations (linear) or epochs (mlp)
    hidden: int = 128  # MLP width
    lr: float = 1e-3  # MLP learning rate
    batch_size: int = 1024  # MLP minibatch
    seed: int = 0

    def __post_init__(self) -> None:
        check_choice("kind", self.kind, PROBE_KINDS)
        check_float("l2", self.l2, minimum=0.0)
        for name in ("max_iter", "hidden", "batch_size"):
            check_int(name, getattr(self, name), minimum=1)
        check_float("lr", self.lr, minimum=0.0, open_min=True)
        check_int("seed", self.seed, minimum=0)


class LayerProbes(torch.nn.Module):
    """``n_probes`` independent probes, probe ``p`` applied to ``X[p]``.

    Parameters put classes (and MLP hidden units) before inputs: ``W`` is
    ``(P, C, d)`` (``(P, C, hidden)`` for an MLP, whose first layer ``W1`` is
    ``(P, hidden, d)``), biases are ``(P, C, 1)`` and ``(P, hidden, 1)``.
    """

    def __init__(self, n_probes: int, d_in: int, n_classes: int, cfg: ProbeConfig) -> None:
        super().__init__()
        g = torch.Generator().manual_seed(cfg.seed)
        self.kind = cfg.kind
        if cfg.kind == "linear":
            self.W = torch.nn.Parameter(torch.zeros(n_probes, n_classes, d_in))
            self.b = torch.nn.Parameter(torch.zeros(n_probes, n_classes, 1))
        else:
            # drawn in (P, in, out) order, then transposed: the same initial weights as before the
            # classes-in-the-middle layout, so MLP results do not move
            s1, s2 = 1 / math.sqrt(d_in), 1 / math.sqrt(cfg.hidden)
            W1 = (torch.rand(n_probes, d_in, cfg.hidden, generator=g) * 2 - 1) * s1
            W = (torch.rand(n_probes, cfg.hidden, n_classes, generator=g) * 2 - 1) * s2
            self.W1 = torch.nn.Parameter(W1.transpose(1, 2).contiguous())
            self.b1 = torch.nn.Parameter(torch.zeros(n_probes, cfg.hidden, 1))
            self.W = torch.nn.Parameter(W.transpose(1, 2).contiguous())
            self.b = torch.nn.Parameter(torch.zeros(n_probes, n_classes, 1))

    def scores(self, X: torch.Tensor) -> torch.Tensor:
        """Logits with classes on the middle axis: X (P, n, d) -> (P, C, n)."""
        h = X.transpose(1, 2)  # (P, d, n), a view
        if self.kind == "mlp":
            h = torch.relu(torch.baddbmm(self.b1, self.W1, h))  # (P, hidden, n)
        return torch.baddbmm(self.b, self.W, h)

    def forward(self, X: torch.Tensor) -> torch.Tensor:  # X: (P, n, d) -> (P, n, C)
        return self.scores(X).transpose(1, 2)

    def penalty(self) -> torch.Tensor:
        """Sum over probes of the squared weights (biases not penalised)."""
        return sum((p**2).sum() for n, p in self.named_parameters() if n.startswith("W"))


def standardize(X: torch.Tensor, train: torch.Tensor) -> torch.Tensor:
    """Features standardised per probe and dimension with the ``train`` rows' mean and std: (P, N, d)."""
    Xtr = X[:, train]  # gathered once for both statistics
    return (X - Xtr.mean(1, keepdim=True)) / Xtr.std(1, keepdim=True).clamp_min(1e-6)


def fit_probes(X: torch.Tensor, y: torch.Tensor, train: torch.Tensor, n_classes: int, cfg: ProbeConfig) -> LayerProbes:
    """Fit one probe per leading index of ``X`` (P, N, d; already standardised) on rows ``train``.

    Each probe minimises mean cross-entropy + ``l2`` * sum of squared weights on its own layer;
    the P losses are summed, so the P problems are solved together but stay independent.
    """
    torch.manual_seed(cfg.seed)
    P, _, d = X.shape
    probes = LayerProbes(P, d, n_classes, cfg)
    Xt, yt = X[:, train].contiguous(), y[train]
    n = len(train)

    def loss_fn(xb, yb):
        logits = probes.scores(xb)  # (P, C, m)
        ce = F.cross_entropy(logits, yb.expand(P, -1), reduction="sum") / len(yb)
        return ce + cfg.l2 * probes.penalty()

    if cfg.kind == "linear":
        opt = torch.optim.LBFGS(
            probes.parameters(),
            lr=1,
            max_iter=cfg.max_iter,
            history_size=20,
            line_search_fn="strong_wolfe",
            tolerance_grad=1e-6,
            tolerance_change=1e-9,
        )

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


def encode_labels(labels: Sequence) -> tuple[torch.Tensor, list]:
    """Labels of any hashable type as class indices (N,), and the classes in index order (sorted as strings)."""
    classes = sorted(set(labels), key=str)
    lookup = {c: i for i, c in enumerate(classes)}
    return torch.tensor([lookup[v] for v in labels], dtype=torch.long), classes


@torch.no_grad()
def probe_accuracy(probes: LayerProbes, X: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """Accuracy of each probe on its own features: X (P, n, d), y (n,) -> (P,)."""
    return (probes.scores(X).argmax(1) == y).float().mean(1)


def _fit_layers(X: torch.Tensor, labels: Sequence, train_idx, test_idx, cfg: ProbeConfig):
    """One probe per layer fitted on the standardised ``train_idx`` rows: (probes, Xs, y, train, test)."""
    if X.dim() != 3 or X.shape[1] != len(labels):
        raise ParameterError(
            f"X has shape {tuple(X.shape)}; allowed: (n_layers+1, N={len(labels)}, d), one row per label"
        )
    y, classes = encode_labels(labels)
    tr, te = _as_index(train_idx), _as_index(test_idx)
    Xs = standardize(X.float(), tr)
    return fit_probes(Xs, y, tr, len(classes), cfg), Xs, y, tr, te


def probe_sweep(
    X: torch.Tensor,
    labels: Sequence,
    train_idx,
    test_idx,
    cfg: ProbeConfig | None = None,
    layer_names: Sequence | None = None,
    val_idx=None,
) -> pd.DataFrame:
    """Accuracy of a probe per layer: one row per layer (``train_acc``, ``test_acc``; ``val_acc`` with
    ``val_idx``).

    ``X``: (n_layers + 1, N, d) features; ``labels``: N labels of any hashable
    type; ``train_idx``/``test_idx``: row indices. Features are standardised
    with training statistics. ``val_idx``: rows for choosing a layer (score the chosen layer once on the
    test rows, never choose it on them).
    """
    cfg = cfg or ProbeConfig()
    probes, Xs, y, tr, te = _fit_layers(X, labels, train_idx, test_idx, cfg)
    names = list(layer_names) if layer_names is not None else list(range(X.shape[0]))
    out = pd.DataFrame(
        {
            "layer": names,
            "train_acc": probe_accuracy(probes, Xs[:, tr], y[tr]).numpy(),
            "test_acc": probe_accuracy(probes, Xs[:, te], y[te]).numpy(),
            "probe": cfg.kind,
        }
    )
    if val_idx is not None:
        va = _as_index(val_idx)
        out["val_acc"] = probe_accuracy(probes, Xs[:, va], y[va]).numpy()
    return out


def control_labels(word_types: Sequence[str], labels: Sequence, seed: int = 0) -> list:
    """Hewitt & Liang (2019) control task: each word *type* gets a fixed random label.

    Labels are drawn from the empirical label distribution, so the control
    has the real task's output space and type-level consistency but no
    linguistic content.
    """
    if len(word_types) != len(labels):
        raise ParameterError(
            f"{len(word_types)} word types but {len(labels)} labels; they must align (allowed: one word type per label)"
        )
    rng = np.random.default_rng(seed)
    pool = list(labels)
    assign: dict[str, object] = {}
    for w in sorted(set(word_types)):
        assign[w] = pool[int(rng.integers(len(pool)))]
    return [assign[w] for w in word_types]


@torch.no_grad()
def probe_correct(X: torch.Tensor, labels: Sequence, train_idx, test_idx, cfg: ProbeConfig | None = None) -> np.ndarray:
    """0/1 correctness of each layer's probe (trained on ``train_idx``) on the ``test_idx`` rows: (P, n_test).

    The per-item view of :func:`probe_sweep`'s test accuracy, for intervals that resample test items."""
    with torch.enable_grad():
        probes, Xs, y, tr, te = _fit_layers(X, labels, train_idx, test_idx, cfg or ProbeConfig())
    return (probes.scores(Xs[:, te]).argmax(1) == y[te]).numpy()


def selectivity(
    X: torch.Tensor,
    word_types: Sequence[str],
    labels: Sequence,
    train_idx,
    test_idx,
    cfg: ProbeConfig | None = None,
    seed: int = 0,
) -> pd.DataFrame:
    """Per layer: task accuracy, control-task accuracy, and selectivity (their difference)."""
    task = probe_sweep(X, labels, train_idx, test_idx, cfg)
    ctrl = probe_sweep(X, control_labels(word_types, labels, seed), train_idx, test_idx, cfg)
    return pd.DataFrame(
        {
            "layer": task.layer,
            "probe": task.probe,
            "task_acc": task.test_acc,
            "control_acc": ctrl.test_acc,
            "selectivity": task.test_acc - ctrl.test_acc,
        }
    )


MDL_FRACTIONS = (0.001, 0.002, 0.004, 0.008, 0.016, 0.032, 0.0625, 0.125, 0.25, 0.5, 1.0)


def online_bits(
    X: torch.Tensor,
    labels: Sequence,
    train_idx,
    cfg: ProbeConfig | None = None,
    fractions: Sequence[float] = MDL_FRACTIONS,
) -> tuple[np.ndarray, np.ndarray]:
    """Online (prequential) code, item by item (Voita & Titov 2020): ``(bits, rows)``.

    ``rows`` are the training rows in transmission order; ``bits[p, i]`` is what row ``rows[i]`` costs at layer
    ``p``: the first block is sent with the uniform code (log2 C bits each), each next block with a probe trained
    on all blocks before it. :func:`online_codelength` sums them.
    """
    cfg = cfg or ProbeConfig()
    y, classes = encode_labels(labels)
    tr = _as_index(train_idx)
    g = torch.Generator().manual_seed(cfg.seed)
    tr = tr[torch.randperm(len(tr), generator=g)]
    n, C = len(tr), len(classes)
    ends = sorted({max(2, round(f * n)) for f in fractions} | {n})
    Xs = standardize(X.float(), tr)
    bits = torch.full((X.shape[0], n), math.log2(C))
    for start, end in itertools.pairwise(ends):
        probes = fit_probes(Xs, y, tr[:start], C, cfg)
        with torch.no_grad():
            logp = F.log_softmax(probes.scores(Xs[:, tr[start:end]]), 1)  # (P, C, m)
            nll = -logp.gather(1, y[tr[start:end]].view(1, 1, -1).expand(X.shape[0], 1, -1)).squeeze(1)
        bits[:, start:end] = nll / math.log(2)
    return bits.numpy(), tr.numpy()


def online_codelength(
    X: torch.Tensor,
    labels: Sequence,
    train_idx,
    cfg: ProbeConfig | None = None,
    fractions: Sequence[float] = MDL_FRACTIONS,
) -> pd.DataFrame:
    """Online (prequential) codelength per layer, in bits (Voita & Titov 2020).

    The first block is sent with the uniform code; each next block is sent
    with a probe trained on all blocks before it. Compression = uniform
    codelength / online codelength (higher = labels easier to extract).
    Item by item: :func:`online_bits`.
    """
    bits, rows = online_bits(X, labels, train_idx, cfg, fractions)
    n, C = len(rows), len(set(labels))
    total = bits.sum(1)
    uniform = n * math.log2(C)
    return pd.DataFrame(
        {"layer": range(X.shape[0]), "codelength_bits": total, "uniform_bits": uniform, "compression": uniform / total}
    )


def inlp_projection(
    X: torch.Tensor, labels: Sequence, n_iter: int = 10, cfg: ProbeConfig | None = None
) -> tuple[torch.Tensor, list[float]]:
    """Iterative nullspace projection (Ravfogel et al. 2020) on one layer's features.

    ``X``: (N, d). Returns the projection ``P`` (d, d) that removes the
    directions successive linear probes used, and each iteration's training
    accuracy (it should fall towards the majority rate).
    """
    cfg = cfg or ProbeConfig(max_iter=100)
    y, classes = encode_labels(labels)
    d = X.shape[1]
    Xc = X.float() - X.float().mean(0)
    P = torch.eye(d)
    accs, directions = [], []
    all_idx = torch.arange(len(y))
    for _ in range(n_iter):
        Z = (Xc @ P).unsqueeze(0)
        probes = fit_probes(Z, y, all_idx, len(classes), cfg)
        accs.append(float(probe_accuracy(probes, Z, y)[0]))
        directions.append(probes.W.detach()[0])  # (C, d)
        basis = torch.linalg.qr(torch.cat(directions).T).Q  # (d, k) orthonormal
        P = torch.eye(d) - basis @ basis.T
    return P, accs


def random_projection(d: int, rank: int, seed: int = 0) -> torch.Tensor:
    """Projection removing ``rank`` random directions: the amnesic control."""
    check_int("d", d, minimum=0)
    check_int("rank", rank, minimum=0, maximum=d)
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
        (per[word_types[i]].most_common(1)[0][0] if word_types[i] in per else default) == labels[i] for i in test_idx
    ]
    return float(np.mean(hits))


def layer_report(
    X: torch.Tensor,
    table: pd.DataFrame,
    targets: Sequence[str],
    train_idx,
    test_idx,
    cfg: ProbeConfig | None = None,
    subsets: dict[str, np.ndarray] | None = None,
    model_label: str = "model",
) -> pd.DataFrame:
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
    tr = _as_index(train_idx)
    Xs = standardize(X.float(), tr)
    for target in targets:
        labels = table[target].tolist()
        y, classes = encode_labels(labels)
        probes = fit_probes(Xs, y, tr, len(classes), cfg)
        with torch.no_grad():
            pred = probes.scores(Xs[:, _as_index(test_idx)]).argmax(1)  # (P, n_test)
        for name, mask in subsets.items():
            keep = torch.as_tensor(mask[test_idx])
            if not bool(keep.any()):
                continue
            acc = (pred[:, keep] == y[_as_index(test_idx)][keep]).float().mean(1)
            maj = majority_baseline(words, labels, train_idx, test_idx[mask[test_idx]])
            for layer, a in enumerate(acc.tolist()):
                out.append(
                    {
                        "target": target,
                        "subset": name,
                        "layer": layer,
                        "accuracy": a,
                        "majority": maj,
                        "model": model_label,
                        "probe": cfg.kind,
                        "n_test": int(keep.sum()),
                    }
                )
    return pd.DataFrame(out)
