"""How big should BERT be? Compression experiments of the survey's §6 (Rogers et al. 2020).

Every method starts from the same fine-tuned teacher (:func:`finetuned`: a task head on an
encoder, weights cached so a rerun does not retrain) and is scored on the same features:

* layer dropping (:func:`drop_layers`, :func:`layer_drop_table`; Sajjad et al. 2020);
* dynamic int8 quantisation of the Linear layers (:func:`quantize_int8`,
  :func:`linear_weight_bytes`; Zafrir et al. 2019, Q8BERT);
* unstructured magnitude pruning (:func:`magnitude_masks`, :func:`sparsity_curve`;
  Gordon et al. 2020) and lottery-ticket rewinding (:func:`masked_source`: the
  surviving weights rewound to their *pre-fine-tuning* values and retrained with the
  mask fixed, against a random mask of the same per-matrix sparsity; Chen et al. 2020,
  Prasanna et al. 2020);
* task-specific distillation into a shallower student initialised from every other
  pre-trained block (:func:`distill`: soft targets at temperature T, gold labels, and an
  MSE between student and teacher hidden states; Hinton et al. 2015, Sanh et al. 2019,
  Sun et al. 2019);
* CPU latency measured side by side, interleaved, in one call (:func:`measure_latency`).

Head gates, importance and physical head pruning live in :mod:`bertology_lib.interventions.heads`.
Sizes per profile: :class:`ModelSizeSizes`. Used by ``notebooks/survey_06_model_size.ipynb``.
Classification tasks only (QA heads are not distilled or pruned here).
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import io
import math
import statistics
import time
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import torch

from bertology_lib.training import finetune as ft
from bertology_lib.cache import ArtifactCache, load_json, load_tensors, save_json, save_tensors
from bertology_lib.data.tasks import Task
from bertology_lib.errors import ParameterError
from bertology_lib.interventions.hooks import blocks, duplicate_layers
from bertology_lib.profiles import Profile

VERSION = 1


@dataclass(frozen=True)
class ModelSizeSizes:
    """Sizes of the §6 notebook per profile."""

    n_train: int  # toy-task training examples
    n_test: int  # toy-task dev and test examples (each)
    n_seeds: int  # fine-tuned teachers; every evaluation-only comparison is paired over them
    n_train_seeds: int  # seeds of the methods that retrain (distillation, lottery tickets)
    curve_points: int  # points of the head-pruning curve (0 .. all heads), plus 40%
    n_random_orders: int  # random head orders averaged for the control curve
    importance_batch: int  # batch size of the |dL/dgate| importance pass
    sparsities: tuple[float, ...]  # magnitude-pruning curve
    ticket_sparsity: float  # sparsity of the lottery tickets and their random-mask controls
    latency_repeats: int  # interleaved timing rounds (median reported)
    sst2_train: int  # SST-2 training sentences (MiniLM check)
    sst2_dev: int  # SST-2 held-out training sentences (importance is measured on them)
    sst2_test: int | None  # SST-2 test sentences (None = all 872)
    n_real_seeds: int  # MiniLM fine-tuning seeds
    real_curve_points: int  # points of MiniLM's head-pruning curve (plus 40%)
    n_ablation_seeds: int  # teachers on which every head is removed / kept alone in turn

    @classmethod
    def for_profile(cls, profile: Profile | str) -> "ModelSizeSizes":
        from bertology_lib.profiles import get_profile

        p = profile if isinstance(profile, Profile) else get_profile(profile)
        grid = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)
        return {
            "smoke": cls(n_train=48, n_test=32, n_seeds=2, n_train_seeds=2, curve_points=3, n_random_orders=1,
                         importance_batch=16, sparsities=(0.0, 0.4, 0.9), ticket_sparsity=0.5, latency_repeats=3,
                         sst2_train=32, sst2_dev=32, sst2_test=32, n_real_seeds=2, real_curve_points=2,
                         n_ablation_seeds=2),
            "quick": cls(n_train=600, n_test=250, n_seeds=5, n_train_seeds=3, curve_points=7, n_random_orders=2,
                         importance_batch=16, sparsities=grid, ticket_sparsity=0.5, latency_repeats=5,
                         sst2_train=800, sst2_dev=200, sst2_test=400, n_real_seeds=2, real_curve_points=5,
                         n_ablation_seeds=3),
            "full": cls(n_train=20000, n_test=2000, n_seeds=5, n_train_seeds=5, curve_points=11, n_random_orders=5,
                        importance_batch=8, sparsities=grid, ticket_sparsity=0.5, latency_repeats=10,
                        sst2_train=66000, sst2_dev=872, sst2_test=None, n_real_seeds=3, real_curve_points=11,
                        n_ablation_seeds=5),
        }[p.name]


def _check_classification(task: Task) -> None:
    if task.kind != "classification":
        raise ParameterError(f"task {task.name!r} is a {task.kind} task; allowed: a classification task")


def _check_seed(seed: Any) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ParameterError(f"seed={seed!r} is out of range; allowed: an int >= 0")
    return seed


def _check_sparsity(s: Any, name: str = "sparsity") -> float:
    if isinstance(s, bool) or not isinstance(s, (int, float)) or not math.isfinite(s) or not 0 <= s < 1:
        raise ParameterError(f"{name}={s!r} is out of range; allowed: a float in [0, 1)")
    return float(s)


# -- the fine-tuned teacher, with its weights cached ---------------------------------------------


def finetuned(task: Task, source: Any, cfg: ft.FinetuneConfig, seed: int = 0, cache: ArtifactCache | None = None,
              progress: bool = False) -> tuple[torch.nn.Module, Any, ft.FinetuneResult]:
    """:func:`finetune.finetune_model` whose fine-tuned weights are cached (model, tokenizer, result).

    Keyed like :func:`finetune.finetune` (task, model weights, config, seed); a factory
    source without a key is trained every time.
    """
    seed = _check_seed(seed)
    src = ft.as_source(source)
    key = src.cache_key()
    if key is None:
        return ft.finetune_model(task, src, cfg, seed, progress)
    cache = cache or ArtifactCache()
    config = {"task": task.key(), "model": key, "finetune": cfg.to_dict(), "seed": seed, "version": VERSION}
    built: list[tuple] = []

    def build(folder: Path) -> None:
        model, tok, result = ft.finetune_model(task, src, cfg, seed, progress)
        save_tensors(folder / "model.safetensors", model.state_dict())
        ft._save_result(folder, result)
        built.append((model, tok, result))

    folder = cache.get_or_create("finetuned-model", config, build)
    if built:
        return built[0]
    model = ft.build_model(task, src.load_model(cfg.attn_implementation), seed, cfg.head_dropout)
    model.load_state_dict(load_tensors(folder / "model.safetensors"))
    result = ft._load_result(folder)
    result.model = src.name
    return model.eval(), src.load_tokenizer(), result


def features(task: Task, tokenizer, model: torch.nn.Module, cfg: ft.FinetuneConfig,
             splits: Sequence[str] = ("dev", "test")) -> dict[str, ft.Features]:
    """Tokenised splits, encoded once and shared by every evaluation."""
    max_len = ft.max_len_for(model.encoder, cfg.max_len)
    return {s: ft.encode(task, s, tokenizer, max_len) for s in splits}


def score(model: torch.nn.Module, feats: ft.Features, pad_id: int, cfg: ft.FinetuneConfig, n_labels: int) -> float:
    """Accuracy of a classifier head on pre-encoded features."""
    return float(ft.predict(model, feats, pad_id, cfg, n_labels).metrics()["accuracy"])


# -- layer dropping ----------------------------------------------------------------------------


def drop_layers(model: torch.nn.Module, keep: Sequence[int]) -> torch.nn.Module:
    """A copy of a finetune head whose encoder keeps only blocks ``keep`` (0-based, in order)."""
    n = len(blocks(model.encoder))
    keep = [int(i) for i in keep]
    if not keep or any(not 0 <= i < n for i in keep) or len(set(keep)) != len(keep):
        raise ParameterError(f"keep={keep!r} is invalid; allowed: a non-empty list of distinct block indices in "
                             f"0..{n - 1}")
    new = copy.deepcopy(model)
    new.encoder = duplicate_layers(model.encoder, keep)
    return new.eval()


def layer_drop_table(model: torch.nn.Module, feats: ft.Features, pad_id: int, cfg: ft.FinetuneConfig,
                     n_labels: int) -> pd.DataFrame:
    """Accuracy with each block removed, and with the top k blocks dropped (no retraining)."""
    n = len(blocks(model.encoder))
    rows = [{"variant": "full", "kind": "full", "layers_left": n, "accuracy": score(model, feats, pad_id, cfg, n_labels)}]
    for i in range(n):
        keep = [j for j in range(n) if j != i]
        if keep:
            rows.append({"variant": f"without block {i}", "kind": "one removed", "block": i, "layers_left": n - 1,
                         "accuracy": score(drop_layers(model, keep), feats, pad_id, cfg, n_labels)})
    for k in range(1, n):
        rows.append({"variant": f"top {k} dropped", "kind": "top dropped", "block": n - k, "layers_left": n - k,
                     "accuracy": score(drop_layers(model, list(range(n - k))), feats, pad_id, cfg, n_labels)})
    return pd.DataFrame(rows)


# -- dynamic int8 quantisation -----------------------------------------------------------------


def quantize_int8(model: torch.nn.Module) -> torch.nn.Module:
    """A copy with every ``nn.Linear`` dynamically quantised to int8 (weights int8, activations at run time)."""
    with warnings.catch_warnings():  # torch.ao eager quantisation prints a migration notice
        warnings.simplefilter("ignore")
        return torch.ao.quantization.quantize_dynamic(copy.deepcopy(model).eval(), {torch.nn.Linear},
                                                      dtype=torch.qint8)


def linear_weight_bytes(model: torch.nn.Module) -> int:
    """Bytes of the Linear layers' parameters: fp32 weights and biases, or int8 weights + fp32 bias + scale/zero point."""
    from torch.ao.nn.quantized.dynamic import Linear as QLinear

    total = 0
    for m in model.modules():
        if isinstance(m, QLinear):
            w = m.weight()
            total += w.numel() * w.element_size() + 16  # per-tensor scale (float64) and zero point (int64)
            b = m.bias()
            total += 0 if b is None else b.numel() * b.element_size()
        elif isinstance(m, torch.nn.Linear):
            total += sum(p.numel() * p.element_size() for p in m.parameters(recurse=False))
    return total


