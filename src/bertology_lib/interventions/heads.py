"""Attention-head gates, head importance and head pruning (Michel et al. 2019; Kovaleva et al. 2019).

transformers 5 has no ``head_mask`` argument, so heads are gated with our own hooks:
a forward-pre-hook on each block's attention output projection
(``attention.output.dense``) multiplies each head's slice of the context vector by
its gate. A gate of 1 leaves the head as it is; 0 removes its contribution exactly
as if its rows of the value projection (and columns of the output projection) were
deleted, which :func:`prune_heads` then does physically.

Glossary: a head mask / gate tensor is float ``(n_layers, n_heads)``, ``1 = keep``,
0-based layer (block) and head indices. Importance (Michel et al. 2019, eq. 2) is
``I_h = E_x |dL(x)/d gate_h|`` on held-out data, with each batch's mean loss standing
for ``L(x)`` (like HF ``run_bertology.py``); scores are normalised per layer by their
L2 norm, as in Michel et al.'s pruning experiments.

Works on BERT-architecture encoders (the mini-BERT, MiniLM, hub BERTs) and on the
task heads of :mod:`bertology_lib.training.finetune` wrapped around them. Used by the survey
§6 notebook (``survey_06_model_size``).
"""

from __future__ import annotations

import copy
import math
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import pandas as pd
import torch

from bertology_lib.errors import ParameterError
from bertology_lib.interventions.hooks import blocks
from bertology_lib.training.encoding import collate
from bertology_lib.training.predictions import DEFAULT_METRIC, predict


def _attention_blocks(model: torch.nn.Module) -> torch.nn.ModuleList:
    layers = None
    for body in (model, getattr(model, "encoder", None)):
        if isinstance(body, torch.nn.Module):
            try:
                layers = blocks(body)
                break
            except ValueError:
                continue
    if layers is None:
        raise ParameterError(
            f"{type(model).__name__}: no BERT blocks found; allowed: a BERT-architecture "
            "encoder or a finetune head around one"
        )
    for blk in layers:
        if not (
            hasattr(blk, "attention")
            and hasattr(blk.attention, "self")
            and hasattr(blk.attention, "output")
            and hasattr(blk.attention.output, "dense")
        ):
            raise ParameterError(
                f"{type(blk).__name__} is not a BERT block (attention.self, attention.output.dense); "
                "allowed: BERT-architecture encoders"
            )
    return layers


def head_shape(model: torch.nn.Module) -> tuple[int, int]:
    """``(n_layers, n_heads)`` of an unpruned BERT encoder (or finetune head around one)."""
    layers = _attention_blocks(model)
    heads = {int(b.attention.self.num_attention_heads) for b in layers}
    if len(heads) != 1:
        raise ParameterError(
            f"layers have different head counts {sorted(heads)} (physically pruned?); allowed: an unpruned model"
        )
    return len(layers), heads.pop()


def heads_per_layer(model: torch.nn.Module) -> list[int]:
    """Heads left in each layer (differs across layers after :func:`prune_heads`)."""
    return [int(b.attention.self.num_attention_heads) for b in _attention_blocks(model)]


def check_mask(model: torch.nn.Module, mask: Any) -> torch.Tensor:
    """``mask`` as a float (n_layers, n_heads) tensor; a clear error for the wrong shape."""
    shape = head_shape(model)
    if not isinstance(mask, torch.Tensor):
        try:
            mask = torch.as_tensor(mask, dtype=torch.float32)
        except (TypeError, ValueError) as e:
            raise ParameterError(f"mask={mask!r} is not a tensor; allowed: a float tensor of shape {shape}") from e
    if tuple(mask.shape) != shape:
        raise ParameterError(f"mask has shape {tuple(mask.shape)}; allowed: {shape} (n_layers, n_heads)")
    if not torch.isfinite(mask).all():
        raise ParameterError("mask contains NaN or inf; allowed: finite gates (1 = keep, 0 = remove)")
    return mask


