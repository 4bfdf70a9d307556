"""The embedded mini-BERT: a small ``BertForMaskedLM`` trained on toy English.

Trained once per config by :func:`train_minibert` through the one MLM pre-training
pipeline (:mod:`bertology_lib.training.pretrain`), cached with its checkpoints through
training (so that the survey notebooks can show phenomena *across training
time*), its word-level tokenizer, and its learning curve. Every survey
notebook that asks for ``model="mini-bert"`` shares the same cached model.

Used by the survey §3–§7 and layer-duplication notebooks.
"""

from __future__ import annotations

import json
import math
import os
import shutil
from dataclasses import asdict, dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Any, ClassVar

import torch

from bertology_lib.analysis.mlm import masked_accuracy
from bertology_lib.cache import ArtifactCache
from bertology_lib.data.toy_english import ToyEnglishConfig, generate_corpus, vocabulary
from bertology_lib.errors import ParameterError
from bertology_lib.models.tokenization import build_word_tokenizer
from bertology_lib.profiles import SizeTable
from bertology_lib.training.loop import Resume, TrainConfig
from bertology_lib.training.pretrain import MLMObjective, mlm_batches, pretrain_mlm
from bertology_lib.validation import check_float, check_int

NAME = "mini-bert"
KIND = "minibert"
RESUME_EVERY = 500  # optimiser steps between resumable states (and at every kept checkpoint); 0: off


@dataclass(frozen=True)
class MiniBertConfig(SizeTable):
    """Everything that determines a trained mini-BERT (its cache key); sizes per profile in ``SIZES``:
    smoke (seconds), quick (≤ 15 min on 2 cores), full (BERT-base size, GPU)."""

    SIZES: ClassVar[dict[str, dict[str, Any]]] = {
        "smoke": dict(n_sentences=1500, n_layers=2, n_heads=2, d_model=32, max_steps=30, batch_size=16,
                      warmup_steps=5, n_checkpoints=3, heldout=200),
        "quick": dict(),
        "full": dict(n_sentences=1_000_000, vocab_size=5000, n_layers=12, n_heads=12, d_model=768,
                     max_steps=100_000, batch_size=128, lr=1e-4, warmup_steps=10_000,
                     n_checkpoints=12, heldout=5000, device="auto"),
    }

    n_sentences: int = 60_000  # toy-English training corpus
    vocab_size: int = 3000  # content lemmas of the toy grammar
    corpus_seed: int = 0
    n_layers: int = 6
    n_heads: int = 4
    d_model: int = 128
    max_steps: int = 12_000  # quick: agreement is learned late (benchmarks/README.md, "The mini-BERT trained longer")
    batch_size: int = 64
    lr: float = 1e-3
    warmup_steps: int = 300
    weight_decay: float = 0.01
    mask_prob: float = 0.15
    n_checkpoints: int = 8  # kept through training, log-spaced
    heldout: int = 1000  # last sentences held out for MLM accuracy
    seed: int = 0
    device: str = "cpu"

    def __post_init__(self) -> None:
        for name in ("n_sentences", "vocab_size", "n_layers", "n_heads", "d_model", "max_steps",
                     "batch_size", "n_checkpoints", "heldout"):
            check_int(name, getattr(self, name), minimum=1)
        check_int("seed", self.seed, minimum=0)
        if self.d_model % self.n_heads:
            raise ParameterError(f"d_model={self.d_model} is not divisible by n_heads={self.n_heads}; "
                                 "allowed: d_model a multiple of n_heads")
        if self.heldout >= self.n_sentences:
            raise ParameterError(f"heldout={self.heldout} must be smaller than n_sentences={self.n_sentences}")
        check_float("mask_prob", self.mask_prob, 0.0, 1.0, open_min=True, open_max=True)

    @classmethod
    def for_profile(cls, profile: str, seed: int = 0, **overrides: Any) -> "MiniBertConfig":
        """The mini-BERT of ``profile`` trained with ``seed`` (``overrides``: any other field)."""
        return super().for_profile(profile, seed=seed, **overrides)

    def corpus_config(self) -> ToyEnglishConfig:
        return ToyEnglishConfig(n_sentences=self.n_sentences, seed=self.corpus_seed, vocab_size=self.vocab_size)

    def to_dict(self) -> dict:
        return asdict(self)

    def checkpoint_steps(self) -> list[int]:
        """Log-spaced steps at which a checkpoint is kept (always including the last)."""
        n = self.n_checkpoints
        steps = {max(1, round(self.max_steps ** ((i + 1) / n))) for i in range(n)}
        return sorted(steps | {self.max_steps})


