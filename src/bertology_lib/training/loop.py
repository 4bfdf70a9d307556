"""The one training loop (:func:`train`, minGPT ``Trainer.run`` style) with its config and callbacks.

The loop knows nothing about objectives: it takes a model whose forward returns ``.loss`` given the
batch, and an iterable of batches (dicts of tensors). The objective is the batch builder
(:mod:`bertology_lib.training.objectives` for causal LM, QA and mixed pools;
:mod:`bertology_lib.training.masking` for masked LM). Used by every model the book trains: the
mini-BERT and lab BERTs (:mod:`bertology_lib.training.pretrain`), fine-tuning
(:mod:`bertology_lib.training.finetune`), distillation, and the physics decoders.

Randomness: the loop seeds the global RNGs once (:func:`bertology_lib.seeding.set_seed`; dropout needs
them); batch builders use private ``torch.Generator`` objects (:func:`generator`), never global state.
Training is deterministic for a given seed, thread count and stack.

Resuming: given a :class:`Resume`, the loop saves a resumable state every ``every`` steps (model,
optimizer and scheduler state, its step, losses and learning rates so far, the global RNG states, the
batch builder's state at the start of its epoch and the batches taken since, and the state of every
callback that has ``state_dict``/``load_state_dict``), as safetensors + JSON
(:func:`bertology_lib.cache.save_state`). A later call with the same folder, model shape and config
starts from the last complete state and ends exactly where an uninterrupted run ends.
"""

from __future__ import annotations

import math
import os
import random
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import nullcontext
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

from bertology_lib.cache import canonical_json, config_key, load_state, save_state
from bertology_lib.errors import ParameterError
from bertology_lib.runtime import DEVICES, resolve_device
from bertology_lib.seeding import set_seed
from bertology_lib.validation import check_choice, check_float, check_int

SCHEDULES: tuple[str, ...] = ("cosine", "linear", "constant")
DTYPES: tuple[str, ...] = ("float32", "bfloat16")


