"""Reconstructing the input from every layer (Kao et al. 2020 §3): the measurement with its baselines.

The claim is measured on the worst hidden layer, against the same measurement on the model's random-init
twin (its null model: same architecture and tokenizer, untrained), with a 95% interval from resampling
sentences; the instrument check is that the model is a working masked LM at all (held-out masked-word
accuracy above the unigram baseline). :func:`across_variants` takes the same measurement (no duplication) for
several masked LMs, each against its own twin. Used by ``notebooks/duplication_01_reconstruction.ipynb``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd
import torch

from bertology_lib.training.pretrain import masked_accuracy, unigram_accuracy
from bertology_lib.analysis.reconstruction import Reconstruction, reconstruction_counts, reconstruction_gap
from bertology_lib.errors import ParameterError
from bertology_lib.interventions.duplication import duplicate_layers
from bertology_lib.models.baselines import random_init_like


@dataclass
class ReconstructionStudy:
    """Per-sentence reconstruction counts of the model, its duplicated copy and their random-init twins,
    and the model's held-out masked-word accuracy beside the unigram baseline."""

    original: Reconstruction
    duplicated: Reconstruction | None
    twin: Reconstruction
    twin_duplicated: Reconstruction | None
    mlm_accuracy: float
    unigram_accuracy: float

    def gap(self, duplicated: bool = False, seed: int = 0) -> dict[str, float]:
        """The worst hidden layer's reconstruction minus the twin's at that layer, with its 95% interval."""
        if duplicated:
            if self.duplicated is None:
                raise ParameterError("duplicated=True, but this study ran without a duplication pattern")
            return reconstruction_gap(self.duplicated, self.twin_duplicated, seed=seed)
        return reconstruction_gap(self.original, self.twin, seed=seed)


def study(
    mlm: torch.nn.Module,
    twin: torch.nn.Module,
    tokenizer,
    texts: Sequence[str],
    pattern: Sequence[int] | None,
    train_texts: Sequence[str] | None = None,
) -> ReconstructionStudy:
    """Count reconstruction on ``texts`` for ``mlm``, its copy duplicated per ``pattern`` (no training; None: no
    duplicated copies, half the work), and the same for ``twin``; measure ``mlm``'s held-out masked-word accuracy against the unigram baseline
    (token frequencies from ``train_texts``, default ``texts``)."""
    texts = list(texts)

    def duplicated(model):
        return (
            None if pattern is None else reconstruction_counts(duplicate_layers(model, list(pattern)), tokenizer, texts)
        )

    return ReconstructionStudy(
        original=reconstruction_counts(mlm, tokenizer, texts),
        duplicated=duplicated(mlm),
        twin=reconstruction_counts(twin, tokenizer, texts),
        twin_duplicated=duplicated(twin),
        mlm_accuracy=masked_accuracy(mlm, tokenizer, texts),
        unigram_accuracy=unigram_accuracy(list(train_texts or texts), tokenizer, texts),
    )


def across_variants(models: Mapping[str, tuple[Any, Any]], texts: Sequence[str], seed: int = 0) -> pd.DataFrame:
    """For each masked LM of ``models`` (name -> (model, tokenizer)): the worst hidden layer's reconstruction on
    ``texts`` minus its random-init twin's (:func:`~bertology_lib.analysis.reconstruction.reconstruction_gap`:
    ``gap``, ``low``, ``high``, ``layer``, ``model``, ``baseline``, ``moved``: the residual-path control), and its held-out masked-word accuracy beside
    the unigram baseline (``mlm_accuracy``, ``unigram_accuracy``). One row per model, indexed by name."""
    if not models:
        raise ParameterError("models is empty; allowed: a mapping of names to (masked LM, tokenizer)")
    texts, rows = list(texts), {}
    for name, (mlm, tok) in models.items():
        g = reconstruction_gap(
            reconstruction_counts(mlm, tok, texts), reconstruction_counts(random_init_like(mlm), tok, texts), seed=seed
        )
        rows[name] = {
            **g,
            "mlm_accuracy": masked_accuracy(mlm, tok, texts),
            "unigram_accuracy": unigram_accuracy(texts, tok, texts),
        }
    return pd.DataFrame(rows).T