@contextmanager
def gate_heads(model: torch.nn.Module, gates: torch.Tensor) -> Iterator[None]:
    """Multiply each head's context vector by ``gates[layer, head]`` during the ``with`` block.

    ``gates`` (n_layers, n_heads) may require grad (importance); hooks are always removed.
    """
    gates = check_mask(model, gates)
    layers = _attention_blocks(model)
    n_heads = gates.shape[1]
    handles = []

    def make(layer: int):
        def hook(_module, args):
            x = args[0]  # (B, T, nh * hs)
            g = gates[layer].to(x.dtype).to(x.device)
            x = (x.view(*x.shape[:-1], n_heads, -1) * g[:, None]).view(x.shape)  # (B, T, nh, hs) gated
            return (x, *args[1:])

        return hook

    try:
        for i, blk in enumerate(layers):
            handles.append(blk.attention.output.dense.register_forward_pre_hook(make(i)))
        yield
    finally:
        for h in handles:
            h.remove()


def _batches(features, pad_id: int, batch_size: int):
    for i in range(0, len(features.rows), batch_size):
        yield collate(features.rows[i : i + batch_size], pad_id)


def head_importance(
    model: torch.nn.Module,
    features,
    pad_id: int,
    mask: torch.Tensor | None = None,
    batch_size: int = 8,
    normalize: bool = True,
) -> torch.Tensor:
    """``|dL/d gate|`` per head, summed over batches of ``features`` (held-out data), in eval mode.

    ``model``: a finetune head (its forward takes ``labels`` and returns ``.loss``);
    ``mask``: heads already removed (their importance is 0). Returns (n_layers, n_heads).
    """
    if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size < 1:
        raise ParameterError(f"batch_size={batch_size!r} is out of range; allowed: an int >= 1")
    if not features.rows:
        raise ParameterError("no examples to score importance on; allowed: a non-empty split")
    shape = head_shape(model)
    mask = torch.ones(shape) if mask is None else check_mask(model, mask).detach().float()
    was_training = model.training
    model.eval()
    dev = next(model.parameters()).device
    gates = mask.clone().requires_grad_(True)  # removed heads sit at 0; their gradient is dropped below
    total = torch.zeros(shape)
    try:
        with gate_heads(model, gates):
            for batch in _batches(features, pad_id, batch_size):
                batch = {k: v.to(dev) for k, v in batch.items()}
                loss = model(**batch).loss
                (grad,) = torch.autograd.grad(loss, gates)
                total += grad.abs().detach()
    finally:
        model.train(was_training)
    total = total * (mask != 0)
    if normalize:
        norm = total.pow(2).sum(-1, keepdim=True).sqrt()
        total = total / norm.clamp_min(1e-20)
    return total


def score_with_mask(
    model: torch.nn.Module, features, pad_id: int, mask: torch.Tensor | None, cfg, n_labels: int = 0
) -> float:
    """The task metric (accuracy, or F1 for QA) of ``model`` on ``features`` with heads gated by ``mask``."""
    if mask is None:
        preds = predict(model, features, pad_id, cfg, n_labels)
    else:
        with gate_heads(model, mask), torch.no_grad():
            preds = predict(model, features, pad_id, cfg, n_labels)
    return float(preds.metrics()[DEFAULT_METRIC[features.kind]])


def pruning_grid(n_heads_total: int, n_points: int, extra: Sequence[float] = (0.4,)) -> list[int]:
    """How many heads are removed at each point of a pruning curve (0 .. all), plus ``extra`` shares."""
    if n_points < 2:
        raise ParameterError(f"n_points={n_points!r} is too few; allowed: an int >= 2")
    ks = {round(i * n_heads_total / (n_points - 1)) for i in range(n_points)}
    ks |= {round(s * n_heads_total) for s in extra}
    return sorted(k for k in ks if 0 <= k <= n_heads_total)


