"""Fine-tuning encoders on downstream tasks through the one training loop, with seeds, ensembles and tests.

Used by the duplication boost notebook (Kao et al. 2020: baseline vs duplicated layers,
fair ensembles) and the survey §5-§7 notebooks (seed variance, fine-tuning regimes,
behavioural tests). Tasks come from :mod:`bertology_lib.data.tasks`.

* Heads (:class:`SequenceClassifier`, :class:`SpanQA`) sit on the *body* of any HF
  encoder (``model.base_model``: a mini-BERT folder, MiniLM, a hub or local BERT, a
  model with duplicated layers), freshly initialised from the run's seed, so a baseline
  and a duplicated model get the same head and the same hyper-parameters.
  Classification uses the [CLS] state (dense + tanh + linear, like BERT's pooler, but
  trained from scratch for every encoder); QA scores every token as answer start and
  end, and [CLS] as "no answer" (SQuAD 2.0, Devlin et al. 2019).
* Training is :func:`bertology_lib.train.train` (AdamW, linear warmup/decay) on
  padded batches from :class:`FeatureBatches`; not the HF Trainer.
* :class:`Predictions` keep per-example probabilities (classes, or start/end over the
  context *words* with column 0 = no answer), so :func:`ensemble` can sum them across
  models with different tokenizers, and :meth:`Predictions.scores` gives per-example
  scores.
* :func:`finetune` caches metrics and probabilities (JSON + safetensors) in the
  :class:`~bertology_lib.cache.ArtifactCache`, keyed by the task's key, the model's
  weights fingerprint, the config and the seed. A factory model source without a
  ``key`` is not cached.
* :func:`paired_test` compares two configurations across seeds (paired t-test or
  Wilcoxon) with a 95% interval of the mean difference, ready for
  :class:`~bertology_lib.claims.IntervalAbove`.

QA inputs are ``[CLS] question [SEP] context [SEP]`` truncated to ``max_len`` tokens (no
document stride: toy contexts fit); an answer cut off by truncation is trained as "no
answer" and can only be missed at evaluation.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import inspect
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import torch

from .cache import ArtifactCache, load_json, load_tensors, save_json, save_tensors
from .data.tasks import Task, classification_metrics, qa_metrics, squad_f1
from .errors import ParameterError

KIND = "finetune"
FINETUNE_VERSION = 1
METHODS: tuple[str, ...] = ("t", "wilcoxon")
DEFAULT_METRIC = {"classification": "accuracy", "qa": "f1"}


# ---------------------------------------------------------------------------------
# Config
# ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class FinetuneConfig:
    """Hyper-parameters of one fine-tuning run (the seed is passed separately).

    ``max_steps=0`` trains for ``epochs`` passes over the training split. ``max_len`` is
    capped by the encoder's position embeddings. QA decoding: spans of at most
    ``max_answer_words`` words; "no answer" when its score beats the best span's by more
    than ``null_threshold`` (log-probability units; SQuAD's ``null_score_diff_threshold``).
    ``head_dropout=None`` uses the encoder's ``hidden_dropout_prob``.
    """

    lr: float = 1e-4
    epochs: float = 3.0
    max_steps: int = 0
    batch_size: int = 32
    warmup_ratio: float = 0.1
    weight_decay: float = 0.01
    grad_clip: float = 1.0
    max_len: int = 128
    head_dropout: float | None = None
    max_answer_words: int = 10
    null_threshold: float = 0.0
    eval_batch_size: int = 128
    eval_splits: tuple[str, ...] = ("dev", "test")
    attn_implementation: str = "sdpa"
    device: str = "cpu"
    dtype: str = "float32"

    def __post_init__(self) -> None:
        def bad(name: str, allowed: str) -> ParameterError:
            return ParameterError(f"{name}={getattr(self, name)!r} is out of range; allowed: {allowed}")

        def is_int(v: Any) -> bool:
            return isinstance(v, int) and not isinstance(v, bool)

        def is_num(v: Any) -> bool:
            return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)

        for name in ("batch_size", "max_len", "max_answer_words", "eval_batch_size"):
            if not is_int(getattr(self, name)) or getattr(self, name) < 1:
                raise bad(name, "an int >= 1")
        if not is_int(self.max_steps) or self.max_steps < 0:
            raise bad("max_steps", "an int >= 0 (0 = use epochs)")
        if not is_num(self.lr) or self.lr <= 0:
            raise bad("lr", "a float > 0")
        if not is_num(self.epochs) or self.epochs <= 0:
            raise bad("epochs", "a float > 0")
        if not is_num(self.warmup_ratio) or not 0 <= self.warmup_ratio < 1:
            raise bad("warmup_ratio", "a float in [0, 1)")
        for name in ("weight_decay", "grad_clip"):
            if not is_num(getattr(self, name)) or getattr(self, name) < 0:
                raise bad(name, "a float >= 0")
        if self.head_dropout is not None and (not is_num(self.head_dropout) or not 0 <= self.head_dropout < 1):
            raise bad("head_dropout", "None or a float in [0, 1)")
        if not is_num(self.null_threshold):
            raise bad("null_threshold", "a finite float")
        splits = tuple(self.eval_splits) if isinstance(self.eval_splits, (list, tuple)) else None
        if splits is None or any(s not in ("train", "dev", "test") for s in splits):
            raise bad("eval_splits", "a tuple of train, dev, test")
        object.__setattr__(self, "eval_splits", splits)
        for name, allowed in (("attn_implementation", ("sdpa", "eager")), ("device", ("cpu", "cuda", "auto")),
                              ("dtype", ("float32", "bfloat16"))):
            if getattr(self, name) not in allowed:
                raise bad(name, ", ".join(allowed))

    @classmethod
    def for_profile(cls, profile: str, **overrides: Any) -> "FinetuneConfig":
        """smoke: a few steps; quick: 3 epochs on CPU; full: BERT-base settings on a GPU."""
        from .profiles import get_profile

        p = get_profile(profile)
        base = {"smoke": dict(max_steps=10, batch_size=8, eval_batch_size=64),
                "quick": dict(),
                "full": dict(lr=3e-5, epochs=3.0, max_len=256, device="auto")}[p.name]
        return dataclasses.replace(cls(**base), **overrides)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


# ---------------------------------------------------------------------------------
# Model sources
# ---------------------------------------------------------------------------------


@functools.lru_cache(maxsize=64)
def _folder_fingerprint(folder: str, stamp: tuple) -> str:
    h = hashlib.sha256()
    for p in sorted(Path(folder).iterdir()):
        if p.name == "config.json" or p.suffix == ".safetensors":
            h.update(p.name.encode())
            with open(p, "rb") as f:
                for chunk in iter(lambda: f.read(1 << 20), b""):
                    h.update(chunk)
    return h.hexdigest()[:20]


def weights_fingerprint(folder: str | Path) -> str:
    """SHA-256 (20 hex digits) of a model folder's ``config.json`` and ``*.safetensors`` files."""
    folder = str(Path(folder).resolve())
    stamp = tuple((p.name, p.stat().st_size, p.stat().st_mtime_ns) for p in sorted(Path(folder).iterdir()))
    return _folder_fingerprint(folder, stamp)


@dataclass(frozen=True)
class ModelSource:
    """What to fine-tune: a model name (embedded, local folder, hub) or a factory of fresh models.

    ``profile`` and ``seed`` pick the embedded model (e.g. which mini-BERT). A ``factory``
    returns a new model on every call (any HF model whose ``base_model`` is an encoder);
    it needs a ``tokenizer`` (an object, or a name resolved like a model name) and, to be
    cached, a ``key`` (JSON-able) naming everything that determines its weights.
    """

    name: str
    profile: str = "quick"
    seed: int = 0
    factory: Callable[[], torch.nn.Module] | None = field(default=None, compare=False, repr=False)
    tokenizer: Any = field(default=None, compare=False, repr=False)
    key: Any = field(default=None, compare=False)

    def load_model(self, attn_implementation: str = "sdpa") -> torch.nn.Module:
        """A fresh model (weights loaded anew, never shared with an earlier call)."""
        if self.factory is not None:
            return self.factory()
        from transformers.utils import logging as hf_logging

        from .models import load_model

        level = hf_logging.get_verbosity()
        hf_logging.set_verbosity_error()  # "newly initialised pooler" / "unused MLM head" notes
        try:
            return load_model(self.name, head="base", attn_implementation=attn_implementation,
                              profile=self.profile, seed=self.seed)
        finally:
            hf_logging.set_verbosity(level)

    def load_tokenizer(self):
        from .models import load_tokenizer

        tok = self.tokenizer
        if isinstance(tok, ModelSource):
            return tok.load_tokenizer()
        if tok is None:
            if self.factory is not None:
                raise ParameterError(f"model source {self.name!r} is a factory without a tokenizer; allowed: "
                                     "ModelSource(name, factory=fn, tokenizer=<tokenizer or model name>)")
            return load_tokenizer(self.name, profile=self.profile, seed=self.seed)
        if isinstance(tok, (str, Path)):
            return load_tokenizer(str(tok), profile=self.profile, seed=self.seed)
        return tok

    def cache_key(self) -> dict[str, Any] | None:
        """What determines this source's weights (None: not cacheable)."""
        if self.factory is not None:
            return None if self.key is None else {"factory_key": self.key}
        from .models import EMBEDDED, canonical_name, model_path

        name = canonical_name(self.name)
        path = model_path(name, profile=self.profile, seed=self.seed)
        if Path(path).is_dir():
            return {"weights": weights_fingerprint(path)}
        return {"hub": name} if name not in EMBEDDED else {"embedded": name, "profile": self.profile,
                                                          "seed": self.seed}


def as_source(source: Any, tokenizer: Any = None) -> ModelSource:
    """A :class:`ModelSource` from a source, a name/folder, or a zero-argument callable."""
    if isinstance(source, ModelSource):
        return source if tokenizer is None else dataclasses.replace(source, tokenizer=tokenizer)
    if isinstance(source, (str, Path)):
        return ModelSource(str(source), tokenizer=tokenizer)
    if callable(source):
        return ModelSource(getattr(source, "__name__", "factory"), factory=source, tokenizer=tokenizer)
    raise ParameterError(f"model source={source!r} is not usable; allowed: a model name or folder, "
                         "a ModelSource, or a callable returning a fresh model")


def duplicated(base: Any, pattern: Sequence[int], name: str | None = None) -> ModelSource:
    """``base`` with its blocks duplicated per ``pattern`` (:func:`interventions.duplicate_layers`).

    The copies are independent parameters; the tokenizer and the cache key follow ``base``.
    """
    from .interventions import duplicate_layers

    base = as_source(base)
    pattern = [int(i) for i in pattern]

    def factory() -> torch.nn.Module:
        return duplicate_layers(base.load_model(), pattern)

    key = base.cache_key()
    return ModelSource(name or f"{base.name}+dup{pattern}", base.profile, base.seed, factory=factory,
                       tokenizer=base, key=None if key is None else {"base": key, "duplicate": pattern})


# ---------------------------------------------------------------------------------
# Heads
# ---------------------------------------------------------------------------------


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


class _Head(torch.nn.Module):
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


class SequenceClassifier(_Head):
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


class SpanQA(_Head):
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


# ---------------------------------------------------------------------------------
# Features and batches
# ---------------------------------------------------------------------------------


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
        enc = tokenizer([e.text for e in exs], pairs if any(p is not None for p in pairs) else None,
                        truncation=True, max_length=max_len)
        keys = [k for k in ("input_ids", "token_type_ids") if k in enc]
        rows = [{**{k: enc[k][i] for k in keys}, "labels": e.label} for i, e in enumerate(exs)]
        return Features("classification", ids, rows, [e.label for e in exs])
    enc = tokenizer([list(e.question) for e in exs], [list(e.context) for e in exs], is_split_into_words=True,
                    truncation="only_second", max_length=max_len)
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
    out = {"input_ids": torch.full((len(rows), t), pad_id, dtype=torch.long),
           "attention_mask": torch.zeros((len(rows), t), dtype=torch.long)}
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
            yield collate([self.rows[j] for j in order[i: i + self.batch_size]], self.pad_id)


# ---------------------------------------------------------------------------------
# Predictions, metrics, ensembles
# ---------------------------------------------------------------------------------


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
        return ["" if s is None else " ".join(c[s[0]: s[1]]) for s, c in zip(self.predicted(), self.contexts)]

    def gold_answers(self) -> list[str]:
        assert self.contexts is not None
        return ["" if g is None else " ".join(c[g[0]: g[1]]) for g, c in zip(self.golds, self.contexts)]

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
        return {"kind": self.kind, "ids": self.ids, "golds": self.golds, "n_labels": self.n_labels,
                "contexts": self.contexts, "max_answer_words": self.max_answer_words,
                "null_threshold": self.null_threshold}


def decode_spans(start: torch.Tensor, end: torch.Tensor, max_answer_words: int = 10,
                 null_threshold: float = 0.0) -> list[tuple[int, int] | None]:
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
            raise ParameterError("ensemble members differ in task kind or example ids; allowed: predictions "
                                 "on the same split of the same task")
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


@torch.no_grad()
def predict(model: torch.nn.Module, features: Features, pad_id: int, cfg: FinetuneConfig,
            n_labels: int = 0) -> Predictions:
    """Run ``model`` (a head from :func:`build_model`) over ``features`` in order."""
    from .models import resolve_device

    dev = torch.device(resolve_device(cfg.device))
    model.to(dev).eval()
    chunks: dict[str, list[torch.Tensor]] = {}
    bs = cfg.eval_batch_size
    for i in range(0, len(features.rows), bs):
        batch = collate(features.rows[i: i + bs], pad_id)
        batch.pop("labels")
        out = model(**{k: v.to(dev) for k, v in batch.items()})
        if features.kind == "classification":
            chunks.setdefault("probs", []).append(out.logits.float().softmax(-1).cpu())
            continue
        ps, pe = out.start_logits.softmax(-1).cpu(), out.end_logits.softmax(-1).cpu()  # (B, T)
        for r in range(ps.shape[0]):
            first = torch.tensor(features.word_first[i + r])  # type: ignore[index]
            last = torch.tensor(features.word_last[i + r])  # type: ignore[index]
            s = torch.zeros(len(first) + 1)
            e = torch.zeros(len(first) + 1)
            s[0], e[0] = ps[r, 0], pe[r, 0]
            ok = first >= 0
            s[1:][ok] = ps[r, first[ok]]
            e[1:][ok] = pe[r, last[ok]]
            chunks.setdefault("start", []).append(s)
            chunks.setdefault("end", []).append(e)
    if features.kind == "classification":
        probs = {"probs": torch.cat(chunks["probs"]) if chunks else torch.zeros(0, n_labels)}
    else:  # (N, W_max + 1), zero-padded
        probs = {k: torch.nn.utils.rnn.pad_sequence(chunks[k], batch_first=True) if chunks else torch.zeros(0, 1)
                 for k in ("start", "end")}
    return Predictions(features.kind, features.ids, features.golds, probs, n_labels, features.contexts,
                       cfg.max_answer_words, cfg.null_threshold)


def evaluate(model: torch.nn.Module, tokenizer, task: Task, split: str = "test",
             cfg: FinetuneConfig | None = None) -> Predictions:
    """Predictions of a fine-tuned head model on ``task``'s ``split`` (``.metrics()`` for the numbers)."""
    cfg = cfg or FinetuneConfig()
    enc = model.encoder if hasattr(model, "encoder") else encoder_of(model)
    feats = encode(task, split, tokenizer, max_len_for(enc, cfg.max_len))
    return predict(model, feats, tokenizer.pad_token_id, cfg, task.n_labels)


# ---------------------------------------------------------------------------------
# Fine-tuning runs
# ---------------------------------------------------------------------------------


@dataclass
class FinetuneResult:
    """One fine-tuning run: metrics and predictions per evaluated split, and the learning curve."""

    task: str
    model: str
    seed: int
    config: dict[str, Any]
    metrics: dict[str, dict[str, float]]
    predictions: dict[str, Predictions]
    train: dict[str, Any]
    cached: bool = False

    def score(self, split: str = "test", metric: str | None = None) -> float:
        """One number: ``metric`` (default accuracy for classification, F1 for QA) on ``split``."""
        if split not in self.metrics:
            raise ParameterError(f"split={split!r} was not evaluated; allowed: {', '.join(self.metrics)}")
        kind = self.predictions[split].kind
        m = metric or DEFAULT_METRIC[kind]
        if m not in self.metrics[split]:
            raise ParameterError(f"metric={m!r} is unknown; allowed: {', '.join(self.metrics[split])}")
        return float(self.metrics[split][m])


def _train_steps(cfg: FinetuneConfig, n_train: int) -> int:
    return cfg.max_steps or max(1, math.ceil(cfg.epochs * n_train / cfg.batch_size))


def finetune_model(task: Task, model_source: Any, cfg: FinetuneConfig | None = None, seed: int = 0,
                   progress: bool = False) -> tuple[torch.nn.Module, Any, FinetuneResult]:
    """Fine-tune a fresh copy of ``model_source`` on ``task`` (uncached); returns (model, tokenizer, result)."""
    from .train import TrainConfig, train

    cfg = cfg or FinetuneConfig()
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ParameterError(f"seed={seed!r} is out of range; allowed: an int >= 0")
    src = as_source(model_source)
    tok = src.load_tokenizer()
    model = build_model(task, src.load_model(cfg.attn_implementation), seed, cfg.head_dropout)
    max_len = max_len_for(model.encoder, cfg.max_len)
    train_feats = encode(task, "train", tok, max_len)
    steps = _train_steps(cfg, len(train_feats.rows))
    tc = TrainConfig(lr=cfg.lr, weight_decay=cfg.weight_decay, warmup_steps=int(cfg.warmup_ratio * steps),
                     max_steps=steps, batch_size=cfg.batch_size, seq_len=max_len, grad_clip=cfg.grad_clip,
                     schedule="linear", min_lr_ratio=0.0, seed=seed, device=cfg.device, dtype=cfg.dtype,
                     betas=(0.9, 0.999), eps=1e-8)
    batches = FeatureBatches(train_feats.rows, cfg.batch_size, tok.pad_token_id, seed)
    curve = train(model, batches, tc, progress=progress, desc=f"{task.name} / {src.name}")
    preds = {}
    for split in cfg.eval_splits:
        feats = train_feats if split == "train" else encode(task, split, tok, max_len)
        if feats.rows:
            preds[split] = predict(model, feats, tok.pad_token_id, cfg, task.n_labels)
    result = FinetuneResult(
        task.name, src.name, seed, cfg.to_dict(), {s: p.metrics() for s, p in preds.items()}, preds,
        {"steps": curve.steps, "losses": curve.losses, "seconds": curve.seconds,
         "n_layers": int(getattr(model.encoder.config, "num_hidden_layers", 0)),
         "n_params": sum(p.numel() for p in model.parameters())})
    return model, tok, result


def _save_result(folder: Path, r: FinetuneResult) -> None:
    save_json(folder / "result.json", {
        "task": r.task, "model": r.model, "seed": r.seed, "config": r.config, "metrics": r.metrics,
        "train": r.train, "predictions": {s: p.meta() for s, p in r.predictions.items()}})
    tensors = {f"{s}.{k}": v.contiguous() for s, p in r.predictions.items() for k, v in p.probs.items()}
    if tensors:
        save_tensors(folder / "predictions.safetensors", tensors)


def _load_result(folder: Path) -> FinetuneResult:
    d = load_json(folder / "result.json")
    f = folder / "predictions.safetensors"
    tensors = load_tensors(f) if f.exists() else {}
    preds = {}
    for s, m in d["predictions"].items():
        probs = {k.split(".", 1)[1]: v for k, v in tensors.items() if k.split(".", 1)[0] == s}
        preds[s] = Predictions(m["kind"], m["ids"], m["golds"], probs, m["n_labels"], m["contexts"],
                               m["max_answer_words"], m["null_threshold"])
    return FinetuneResult(d["task"], d["model"], d["seed"], d["config"], d["metrics"], preds, d["train"], cached=True)


def finetune(task: Task, model_source: Any, cfg: FinetuneConfig | None = None, seed: int = 0,
             cache: ArtifactCache | None = None, use_cache: bool = True, progress: bool = False) -> FinetuneResult:
    """Fine-tune ``model_source`` on ``task`` with ``seed``; metrics and per-example probabilities.

    Cached by (task key, model weights fingerprint, config, seed) unless ``use_cache`` is
    false or the source is a factory without a ``key``. Use :func:`finetune_model` to
    keep the fine-tuned model itself.
    """
    cfg = cfg or FinetuneConfig()
    src = as_source(model_source)
    key = src.cache_key() if use_cache else None
    if key is None:
        return finetune_model(task, src, cfg, seed, progress)[2]
    cache = cache or ArtifactCache()
    config = {"task": task.key(), "model": key, "finetune": cfg.to_dict(), "seed": seed, "version": FINETUNE_VERSION}
    built: list[FinetuneResult] = []

    def build(folder: Path) -> None:
        r = finetune_model(task, src, cfg, seed, progress)[2]
        _save_result(folder, r)
        built.append(r)

    folder = cache.get_or_create(KIND, config, build)
    if built:
        return built[0]
    r = _load_result(folder)
    r.model = src.name  # the display name is not part of the key
    return r


def seed_sweep(task: Task, model_source: Any, seeds: Sequence[int], cfg: FinetuneConfig | None = None,
               cache: ArtifactCache | None = None, use_cache: bool = True, progress: bool = False
               ) -> list[FinetuneResult]:
    """:func:`finetune` once per seed (same hyper-parameters), in order."""
    seeds = list(seeds)
    if not seeds or len(set(seeds)) != len(seeds):
        raise ParameterError(f"seeds={seeds!r} are invalid; allowed: a non-empty list of distinct ints")
    return [finetune(task, model_source, cfg, s, cache, use_cache, progress) for s in seeds]


def results_frame(results: Sequence[FinetuneResult]):
    """One row per (run, evaluated split): task, model, seed, split, the metrics, steps, seconds."""
    import pandas as pd

    rows = []
    for r in results:
        for split, m in r.metrics.items():
            rows.append({"task": r.task, "model": r.model, "seed": r.seed, "split": split, **m,
                         "steps": r.train.get("steps"), "seconds": r.train.get("seconds"), "cached": r.cached})
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------------
# Paired comparison across seeds
# ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class PairedTest:
    """``a`` vs ``b`` over paired runs: mean difference ``a - b`` with a 95% t interval, and a p-value."""

    n: int
    mean_a: float
    mean_b: float
    mean_diff: float
    std_diff: float
    ci_low: float
    ci_high: float
    p_value: float
    method: str

    def interval(self) -> tuple[float, float, float]:
        """``(mean_diff, ci_low, ci_high)``: the ``ours`` of :class:`~bertology_lib.claims.IntervalAbove`."""
        return (self.mean_diff, self.ci_low, self.ci_high)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def paired_test(a_scores: Sequence[float], b_scores: Sequence[float], method: str = "t") -> PairedTest:
    """Paired test of ``a`` against ``b`` (e.g. duplicated vs baseline, one score per seed).

    ``method``: ``t`` (paired t-test) or ``wilcoxon`` (signed-rank, exact for small n; note
    that with 5 pairs its two-sided p-value cannot go below 0.0625). The 95% interval of
    the mean difference is the t interval in both cases. Zero spread gives p = 1 when the
    differences are all 0 and p = 0 otherwise.
    """
    from scipy import stats

    if method not in METHODS:
        raise ParameterError(f"method={method!r} is not allowed; allowed: {', '.join(METHODS)}")
    a = [float(x) for x in a_scores]
    b = [float(x) for x in b_scores]
    if len(a) != len(b):
        raise ParameterError(f"a has {len(a)} scores and b {len(b)}; allowed: equal lengths (paired runs)")
    if len(a) < 2:
        raise ParameterError(f"n={len(a)} pairs is too few; allowed: at least 2")
    if not all(math.isfinite(x) for x in a + b):
        raise ParameterError("scores contain NaN or inf; allowed: finite numbers")
    d = [x - y for x, y in zip(a, b)]
    n = len(d)
    mean = sum(d) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in d) / (n - 1))
    half = float(stats.t.ppf(0.975, n - 1)) * sd / math.sqrt(n)
    if sd <= 1e-12 * max(1.0, abs(mean)):
        p = 1.0 if all(x == 0 for x in d) else 0.0
    elif method == "t":
        p = float(stats.ttest_rel(a, b).pvalue)
    else:
        p = 1.0 if all(x == 0 for x in d) else float(stats.wilcoxon(d).pvalue)
    return PairedTest(n, sum(a) / n, sum(b) / n, mean, sd, mean - half, mean + half, p, method)