@dataclass(frozen=True)
class TrainConfig:
    """Optimiser, schedule and run settings of one :func:`train` call.

    ``batch_size`` and ``seq_len`` are read by the batch builders (the loop takes the batches it is
    given); they live here so that one dataclass describes, and keys the cache of, a run.
    The schedule warms up linearly for ``warmup_steps`` then decays to ``min_lr_ratio * lr`` at
    ``max_steps`` (cosine or linear), or stays constant. ``eval_every=0`` evaluates only at the end.
    ``embedding_lr`` multiplies the learning rate of the input embedding matrix (with tied embeddings also
    the output layer's; :func:`param_groups`). :meth:`key` is what a cache key holds of a run: every field
    but ``device``.
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
    embedding_lr: float = 1.0  # multiplier of lr for the input embedding matrix (tied: the output layer too)
    lr_scale: tuple[tuple[str, float], ...] = ()  # (name pattern, x lr): matching parameters' own learning rate

    def __post_init__(self) -> None:
        for name in ("max_steps", "batch_size", "seq_len", "grad_accum"):
            check_int(name, getattr(self, name), minimum=1)
        for name in ("warmup_steps", "eval_every", "seed"):
            check_int(name, getattr(self, name), minimum=0)
        check_float("lr", self.lr, minimum=0.0, open_min=True)
        check_float("embedding_lr", self.embedding_lr, minimum=0.0, open_min=True)
        for name in ("weight_decay", "grad_clip", "eps"):
            check_float(name, getattr(self, name), minimum=0.0)
        check_float("min_lr_ratio", self.min_lr_ratio, 0.0, 1.0)
        if not isinstance(self.lr_scale, (tuple, list)) or not all(
            isinstance(r, (tuple, list))
            and len(r) == 2
            and isinstance(r[0], str)
            and r[0]
            and isinstance(r[1], (int, float))
            and not isinstance(r[1], bool)
            and r[1] > 0
            for r in self.lr_scale
        ):
            raise ParameterError(f"lr_scale={self.lr_scale!r} is invalid; allowed: (name pattern, factor > 0) pairs")
        object.__setattr__(self, "lr_scale", tuple((str(n), float(f)) for n, f in self.lr_scale))
        if not isinstance(self.betas, (tuple, list)) or len(self.betas) != 2:
            raise ParameterError(f"betas={self.betas!r} is invalid; allowed: two floats in [0, 1)")
        for b in self.betas:
            check_float("betas", b, 0.0, 1.0, open_max=True)
        for name, allowed in (("schedule", SCHEDULES), ("device", DEVICES), ("dtype", DTYPES)):
            check_choice(name, getattr(self, name), allowed)
        object.__setattr__(self, "betas", tuple(float(b) for b in self.betas))

    def to_dict(self) -> dict:
        return asdict(self)

    def key(self) -> dict:
        """Every field but ``device`` (:func:`~bertology_lib.cache.config_key`): a run's weights do not
        depend on where it ran, beyond the float noise that ``built`` records."""
        return config_key(self, leave_out=("device",))


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


def param_groups(
    model: torch.nn.Module,
    weight_decay: float,
    embedding_lr: float | None = None,
    lr_scale: tuple[tuple[str, float], ...] = (),
    lr: float = 1.0,
) -> list[dict]:
    """AdamW groups: decay matrices (linear and embedding weights), not biases or norm gains (ndim < 2).

    Only trainable parameters are listed (LoRA and frozen bodies train what they mark trainable).
    ``embedding_lr``: the learning rate of the input embedding matrix (``get_input_embeddings()``; with tied
    embeddings the same matrix is the output layer), in a third group with the same weight decay; None keeps
    it in the decay group at the optimiser's learning rate. ``lr_scale``: (pattern, factor) pairs; a parameter
    whose name matches a pattern (``re.search``, the first that matches) trains at ``lr`` x factor, in groups
    of its own after the others (e.g. new heads on a pretrained body: ``(("cls\\.", 10.0),)``).
    """
    if lr_scale:
        import re

        ids = {}
        for name, p in model.named_parameters():
            hit = next((k for k, (pat, _) in enumerate(lr_scale) if re.search(pat, name)), None)
            if hit is not None:
                ids[id(p)] = hit
        groups = param_groups(
            _Without(model, set(ids)), weight_decay, embedding_lr if hasattr(model, "get_input_embeddings") else None
        )
        for k, (_, factor) in enumerate(lr_scale):
            mine = [p for p in model.parameters() if p.requires_grad and ids.get(id(p)) == k]
            for decay in (True, False):
                ps = [p for p in mine if (p.ndim >= 2) == decay]
                if ps:
                    groups.append({"params": ps, "weight_decay": weight_decay if decay else 0.0, "lr": lr * factor})
        return groups
    emb = None
    if embedding_lr is not None and hasattr(model, "get_input_embeddings"):
        emb = model.get_input_embeddings().weight
        if not emb.requires_grad:
            emb = None
    decay, no_decay = [], []
    for _, p in model.named_parameters():
        if p.requires_grad and p is not emb:
            (decay if p.ndim >= 2 else no_decay).append(p)
    groups = [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]
    if emb is not None:
        groups.append({"params": [emb], "weight_decay": weight_decay, "lr": embedding_lr})
    return groups


class _Without(torch.nn.Module):
    """A view of ``model`` whose ``named_parameters`` leave out the parameters in ``skip`` (ids)."""

    def __init__(self, model: torch.nn.Module, skip: set[int]) -> None:
        super().__init__()
        object.__setattr__(self, "_inner", model)
        object.__setattr__(self, "_skip", skip)

    def named_parameters(self, *args, **kwargs):
        return ((n, p) for n, p in self._inner.named_parameters() if id(p) not in self._skip)

    def get_input_embeddings(self):
        return self._inner.get_input_embeddings()


@dataclass
class TrainResult:
    """What :func:`train` returns: per-step losses and learning rates, and the eval history."""

    steps: int = 0
    losses: list[float] = field(default_factory=list)
    lrs: list[float] = field(default_factory=list)
    evals: list[dict] = field(default_factory=list)  # [{"step": s, **metrics}, ...]
    seconds: float = 0.0
    stopped_early: bool = False  # a callback asked to stop, or the batches ran out
    extra: dict[str, Any] = field(default_factory=dict)  # what a pipeline adds (e.g. NSP accuracy)

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


class _Stream:
    """Endless batches: re-iterate a re-iterable (one epoch per pass); a one-shot iterator ends.

    Keeps where it is, for resuming: the source's ``state_dict()`` at the start of the current epoch
    and the batches taken since; :meth:`restore` replays the epoch up to there.
    """

    def __init__(self, batches: Iterable[Batch] | Callable[[], Iterable[Batch]]) -> None:
        self.batches, self.epoch_state, self.taken, self._skip = batches, None, 0, 0
        self._it = self._run()

    def __next__(self) -> Batch:
        return next(self._it)

    def state(self) -> dict:
        return {"source": self.epoch_state, "taken": self.taken}

    def restore(self, state: Mapping[str, Any]) -> None:
        if state["source"] is not None:
            self.batches.load_state_dict(state["source"])  # type: ignore[union-attr]
        self._skip = int(state["taken"])

    def _run(self) -> Iterator[Batch]:
        batches = self.batches
        while True:
            source = batches() if callable(batches) and not isinstance(batches, Iterable) else batches
            self.epoch_state = source.state_dict() if hasattr(source, "state_dict") else None
            self.taken = 0
            it = iter(source)
            empty = True
            for b in it:
                empty = False
                self.taken += 1
                if self._skip:  # replaying the epoch of a resumed run up to where it was saved
                    self._skip -= 1
                    continue
                yield b
            if empty or it is source:
                return


@dataclass(frozen=True)
class Resume:
    """Where and when :func:`train` keeps a resumable state: in ``folder``, every ``every`` optimiser
    steps (0: not periodically) and at the steps in ``at`` (never after the last step)."""

    folder: Path
    every: int = 500
    at: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "folder", Path(self.folder))
        check_int("every", self.every, minimum=0)
        for s in self.at:
            check_int("at", s, minimum=1)
        object.__setattr__(self, "at", tuple(sorted(set(self.at))))

    def due(self, step: int, max_steps: int) -> bool:
        return step < max_steps and ((self.every > 0 and step % self.every == 0) or step in self.at)


def _check_resumable(batches: Any) -> None:
    if isinstance(batches, (list, tuple)):
        return
    if not (hasattr(batches, "state_dict") and hasattr(batches, "load_state_dict")):
        raise ParameterError(
            f"resume needs batches whose order can be restored; got a {type(batches).__name__}; "
            "allowed: a list or a batch builder with state_dict()/load_state_dict()"
        )


def _rng_state() -> dict:
    kind, keys, pos, has_gauss, cached = np.random.get_state()
    version, internal, gauss = random.getstate()
    return {
        "torch": torch.get_rng_state(),
        "cuda": torch.cuda.get_rng_state_all() if torch.cuda.is_initialized() else [],
        "numpy": {
            "kind": kind,
            "keys": torch.from_numpy(keys.astype(np.int64)),
            "pos": pos,
            "has_gauss": has_gauss,
            "cached": cached,
        },
        "python": {"version": version, "internal": list(internal), "gauss": gauss},
    }


def _set_rng_state(state: Mapping[str, Any]) -> None:
    torch.set_rng_state(state["torch"])
    if state["cuda"] and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda"])
    n = state["numpy"]
    np.random.set_state((n["kind"], n["keys"].numpy().astype(np.uint32), n["pos"], n["has_gauss"], n["cached"]))
    py = state["python"]
    random.setstate((py["version"], tuple(py["internal"]), py["gauss"]))


def _fingerprint(model: torch.nn.Module, config: TrainConfig) -> str:
    """What a saved state must match to be resumed from: the config and the parameters' names and shapes."""
    return canonical_json(
        {"config": config.to_dict(), "params": [[k, list(v.shape)] for k, v in model.state_dict().items()]}
    )