def pruning_curve(
    model: torch.nn.Module,
    dev_features,
    test_features,
    pad_id: int,
    cfg,
    ks: Sequence[int],
    order: str = "importance",
    seed: int = 0,
    importance_batch: int = 8,
    n_labels: int = 0,
    return_masks: bool = False,
) -> Any:
    """Accuracy as heads are removed, most useless first (Michel et al. 2019 §4, Fig. 3).

    ``order="importance"``: iterative: before each step importance is recomputed on the
    dev split with the heads removed so far, and the least important remaining heads
    go. ``order="random"``: one random order of heads (seeded): the control. Accuracy
    is measured on the test split. Returns rows ``removed, share, score, order`` (and, with
    ``return_masks``, the mask at each point: ``(frame, {removed: mask})``).
    """
    orders = ("importance", "random")
    if order not in orders:
        raise ParameterError(f"order={order!r} is not allowed; allowed: {', '.join(orders)}")
    L, H = head_shape(model)
    n = L * H
    ks = sorted({int(k) for k in ks})
    if not ks or ks[0] < 0 or ks[-1] > n:
        raise ParameterError(f"ks={ks!r} are out of range; allowed: head counts in 0..{n}")
    mask = torch.ones(L, H)
    perm = torch.randperm(n, generator=torch.Generator().manual_seed(seed)).tolist()
    rows = []
    masks: dict[int, torch.Tensor] = {}
    removed = 0
    for k in ks:
        while removed < k:
            step = k - removed
            if order == "importance":
                imp = head_importance(model, dev_features, pad_id, mask, importance_batch).flatten()
                imp[mask.flatten() == 0] = math.inf
                drop = imp.argsort()[:step].tolist()
            else:
                drop = perm[removed:k]
            flat = mask.flatten()
            flat[drop] = 0
            mask = flat.view(L, H)
            removed = k
        rows.append(
            {
                "removed": k,
                "share": k / n,
                "score": score_with_mask(model, test_features, pad_id, mask, cfg, n_labels),
                "order": order,
            }
        )
        masks[k] = mask.clone()
    return (pd.DataFrame(rows), masks) if return_masks else pd.DataFrame(rows)


def single_head_ablation(model: torch.nn.Module, features: dict, pad_id: int, cfg, n_labels: int = 0) -> pd.DataFrame:
    """Per head: the score with that head removed, and with only it kept in its layer.

    ``features``: split name -> features (e.g. dev and test). Rows: ``layer, head``,
    ``<split>_full``, ``<split>_removed`` (only this head gated off; Kovaleva et al. 2019
    Fig. 8), ``<split>_only`` (all other heads of this layer gated off; Michel et al.
    2019 Table 2).
    """
    L, H = head_shape(model)
    full = {s: score_with_mask(model, f, pad_id, None, cfg, n_labels) for s, f in features.items()}
    rows = []
    for layer in range(L):
        for head in range(H):
            removed = torch.ones(L, H)
            removed[layer, head] = 0
            only = torch.ones(L, H)
            only[layer] = 0
            only[layer, head] = 1
            row: dict[str, Any] = {"layer": layer, "head": head}
            for s, f in features.items():
                row[f"{s}_full"] = full[s]
                row[f"{s}_removed"] = score_with_mask(model, f, pad_id, removed, cfg, n_labels)
                row[f"{s}_only"] = score_with_mask(model, f, pad_id, only, cfg, n_labels) if H > 1 else full[s]
            rows.append(row)
    return pd.DataFrame(rows)