def paired_points(a: Mapping[int, float], b: Mapping[int, float], digits: int = 1) -> tuple[float, float, float]:
    """Paired (a - b) over the seeds of ``a``, in points (x 100): (mean, 95% low, 95% high), rounded.

    ``a``, ``b``: {seed: score in [0, 1]}; every seed of ``a`` must be in ``b``. The form every
    "gain in points with a 95% interval" claim of the book uses (:func:`paired_test`, t interval).
    """
    seeds = sorted(a)
    if any(s not in b for s in seeds):
        raise ParameterError(f"seeds {seeds} are not all in b ({sorted(b)}); allowed: paired seeds")
    t = paired_test([a[s] for s in seeds], [b[s] for s in seeds])
    return tuple(round(100 * x, digits) for x in t.interval())  # type: ignore[return-value]


def one_sample_interval(values: Sequence[float], digits: int = 3) -> tuple[float, float, float]:
    """Mean of ``values`` with a 95% t interval: (mean, low, high), rounded."""
    v = [float(x) for x in values]
    t = paired_test(v, [0.0] * len(v))
    return tuple(round(x, digits) for x in t.interval())  # type: ignore[return-value]


def ratio_interval(a: Mapping[int, float], b: Mapping[int, float], digits: int = 3) -> tuple[float, float, float]:
    """a / b per seed of ``a`` (e.g. a student's accuracy over its teacher's): mean with a 95% t interval."""
    seeds = sorted(a)
    if any(s not in b for s in seeds):
        raise ParameterError(f"seeds {seeds} are not all in b ({sorted(b)}); allowed: paired seeds")
    if any(b[s] == 0 for s in seeds):
        raise ParameterError("b has a zero score; allowed: non-zero denominators")
    return one_sample_interval([a[s] / b[s] for s in seeds], digits)


def compare(a: Sequence[FinetuneResult], b: Sequence[FinetuneResult], split: str = "test",
            metric: str | None = None, method: str = "t") -> PairedTest:
    """:func:`paired_test` of two seed sweeps, paired by seed (both must hold the same seeds)."""
    sa, sb = {r.seed: r for r in a}, {r.seed: r for r in b}
    if set(sa) != set(sb):
        raise ParameterError(f"seeds differ: {sorted(sa)} vs {sorted(sb)}; allowed: the same seeds in both")
    seeds = sorted(sa)
    return paired_test([sa[s].score(split, metric) for s in seeds], [sb[s].score(split, metric) for s in seeds], method)