def _latest_state(folder: Path, fingerprint: str) -> dict | None:
    """The state of the highest step in ``folder`` that is complete, uncorrupted and of this run, if any."""
    for meta in sorted(folder.glob("state-*.json"), reverse=True):
        state = load_state(meta.with_suffix(""))
        if state is not None and state.get("fingerprint") == fingerprint:
            return state
    return None


def _save_state(folder: Path, step: int, state: dict) -> None:
    """Write the state of ``step``, then remove every other (older, incomplete or corrupt) one."""
    folder.mkdir(parents=True, exist_ok=True)
    stem = f"state-{step:09d}"
    save_state(folder / stem, state)
    for old in sorted(folder.glob("state-*"), key=lambda p: p.suffix != ".json"):  # JSON first: no torn pair
        if old.name not in (f"{stem}.json", f"{stem}.safetensors"):
            old.unlink(missing_ok=True)


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
        raise ParameterError(
            f"batch of {n} rows cannot be split evenly over {world} processes; "
            f"allowed: a batch_size that is a multiple of {world}"
        )
    k = n // world
    return {key: v[rank * k : (rank + 1) * k] for key, v in batch.items()}


def _accelerator(config: TrainConfig):
    from accelerate import Accelerator

    return Accelerator(cpu=config.device == "cpu")


