"""Per-example predictions of a fine-tuned head, their metrics, and ensembles.

:class:`Predictions` keep per-example probabilities (classes, or start/end over the context *words*
with column 0 = no answer), so :func:`ensemble` can sum them across models with different
tokenizers (Kao et al. 2020's fair ensembles), and :meth:`Predictions.scores` gives per-example
scores. :func:`predict` runs a head from :func:`bertology_lib.models.task_heads.build_model` over
encoded features; :func:`evaluate` encodes a split first.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import torch

from bertology_lib.data.tasks import Task, classification_metrics, qa_metrics, squad_f1
from bertology_lib.errors import ParameterError
from bertology_lib.models.task_heads import encoder_of
from bertology_lib.runtime import resolve_device
from bertology_lib.training.encoding import Features, collate, encode, max_len_for

DEFAULT_METRIC = {"classification": "accuracy", "qa": "f1"}


@dataclass
class Predictions:
    """Per-example probabilities of one model (or an ensemble) on one split.

    ``probs``: classification ``{"probs": (N, C)}``; QA ``{"start": (N, W+1), "end": (N, W+1)}``
    over context words (column 0 = no answer, padding = 0). ``golds``: labels, or
    ``[start, end)`` word spans / None. Ensembles hold summed (unnormalised) probabilities.
    """

    kind: str
    ids: list[str]
    golds: list[Any]
    probs: dict[str, torch.Tensor]
    n_labels: int = 0
    contexts: list[list[str]] | None = None
    max_answer_words: int = 10
    null_threshold: float = 0.0

    def __len__(self) -> int:
        return len(self.ids)

    def predicted(self) -> list[Any]:
        """Predicted labels, or predicted word spans ``(start, end)`` / None (no answer)."""
        if self.kind == "classification":
            return self.probs["probs"].argmax(-1).tolist()
        return decode_spans(self.probs["start"], self.probs["end"], self.max_answer_words, self.null_threshold)

    def answers(self) -> list[str]:
        """QA: predicted answer strings ("" = no answer)."""
        assert self.contexts is not None
        return ["" if s is None else " ".join(c[s[0] : s[1]]) for s, c in zip(self.predicted(), self.contexts)]

    def gold_answers(self) -> list[str]:
        assert self.contexts is not None
        return ["" if g is None else " ".join(c[g[0] : g[1]]) for g, c in zip(self.golds, self.contexts)]

    def metrics(self) -> dict[str, float]:
        """accuracy/macro-F1 (classification) or the SQuAD 2.0 metrics (QA), as fractions."""
        if self.kind == "classification":
            return classification_metrics(self.predicted(), self.golds, self.n_labels)
        return qa_metrics(self.answers(), self.gold_answers())

    def scores(self) -> list[float]:
        """Per-example score: 1/0 correct (classification) or SQuAD F1 (QA)."""
        if self.kind == "classification":
            return [float(p == y) for p, y in zip(self.predicted(), self.golds)]
        return [squad_f1(p, g) for p, g in zip(self.answers(), self.gold_answers())]

    def meta(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "ids": self.ids,
            "golds": self.golds,
            "n_labels": self.n_labels,
            "contexts": self.contexts,
            "max_answer_words": self.max_answer_words,
            "null_threshold": self.null_threshold,
        }


def decode_spans(
    start: torch.Tensor, end: torch.Tensor, max_answer_words: int = 10, null_threshold: float = 0.0
) -> list[tuple[int, int] | None]:
    """Best word span per row of (N, W+1) start/end probabilities (column 0 = no answer).

    Span score ``log p_start(i) + log p_end(j)`` for ``i <= j < i + max_answer_words``; the
    row predicts no answer when ``log p_start(0) + log p_end(0)`` exceeds the best span's
    score by more than ``null_threshold``. Probabilities may be unnormalised sums (ensembles).
    """
    with torch.no_grad():
        ls = torch.log(start.double().clamp_min(0))  # (N, W+1); log 0 = -inf
        le = torch.log(end.double().clamp_min(0))
        n, w1 = ls.shape
        w = w1 - 1
        if w == 0:
            return [None] * n
        span = ls[:, 1:, None] + le[:, None, 1:]  # (N, W, W): start i, end j
        i = torch.arange(w)
        band = (i[None, :] >= i[:, None]) & (i[None, :] - i[:, None] < max_answer_words)  # (W, W)
        span = span.masked_fill(~band, float("-inf")).view(n, -1)
        best, arg = span.max(-1)  # (N,)
        null = ls[:, 0] + le[:, 0]
    out: list[tuple[int, int] | None] = []
    for r in range(n):
        if not math.isfinite(best[r]) or float(null[r] - best[r]) > null_threshold:
            out.append(None)
        else:
            a, b = divmod(int(arg[r]), w)
            out.append((a, b + 1))
    return out


def ensemble_predictions(predictions: Sequence[Predictions]) -> Predictions:
    """One :class:`Predictions` whose probabilities are the sums of the members' (same examples)."""
    if not predictions:
        raise ParameterError("predictions=[] is empty; allowed: one or more Predictions")
    first = predictions[0]
    for p in predictions[1:]:
        if p.kind != first.kind or p.ids != first.ids:
            raise ParameterError(
                "ensemble members differ in task kind or example ids; allowed: predictions "
                "on the same split of the same task"
            )
    probs = {}
    for k in first.probs:
        width = max(p.probs[k].shape[1] for p in predictions)
        total = torch.zeros(len(first), width, dtype=torch.float64)
        for p in predictions:
            total[:, : p.probs[k].shape[1]] += p.probs[k].double()
        probs[k] = total
    return dataclasses.replace(first, probs=probs)