def serialized_bytes(model: torch.nn.Module) -> int:
    """Size of the model's state dict as written by ``torch.save`` (in memory; never read back)."""
    buf = io.BytesIO()
    torch.save(model.state_dict(), buf)
    return len(buf.getvalue())


# -- latency -----------------------------------------------------------------------------------


def measure_latency(models: Mapping[str, torch.nn.Module], feats: ft.Features, pad_id: int, batch_size: int = 32,
                    repeats: int = 5, threads: int = 1) -> pd.DataFrame:
    """CPU time per batch of each model, measured side by side in one run.

    Rounds are interleaved (every model once per round, in rotating order) after one
    warm-up pass, on ``threads`` intra-op threads; the median over rounds is reported
    with the min and max. Timings vary from run to run and machine to machine.
    """
    if not models:
        raise ParameterError("models={} is empty; allowed: a dict of name -> model")
    if not isinstance(repeats, int) or repeats < 1:
        raise ParameterError(f"repeats={repeats!r} is out of range; allowed: an int >= 1")
    batches = []
    for i in range(0, len(feats.rows), batch_size):
        b = ft.collate(feats.rows[i: i + batch_size], pad_id)
        b.pop("labels")
        batches.append(b)
    if not batches:
        raise ParameterError("no examples to time; allowed: a non-empty split")
    old = torch.get_num_threads()
    torch.set_num_threads(threads)
    names = list(models)
    times: dict[str, list[float]] = {n: [] for n in names}
    try:
        with torch.inference_mode():
            for m in models.values():  # warm-up: every batch shape once per model (kernels are picked per shape)
                m.eval()
                for b in batches:
                    m(**b)
            for r in range(repeats):
                for n in names[r % len(names):] + names[: r % len(names)]:
                    t0 = time.perf_counter()
                    for b in batches:
                        models[n](**b)
                    times[n].append((time.perf_counter() - t0) / len(batches) * 1000)
    finally:
        torch.set_num_threads(old)
    return pd.DataFrame([{"model": n, "ms_per_batch": statistics.median(t), "ms_min": min(t), "ms_max": max(t),
                          "batch_size": batch_size, "threads": threads} for n, t in times.items()])


