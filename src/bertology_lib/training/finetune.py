"""Fine-tuning encoders on downstream tasks: the one entry point, :func:`finetune`.

Used by the duplication boost (Kao et al. 2020: baseline vs duplicated layers, fair ensembles) and
the survey §5-§7 notebooks (seed variance, fine-tuning strategies, compression, behavioural tests).
Tasks come from :mod:`bertology_lib.data.tasks`; heads from :mod:`bertology_lib.models.task_heads`.

* :func:`finetune` trains a fresh task head on a copy of any model source
  (:class:`~bertology_lib.models.sources.ModelSource`) through :func:`bertology_lib.training.loop.train`
  (AdamW, linear warmup and decay) on padded batches (:class:`~bertology_lib.training.encoding.FeatureBatches`),
  and evaluates the ``cfg.eval_splits``. Options: ``strategy`` (``full``; ``lora``: LoRA adapters on
  the query/value projections, Hu et al. 2021; ``frozen``: the head alone), ``track`` (fractions of
  training at which dev accuracy is recorded, for early stopping of seeds, Dodge et al. 2020) and
  ``keep_model`` (return the fine-tuned model and cache its weights).
* Results are cached in the :class:`~bertology_lib.cache.ArtifactCache`, keyed by the task's key, the
  model's weights fingerprint, the config, the seed and the options; a factory source without a
  ``key`` is trained every time.
* :func:`compare` tests two seed sweeps against each other (:func:`bertology_lib.stats.paired_test`).
"""

from __future__ import annotations

import copy
import dataclasses
import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import torch

from bertology_lib.cache import ArtifactKind, config_key, load_json, load_tensors, memo, save_json, save_tensors
from bertology_lib.data.tasks import Task
from bertology_lib.errors import ParameterError
from bertology_lib.models.sources import ModelSource, as_source
from bertology_lib.models.task_heads import TaskHead, build_model, encoder_of
from bertology_lib.profiles import SizeTable
from bertology_lib.stats import PairedTest, paired_test
from bertology_lib.training.encoding import (
    FeatureBatches,
    Features,
    collate,
    encode,
    max_len_for,
)
from bertology_lib.training.loop import TrainConfig, train
from bertology_lib.training.predictions import (
    DEFAULT_METRIC,
    Predictions,
    ensemble,
    evaluate,
    predict,
)
from bertology_lib.validation import check_choice, check_float, check_int, check_seed

__all__ = [
    "FinetuneConfig",
    "FinetuneResult",
    "STRATEGIES",
    "finetune",
    "finetune_model",
    "seed_sweep",
    "results_frame",
    "compare",
    "prepare",
    "trainable_names",
    "merged_encoder",
    "finetune_key",
    # the fine-tuning API from the modules that implement it
    "ModelSource",
    "as_source",
    "build_model",
    "encoder_of",
    "Features",
    "FeatureBatches",
    "collate",
    "encode",
    "max_len_for",
    "Predictions",
    "predict",
    "evaluate",
    "ensemble",
    "DEFAULT_METRIC",
]

# 2: keyed by FinetuneConfig.key(), with every option (strategy, LoRA rank, tracking, data seed) at any value
KIND = ArtifactKind("finetune", 2)  # metrics and predictions only
MODEL_KIND = ArtifactKind("finetuned-model", 2)  # with the fine-tuned weights
STRATEGIES: tuple[str, ...] = ("full", "lora", "frozen")


