"""Numeracy probes on number representations (Wallace et al. 2019): is magnitude linearly readable, and does
what a probe learns on some numbers carry over to numbers it never saw, in range and beyond it?

* :func:`number_features`: every layer's state of each number written alone (mean over its word pieces).
* :func:`word_pieces`: how many word pieces the tokenizer splits each number into.
* :func:`digit_features`: a positive control that spells each number out digit by digit (each digit's value at
  its position, plus noise dimensions): magnitude is linear in it, so a probe that fails there is broken.
* :func:`number_split`: train / validation / test numbers, drawn within each range separately.
* :func:`comparison_pairs`: random ordered pairs of distinct numbers (a, b) drawn from a set.
* :func:`comparison_probe`: a linear probe per layer on ``h(a) - h(b)`` predicting ``a > b``, trained on some
  pairs, scored (0/1 per pair) on others; :class:`ComparisonProbe` holds the correctness per layer.
* :func:`addition_probe`: ridge regression per layer from ``[h(a), h(b)]`` to ``a + b`` (Wallace et al.'s
  addition task), scored by the absolute error of each predicted sum (:class:`AdditionProbe`).

Pure compute: tensors and arrays in, arrays out. Used by :mod:`bertology_lib.experiments.survey.semantics`
(the survey's §3.2 numbers claim).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np
import torch

from bertology_lib.analysis.probing import ProbeConfig, fit_probes, standardize
from bertology_lib.errors import ParameterError
from bertology_lib.validation import check_int


@torch.no_grad()
def number_features(model, tokenizer, numbers: Sequence[int], batch_size: int = 256) -> torch.Tensor:
    """(n_layers + 1, N, d_model): each number written alone in digits ("[CLS] 734 [SEP]"), every layer's
    states averaged over the number's word pieces (special tokens left out); layer 0 is the embedding layer."""
    device = next(model.parameters()).device
    model.eval()
    out = []
    for start in range(0, len(numbers), batch_size):
        texts = [str(int(n)) for n in numbers[start : start + batch_size]]
        enc = tokenizer(texts, return_tensors="pt", padding=True)
        ids = enc["input_ids"]
        keep = enc["attention_mask"].clone()
        special = torch.zeros_like(keep, dtype=torch.bool)
        for sid in tokenizer.all_special_ids:
            special |= ids == sid
        keep = (keep.bool() & ~special).float().unsqueeze(-1)  # (B, T, 1): the number's pieces
        hs = model(
            **{k: v.to(device) for k, v in enc.items() if k in ("input_ids", "attention_mask", "token_type_ids")},
            output_hidden_states=True,
        ).hidden_states
        keep = keep.to(device)
        out.append(torch.stack([(h * keep).sum(1) / keep.sum(1).clamp_min(1) for h in hs]).float().cpu())
    return torch.cat(out, dim=1)


def word_pieces(tokenizer, numbers: Sequence[int]) -> np.ndarray:
    """How many word pieces ``tokenizer`` splits each number (in digits) into: (N,) ints."""
    return np.array([len(tokenizer(str(int(n)), add_special_tokens=False)["input_ids"]) for n in numbers])


