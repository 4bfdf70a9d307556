"""Task heads on the body of any HF encoder: sequence classification and extractive QA.

Heads sit on ``model.base_model`` (a mini-BERT, MiniLM, a hub or local BERT, a model with duplicated
layers), freshly initialised from the run's seed, so a baseline and a modified encoder get the same
head. Classification uses the [CLS] state (dense + tanh + linear, like BERT's pooler but trained from
scratch for every encoder); QA scores every token as answer start and end, and [CLS] as "no answer"
(SQuAD 2.0, Devlin et al. 2019). Built by :func:`build_model` for a :class:`~bertology_lib.data.tasks.Task`.
"""

from __future__ import annotations

import inspect
from types import SimpleNamespace

import torch

from bertology_lib.data.tasks import Task
from bertology_lib.errors import ParameterError


def encoder_of(model: torch.nn.Module) -> torch.nn.Module:
    """The encoder body of an HF model (``base_model``: ``.bert`` of a ``BertForMaskedLM``, ...)."""
    body = getattr(model, "base_model", model)
    if not hasattr(body, "config") or not hasattr(body.config, "hidden_size"):
        raise ParameterError(f"{type(model).__name__} has no HF encoder body (base_model with config.hidden_size)")
    return body


def _accepts_token_types(encoder: torch.nn.Module) -> bool:
    return "token_type_ids" in inspect.signature(encoder.forward).parameters


def _init_linear(layer: torch.nn.Linear, std: float, g: torch.Generator) -> None:
    with torch.no_grad():
        layer.weight.copy_(torch.randn(layer.weight.shape, generator=g) * std)
        layer.bias.zero_()


class TaskHead(torch.nn.Module):
    """An encoder with dropout and a freshly initialised head on top (``hidden`` gives its states)."""

    def __init__(self, encoder: torch.nn.Module, dropout: float | None) -> None:
        super().__init__()
        self.encoder = encoder
        cfg = encoder.config
        p = dropout if dropout is not None else getattr(cfg, "classifier_dropout", None)
        self.dropout = torch.nn.Dropout(p if p is not None else getattr(cfg, "hidden_dropout_prob", 0.1))
        self.token_types = _accepts_token_types(encoder)

    def hidden(self, input_ids, attention_mask=None, token_type_ids=None) -> torch.Tensor:
        kw = {"token_type_ids": token_type_ids} if self.token_types and token_type_ids is not None else {}
        return self.encoder(input_ids=input_ids, attention_mask=attention_mask, **kw).last_hidden_state  # (B, T, d)


class SequenceClassifier(TaskHead):
    """[CLS] -> dropout -> dense + tanh -> dropout -> linear; cross-entropy loss given ``labels`` (B,)."""

    def __init__(self, encoder: torch.nn.Module, n_labels: int, seed: int = 0, dropout: float | None = None) -> None:
        super().__init__(encoder, dropout)
        d = encoder.config.hidden_size
        self.dense = torch.nn.Linear(d, d)
        self.out = torch.nn.Linear(d, n_labels)
        g = torch.Generator().manual_seed(seed)
        std = getattr(encoder.config, "initializer_range", 0.02)
        _init_linear(self.dense, std, g)
        _init_linear(self.out, std, g)

    def forward(self, input_ids, attention_mask=None, token_type_ids=None, labels=None):
        h = self.hidden(input_ids, attention_mask, token_type_ids)[:, 0]  # (B, d)
        logits = self.out(self.dropout(torch.tanh(self.dense(self.dropout(h)))))  # (B, C)
        loss = None if labels is None else torch.nn.functional.cross_entropy(logits.float(), labels)
        return SimpleNamespace(loss=loss, logits=logits)


class SpanQA(TaskHead):
    """Start/end logits per token (position 0, [CLS], = no answer); ``labels`` (B, 2) token positions."""

    def __init__(self, encoder: torch.nn.Module, seed: int = 0, dropout: float | None = None) -> None:
        super().__init__(encoder, dropout)
        self.qa = torch.nn.Linear(encoder.config.hidden_size, 2)
        _init_linear(self.qa, getattr(encoder.config, "initializer_range", 0.02), torch.Generator().manual_seed(seed))

    def forward(self, input_ids, attention_mask=None, token_type_ids=None, labels=None):
        h = self.hidden(input_ids, attention_mask, token_type_ids)
        logits = self.qa(self.dropout(h)).float()  # (B, T, 2)
        if attention_mask is not None:
            logits = logits.masked_fill(~attention_mask.bool()[..., None], float("-inf"))
        start, end = logits.unbind(-1)  # (B, T) each
        loss = None
        if labels is not None:
            ce = torch.nn.functional.cross_entropy
            loss = (ce(start, labels[:, 0]) + ce(end, labels[:, 1])) / 2
        return SimpleNamespace(loss=loss, start_logits=start, end_logits=end)


def build_model(task: Task, model: torch.nn.Module, seed: int = 0, dropout: float | None = None) -> torch.nn.Module:
    """The task's head on ``model``'s encoder body, head initialised from ``seed``."""
    enc = encoder_of(model)
    if task.kind == "qa":
        return SpanQA(enc, seed, dropout)
    return SequenceClassifier(enc, task.n_labels, seed, dropout)