@dataclass(frozen=True)
class FinetuneConfig(SizeTable):
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

    SIZES: ClassVar[dict[str, dict[str, Any]]] = {  # smoke: a few steps; quick: 3 epochs on CPU; full: BERT-base
        "smoke": dict(max_steps=10, batch_size=8, eval_batch_size=64),
        "quick": dict(),
        "full": dict(lr=3e-5, epochs=3.0, max_len=256, device="auto"),
    }

    def __post_init__(self) -> None:
        for name in ("batch_size", "max_len", "max_answer_words", "eval_batch_size"):
            check_int(name, getattr(self, name), minimum=1)
        check_int("max_steps", self.max_steps, minimum=0)
        check_float("lr", self.lr, minimum=0.0, open_min=True)
        check_float("epochs", self.epochs, minimum=0.0, open_min=True)
        check_float("warmup_ratio", self.warmup_ratio, 0.0, 1.0, open_max=True)
        for name in ("weight_decay", "grad_clip"):
            check_float(name, getattr(self, name), minimum=0.0)
        if self.head_dropout is not None:
            check_float("head_dropout", self.head_dropout, 0.0, 1.0, open_max=True)
        check_float("null_threshold", self.null_threshold)
        splits = tuple(self.eval_splits) if isinstance(self.eval_splits, (list, tuple)) else None
        if splits is None or any(s not in ("train", "dev", "test") for s in splits):
            raise ParameterError(
                f"eval_splits={self.eval_splits!r} is out of range; allowed: a tuple of train, dev, test"
            )
        object.__setattr__(self, "eval_splits", splits)
        for name, allowed in (
            ("attn_implementation", ("sdpa", "eager")),
            ("device", ("cpu", "cuda", "auto")),
            ("dtype", ("float32", "bfloat16")),
        ):
            check_choice(name, getattr(self, name), allowed)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def key(self) -> dict[str, Any]:
        """Every field but ``device`` (:func:`~bertology_lib.cache.config_key`), for cache keys."""
        return config_key(self, leave_out=("device",))

    def steps(self, n_train: int) -> int:
        """Optimiser steps for ``n_train`` training examples: ``max_steps``, or ``epochs`` passes."""
        return self.max_steps or max(1, math.ceil(self.epochs * n_train / self.batch_size))

    def train_config(self, n_train: int, max_len: int, seed: int) -> TrainConfig:
        """The loop's settings for a run on ``n_train`` examples (shared by fine-tuning and distillation)."""
        steps = self.steps(n_train)
        return TrainConfig(
            lr=self.lr,
            weight_decay=self.weight_decay,
            warmup_steps=int(self.warmup_ratio * steps),
            max_steps=steps,
            batch_size=self.batch_size,
            seq_len=max_len,
            grad_clip=self.grad_clip,
            schedule="linear",
            min_lr_ratio=0.0,
            seed=seed,
            device=self.device,
            dtype=self.dtype,
            betas=(0.9, 0.999),
            eps=1e-8,
        )


# ---------------------------------------------------------------------------------
# Strategies: what trains
# ---------------------------------------------------------------------------------


def prepare(model: torch.nn.Module, strategy: str, lora_rank: int = 8) -> torch.nn.Module:
    """Make ``model`` (a task head on an encoder) train per ``strategy``, in place; returns it.

    ``full``: everything trains. ``frozen``: the encoder is frozen, the head trains. ``lora``: LoRA
    adapters (rank ``lora_rank``, alpha = 2 x rank, peft) on every block's query and value projections;
    the encoder's own weights are frozen, the adapters and the head train.
    """
    check_choice("strategy", strategy, STRATEGIES)
    check_int("lora_rank", lora_rank, minimum=1)
    if strategy == "full":
        return model
    for p in model.encoder.parameters():
        p.requires_grad_(False)
    if strategy == "lora":
        from peft import LoraConfig, LoraModel

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tuner = LoraModel(
                model.encoder,
                LoraConfig(
                    r=lora_rank,
                    lora_alpha=2 * lora_rank,
                    lora_dropout=0.0,
                    bias="none",
                    target_modules=["query", "value"],
                ),
                "default",
            )
        model.lora_tuners = [tuner]  # a list: kept out of parameters() and state_dict(); see merged_encoder
        for n, p in model.encoder.named_parameters():
            p.requires_grad_("lora_" in n)
    return model


def merged_encoder(model: torch.nn.Module) -> torch.nn.Module:
    """A copy of the encoder of ``model`` (a task head, or an encoder) with any LoRA adapters folded into
    its weights by peft's ``merge_and_unload`` (W + B A x scale), under the encoder's own parameter names."""
    head = copy.deepcopy(model)  # one deepcopy: the tuner still wraps the copied encoder
    tuners = getattr(head, "lora_tuners", None)
    if tuners:
        return tuners[0].merge_and_unload()
    return head.encoder if isinstance(head, TaskHead) else encoder_of(head)


