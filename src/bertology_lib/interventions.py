"""Interventions on a running model through forward hooks.

Hooks are registered in context managers that always remove them. Layer
indices follow :mod:`bertology_lib.activations`: ``0`` is the embedding
output, ``l >= 1`` the output of block ``l - 1`` (``blocks.{l-1}.hook_resid_post``).

Used by the survey §3 (amnesic probing) notebooks; head gates, pruning and
layer duplication land here too.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

import torch


def blocks(model) -> torch.nn.ModuleList:
    """The list of transformer blocks of an HF encoder/decoder (BERT, Llama, GPT-2)."""
    obj = model
    for part in _blocks_path(model):
        obj = getattr(obj, part)
    return obj


def embeddings_module(model) -> torch.nn.Module:
    for path in ("bert.embeddings", "embeddings", "model.embed_tokens", "transformer.wte"):
        obj = model
        try:
            for part in path.split("."):
                obj = getattr(obj, part)
            return obj
        except AttributeError:
            continue
    raise ValueError(f"{type(model).__name__}: no embedding module found")


@contextmanager
def edit_layer_output(model, layer: int, fn) -> Iterator[None]:
    """Replace the residual stream after ``layer`` by ``fn(hidden)`` during the ``with`` block.

    Note: transformers 5 records ``output_hidden_states`` with its own hooks,
    which see the block's output *before* this edit; downstream layers and the
    logits see the edited stream.
    """
    n = len(blocks(model))
    if not 0 <= layer <= n:
        raise ValueError(f"layer={layer} is out of range; allowed: 0..{n} (0 = embeddings)")
    module = embeddings_module(model) if layer == 0 else blocks(model)[layer - 1]

    def hook(_module, _inputs, output):
        if isinstance(output, tuple):
            return (fn(output[0]), *output[1:])
        return fn(output)

    handle = module.register_forward_hook(hook)
    try:
        yield
    finally:
        handle.remove()


def project_out(model, layer: int, P: torch.Tensor, mean: torch.Tensor | None = None):
    """Apply the projection ``P`` (d, d) to the residual stream after ``layer`` (amnesic probing).

    With ``mean`` the projection acts on centred states: ``x' = mean + (x - mean) P``
    (P is symmetric for an orthogonal projection).
    """
    P = P.float()
    mu = torch.zeros(P.shape[0]) if mean is None else mean.float()

    def fn(h: torch.Tensor) -> torch.Tensor:
        m, p = mu.to(h), P.to(h)
        return m + (h - m) @ p

    return edit_layer_output(model, layer, fn)


# -- layer duplication (Kao et al. 2020) -------------------------------------------------
def duplication_pattern(n_layers: int, kind: str = "first", k: int | None = None,
                        layers: list[int] | None = None) -> list[int]:
    """Which source block each block of the deeper model copies, in order.

    ``kind``: ``first`` (duplicate the first ``k`` blocks: 0,0,1,1,...,k-1,k-1,k,...),
    ``every`` (every block twice), ``set`` (duplicate the blocks in ``layers``),
    ``none`` (identity). 0-based block indices.
    """
    kinds = ("first", "every", "set", "none")
    if kind not in kinds:
        raise ValueError(f"kind={kind!r} is not a duplication pattern; allowed: {', '.join(kinds)}")
    if kind == "first":
        if k is None or not 0 <= k <= n_layers:
            raise ValueError(f"k={k!r} is out of range; allowed: 0..{n_layers}")
        chosen = set(range(k))
    elif kind == "every":
        chosen = set(range(n_layers))
    elif kind == "set":
        bad = [i for i in (layers or []) if not 0 <= i < n_layers]
        if layers is None or bad:
            raise ValueError(f"layers={layers!r} must list block indices in 0..{n_layers - 1}")
        chosen = set(layers)
    else:
        chosen = set()
    return [i for i in range(n_layers) for _ in range(2 if i in chosen else 1)]


def duplicate_layers(model, pattern: list[int]):
    """A new model whose blocks are independent copies of ``model``'s blocks in ``pattern`` order.

    No weight sharing: every copy has its own parameters, so fine-tuning can
    move them apart. The config's ``num_hidden_layers`` is updated, so
    ``save_pretrained``/``from_pretrained`` round-trips the deeper model.
    """
    import copy

    src = blocks(model)
    if not pattern or any(not 0 <= i < len(src) for i in pattern):
        raise ValueError(f"pattern={pattern!r} must list block indices in 0..{len(src) - 1}")
    new = copy.deepcopy(model)
    new_blocks = torch.nn.ModuleList(copy.deepcopy(src[i]) for i in pattern)
    for idx, blk in enumerate(new_blocks):
        for mod in blk.modules():  # transformers 5 attention modules carry their block index
            if hasattr(mod, "layer_idx"):
                mod.layer_idx = idx
    parent = new
    path = _blocks_path(new)
    for part in path[:-1]:
        parent = getattr(parent, part)
    setattr(parent, path[-1], new_blocks)
    new.config.num_hidden_layers = len(pattern)
    if getattr(new.config, "layer_types", None) is not None:
        new.config.layer_types = [new.config.layer_types[i] for i in pattern]
    return new


def _blocks_path(model) -> list[str]:
    for path in ("bert.encoder.layer", "encoder.layer", "model.layers", "layers", "transformer.h"):
        obj = model
        try:
            for part in path.split("."):
                obj = getattr(obj, part)
        except AttributeError:
            continue
        if isinstance(obj, torch.nn.ModuleList):
            return path.split(".")
    raise ValueError(f"{type(model).__name__}: no transformer blocks found (looked for encoder.layer, layers, h)")


@torch.no_grad()
def reconstruction_by_layer(mlm, tokenizer, texts: list[str], batch_size: int = 64) -> "pd.DataFrame":
    """Feed every layer's hidden states, unchanged, to the MLM head (Kao et al. 2020).

    Returns one row per layer (0 = embeddings): ``reconstruction`` (share of
    input tokens the head's argmax recovers, special tokens excluded) and
    ``logit_lens_next``: for contrast, how often the head's prediction at a
    layer equals the *final* layer's prediction.
    """
    import pandas as pd

    head = getattr(mlm, "cls", None) or getattr(mlm, "predictions", None)
    if head is None:
        raise ValueError(f"{type(mlm).__name__} has no MLM head (cls); load it with head='mlm'")
    dev = next(mlm.parameters()).device
    special = set(tokenizer.all_special_ids)
    hits = agree = None
    total = 0
    for i in range(0, len(texts), batch_size):
        enc = tokenizer(texts[i : i + batch_size], return_tensors="pt", padding=True, truncation=True)
        enc = {k: v.to(dev) for k, v in enc.items() if k in ("input_ids", "attention_mask", "token_type_ids")}
        hs = mlm(**enc, output_hidden_states=True).hidden_states  # L+1 x (B, T, d)
        ids = enc["input_ids"]
        keep = enc["attention_mask"].bool() & ~torch.isin(ids, torch.tensor(sorted(special), device=dev))
        preds = [head(h).argmax(-1) for h in hs]
        h_ = torch.tensor([int((p == ids)[keep].sum()) for p in preds])
        a_ = torch.tensor([int((p == preds[-1])[keep].sum()) for p in preds])
        hits = h_ if hits is None else hits + h_
        agree = a_ if agree is None else agree + a_
        total += int(keep.sum())
    return pd.DataFrame({"layer": range(len(hits)), "reconstruction": (hits / total).numpy(),
                         "agrees_with_final": (agree / total).numpy(), "n_tokens": total})
