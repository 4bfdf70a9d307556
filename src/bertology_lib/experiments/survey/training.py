"""Training BERT: fine-tuning strategies, seed variance, pre-training objectives, progressive stacking.

The experiments of the survey's §5 (Rogers et al. 2020), in two families:

* **Fine-tuning the cached mini-BERT** (:func:`finetune_tracked`): full fine-tuning, LoRA on the
  query/value projections (Hu et al. 2021) and a frozen encoder, each with the dev score tracked
  through training (for Dodge et al.'s 2020 early stopping of seeds) and the fine-tuned weights
  cached. Frozen-feature heads on pre-computed, mean-pooled layer states (:func:`pooled_states`,
  :func:`train_feature_head`): the last layer alone or a learned softmax-weighted sum of all layers
  (:class:`ScalarMix`, Peters et al. 2018). What fine-tuning changed: per-block relative weight change
  (:func:`relative_weight_change`) and 1 - linear CKA between the pre-trained and fine-tuned states
  (:func:`representation_change`; Kovaleva et al. 2019 report the top layers change most); restoring
  blocks to their pre-trained values (:func:`restore_layers`, :func:`restore_curve`; Hao et al. 2019).
* **Pre-training small "lab" BERTs** (:class:`LabConfig`, :func:`pretrain_lab`): 80/10/10 vs
  [MASK]-only corruption (Devlin et al. 2019, Table 8), and progressive stacking (Gong et al. 2019:
  train half the depth, copy the blocks on top, continue) against training the full depth from scratch.

Sizes per profile: :class:`TrainingSizes`. Used by ``notebooks/survey_05_training.ipynb``.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import json
import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import torch

from bertology_lib.training import finetune as ft
from bertology_lib.analysis.similarity import linear_cka
from bertology_lib.cache import ArtifactCache, load_json, load_tensors, save_json, save_tensors
from bertology_lib.data.tasks import Task
from bertology_lib.errors import ParameterError
from bertology_lib.interventions.hooks import blocks, duplicate_layers
from bertology_lib.profiles import Profile

VERSION = 1
STRATEGIES = ("full", "lora", "frozen")
MASKINGS = ("80/10/10", "mask-only")
LAB_TOKENIZERS = ("word", "wordpiece")
UNITS = ("word", "token", "span")
WORDPIECE_VOCAB = 2000  # pieces of the lab WordPiece tokenizer (the toy corpus has ~6.6k word forms)
SPAN_P = 0.2  # SpanBERT's geometric span lengths (mean 3.8 words, clipped at 10)
_NEW_LAB_FIELDS = {"tokenizer": "word", "unit": "word", "nsp": False}  # left out of keys at these values


@dataclass(frozen=True)
class TrainingSizes:
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
    sst2_test: int | None  # None = all 872 GLUE dev sentences

    @classmethod
    def for_profile(cls, profile: Profile | str) -> "TrainingSizes":
        from bertology_lib.profiles import get_profile

        p = profile if isinstance(profile, Profile) else get_profile(profile)
        common = dict(ft_lr=3e-4, lora_lr=1e-3, lora_rank=8, eval_fracs=(0.1, 0.25, 0.5, 0.75, 1.0), early_frac=0.25)
        return {
            "smoke": cls(n_train=48, n_test=32, n_seeds=3, n_strategy_seeds=2, n_restore_seeds=2, epochs=1.0,
                         max_steps=8, head_epochs=5, lab_layers=2, lab_heads=2, lab_d_model=32, lab_steps=16,
                         n_lab_seeds=2, probe_sentences=40, sst2_train=32, sst2_dev=32, sst2_test=32, **common),
            "quick": cls(n_train=400, n_test=200, n_seeds=10, n_strategy_seeds=5, n_restore_seeds=5, epochs=4.0,
                         max_steps=0, head_epochs=60, lab_layers=4, lab_heads=4, lab_d_model=64, lab_steps=800,
                         n_lab_seeds=3, probe_sentences=300, sst2_train=800, sst2_dev=200, sst2_test=400,
                         **common),
            "full": cls(n_train=5000, n_test=1000, n_seeds=20, n_strategy_seeds=5, n_restore_seeds=5, epochs=3.0,
                        max_steps=0, head_epochs=100, lab_layers=6, lab_heads=4, lab_d_model=128, lab_steps=6000,
                        n_lab_seeds=3, probe_sentences=1000, sst2_train=20000, sst2_dev=872, sst2_test=None,
                        **common),
        }[p.name]

    def finetune_config(self, profile: str, strategy: str = "full") -> ft.FinetuneConfig:
        """The fine-tuning hyper-parameters of ``strategy`` (LoRA: its own learning rate)."""
        check_strategy(strategy)
        lr = self.lora_lr if strategy == "lora" else self.ft_lr
        return ft.FinetuneConfig.for_profile(profile, lr=lr, epochs=self.epochs, max_steps=self.max_steps)

    def estimate_seconds(self, step_s: float = 0.15, lab_step_s: float = 0.05) -> dict[str, float]:
        """Rough cost on one CPU core per part (seconds), from measured per-step times."""
        steps = self.max_steps or math.ceil(self.epochs * self.n_train / 32)
        lab = self.n_lab_seeds * self.lab_steps * lab_step_s
        return {"full fine-tuning": self.n_seeds * steps * step_s * 1.3,
                "LoRA": self.n_strategy_seeds * steps * step_s * 1.1,
                "pre-training variants": lab * (1 + 1 + 0.75), "probes and evaluation": 30 + 6 * self.n_lab_seeds}


def check_strategy(strategy: Any) -> str:
    if strategy not in STRATEGIES:
        raise ParameterError(f"strategy={strategy!r} is not allowed; allowed: {', '.join(STRATEGIES)}")
    return strategy


def _check_seed(seed: Any) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ParameterError(f"seed={seed!r} is out of range; allowed: an int >= 0")
    return seed


def _check_fracs(fracs: Sequence[float]) -> tuple[float, ...]:
    fr = tuple(float(f) for f in fracs)
    if not fr or any(not 0 < f <= 1 for f in fr) or list(fr) != sorted(set(fr)):
        raise ParameterError(f"eval_fracs={fracs!r} are invalid; allowed: increasing fractions in (0, 1]")
    return fr


# -- fine-tuning strategies -----------------------------------------------------------------------


def prepare(model: torch.nn.Module, strategy: str, lora_rank: int = 8) -> torch.nn.Module:
    """Make ``model`` (a task head on an encoder) train per ``strategy``, in place; returns it.

    ``full``: everything trains. ``frozen``: the encoder is frozen, the head trains. ``lora``: LoRA
    adapters (rank ``lora_rank``, alpha = 2 x rank) on every block's query and value projections; the
    encoder's own weights are frozen, the adapters and the head train.
    """
    check_strategy(strategy)
    if isinstance(lora_rank, bool) or not isinstance(lora_rank, int) or lora_rank < 1:
        raise ParameterError(f"lora_rank={lora_rank!r} is out of range; allowed: an int >= 1")
    if strategy == "full":
        return model
    for p in model.encoder.parameters():
        p.requires_grad_(False)
    if strategy == "lora":
        import warnings

        from peft import LoraConfig, inject_adapter_in_model

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            inject_adapter_in_model(LoraConfig(r=lora_rank, lora_alpha=2 * lora_rank, lora_dropout=0.0, bias="none",
                                               target_modules=["query", "value"]), model.encoder)
        for n, p in model.encoder.named_parameters():
            p.requires_grad_("lora_" in n)
    return model


def trainable_names(model: torch.nn.Module) -> list[str]:
    return [n for n, p in model.named_parameters() if p.requires_grad]


@dataclass
class Tracked:
    """One tracked fine-tuning run: the model, its dev curve and its final scores."""

    model: torch.nn.Module
    tokenizer: Any
    strategy: str
    seed: int
    curve: list[dict[str, float]]  # {"step", "frac", "dev"}
    metrics: dict[str, float]  # final dev and test accuracy
    steps: int
    seconds: float
    n_trainable: int

    def dev_at(self, frac: float) -> float:
        for row in self.curve:
            if abs(row["frac"] - frac) < 1e-9:
                return float(row["dev"])
        raise ParameterError(f"frac={frac!r} was not tracked; allowed: {[r['frac'] for r in self.curve]}")


def _build(task: Task, src: ft.ModelSource, cfg: ft.FinetuneConfig, seed: int, strategy: str, lora_rank: int):
    model = ft.build_model(task, src.load_model(cfg.attn_implementation), seed, cfg.head_dropout)
    return prepare(model, strategy, lora_rank)


def finetune_tracked(task: Task, source: Any, cfg: ft.FinetuneConfig, seed: int = 0, strategy: str = "full",
                     lora_rank: int = 8, eval_fracs: Sequence[float] = (0.25, 0.5, 1.0),
                     cache: ArtifactCache | None = None, progress: bool = False) -> Tracked:
    """Fine-tune ``source`` on ``task`` per ``strategy`` with dev accuracy recorded at ``eval_fracs``.

    Same loop and hyper-parameters as :func:`finetune.finetune_model`; weights, curve and scores
    are cached by (task, model weights, config, seed, strategy, rank, fractions).
    """
    from bertology_lib.training.loop import TrainConfig, train

    if task.kind != "classification":
        raise ParameterError(f"task {task.name!r} is a {task.kind} task; allowed: a classification task")
    seed = _check_seed(seed)
    check_strategy(strategy)
    fracs = _check_fracs(eval_fracs)
    src = ft.as_source(source)
    tok = src.load_tokenizer()

    def run() -> Tracked:
        model = _build(task, src, cfg, seed, strategy, lora_rank)
        max_len = ft.max_len_for(model.encoder, cfg.max_len)
        tr = ft.encode(task, "train", tok, max_len)
        dev = ft.encode(task, "dev", tok, max_len)
        steps = cfg.max_steps or max(1, math.ceil(cfg.epochs * len(tr.rows) / cfg.batch_size))
        at = {max(1, round(f * steps)): f for f in fracs}
        curve: list[dict[str, float]] = []

        def on_step_end(step: int, loss: float, m) -> None:
            if step in at:
                acc = ft.predict(m, dev, tok.pad_token_id, cfg, task.n_labels).metrics()["accuracy"]
                curve.append({"step": step, "frac": at[step], "dev": float(acc)})
                m.train()

        tc = TrainConfig(lr=cfg.lr, weight_decay=cfg.weight_decay, warmup_steps=int(cfg.warmup_ratio * steps),
                         max_steps=steps, batch_size=cfg.batch_size, seq_len=max_len, grad_clip=cfg.grad_clip,
                         schedule="linear", min_lr_ratio=0.0, seed=seed, device=cfg.device, dtype=cfg.dtype,
                         betas=(0.9, 0.999), eps=1e-8)
        res = train(model, ft.FeatureBatches(tr.rows, cfg.batch_size, tok.pad_token_id, seed), tc,
                    callbacks=[on_step_end], progress=progress, desc=f"{strategy} / seed {seed}")
        te = ft.encode(task, "test", tok, max_len)
        metrics = {"dev": curve[-1]["dev"],
                   "test": float(ft.predict(model, te, tok.pad_token_id, cfg, task.n_labels).metrics()["accuracy"])}
        n_tr = sum(p.numel() for p in model.parameters() if p.requires_grad)
        return Tracked(model.eval(), tok, strategy, seed, curve, metrics, res.steps, res.seconds, n_tr)

    key = src.cache_key()
    if key is None:
        return run()
    cache = cache or ArtifactCache()
    config = {"task": task.key(), "model": key, "finetune": cfg.to_dict(), "seed": seed, "strategy": strategy,
              "lora_rank": lora_rank if strategy == "lora" else None, "fracs": list(fracs), "version": VERSION}
    built: list[Tracked] = []

    def build(folder: Path) -> None:
        t = run()
        save_tensors(folder / "model.safetensors", {k: v.contiguous() for k, v in t.model.state_dict().items()})
        save_json(folder / "result.json", {"curve": t.curve, "metrics": t.metrics, "steps": t.steps,
                                           "seconds": t.seconds, "n_trainable": t.n_trainable})
        built.append(t)

    folder = cache.get_or_create("tracked-finetune", config, build)
    if built:
        return built[0]
    model = _build(task, src, cfg, seed, strategy, lora_rank)
    model.load_state_dict(load_tensors(folder / "model.safetensors"))
    d = load_json(folder / "result.json")
    return Tracked(model.eval(), tok, strategy, seed, d["curve"], d["metrics"], d["steps"], d["seconds"],
                   d["n_trainable"])


def curves_frame(runs: Sequence[Tracked]) -> pd.DataFrame:
    """One row per (run, tracked point): strategy, seed, step, frac, dev; plus the final test score."""
    return pd.DataFrame([{"strategy": r.strategy, "seed": r.seed, **row, "final_test": r.metrics["test"]}
                         for r in runs for row in r.curve])


# -- frozen features: last layer vs scalar mix -------------------------------------------------


def _hidden_batches(encoder: torch.nn.Module, feats: ft.Features, pad_id: int, batch_size: int):
    """(attention mask, hidden states of every layer) per batch of ``feats``, in eval mode."""
    encoder.eval()
    for i in range(0, len(feats.rows), batch_size):
        b = ft.collate(feats.rows[i: i + batch_size], pad_id)
        mask = b["attention_mask"]
        yield mask, encoder(input_ids=b["input_ids"], attention_mask=mask, output_hidden_states=True).hidden_states


@torch.no_grad()
def pooled_states(encoder: torch.nn.Module, feats: ft.Features, pad_id: int, batch_size: int = 128) -> torch.Tensor:
    """Mean over non-padding tokens of every layer's states: (N, n_layers + 1, d), embeddings first."""
    out = []
    for mask, hs in _hidden_batches(encoder, feats, pad_id, batch_size):
        h = torch.stack(hs, 1)  # (B, L+1, T, d)
        m = mask[:, None, :, None].to(h.dtype)
        out.append((h * m).sum(2) / m.sum(2))
    return torch.cat(out)