def train(
    model: torch.nn.Module,
    batches: Iterable[Batch] | Callable[[], Iterable[Batch]],
    config: TrainConfig,
    callbacks: Sequence[Callback] = (),
    eval_fn: Callable[[torch.nn.Module], Mapping[str, float]] | None = None,
    progress: bool = True,
    desc: str = "train",
    accelerator: Any = None,
    resume: Resume | None = None,
) -> TrainResult:
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

    ``resume``: keep resumable states in ``resume.folder`` and start from the last complete one found
    there (``result.extra["resumed_from"]`` is its step); ``batches`` must then be a list or a batch
    builder with ``state_dict``/``load_state_dict``. With several processes, rank 0 writes them.
    """
    if resume is not None:
        _check_resumable(batches)
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
    emb_lr = config.lr * config.embedding_lr if config.embedding_lr != 1.0 else None
    opt = torch.optim.AdamW(
        param_groups(inner, config.weight_decay, emb_lr, config.lr_scale, config.lr),
        lr=config.lr,
        betas=config.betas,
        eps=config.eps,
        foreach=device.type == "cuda",
    )
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: lr_factor(s, config))
    params = [p for g in opt.param_groups for p in g["params"]]
    autocast = torch.autocast(device.type, dtype=torch.bfloat16) if config.dtype == "bfloat16" else nullcontext()
    stream = _Stream(batches)
    result = TrainResult()
    t0 = time.perf_counter()
    start, fingerprint = 0, _fingerprint(inner, config)
    state = _latest_state(resume.folder, fingerprint) if resume is not None else None
    if state is not None:
        inner.load_state_dict(state["model"])
        opt.load_state_dict(
            {
                "state": {int(k): v for k, v in state["optimizer"]["state"].items()},
                "param_groups": state["optimizer"]["param_groups"],
            }
        )
        sched.load_state_dict(state["scheduler"])
        stream.restore(state["stream"])
        for cb, cb_state in zip(callbacks, state["callbacks"]):
            if cb_state is not None and hasattr(cb, "load_state_dict"):
                cb.load_state_dict(cb_state)
        _set_rng_state(state["rng"])
        start = result.steps = state["step"]
        result.losses, result.lrs, result.evals = state["losses"], state["lrs"], state["evals"]
        result.extra["resumed_from"] = start
        t0 -= state["seconds"]

    def save(step: int) -> None:
        _save_state(
            resume.folder,
            step,
            {  # type: ignore[union-attr]
                "fingerprint": fingerprint,
                "step": step,
                "losses": result.losses,
                "lrs": result.lrs,
                "evals": result.evals,
                "seconds": time.perf_counter() - t0,
                "model": inner.state_dict(),
                "optimizer": opt.state_dict(),
                "scheduler": sched.state_dict(),
                "stream": stream.state(),
                "callbacks": [cb.state_dict() if hasattr(cb, "state_dict") else None for cb in callbacks],
                "rng": _rng_state(),
            },
        )

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

        bar = tqdm(total=config.max_steps, initial=start, disable=not progress or rank != 0, desc=desc, leave=False)
    except ImportError:  # pragma: no cover
        bar = None
    for step in range(start + 1, config.max_steps + 1):
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
        if resume is not None and rank == 0 and resume.due(step, config.max_steps):
            save(step)
    if eval_fn is not None and result.stopped_early and (not result.evals or result.evals[-1]["step"] != result.steps):
        evaluate(result.steps)
    if bar is not None:
        bar.close()
    model.eval()
    inner.eval()
    result.seconds = time.perf_counter() - t0
    return result


def generator(seed: int) -> torch.Generator:
    """A private ``torch.Generator`` seeded with ``seed`` (batch builders never touch global RNG state)."""
    g = torch.Generator()
    g.manual_seed(seed)
    return g


class KeepBest:
    """Callback: remember the weights with the best value of ``metric`` at evaluation (ties: the later step).

    After training, ``state`` holds those weights (a detached copy), ``step`` and ``best`` their step
    and score; load them with ``model.load_state_dict(keep.state)``.
    """

    def __init__(self, metric: str) -> None:
        self.metric, self.best, self.step, self.state = metric, -math.inf, 0, None

    def on_eval(self, step: int, metrics: Mapping[str, float], model: torch.nn.Module) -> None:
        if metrics[self.metric] >= self.best:
            self.best, self.step = metrics[self.metric], step
            self.state = {k: v.detach().clone() for k, v in model.state_dict().items()}
