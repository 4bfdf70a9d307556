"""How big should BERT be? The survey's §6 (Rogers et al. 2020): sizes, and the tables of the notebook.

Every method starts from the same fine-tuned teacher (:func:`bertology_lib.training.finetune.finetune`
with ``keep_model=True``: weights cached, so a rerun does not retrain) and is scored on the same encoded
splits (:func:`features`). The methods are tools: :mod:`bertology_lib.interventions.heads` (head gates,
importance, pruning), :mod:`bertology_lib.interventions.compression` (layer dropping, int8, magnitude
pruning, lottery tickets), :mod:`bertology_lib.interventions.distill`, :mod:`bertology_lib.analysis.latency`.
Redundancy read off the attention maps of the pre-trained encoder: :func:`head_similarity_vs_twin` (heads of one
layer attend alike, Clark et al. 2019 §6, against the random-init twin).
Used by ``notebooks/survey_06_model_size.ipynb``. Classification tasks only.
"""

from __future__ import annotations

import dataclasses
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd
import torch

from bertology_lib import stats
from bertology_lib.analysis.attention import head_similarity, layer_similarity, within_across_gap
from bertology_lib.analysis.attention_norms import attention_maps
from bertology_lib.data.tasks import Task
from bertology_lib.errors import ParameterError
from bertology_lib.interventions.compression import (
    apply_masks,
    drop_layers,
    linear_weight_bytes,
    magnitude_masks,
    mask_sparsity,
    masked_source,
    quantize_int8,
    random_masks_like,
    serialized_bytes,
)
from bertology_lib.interventions.duplication import duplicated
from bertology_lib.interventions.heads import count_parameters, head_shape, pruning_curve, pruning_grid
from bertology_lib.interventions.hooks import blocks
from bertology_lib.models.registry import RANDOM_INIT
from bertology_lib.profiles import SizeTable
from bertology_lib.stats import paired_test
from bertology_lib.training import finetune as ft
from bertology_lib.interventions.distill import distill
from bertology_lib.training.encoding import Features, encode, max_len_for
from bertology_lib.training.finetune import FinetuneConfig
from bertology_lib.training.predictions import predict


_GRID = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)


@dataclass(frozen=True)
class ModelSizeSizes(SizeTable):
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

    SIZES: ClassVar[dict[str, dict[str, Any]]] = {
        "smoke": dict(
            n_train=48,
            n_test=32,
            n_seeds=2,
            n_train_seeds=2,
            curve_points=3,
            n_random_orders=1,
            importance_batch=16,
            sparsities=(0.0, 0.4, 0.9),
            ticket_sparsity=0.5,
            latency_repeats=3,
            sst2_train=32,
            sst2_dev=32,
            sst2_test=32,
            n_real_seeds=2,
            real_curve_points=2,
            n_ablation_seeds=2,
        ),
        "quick": dict(
            n_train=600,
            n_test=250,
            n_seeds=5,
            n_train_seeds=3,
            curve_points=7,
            n_random_orders=2,
            importance_batch=16,
            sparsities=_GRID,
            ticket_sparsity=0.5,
            latency_repeats=5,
            sst2_train=800,
            sst2_dev=200,
            sst2_test=None,  # all 872 GLUE-dev sentences: intervals over seeds and sentences want every one
            n_real_seeds=3,
            real_curve_points=5,
            n_ablation_seeds=5,  # five teachers: `bertology power` sized head_removal_improves at 1.3x three's data
        ),
        "full": dict(
            n_train=20000,
            n_test=2000,
            n_seeds=5,
            n_train_seeds=5,
            curve_points=11,
            n_random_orders=5,
            importance_batch=8,
            sparsities=_GRID,
            ticket_sparsity=0.5,
            latency_repeats=10,
            sst2_train=66000,
            sst2_dev=872,
            sst2_test=None,
            n_real_seeds=3,
            real_curve_points=11,
            n_ablation_seeds=5,
        ),
    }


def features(
    task: Task, tokenizer, model: torch.nn.Module, cfg: FinetuneConfig, splits: Sequence[str] = ("dev", "test")
) -> dict[str, Features]:
    """Tokenised splits, encoded once and shared by every evaluation."""
    max_len = max_len_for(model.encoder, cfg.max_len)
    return {s: encode(task, s, tokenizer, max_len) for s in splits}


