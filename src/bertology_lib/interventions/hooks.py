"""Interventions on a running model through forward hooks.

Hooks are registered in context managers that always remove them. Layer
indices follow :mod:`bertology_lib.analysis.activations`: ``0`` is the embedding
output, ``l >= 1`` the output of block ``l - 1`` (``blocks.{l-1}.hook_resid_post``).

Used by amnesic probing (survey §3.4). Head gates and pruning live in
:mod:`bertology_lib.interventions.heads`, layer duplication in
:mod:`bertology_lib.interventions.duplication`, compression in
:mod:`bertology_lib.interventions.compression`.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

import torch

from bertology_lib.errors import ParameterError


def blocks_path(model) -> list[str]:
    """Attribute path of a model's ``ModuleList`` of transformer blocks (e.g. ``["bert", "encoder", "layer"]``)."""
    for path in ("bert.encoder.layer", "encoder.layer", "model.layers", "layers", "transformer.h"):
        obj = model
        try:
            for part in path.split("."):
                obj = getattr(obj, part)
        except AttributeError:
            continue
        if isinstance(obj, torch.nn.ModuleList):
            return path.split(".")
    raise ParameterError(f"{type(model).__name__}: no transformer blocks found (looked for encoder.layer, layers, h)")


def blocks(model) -> torch.nn.ModuleList:
    """The list of transformer blocks of an HF encoder/decoder (BERT, Llama, GPT-2)."""
    obj = model
    for part in blocks_path(model):
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
    raise ParameterError(f"{type(model).__name__}: no embedding module found")


@contextmanager
def edit_layer_output(model, layer: int, fn) -> Iterator[None]:
    """Replace the residual stream after ``layer`` by ``fn(hidden)`` during the ``with`` block.

    Note: transformers 5 records ``output_hidden_states`` with its own hooks,
    which see the block's output *before* this edit; downstream layers and the
    logits see the edited stream.
    """
    n = len(blocks(model))
    if not 0 <= layer <= n:
        raise ParameterError(f"layer={layer} is out of range; allowed: 0..{n} (0 = embeddings)")
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