def trainable_names(model: torch.nn.Module) -> list[str]:
    return [n for n, p in model.named_parameters() if p.requires_grad]


def _check_track(track: Sequence[float]) -> tuple[float, ...]:
    fr = tuple(float(f) for f in track)
    if any(not 0 < f <= 1 for f in fr) or list(fr) != sorted(set(fr)):
        raise ParameterError(f"track={track!r} is invalid; allowed: increasing fractions in (0, 1] (or empty)")
    return fr


# ---------------------------------------------------------------------------------
# Fine-tuning runs
# ---------------------------------------------------------------------------------


@dataclass
class FinetuneResult:
    """One fine-tuning run: metrics and predictions per evaluated split, the training curve and, when
    asked for (``keep_model``), the fine-tuned model and its tokenizer.

    ``curve``: the tracked dev accuracy, ``{"step", "frac", "dev"}`` per tracked point.
    """

    task: str
    model: str
    seed: int
    config: dict[str, Any]
    metrics: dict[str, dict[str, float]]
    predictions: dict[str, Predictions]
    train: dict[str, Any]
    cached: bool = False
    strategy: str = "full"
    curve: list[dict[str, float]] = field(default_factory=list)
    fine_tuned: torch.nn.Module | None = field(default=None, repr=False)
    tokenizer: Any = field(default=None, repr=False)

    def score(self, split: str = "test", metric: str | None = None) -> float:
        """One number: ``metric`` (default accuracy for classification, F1 for QA) on ``split``."""
        if split not in self.metrics:
            raise ParameterError(f"split={split!r} was not evaluated; allowed: {', '.join(self.metrics)}")
        kind = self.predictions[split].kind
        m = metric or DEFAULT_METRIC[kind]
        if m not in self.metrics[split]:
            raise ParameterError(f"metric={m!r} is unknown; allowed: {', '.join(self.metrics[split])}")
        return float(self.metrics[split][m])

    def dev_at(self, frac: float) -> float:
        """Dev accuracy at fraction ``frac`` of training (a tracked point)."""
        for row in self.curve:
            if abs(row["frac"] - frac) < 1e-9:
                return float(row["dev"])
        raise ParameterError(f"frac={frac!r} was not tracked; allowed: {[r['frac'] for r in self.curve]}")

    def to_json(self) -> dict[str, Any]:
        return {
            "task": self.task,
            "model": self.model,
            "seed": self.seed,
            "config": self.config,
            "metrics": self.metrics,
            "train": self.train,
            "strategy": self.strategy,
            "curve": self.curve,
            "predictions": {s: p.meta() for s, p in self.predictions.items()},
        }

    def save(self, folder: Path) -> None:
        """``result.json`` and ``predictions.safetensors`` (and ``model.safetensors`` with a model)."""
        save_json(folder / "result.json", self.to_json())
        tensors = {f"{s}.{k}": v.contiguous() for s, p in self.predictions.items() for k, v in p.probs.items()}
        if tensors:
            save_tensors(folder / "predictions.safetensors", tensors)
        if self.fine_tuned is not None:
            save_tensors(
                folder / "model.safetensors", {k: v.contiguous() for k, v in self.fine_tuned.state_dict().items()}
            )

    @classmethod
    def load(cls, folder: Path) -> "FinetuneResult":
        """A result saved by :meth:`save` (without its model: see :func:`finetune`)."""
        d = load_json(folder / "result.json")
        f = folder / "predictions.safetensors"
        tensors = load_tensors(f) if f.exists() else {}
        preds = {}
        for s, m in d["predictions"].items():
            probs = {k.split(".", 1)[1]: v for k, v in tensors.items() if k.split(".", 1)[0] == s}
            preds[s] = Predictions(
                m["kind"],
                m["ids"],
                m["golds"],
                probs,
                m["n_labels"],
                m["contexts"],
                m["max_answer_words"],
                m["null_threshold"],
            )
        return cls(
            d["task"],
            d["model"],
            d["seed"],
            d["config"],
            d["metrics"],
            preds,
            d["train"],
            cached=True,
            strategy=d.get("strategy", "full"),
            curve=d.get("curve", []),
        )