def score(model: torch.nn.Module, feats: Features, pad_id: int, cfg: FinetuneConfig, n_labels: int) -> float:
    """Accuracy of a classifier head on pre-encoded features."""
    return float(predict(model, feats, pad_id, cfg, n_labels).metrics()["accuracy"])


def layer_drop_table(
    model: torch.nn.Module, feats: Features, pad_id: int, cfg: FinetuneConfig, n_labels: int
) -> pd.DataFrame:
    """Accuracy with each block removed, and with the top k blocks dropped (no retraining)."""
    n = len(blocks(model.encoder))
    rows = [
        {"variant": "full", "kind": "full", "layers_left": n, "accuracy": score(model, feats, pad_id, cfg, n_labels)}
    ]
    for i in range(n):
        keep = [j for j in range(n) if j != i]
        if keep:
            rows.append(
                {
                    "variant": f"without block {i}",
                    "kind": "one removed",
                    "block": i,
                    "layers_left": n - 1,
                    "accuracy": score(drop_layers(model, keep), feats, pad_id, cfg, n_labels),
                }
            )
    for k in range(1, n):
        rows.append(
            {
                "variant": f"top {k} dropped",
                "kind": "top dropped",
                "block": n - k,
                "layers_left": n - k,
                "accuracy": score(drop_layers(model, list(range(n - k))), feats, pad_id, cfg, n_labels),
            }
        )
    return pd.DataFrame(rows)


def sparsity_curve(
    model: torch.nn.Module,
    feats: Features,
    pad_id: int,
    cfg: FinetuneConfig,
    n_labels: int,
    sparsities: Sequence[float],
) -> pd.DataFrame:
    """Accuracy after global magnitude pruning of the block weights at each sparsity (no retraining)."""
    rows = []
    for s in sparsities:
        masks = magnitude_masks(model, s)
        rows.append(
            {
                "sparsity": float(s),
                "measured_sparsity": mask_sparsity(masks),
                "accuracy": score(apply_masks(model, masks), feats, pad_id, cfg, n_labels),
            }
        )
    return pd.DataFrame(rows)


def paired_summary(scores: Sequence[float], reference: Sequence[float]) -> dict[str, float]:
    """Mean ± std of ``scores`` and the paired difference to ``reference`` (same seeds) with a 95% CI."""
    scores = [float(x) for x in scores]
    row = {
        "mean": statistics.fmean(scores),
        "std": statistics.stdev(scores) if len(scores) > 1 else float("nan"),
        "n_seeds": len(scores),
    }
    ref = [float(x) for x in reference][: len(scores)]
    if len(scores) >= 2 and len(ref) == len(scores):
        t = paired_test(scores, ref)
        row.update(delta=t.mean_diff, ci_low=t.ci_low, ci_high=t.ci_high, p_value=t.p_value)
    return row


def per_seed_frame(values: Mapping[str, Mapping[int, float]]) -> pd.DataFrame:
    """Method -> {seed: score} as a (seed x method) frame."""
    return pd.DataFrame({k: pd.Series(v) for k, v in values.items()})


# -- the notebook's steps ------------------------------------------------------------------------


@dataclass
class Teachers:
    """Fine-tuned teachers by seed (cached weights), their tokenizer, encoded dev/test splits and test scores."""

    models: dict[int, torch.nn.Module]
    results: dict[int, ft.FinetuneResult]
    tokenizer: Any
    features: dict[str, Features]
    full: dict[int, float]

    @property
    def pad(self) -> int:
        return self.tokenizer.pad_token_id

    @property
    def first(self) -> torch.nn.Module:
        return self.models[min(self.models)]


def fine_tuned_teachers(task: Task, base: Any, cfg: FinetuneConfig, seeds: Sequence[int]) -> Teachers:
    """One fine-tuned teacher per seed (:func:`~bertology_lib.training.finetune.finetune`, weights cached)."""
    results = {s: ft.finetune(task, base, cfg, s, keep_model=True) for s in seeds}
    models = {s: r.fine_tuned for s, r in results.items()}
    tok = results[seeds[0]].tokenizer
    feats = features(task, tok, models[seeds[0]], cfg)
    full = {s: score(m, feats["test"], tok.pad_token_id, cfg, task.n_labels) for s, m in models.items()}
    return Teachers(models, results, tok, feats, full)