def ensemble(predictions: Sequence[Predictions]) -> dict[str, float]:
    """Metrics of the ensemble that sums the members' output probabilities (Kao et al. 2020)."""
    return ensemble_predictions(predictions).metrics()


def length_order(features: Features) -> list[int]:
    """Row indices, longest first: batches of rows of similar length pad little (2.24x faster on the SST-2
    test sentences with MiniLM, benchmarks/eval_order.py). Sorting is stable, so equal lengths keep their order."""
    return sorted(range(len(features.rows)), key=lambda i: -len(features.rows[i]["input_ids"]))


@torch.no_grad()
def predict(model: torch.nn.Module, features: Features, pad_id: int, cfg: Any, n_labels: int = 0) -> Predictions:
    """Run ``model`` (a head from :func:`build_model`) over ``features``; batches group rows of similar length
    (:func:`length_order`), and the predictions come back in the features' order. Padding is masked, so a
    row's prediction does not depend on its batch beyond float rounding, except in a dynamically quantised
    (int8) model, whose activation scale is set per batch: there a row's prediction can move with its batch."""
    dev = torch.device(resolve_device(cfg.device))
    model.to(dev).eval()
    order, bs = length_order(features), cfg.eval_batch_size
    probs_of: list[torch.Tensor | None] = [None] * len(order)
    spans_of: list[tuple[torch.Tensor, torch.Tensor] | None] = [None] * len(order)
    for i in range(0, len(order), bs):
        idx = order[i : i + bs]
        batch = collate([features.rows[j] for j in idx], pad_id)
        batch.pop("labels")
        out = model(**{k: v.to(dev) for k, v in batch.items()})
        if features.kind == "classification":
            for j, p in zip(idx, out.logits.float().softmax(-1).cpu()):
                probs_of[j] = p
            continue
        ps, pe = out.start_logits.softmax(-1).cpu(), out.end_logits.softmax(-1).cpu()  # (B, T)
        for r, j in enumerate(idx):
            first = torch.tensor(features.word_first[j])  # type: ignore[index]
            last = torch.tensor(features.word_last[j])  # type: ignore[index]
            s = torch.zeros(len(first) + 1)
            e = torch.zeros(len(first) + 1)
            s[0], e[0] = ps[r, 0], pe[r, 0]
            ok = first >= 0
            s[1:][ok] = ps[r, first[ok]]
            e[1:][ok] = pe[r, last[ok]]
            spans_of[j] = (s, e)
    if features.kind == "classification":
        probs = {"probs": torch.stack(probs_of) if probs_of else torch.zeros(0, n_labels)}  # type: ignore[arg-type]
    else:  # (N, W_max + 1), zero-padded
        probs = {
            k: torch.nn.utils.rnn.pad_sequence([sp[n] for sp in spans_of], batch_first=True)  # type: ignore[index]
            if spans_of
            else torch.zeros(0, 1)
            for n, k in enumerate(("start", "end"))
        }
    return Predictions(
        features.kind,
        features.ids,
        features.golds,
        probs,
        n_labels,
        features.contexts,
        cfg.max_answer_words,
        cfg.null_threshold,
    )


def evaluate(model: torch.nn.Module, tokenizer, task: Task, split: str, cfg: Any) -> Predictions:
    """Predictions of a fine-tuned head model on ``task``'s ``split`` (``.metrics()`` for the numbers)."""
    enc = model.encoder if hasattr(model, "encoder") else encoder_of(model)
    feats = encode(task, split, tokenizer, max_len_for(enc, cfg.max_len))
    return predict(model, feats, tokenizer.pad_token_id, cfg, task.n_labels)
