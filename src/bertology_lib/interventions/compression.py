"""Making a fine-tuned encoder smaller: dropping blocks, int8 quantisation, magnitude pruning, lottery tickets.

Tools of the survey's §6 (Rogers et al. 2020), each taking a task head on an encoder
(:mod:`bertology_lib.models.task_heads`) and returning a changed copy:

* layer dropping (:func:`drop_layers`; Sajjad et al. 2020);
* dynamic int8 quantisation of the Linear layers (:func:`quantize_int8`, :func:`linear_weight_bytes`;
  Zafrir et al. 2019, Q8BERT);
* unstructured magnitude pruning (:func:`magnitude_masks`, :func:`apply_masks`; Gordon et al. 2020) and
  lottery-ticket rewinding (:func:`masked_source`: the surviving weights rewound to their
  *pre-fine-tuning* values and retrained with the mask fixed, against :func:`random_masks_like` of the
  same per-matrix sparsity; Chen et al. 2020, Prasanna et al. 2020).

Head gates, importance and physical head pruning live in :mod:`bertology_lib.interventions.heads`,
distillation in :mod:`bertology_lib.interventions.distill`, latency in :mod:`bertology_lib.analysis.latency`.
"""

from __future__ import annotations

import copy
import hashlib
import io
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import torch

from bertology_lib.errors import ParameterError
from bertology_lib.interventions.duplication import duplicate_layers
from bertology_lib.interventions.hooks import blocks
from bertology_lib.models.sources import ModelSource, as_source
from bertology_lib.models.task_heads import TaskHead, encoder_of
from bertology_lib.validation import check_float, check_seed


def check_sparsity(s: Any, name: str = "sparsity") -> float:
    """A sparsity: a float in [0, 1)."""
    return check_float(name, s, 0.0, 1.0, open_max=True)


def drop_layers(model: torch.nn.Module, keep: Sequence[int]) -> torch.nn.Module:
    """A copy of a finetune head whose encoder keeps only blocks ``keep`` (0-based, in order)."""
    n = len(blocks(model.encoder))
    keep = [int(i) for i in keep]
    if not keep or any(not 0 <= i < n for i in keep) or len(set(keep)) != len(keep):
        raise ParameterError(
            f"keep={keep!r} is invalid; allowed: a non-empty list of distinct block indices in 0..{n - 1}"
        )
    new = copy.deepcopy(model)
    new.encoder = duplicate_layers(model.encoder, keep)
    return new.eval()


def quantize_int8(model: torch.nn.Module) -> torch.nn.Module:
    """A copy with every ``nn.Linear`` dynamically quantised to int8 (weights int8, activations at run time)."""
    with warnings.catch_warnings():  # torch.ao eager quantisation prints a migration notice
        warnings.simplefilter("ignore")
        return torch.ao.quantization.quantize_dynamic(copy.deepcopy(model).eval(), {torch.nn.Linear}, dtype=torch.qint8)


def linear_weight_bytes(model: torch.nn.Module) -> int:
    """Bytes of the Linear layers' parameters: fp32 weights and biases, or int8 weights + fp32 bias + scale/zero point."""
    from torch.ao.nn.quantized.dynamic import Linear as QLinear

    total = 0
    for m in model.modules():
        if isinstance(m, QLinear):
            w = m.weight()
            total += w.numel() * w.element_size() + 16  # per-tensor scale (float64) and zero point (int64)
            b = m.bias()
            total += 0 if b is None else b.numel() * b.element_size()
        elif isinstance(m, torch.nn.Linear):
            total += sum(p.numel() * p.element_size() for p in m.parameters(recurse=False))
    return total


def serialized_bytes(model: torch.nn.Module) -> int:
    """Size of the model's state dict as written by ``torch.save`` (in memory; never read back)."""
    buf = io.BytesIO()
    torch.save(model.state_dict(), buf)
    return len(buf.getvalue())