def accuracy_ratio_interval(a: Any, b: Any, **kw: Any) -> tuple[float, float, float]:
    """Accuracy of ``a`` over accuracy of ``b`` (e.g. a student's over its teacher's), mean over seeds of the
    per-seed ratio, with an interval over seeds and test items (:func:`bertology_lib.stats.seed_item_interval`);
    ``a``, ``b``: (seeds, items) arrays of per-item scores, the same seeds and items in the same order."""
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if x.shape != y.shape or x.ndim != 2 or x.shape[0] < 2 or x.shape[1] < 2:
        raise ParameterError(
            f"a and b have shapes {x.shape} and {y.shape}; allowed: the same (seeds, items) shape, with at least "
            "2 seeds and 2 items"
        )
    if (y.sum(1) == 0).any():
        raise ParameterError("b scores 0 on every item for some seed; allowed: a non-zero denominator per seed")
    return stats.seed_item_interval(
        lambda idx: x[:, idx].sum(1) / np.maximum(y[:, idx].sum(1), 1e-12), x.shape[1], **kw
    )


def result_correct(result: ft.FinetuneResult, split: str = "test") -> np.ndarray:
    """0/1 per row of ``split``: a fine-tuning run's prediction is the gold label (classification)."""
    p = result.predictions[split]
    return (np.asarray(p.predicted()) == np.asarray(p.golds)).astype(float)


def seed_items(
    models: Mapping[int, torch.nn.Module],
    feats: Features,
    pad_id: int,
    cfg: FinetuneConfig,
    n_labels: int,
    masks: Mapping[int, Any] | None = None,
    seeds: Sequence[int] | None = None,
) -> np.ndarray:
    """(seeds, test rows) of 0/1 (:func:`item_correct`) for the models of ``seeds`` (default: every model, in seed
    order), each with its head mask from ``masks`` when given: the per-item scores that
    :func:`bertology_lib.stats.accuracy_gap_interval` resamples together with the seeds."""
    seeds = sorted(models) if seeds is None else list(seeds)
    return np.stack(
        [item_correct(models[s], feats, pad_id, cfg, n_labels, mask=None if masks is None else masks[s]) for s in seeds]
    )


def retrain_table(
    task: Task,
    base: Any,
    cfg: FinetuneConfig,
    teachers: Teachers,
    seeds: Sequence[int],
    ticket_sparsity: float,
    k_drop: int,
    student_blocks: Sequence[int],
) -> pd.DataFrame:
    """Per seed, the methods that train again (test accuracy): a rewound magnitude lottery ticket and a random
    mask of the same sparsity, the top ``k_drop`` blocks dropped then fine-tuned, a distilled student on
    ``student_blocks`` and the same student fine-tuned without a teacher; the teacher's score beside them.
    ``table.attrs["items"]``: method -> (seeds, test rows) 0/1 per item, for intervals over seeds and items."""
    L = len(blocks(teachers.first.encoder))
    dropped_src = duplicated(base, list(range(L - k_drop)), name=f"top {k_drop} dropped")
    student_src = duplicated(base, list(student_blocks), name="student, no teacher")
    rows: dict[int, dict[str, float]] = {}
    items: dict[str, list[np.ndarray]] = {}
    for s in seeds:
        m = teachers.models[s]
        masks = magnitude_masks(m, ticket_sparsity)
        student, student_metrics = distill(
            task,
            m,
            teachers.tokenizer,
            base,
            list(student_blocks),
            cfg,
            seed=s,
            teacher_key=ft.finetune_key(task, base, cfg, s),
        )
        runs = {
            "lottery ticket": ft.finetune(task, masked_source(base, masks, "ticket"), cfg, s),
            "random mask": ft.finetune(task, masked_source(base, random_masks_like(masks, s), "random"), cfg, s),
            f"top {k_drop} dropped, fine-tuned": ft.finetune(task, dropped_src, cfg, s),
            "student, no teacher": ft.finetune(task, student_src, cfg, s),
        }
        rows[s] = {name: r.score("test") for name, r in runs.items()}
        rows[s]["distilled student"] = student_metrics["test"]["accuracy"]
        per_item = {name: result_correct(r) for name, r in runs.items()}
        per_item["distilled student"] = item_correct(
            student, teachers.features["test"], teachers.pad, cfg, task.n_labels
        )
        per_item["teacher"] = item_correct(m, teachers.features["test"], teachers.pad, cfg, task.n_labels)
        for name, x in per_item.items():
            items.setdefault(name, []).append(x)
    order = [
        "lottery ticket",
        "random mask",
        f"top {k_drop} dropped, fine-tuned",
        "distilled student",
        "student, no teacher",
    ]
    table = pd.DataFrame(rows).T.rename_axis("seed")[order]
    table.insert(0, "teacher", [teachers.full[s] for s in seeds])
    table.attrs["items"] = {name: np.stack(v) for name, v in items.items()}
    return table


