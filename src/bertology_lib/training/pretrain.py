"""The one masked-LM pre-training pipeline: objective -> batches -> masked-only training view -> the loop.

Every BERT the book pre-trains goes through :func:`pretrain_mlm`: the embedded mini-BERT
(:mod:`bertology_lib.models.minibert`), the §5 lab BERTs and their objective variants
(:mod:`bertology_lib.experiments.survey.pretraining`) and the physics BERT on biographies
(:mod:`bertology_lib.experiments.physics.bert`). What differs between them is data, sizes and the
:class:`MLMObjective`:

* ``unit``: what is picked for masking: a ``token`` (a word piece), a whole ``word`` (Cui et al. 2019)
  or a ``span`` of words (SpanBERT, Joshi et al. 2020: geometric lengths, ``span_p`` 0.2, at most 10);
* ``corruption``: ``80/10/10`` (BERT: of the picked tokens 80% -> [MASK], 10% random, 10% kept) or
  ``mask-only`` (every picked token -> [MASK]; Devlin et al. 2019, Table 8);
* ``nsp``: sentence pairs with a next-sentence head as well (needs ``partners``, e.g.
  :func:`~bertology_lib.training.masking.topic_partners`, and a ``BertForPreTraining``).

Callers own caching (each keys its models by everything that determines them, the objective by its
:meth:`MLMObjective.key`) and saving.

The pipeline's held-out measure lives here too: :func:`masked_accuracy` (and :func:`masked_hits`, its
per-sentence counts; :func:`unigram_accuracy`, its baseline), one function for every BERT of the book
(the mini-BERT's learning curve, the §5 lab BERTs, amnesic probing's MLM drop). The masking is fixed by
``seed`` and the same for every model scored on the same texts; ``corruption`` says what a picked word
becomes: ``mask-only`` ([MASK], the usual held-out measure) or ``80/10/10`` (as in training: 10% random and
10% kept words, which are easier). (Until 2026-12-05 it was ``bertology_lib.analysis.mlm``: the mini-BERT's
training, which scores its checkpoints with it, sits below the analysis tools.)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import torch

from bertology_lib.cache import config_key
from bertology_lib.errors import ParameterError
from bertology_lib.training.loop import Callback, Resume, TrainConfig, TrainResult, train
from bertology_lib.training.masking import (
    CORRUPTIONS,
    UNITS,
    MaskedOnlyMLM,
    MaskedOnlyPretraining,
    MLMBatches,
    PairBatches,
)
from bertology_lib.training.objectives import IGNORE_INDEX
from bertology_lib.validation import check_bool, check_choice, check_float, check_int


@dataclass(frozen=True)
class MLMObjective:
    """How texts become masked-LM batches: masking unit and corruption, NSP, row length, length buckets."""

    mask_prob: float = 0.15
    unit: str = "word"
    corruption: str = "80/10/10"
    span_p: float = 0.2
    span_max: int = 10
    nsp: bool = False
    seq_len: int = 64
    bucket: int = 50  # > 0: sort runs of `bucket` batches by length (less padding); single texts only

    def __post_init__(self) -> None:
        check_float("mask_prob", self.mask_prob, 0.0, 1.0, open_min=True, open_max=True)
        check_choice("unit", self.unit, UNITS)
        check_choice("corruption", self.corruption, CORRUPTIONS)
        check_float("span_p", self.span_p, 0.0, 1.0, open_min=True, open_max=True)
        check_int("span_max", self.span_max, minimum=1)
        check_bool("nsp", self.nsp)
        check_int("seq_len", self.seq_len, minimum=2)
        check_int("bucket", self.bucket, minimum=0)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def key(self) -> dict[str, Any]:
        """Every field (:func:`~bertology_lib.cache.config_key`), for the keys of the models trained with it."""
        return config_key(self)


def mlm_batches(
    texts: Sequence[str],
    tokenizer,
    objective: MLMObjective,
    batch_size: int,
    seed: int = 0,
    partners: Sequence[Sequence[int]] | None = None,
) -> MLMBatches | PairBatches:
    """The batch builder of ``objective`` over ``texts`` (one text per row, or NSP pairs with ``partners``)."""
    check_int("batch_size", batch_size, minimum=1)
    if objective.nsp:
        if partners is None:
            raise ParameterError(
                "objective.nsp=True needs partners (each text's possible next sentences); "
                "allowed: partners=topic_partners(sentences)"
            )
        return PairBatches(
            texts,
            partners,
            tokenizer,
            batch_size,
            seed=seed,
            seq_len=objective.seq_len,
            mask_prob=objective.mask_prob,
            unit=objective.unit,
            corruption=objective.corruption,
            span_p=objective.span_p,
            span_max=objective.span_max,
        )
    return MLMBatches(
        texts,
        tokenizer,
        batch_size,
        seq_len=objective.seq_len,
        mask_prob=objective.mask_prob,
        whole_word=objective.unit != "token",
        seed=seed,
        bucket=objective.bucket,
        span_p=objective.span_p if objective.unit == "span" else 0.0,
        span_max=objective.span_max,
        corruption=objective.corruption,
    )


def training_view(model: torch.nn.Module, batches: MLMBatches | PairBatches) -> torch.nn.Module:
    """The masked-only training view of ``model`` for ``batches`` (with the NSP loss for sentence pairs)."""
    if isinstance(batches, PairBatches):
        if not hasattr(getattr(model, "cls", None), "seq_relationship"):
            raise ParameterError(
                f"NSP batches need a model with a next-sentence head; got {type(model).__name__}; "
                "allowed: a BertForPreTraining"
            )
        return MaskedOnlyPretraining(model)
    return MaskedOnlyMLM(model)


def pretrain_mlm(
    model: torch.nn.Module,
    batches: MLMBatches | PairBatches,
    config: TrainConfig,
    callbacks: Sequence[Callback] = (),
    progress: bool = True,
    desc: str = "MLM",
    resume: Resume | None = None,
) -> TrainResult:
    """Train ``model`` (a ``BertForMaskedLM`` or ``BertForPreTraining``) in place on ``batches``.

    Losses are computed only at masked positions (:class:`~bertology_lib.training.masking.MaskedOnlyMLM`);
    callbacks receive the training view, whose ``.model`` is ``model``. With NSP batches, the result's
    ``extra["nsp_train_accuracy"]`` is the next-sentence accuracy over the last 100 training batches.
    Call it again with the same ``batches`` to continue their stream (e.g. after stacking blocks).
    ``resume``: keep resumable states there and start from the last one (:class:`~bertology_lib.training.loop.Resume`;
    the NSP accuracy then covers the batches since the resume only).
    """
    view = training_view(model, batches)
    result = train(view, batches, config, callbacks=callbacks, progress=progress, desc=desc, resume=resume)
    if isinstance(view, MaskedOnlyPretraining) and view.nsp_log:
        result.extra["nsp_train_accuracy"] = sum(view.nsp_log) / len(view.nsp_log)
    return result


# -- the held-out measure -----------------------------------------------------------------------------
@torch.no_grad()
def masked_accuracy(
    model: torch.nn.Module,
    tokenizer,
    texts: Sequence[str],
    seed: int = 1234,
    batch_size: int = 128,
    corruption: str = "mask-only",
    bucket: int = 50,
    seq_len: int = 64,
    mask_prob: float = 0.15,
) -> float:
    """Share of masked words (15%, whole-word) an MLM predicts exactly, on ``texts`` (at most ``seq_len`` tokens).

    ``bucket`` groups sentences of similar length into batches (it changes which words are masked, so
    scores are comparable only at the same ``bucket``, ``seed`` and ``corruption``).
    """
    hits, counts = masked_hits(
        model,
        tokenizer,
        texts,
        seed=seed,
        batch_size=batch_size,
        corruption=corruption,
        bucket=bucket,
        seq_len=seq_len,
        mask_prob=mask_prob,
    )
    return int(hits.sum()) / max(int(counts.sum()), 1)


def unigram_accuracy(
    train_texts: Sequence[str],
    tokenizer,
    texts: Sequence[str],
    seed: int = 1234,
    batch_size: int = 128,
    corruption: str = "mask-only",
    bucket: int = 50,
) -> float:
    """The baseline of :func:`masked_accuracy`: always predict the token most frequent in ``train_texts``,
    scored on the same masked positions (same ``seed``, ``bucket``, ``corruption``) of ``texts``.

    An MLM that learned nothing about context does no better; the instrument check of claims that need a
    working MLM is ``masked_accuracy > unigram_accuracy``.
    """
    if not train_texts or not texts:
        raise ParameterError("train_texts and texts must be non-empty; allowed: lists of sentences")
    special = set(tokenizer.all_special_ids)
    counts: dict[int, int] = {}
    for ids in tokenizer(list(train_texts), add_special_tokens=False)["input_ids"]:
        for t in ids:
            if t not in special:
                counts[t] = counts.get(t, 0) + 1
    if not counts:
        raise ParameterError(
            "train_texts has no token outside the tokenizer's special tokens; allowed: sentences "
            "in the tokenizer's vocabulary"
        )
    top = max(counts, key=lambda t: (counts[t], -t))
    batches = MLMBatches(
        list(texts),
        tokenizer,
        batch_size=batch_size,
        seq_len=64,
        mask_prob=0.15,
        whole_word=True,
        seed=seed,
        bucket=bucket,
        corruption=corruption,
    )
    hit = tot = 0
    for b in batches:
        sel = b["labels"] != IGNORE_INDEX
        hit += int((b["labels"][sel] == top).sum())
        tot += int(sel.sum())
    return hit / max(tot, 1)


@torch.no_grad()
def masked_hits(
    model: torch.nn.Module,
    tokenizer,
    texts: Sequence[str],
    seed: int = 1234,
    batch_size: int = 128,
    corruption: str = "mask-only",
    bucket: int = 50,
    seq_len: int = 64,
    mask_prob: float = 0.15,
):
    """Per text: (correct masked tokens, masked tokens) under the masking of :func:`masked_accuracy` with the same
    arguments (their sums give its accuracy), as two int arrays aligned with ``texts``: the items an interval
    over held-out sentences resamples. Models with the same tokenizer are scored on the same positions."""
    import numpy as np

    if not texts:
        raise ParameterError("texts is empty; allowed: at least one sentence")
    model.eval()
    batches = MLMBatches(
        list(texts),
        tokenizer,
        batch_size=batch_size,
        seq_len=seq_len,
        mask_prob=mask_prob,
        whole_word=True,
        seed=seed,
        bucket=bucket,
        corruption=corruption,
    )
    dev = next(model.parameters()).device
    hits, counts = np.zeros(len(texts), int), np.zeros(len(texts), int)
    for rows, b in batches.with_rows():
        logits = model(input_ids=b["input_ids"].to(dev), attention_mask=b["attention_mask"].to(dev)).logits
        sel = b["labels"] != IGNORE_INDEX  # (B, T)
        right = (logits.argmax(-1).cpu() == b["labels"]) & sel
        hits[rows] += right.sum(1).numpy()
        counts[rows] += sel.sum(1).numpy()
    return hits, counts
