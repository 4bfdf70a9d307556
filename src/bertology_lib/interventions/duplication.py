"""Layer duplication (Kao et al. 2020): deeper models whose blocks are copies of a model's own blocks.

:func:`duplication_pattern` says which source block each new block copies; :func:`duplicate_layers`
builds the model (independent copies, so fine-tuning can move them apart); :func:`duplicated` is the
same as a :class:`~bertology_lib.models.sources.ModelSource` for fine-tuning, keyed by its base.
Also used to keep a subset of blocks (layer dropping, distillation students, progressive stacking).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

import torch

from bertology_lib.errors import ParameterError
from bertology_lib.interventions.hooks import blocks, blocks_path
from bertology_lib.models.sources import ModelSource, as_source


def duplication_pattern(
    n_layers: int, kind: str = "first", k: int | None = None, layers: list[int] | None = None
) -> list[int]:
    """Which source block each block of the deeper model copies, in order.

    ``kind``: ``first`` (duplicate the first ``k`` blocks: 0,0,1,1,...,k-1,k-1,k,...),
    ``every`` (every block twice), ``set`` (duplicate the blocks in ``layers``),
    ``none`` (identity). 0-based block indices.
    """
    kinds = ("first", "every", "set", "none")
    if kind not in kinds:
        raise ParameterError(f"kind={kind!r} is not a duplication pattern; allowed: {', '.join(kinds)}")
    if kind == "first":
        if k is None or not 0 <= k <= n_layers:
            raise ParameterError(f"k={k!r} is out of range; allowed: 0..{n_layers}")
        chosen = set(range(k))
    elif kind == "every":
        chosen = set(range(n_layers))
    elif kind == "set":
        bad = [i for i in (layers or []) if not 0 <= i < n_layers]
        if layers is None or bad:
            raise ParameterError(f"layers={layers!r} must list block indices in 0..{n_layers - 1}")
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
    src = blocks(model)
    if not pattern or any(not 0 <= i < len(src) for i in pattern):
        raise ParameterError(f"pattern={pattern!r} must list block indices in 0..{len(src) - 1}")
    new = copy.deepcopy(model)
    new_blocks = torch.nn.ModuleList(copy.deepcopy(src[i]) for i in pattern)
    for idx, blk in enumerate(new_blocks):
        for mod in blk.modules():  # transformers 5 attention modules carry their block index
            if hasattr(mod, "layer_idx"):
                mod.layer_idx = idx
    parent = new
    path = blocks_path(new)
    for part in path[:-1]:
        parent = getattr(parent, part)
    setattr(parent, path[-1], new_blocks)
    new.config.num_hidden_layers = len(pattern)
    if getattr(new.config, "layer_types", None) is not None:
        new.config.layer_types = [new.config.layer_types[i] for i in pattern]
    return new


def duplicated(base: Any, pattern: Sequence[int], name: str | None = None) -> ModelSource:
    """``base`` with its blocks duplicated per ``pattern`` (:func:`duplicate_layers`), as a model source.

    The copies are independent parameters; the tokenizer and the cache key follow ``base``.
    """
    base = as_source(base)
    pattern = [int(i) for i in pattern]

    def factory() -> torch.nn.Module:
        return duplicate_layers(base.load_model(), pattern)

    key = base.cache_key()
    return ModelSource(
        name or f"{base.name}+dup{pattern}",
        base.profile,
        base.seed,
        factory=factory,
        tokenizer=base,
        key=None if key is None else {"base": key, "duplicate": pattern},
    )