def compression_table(
    methods: Sequence[tuple[str, str, torch.nn.Module, Mapping[int, float]]],
    latency: pd.DataFrame,
    full: Mapping[int, float],
    reference: str = "teacher (fp32)",
) -> pd.DataFrame:
    """One row per compression method: its size (parameters, non-zero parameters, state-dict and Linear MB),
    CPU latency and speed-up over ``reference``, and its accuracy over seeds paired with the teacher's.

    ``methods``: (name, timed model name in ``latency``'s index, model whose size is reported, accuracy by seed).
    """
    ref_ms = latency.loc[reference, "ms_per_batch"]
    rows = []
    for name, timed, sized, acc in methods:
        seeds = sorted(acc)
        rows.append(
            {
                "method": name,
                "parameters": count_parameters(sized),
                "non-zero parameters": count_parameters(sized, nonzero=True),
                "state dict MB": serialized_bytes(sized) / 1e6,
                "Linear MB": linear_weight_bytes(sized) / 1e6,
                "latency_ms": latency.loc[timed, "ms_per_batch"],
                "speed-up": ref_ms / latency.loc[timed, "ms_per_batch"],
                **paired_summary([acc[s] for s in seeds], [full[s] for s in seeds]),
            }
        )
    return pd.DataFrame(rows).rename(columns={"mean": "accuracy"})


@dataclass
class RealCheck:
    """MiniLM (or another real encoder) on SST-2: fp32 and int8 test accuracy by seed, head-pruning curves, and
    ``items``: per test sentence, whether each seed's model is right (``full``, ``int8``, ``k40``: with ``k40``
    heads removed in importance order), (seeds, sentences) arrays of 0/1 for intervals over seeds *and*
    sentences (:func:`bertology_lib.stats.accuracy_gap_interval`)."""

    full: dict[int, float]
    int8: dict[int, float]
    curves: pd.DataFrame
    shape: tuple[int, int]
    k40: int
    int8_ratio: float
    items: dict[str, np.ndarray] = dataclasses.field(default_factory=dict)


def item_correct(
    model: torch.nn.Module, feats: Features, pad_id: int, cfg: FinetuneConfig, n_labels: int, mask=None
) -> np.ndarray:
    """0/1 per test row: the model's (with heads gated by ``mask``, if given) prediction is the gold label."""
    from contextlib import nullcontext

    from bertology_lib.interventions.heads import gate_heads

    with gate_heads(model, mask) if mask is not None else nullcontext(), torch.no_grad():
        p = predict(model, feats, pad_id, cfg, n_labels)
    return (np.asarray(p.predicted()) == np.asarray(p.golds)).astype(float)