def labels_of(feats: ft.Features) -> torch.Tensor:
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


def train_feature_head(X: Mapping[str, torch.Tensor], y: Mapping[str, torch.Tensor], n_labels: int, mix: bool,
                       seed: int = 0, epochs: int = 60, lr: float = 1e-2, batch_size: int = 32
                       ) -> tuple[FeatureHead, dict[str, float]]:
    """Train a :class:`FeatureHead` on ``X["train"]`` (N, n_layers, d); accuracy on every other split."""
    seed = _check_seed(seed)
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
            idx = perm[i: i + batch_size]
            loss = torch.nn.functional.cross_entropy(head((Xtr[idx] - mu) / sd), ytr[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
    with torch.no_grad():
        acc = {s: float((head((X[s] - mu) / sd).argmax(-1) == y[s]).float().mean()) for s in X if s != "train"}
    return head.eval(), acc


# -- what fine-tuning changed ---------------------------------------------------------------------


def _encoder(model: torch.nn.Module) -> torch.nn.Module:
    return model.encoder if isinstance(model, ft._Head) else ft.encoder_of(model)


def _plain_state(module: torch.nn.Module) -> dict[str, torch.Tensor]:
    """State dict with LoRA folded in (W + B A * scale) and peft's ``base_layer`` names removed."""
    sd = {k: v for k, v in module.state_dict().items() if "lora_" not in k}
    for name, m in module.named_modules():
        if hasattr(m, "get_delta_weight") and hasattr(m, "base_layer"):
            delta = sum((m.get_delta_weight(a) for a in m.active_adapters), torch.zeros_like(m.base_layer.weight))
            sd[f"{name}.base_layer.weight"] = m.base_layer.weight.detach() + delta.detach()
    return {k.replace(".base_layer.", "."): v for k, v in sd.items()}


def relative_weight_change(pre: torch.nn.Module, post: torch.nn.Module) -> pd.DataFrame:
    """Per block: ||W_post - W_pre|| / ||W_pre|| over all the block's parameters (0-based ``layer``)."""
    bp, bq = blocks(_encoder(pre)), blocks(_encoder(post))
    if len(bp) != len(bq):
        raise ParameterError(f"models have {len(bp)} and {len(bq)} blocks; allowed: the same architecture")
    rows = []
    for i, (a, b) in enumerate(zip(bp, bq)):
        sa, sb = _plain_state(a), _plain_state(b)
        num = sum(float(((sb[k].float() - sa[k].float()) ** 2).sum()) for k in sa)
        den = sum(float((sa[k].float() ** 2).sum()) for k in sa)
        rows.append({"layer": i, "rel_change": math.sqrt(num) / max(math.sqrt(den), 1e-12)})
    return pd.DataFrame(rows)


@torch.no_grad()
def token_states(encoder: torch.nn.Module, feats: ft.Features, pad_id: int, batch_size: int = 128) -> torch.Tensor:
    """Every non-padding token's state at every block's output: (n_layers, n_tokens, d)."""
    out = [torch.stack([h[mask.bool()] for h in hs[1:]])
           for mask, hs in _hidden_batches(encoder, feats, pad_id, batch_size)]
    return torch.cat(out, 1)


def representation_change(pre: torch.nn.Module, post: torch.nn.Module, feats: ft.Features, pad_id: int
                          ) -> pd.DataFrame:
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
        state = _plain_state(pre_blocks[i])
        target = out_blocks[i]
        if any("lora_" in k for k in target.state_dict()):
            raise ParameterError("restore_layers needs a model without adapters; allowed: full or frozen fine-tuning")
        target.load_state_dict(state)
    return out.eval()


def restore_curve(model: torch.nn.Module, pretrained: torch.nn.Module, feats: ft.Features, pad_id: int,
                  cfg: ft.FinetuneConfig, n_labels: int) -> pd.DataFrame:
    """Accuracy with the bottom k / top k blocks restored to their pre-trained values, k = 0..L."""
    n = len(blocks(_encoder(model)))
    rows = []
    for k in range(n + 1):
        for kind, layers in (("bottom", range(k)), ("top", range(n - k, n))):
            if k == 0 and kind == "top":
                continue
            m = restore_layers(model, pretrained, list(layers))
            rows.append({"kind": kind if k else "none", "restored": k,
                         "accuracy": float(ft.predict(m, feats, pad_id, cfg, n_labels).metrics()["accuracy"])})
    return pd.DataFrame(rows)


# -- seed variance and early stopping (Dodge et al. 2020) ---------------------------------------


def early_ranking(runs: Sequence[Tracked], frac: float) -> dict[str, float]:
    """How well the dev ranking of seeds at ``frac`` of training predicts their final dev and test ranking.

    Returns Spearman's rho (and its p-value) of dev-at-frac with final dev and with final test,
    and what keeping only the better half at ``frac`` would have cost: the best final test score of the
    kept seeds minus the best overall.
    """
    from scipy import stats

    if len(runs) < 3:
        raise ParameterError(f"{len(runs)} runs are too few; allowed: at least 3 seeds")
    early = np.array([r.dev_at(frac) for r in runs])
    dev = np.array([r.metrics["dev"] for r in runs])
    test = np.array([r.metrics["test"] for r in runs])
    import warnings

    with warnings.catch_warnings():  # constant scores (e.g. at smoke) give nan, reported as rho 0, p 1
        warnings.simplefilter("ignore")
        rho_dev, p_dev = stats.spearmanr(early, dev)
        rho_test, p_test = stats.spearmanr(early, test)
    kept = np.argsort(-early, kind="stable")[: max(1, len(runs) // 2)]
    return {"rho_final_dev": float(np.nan_to_num(rho_dev)), "p_final_dev": float(np.nan_to_num(p_dev, nan=1.0)),
            "rho_final_test": float(np.nan_to_num(rho_test)), "p_final_test": float(np.nan_to_num(p_test, nan=1.0)),
            "best_kept_minus_best": float(test[kept].max() - test.max()), "n_seeds": len(runs)}


# -- pre-training lab BERTs -----------------------------------------------------------------------


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
    on sentence pairs with a next-sentence head as well (:class:`PairBatches`).
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
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ParameterError(f"{name}={v!r} is out of range; allowed: an int >= 1")
        if self.masking not in MASKINGS:
            raise ParameterError(f"masking={self.masking!r} is not allowed; allowed: {', '.join(MASKINGS)}")
        if self.d_model % self.n_heads:
            raise ParameterError(f"d_model={self.d_model} is not divisible by n_heads={self.n_heads}")
        if isinstance(self.stack_at, bool) or not isinstance(self.stack_at, int) or not 0 <= self.stack_at < self.steps:
            raise ParameterError(f"stack_at={self.stack_at!r} is out of range; allowed: 0 (no stacking) .. {self.steps - 1}")
        if self.stack_at and (self.n_layers < 2 or self.n_layers % 2):
            raise ParameterError(f"n_layers={self.n_layers} cannot be stacked; allowed: an even number >= 2")
        _check_seed(self.seed)
        if self.tokenizer not in LAB_TOKENIZERS:
            raise ParameterError(f"tokenizer={self.tokenizer!r} is not allowed; allowed: {', '.join(LAB_TOKENIZERS)}")
        if self.unit not in UNITS:
            raise ParameterError(f"unit={self.unit!r} is not allowed; allowed: {', '.join(UNITS)}")
        if not isinstance(self.nsp, bool):
            raise ParameterError(f"nsp={self.nsp!r} is not allowed; allowed: True or False")
        if self.nsp and self.stack_at:
            raise ParameterError("nsp=True with stack_at > 0 is not supported; allowed: one of the two")

    def to_dict(self) -> dict[str, Any]:
        """All fields; the tokenizer / unit / NSP fields only when they differ from the original lab BERT
        (so the cache keys of models trained before those fields existed stay valid)."""
        d = dataclasses.asdict(self)
        for k, v in _NEW_LAB_FIELDS.items():
            if d[k] == v:
                del d[k]
        return d

    def block_steps(self) -> int:
        """Compute in block-steps (one block, one batch): a proxy for training FLOPs."""
        if not self.stack_at:
            return self.n_layers * self.steps
        return self.n_layers // 2 * self.stack_at + self.n_layers * (self.steps - self.stack_at)


def _mlm_batches(texts: Sequence[str], tok, cfg: LabConfig):
    from bertology_lib.training.loop import MLMBatches

    class _Batches(MLMBatches):
        def __iter__(self):
            for b in super().__iter__():
                if cfg.masking == "mask-only":
                    b["input_ids"][b["labels"] != -100] = tok.mask_token_id
                yield b

    return _Batches(texts, tok, batch_size=cfg.batch_size, seq_len=64, mask_prob=cfg.mask_prob,
                    whole_word=cfg.unit != "token", seed=cfg.seed, bucket=50,
                    span_p=SPAN_P if cfg.unit == "span" else 0.0)


def topic_partners(sentences: Sequence[Any]) -> list[list[int]]:
    """For each sentence, the other sentences that share a noun lemma with it (its possible "next" ones).

    The toy corpus is a bag of independent sentences, so there is no true next sentence; sharing a
    noun is the topical coherence that Lan et al. (2020) argue is most of what NSP teaches.
    """
    by_lemma: dict[str, list[int]] = {}
    nouns = []
    for i, s in enumerate(sentences):
        ls = sorted({lem for lem, u in zip(s.lemmas, s.upos) if u in ("NOUN", "PROPN")})
        nouns.append(ls)
        for lem in ls:
            by_lemma.setdefault(lem, []).append(i)
    out = []
    for i, ls in enumerate(nouns):
        cand = sorted({j for lem in ls for j in by_lemma[lem][:200]} - {i})  # capped per lemma: frequent nouns
        out.append(cand)
    return out


class PairBatches:
    """Masked-LM batches of sentence pairs with a next-sentence label (Devlin et al. 2019's NSP).

    Each row is ``[CLS] A [SEP] B [SEP]``: half the time B shares a noun with A (label 0, "is next",
    :func:`topic_partners`), otherwise B is a random sentence (label 1). Words of both segments are
    masked as in :class:`~bertology_lib.training.loop.MLMBatches` (``cfg.unit``, ``cfg.masking``).
    """

    def __init__(self, texts: Sequence[str], partners: Sequence[Sequence[int]], tok, cfg: LabConfig,
                 seq_len: int = 64) -> None:
        from bertology_lib.training.loop import _generator

        if len(texts) != len(partners):
            raise ParameterError(f"{len(texts)} texts but {len(partners)} partner lists; allowed: one per text")
        self.texts, self.partners, self.tok, self.cfg, self.seq_len = list(texts), partners, tok, cfg, seq_len
        self.has_partner = [i for i, p in enumerate(partners) if p]
        self.special = set(tok.all_special_ids)
        self.candidates = torch.tensor([i for i in range(len(tok)) if i not in self.special])
        self._g = _generator(cfg.seed)

    def __len__(self) -> int:
        return math.ceil(len(self.has_partner) / self.cfg.batch_size)

    def __iter__(self):
        from bertology_lib.training.loop import mask_tokens, span_groups

        bs, n = self.cfg.batch_size, len(self.texts)
        order = torch.randperm(len(self.has_partner), generator=self._g).tolist()
        for k in range(0, len(order), bs):
            rows = [self.has_partner[j] for j in order[k: k + bs]]
            is_rand = (torch.rand(len(rows), generator=self._g) < 0.5).tolist()
            second = []
            for i, r in zip(rows, is_rand):
                p = self.partners[i]
                second.append(int(torch.randint(n, (1,), generator=self._g)) if r
                              else p[int(torch.randint(len(p), (1,), generator=self._g))])
            enc = self.tok([self.texts[i] for i in rows], [self.texts[j] for j in second], truncation=True,
                           max_length=self.seq_len, padding=True, return_tensors="pt")
            ids = enc["input_ids"]
            words = torch.full_like(ids, -1)
            for b in range(len(rows)):
                w, seq = enc.word_ids(b), enc.sequence_ids(b)
                n_a = 1 + max((wi for wi, sq in zip(w, seq) if sq == 0 and wi is not None), default=-1)
                for t, (wi, sq) in enumerate(zip(w, seq)):
                    if wi is not None and int(ids[b, t]) not in self.special:
                        unit = wi + (n_a if sq == 1 else 0)
                        words[b, t] = unit if self.cfg.unit != "token" else t
            if self.cfg.unit == "span":
                words = span_groups(words, SPAN_P, 10, self._g)
            masked, labels = mask_tokens(ids, mask_id=self.tok.mask_token_id, candidate_ids=self.candidates,
                                         word_ids=words, mask_prob=self.cfg.mask_prob, generator=self._g)
            if self.cfg.masking == "mask-only":
                masked[labels != -100] = self.tok.mask_token_id
            yield {"input_ids": masked, "attention_mask": enc["attention_mask"],
                   "token_type_ids": enc["token_type_ids"], "labels": labels,
                   "next_sentence_label": torch.tensor(is_rand, dtype=torch.long)}


class MaskedOnlyPretraining(torch.nn.Module):
    """Training view of a ``BertForPreTraining``: masked-only MLM loss plus the next-sentence loss.

    Keeps the next-sentence accuracy of the last 100 training batches in ``nsp_log``.
    """

    def __init__(self, model) -> None:
        super().__init__()
        self.model = model
        self.nsp_log: list[float] = []

    def forward(self, input_ids, attention_mask=None, token_type_ids=None, labels=None, next_sentence_label=None):
        from types import SimpleNamespace

        out = self.model.bert(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids)
        sel = labels != -100
        logits = self.model.cls.predictions(out.last_hidden_state[sel])
        nsp = self.model.cls.seq_relationship(out.pooler_output)
        loss = torch.nn.functional.cross_entropy(logits, labels[sel]) + \
            torch.nn.functional.cross_entropy(nsp, next_sentence_label)
        self.nsp_log = (self.nsp_log + [float((nsp.argmax(-1) == next_sentence_label).float().mean())])[-100:]
        return SimpleNamespace(loss=loss, logits=logits)


def lab_tokenizer(cfg: LabConfig, mb_cfg: Any, cache: ArtifactCache | None = None):
    """The tokenizer of lab BERT ``cfg``: the toy word-level one, or the corpus's WordPiece (trained once,
    cached, because the trainer breaks ties in hash order)."""
    from transformers import AutoTokenizer

    from bertology_lib.models import minibert
    from bertology_lib.models.tokenization import train_wordpiece_tokenizer

    if cfg.tokenizer == "word":
        return minibert.tokenizer_for(mb_cfg)
    cache = cache or ArtifactCache()

    def build(folder: Path) -> None:
        texts = [s.text for s in minibert.corpus(mb_cfg)[0]]
        train_wordpiece_tokenizer(texts, WORDPIECE_VOCAB).save_pretrained(folder)

    folder = cache.get_or_create("lab-tokenizer", {"kind": "wordpiece", "vocab_size": WORDPIECE_VOCAB,
                                                   "corpus": dataclasses.asdict(mb_cfg.corpus_config())}, build)
    return AutoTokenizer.from_pretrained(folder)


def stack(model: torch.nn.Module) -> torch.nn.Module:
    """Progressive stacking (Gong et al. 2019): the blocks copied on top of themselves (depth doubles)."""
    n = len(blocks(model))
    return duplicate_layers(model, list(range(n)) * 2)


def pretrain_lab(cfg: LabConfig, mb_cfg: Any, texts: Sequence[str] | None = None,
                 cache: ArtifactCache | None = None, progress: bool = False) -> Path:
    """Pre-train (or fetch) the lab BERT ``cfg`` on ``mb_cfg``'s corpus; returns its cache folder.

    The folder holds ``final/`` (an HF ``BertForMaskedLM`` with the tokenizer) and ``history.json``
    (losses, seconds per phase, block-steps). ``texts``: the training sentences, if already generated.
    """
    from bertology_lib.models import minibert
    from bertology_lib.training.loop import TrainConfig, train

    cache = cache or ArtifactCache()

    def build(folder: Path) -> None:
        tok = lab_tokenizer(cfg, mb_cfg, cache)
        tx = list(texts) if texts is not None else [s.text for s in minibert.corpus(mb_cfg)[0]]
        shallow = cfg.n_layers // 2 if cfg.stack_at else cfg.n_layers
        mcfg = minibert.MiniBertConfig.for_profile("quick", seed=cfg.seed, n_layers=shallow, n_heads=cfg.n_heads,
                                                   d_model=cfg.d_model)
        model = minibert.build_model(mcfg, len(tok))
        if cfg.nsp:
            from transformers import BertForPreTraining

            torch.manual_seed(cfg.seed)
            model = BertForPreTraining(model.config)
            sents = minibert.corpus(mb_cfg)[0]
            if texts is not None and [s.text for s in sents] != tx:
                raise ParameterError("nsp=True needs the corpus's own sentences; allowed: texts=None or the corpus")
            batches = PairBatches(tx, topic_partners(sents), tok, cfg)
            wrapper = MaskedOnlyPretraining(model)
        else:
            batches = _mlm_batches(tx, tok, cfg)
            wrapper = None
        phases = [(cfg.stack_at, False), (cfg.steps - cfg.stack_at, True)] if cfg.stack_at else [(cfg.steps, False)]
        losses, seconds = [], []
        for i, (n_steps, stacked) in enumerate(phases):
            if stacked:
                model = stack(model)
            warm = min(cfg.warmup_steps, max(1, n_steps // 10))
            tc = TrainConfig(lr=cfg.lr, weight_decay=0.01, warmup_steps=warm, max_steps=n_steps,
                             batch_size=cfg.batch_size, seq_len=64, schedule="linear", min_lr_ratio=0.0,
                             seed=cfg.seed + 1000 * i)
            res = train(wrapper or minibert.MaskedOnlyMLM(model), batches, tc, progress=progress,
                        desc=f"lab {cfg.masking}")
            losses += res.losses
            seconds.append(res.seconds)
        model.save_pretrained(folder / "final")  # BertForPreTraining when nsp: loads as MLM or encoder too
        tok.save_pretrained(folder / "final")
        extra = {"nsp_train_accuracy": float(np.mean(wrapper.nsp_log))} if wrapper is not None else {}
        (folder / "history.json").write_text(json.dumps({"losses": losses, "seconds": seconds,
                                                         "block_steps": cfg.block_steps(), "config": cfg.to_dict(),
                                                         **extra}))

    return cache.get_or_create("lab-bert", {"lab": cfg.to_dict(), "corpus": dataclasses.asdict(mb_cfg.corpus_config()),
                                            "version": VERSION}, build)


def load_lab(folder: Path, head: str = "mlm"):
    """(model, tokenizer) of a pre-trained lab BERT, eager attention, eval mode."""
    from transformers import AutoModel, AutoModelForMaskedLM, AutoTokenizer

    loader = AutoModelForMaskedLM if head == "mlm" else AutoModel
    with _quiet_hf():  # an NSP model's unused pooler / next-sentence head
        model = loader.from_pretrained(Path(folder) / "final", attn_implementation="eager").eval()
    return model, AutoTokenizer.from_pretrained(Path(folder) / "final")


def lab_history(folder: Path) -> dict:
    return json.loads((Path(folder) / "history.json").read_text())


def variant_grid(sizes: TrainingSizes, seeds: Sequence[int]) -> dict[str, list[LabConfig]]:
    """The pre-training variants of the notebook: name -> one :class:`LabConfig` per seed."""
    base = dict(n_layers=sizes.lab_layers, n_heads=sizes.lab_heads, d_model=sizes.lab_d_model, steps=sizes.lab_steps,
                warmup_steps=max(1, sizes.lab_steps // 10))
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

    shapes = {f"{L} blocks x {H} heads": (L, H, d), f"{L} blocks x 1 head": (L, 1, d),
              f"{L} blocks x {4 * H} heads": (L, 4 * H, d)}
    if L >= 2:
        shapes[f"{L // 2} block{'s' if L // 2 > 1 else ''}, d={width(L // 2)}"] = (L // 2, H, width(L // 2))
    shapes[f"{2 * L} blocks, d={width(2 * L)}"] = (2 * L, H, width(2 * L))
    return {name: [LabConfig(n_layers=a, n_heads=h, d_model=w, seed=s, **common) for s in seeds]
            for name, (a, h, w) in shapes.items()}


def objective_grid(sizes: TrainingSizes, seeds: Sequence[int]) -> dict[str, list[LabConfig]]:
    """Masking units and NSP, all with the WordPiece tokenizer and 80/10/10 corruption: token, whole-word,
    span, and whole-word plus next-sentence prediction on sentence pairs."""
    base = dict(n_layers=sizes.lab_layers, n_heads=sizes.lab_heads, d_model=sizes.lab_d_model, steps=sizes.lab_steps,
                warmup_steps=max(1, sizes.lab_steps // 10), tokenizer="wordpiece")
    return {"token": [LabConfig(**base, unit="token", seed=s) for s in seeds],
            "whole word": [LabConfig(**base, unit="word", seed=s) for s in seeds],
            "span": [LabConfig(**base, unit="span", seed=s) for s in seeds],
            "whole word + NSP": [LabConfig(**base, unit="word", nsp=True, seed=s) for s in seeds]}


def evaluate_labs(grid: Mapping[str, Sequence[LabConfig]], mb_cfg: Any, task: Task, ft_cfg: ft.FinetuneConfig,
                  probe_sents: Sequence[Any], held_texts: Sequence[str], cache: ArtifactCache | None = None,
                  progress: bool = True) -> pd.DataFrame:
    """Pre-train (or fetch) every lab BERT of ``grid`` and measure it three ways, one row per (variant, seed).

    ``mlm_acc``: held-out whole-word MLM accuracy (:func:`masked_accuracy`); ``pos_probe``: best-layer
    linear UPOS probe on ``probe_sents`` (unmasked input); ``downstream``: test accuracy after full
    fine-tuning on ``task`` with ``ft_cfg``, fine-tuning seed = the lab seed (cached like every
    fine-tuning). Also the blocks' and all parameters, the final training loss, the pre-training seconds
    and, for NSP models, the next-sentence accuracy over the last 100 training batches. Probe sentences
    longer than the model's positions are left out (``probe_sentences`` says how many were used).
    """
    from tqdm.auto import tqdm

    from bertology_lib.models import minibert

    cfgs = [(name, c) for name, cs in grid.items() for c in cs]
    if not cfgs:
        raise ParameterError("grid is empty; allowed: at least one variant with one seed")
    texts = [s.text for s in minibert.corpus(mb_cfg)[0]]
    rows: list[dict[str, Any]] = []
    with _quiet_hf():  # one bar for the grid, not one per checkpoint load
        for name, c in tqdm(cfgs, desc="lab BERTs", disable=not progress):
            rows.append(_evaluate_lab(name, c, mb_cfg, texts, task, ft_cfg, probe_sents, held_texts, cache))
    return pd.DataFrame(rows)


@contextlib.contextmanager
def _quiet_hf():
    from transformers.utils import logging as hf_logging

    level, bars = hf_logging.get_verbosity(), hf_logging.is_progress_bar_enabled()
    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        hf_logging.set_verbosity(level)
        if bars:
            hf_logging.enable_progress_bar()


def _evaluate_lab(name: str, c: LabConfig, mb_cfg: Any, texts: list[str], task: Task, ft_cfg: ft.FinetuneConfig,
                  probe_sents: Sequence[Any], held_texts: Sequence[str], cache: ArtifactCache | None) -> dict[str, Any]:
    from bertology_lib.experiments.survey import knowledge as survey

    folder = pretrain_lab(c, mb_cfg, texts=texts, cache=cache)
    mlm, tok = load_lab(folder)
    hist = lab_history(folder)
    limit = mlm.config.max_position_embeddings  # WordPiece can make a long sentence too long
    fits = [s for s in probe_sents if len(tok(list(s.words), is_split_into_words=True)["input_ids"]) <= limit]
    rep = survey.probe_models({name: (mlm, tok)}, fits, ["upos"], ambiguous_target=None)
    res = ft.finetune(task, ft.ModelSource(str(Path(folder) / "final")), ft_cfg, c.seed, cache=cache)
    enc = mlm.bert
    return {"variant": name, "seed": c.seed, "mlm_acc": masked_accuracy(mlm, tok, held_texts),
            "pos_probe": float(rep[rep.subset == "all"].accuracy.max()), "downstream": res.score("test"),
            "block_params": sum(p.numel() for p in enc.encoder.parameters()),
            "params": sum(p.numel() for p in mlm.parameters()),
            "final_loss": float(np.mean(hist["losses"][-50:])), "train_seconds": sum(hist["seconds"]),
            "nsp_acc": hist.get("nsp_train_accuracy", float("nan")), "probe_sentences": len(fits)}


def seed_ranges(table: pd.DataFrame, variants: Sequence[str], metric: str) -> dict[int, float]:
    """Per seed, max - min of ``metric`` over ``variants`` (how much that choice moves the result)."""
    missing = sorted(set(variants) - set(table["variant"]))
    if missing:
        raise ParameterError(f"variants {missing} are not in the table; allowed: {sorted(set(table['variant']))}")
    sub = table[table["variant"].isin(list(variants))]
    wide = sub.pivot(index="seed", columns="variant", values=metric)
    return {int(s): float(r.max() - r.min()) for s, r in wide.dropna().iterrows()}


def by_seed(table: pd.DataFrame, variant: str, metric: str) -> dict[int, float]:
    """``metric`` of one variant as {seed: value} (for :func:`paired_points`)."""
    sub = table[table["variant"] == variant]
    if sub.empty:
        raise ParameterError(f"variant={variant!r} is not in the table; allowed: {sorted(set(table['variant']))}")
    return {int(s): float(v) for s, v in zip(sub["seed"], sub[metric])}


@torch.no_grad()
def masked_accuracy(model: torch.nn.Module, tokenizer, texts: Sequence[str], seed: int = 1234,
                    batch_size: int = 128) -> float:
    """Held-out MLM accuracy with 15% of words replaced by [MASK] (no random or kept tokens), fixed masking."""
    if not texts:
        raise ParameterError("texts is empty; allowed: at least one sentence")
    model.eval()
    cfg = LabConfig(masking="mask-only", batch_size=batch_size, seed=seed)
    hit = tot = 0
    for b in _mlm_batches(list(texts), tokenizer, cfg):
        logits = model(input_ids=b["input_ids"], attention_mask=b["attention_mask"]).logits
        sel = b["labels"] != -100
        hit += int((logits.argmax(-1)[sel] == b["labels"][sel]).sum())
        tot += int(sel.sum())
    return hit / max(tot, 1)


# The paired-interval helpers live in :mod:`bertology_lib.training.finetune` (shared with §6); kept here by name.
paired_points = ft.paired_points
one_sample_interval = ft.one_sample_interval