def best_on_dev(
    ablation: pd.DataFrame, kind: str = "removed", select: str = "dev", report: str = "test"
) -> pd.DataFrame:
    """Per layer: the head chosen on ``select`` (best ``<select>_<kind>``) and its ``report`` score.

    Choosing on dev and reporting test keeps the selection from inflating the gain.
    """
    kinds = ("removed", "only")
    if kind not in kinds:
        raise ParameterError(f"kind={kind!r} is not allowed; allowed: {', '.join(kinds)}")
    idx = ablation.groupby("layer")[f"{select}_{kind}"].idxmax()
    out = ablation.loc[idx, ["layer", "head", f"{select}_{kind}", f"{report}_{kind}", f"{report}_full"]]
    out = out.rename(columns={f"{select}_{kind}": f"{select}_score", f"{report}_{kind}": f"{report}_score"})
    out["delta"] = out[f"{report}_score"] - out[f"{report}_full"]
    return out.reset_index(drop=True)


# -- physical pruning -----------------------------------------------------------------------------


class _NoHeads(torch.nn.Module):
    """Self-attention with every head removed: an empty context (B, T, 0); the output projection adds its bias."""

    num_attention_heads = 0

    def forward(self, hidden_states, *args, **kwargs):
        return hidden_states.new_zeros(*hidden_states.shape[:-1], 0), None


def _shrink(linear: torch.nn.Linear, index: torch.Tensor, dim: int) -> torch.nn.Linear:
    w = linear.weight.detach().index_select(dim, index).clone()
    with warnings.catch_warnings():  # "Initializing zero-element tensors is a no-op" for a layer with no head
        warnings.simplefilter("ignore", UserWarning)
        new = torch.nn.Linear(w.shape[1], w.shape[0], bias=linear.bias is not None).to(w.device, w.dtype)
    with torch.no_grad():
        new.weight.copy_(w)
        if linear.bias is not None:
            new.bias.copy_(linear.bias.detach() if dim == 1 else linear.bias.detach()[index])
    return new


def prune_heads(model: torch.nn.Module, mask: torch.Tensor) -> torch.nn.Module:
    """A copy of ``model`` with the heads where ``mask == 0`` physically removed.

    The query/key/value projections lose those heads' output rows and the attention output
    projection their input columns, so the pruned model computes exactly what the gated one
    does (transformers 5 dropped ``BertModel.prune_heads``; this is its replacement). A layer
    with no head left keeps only its output projection's bias.
    """
    mask = check_mask(model, mask)
    new = copy.deepcopy(model)
    for blk, keep in zip(_attention_blocks(new), mask):
        att = blk.attention.self
        hs = int(att.attention_head_size)
        heads = [h for h in range(len(keep)) if float(keep[h]) != 0.0]
        if len(heads) == len(keep):
            continue
        if not heads:
            blk.attention.self = _NoHeads()
            dense = blk.attention.output.dense
            blk.attention.output.dense = _shrink(dense, torch.zeros(0, dtype=torch.long), 1)
            continue
        index = torch.cat([torch.arange(h * hs, (h + 1) * hs) for h in heads]).to(att.query.weight.device)
        for name in ("query", "key", "value"):
            setattr(att, name, _shrink(getattr(att, name), index, 0))
        blk.attention.output.dense = _shrink(blk.attention.output.dense, index, 1)
        att.num_attention_heads = len(heads)
        att.all_head_size = len(heads) * hs
    return new


def count_parameters(model: torch.nn.Module, nonzero: bool = False) -> int:
    """Parameters of ``model`` (``nonzero``: only those not equal to 0, for unstructured sparsity)."""
    total = 0
    for p in model.parameters():
        total += int((p != 0).sum()) if nonzero else p.numel()
    return total


@torch.no_grad()
def gated_vs_pruned_gap(
    model: torch.nn.Module, pruned: torch.nn.Module, features, pad_id: int, mask: torch.Tensor, batch_size: int = 128
) -> float:
    """Largest ``|logit difference|`` between ``model`` gated by ``mask`` and its physically pruned copy."""
    model.eval()
    pruned.eval()
    gap = 0.0
    with gate_heads(model, mask):
        for batch in _batches(features, pad_id, batch_size):
            batch.pop("labels")
            gap = max(gap, float((model(**batch).logits - pruned(**batch).logits).abs().max()))
    return gap
