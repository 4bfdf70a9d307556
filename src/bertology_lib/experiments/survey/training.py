"""Fine-tuning BERT: the survey's §5 (Rogers et al. 2020) experiments on the cached mini-BERT.

* Strategies (:func:`strategy_runs`): full fine-tuning, LoRA on the query/value projections (Hu et al.
  2021) and frozen-feature heads, each seed through the one fine-tuning entry point
  (:func:`bertology_lib.training.finetune.finetune`, with dev accuracy tracked through training for
  Dodge et al.'s 2020 early stopping of seeds). Frozen-feature heads train on pre-computed, mean-pooled
  layer states (:func:`pooled_states`, :func:`train_feature_head`): the last layer alone or a learned
  softmax-weighted sum of all layers (:class:`ScalarMix`, Peters et al. 2018).
* What fine-tuning changed: per-block relative weight change (:func:`relative_weight_change`, LoRA folded
  in by peft's ``merge_and_unload``) and 1 - linear CKA between the pre-trained and fine-tuned states
  (:func:`representation_change`; Kovaleva et al. 2019 report the top layers change most); restoring
  blocks to their pre-trained values (:func:`restore_layers`, :func:`restore_curve`; Hao et al. 2019).
* Seed variance and early ranking (:func:`early_ranking`); the weight-initialisation and data-order seeds
  varied one at a time (:func:`separated_seeds`, Dodge et al. 2020).

The lab BERTs pre-trained for §5 live in :mod:`bertology_lib.experiments.survey.pretraining`. Sizes per
profile: :class:`TrainingSizes`. Used by ``notebooks/survey_05_training.ipynb`` (and the two §5
pre-training notebooks, for the sizes).
"""

from __future__ import annotations

import copy
import dataclasses
import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd
import torch

from bertology_lib.analysis.similarity import linear_cka
from bertology_lib.errors import ParameterError
from bertology_lib.interventions.hooks import blocks
from bertology_lib.models.task_heads import TaskHead, encoder_of
from bertology_lib.profiles import SizeTable
from bertology_lib.training import finetune as ft
from bertology_lib.training.encoding import Features, collate
from bertology_lib.training.predictions import predict
from bertology_lib.validation import check_choice, check_seed


_COMMON = dict(ft_lr=3e-4, lora_lr=1e-3, lora_rank=8, eval_fracs=(0.1, 0.25, 0.5, 0.75, 1.0), early_frac=0.25)