# -- unstructured magnitude pruning and lottery tickets -----------------------------------------


def prunable_weights(model: torch.nn.Module) -> dict[str, torch.nn.Linear]:
    """The Linear layers inside the encoder's blocks, by name relative to the encoder body.

    Embeddings, the pooler and the task head are not pruned (as in Chen et al. 2020).
    """
    enc = ft.encoder_of(model.encoder if isinstance(model, ft._Head) else model)
    out = {}
    for name, m in enc.named_modules():
        if isinstance(m, torch.nn.Linear) and ".layer." in f".{name}":
            out[name] = m
    if not out:
        raise ParameterError(f"{type(model).__name__} has no Linear layers in its blocks; allowed: a BERT encoder")
    return out


def _weight(m: torch.nn.Linear) -> torch.Tensor:
    return m.weight.detach()


def magnitude_masks(model: torch.nn.Module, sparsity: float) -> dict[str, torch.Tensor]:
    """Global magnitude pruning: keep the largest ``1 - sparsity`` of all block weights (bool masks, True = keep)."""
    sparsity = _check_sparsity(sparsity)
    layers = prunable_weights(model)
    flat = torch.cat([_weight(m).abs().flatten() for m in layers.values()])
    n_prune = int(round(sparsity * flat.numel()))
    if n_prune == 0:
        return {n: torch.ones_like(_weight(m), dtype=torch.bool) for n, m in layers.items()}
    threshold = flat.kthvalue(n_prune).values
    masks = {n: _weight(m).abs() > threshold for n, m in layers.items()}
    return masks