def _fresh_head(
    task: Task, src: ModelSource, cfg: FinetuneConfig, seed: int, strategy: str, lora_rank: int
) -> torch.nn.Module:
    return prepare(
        build_model(task, src.load_model(cfg.attn_implementation), seed, cfg.head_dropout), strategy, lora_rank
    )


def finetune_model(
    task: Task,
    model_source: Any,
    cfg: FinetuneConfig | None = None,
    seed: int = 0,
    progress: bool = False,
    strategy: str = "full",
    lora_rank: int = 8,
    track: Sequence[float] = (),
    data_seed: int | None = None,
) -> FinetuneResult:
    """Fine-tune a fresh copy of ``model_source`` on ``task`` (uncached); the result holds the model.

    ``seed`` draws the new head's weights and the training's random numbers (dropout); ``data_seed`` the
    order of the training batches (default: ``seed``), so the two can be varied one at a time (Dodge et al.
    2020's weight-initialisation and data-order seeds).

    ``track``: fractions of training at which dev accuracy is recorded in ``result.curve`` (scoring in
    eval mode changes nothing about the training itself).
    """
    cfg = cfg or FinetuneConfig()
    seed = check_seed(seed)
    data_seed = seed if data_seed is None else check_seed(data_seed, "data_seed")
    fracs = _check_track(track)
    src = as_source(model_source)
    tok = src.load_tokenizer()
    model = _fresh_head(task, src, cfg, seed, strategy, lora_rank)
    max_len = max_len_for(model.encoder, cfg.max_len)
    train_feats = encode(task, "train", tok, max_len)
    tc = cfg.train_config(len(train_feats.rows), max_len, seed)
    curve: list[dict[str, float]] = []
    callbacks = []
    if fracs:
        dev = encode(task, "dev", tok, max_len)
        at = {max(1, round(f * tc.max_steps)): f for f in fracs}

        def on_step_end(step: int, loss: float, m) -> None:
            if step in at:
                acc = predict(m, dev, tok.pad_token_id, cfg, task.n_labels).metrics()["accuracy"]
                curve.append({"step": step, "frac": at[step], "dev": float(acc)})
                m.train()

        callbacks.append(on_step_end)
    batches = FeatureBatches(train_feats.rows, cfg.batch_size, tok.pad_token_id, data_seed)
    res = train(model, batches, tc, callbacks=callbacks, progress=progress, desc=f"{task.name} / {src.name}")
    preds = {}
    for split in cfg.eval_splits:
        feats = train_feats if split == "train" else encode(task, split, tok, max_len)
        if feats.rows:
            preds[split] = predict(model, feats, tok.pad_token_id, cfg, task.n_labels)
    return FinetuneResult(
        task.name,
        src.name,
        seed,
        cfg.to_dict(),
        {s: p.metrics() for s, p in preds.items()},
        preds,
        {
            "steps": res.steps,
            "losses": res.losses,
            "seconds": res.seconds,
            "n_layers": int(getattr(model.encoder.config, "num_hidden_layers", 0)),
            "n_params": sum(p.numel() for p in model.parameters()),
            "n_trainable": sum(p.numel() for p in model.parameters() if p.requires_grad),
        },
        strategy=strategy,
        curve=curve,
        fine_tuned=model.eval(),
        tokenizer=tok,
    )