@dataclass(frozen=True)
class TrainingSizes(SizeTable):
    """Sizes of the §5 notebook per profile."""

    n_train: int  # toy-task training examples
    n_test: int  # toy-task dev and test examples (each)
    n_seeds: int  # full fine-tuning seeds (the seed-variance study)
    n_strategy_seeds: int  # seeds of LoRA and the frozen-feature heads (paired with the first full seeds)
    n_restore_seeds: int  # fine-tuned models whose blocks are restored / compared layer by layer
    ft_lr: float  # fine-tuning learning rate (full)
    lora_lr: float  # LoRA learning rate (Hu et al. use a larger one than full fine-tuning)
    lora_rank: int
    epochs: float
    max_steps: int  # 0 = epochs
    eval_fracs: tuple[float, ...]  # points of training at which dev accuracy is recorded
    early_frac: float  # the point at which seeds are ranked for early stopping
    head_epochs: int  # frozen-feature heads
    lab_layers: int  # lab BERT (pre-trained here for each variant)
    lab_heads: int
    lab_d_model: int
    lab_steps: int
    n_lab_seeds: int
    probe_sentences: int
    sst2_train: int  # SST-2 sentences for the frozen-feature check on the real encoder
    sst2_dev: int
    sst2_test: int | None  # None = all 872 GLUE dev sentences (the first n in file order otherwise)

    SIZES: ClassVar[dict[str, dict[str, Any]]] = {
        "smoke": dict(
            n_train=48,
            n_test=32,
            n_seeds=3,
            n_strategy_seeds=3,
            n_restore_seeds=3,
            epochs=1.0,
            max_steps=8,
            head_epochs=5,
            lab_layers=2,
            lab_heads=2,
            lab_d_model=32,
            lab_steps=16,
            n_lab_seeds=3,
            probe_sentences=40,
            sst2_train=32,
            sst2_dev=32,
            sst2_test=32,
            **_COMMON,
        ),
        "quick": dict(
            n_train=400,
            n_test=200,
            n_seeds=10,
            n_strategy_seeds=5,
            n_restore_seeds=5,
            epochs=4.0,
            max_steps=0,
            head_epochs=60,
            lab_layers=4,
            lab_heads=4,
            lab_d_model=64,
            lab_steps=800,
            n_lab_seeds=3,
            probe_sentences=300,
            sst2_train=800,
            sst2_dev=200,
            sst2_test=None,
            **_COMMON,
        ),
        "full": dict(
            n_train=5000,
            n_test=1000,
            n_seeds=20,
            n_strategy_seeds=5,
            n_restore_seeds=5,
            epochs=3.0,
            max_steps=0,
            head_epochs=100,
            lab_layers=6,
            lab_heads=4,
            lab_d_model=128,
            lab_steps=6000,
            n_lab_seeds=3,
            probe_sentences=1000,
            sst2_train=20000,
            sst2_dev=872,
            sst2_test=None,
            **_COMMON,
        ),
    }

    def finetune_config(self, profile: str, strategy: str = "full") -> ft.FinetuneConfig:
        """The fine-tuning hyper-parameters of ``strategy`` (LoRA: its own learning rate)."""
        check_choice("strategy", strategy, ft.STRATEGIES)
        lr = self.lora_lr if strategy == "lora" else self.ft_lr
        return ft.FinetuneConfig.for_profile(profile, lr=lr, epochs=self.epochs, max_steps=self.max_steps)

    def estimate_seconds(self, step_s: float = 0.15, lab_step_s: float = 0.05) -> dict[str, float]:
        """Rough cost on one CPU core per part (seconds), from measured per-step times."""
        steps = self.max_steps or math.ceil(self.epochs * self.n_train / 32)
        lab = self.n_lab_seeds * self.lab_steps * lab_step_s
        return {
            "full fine-tuning": self.n_seeds * steps * step_s * 1.3,
            "LoRA": self.n_strategy_seeds * steps * step_s * 1.1,
            "pre-training variants": lab * (1 + 1 + 0.75),
            "probes and evaluation": 30 + 6 * self.n_lab_seeds,
        }


def _check_fracs(fracs: Sequence[float]) -> tuple[float, ...]:
    fr = tuple(float(f) for f in fracs)
    if not fr or any(not 0 < f <= 1 for f in fr) or list(fr) != sorted(set(fr)):
        raise ParameterError(f"eval_fracs={fracs!r} are invalid; allowed: increasing fractions in (0, 1]")
    return fr


def curves_frame(runs: Sequence[ft.FinetuneResult]) -> pd.DataFrame:
    """One row per (run, tracked point): strategy, seed, step, frac, dev; plus the final test score."""
    return pd.DataFrame(
        [
            {"strategy": r.strategy, "seed": r.seed, **row, "final_test": r.score("test")}
            for r in runs
            for row in r.curve
        ]
    )


def _hidden_batches(encoder: torch.nn.Module, feats: Features, pad_id: int, batch_size: int):
    """(attention mask, hidden states of every layer) per batch of ``feats``, in eval mode."""
    encoder.eval()
    for i in range(0, len(feats.rows), batch_size):
        b = collate(feats.rows[i : i + batch_size], pad_id)
        mask = b["attention_mask"]
        yield mask, encoder(input_ids=b["input_ids"], attention_mask=mask, output_hidden_states=True).hidden_states