def corpus(cfg: MiniBertConfig):
    """(train, heldout) toy-English sentences; deterministic, regenerated in about a second."""
    sents = generate_corpus(cfg.corpus_config())
    return sents[: -cfg.heldout], sents[-cfg.heldout:]


@lru_cache(maxsize=2)
def _corpus_texts(cc: ToyEnglishConfig) -> frozenset[str]:
    return frozenset(s.text for s in generate_corpus(cc))


def fresh_sentences(cfg: MiniBertConfig, n: int):
    """``n`` toy sentences the mini-BERT never trained on: fresh draws (sample seed: the corpus seed + 10,000)
    from the same grammar, lexicon and facts, so every word is in the mini-BERT's vocabulary, leaving out
    any sentence that occurs verbatim in its corpus; for probing and held-out evaluation.

    (Until 2026-12-01 the draws changed the corpus seed itself, which also changed the lexicon: about a quarter of
    the tokens of these sentences were ``[UNK]`` to the mini-BERT.)"""
    check_int("n", n, minimum=1)
    seen = _corpus_texts(cfg.corpus_config())  # the training corpus and its held-out tail
    draw = n + n // 4 + 20
    while True:  # drop sentences that occur verbatim in the corpus (short ones, fact statements), keep the order
        cc = replace(cfg.corpus_config(), n_sentences=draw, sample_seed=cfg.corpus_seed + 10_000)
        fresh = [s for s in generate_corpus(cc) if s.text not in seen]
        if len(fresh) >= n:
            return fresh[:n]
        draw *= 2


def tokenizer_for(cfg: MiniBertConfig):
    """The word-level BERT tokenizer over the corpus vocabulary."""
    return build_word_tokenizer(vocabulary(cfg.corpus_config()), kind="bert")


def new_bert(vocab_size: int, n_layers: int, n_heads: int, d_model: int, seed: int = 0,
             max_positions: int = 64, nsp: bool = False):
    """A freshly initialised mini-BERT shape (MLP 4 x d_model): ``BertForMaskedLM``, or ``BertForPreTraining``
    (MLM + next-sentence heads) with ``nsp``; initialised from ``seed``."""
    from transformers import BertConfig, BertForMaskedLM, BertForPreTraining

    bc = BertConfig(vocab_size=vocab_size, hidden_size=d_model, num_hidden_layers=n_layers,
                    num_attention_heads=n_heads, intermediate_size=4 * d_model,
                    max_position_embeddings=max_positions, type_vocab_size=2)
    torch.manual_seed(seed)
    return (BertForPreTraining if nsp else BertForMaskedLM)(bc)


def build_model(cfg: MiniBertConfig, vocab_size: int):
    """The untrained mini-BERT of ``cfg`` (a ``BertForMaskedLM``)."""
    return new_bert(vocab_size, cfg.n_layers, cfg.n_heads, cfg.d_model, seed=cfg.seed)


class Checkpoints:
    """Callback of :func:`train_minibert`: at each step of ``steps`` save the model and tokenizer to
    ``root/step_<N>/`` and record the held-out MLM accuracy in ``evals``; resumable (``state_dict``)."""

    def __init__(self, root: Path, steps: set[int], tok, held_texts: list[str]) -> None:
        self.root, self.steps, self.tok, self.held_texts = root, steps, tok, held_texts
        self.evals: list[dict] = []

    def on_step_end(self, step: int, loss: float, view) -> None:
        if step not in self.steps:
            return
        m = view.model
        out = self.root / f"step_{step:06d}"
        m.save_pretrained(out)
        self.tok.save_pretrained(out)
        # 80/10/10 corruption and unbucketed batches: the measure this curve has always used
        acc = masked_accuracy(m, self.tok, self.held_texts, corruption="80/10/10", bucket=0)
        self.evals.append({"step": step, "loss": loss, "mlm_acc": acc})
        m.train()

    def state_dict(self) -> dict:
        return {"evals": self.evals}

    def load_state_dict(self, state: dict) -> None:
        """Resume: keep the checkpoints recorded in ``state``; one written after it may be half-written."""
        self.evals = list(state["evals"])
        kept = {f"step_{e['step']:06d}" for e in self.evals}
        for folder in self.root.glob("step_*"):
            if folder.name not in kept:
                shutil.rmtree(folder)