def digit_features(numbers: Sequence[int], n_noise: int = 16, seed: int = 0) -> torch.Tensor:
    """(1, N, n_digits + n_noise): the value of each decimal digit of each number at its position (units, tens,
    ...) followed by standard-normal noise dimensions (seeded). A "character-level" representation in which
    magnitude is linear, whatever the range: the positive control of a probing pipeline."""
    check_int("n_noise", n_noise, minimum=0)
    v = np.asarray(numbers, dtype=np.int64)
    if (v < 0).any():
        raise ParameterError("negative numbers have no digits here; allowed: integers >= 0")
    n_digits = len(str(int(v.max()))) if len(v) else 1
    digits = np.stack([(v // 10**k) % 10 for k in range(n_digits)], axis=1).astype(np.float32)
    noise = np.random.default_rng(seed).normal(size=(len(v), n_noise)).astype(np.float32)
    return torch.from_numpy(np.concatenate([digits, noise], axis=1))[None]


@dataclass(frozen=True)
class NumberSplit:
    """Indices (into the list of numbers) of the training, validation and test numbers."""

    train: np.ndarray
    val: np.ndarray
    test: np.ndarray


def number_split(
    ranges: Sequence[np.ndarray], fractions: Sequence[float] = (0.7, 0.15, 0.15), seed: int = 0
) -> NumberSplit:
    """Split each array of indices in ``ranges`` into train / validation / test shares (``fractions``) at random,
    so that every range has numbers in every split; the splits of all ranges are concatenated."""
    f = [float(x) for x in fractions]
    if len(f) != 3 or any(x <= 0 for x in f) or abs(sum(f) - 1) > 1e-9:
        raise ParameterError(
            f"fractions={tuple(fractions)!r} are not allowed; allowed: three positive shares "
            "(train, validation, test) that sum to 1"
        )
    rng = np.random.default_rng(seed)
    parts: list[list[np.ndarray]] = [[], [], []]
    for r in ranges:
        r = rng.permutation(np.asarray(r))
        n_tr, n_val = int(round(f[0] * len(r))), int(round(f[1] * len(r)))
        if n_tr < 2 or n_val < 2 or len(r) - n_tr - n_val < 2:
            raise ParameterError(
                f"a range of {len(r)} numbers is too small for fractions {tuple(f)}; allowed: "
                "at least two numbers in each split"
            )
        for k, part in enumerate((r[:n_tr], r[n_tr : n_tr + n_val], r[n_tr + n_val :])):
            parts[k].append(part)
    return NumberSplit(*(np.sort(np.concatenate(p)) for p in parts))


def comparison_pairs(ids: Sequence[int], n_pairs: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``n_pairs`` random ordered pairs ``(a[i], b[i])`` of distinct members of ``ids`` (seeded); about half
    have ``a > b``. When ``n_pairs`` is at least the number of ordered pairs, every ordered pair once."""
    check_int("n_pairs", n_pairs, minimum=1)
    ids = np.asarray(ids)
    if len(ids) < 2:
        raise ParameterError(f"{len(ids)} numbers cannot form a pair; allowed: at least 2")
    if n_pairs >= len(ids) * (len(ids) - 1):
        a, b = np.meshgrid(ids, ids, indexing="ij")
        keep = a != b
        return a[keep], b[keep]
    rng = np.random.default_rng(seed)
    a = rng.choice(ids, n_pairs)
    b = rng.choice(ids, n_pairs)
    while (same := a == b).any():
        b[same] = rng.choice(ids, int(same.sum()))
    return a, b


@dataclass(frozen=True)
class ComparisonProbe:
    """0/1 correctness of one comparison probe per layer on each named set of pairs: ``correct[name]`` is
    (n_layers + 1, n_pairs)."""

    correct: Mapping[str, np.ndarray]

    def accuracy(self, name: str) -> np.ndarray:
        """Accuracy per layer on the pairs ``name``: (n_layers + 1,)."""
        return self.correct[name].mean(1)

    def best_layer(self, name: str) -> int:
        """The layer with the highest accuracy on the pairs ``name`` (ties: the lowest layer)."""
        return int(np.argmax(self.accuracy(name)))


def comparison_probe(
    X: torch.Tensor,
    values: Sequence[float],
    train_pairs: tuple[np.ndarray, np.ndarray],
    eval_pairs: Mapping[str, tuple[np.ndarray, np.ndarray]],
    cfg: ProbeConfig | None = None,
) -> ComparisonProbe:
    """Fit a linear probe per layer on ``X[:, a] - X[:, b]`` predicting ``values[a] > values[b]`` for the
    ``train_pairs`` (indices into ``X``'s second axis and ``values``), standardised with the training pairs'
    statistics; score it on every set of ``eval_pairs`` (name -> (a, b))."""
    cfg = cfg or ProbeConfig(l2=1e-3, max_iter=200)
    v = np.asarray(values, dtype=float)
    sets = {"train": train_pairs, **dict(eval_pairs)}
    a = np.concatenate([np.asarray(p[0]) for p in sets.values()])
    b = np.concatenate([np.asarray(p[1]) for p in sets.values()])
    if (a == b).any():
        raise ParameterError("a pair compares a number with itself; allowed: pairs of distinct numbers")
    D = X[:, torch.as_tensor(a)] - X[:, torch.as_tensor(b)]  # (P, n_all, d)
    y = torch.as_tensor(v[a] > v[b], dtype=torch.long)
    n_train = len(train_pairs[0])
    train = torch.arange(n_train)
    D = standardize(D, train)
    probes = fit_probes(D, y, train, 2, cfg)
    with torch.no_grad():
        right = (probes.scores(D).argmax(1) == y).numpy()  # (P, n_all)
    out, start = {}, n_train
    for name, (pa, _) in eval_pairs.items():
        out[name] = right[:, start : start + len(pa)].astype(float)
        start += len(pa)
    return ComparisonProbe(out)


@dataclass(frozen=True)
class AdditionProbe:
    """Absolute error of one addition probe per layer on each named set of pairs: ``error[name]`` is
    (n_layers + 1, n_pairs), in the units of the numbers."""

    error: Mapping[str, np.ndarray]

    def mean_error(self, name: str) -> np.ndarray:
        """Mean absolute error per layer on the pairs ``name``: (n_layers + 1,)."""
        return self.error[name].mean(1)

    def best_layer(self, name: str) -> int:
        """The layer with the smallest mean error on the pairs ``name`` (ties: the lowest layer)."""
        return int(np.argmin(self.mean_error(name)))


def addition_probe(
    X: torch.Tensor,
    values: Sequence[float],
    train_pairs: tuple[np.ndarray, np.ndarray],
    eval_pairs: Mapping[str, tuple[np.ndarray, np.ndarray]],
    l2: float = 1.0,
) -> AdditionProbe:
    """Wallace et al.'s addition task with a linear probe: per layer, ridge regression (penalty ``l2`` on
    standardised features) from ``[X[:, a], X[:, b]]`` to ``values[a] + values[b]``, fitted on ``train_pairs``
    and scored on every set of ``eval_pairs`` (name -> (a, b)) as the absolute error of each predicted sum."""
    if l2 <= 0:
        raise ParameterError(f"l2={l2!r} is not allowed; allowed: a positive ridge penalty")
    v = np.asarray(values, dtype=float)
    sets = {"train": train_pairs, **dict(eval_pairs)}
    a = torch.as_tensor(np.concatenate([np.asarray(p[0]) for p in sets.values()]))
    b = torch.as_tensor(np.concatenate([np.asarray(p[1]) for p in sets.values()]))
    F = torch.cat([X[:, a], X[:, b]], dim=-1).double()  # (P, n_all, 2d)
    y = torch.as_tensor(v[a.numpy()] + v[b.numpy()], dtype=torch.float64)
    train = torch.arange(len(train_pairs[0]))
    F = standardize(F, train)
    Ft, yt = F[:, train], y[train] - y[train].mean()
    eye = torch.eye(F.shape[-1], dtype=torch.float64)
    w = torch.linalg.solve(Ft.transpose(1, 2) @ Ft + l2 * eye, Ft.transpose(1, 2) @ yt[None, :, None])  # (P, 2d, 1)
    err = ((F @ w).squeeze(-1) + y[train].mean() - y).abs().numpy()  # (P, n_all)
    out, start = {}, len(train_pairs[0])
    for name, (pa, _) in eval_pairs.items():
        out[name] = err[:, start : start + len(pa)]
        start += len(pa)
    return AdditionProbe(out)
