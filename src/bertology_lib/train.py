"""One small training loop for every objective, and the batch builders that define the objectives.

Used by :mod:`bertology_lib.physics` (causal-LM pretraining on bioS, QA fine-tuning, mixed training,
LoRA) and by the BERTs trained from scratch (MLM). The loop (:func:`train`, minGPT ``Trainer.run`` style)
knows nothing about objectives: a model whose forward returns ``.loss`` given ``labels``, and an
iterable of batches (dicts of tensors). The objective is the batch builder:

=====================  ==========================================================================
:class:`LMBatches`     causal LM on packed windows (:func:`pack_windows`): no padding at all
:class:`QABatches`     prompt + completion; loss only on the completion (labels -100 elsewhere)
:class:`MLMBatches`    masked LM, whole-word masking, 80/10/10, fresh masks every epoch
:class:`MixedBatches`  rows drawn from several window pools (e.g. BIO and QA) with given shares
=====================  ==========================================================================

Randomness: the loop seeds the global RNGs once (:func:`bertology_lib.seeding.set_seed`; dropout needs
them); batch builders use private ``torch.Generator`` objects, never global state.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import nullcontext
from dataclasses import asdict, dataclass, field
from typing import Any

import torch

from .data.bios import pack_sequences
from .seeding import set_seed

SCHEDULES: tuple[str, ...] = ("cosine", "linear", "constant")
DEVICES: tuple[str, ...] = ("cpu", "cuda", "auto")
DTYPES: tuple[str, ...] = ("float32", "bfloat16")
IGNORE_INDEX = -100  # label value ignored by HF losses


@dataclass(frozen=True)
class TrainConfig:
    """Optimiser, schedule and run settings of one :func:`train` call.

    ``batch_size`` and ``seq_len`` are read by the batch builders (the loop takes the batches it is
    given); they live here so that one dataclass describes, and keys the cache of, a run.
    The schedule warms up linearly for ``warmup_steps`` then decays to ``min_lr_ratio * lr`` at
    ``max_steps`` (cosine or linear), or stays constant. ``eval_every=0`` evaluates only at the end.
    """

    lr: float = 1e-3
    weight_decay: float = 0.1
    warmup_steps: int = 0
    max_steps: int = 100
    batch_size: int = 32
    seq_len: int = 128
    grad_clip: float = 1.0  # max global grad norm; 0 disables clipping
    schedule: str = "cosine"
    min_lr_ratio: float = 0.1  # final lr / peak lr for cosine and linear decay
    eval_every: int = 0
    seed: int = 0
    device: str = "cpu"
    dtype: str = "float32"  # bfloat16 = autocast for the forward pass; master weights stay float32
    grad_accum: int = 1
    betas: tuple[float, float] = (0.9, 0.98)
    eps: float = 1e-6

    def __post_init__(self) -> None:
        def bad(name: str, allowed: str) -> ValueError:
            return ValueError(f"{name}={getattr(self, name)!r} is invalid; allowed: {allowed}")

        def is_int(v: Any) -> bool:
            return isinstance(v, int) and not isinstance(v, bool)

        def is_num(v: Any) -> bool:
            return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)

        for name in ("max_steps", "batch_size", "seq_len", "grad_accum"):
            if not is_int(getattr(self, name)) or getattr(self, name) < 1:
                raise bad(name, "an int >= 1")
        for name in ("warmup_steps", "eval_every", "seed"):
            if not is_int(getattr(self, name)) or getattr(self, name) < 0:
                raise bad(name, "an int >= 0")
        if not is_num(self.lr) or self.lr <= 0:
            raise bad("lr", "a float > 0")
        for name in ("weight_decay", "grad_clip", "eps"):
            if not is_num(getattr(self, name)) or getattr(self, name) < 0:
                raise bad(name, "a float >= 0")
        if not is_num(self.min_lr_ratio) or not 0 <= self.min_lr_ratio <= 1:
            raise bad("min_lr_ratio", "a float in [0, 1]")
        if (not isinstance(self.betas, (tuple, list)) or len(self.betas) != 2
                or not all(is_num(b) and 0 <= b < 1 for b in self.betas)):
            raise bad("betas", "two floats in [0, 1)")
        for name, allowed in (("schedule", SCHEDULES), ("device", DEVICES), ("dtype", DTYPES)):
            if getattr(self, name) not in allowed:
                raise bad(name, ", ".join(allowed))
        object.__setattr__(self, "betas", tuple(float(b) for b in self.betas))

    def to_dict(self) -> dict:
        return asdict(self)


def lr_factor(step: int, config: TrainConfig) -> float:
    """Multiplier of ``config.lr`` at optimiser step ``step`` (0-based): linear warmup, then decay."""
    if step < config.warmup_steps:
        return (step + 1) / config.warmup_steps
    if config.schedule == "constant":
        return 1.0
    progress = min(1.0, (step - config.warmup_steps) / max(1, config.max_steps - config.warmup_steps))
    lo = config.min_lr_ratio
    if config.schedule == "linear":
        return 1.0 - (1.0 - lo) * progress
    return lo + (1.0 - lo) * 0.5 * (1.0 + math.cos(math.pi * progress))


def param_groups(model: torch.nn.Module, weight_decay: float) -> list[dict]:
    """AdamW groups: decay matrices (linear and embedding weights), not biases or norm gains (ndim < 2).

    Only trainable parameters are listed (LoRA and frozen bodies train what they mark trainable).
    """
    decay, no_decay = [], []
    for _, p in model.named_parameters():
        if p.requires_grad:
            (decay if p.ndim >= 2 else no_decay).append(p)
    return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]


@dataclass
class TrainResult:
    """What :func:`train` returns: per-step losses and learning rates, and the eval history."""

    steps: int = 0
    losses: list[float] = field(default_factory=list)
    lrs: list[float] = field(default_factory=list)
    evals: list[dict] = field(default_factory=list)  # [{"step": s, **metrics}, ...]
    seconds: float = 0.0
    stopped_early: bool = False  # a callback asked to stop, or the batches ran out

    def to_dict(self) -> dict:
        return asdict(self)


Batch = Mapping[str, torch.Tensor]
Callback = Any  # an object with on_step_end(step, loss, model) and/or on_eval(step, metrics, model),
# or a plain callable (step, loss, model); a truthy return value stops training.


def _dispatch(callbacks: Sequence[Callback], hook: str, *args: Any) -> bool:
    stop = False
    for cb in callbacks:
        fn = getattr(cb, hook, None)
        if fn is None and hook == "on_step_end" and callable(cb):
            fn = cb
        if fn is not None:
            stop = bool(fn(*args)) or stop
    return stop


def _stream(batches: Iterable[Batch] | Callable[[], Iterable[Batch]]) -> Iterator[Batch]:
    """Endless batches: re-iterate a re-iterable (one epoch per pass); a one-shot iterator ends."""
    while True:
        source = batches() if callable(batches) and not isinstance(batches, Iterable) else batches
        it = iter(source)
        empty = True
        for b in it:
            empty = False
            yield b
        if empty or it is source:
            return


def world_size() -> int:
    """Processes of the current data-parallel run (``WORLD_SIZE`` set by ``accelerate launch``/torchrun)."""
    return int(os.environ.get("WORLD_SIZE", "1"))


def shard_batch(batch: Batch, rank: int, world: int) -> dict[str, torch.Tensor]:
    """Rows ``rank``-th of ``world`` contiguous shards of every tensor in ``batch`` (batch dim 0).

    Every process draws the same global batch and trains on its shard, so the effective batch is
    the configured ``batch_size`` whatever the number of processes.
    """
    n = next(iter(batch.values())).shape[0]
    if n % world:
        raise ValueError(f"batch of {n} rows cannot be split evenly over {world} processes; "
                         f"allowed: a batch_size that is a multiple of {world}")
    k = n // world
    return {key: v[rank * k:(rank + 1) * k] for key, v in batch.items()}


def _accelerator(config: TrainConfig):
    from accelerate import Accelerator

    return Accelerator(cpu=config.device == "cpu")


def train(model: torch.nn.Module, batches: Iterable[Batch] | Callable[[], Iterable[Batch]],
          config: TrainConfig, callbacks: Sequence[Callback] = (),
          eval_fn: Callable[[torch.nn.Module], Mapping[str, float]] | None = None,
          progress: bool = True, desc: str = "train", accelerator: Any = None) -> TrainResult:
    """Train ``model`` in place for ``config.max_steps`` optimiser steps; return the learning curve.

    ``batches``: a re-iterable (list, batch builder: cycled epoch after epoch), a one-shot iterator
    (training stops when it ends), or a zero-argument callable returning one epoch's iterable.
    Each batch is a dict the model's forward accepts, with ``labels``.
    ``eval_fn(model) -> {name: value}`` runs (in eval mode, without grad) every ``config.eval_every``
    steps and after the last step; callbacks see ``on_step_end(step, loss, model)`` and
    ``on_eval(step, metrics, model)`` (1-based step); a truthy return stops training.

    Scale-out: under ``accelerate launch`` with several processes (``WORLD_SIZE > 1``), or given an
    ``accelerate.Accelerator``, the loop runs data-parallel: accelerate sets up the process group
    and wraps the model in DDP (gradients averaged across processes in ``backward``); every process
    draws the same global batches and trains on its shard of rows (:func:`shard_batch`), so a run on
    *k* processes follows the single-process run with the same batches. Callbacks and ``eval_fn``
    see the unwrapped model; logged losses are averaged over processes.
    """
    from .models import resolve_device

    if accelerator is None and world_size() > 1:
        accelerator = _accelerator(config)
    device = accelerator.device if accelerator is not None else torch.device(resolve_device(config.device))
    set_seed(config.seed)
    model.to(device)
    model.train()
    inner = model
    rank, world = 0, 1
    if accelerator is not None and accelerator.num_processes > 1:
        rank, world = accelerator.process_index, accelerator.num_processes
        model = accelerator.prepare_model(model)
    opt = torch.optim.AdamW(param_groups(inner, config.weight_decay), lr=config.lr, betas=config.betas,
                            eps=config.eps, foreach=device.type == "cuda")
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: lr_factor(s, config))
    params = [p for g in opt.param_groups for p in g["params"]]
    autocast = (torch.autocast(device.type, dtype=torch.bfloat16) if config.dtype == "bfloat16"
                else nullcontext())
    stream = _stream(batches)
    result = TrainResult()
    t0 = time.perf_counter()

    def evaluate(step: int) -> bool:
        model.eval()
        with torch.no_grad():
            metrics = dict(eval_fn(inner))  # type: ignore[misc]
            result.evals.append({"step": step, **metrics})
            stop = _dispatch(callbacks, "on_eval", step, metrics, inner)  # still in eval mode
        model.train()
        return stop

    try:
        from tqdm.auto import tqdm

        bar = tqdm(total=config.max_steps, disable=not progress or rank != 0, desc=desc, leave=False)
    except ImportError:  # pragma: no cover
        bar = None
    for step in range(1, config.max_steps + 1):
        loss_sum = torch.zeros((), device=device)
        for micro in range(config.grad_accum):
            batch = next(stream, None)
            if batch is None:
                result.stopped_early = True
                break
            if world > 1:
                batch = shard_batch(batch, rank, world)
            batch = {k: v.to(device, non_blocking=True) for k, v in batch.items()}
            # DDP: all-reduce gradients only on the last micro-batch of an accumulation
            sync = nullcontext() if world == 1 or micro == config.grad_accum - 1 else model.no_sync()
            with sync:
                with autocast:
                    loss = model(**batch).loss / config.grad_accum
                loss.backward()
            loss_sum += loss.detach()
        if result.stopped_early:
            break
        if world > 1:
            loss_sum = accelerator.reduce(loss_sum, "mean")
        if config.grad_clip > 0:
            torch.nn.utils.clip_grad_norm_(params, config.grad_clip)
        lr = sched.get_last_lr()[0]
        opt.step()
        sched.step()
        opt.zero_grad(set_to_none=True)
        loss_value = float(loss_sum)
        result.steps = step
        result.losses.append(loss_value)
        result.lrs.append(lr)
        if bar is not None:
            bar.update(1)
            if step % 10 == 0 or step == config.max_steps:
                bar.set_postfix(loss=f"{loss_value:.3f}", lr=f"{lr:.2e}")
        stop = _dispatch(callbacks, "on_step_end", step, loss_value, inner)
        last = stop or step == config.max_steps
        if eval_fn is not None and (last or (config.eval_every and step % config.eval_every == 0)):
            stop = evaluate(step) or stop
        if stop:
            result.stopped_early = step < config.max_steps
            break
    if eval_fn is not None and result.stopped_early and (not result.evals or result.evals[-1]["step"] != result.steps):
        evaluate(result.steps)
    if bar is not None:
        bar.close()
    model.eval()
    inner.eval()
    result.seconds = time.perf_counter() - t0
    return result


# ----------------------------------------------------------------------------------------------
# Objectives as batch builders
# ----------------------------------------------------------------------------------------------

def pack_windows(token_lists: Iterable[Sequence[int]], seq_len: int, eos_id: int) -> torch.Tensor:
    """(n_windows, seq_len) long tensor: token lists joined with ``eos_id`` and cut into full windows.

    No padding anywhere: the final partial window is dropped (at most seq_len - 1 tokens; pass the
    lists in shuffled order so that nobody is always the one dropped). Raises if not one window fits.
    """
    windows = pack_sequences(token_lists, seq_len, eos_id)
    if windows and len(windows[-1]) < seq_len:
        windows.pop()
    if not windows:
        raise ValueError(f"seq_len={seq_len} is longer than the whole token stream; allowed: a shorter "
                         "seq_len or more text")
    return torch.tensor(windows, dtype=torch.long)


def pack_labeled(examples: Iterable[tuple[Sequence[int], Sequence[int]]], seq_len: int
                 ) -> tuple[torch.Tensor, torch.Tensor]:
    """Pack (input_ids, labels) examples back to back into full windows; returns (ids, labels).

    For objectives that weigh parts of a text differently (e.g. QA with loss on the answer only) but
    still want padding-free windows. Examples should already end with EOS (see :func:`encode_qa`).
    """
    ids: list[int] = []
    labels: list[int] = []
    for x, y in examples:
        if len(x) != len(y):
            raise ValueError(f"input_ids ({len(x)}) and labels ({len(y)}) differ in length")
        ids.extend(x)
        labels.extend(y)
    n = len(ids) // seq_len
    if n == 0:
        raise ValueError(f"seq_len={seq_len} is longer than all examples together ({len(ids)} tokens); "
                         "allowed: a shorter seq_len or more examples")
    return (torch.tensor(ids[: n * seq_len]).view(n, seq_len),
            torch.tensor(labels[: n * seq_len]).view(n, seq_len))


def _generator(seed: int) -> torch.Generator:
    g = torch.Generator()
    g.manual_seed(seed)
    return g


class LMBatches:
    """Causal-LM batches of packed windows (labels = inputs; HF shifts them). One pass = one epoch.

    Windows are reshuffled every epoch with a private generator; a last short batch is kept.
    """

    def __init__(self, windows: torch.Tensor, batch_size: int, seed: int = 0,
                 labels: torch.Tensor | None = None) -> None:
        if windows.ndim != 2 or len(windows) == 0:
            raise ValueError(f"windows must be a non-empty (n, seq_len) tensor, got shape {tuple(windows.shape)}")
        if labels is not None and labels.shape != windows.shape:
            raise ValueError(f"labels shape {tuple(labels.shape)} must equal windows shape {tuple(windows.shape)}")
        self.windows, self.labels, self.batch_size = windows, labels, batch_size
        self._g = _generator(seed)

    def __len__(self) -> int:
        return math.ceil(len(self.windows) / self.batch_size)

    def __iter__(self) -> Iterator[dict[str, torch.Tensor]]:
        order = torch.randperm(len(self.windows), generator=self._g)
        for i in range(0, len(order), self.batch_size):
            idx = order[i: i + self.batch_size]
            x = self.windows[idx]
            yield {"input_ids": x, "labels": (x if self.labels is None else self.labels[idx]).clone()}


def encode_qa(tokenizer, prompt: str, completion: str, eos: bool = True) -> tuple[list[int], list[int]]:
    """(input_ids, labels) of ``prompt completion [eos]``; labels are -100 on the prompt.

    The ids are those of the joined text ``prompt + " " + completion``, and the prompt's own ids are
    their prefix (checked), so training and evaluation (which feeds the prompt alone and generates)
    see the same tokens with word-level and with subword tokenizers (GPT-2 BPE puts the space into the
    completion's first token).
    """
    p = tokenizer(prompt, add_special_tokens=False)["input_ids"]
    full = tokenizer(f"{prompt} {completion}", add_special_tokens=False)["input_ids"]
    if full[: len(p)] != p:
        raise ValueError(f"the tokens of prompt {prompt!r} are not a prefix of those of the prompt followed by "
                         f"its completion; allowed: a prompt that ends at a token boundary (e.g. after a colon)")
    c = full[len(p):] + ([tokenizer.eos_token_id] if eos else [])
    return p + c, [IGNORE_INDEX] * len(p) + c


class QABatches:
    """Padded (right) batches of (input_ids, labels) examples, shuffled per epoch; loss where labels != -100."""

    def __init__(self, examples: Sequence[tuple[Sequence[int], Sequence[int]]], batch_size: int,
                 pad_id: int, seed: int = 0) -> None:
        if not examples:
            raise ValueError("examples is empty; allowed: at least one (input_ids, labels) pair")
        self.examples, self.batch_size, self.pad_id = list(examples), batch_size, pad_id
        self._g = _generator(seed)

    def __len__(self) -> int:
        return math.ceil(len(self.examples) / self.batch_size)

    def __iter__(self) -> Iterator[dict[str, torch.Tensor]]:
        order = torch.randperm(len(self.examples), generator=self._g).tolist()
        for i in range(0, len(order), self.batch_size):
            yield pad_batch([self.examples[j] for j in order[i: i + self.batch_size]], self.pad_id)


def pad_batch(examples: Sequence[tuple[Sequence[int], Sequence[int]]], pad_id: int) -> dict[str, torch.Tensor]:
    """Right-pad (input_ids, labels) pairs to the longest: pad_id / -100, attention_mask 0 on padding."""
    t = max(len(x) for x, _ in examples)
    ids = torch.full((len(examples), t), pad_id, dtype=torch.long)
    labels = torch.full((len(examples), t), IGNORE_INDEX, dtype=torch.long)
    mask = torch.zeros((len(examples), t), dtype=torch.long)
    for i, (x, y) in enumerate(examples):
        ids[i, : len(x)] = torch.as_tensor(x)
        labels[i, : len(y)] = torch.as_tensor(y)
        mask[i, : len(x)] = 1
    return {"input_ids": ids, "attention_mask": mask, "labels": labels}


def mask_tokens(input_ids: torch.Tensor, *, mask_id: int, candidate_ids: torch.Tensor,
                word_ids: torch.Tensor | None = None, special_mask: torch.Tensor | None = None,
                mask_prob: float = 0.15, generator: torch.Generator | None = None
                ) -> tuple[torch.Tensor, torch.Tensor]:
    """BERT masking: pick words with probability ``mask_prob`` (whole-word: every token of a picked word),
    then per picked token 80% -> ``mask_id``, 10% -> random id from ``candidate_ids``, 10% unchanged.

    ``word_ids`` (B, T): word index per token, -1 for special/padding tokens (default: every token not in
    ``special_mask`` is its own word). Returns (masked input_ids, labels with -100 where not picked).
    """
    if not 0.0 < mask_prob < 1.0:
        raise ValueError(f"mask_prob={mask_prob!r} is out of range; allowed: 0 < mask_prob < 1")
    b, t = input_ids.shape
    if word_ids is None:
        special = special_mask if special_mask is not None else torch.zeros_like(input_ids, dtype=torch.bool)
        word_ids = torch.where(special.bool(), -1, torch.arange(t).expand(b, t))
    valid = word_ids >= 0
    n_words = int(word_ids.max().item()) + 1 if valid.any() else 1
    picked_word = torch.rand((b, n_words), generator=generator) < mask_prob  # (B, n_words)
    picked = valid & picked_word.gather(1, word_ids.clamp(min=0))  # (B, T)
    r = torch.rand((b, t), generator=generator)
    out = input_ids.clone()
    out[picked & (r < 0.8)] = mask_id
    rand_pos = picked & (r >= 0.8) & (r < 0.9)
    n_rand = int(rand_pos.sum())
    if n_rand:
        out[rand_pos] = candidate_ids[torch.randint(len(candidate_ids), (n_rand,), generator=generator)]
    labels = torch.where(picked, input_ids, torch.full_like(input_ids, IGNORE_INDEX))
    return out, labels


def span_groups(word_ids: torch.Tensor, p: float, max_len: int = 10,
                generator: torch.Generator | None = None) -> torch.Tensor:
    """Span masking units (SpanBERT, Joshi et al. 2020): each row's words cut into consecutive spans.

    ``word_ids`` (B, T): word index per token (0..n-1 per row, -1 for special/padding). Span lengths are
    drawn from Geometric(``p``) clipped at ``max_len`` (SpanBERT: p = 0.2, 10; mean 3.8 words), and the
    returned (B, T) tensor gives each token its span's index. Fed to :func:`mask_tokens` as ``word_ids``,
    every span is picked with ``mask_prob``, so the expected share of masked words stays ``mask_prob``
    while masked words come in contiguous runs.
    """
    if not 0.0 < p < 1.0:
        raise ValueError(f"p={p!r} is out of range; allowed: 0 < p < 1")
    if isinstance(max_len, bool) or not isinstance(max_len, int) or max_len < 1:
        raise ValueError(f"max_len={max_len!r} is out of range; allowed: an int >= 1")
    out = torch.full_like(word_ids, -1)
    log_q = math.log(1.0 - p)
    for r in range(word_ids.shape[0]):
        w = word_ids[r]
        valid = w >= 0
        if not valid.any():
            continue
        n = int(w[valid].max()) + 1
        u = torch.rand(n, generator=generator).clamp_min(1e-12)  # at most n spans are needed
        lens = (torch.floor(torch.log(u) / log_q) + 1).clamp(max=max_len).long()
        span_of_word = torch.repeat_interleave(torch.arange(n), lens)[:n]
        out[r, valid] = span_of_word[w[valid]]
    return out


class MLMBatches:
    """Masked-LM batches over texts (one example each, truncated to ``seq_len``), masked afresh per epoch.

    Needs a tokenizer with a mask token (``build_word_tokenizer(kind="bert")`` or a WordPiece BERT);
    ``whole_word`` uses the fast tokenizer's ``word_ids`` so that all pieces of a word are masked together;
    ``span_p > 0`` masks contiguous spans of whole words instead (:func:`span_groups`).
    """

    def __init__(self, texts: Sequence[str], tokenizer, batch_size: int, seq_len: int = 128,
                 mask_prob: float = 0.15, whole_word: bool = True, seed: int = 0,
                 bucket: int = 0, span_p: float = 0.0, span_max: int = 10) -> None:
        if not 0.0 <= span_p < 1.0:
            raise ValueError(f"span_p={span_p!r} is out of range; allowed: 0 (no spans) <= span_p < 1")
        self.span_p, self.span_max = span_p, span_max
        if tokenizer.mask_token_id is None:
            raise ValueError("tokenizer has no mask token; allowed: a BERT-style tokenizer (kind='bert')")
        enc = tokenizer(list(texts), truncation=True, max_length=seq_len)
        self.ids = enc["input_ids"]
        special = set(tokenizer.all_special_ids)
        self.word_ids = []
        for i, ids in enumerate(self.ids):
            w = enc.word_ids(i) if whole_word else list(range(len(ids)))
            self.word_ids.append([-1 if (wi is None or tok in special) else wi for wi, tok in zip(w, ids)])
        self.candidates = torch.tensor([i for i in range(len(tokenizer)) if i not in special])
        self.tokenizer, self.batch_size, self.mask_prob = tokenizer, batch_size, mask_prob
        self.bucket = bucket  # >0: sort each run of `bucket` batches by length (less padding)
        self._g = _generator(seed)

    def __len__(self) -> int:
        return math.ceil(len(self.ids) / self.batch_size)

    def _batches(self) -> list[list[int]]:
        order = torch.randperm(len(self.ids), generator=self._g).tolist()
        bs = self.batch_size
        if self.bucket <= 0:
            return [order[i: i + bs] for i in range(0, len(order), bs)]
        # Length bucketing: sort within chunks of `bucket` batches, then shuffle the batches, so a
        # batch holds sentences of similar length (little padding) and epochs still differ.
        chunk = self.bucket * bs
        batches = []
        for i in range(0, len(order), chunk):
            part = sorted(order[i: i + chunk], key=lambda j: len(self.ids[j]))
            batches += [part[k: k + bs] for k in range(0, len(part), bs)]
        perm = torch.randperm(len(batches), generator=self._g).tolist()
        return [batches[b] for b in perm]

    def __iter__(self) -> Iterator[dict[str, torch.Tensor]]:
        pad = self.tokenizer.pad_token_id
        for rows in self._batches():
            t = max(len(self.ids[j]) for j in rows)
            ids = torch.full((len(rows), t), pad, dtype=torch.long)
            words = torch.full((len(rows), t), -1, dtype=torch.long)
            mask = torch.zeros((len(rows), t), dtype=torch.long)
            for k, j in enumerate(rows):
                n = len(self.ids[j])
                ids[k, :n] = torch.tensor(self.ids[j])
                words[k, :n] = torch.tensor(self.word_ids[j])
                mask[k, :n] = 1
            if self.span_p:
                words = span_groups(words, self.span_p, self.span_max, self._g)
            masked, labels = mask_tokens(ids, mask_id=self.tokenizer.mask_token_id, candidate_ids=self.candidates,
                                         word_ids=words, mask_prob=self.mask_prob, generator=self._g)
            yield {"input_ids": masked, "attention_mask": mask, "labels": labels}


class MixedBatches:
    """Endless batches whose rows come from several pools of full windows with given shares.

    ``pools``: name -> (ids, labels) tensors of shape (n, seq_len) (labels may be None = ids), e.g.
    ``{"bio": (bio_windows, None), "qa": pack_labeled(qa_examples, seq_len)}``; ``shares``: name ->
    probability that a row comes from that pool (summing to 1). Each pool is walked in reshuffled
    epochs, so every window is used equally often. Used for mixed training (BIO + QA in one run).
    """

    def __init__(self, pools: Mapping[str, tuple[torch.Tensor, torch.Tensor | None]],
                 shares: Mapping[str, float], batch_size: int, seed: int = 0) -> None:
        if set(pools) != set(shares):
            raise ValueError(f"shares keys {sorted(shares)} must equal pools keys {sorted(pools)}")
        if any(s < 0 for s in shares.values()) or not math.isclose(sum(shares.values()), 1.0, abs_tol=1e-6):
            raise ValueError(f"shares={dict(shares)!r} are invalid; allowed: non-negative, summing to 1")
        lengths = {pools[k][0].shape[1] for k in pools}
        if len(lengths) != 1:
            raise ValueError(f"all pools need the same window length, got {sorted(lengths)}")
        self.names = list(pools)
        self.pools = {k: (x, x if y is None else y) for k, (x, y) in pools.items()}
        self.probs = torch.tensor([float(shares[k]) for k in self.names])
        self.batch_size = batch_size
        self._g = _generator(seed)
        self._orders = {k: torch.empty(0, dtype=torch.long) for k in self.names}

    def _take(self, name: str, n: int) -> torch.Tensor:
        out = []
        while n > 0:
            if len(self._orders[name]) == 0:
                self._orders[name] = torch.randperm(len(self.pools[name][0]), generator=self._g)
            k = min(n, len(self._orders[name]))
            out.append(self._orders[name][:k])
            self._orders[name] = self._orders[name][k:]
            n -= k
        return torch.cat(out)

    def __iter__(self) -> Iterator[dict[str, torch.Tensor]]:
        while True:
            source = torch.multinomial(self.probs, self.batch_size, replacement=True, generator=self._g)
            xs, ys = [], []
            for i, name in enumerate(self.names):
                n = int((source == i).sum())
                if n:
                    idx = self._take(name, n)
                    xs.append(self.pools[name][0][idx])
                    ys.append(self.pools[name][1][idx])
            yield {"input_ids": torch.cat(xs), "labels": torch.cat(ys).clone()}
