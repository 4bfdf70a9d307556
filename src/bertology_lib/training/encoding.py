"""Tokenising a task's splits for fine-tuning and evaluation, and the padded training batches.

:func:`encode` turns a split of a :class:`~bertology_lib.data.tasks.Task` into :class:`Features`
(token lists with labels; for QA, each context word's first and last token, so predictions can be
read per word whatever the tokenizer). QA inputs are ``[CLS] question [SEP] context [SEP]`` truncated
to ``max_len`` tokens (no document stride: toy contexts fit); an answer cut off by truncation is
trained as "no answer" and can only be missed at evaluation.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import torch

from bertology_lib.data.tasks import Task
from bertology_lib.errors import ParameterError


@dataclass
class Features:
    """Tokenised examples of one split: ``rows`` (dicts of token lists + ``labels``) and, for QA,
    each context word's first and last token index (-1 when truncated away)."""

    kind: str
    ids: list[str]
    rows: list[dict[str, Any]]
    golds: list[Any]
    word_first: list[list[int]] | None = None
    word_last: list[list[int]] | None = None
    contexts: list[list[str]] | None = None


def max_len_for(encoder: torch.nn.Module, max_len: int) -> int:
    return min(max_len, int(getattr(encoder.config, "max_position_embeddings", max_len)))


def encode(task: Task, split: str, tokenizer, max_len: int) -> Features:
    """Tokenise a split for training and evaluation."""
    exs = task.examples(split)
    ids = [e.id for e in exs]
    if not exs:
        return Features(task.kind, [], [], [], *(([], [], []) if task.kind == "qa" else ()))
    if task.kind == "classification":
        pairs = [e.text_pair for e in exs]
        enc = tokenizer(
            [e.text for e in exs],
            pairs if any(p is not None for p in pairs) else None,
            truncation=True,
            max_length=max_len,
        )
        keys = [k for k in ("input_ids", "token_type_ids") if k in enc]
        rows = [{**{k: enc[k][i] for k in keys}, "labels": e.label} for i, e in enumerate(exs)]
        return Features("classification", ids, rows, [e.label for e in exs])
    enc = tokenizer(
        [list(e.question) for e in exs],
        [list(e.context) for e in exs],
        is_split_into_words=True,
        truncation="only_second",
        max_length=max_len,
    )
    keys = [k for k in ("input_ids", "token_type_ids") if k in enc]
    rows, firsts, lasts = [], [], []
    for i, e in enumerate(exs):
        first, last = [-1] * len(e.context), [-1] * len(e.context)
        for t, (s, w) in enumerate(zip(enc.sequence_ids(i), enc.word_ids(i))):
            if s == 1 and w is not None:
                if first[w] < 0:
                    first[w] = t
                last[w] = t
        label = [0, 0]
        if e.answer is not None:
            a, b = e.answer
            if first[a] >= 0 and last[b - 1] >= 0:
                label = [first[a], last[b - 1]]
        rows.append({**{k: enc[k][i] for k in keys}, "labels": label})
        firsts.append(first)
        lasts.append(last)
    golds = [None if e.answer is None else list(e.answer) for e in exs]
    return Features("qa", ids, rows, golds, firsts, lasts, [list(e.context) for e in exs])


def collate(rows: Sequence[Mapping[str, Any]], pad_id: int) -> dict[str, torch.Tensor]:
    """Pad token lists to the longest row; ``attention_mask`` marks real tokens."""
    t = max(len(r["input_ids"]) for r in rows)
    out = {
        "input_ids": torch.full((len(rows), t), pad_id, dtype=torch.long),
        "attention_mask": torch.zeros((len(rows), t), dtype=torch.long),
    }
    if "token_type_ids" in rows[0]:
        out["token_type_ids"] = torch.zeros((len(rows), t), dtype=torch.long)
    for i, r in enumerate(rows):
        n = len(r["input_ids"])
        out["input_ids"][i, :n] = torch.tensor(r["input_ids"])
        out["attention_mask"][i, :n] = 1
        if "token_type_ids" in out:
            out["token_type_ids"][i, :n] = torch.tensor(r["token_type_ids"])
    out["labels"] = torch.tensor([r["labels"] for r in rows], dtype=torch.long)
    return out


class FeatureBatches:
    """Padded training batches, reshuffled every epoch by a private generator (one pass = one epoch)."""

    def __init__(self, rows: Sequence[Mapping[str, Any]], batch_size: int, pad_id: int, seed: int = 0) -> None:
        if not rows:
            raise ParameterError("no training examples; allowed: a task with a non-empty train split")
        self.rows, self.batch_size, self.pad_id = list(rows), batch_size, pad_id
        self._g = torch.Generator().manual_seed(seed)

    def __len__(self) -> int:
        return math.ceil(len(self.rows) / self.batch_size)

    def __iter__(self) -> Iterator[dict[str, torch.Tensor]]:
        order = torch.randperm(len(self.rows), generator=self._g).tolist()
        for i in range(0, len(order), self.batch_size):
            yield collate([self.rows[j] for j in order[i : i + self.batch_size]], self.pad_id)