@torch.no_grad()
def pooled_states(encoder: torch.nn.Module, feats: Features, pad_id: int, batch_size: int = 128) -> torch.Tensor:
    """Mean over non-padding tokens of every layer's states: (N, n_layers + 1, d), embeddings first."""
    out = []
    for mask, hs in _hidden_batches(encoder, feats, pad_id, batch_size):
        h = torch.stack(hs, 1)  # (B, L+1, T, d)
        m = mask[:, None, :, None].to(h.dtype)
        out.append((h * m).sum(2) / m.sum(2))
    return torch.cat(out)


def labels_of(feats: Features) -> torch.Tensor:
    return torch.tensor([int(r["labels"]) for r in feats.rows])


class ScalarMix(torch.nn.Module):
    """``gamma * sum_j softmax(w)_j h_j`` over layers (Peters et al. 2018): (B, n_layers, d) -> (B, d)."""

    def __init__(self, n_layers: int) -> None:
        super().__init__()
        if isinstance(n_layers, bool) or not isinstance(n_layers, int) or n_layers < 1:
            raise ParameterError(f"n_layers={n_layers!r} is out of range; allowed: an int >= 1")
        self.w = torch.nn.Parameter(torch.zeros(n_layers))
        self.gamma = torch.nn.Parameter(torch.ones(()))

    def weights(self) -> torch.Tensor:
        return torch.softmax(self.w, 0)

    def forward(self, states: torch.Tensor) -> torch.Tensor:
        if states.dim() != 3 or states.shape[1] != self.w.numel():
            raise ParameterError(f"states of shape {tuple(states.shape)} do not fit; allowed: (B, {self.w.numel()}, d)")
        return self.gamma * (self.weights()[None, :, None] * states).sum(1)


class FeatureHead(torch.nn.Module):
    """A linear classifier on frozen layer states: the last layer alone, or a :class:`ScalarMix` of all."""

    def __init__(self, n_layers: int, d: int, n_labels: int, mix: bool, seed: int = 0) -> None:
        super().__init__()
        torch.manual_seed(seed)
        self.mix = ScalarMix(n_layers) if mix else None
        self.out = torch.nn.Linear(d, n_labels)

    def forward(self, states: torch.Tensor) -> torch.Tensor:
        h = self.mix(states) if self.mix is not None else states[:, -1]
        return self.out(h)

    @torch.no_grad()
    def correct(self, states: torch.Tensor, labels: torch.Tensor) -> np.ndarray:
        """0/1 per example: is the prediction on ``states`` (standardised as in training) right?"""
        mu, sd = getattr(self, "standardize", (0.0, 1.0))
        return (self((states - mu) / sd).argmax(-1) == labels).float().numpy()