def real_encoder_check(
    task: Task, source: Any, cfg: FinetuneConfig, seeds: Sequence[int], curve_points: int, importance_batch: int
) -> RealCheck:
    """Fine-tune a real encoder on ``task`` per seed (cached), then int8 quantisation and head pruning
    (importance and random order) on each, as on the lab model."""
    teachers = fine_tuned_teachers(task, source, cfg, seeds)
    n_layers, n_heads = head_shape(teachers.first)
    ks = pruning_grid(n_layers * n_heads, curve_points)
    k40 = round(0.4 * n_layers * n_heads)
    test = teachers.features["test"]
    frames, int8 = [], {}
    items: dict[str, list[np.ndarray]] = {"full": [], "int8": [], "k40": []}
    for s, m in teachers.models.items():
        quantised = quantize_int8(m)
        int8[s] = score(quantised, test, teachers.pad, cfg, task.n_labels)
        items["full"].append(item_correct(m, test, teachers.pad, cfg, task.n_labels))
        items["int8"].append(item_correct(quantised, test, teachers.pad, cfg, task.n_labels))
        for order in ("importance", "random"):
            curve, masks = pruning_curve(
                m,
                teachers.features["dev"],
                test,
                teachers.pad,
                cfg,
                sorted({*ks, k40}),
                order,
                seed=s,
                importance_batch=importance_batch,
                n_labels=task.n_labels,
                return_masks=True,
            )
            frames.append(curve.assign(seed=s))
            if order == "importance":
                items["k40"].append(item_correct(m, test, teachers.pad, cfg, task.n_labels, mask=masks[k40]))
    m = teachers.models[seeds[-1]]
    ratio = linear_weight_bytes(m) / linear_weight_bytes(quantize_int8(m))
    return RealCheck(
        teachers.full,
        int8,
        pd.concat(frames, ignore_index=True),
        (n_layers, n_heads),
        k40,
        ratio,
        {k: np.stack(v) for k, v in items.items()},
    )


@dataclass(frozen=True)
class HeadSimilarity:
    """Heads that attend alike (:func:`head_similarity_vs_twin`). ``table`` and ``twin_table``: (layers x layers)
    mean similarity between heads (diagonal: within a layer); ``gap`` and ``twin_gap``: within-layer minus
    across-layer similarity, mean over sentences with a 95% bootstrap interval over them; ``beyond_twin``: the
    model's gap minus the twin's, paired by sentence (estimate, low, high)."""

    table: pd.DataFrame
    twin_table: pd.DataFrame
    gap: tuple[float, float, float]
    twin_gap: tuple[float, float, float]
    beyond_twin: tuple[float, float, float]
    n_sentences: int
    shape: tuple[int, int]

    @property
    def across_dissimilarity(self) -> float:
        """1 - the model's mean similarity between heads of different layers (every pair of layers holds as many
        pairs of heads): near 0 when all heads attend alike, e.g. almost uniformly."""
        t = self.table.to_numpy()
        return float(1.0 - t[~np.eye(len(t), dtype=bool)].mean())


def head_similarity_vs_twin(source: Any, texts: Sequence[Sequence[str]], seed: int = 0) -> HeadSimilarity:
    """Do heads of the same layer attend more alike than heads of different layers (Clark et al. 2019, §6)?
    Read on the pre-trained encoder of ``source`` (a :class:`~bertology_lib.models.sources.ModelSource`, before
    any fine-tuning) and on its random-init twin, with the same tokenizer and ``texts`` (sentences as word lists):
    :func:`~bertology_lib.analysis.attention.head_similarity` per sentence, summed up by
    :func:`~bertology_lib.analysis.attention.within_across_gap`; ``seed`` seeds the bootstrap over sentences."""
    tok = source.load_tokenizer()
    twin_name = source.name if source.name.startswith(RANDOM_INIT) else RANDOM_INIT + source.name
    models = {
        "model": source.load_model(attn_implementation="eager"),
        "twin": dataclasses.replace(source, name=twin_name).load_model(attn_implementation="eager"),
    }
    n_layers, n_heads = head_shape(models["model"])
    sims = {who: head_similarity(attention_maps(m, tok, texts, with_norms=False).weights) for who, m in models.items()}
    gaps = {who: within_across_gap(sim, n_heads) for who, sim in sims.items()}
    return HeadSimilarity(
        table=layer_similarity(sims["model"], n_heads),
        twin_table=layer_similarity(sims["twin"], n_heads),
        gap=stats.bootstrap_ci(gaps["model"], np.mean, seed=seed),
        twin_gap=stats.bootstrap_ci(gaps["twin"], np.mean, seed=seed),
        beyond_twin=stats.paired_gap(gaps["model"], gaps["twin"], seed=seed),
        n_sentences=len(texts),
        shape=(n_layers, n_heads),
    )
