"""Held-out masked-LM accuracy: how well an MLM fills in words it cannot see.

One function for every BERT of the book (the mini-BERT's learning curve, the §5 lab BERTs, amnesic
probing's MLM drop). The masking is fixed by ``seed`` and the same for every model scored on the
same texts; ``corruption`` says what a picked word becomes: ``mask-only`` ([MASK], the usual held-out
measure) or ``80/10/10`` (as in training: 10% random and 10% kept words, which are easier).
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from bertology_lib.errors import ParameterError
from bertology_lib.training.masking import MLMBatches
from bertology_lib.training.objectives import IGNORE_INDEX


@torch.no_grad()
def masked_accuracy(model: torch.nn.Module, tokenizer, texts: Sequence[str], seed: int = 1234,
                    batch_size: int = 128, corruption: str = "mask-only", bucket: int = 50,
                    seq_len: int = 64, mask_prob: float = 0.15) -> float:
    """Share of masked words (15%, whole-word) an MLM predicts exactly, on ``texts`` (at most ``seq_len`` tokens).

    ``bucket`` groups sentences of similar length into batches (it changes which words are masked, so
    scores are comparable only at the same ``bucket``, ``seed`` and ``corruption``).
    """
    hits, counts = masked_hits(model, tokenizer, texts, seed=seed, batch_size=batch_size, corruption=corruption,
                               bucket=bucket, seq_len=seq_len, mask_prob=mask_prob)
    return int(hits.sum()) / max(int(counts.sum()), 1)


def unigram_accuracy(train_texts: Sequence[str], tokenizer, texts: Sequence[str], seed: int = 1234,
                     batch_size: int = 128, corruption: str = "mask-only", bucket: int = 50) -> float:
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
        raise ParameterError("train_texts has no token outside the tokenizer's special tokens; allowed: sentences "
                             "in the tokenizer's vocabulary")
    top = max(counts, key=lambda t: (counts[t], -t))
    batches = MLMBatches(list(texts), tokenizer, batch_size=batch_size, seq_len=64, mask_prob=0.15,
                         whole_word=True, seed=seed, bucket=bucket, corruption=corruption)
    hit = tot = 0
    for b in batches:
        sel = b["labels"] != IGNORE_INDEX
        hit += int((b["labels"][sel] == top).sum())
        tot += int(sel.sum())
    return hit / max(tot, 1)


@torch.no_grad()
def masked_hits(model: torch.nn.Module, tokenizer, texts: Sequence[str], seed: int = 1234, batch_size: int = 128,
                corruption: str = "mask-only", bucket: int = 50, seq_len: int = 64, mask_prob: float = 0.15):
    """Per text: (correct masked tokens, masked tokens) under the masking of :func:`masked_accuracy` with the same
    arguments (their sums give its accuracy), as two int arrays aligned with ``texts``: the items an interval
    over held-out sentences resamples. Models with the same tokenizer are scored on the same positions."""
    import numpy as np

    if not texts:
        raise ParameterError("texts is empty; allowed: at least one sentence")
    model.eval()
    batches = MLMBatches(list(texts), tokenizer, batch_size=batch_size, seq_len=seq_len, mask_prob=mask_prob,
                         whole_word=True, seed=seed, bucket=bucket, corruption=corruption)
    dev = next(model.parameters()).device
    hits, counts = np.zeros(len(texts), int), np.zeros(len(texts), int)
    for rows, b in batches.with_rows():
        logits = model(input_ids=b["input_ids"].to(dev), attention_mask=b["attention_mask"].to(dev)).logits
        sel = b["labels"] != IGNORE_INDEX  # (B, T)
        right = (logits.argmax(-1).cpu() == b["labels"]) & sel
        hits[rows] += right.sum(1).numpy()
        counts[rows] += sel.sum(1).numpy()
    return hits, counts