def random_masks_like(masks: Mapping[str, torch.Tensor], seed: int = 0) -> dict[str, torch.Tensor]:
    """Random masks with the same number of kept weights in every matrix (the lottery control)."""
    g = torch.Generator().manual_seed(_check_seed(seed))
    out = {}
    for n, m in masks.items():
        keep = int(m.sum())
        flat = torch.zeros(m.numel(), dtype=torch.bool)
        flat[torch.randperm(m.numel(), generator=g)[:keep]] = True
        out[n] = flat.view(m.shape)
    return out


def mask_sparsity(masks: Mapping[str, torch.Tensor]) -> float:
    total = sum(m.numel() for m in masks.values())
    return 1.0 - sum(int(m.sum()) for m in masks.values()) / total


def apply_masks(model: torch.nn.Module, masks: Mapping[str, torch.Tensor]) -> torch.nn.Module:
    """A copy of ``model`` with the masked-out block weights set to 0 (no retraining)."""
    new = copy.deepcopy(model)
    layers = prunable_weights(new)
    unknown = sorted(set(masks) - set(layers))
    if unknown:
        raise ParameterError(f"masks name unknown layers {unknown[:3]}; allowed: {sorted(layers)[:3]} ...")
    with torch.no_grad():
        for n, m in masks.items():
            layers[n].weight.mul_(m.to(layers[n].weight.dtype))
    return new.eval()


def sparsity_curve(model: torch.nn.Module, feats: ft.Features, pad_id: int, cfg: ft.FinetuneConfig, n_labels: int,
                   sparsities: Sequence[float]) -> pd.DataFrame:
    """Accuracy after global magnitude pruning of the block weights at each sparsity (no retraining)."""
    rows = []
    for s in sparsities:
        masks = magnitude_masks(model, s)
        rows.append({"sparsity": float(s), "measured_sparsity": mask_sparsity(masks),
                     "accuracy": score(apply_masks(model, masks), feats, pad_id, cfg, n_labels)})
    return pd.DataFrame(rows)


def masks_fingerprint(masks: Mapping[str, torch.Tensor]) -> str:
    h = hashlib.sha256()
    for n in sorted(masks):
        h.update(n.encode())
        h.update(masks[n].to(torch.uint8).numpy().tobytes())
    return h.hexdigest()[:20]


def masked_source(base: Any, masks: Mapping[str, torch.Tensor], name: str) -> ft.ModelSource:
    """``base`` at its *pre-fine-tuning* weights with ``masks`` fixed (lottery-ticket rewinding).

    The masked weights stay 0 through fine-tuning (``torch.nn.utils.prune.custom_from_mask``
    reparametrises ``weight = weight_orig * mask``). Cached by the base's key and the masks' hash.
    """
    from torch.nn.utils import prune

    base = ft.as_source(base)
    masks = {n: m.clone() for n, m in masks.items()}

    def factory() -> torch.nn.Module:
        model = base.load_model()
        layers = prunable_weights(model)
        unknown = sorted(set(masks) - set(layers))
        if unknown:
            raise ParameterError(f"masks name unknown layers {unknown[:3]}; allowed: {sorted(layers)[:3]} ...")
        for n, m in masks.items():
            prune.custom_from_mask(layers[n], "weight", m.to(layers[n].weight.dtype))
        return model

    key = base.cache_key()
    return ft.ModelSource(name, base.profile, base.seed, factory=factory, tokenizer=base,
                          key=None if key is None else {"base": key, "masks": masks_fingerprint(masks)})


