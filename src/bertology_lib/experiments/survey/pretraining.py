"""Pre-training small "lab" BERTs for the survey's §5 (Rogers et al. 2020): masking, stacking, shape, objectives.

Every lab BERT is a :class:`LabConfig`, pre-trained once on the mini-BERT's toy corpus through the one
MLM pipeline (:func:`bertology_lib.training.pretrain.pretrain_mlm`) and cached:

* 80/10/10 vs [MASK]-only corruption (Devlin et al. 2019, Table 8) and progressive stacking (Gong et
  al. 2019: train half the depth, copy the blocks on top, continue) — :func:`variant_grid`, §5;
* depth vs heads at about equal parameters — :func:`architecture_grid`, §5.2;
* token / whole-word / span masking with a WordPiece tokenizer, and next-sentence prediction on topical
  sentence pairs — :func:`objective_grid`, §5.3 (masking) and §5.4 (NSP, beside the same whole-word models);
* training longer (Liu et al. 2019, RoBERTa), read off the mini-BERT's kept checkpoints —
  :func:`checkpoint_pair`, :func:`checkpoint_predictions`, §5.

:func:`evaluate_labs` measures each one by held-out MLM accuracy, a POS probe (layer chosen on validation
sentences, scored on test sentences) and (optionally) downstream fine-tuning, keeping the per-item scores;
:func:`lab_gap` and :func:`range_gap` compare variants with intervals over seeds and test items. Used by
``survey_05_training``, ``survey_05b_architecture``, ``survey_05c_objectives`` and ``survey_05d_nsp``.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import torch

from bertology_lib import stats
from bertology_lib.cache import ArtifactCache, ArtifactKind, config_key, load_json, save_json
from bertology_lib.data.tasks import Task
from bertology_lib.errors import ParameterError
from bertology_lib.analysis.word_probes import heldout_probes
from bertology_lib.experiments.survey.training import TrainingSizes
from bertology_lib.interventions.duplication import duplicate_layers
from bertology_lib.interventions.hooks import blocks
from bertology_lib.models import minibert
from bertology_lib.models.registry import quiet_hf
from bertology_lib.models.wordpiece import train_wordpiece
from bertology_lib.training import finetune as ft
from bertology_lib.training.loop import TrainConfig
from bertology_lib.training.masking import CORRUPTIONS, UNITS, topic_partners
from bertology_lib.training.minibert import load as load_minibert, train_minibert
from bertology_lib.training.pretrain import MLMObjective, masked_hits, mlm_batches, pretrain_mlm
from bertology_lib.validation import check_bool, check_choice, check_int, check_seed

# 2: keyed by every LabConfig field at any value, the tokenizer's key, the objective and the loop's settings
KIND = ArtifactKind("lab-bert", 2)
TOKENIZER_KIND = ArtifactKind("lab-tokenizer", 2)  # 2: keyed by the corpus config's key()
MASKINGS = CORRUPTIONS
LAB_TOKENIZERS = ("word", "wordpiece")
WORDPIECE_VOCAB = 2000  # pieces of the lab WordPiece tokenizer (the toy corpus has ~6.6k word forms)
SPAN_P = 0.2  # SpanBERT's p; span_groups clamps draws at 10 words: mean 4.46 (SpanBERT resamples them: 3.8)


@dataclass(frozen=True)
class LabConfig:
    """A small BERT pre-trained here on the mini-BERT's corpus (its cache key, with the corpus).

    ``masking``: ``80/10/10`` (BERT: of the picked words 80% -> [MASK], 10% random, 10% kept) or
    ``mask-only`` (every picked word -> [MASK]). ``stack_at > 0``: progressive stacking — train
    ``n_layers // 2`` blocks for ``stack_at`` steps, copy them on top (pattern 0..h-1, 0..h-1), and
    train the full depth for the remaining ``steps - stack_at`` (fresh optimiser and warm-up).
    ``tokenizer``: ``word`` (the toy corpus's word-level vocabulary) or ``wordpiece`` (a
    :data:`WORDPIECE_VOCAB`-piece WordPiece trained on the corpus, :func:`lab_tokenizer`); ``unit``: what
    is picked for masking — a ``token`` (a word piece), a whole ``word`` (Cui et al. 2019), or a
    ``span`` of words (SpanBERT, Joshi et al. 2020; geometric lengths, p = :data:`SPAN_P`); ``nsp``: train
    on sentence pairs with a next-sentence head as well
    (:class:`~bertology_lib.training.masking.PairBatches`).
    """

    n_layers: int = 4
    n_heads: int = 4
    d_model: int = 64
    steps: int = 800
    batch_size: int = 64
    lr: float = 1e-3
    warmup_steps: int = 80
    mask_prob: float = 0.15
    masking: str = "80/10/10"
    stack_at: int = 0
    seed: int = 0
    tokenizer: str = "word"
    unit: str = "word"
    nsp: bool = False

    def __post_init__(self) -> None:
        for name in ("n_layers", "n_heads", "d_model", "steps", "batch_size"):
            check_int(name, getattr(self, name), minimum=1)
        check_choice("masking", self.masking, MASKINGS)
        if self.d_model % self.n_heads:
            raise ParameterError(f"d_model={self.d_model} is not divisible by n_heads={self.n_heads}")
        check_int("stack_at", self.stack_at, 0, self.steps - 1)
        if self.stack_at and (self.n_layers < 2 or self.n_layers % 2):
            raise ParameterError(f"n_layers={self.n_layers} cannot be stacked; allowed: an even number >= 2")
        check_seed(self.seed)
        check_choice("tokenizer", self.tokenizer, LAB_TOKENIZERS)
        check_choice("unit", self.unit, UNITS)
        check_bool("nsp", self.nsp)
        if self.nsp and self.stack_at:
            raise ParameterError("nsp=True with stack_at > 0 is not supported; allowed: one of the two")

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def key(self) -> dict[str, Any]:
        """Every field, whatever its value (:func:`~bertology_lib.cache.config_key`), for cache keys."""
        return config_key(self)

    def block_steps(self) -> int:
        """Compute in block-steps (one block, one batch): a proxy for training FLOPs."""
        if not self.stack_at:
            return self.n_layers * self.steps
        return self.n_layers // 2 * self.stack_at + self.n_layers * (self.steps - self.stack_at)


def lab_tokenizer_key(cfg: LabConfig, mb_cfg: minibert.MiniBertConfig) -> dict[str, Any]:
    """What determines the tokenizer of lab BERT ``cfg``: its kind, the corpus, and the WordPiece vocabulary
    size (the cache key of kind :data:`TOKENIZER_KIND`, and part of the lab BERT's)."""
    key: dict[str, Any] = {"tokenizer": cfg.tokenizer, "corpus": mb_cfg.corpus_config().key()}
    if cfg.tokenizer == "wordpiece":
        key["vocab_size"] = WORDPIECE_VOCAB
    return key


def lab_tokenizer(cfg: LabConfig, mb_cfg: minibert.MiniBertConfig, cache: ArtifactCache | None = None):
    """The tokenizer of lab BERT ``cfg``: the toy word-level one, or the corpus's WordPiece
    (:func:`~bertology_lib.models.wordpiece.train_wordpiece`: the same in every process; cached)."""
    from transformers import AutoTokenizer

    if cfg.tokenizer == "word":
        return minibert.tokenizer_for(mb_cfg)
    cache = cache or ArtifactCache()

    def build(folder: Path) -> None:
        texts = [s.text for s in minibert.corpus(mb_cfg)[0]]
        train_wordpiece(texts, WORDPIECE_VOCAB).save_pretrained(folder)

    folder = cache.get_or_create(TOKENIZER_KIND, lab_tokenizer_key(cfg, mb_cfg), build)
    return AutoTokenizer.from_pretrained(folder)


def stack(model: torch.nn.Module) -> torch.nn.Module:
    """Progressive stacking (Gong et al. 2019): the blocks copied on top of themselves (depth doubles)."""
    n = len(blocks(model))
    return duplicate_layers(model, list(range(n)) * 2)


def objective_of(cfg: LabConfig) -> MLMObjective:
    """The masked-LM objective of lab BERT ``cfg`` (rows of at most 64 tokens, length buckets of 50 batches)."""
    return MLMObjective(
        mask_prob=cfg.mask_prob,
        unit=cfg.unit,
        corruption=cfg.masking,
        span_p=SPAN_P,
        nsp=cfg.nsp,
        seq_len=64,
        bucket=50,
    )


def phases(cfg: LabConfig) -> list[tuple[bool, TrainConfig]]:
    """The training phases of lab BERT ``cfg``: (stacked, the loop's settings) -- one phase, or with
    ``stack_at`` the shallow phase then the stacked one (fresh optimiser and warm-up, seed + 1000)."""
    steps = [(cfg.stack_at, False), (cfg.steps - cfg.stack_at, True)] if cfg.stack_at else [(cfg.steps, False)]
    return [
        (
            stacked,
            TrainConfig(
                lr=cfg.lr,
                weight_decay=0.01,
                warmup_steps=min(cfg.warmup_steps, max(1, n // 10)),
                max_steps=n,
                batch_size=cfg.batch_size,
                seq_len=64,
                schedule="linear",
                min_lr_ratio=0.0,
                seed=cfg.seed + 1000 * i,
            ),
        )
        for i, (n, stacked) in enumerate(steps)
    ]


def lab_key(cfg: LabConfig, mb_cfg: minibert.MiniBertConfig) -> dict[str, Any]:
    """The cache key of lab BERT ``cfg`` on ``mb_cfg``'s corpus (kind :data:`KIND`), derived from what builds
    it: the config, the tokenizer (:func:`lab_tokenizer_key`, with the corpus), the objective and the phases."""
    return {
        "lab": cfg.key(),
        "tokenizer": lab_tokenizer_key(cfg, mb_cfg),
        "objective": objective_of(cfg).key(),
        "train": [tc.key() for _, tc in phases(cfg)],
    }


def pretrain_lab(
    cfg: LabConfig,
    mb_cfg: minibert.MiniBertConfig,
    texts: Sequence[str] | None = None,
    cache: ArtifactCache | None = None,
    progress: bool = False,
) -> Path:
    """Pre-train (or fetch) the lab BERT ``cfg`` on ``mb_cfg``'s corpus; returns its cache folder.

    The folder holds ``final/`` (an HF ``BertForMaskedLM``, or ``BertForPreTraining`` with NSP, with the
    tokenizer) and ``history.json`` (losses, seconds per phase, block-steps). ``texts``: the training
    sentences, if already generated. With ``stack_at``, the first phase trains half the depth and the
    second the stacked model, continuing the same batch stream (fresh optimiser and warm-up).
    """
    cache = cache or ArtifactCache()

    def build(folder: Path) -> None:
        tok = lab_tokenizer(cfg, mb_cfg, cache)
        sents = minibert.corpus(mb_cfg)[0]
        tx = list(texts) if texts is not None else [s.text for s in sents]
        if cfg.nsp and texts is not None and [s.text for s in sents] != tx:
            raise ParameterError("nsp=True needs the corpus's own sentences; allowed: texts=None or the corpus")
        shallow = cfg.n_layers // 2 if cfg.stack_at else cfg.n_layers
        model = minibert.new_bert(len(tok), shallow, cfg.n_heads, cfg.d_model, seed=cfg.seed, nsp=cfg.nsp)
        batches = mlm_batches(
            tx,
            tok,
            objective_of(cfg),
            cfg.batch_size,
            seed=cfg.seed,
            partners=topic_partners(sents) if cfg.nsp else None,
        )
        losses, seconds, extra = [], [], {}
        for stacked, tc in phases(cfg):
            if stacked:
                model = stack(model)
            res = pretrain_mlm(model, batches, tc, progress=progress, desc=f"lab {cfg.masking}")
            losses += res.losses
            seconds.append(res.seconds)
            extra.update(res.extra)
        model.save_pretrained(folder / "final")  # BertForPreTraining when nsp: loads as MLM or encoder too
        tok.save_pretrained(folder / "final")
        save_json(
            folder / "history.json",
            {"losses": losses, "seconds": seconds, "block_steps": cfg.block_steps(), "config": cfg.to_dict(), **extra},
        )

    return cache.get_or_create(KIND, lab_key(cfg, mb_cfg), build)


def load_lab(folder: Path, head: str = "mlm"):
    """(model, tokenizer) of a pre-trained lab BERT, eager attention, eval mode."""
    from transformers import AutoModel, AutoModelForMaskedLM, AutoTokenizer

    loader = AutoModelForMaskedLM if head == "mlm" else AutoModel
    with quiet_hf():  # an NSP model's unused pooler / next-sentence head
        model = loader.from_pretrained(Path(folder) / "final", attn_implementation="eager").eval()
    return model, AutoTokenizer.from_pretrained(Path(folder) / "final")


def lab_history(folder: Path) -> dict:
    return load_json(Path(folder) / "history.json")


def variant_grid(sizes: TrainingSizes, seeds: Sequence[int]) -> dict[str, list[LabConfig]]:
    """The pre-training variants of the notebook: name -> one :class:`LabConfig` per seed."""
    base = dict(
        n_layers=sizes.lab_layers,
        n_heads=sizes.lab_heads,
        d_model=sizes.lab_d_model,
        steps=sizes.lab_steps,
        warmup_steps=max(1, sizes.lab_steps // 10),
    )
    return {
        "80/10/10": [LabConfig(**base, seed=s) for s in seeds],
        "[MASK]-only": [LabConfig(**base, masking="mask-only", seed=s) for s in seeds],
        "stacked": [LabConfig(**base, stack_at=sizes.lab_steps // 2, seed=s) for s in seeds],
    }


def architecture_grid(sizes: TrainingSizes, seeds: Sequence[int]) -> dict[str, list[LabConfig]]:
    """Depth vs heads at (about) equal parameters (Wang et al. 2019, as the survey's §5.1 reports them).

    The base lab BERT (``sizes.lab_layers`` blocks x ``sizes.lab_heads`` heads, d = ``sizes.lab_d_model``),
    the same blocks with 1 or 4x the heads (the block's parameters do not depend on the head count), and
    half / twice the depth with the width that keeps 12 L d^2 (the blocks' parameters) about equal.
    """
    L, H, d = sizes.lab_layers, sizes.lab_heads, sizes.lab_d_model
    common = dict(steps=sizes.lab_steps, warmup_steps=max(1, sizes.lab_steps // 10))

    def width(layers: int) -> int:  # equal 12 L d^2, rounded to a multiple of the head count
        return max(H, int(round(d * math.sqrt(L / layers) / H)) * H)

    shapes = {
        f"{L} blocks x {H} heads": (L, H, d),
        f"{L} blocks x 1 head": (L, 1, d),
        f"{L} blocks x {4 * H} heads": (L, 4 * H, d),
    }
    if L >= 2:
        shapes[f"{L // 2} block{'s' if L // 2 > 1 else ''}, d={width(L // 2)}"] = (L // 2, H, width(L // 2))
    shapes[f"{2 * L} blocks, d={width(2 * L)}"] = (2 * L, H, width(2 * L))
    return {
        name: [LabConfig(n_layers=a, n_heads=h, d_model=w, seed=s, **common) for s in seeds]
        for name, (a, h, w) in shapes.items()
    }


def objective_grid(sizes: TrainingSizes, seeds: Sequence[int]) -> dict[str, list[LabConfig]]:
    """Masking units and NSP, all with the WordPiece tokenizer and 80/10/10 corruption: token, whole-word,
    span, and whole-word plus next-sentence prediction on sentence pairs."""
    base = dict(
        n_layers=sizes.lab_layers,
        n_heads=sizes.lab_heads,
        d_model=sizes.lab_d_model,
        steps=sizes.lab_steps,
        warmup_steps=max(1, sizes.lab_steps // 10),
        tokenizer="wordpiece",
    )
    return {
        "token": [LabConfig(**base, unit="token", seed=s) for s in seeds],
        "whole word": [LabConfig(**base, unit="word", seed=s) for s in seeds],
        "span": [LabConfig(**base, unit="span", seed=s) for s in seeds],
        "whole word + NSP": [LabConfig(**base, unit="word", nsp=True, seed=s) for s in seeds],
    }


def evaluate_labs(
    grid: Mapping[str, Sequence[LabConfig]],
    mb_cfg: minibert.MiniBertConfig,
    task: Task | None,
    ft_cfg: ft.FinetuneConfig | None,
    probe_sents: Sequence[Any],
    held_texts: Sequence[str],
    cache: ArtifactCache | None = None,
    progress: bool = True,
) -> pd.DataFrame:
    """Pre-train (or fetch) every lab BERT of ``grid`` and measure it, one row per (variant, seed).

    ``mlm_acc``: held-out whole-word MLM accuracy (:func:`~bertology_lib.training.pretrain.masked_accuracy`,
    [MASK]-only); ``pos_probe``: linear UPOS probe on ``probe_sents`` (unmasked input; trained on 60% of the
    sentences, its layer chosen on the next 15%, scored on the last 25%: ``pos_layer``), ``pos_majority``: the
    per-word majority tag on the same test words; ``downstream`` (when ``task`` and ``ft_cfg`` are given, else
    NaN): test accuracy after full fine-tuning on ``task`` with ``ft_cfg``, fine-tuning seed = the lab seed
    (cached like every fine-tuning). Per-item scores for intervals (:func:`lab_gap`): ``{m}_hits`` and
    ``{m}_counts`` for ``m`` in ``mlm`` (per held-out sentence), ``pos`` and ``pos_majority`` (per test
    sentence), ``downstream`` (per test example). Also the blocks' and all parameters, block-steps, the final
    training loss, the pre-training seconds and, for NSP models, the next-sentence accuracy over the last 100
    training batches. Probe sentences longer than the model's positions are left out (``probe_sentences``
    says how many were used).
    """
    from tqdm.auto import tqdm

    cfgs = [(name, c) for name, cs in grid.items() for c in cs]
    if not cfgs:
        raise ParameterError("grid is empty; allowed: at least one variant with one seed")
    if (task is None) != (ft_cfg is None):
        raise ParameterError("task and ft_cfg go together; allowed: both (with downstream) or neither")
    texts = [s.text for s in minibert.corpus(mb_cfg)[0]]
    rows: list[dict[str, Any]] = []
    with quiet_hf():  # one bar for the grid, not one per checkpoint load
        for name, c in tqdm(cfgs, desc="lab BERTs", disable=not progress):
            rows.append(_evaluate_lab(name, c, mb_cfg, texts, task, ft_cfg, probe_sents, held_texts, cache))
    return pd.DataFrame(rows)


def _evaluate_lab(
    name: str,
    c: LabConfig,
    mb_cfg: minibert.MiniBertConfig,
    texts: list[str],
    task: Task | None,
    ft_cfg: ft.FinetuneConfig | None,
    probe_sents: Sequence[Any],
    held_texts: Sequence[str],
    cache: ArtifactCache | None,
) -> dict[str, Any]:
    folder = pretrain_lab(c, mb_cfg, texts=texts, cache=cache)
    mlm, tok = load_lab(folder)
    hist = lab_history(folder)
    limit = mlm.config.max_position_embeddings  # WordPiece can make a long sentence too long
    fits = [s for s in probe_sents if len(tok(list(s.words), is_split_into_words=True)["input_ids"]) <= limit]
    probes = heldout_probes({name: (mlm, tok)}, fits, ["upos"], ambiguous_target=None)
    pred, test = probes.predictions[(name, "upos")], probes.split.test
    layer = pred.chosen_layer()
    sent = np.unique(probes.split.groups[test], return_inverse=True)[1]  # test sentence of each test word
    counts = np.bincount(sent).astype(float)
    items: dict[str, Any] = {
        "pos_hits": np.bincount(sent, weights=pred.test[layer].astype(float)),
        "pos_majority_hits": np.bincount(sent, weights=probes.majority["upos"].test[0].astype(float)),
        "pos_counts": counts,
        "pos_majority_counts": counts,
    }
    downstream = float("nan")
    if task is not None:
        r = ft.finetune(task, ft.ModelSource(str(Path(folder) / "final")), ft_cfg, c.seed, cache=cache)
        downstream, scores = r.score("test"), np.array(r.predictions["test"].scores())
        items.update(downstream_hits=scores, downstream_counts=np.ones(len(scores)))
    hits, counts = masked_hits(mlm, tok, held_texts)
    items.update(mlm_hits=hits.astype(float), mlm_counts=counts.astype(float))
    return {
        "variant": name,
        "seed": c.seed,
        "mlm_acc": float(hits.sum() / max(counts.sum(), 1)),
        "pos_probe": float(pred.test[layer].mean()),
        "pos_layer": layer,
        "pos_majority": float(probes.majority["upos"].test[0].mean()),
        "downstream": downstream,
        "block_params": sum(p.numel() for p in mlm.bert.encoder.parameters()),
        "params": sum(p.numel() for p in mlm.parameters()),
        "block_steps": hist["block_steps"],
        "final_loss": float(np.mean(hist["losses"][-50:])),
        "train_seconds": sum(hist["seconds"]),
        "nsp_acc": hist.get("nsp_train_accuracy", float("nan")),
        "probe_sentences": len(fits),
        **items,
    }


def seed_ranges(table: pd.DataFrame, variants: Sequence[str], metric: str) -> dict[int, float]:
    """Per seed, max - min of ``metric`` over ``variants`` (how much that choice moves the result)."""
    missing = sorted(set(variants) - set(table["variant"]))
    if missing:
        raise ParameterError(f"variants {missing} are not in the table; allowed: {sorted(set(table['variant']))}")
    sub = table[table["variant"].isin(list(variants))]
    wide = sub.pivot(index="seed", columns="variant", values=metric)
    return {int(s): float(r.max() - r.min()) for s, r in wide.dropna().iterrows()}


def by_seed(table: pd.DataFrame, variant: str, metric: str) -> dict[int, float]:
    """``metric`` of one variant as {seed: value} (for :func:`bertology_lib.stats.paired_points`)."""
    sub = table[table["variant"] == variant]
    if sub.empty:
        raise ParameterError(f"variant={variant!r} is not in the table; allowed: {sorted(set(table['variant']))}")
    return {int(s): float(v) for s, v in zip(sub["seed"], sub[metric])}


def lab_items(table: pd.DataFrame, variant: str, metric: str, seeds: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """(seeds, items) per-item hits of ``metric`` (``mlm``, ``pos``, ``pos_majority``, ``downstream``) for
    ``variant``, rows in the order of ``seeds``, and the items' counts (the same for every seed)."""
    sub = table[table["variant"] == variant].set_index("seed")
    if sub.empty or f"{metric}_hits" not in sub:
        raise ParameterError(
            f"variant={variant!r}, metric={metric!r} have no per-item scores; allowed: variants "
            f"{sorted(set(table['variant']))}, metrics mlm, pos, pos_majority, downstream"
        )
    missing = [s for s in seeds if s not in sub.index]
    if missing:
        raise ParameterError(f"seeds {missing} are not in the table for {variant!r}; allowed: {sorted(sub.index)}")
    counts = [np.asarray(sub.loc[s, f"{metric}_counts"], dtype=float) for s in seeds]
    if any(c.shape != counts[0].shape or not np.array_equal(c, counts[0]) for c in counts):
        raise ParameterError(
            f"{variant!r} was scored on different {metric} items across seeds; allowed: the same items"
        )
    return np.array([np.asarray(sub.loc[s, f"{metric}_hits"], dtype=float) for s in seeds]), counts[0]


def lab_gap(
    table: pd.DataFrame, a: str, b: str, metric: str, seeds: Sequence[int], b_metric: str | None = None
) -> tuple[float, float, float]:
    """``metric`` of variant ``a`` minus ``b_metric`` (default the same) of variant ``b``, in points, paired by seed
    and item, with an interval over seeds and test items (:func:`bertology_lib.stats.accuracy_gap_interval`;
    held-out sentences are resampled whole)."""
    (ha, ca), (hb, cb) = lab_items(table, a, metric, seeds), lab_items(table, b, b_metric or metric, seeds)
    if ca.shape != cb.shape or not np.array_equal(ca, cb):
        raise ParameterError(f"{a!r} and {b!r} were scored on different items; allowed: the same tokenizer and items")
    return stats.accuracy_gap_interval(ha, hb, counts=ca)


def range_gap(
    table: pd.DataFrame, first: Sequence[str], second: Sequence[str], metric: str, seeds: Sequence[int]
) -> tuple[float, float, float]:
    """Per seed, the range (max - min, points) of ``metric`` over the variants ``first`` minus its range over
    ``second``; mean over seeds with an interval over seeds and test items (items resampled jointly for every
    variant: :func:`bertology_lib.stats.seed_item_interval`)."""
    hits = {v: lab_items(table, v, metric, seeds) for v in list(first) + list(second)}
    counts = next(iter(hits.values()))[1]
    if any(c.shape != counts.shape or not np.array_equal(c, counts) for _, c in hits.values()):
        raise ParameterError("the variants were scored on different items; allowed: the same tokenizer and items")

    def per_seed(idx: np.ndarray) -> np.ndarray:
        acc = {v: 100 * h[:, idx].sum(1) / counts[idx].sum() for v, (h, _) in hits.items()}  # (seeds,) per variant
        return np.ptp(np.stack([acc[v] for v in first]), axis=0) - np.ptp(np.stack([acc[v] for v in second]), axis=0)

    return stats.seed_item_interval(per_seed, len(counts))


# -- RoBERTa's "train longer", read off the mini-BERT's kept checkpoints (§5) ---------------------------------
def checkpoint_pair(
    mb_cfg: minibert.MiniBertConfig, fraction: float = 1 / 3, cache: ArtifactCache | None = None
) -> tuple[Path, int, int]:
    """(checkpoints folder, earlier step, final step): the kept checkpoint of the mini-BERT nearest to
    ``fraction`` of its training steps (ties: the earlier one), and its last step."""
    if not 0 < fraction < 1:
        raise ParameterError(f"fraction={fraction!r} is not allowed; allowed: a share of the steps in (0, 1)")
    folder = train_minibert(mb_cfg, cache)
    steps = [s for s, _ in minibert.checkpoints(folder)]
    earlier = min(steps[:-1], key=lambda s: (abs(s - fraction * steps[-1]), s))
    return folder / "checkpoints", earlier, steps[-1]


def checkpoint_predictions(
    mb_cfg: minibert.MiniBertConfig, texts: Sequence[str], seed: int = 1234, cache: ArtifactCache | None = None
) -> pd.DataFrame:
    """One row per masked word of ``texts`` (the same whole-word masks for every model): the gold token and
    the guess of each kept checkpoint of the mini-BERT, columns ``step <N>``
    (:func:`~bertology_lib.analysis.mlm_strength.masked_predictions`)."""
    from bertology_lib.analysis.mlm_strength import masked_predictions, model_predictor

    folder = train_minibert(mb_cfg, cache)
    predictors, tok = {}, None
    for step, _ in minibert.checkpoints(folder):
        with quiet_hf():
            model, tok = load_minibert(mb_cfg, step=step, cache=cache)
        predictors[f"step {step}"] = model_predictor(model)
    return masked_predictions(predictors, tok, texts, seed=seed)
