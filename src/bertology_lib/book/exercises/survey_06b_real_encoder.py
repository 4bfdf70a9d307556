"""Checkers of the exercises of ``survey_06b_real_encoder`` (§6 II: pruning and quantising a real encoder, Rogers et
al. 2020):

* ``ex-s6r-importance``: the head importance that orders the pruning curve (gate gradients, per-layer L2 norm);
* ``ex-s6r-int8-weights``: the int8 weights that dynamic quantisation computes with.

Every answer is a function, run on hidden cases; the truths come from the library
(``interventions.heads.head_importance``, ``interventions.compression.quantize_int8``) on inputs built here, so none
depends on the profile the notebook runs at or needs a fine-tuned model. Models are built inside
``torch.random.fork_rng`` (``quiet_build``) and a student's function runs inside one too, so checking never moves a
notebook's random state. Used by that notebook's exercise cells.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import accumulate
from typing import Any

from bertology_lib.book.exercises.cases import quiet_build, run_cases
from bertology_lib.book.exercises.checks import checker


S6R_IMPORTANCE_CASES: tuple[tuple[int, int, int, int, tuple[int, ...]], ...] = (
    (2, 4, 32, 2, (4, 4, 4, 3)),
    (3, 2, 24, 3, (5, 5, 2)),
)
"""(blocks, heads per block, width, labels, batch sizes) of the hidden classifiers and their held-out batches:
batches of unequal sizes and lengths (padding), so per-batch and per-sentence gradients differ."""


def _importance_case(i: int):
    """``(model, features, pad_id)`` of hidden case ``i``: a small random BERT under the library's
    classification head, returned in train mode (dropout on, as a model is after fine-tuning), and its
    held-out sentences as ``training.encoding.Features``. Built afresh on every call, without moving the
    global random state."""
    import torch
    from transformers import BertConfig, BertModel

    from bertology_lib.models.task_heads import SequenceClassifier
    from bertology_lib.training.encoding import Features

    n_layers, n_heads, d, n_labels, sizes = S6R_IMPORTANCE_CASES[i]

    def build():
        torch.manual_seed(200 + i)
        cfg = BertConfig(
            vocab_size=30,
            hidden_size=d,
            num_hidden_layers=n_layers,
            num_attention_heads=n_heads,
            intermediate_size=2 * d,
            max_position_embeddings=16,
            initializer_range=0.2,
            attn_implementation="eager",
        )
        return SequenceClassifier(BertModel(cfg, add_pooling_layer=False), n_labels, seed=i).train()

    g = torch.Generator().manual_seed(300 + i)
    rows = []
    for _ in range(sum(sizes)):
        n = int(torch.randint(2, 12, (1,), generator=g))
        rows.append(
            {
                "input_ids": [2] + torch.randint(5, 30, (n,), generator=g).tolist() + [3],
                "labels": int(torch.randint(0, n_labels, (1,), generator=g)),
            }
        )
    feats = Features("classification", [f"x{j}" for j in range(len(rows))], rows, [r["labels"] for r in rows])
    return quiet_build(build), feats, 0


def _batches(feats, pad_id: int, sizes: Sequence[int]) -> list[dict]:
    from bertology_lib.training.encoding import collate

    return [collate(feats.rows[end - b : end], pad_id) for b, end in zip(sizes, accumulate(sizes))]


def s6r_importance_truth(i: int):
    """Head importance of hidden case ``i``: ``interventions.heads.head_importance`` (eval mode; the sum over
    batches of ``|d mean batch loss / d gate|`` per head, each layer's row divided by its L2 norm), with the
    case's batch size (its last batch is the remainder)."""
    model, feats, pad = _importance_case(i)
    return _library_importance(model, feats, pad, S6R_IMPORTANCE_CASES[i][4][0], True)


def _library_importance(model, feats, pad: int, batch_size: int, normalize: bool):
    import torch

    from bertology_lib.interventions import heads

    with torch.random.fork_rng(devices=[]):
        return heads.head_importance(model, feats, pad, batch_size=batch_size, normalize=normalize)


def _gate_grads(model, batches: list[dict]) -> list:
    """The signed gradient of each batch's mean loss with respect to the head gates, in eval mode (the
    building block of the typical mistakes)."""
    import torch

    from bertology_lib.interventions import heads

    model.eval()
    gates = torch.ones(heads.head_shape(model), requires_grad=True)
    out = []
    with heads.gate_heads(model, gates):
        for b in batches:
            (grad,) = torch.autograd.grad(model(**b).loss, gates)
            out.append(grad.detach())
    return out


def _importance_mistakes(i: int) -> dict[str, Any]:
    """The answers of typical mistakes on hidden case ``i``."""
    model, feats, pad = _importance_case(i)
    sizes = S6R_IMPORTANCE_CASES[i][4]
    raw = _library_importance(model, feats, pad, sizes[0], False)

    def per_layer(x):
        return x / x.norm(dim=-1, keepdim=True).clamp_min(1e-20)

    signed = sum(_gate_grads(model, _batches(feats, pad, sizes)))
    single = _batches(feats, pad, [1] * len(feats.rows))
    per_sentence = sum(g.abs() for g in _gate_grads(model, single))
    return {
        "raw": raw,
        "global": raw / raw.norm(),
        "l1": raw / raw.sum(-1, keepdim=True),
        "signed": per_layer(signed.abs()),
        "per sentence": per_layer(per_sentence),
    }


_IMPORTANCE_HINTS = {
    "raw": "the sums are right; now normalise them as the library does: divide each layer's row by its L2 norm "
    "(Michel et al. compare heads within a layer).",
    "global": "normalise each layer's row by its own L2 norm, not the whole matrix by one norm.",
    "l1": "divide each layer's row by its L2 norm (the square root of the sum of squares), not by its sum.",
    "signed": "take the absolute value of each batch's gradient before summing over the batches: gradients of "
    "opposite sign must not cancel.",
    "per sentence": "use each batch's mean loss (model(**batch).loss), one gradient per batch, as the library "
    "and HF run_bertology.py do, not one gradient per sentence.",
}


_IMPORTANCE_TOL = 1e-4


def _as_tensor(x: Any):
    import torch

    try:
        return torch.as_tensor(x.detach() if hasattr(x, "detach") else x, dtype=torch.float64)
    except (TypeError, ValueError, RuntimeError):
        return None


def _close(a, b, tol: float) -> bool:
    return (
        a is not None
        and b is not None
        and tuple(a.shape) == tuple(b.shape)
        and float((a.double() - b.double()).abs().max()) <= tol
    )


@checker("ex-s6r-importance")
def _check_s6r_importance(answer):
    """``answer``: a function ``importance(model, batches)`` taking a fine-tuned classifier (the library's
    task head; handed over in train mode) and a list of padded batches (``training.encoding.collate``: input_ids,
    attention_mask, labels), returning the (n_layers, n_heads) head importance in eval mode: the sum over the
    batches of ``|d loss / d gate|`` of every head (loss: the batch's mean loss; gates: ``heads.gate_heads``), each
    layer's row divided by its L2 norm, as ``heads.head_importance``; run on hidden small BERTs, +-1e-4."""
    import torch

    n = len(S6R_IMPORTANCE_CASES)

    def show(case) -> str:  # the hidden encoder's config: its shape even after a student's function pruned it
        cfg = case[0].encoder.config
        return f"importance(model, batches) on a hidden {cfg.num_hidden_layers} x {cfg.num_attention_heads}-head BERT"

    with torch.random.fork_rng(devices=[]):  # a student's dropout draws random numbers too
        got, err = run_cases(answer, "importance", [_student_case(i) for i in range(n)], show)
        if err:
            return False, err
        again, err = run_cases(answer, "importance", [_student_case(i) for i in range(n)], show)
    if err:
        return False, err
    vals = [_as_tensor(g) for g in got]
    shapes = [tuple(S6R_IMPORTANCE_CASES[i][:2]) for i in range(n)]
    bad = next((i for i, (v, s) in enumerate(zip(vals, shapes)) if v is None or tuple(v.shape) != s), None)
    if bad is not None:
        what = f"shape {tuple(vals[bad].shape)}" if vals[bad] is not None else type(got[bad]).__name__
        return False, (
            "importance should return one number per head: a (n_layers, n_heads) tensor (here "
            f"{shapes[bad]}), got {what}."
        )
    if not all(_close(v, _as_tensor(a), _IMPORTANCE_TOL) for v, a in zip(vals, again)):
        return False, (
            "two calls on the same model and batches give different importances: dropout is on. Put the "
            "model in eval mode (model.eval()) first: the importance of one fixed model."
        )
    truth = [s6r_importance_truth(i) for i in range(n)]
    if all(_close(v, t, _IMPORTANCE_TOL) for v, t in zip(vals, truth)):
        return True, (
            "correct: the gate gradient says how much the loss would change if a head were scaled down; "
            "the pruning curve removes the heads with the smallest one first."
        )
    mistakes = [_importance_mistakes(i) for i in range(n)]
    for key, hint in _IMPORTANCE_HINTS.items():
        if all(_close(v, m[key], _IMPORTANCE_TOL) for v, m in zip(vals, mistakes)):
            return False, hint
    return False, (
        "not yet: in eval mode, with gates = ones(n_layers, n_heads) requiring grad inside "
        "heads.gate_heads(model, gates), add up |d loss / d gates| over the batches, then divide each "
        "layer's row by its L2 norm."
    )


def _student_case(i: int) -> tuple:
    model, feats, pad = _importance_case(i)
    return model, _batches(feats, pad, S6R_IMPORTANCE_CASES[i][4])


S6R_INT8_CASES: tuple[tuple[int, int, str], ...] = (
    (48, 32, "positive max"),
    (64, 96, "negative max"),
    (32, 32, "all positive"),
    (16, 128, "rows apart"),
)
"""(rows, columns, kind) of the hidden weight matrices: the largest ``|w|`` positive and shared by many weights
(where rounding reaches 128 and must be clipped) or negative, all weights positive (a min/max affine scale
differs most), and rows of very different scales (one scale per row differs most)."""


def s6r_int8_cases() -> list:
    """The hidden weight matrices (float32), from a private generator."""
    import torch

    g = torch.Generator().manual_seed(7)
    out = []
    for rows, cols, kind in S6R_INT8_CASES:
        w = torch.randn(rows, cols, generator=g) * 0.05
        if kind == "positive max":  # a tenth of the weights sit at +max|w|
            w = w.clamp(-0.05, 0.06)
        elif kind == "negative max":
            w[7, 11] = -0.3
        elif kind == "all positive":
            w = torch.rand(rows, cols, generator=g) * 0.1
        else:
            w = w * torch.tensor([10.0 ** (r % 3 - 1) for r in range(rows)])[:, None]
        out.append(w)
    return out


def s6r_int8_truth(w):
    """The weight matrix that ``interventions.compression.quantize_int8`` (torch dynamic quantisation) computes
    with in place of ``w``: the dequantised int8 weight of a Linear layer holding ``w``."""
    import torch

    from bertology_lib.interventions.compression import quantize_int8

    def layer():
        lin = torch.nn.Linear(w.shape[1], w.shape[0])
        with torch.no_grad():
            lin.weight.copy_(w)
        return torch.nn.Sequential(lin)

    return quantize_int8(quiet_build(layer))[0].weight().dequantize()


def _int8_mistakes(w) -> dict[str, Any]:
    import torch

    def grid(x, scale, zero=0.0, rnd=torch.round, lo=-128, hi=127):
        q = rnd(x / scale + zero)
        return (q if lo is None else torch.clamp(q, lo, hi)) - zero

    m = w.abs().max()
    s = m / 127.5
    row = w.abs().amax(dim=1, keepdim=True) / 127.5
    a_scale = (w.max().clamp_min(0) - w.min().clamp_max(0)) / 255
    zero = torch.round(-128 - w.min().clamp_max(0) / a_scale)
    return {
        "127": grid(w, m / 127) * (m / 127),
        "128": grid(w, m / 128) * (m / 128),
        "affine": grid(w, a_scale, zero) * a_scale,
        "per row": grid(w, row) * row,
        "truncated": grid(w, s, rnd=torch.trunc) * s,
        "unclipped": grid(w, s, lo=None) * s,
        "integers": grid(w, s),
        "identity": w,
    }


_INT8_HINTS = {
    "127": "the scale spreads 2 max|w| over the 255 steps from -128 to 127 (max|w| / 127.5), not max|w| over 127.",
    "128": "the scale spreads 2 max|w| over the 255 steps from -128 to 127 (max|w| / 127.5), not max|w| over 128.",
    "affine": "torch's int8 weights are symmetric: zero point 0 and a scale from max|w|, not from the range "
    "min(w) .. max(w).",
    "per row": "one scale for the whole matrix (per tensor), from the largest |w| of all its rows.",
    "truncated": "round w / scale to the nearest integer; truncating moves every weight towards 0.",
    "unclipped": "clip q to [-128, 127]: the largest positive weight lands on 127.5, which rounds to 128 and "
    "does not fit in int8.",
    "integers": "those are the int8 numbers q; return the weights the model computes with, q x scale.",
    "identity": "that is w itself: quantisation moves every weight to the nearest of 256 evenly spaced values.",
}


def _int8_disagreement(got, want) -> float | None:
    """Share of entries more than a thousandth of a quantisation step apart, or None for the wrong shape."""
    if got is None or tuple(got.shape) != tuple(want.shape):
        return None
    step = float(want.abs().max()) / 127.5 or 1.0
    return float(((got.double() - want.double()).abs() > 1e-3 * step).double().mean())


@checker("ex-s6r-int8-weights")
def _check_s6r_int8(answer):
    """``answer``: a function ``int8_weight(w)`` taking a float weight matrix and returning the float matrix
    q x scale that torch's dynamic int8 quantisation (``comp.quantize_int8``) computes with: one scale per
    matrix, ``max|w| / 127.5``, zero point 0, q = w / scale rounded to the nearest integer and clipped to
    [-128, 127]; run on hidden matrices, at most 0.1% of the entries may differ (rounding ties)."""
    import torch

    cases = s6r_int8_cases()
    with torch.random.fork_rng(devices=[]):
        got, err = run_cases(
            answer,
            "int8_weight",
            [(w.clone(),) for w in cases],
            lambda c: f"int8_weight(w) on a hidden {tuple(c[0].shape)} matrix",
        )
    if err:
        return False, err
    vals = [_as_tensor(g) for g in got]
    dis = [_int8_disagreement(v, s6r_int8_truth(w)) for v, w in zip(vals, cases)]
    bad = next((i for i, d in enumerate(dis) if d is None), None)
    if bad is not None:
        what = f"shape {tuple(vals[bad].shape)}" if vals[bad] is not None else type(got[bad]).__name__
        return False, f"int8_weight should return a float matrix of w's shape {tuple(cases[bad].shape)}, got {what}."
    if all(d <= 0.001 for d in dis):
        return True, (
            "correct: every weight moves by at most half a step, max|w| / 255; one outlier weight widens "
            "the step for the whole matrix."
        )
    for key, hint in _INT8_HINTS.items():
        if all(_int8_disagreement(v, _int8_mistakes(w)[key]) <= 0.001 for v, w in zip(vals, cases)):
            return False, hint
    i = next(i for i, d in enumerate(dis) if d > 0.001)
    return False, (
        f"not yet: on a hidden {tuple(cases[i].shape)} matrix {dis[i]:.0%} of the entries differ; "
        "scale = max|w| / 127.5, q = w / scale rounded and clipped to [-128, 127], return q x scale."
    )