def train_minibert(cfg: MiniBertConfig, cache: ArtifactCache | None = None, progress: bool = True,
                   resume_every: int = RESUME_EVERY) -> Path:
    """Train (or fetch from the cache) the mini-BERT for ``cfg``; returns its cache folder.

    The folder holds ``final/`` and ``checkpoints/step_<N>/`` (HF model folders
    with the tokenizer) and ``history.json`` (losses, held-out MLM accuracy at
    each checkpoint, wall time, and ``resumed_from``, the step a killed build was resumed from).

    A killed training resumes: every ``resume_every`` steps and at each kept checkpoint the training
    state goes to the entry's scratch folder (:meth:`~bertology_lib.cache.ArtifactCache.scratch_path`),
    and the next build continues from the last one, with exactly the weights and losses of an
    uninterrupted run (same threads and stack). ``resume_every=0`` turns this off. It changes neither
    the cache key nor the trained weights.
    """
    check_int("resume_every", resume_every, minimum=0)
    cache = cache or ArtifactCache()

    def build(folder: Path, scratch: Path | None = None) -> None:
        tok = tokenizer_for(cfg)
        train_s, held = corpus(cfg)
        model = build_model(cfg, len(tok))
        work = scratch if scratch is not None else folder  # kept checkpoints survive a kill in the scratch
        ckpts = Checkpoints(work / "checkpoints", set(cfg.checkpoint_steps()), tok, [s.text for s in held])
        resume = Resume(scratch / "train", every=resume_every, at=tuple(ckpts.steps)) if scratch is not None else None
        tc = TrainConfig(lr=cfg.lr, weight_decay=cfg.weight_decay, warmup_steps=cfg.warmup_steps,
                         max_steps=cfg.max_steps, batch_size=cfg.batch_size, seq_len=64,
                         schedule="linear", min_lr_ratio=0.0, seed=cfg.seed, device=cfg.device)
        objective = MLMObjective(mask_prob=cfg.mask_prob, unit="word", seq_len=64, bucket=50)
        batches = mlm_batches([s.text for s in train_s], tok, objective, cfg.batch_size, seed=cfg.seed)
        result = pretrain_mlm(model, batches, tc, callbacks=[ckpts], progress=progress, desc="mini-BERT",
                              resume=resume)
        if work != folder:
            os.replace(work / "checkpoints", folder / "checkpoints")
        model.save_pretrained(folder / "final")
        tok.save_pretrained(folder / "final")
        (folder / "history.json").write_text(json.dumps(
            {"losses": result.losses, "evals": ckpts.evals, "seconds": result.seconds,
             "n_params": sum(p.numel() for p in model.parameters()),
             "resumed_from": result.extra.get("resumed_from", 0)}, indent=1))

    return cache.get_or_create(KIND, cfg.to_dict(), build, scratch=resume_every > 0)


def history(folder: Path) -> dict:
    return json.loads((Path(folder) / "history.json").read_text())


def checkpoints(folder: Path) -> list[tuple[int, Path]]:
    """(step, folder) of every kept checkpoint, in training order."""
    out = [(int(p.name.split("_")[1]), p) for p in (Path(folder) / "checkpoints").iterdir()]
    return sorted(out)


def load(cfg: MiniBertConfig, head: str = "mlm", step: int | None = None, cache: ArtifactCache | None = None):
    """(model, tokenizer) of the trained mini-BERT (final, or the checkpoint at ``step``), eager attention."""
    from transformers import AutoModel, AutoModelForMaskedLM, AutoTokenizer

    folder = train_minibert(cfg, cache)
    path = folder / "final" if step is None else folder / "checkpoints" / f"step_{step:06d}"
    if not path.is_dir():
        steps = [s for s, _ in checkpoints(folder)]
        raise ParameterError(f"step={step} has no checkpoint; allowed: {steps}")
    loader = AutoModelForMaskedLM if head == "mlm" else AutoModel
    model = loader.from_pretrained(path, attn_implementation="eager").eval()
    return model, AutoTokenizer.from_pretrained(path)


def steps_per_epoch(cfg: MiniBertConfig) -> float:
    return (cfg.n_sentences - cfg.heldout) / cfg.batch_size


def epochs(cfg: MiniBertConfig) -> float:
    return cfg.max_steps / math.ceil(steps_per_epoch(cfg))