# -- distillation ------------------------------------------------------------------------------


@dataclass(frozen=True)
class DistillConfig:
    """Task-specific distillation: ``alpha`` weighs the soft-target KL (at ``temperature``, scaled by
    T², Hinton et al. 2015) against the gold labels' cross-entropy; ``beta`` weighs the MSE between
    each student block's output and its teacher block's (Sun et al. 2019; the same width, no projection)."""

    temperature: float = 2.0
    alpha: float = 0.5
    beta: float = 1.0

    def __post_init__(self) -> None:
        for name, lo, hi in (("temperature", 1e-3, 100.0), ("alpha", 0.0, 1.0), ("beta", 0.0, 1e3)):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or not lo <= v <= hi:
                raise ParameterError(f"{name}={v!r} is out of range; allowed: a float in [{lo}, {hi}]")

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def student_layers(n_teacher: int, n_student: int) -> list[int]:
    """Which teacher blocks initialise the student: one of every ``n_teacher / n_student`` (DistilBERT)."""
    if not isinstance(n_student, int) or not 1 <= n_student <= n_teacher:
        raise ParameterError(f"n_student={n_student!r} is out of range; allowed: an int in 1..{n_teacher}")
    return [int(i * n_teacher // n_student) for i in range(n_student)]


def _classify(model: torch.nn.Module, batch: Mapping[str, torch.Tensor]) -> tuple[torch.Tensor, tuple]:
    """A :class:`~finetune.SequenceClassifier`'s logits and its encoder's hidden states (L+1 x (B, T, d))."""
    kw = {"token_type_ids": batch["token_type_ids"]} if model.token_types and "token_type_ids" in batch else {}
    out = model.encoder(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"],
                        output_hidden_states=True, **kw)
    h = out.last_hidden_state[:, 0]  # (B, d)
    logits = model.out(model.dropout(torch.tanh(model.dense(model.dropout(h)))))  # (B, C)
    return logits, out.hidden_states


class _Distiller(torch.nn.Module):
    """Training view: ``forward(**batch).loss`` is the distillation loss; the teacher stays frozen, in eval mode."""

    def __init__(self, student, teacher, hidden_map: Sequence[int], dcfg: DistillConfig) -> None:
        super().__init__()
        self.student = student
        self.teacher = [teacher]  # a list keeps it out of parameters() and state_dict()
        self.hidden_map = list(hidden_map)
        self.dcfg = dcfg

    def forward(self, labels=None, **batch):
        import torch.nn.functional as F

        teacher = self.teacher[0]
        with torch.no_grad():
            t_logits, t_states = _classify(teacher, batch)
        s_logits, s_states = _classify(self.student, batch)
        T, a, b = self.dcfg.temperature, self.dcfg.alpha, self.dcfg.beta
        kl = F.kl_div(F.log_softmax(s_logits / T, -1), F.softmax(t_logits / T, -1), reduction="batchmean") * T * T
        ce = F.cross_entropy(s_logits, labels)
        keep = batch["attention_mask"].bool()[..., None].float()  # (B, T, 1)
        mse = sum(((s_states[j + 1] - t_states[t]) ** 2 * keep).sum() / (keep.sum() * s_states[0].shape[-1])
                  for j, t in enumerate(self.hidden_map)) / len(self.hidden_map)
        loss = a * kl + (1 - a) * ce + b * mse
        from types import SimpleNamespace

        return SimpleNamespace(loss=loss, logits=s_logits)


def _train_config(cfg: ft.FinetuneConfig, n_train: int, max_len: int, seed: int):
    from bertology_lib.training.loop import TrainConfig

    steps = cfg.max_steps or max(1, math.ceil(cfg.epochs * n_train / cfg.batch_size))
    return TrainConfig(lr=cfg.lr, weight_decay=cfg.weight_decay, warmup_steps=int(cfg.warmup_ratio * steps),
                       max_steps=steps, batch_size=cfg.batch_size, seq_len=max_len, grad_clip=cfg.grad_clip,
                       schedule="linear", min_lr_ratio=0.0, seed=seed, device=cfg.device, dtype=cfg.dtype,
                       betas=(0.9, 0.999), eps=1e-8)


def distill(task: Task, teacher: torch.nn.Module, tokenizer, base: Any, layers: Sequence[int],
            cfg: ft.FinetuneConfig, dcfg: DistillConfig | None = None, seed: int = 0,
            teacher_key: Any = None, cache: ArtifactCache | None = None, progress: bool = False
            ) -> tuple[torch.nn.Module, dict[str, dict[str, float]]]:
    """Distil a fine-tuned ``teacher`` into a student made of ``base``'s pre-trained blocks ``layers``.

    The student (a fresh task head on those blocks, seeded by ``seed``) trains with the
    teacher's hyper-parameters ``cfg`` on ``task``'s train split; student block ``j`` is
    matched to teacher block ``round((j + 1) * L_t / L_s) - 1``. Returns (student, metrics per
    evaluated split). Cached when ``teacher_key`` (what determines the teacher) is given.
    """
    from bertology_lib.training.loop import train

    _check_classification(task)
    seed = _check_seed(seed)
    dcfg = dcfg or DistillConfig()
    base = ft.as_source(base)
    n_t = len(blocks(teacher.encoder))
    layers = [int(i) for i in layers]
    if not layers or any(not 0 <= i < n_t for i in layers):
        raise ParameterError(f"layers={layers!r} are invalid; allowed: a non-empty list of block indices in 0..{n_t - 1}")
    hidden_map = [round((j + 1) * n_t / len(layers)) for j in range(len(layers))]  # indices into hidden_states

    def build_student() -> torch.nn.Module:
        return ft.build_model(task, duplicate_layers(base.load_model(cfg.attn_implementation), layers), seed,
                              cfg.head_dropout)

    def run() -> tuple[torch.nn.Module, dict]:
        student = build_student()
        max_len = ft.max_len_for(student.encoder, cfg.max_len)
        feats = ft.encode(task, "train", tokenizer, max_len)
        batches = ft.FeatureBatches(feats.rows, cfg.batch_size, tokenizer.pad_token_id, seed)
        teacher.eval()
        train(_Distiller(student, teacher, hidden_map, dcfg), batches, _train_config(cfg, len(feats.rows), max_len, seed),
              progress=progress, desc=f"distil {task.name}")
        student.eval()
        metrics = {s: ft.predict(student, ft.encode(task, s, tokenizer, max_len), tokenizer.pad_token_id, cfg,
                                 task.n_labels).metrics() for s in cfg.eval_splits}
        return student, metrics

    base_key = base.cache_key()
    if teacher_key is None or base_key is None:
        return run()
    cache = cache or ArtifactCache()
    config = {"task": task.key(), "teacher": teacher_key, "base": base_key, "layers": layers, "finetune": cfg.to_dict(),
              "distill": dcfg.to_dict(), "seed": seed, "version": VERSION}
    built: list[tuple] = []

    def build(folder: Path) -> None:
        student, metrics = run()
        save_tensors(folder / "model.safetensors", student.state_dict())
        save_json(folder / "metrics.json", metrics)
        built.append((student, metrics))

    folder = cache.get_or_create("distilled-model", config, build)
    if built:
        return built[0]
    student = build_student()
    student.load_state_dict(load_tensors(folder / "model.safetensors"))
    return student.eval(), load_json(folder / "metrics.json")


# -- summaries ---------------------------------------------------------------------------------


def paired_summary(scores: Sequence[float], reference: Sequence[float]) -> dict[str, float]:
    """Mean ± std of ``scores`` and the paired difference to ``reference`` (same seeds) with a 95% CI."""
    scores = [float(x) for x in scores]
    row = {"mean": statistics.fmean(scores), "std": statistics.stdev(scores) if len(scores) > 1 else float("nan"),
           "n_seeds": len(scores)}
    ref = [float(x) for x in reference][: len(scores)]
    if len(scores) >= 2 and len(ref) == len(scores):
        t = ft.paired_test(scores, ref)
        row.update(delta=t.mean_diff, ci_low=t.ci_low, ci_high=t.ci_high, p_value=t.p_value)
    return row


def per_seed_frame(values: Mapping[str, Mapping[int, float]]) -> pd.DataFrame:
    """Method -> {seed: score} as a (seed x method) frame."""
    return pd.DataFrame({k: pd.Series(v) for k, v in values.items()})