def train_feature_head(
    X: Mapping[str, torch.Tensor],
    y: Mapping[str, torch.Tensor],
    n_labels: int,
    mix: bool,
    seed: int = 0,
    epochs: int = 60,
    lr: float = 1e-2,
    batch_size: int = 32,
) -> tuple[FeatureHead, dict[str, float]]:
    """Train a :class:`FeatureHead` on ``X["train"]`` (N, n_layers, d); accuracy on every other split."""
    seed = check_seed(seed)
    if "train" not in X:
        raise ParameterError(f"X has splits {list(X)}; allowed: a dict with 'train'")
    Xtr, ytr = X["train"], y["train"]
    mu, sd = Xtr.mean(0, keepdim=True), Xtr.std(0, keepdim=True) + 1e-6  # per layer and unit
    head = FeatureHead(Xtr.shape[1], Xtr.shape[2], n_labels, mix, seed)
    opt = torch.optim.AdamW(head.parameters(), lr=lr, weight_decay=0.01)
    g = torch.Generator().manual_seed(seed)
    for _ in range(epochs):
        perm = torch.randperm(len(Xtr), generator=g)
        for i in range(0, len(perm), batch_size):
            idx = perm[i : i + batch_size]
            loss = torch.nn.functional.cross_entropy(head((Xtr[idx] - mu) / sd), ytr[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
    head.standardize = (mu, sd)  # what FeatureHead.correct needs to score new states
    acc = {s: float(head.correct(X[s], y[s]).mean()) for s in X if s != "train"}
    return head.eval(), acc


def frozen_head_items(
    X: Mapping[str, torch.Tensor],
    y: Mapping[str, torch.Tensor],
    n_labels: int,
    seeds: Sequence[int],
    epochs: int = 60,
    split: str = "test",
) -> dict[str, dict[int, np.ndarray]]:
    """Per-item 0/1 correctness on ``split`` of the two frozen-feature heads (``last layer``, ``scalar mix``), one
    trained per seed on ``X["train"]`` (nothing is chosen on ``split``): the items of a seed-and-item interval."""
    out: dict[str, dict[int, np.ndarray]] = {"last layer": {}, "scalar mix": {}}
    for s in seeds:
        for name, mix in (("last layer", False), ("scalar mix", True)):
            head, _ = train_feature_head(X, y, n_labels, mix=mix, seed=s, epochs=epochs)
            out[name][s] = head.correct(X[split], y[split])
    return out


def _encoder(model: torch.nn.Module) -> torch.nn.Module:
    return model.encoder if isinstance(model, TaskHead) else encoder_of(model)


def _block_states(model: torch.nn.Module) -> list[dict[str, torch.Tensor]]:
    """Every block's parameters, with LoRA adapters folded in (peft's merge_and_unload)."""
    return [b.state_dict() for b in blocks(ft.merged_encoder(model))]


def relative_weight_change(pre: torch.nn.Module, post: torch.nn.Module) -> pd.DataFrame:
    """Per block: ||W_post - W_pre|| / ||W_pre|| over all the block's parameters (0-based ``layer``)."""
    bp, bq = _block_states(pre), _block_states(post)
    if len(bp) != len(bq):
        raise ParameterError(f"models have {len(bp)} and {len(bq)} blocks; allowed: the same architecture")
    rows = []
    for i, (sa, sb) in enumerate(zip(bp, bq)):
        num = sum(float(((sb[k].float() - sa[k].float()) ** 2).sum()) for k in sa)
        den = sum(float((sa[k].float() ** 2).sum()) for k in sa)
        rows.append({"layer": i, "rel_change": math.sqrt(num) / max(math.sqrt(den), 1e-12)})
    return pd.DataFrame(rows)


@torch.no_grad()
def token_states(encoder: torch.nn.Module, feats: Features, pad_id: int, batch_size: int = 128) -> torch.Tensor:
    """Every non-padding token's state at every block's output: (n_layers, n_tokens, d)."""
    out = [
        torch.stack([h[mask.bool()] for h in hs[1:]])
        for mask, hs in _hidden_batches(encoder, feats, pad_id, batch_size)
    ]
    return torch.cat(out, 1)


def representation_change(pre: torch.nn.Module, post: torch.nn.Module, feats: Features, pad_id: int) -> pd.DataFrame:
    """Per block: 1 - linear CKA between the pre-trained and fine-tuned token states on ``feats``."""
    a, b = token_states(_encoder(pre), feats, pad_id), token_states(_encoder(post), feats, pad_id)
    return pd.DataFrame([{"layer": i, "one_minus_cka": 1 - linear_cka(a[i], b[i])} for i in range(len(a))])


def top_minus_bottom(per_layer: pd.DataFrame, column: str) -> float:
    """Mean of ``column`` over the top third of blocks minus the bottom third (at least one each)."""
    d = per_layer.sort_values("layer")[column].to_numpy()
    k = max(1, len(d) // 3)
    return float(d[-k:].mean() - d[:k].mean())


def restore_layers(model: torch.nn.Module, pretrained: torch.nn.Module, layers: Sequence[int]) -> torch.nn.Module:
    """A copy of fine-tuned ``model`` whose blocks ``layers`` hold ``pretrained``'s weights again."""
    enc = _encoder(model)
    n = len(blocks(enc))
    layers = [int(i) for i in layers]
    if any(not 0 <= i < n for i in layers):
        raise ParameterError(f"layers={layers!r} are invalid; allowed: block indices in 0..{n - 1}")
    pre_blocks = blocks(_encoder(pretrained))
    if len(pre_blocks) != n:
        raise ParameterError(f"pretrained has {len(pre_blocks)} blocks, the model {n}; allowed: the same architecture")
    out = copy.deepcopy(model)
    out_blocks = blocks(_encoder(out))
    for i in layers:
        state = pre_blocks[i].state_dict()
        target = out_blocks[i]
        if any("lora_" in k for k in target.state_dict()):
            raise ParameterError("restore_layers needs a model without adapters; allowed: full or frozen fine-tuning")
        target.load_state_dict(state)
    return out.eval()


def restore_curve(
    model: torch.nn.Module,
    pretrained: torch.nn.Module,
    feats: Features,
    pad_id: int,
    cfg: ft.FinetuneConfig,
    n_labels: int,
) -> pd.DataFrame:
    """Accuracy with the bottom k / top k blocks restored to their pre-trained values, k = 0..L."""
    n = len(blocks(_encoder(model)))
    rows = []
    for k in range(n + 1):
        for kind, layers in (("bottom", range(k)), ("top", range(n - k, n))):
            if k == 0 and kind == "top":
                continue
            m = restore_layers(model, pretrained, list(layers))
            rows.append(
                {
                    "kind": kind if k else "none",
                    "restored": k,
                    "accuracy": float(predict(m, feats, pad_id, cfg, n_labels).metrics()["accuracy"]),
                }
            )
    return pd.DataFrame(rows)


def restored_items(
    runs: Mapping[int, ft.FinetuneResult],
    pretrained: torch.nn.Module,
    feats: Features,
    pad_id: int,
    cfg: ft.FinetuneConfig,
    n_labels: int,
    layers: Sequence[int],
) -> dict[int, np.ndarray]:
    """Per seed: 0/1 correctness on ``feats`` of the fine-tuned model with blocks ``layers`` restored to their
    pre-trained values (:func:`restore_layers`), for an interval over seeds and test items."""
    return {
        s: np.array(
            predict(restore_layers(r.fine_tuned, pretrained, list(layers)), feats, pad_id, cfg, n_labels).scores()
        )
        for s, r in runs.items()
    }


def stack(items: Mapping[int, Sequence[float]], seeds: Sequence[int]) -> np.ndarray:
    """(seeds, items) array of per-item scores, rows in the order of ``seeds``."""
    missing = [s for s in seeds if s not in items]
    if missing:
        raise ParameterError(f"seeds {missing} have no scores; allowed: {sorted(items)}")
    return np.array([np.asarray(items[s], dtype=float) for s in seeds])


def early_ranking(runs: Sequence[ft.FinetuneResult], frac: float) -> dict[str, float]:
    """How well the dev ranking of seeds at ``frac`` of training predicts their final dev and test ranking.

    Returns Spearman's rho (and its p-value) of dev-at-frac with final dev and with final test, the 95%
    interval of the first (``rho_low``, ``rho_high``: :func:`bertology_lib.stats.rank_interval`, from 4 seeds;
    nan with fewer), and what keeping only the better half at ``frac`` would have cost: the best final test
    score of the kept seeds minus the best overall.
    """
    from scipy import stats

    from bertology_lib.stats import rank_interval

    if len(runs) < 3:
        raise ParameterError(f"{len(runs)} runs are too few; allowed: at least 3 seeds")
    early = np.array([r.dev_at(frac) for r in runs])
    dev = np.array([r.score("dev") for r in runs])
    test = np.array([r.score("test") for r in runs])

    with warnings.catch_warnings():  # constant scores (e.g. at smoke) give nan, reported as rho 0, p 1
        warnings.simplefilter("ignore")
        rho_dev, p_dev = stats.spearmanr(early, dev)
        rho_test, p_test = stats.spearmanr(early, test)
    kept = np.argsort(-early, kind="stable")[: max(1, len(runs) // 2)]
    _, low, high = rank_interval(early, dev) if len(runs) >= 4 else (0.0, float("nan"), float("nan"))
    return {
        "rho_final_dev": float(np.nan_to_num(rho_dev)),
        "p_final_dev": float(np.nan_to_num(p_dev, nan=1.0)),
        "rho_low": low,
        "rho_high": high,
        "rho_final_test": float(np.nan_to_num(rho_test)),
        "p_final_test": float(np.nan_to_num(p_test, nan=1.0)),
        "best_kept_minus_best": float(test[kept].max() - test.max()),
        "n_seeds": len(runs),
    }


# -- the strategy comparison of the notebook ------------------------------------------------------


@dataclass
class StrategyComparison:
    """Full fine-tuning, LoRA and frozen-feature heads on one task, seed by seed (see :func:`compare_strategies`).

    ``full`` / ``lora``: the tracked fine-tuning runs by seed (with their models); ``frozen_last`` /
    ``frozen_mix``: test accuracy of the frozen-feature heads by seed; ``mix_weights``: the scalar mix's
    layer weights (seed, layer, weight); ``scores``: one row per (strategy, seed); ``summary``: mean and
    std per strategy with trainable parameters and seconds per run. ``pretrained``, ``tokenizer`` and
    ``features`` (train/dev/test) are what the later sections reuse. ``frozen_last_items`` /
    ``frozen_mix_items``: per-item 0/1 test correctness of the frozen heads by seed (:meth:`items` for all four).
    """

    full: dict[int, ft.FinetuneResult]
    lora: dict[int, ft.FinetuneResult]
    frozen_last: dict[int, float]
    frozen_mix: dict[int, float]
    mix_weights: pd.DataFrame
    scores: pd.DataFrame
    summary: pd.DataFrame
    pretrained: torch.nn.Module
    tokenizer: Any
    features: dict[str, Features]
    frozen_last_items: dict[int, np.ndarray] = dataclasses.field(default_factory=dict)
    frozen_mix_items: dict[int, np.ndarray] = dataclasses.field(default_factory=dict)

    def test(self, strategy: str) -> dict[int, float]:
        """Test accuracy by seed of ``full`` or ``lora``."""
        runs = {"full": self.full, "lora": self.lora}[strategy]
        return {s: r.score("test") for s, r in runs.items()}

    def items(self, strategy: str) -> dict[int, np.ndarray]:
        """Per-item 0/1 test correctness by seed of ``full``, ``lora``, ``frozen last`` or ``frozen mix``."""
        check_choice("strategy", strategy, ("full", "lora", "frozen last", "frozen mix"))
        if strategy.startswith("frozen"):
            return self.frozen_last_items if strategy == "frozen last" else self.frozen_mix_items
        runs = self.full if strategy == "full" else self.lora
        return {s: np.array(r.predictions["test"].scores()) for s, r in runs.items()}


def compare_strategies(
    task, base: Any, sizes: TrainingSizes, profile: str, seeds: Sequence[int], strategy_seeds: Sequence[int]
) -> StrategyComparison:
    """Fine-tune ``base`` on ``task`` fully (``seeds``) and with LoRA (``strategy_seeds``), dev accuracy tracked
    at ``sizes.eval_fracs``, and train frozen-feature heads (last layer, scalar mix) on its pooled states."""
    full_cfg, lora_cfg = sizes.finetune_config(profile, "full"), sizes.finetune_config(profile, "lora")
    full = {s: ft.finetune(task, base, full_cfg, s, track=sizes.eval_fracs, keep_model=True) for s in seeds}
    lora = {
        s: ft.finetune(
            task, base, lora_cfg, s, strategy="lora", lora_rank=sizes.lora_rank, track=sizes.eval_fracs, keep_model=True
        )
        for s in strategy_seeds
    }
    tok = full[seeds[0]].tokenizer
    pretrained = ft.as_source(base).load_model()
    max_len = ft.max_len_for(pretrained, full_cfg.max_len)
    feats = {s: ft.encode(task, s, tok, max_len) for s in ("train", "dev", "test")}
    X = {s: pooled_states(pretrained, f, tok.pad_token_id) for s, f in feats.items()}  # (N, L+1, d)
    y = {s: labels_of(f) for s, f in feats.items()}
    frozen_last, frozen_mix, mix_w, last_items, mix_items = {}, {}, [], {}, {}
    for s in strategy_seeds:
        last_head, acc = train_feature_head(X, y, task.n_labels, mix=False, seed=s, epochs=sizes.head_epochs)
        frozen_last[s], last_items[s] = acc["test"], last_head.correct(X["test"], y["test"])
        head, acc = train_feature_head(X, y, task.n_labels, mix=True, seed=s, epochs=sizes.head_epochs)
        frozen_mix[s], mix_items[s] = acc["test"], head.correct(X["test"], y["test"])
        mix_w += [{"seed": s, "layer": j, "weight": float(w)} for j, w in enumerate(head.mix.weights().detach())]
    lora_name = f"LoRA r={sizes.lora_rank}"
    per_strategy = {
        "full fine-tuning": {s: full[s].score("test") for s in strategy_seeds},
        lora_name: {s: r.score("test") for s, r in lora.items()},
        "frozen: scalar mix": frozen_mix,
        "frozen: last layer": frozen_last,
    }
    scores = pd.concat(
        [
            pd.DataFrame({"strategy": name, "seed": list(d), "accuracy": list(d.values())})
            for name, d in per_strategy.items()
        ],
        ignore_index=True,
    )
    d, n_layers = X["train"].shape[2], X["train"].shape[1]
    trainable = {
        "full fine-tuning": full[seeds[0]].train["n_trainable"],
        lora_name: lora[strategy_seeds[0]].train["n_trainable"],
        "frozen: scalar mix": d * task.n_labels + task.n_labels + n_layers + 1,
        "frozen: last layer": d * task.n_labels + task.n_labels,
    }
    summary = scores.groupby("strategy", sort=False).accuracy.agg(["mean", "std"])
    summary["trainable parameters"] = pd.Series(trainable)
    summary["seconds per run"] = pd.Series(
        {
            "full fine-tuning": np.mean([r.train["seconds"] for r in full.values()]),
            lora_name: np.mean([r.train["seconds"] for r in lora.values()]),
        }
    )
    return StrategyComparison(
        full,
        lora,
        frozen_last,
        frozen_mix,
        pd.DataFrame(mix_w),
        scores,
        summary,
        pretrained,
        tok,
        feats,
        last_items,
        mix_items,
    )


def layer_changes(
    runs: Mapping[int, ft.FinetuneResult], pretrained: torch.nn.Module, feats: Features, pad_id: int
) -> pd.DataFrame:
    """Per seed and block: relative weight change and 1 - CKA of the representations (test features)."""
    return pd.concat(
        [
            relative_weight_change(pretrained, r.fine_tuned)
            .merge(representation_change(pretrained, r.fine_tuned, feats, pad_id), on="layer")
            .assign(seed=s)
            for s, r in runs.items()
        ],
        ignore_index=True,
    )


def separated_seeds(
    task: Any, source: Any, cfg: ft.FinetuneConfig, seeds: Sequence[int], progress: bool = True
) -> dict[str, np.ndarray]:
    """Dodge et al. (2020)'s two seeds varied one at a time: ``weight init`` (the head's weights and dropout,
    ``seed``; batches in the order of ``seeds[0]``) and ``data order`` (the batch order, ``data_seed``; init from
    ``seeds[0]``). Returns each as a (seeds, test items) 0/1 array (full fine-tuning, cached)."""
    from tqdm.auto import tqdm

    seeds = list(seeds)
    if len(seeds) < 2:
        raise ParameterError(f"seeds={seeds!r} are too few; allowed: at least 2 distinct seeds")
    s0, runs = seeds[0], {"weight init": {}, "data order": {}}
    for s in tqdm(seeds, desc="init / order seeds", disable=not progress):
        runs["weight init"][s] = ft.finetune(task, source, cfg, s, data_seed=s0)
        runs["data order"][s] = ft.finetune(task, source, cfg, s0, data_seed=s)
    return {k: stack({s: r.predictions["test"].scores() for s, r in v.items()}, seeds) for k, v in runs.items()}
