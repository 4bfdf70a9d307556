"""Task-specific distillation into a shallower student built from the teacher's own pre-trained blocks.

Soft targets at temperature T (Hinton et al. 2015), gold labels, and an MSE between each student
block's output and its teacher block's (Sun et al. 2019; same width, no projection); the student is
initialised from every other pre-trained block (:func:`student_layers`, DistilBERT, Sanh et al. 2019).
Used by the survey's §6 notebook. It sits beside compression: it changes a model through the fine-tuning
tools below it (until 2026-12-05 it was ``bertology_lib.training.distill``, which made training and
interventions import each other).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import torch
import torch.nn.functional as F

from bertology_lib.cache import ArtifactKind, config_key, load_json, load_tensors, memo, save_json, save_tensors
from bertology_lib.data.tasks import Task
from bertology_lib.errors import ParameterError
from bertology_lib.interventions.duplication import duplicate_layers
from bertology_lib.interventions.hooks import blocks
from bertology_lib.models.sources import as_source
from bertology_lib.models.task_heads import build_model
from bertology_lib.training.encoding import FeatureBatches, encode, max_len_for
from bertology_lib.training.finetune import FinetuneConfig
from bertology_lib.training.loop import train
from bertology_lib.training.predictions import predict
from bertology_lib.validation import check_float, check_int, check_seed

KIND = ArtifactKind("distilled-model", 2)  # 2: keys by FinetuneConfig.key() / DistillConfig.key()


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
            check_float(name, getattr(self, name), lo, hi)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def key(self) -> dict[str, Any]:
        return config_key(self)


def student_layers(n_teacher: int, n_student: int) -> list[int]:
    """Which teacher blocks initialise the student: one of every ``n_teacher / n_student`` (DistilBERT)."""
    check_int("n_student", n_student, 1, n_teacher)
    return [int(i * n_teacher // n_student) for i in range(n_student)]


def classify(model: torch.nn.Module, batch: Mapping[str, torch.Tensor]) -> tuple[torch.Tensor, tuple]:
    """A :class:`~bertology_lib.models.task_heads.SequenceClassifier`'s logits and its encoder's hidden states (L+1 x (B, T, d))."""
    kw = {"token_type_ids": batch["token_type_ids"]} if model.token_types and "token_type_ids" in batch else {}
    out = model.encoder(
        input_ids=batch["input_ids"], attention_mask=batch["attention_mask"], output_hidden_states=True, **kw
    )
    h = out.last_hidden_state[:, 0]  # (B, d)
    logits = model.out(model.dropout(torch.tanh(model.dense(model.dropout(h)))))  # (B, C)
    return logits, out.hidden_states


class Distiller(torch.nn.Module):
    """Training view: ``forward(**batch).loss`` is the distillation loss; the teacher stays frozen, in eval mode."""

    def __init__(self, student, teacher, hidden_map: Sequence[int], dcfg: DistillConfig) -> None:
        super().__init__()
        self.student = student
        self.teacher = [teacher]  # a list keeps it out of parameters() and state_dict()
        self.hidden_map = list(hidden_map)
        self.dcfg = dcfg

    def forward(self, labels=None, **batch):
        teacher = self.teacher[0]
        with torch.no_grad():
            t_logits, t_states = classify(teacher, batch)
        s_logits, s_states = classify(self.student, batch)
        T, a, b = self.dcfg.temperature, self.dcfg.alpha, self.dcfg.beta
        kl = F.kl_div(F.log_softmax(s_logits / T, -1), F.softmax(t_logits / T, -1), reduction="batchmean") * T * T
        ce = F.cross_entropy(s_logits, labels)
        keep = batch["attention_mask"].bool()[..., None].float()  # (B, T, 1)
        mse = sum(
            ((s_states[j + 1] - t_states[t]) ** 2 * keep).sum() / (keep.sum() * s_states[0].shape[-1])
            for j, t in enumerate(self.hidden_map)
        ) / len(self.hidden_map)
        loss = a * kl + (1 - a) * ce + b * mse
        return SimpleNamespace(loss=loss, logits=s_logits)


def distill(
    task: Task,
    teacher: torch.nn.Module,
    tokenizer,
    base: Any,
    layers: Sequence[int],
    cfg: FinetuneConfig,
    dcfg: DistillConfig | None = None,
    seed: int = 0,
    teacher_key: Any = None,
    cache: Any = None,
    progress: bool = False,
) -> tuple[torch.nn.Module, dict[str, dict[str, float]]]:
    """Distil a fine-tuned ``teacher`` into a student made of ``base``'s pre-trained blocks ``layers``.

    The student (a fresh task head on those blocks, seeded by ``seed``) trains with the
    teacher's hyper-parameters ``cfg`` on ``task``'s train split; student block ``j`` is
    matched to teacher block ``round((j + 1) * L_t / L_s) - 1``. Returns (student, metrics per
    evaluated split). Cached when ``teacher_key`` (what determines the teacher) is given.
    """
    if task.kind != "classification":
        raise ParameterError(f"task {task.name!r} is a {task.kind} task; allowed: a classification task")
    seed = check_seed(seed)
    dcfg = dcfg or DistillConfig()
    base = as_source(base)
    n_t = len(blocks(teacher.encoder))
    layers = [int(i) for i in layers]
    if not layers or any(not 0 <= i < n_t for i in layers):
        raise ParameterError(
            f"layers={layers!r} are invalid; allowed: a non-empty list of block indices in 0..{n_t - 1}"
        )
    hidden_map = [round((j + 1) * n_t / len(layers)) for j in range(len(layers))]  # indices into hidden_states

    def build_student() -> torch.nn.Module:
        return build_model(
            task, duplicate_layers(base.load_model(cfg.attn_implementation), layers), seed, cfg.head_dropout
        )

    def run() -> tuple[torch.nn.Module, dict]:
        student = build_student()
        max_len = max_len_for(student.encoder, cfg.max_len)
        feats = encode(task, "train", tokenizer, max_len)
        batches = FeatureBatches(feats.rows, cfg.batch_size, tokenizer.pad_token_id, seed)
        teacher.eval()
        train(
            Distiller(student, teacher, hidden_map, dcfg),
            batches,
            cfg.train_config(len(feats.rows), max_len, seed),
            progress=progress,
            desc=f"distil {task.name}",
        )
        student.eval()
        metrics = {
            s: predict(
                student, encode(task, s, tokenizer, max_len), tokenizer.pad_token_id, cfg, task.n_labels
            ).metrics()
            for s in cfg.eval_splits
        }
        return student, metrics

    base_key = base.cache_key()
    if teacher_key is None or base_key is None:
        return run()
    config = {
        "task": task.key(),
        "teacher": teacher_key,
        "base": base_key,
        "layers": layers,
        "finetune": cfg.key(),
        "distill": dcfg.key(),
        "seed": seed,
    }

    def save(value: tuple, folder: Path) -> None:
        save_tensors(folder / "model.safetensors", value[0].state_dict())
        save_json(folder / "metrics.json", value[1])

    def load(folder: Path) -> tuple:
        student = build_student()
        student.load_state_dict(load_tensors(folder / "model.safetensors"))
        return student.eval(), load_json(folder / "metrics.json")

    return memo(KIND, config, run, save, load, cache)