def prunable_weights(model: torch.nn.Module) -> dict[str, torch.nn.Linear]:
    """The Linear layers inside the encoder's blocks, by name relative to the encoder body.

    Embeddings, the pooler and the task head are not pruned (as in Chen et al. 2020).
    """
    enc = encoder_of(model.encoder if isinstance(model, TaskHead) else model)
    out = {}
    for name, m in enc.named_modules():
        if isinstance(m, torch.nn.Linear) and ".layer." in f".{name}":
            out[name] = m
    if not out:
        raise ParameterError(f"{type(model).__name__} has no Linear layers in its blocks; allowed: a BERT encoder")
    return out


def magnitude_masks(model: torch.nn.Module, sparsity: float) -> dict[str, torch.Tensor]:
    """Global magnitude pruning: keep the largest ``1 - sparsity`` of all block weights (bool masks, True = keep)."""
    sparsity = check_sparsity(sparsity)
    layers = prunable_weights(model)
    flat = torch.cat([m.weight.detach().abs().flatten() for m in layers.values()])
    n_prune = int(round(sparsity * flat.numel()))
    if n_prune == 0:
        return {n: torch.ones_like(m.weight.detach(), dtype=torch.bool) for n, m in layers.items()}
    threshold = flat.kthvalue(n_prune).values
    masks = {n: m.weight.detach().abs() > threshold for n, m in layers.items()}
    return masks


def random_masks_like(masks: Mapping[str, torch.Tensor], seed: int = 0) -> dict[str, torch.Tensor]:
    """Random masks with the same number of kept weights in every matrix (the lottery control)."""
    g = torch.Generator().manual_seed(check_seed(seed))
    out = {}
    for n, m in masks.items():
        keep = int(m.sum())
        flat = torch.zeros(m.numel(), dtype=torch.bool)
        flat[torch.randperm(m.numel(), generator=g)[:keep]] = True
        out[n] = flat.view(m.shape)
    return out


def mask_sparsity(masks: Mapping[str, torch.Tensor]) -> float:
    total = sum(m.numel() for m in masks.values())
    return 1.0 - sum(int(m.sum()) for m in masks.values()) / total


def apply_masks(model: torch.nn.Module, masks: Mapping[str, torch.Tensor]) -> torch.nn.Module:
    """A copy of ``model`` with the masked-out block weights set to 0 (no retraining)."""
    new = copy.deepcopy(model)
    layers = prunable_weights(new)
    unknown = sorted(set(masks) - set(layers))
    if unknown:
        raise ParameterError(f"masks name unknown layers {unknown[:3]}; allowed: {sorted(layers)[:3]} ...")
    with torch.no_grad():
        for n, m in masks.items():
            layers[n].weight.mul_(m.to(layers[n].weight.dtype))
    return new.eval()


def masks_fingerprint(masks: Mapping[str, torch.Tensor]) -> str:
    h = hashlib.sha256()
    for n in sorted(masks):
        h.update(n.encode())
        h.update(masks[n].to(torch.uint8).numpy().tobytes())
    return h.hexdigest()[:20]


def masked_source(base: Any, masks: Mapping[str, torch.Tensor], name: str) -> ModelSource:
    """``base`` at its *pre-fine-tuning* weights with ``masks`` fixed (lottery-ticket rewinding).

    The masked weights stay 0 through fine-tuning (``torch.nn.utils.prune.custom_from_mask``
    reparametrises ``weight = weight_orig * mask``). Cached by the base's key and the masks' hash.
    """
    from torch.nn.utils import prune

    base = as_source(base)
    masks = {n: m.clone() for n, m in masks.items()}

    def factory() -> torch.nn.Module:
        model = base.load_model()
        layers = prunable_weights(model)
        unknown = sorted(set(masks) - set(layers))
        if unknown:
            raise ParameterError(f"masks name unknown layers {unknown[:3]}; allowed: {sorted(layers)[:3]} ...")
        for n, m in masks.items():
            prune.custom_from_mask(layers[n], "weight", m.to(layers[n].weight.dtype))
        return model

    key = base.cache_key()
    return ModelSource(
        name,
        base.profile,
        base.seed,
        factory=factory,
        tokenizer=base,
        key=None if key is None else {"base": key, "masks": masks_fingerprint(masks)},
    )