def finetune(
    task: Task,
    model_source: Any,
    cfg: FinetuneConfig | None = None,
    seed: int = 0,
    cache: Any = None,
    use_cache: bool = True,
    progress: bool = False,
    *,
    strategy: str = "full",
    lora_rank: int = 8,
    track: Sequence[float] = (),
    keep_model: bool = False,
    data_seed: int | None = None,
) -> FinetuneResult:
    """Fine-tune ``model_source`` on ``task`` with ``seed``: metrics, per-example probabilities and, with
    ``keep_model``, the fine-tuned model (``result.fine_tuned``, ``result.tokenizer``).

    Cached by (task key, model weights fingerprint, config, seed, and the options) unless ``use_cache`` is
    false or the source is a factory without a ``key``. A run that
    keeps its model, or uses another strategy or tracking, caches its weights too (kind
    ``finetuned-model``), so a rerun can evaluate new items without retraining. ``data_seed``: the batch
    order's seed when it differs from ``seed`` (:func:`finetune_model`; None in the key when it does not).
    """
    cfg = cfg or FinetuneConfig()
    seed = check_seed(seed)
    check_choice("strategy", strategy, STRATEGIES)
    fracs = _check_track(track)
    data_seed = None if data_seed is None or check_seed(data_seed, "data_seed") == seed else data_seed
    src = as_source(model_source)
    key = src.cache_key() if use_cache else None
    with_model = keep_model or strategy != "full" or bool(fracs)

    def compute() -> FinetuneResult:
        return finetune_model(task, src, cfg, seed, progress, strategy, lora_rank, fracs, data_seed)

    if key is None:
        r = compute()
    else:
        config: dict[str, Any] = {
            "task": task.key(),
            "model": key,
            "finetune": cfg.key(),
            "seed": seed,
            "strategy": strategy,
            "lora_rank": lora_rank if strategy == "lora" else None,
            "fracs": list(fracs),
            "data_seed": data_seed,
        }

        def save(r: FinetuneResult, folder: Path) -> None:
            (r if with_model else dataclasses.replace(r, fine_tuned=None)).save(folder)

        def load(folder: Path) -> FinetuneResult:
            r = FinetuneResult.load(folder)
            r.model = src.name  # the display name is not part of the key
            if with_model:
                model = _fresh_head(task, src, cfg, seed, strategy, lora_rank)
                model.load_state_dict(load_tensors(folder / "model.safetensors"))
                r.fine_tuned, r.tokenizer = model.eval(), src.load_tokenizer()
            return r

        r = memo(MODEL_KIND if with_model else KIND, config, compute, save, load, cache)
    if not keep_model:
        r.fine_tuned = r.tokenizer = None
    return r


def finetune_key(task: Task, model_source: Any, cfg: FinetuneConfig, seed: int) -> dict[str, Any]:
    """What determines a fully fine-tuned model (task, source weights, config, seed): the key that derived
    artifacts (e.g. a student distilled from it) use to name their teacher."""
    return {
        "task": task.key(),
        "model": as_source(model_source).cache_key(),
        "finetune": cfg.key(),
        "seed": check_seed(seed),
    }


def seed_sweep(
    task: Task,
    model_source: Any,
    seeds: Sequence[int],
    cfg: FinetuneConfig | None = None,
    cache: Any = None,
    use_cache: bool = True,
    progress: bool = False,
    **options: Any,
) -> list[FinetuneResult]:
    """:func:`finetune` once per seed (same hyper-parameters and ``options``), in order."""
    from bertology_lib.validation import check_seeds

    return [finetune(task, model_source, cfg, s, cache, use_cache, progress, **options) for s in check_seeds(seeds)]


def results_frame(results: Sequence[FinetuneResult]):
    """One row per (run, evaluated split): task, model, seed, split, the metrics, steps, seconds."""
    import pandas as pd

    rows = []
    for r in results:
        for split, m in r.metrics.items():
            rows.append(
                {
                    "task": r.task,
                    "model": r.model,
                    "seed": r.seed,
                    "split": split,
                    **m,
                    "steps": r.train.get("steps"),
                    "seconds": r.train.get("seconds"),
                    "cached": r.cached,
                }
            )
    return pd.DataFrame(rows)


def compare(
    a: Sequence[FinetuneResult],
    b: Sequence[FinetuneResult],
    split: str = "test",
    metric: str | None = None,
    method: str = "t",
) -> PairedTest:
    """:func:`~bertology_lib.stats.paired_test` of two seed sweeps, paired by seed (both with the same seeds)."""
    sa, sb = {r.seed: r for r in a}, {r.seed: r for r in b}
    if set(sa) != set(sb):
        raise ParameterError(f"seeds differ: {sorted(sa)} vs {sorted(sb)}; allowed: the same seeds in both")
    seeds = sorted(sa)
    return paired_test([sa[s].score(split, metric) for s in seeds], [sb[s].score(split, metric) for s in seeds], method)
