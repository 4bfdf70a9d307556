"""The embedded mini-BERT: a small ``BertForMaskedLM`` trained on toy English.

What the mini-BERT *is*: its config per profile (:class:`MiniBertConfig`, dimensions included), its corpus
and held-out sentences, its word-level tokenizer, the untrained model of a config, and how to read a trained
one's folder (:func:`history`, :func:`checkpoints`). It is trained once per config by
:func:`bertology_lib.training.minibert.train_minibert` through the one MLM pre-training pipeline, cached
with its checkpoints through training (so that the survey notebooks can show phenomena *across training
time*), its tokenizer and its learning curve; that module also registers the name ``mini-bert`` with the
model registry. Every survey notebook that asks for ``model="mini-bert"`` shares the same cached model.

Used by the survey §3–§7 and layer-duplication notebooks.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Any, ClassVar

import torch

from bertology_lib.cache import config_key
from bertology_lib.data.toy_english import ToyEnglishConfig, generate_corpus, vocabulary
from bertology_lib.errors import ParameterError
from bertology_lib.models.tokenization import build_word_tokenizer
from bertology_lib.profiles import SizeTable
from bertology_lib.runtime import DTYPES
from bertology_lib.validation import check_choice, check_float, check_int

NAME = "mini-bert"


@dataclass(frozen=True)
class MiniBertConfig(SizeTable):
    """Everything that determines a trained mini-BERT (its cache key); sizes per profile in ``SIZES``:
    smoke (seconds), quick (12,000 steps: about 26 min at one thread, benchmarks/README.md), full (BERT-base size,
    GPU).

    ``dtype``: at quick and full the forward pass runs under bfloat16 autocast where the hardware has bfloat16
    units (``"auto"``, :func:`bertology_lib.runtime.resolve_dtype`; master weights and saved model in float32):
    1.27x less time for a whole unit on this CPU, held-out masked-word accuracy unchanged (benchmarks/README.md,
    "Survey + duplication cold, simulated"); smoke trains in float32."""

    SIZES: ClassVar[dict[str, dict[str, Any]]] = {
        "smoke": dict(
            n_sentences=1500,
            n_layers=2,
            n_heads=2,
            d_model=32,
            max_steps=30,
            batch_size=16,
            warmup_steps=5,
            n_checkpoints=3,
            heldout=200,
            dtype="float32",
        ),
        "quick": dict(),
        "full": dict(
            n_sentences=1_000_000,
            vocab_size=5000,
            n_layers=12,
            n_heads=12,
            d_model=768,
            max_steps=100_000,
            batch_size=128,
            lr=1e-4,
            warmup_steps=10_000,
            n_checkpoints=12,
            heldout=5000,
            device="auto",
        ),
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
    dtype: str = "auto"  # of training: bfloat16 autocast where the hardware has bfloat16 units, else float32
    device: str = "cpu"

    def __post_init__(self) -> None:
        check_choice("dtype", self.dtype, DTYPES)
        for name in (
            "n_sentences",
            "vocab_size",
            "n_layers",
            "n_heads",
            "d_model",
            "max_steps",
            "batch_size",
            "n_checkpoints",
            "heldout",
        ):
            check_int(name, getattr(self, name), minimum=1)
        check_int("seed", self.seed, minimum=0)
        if self.d_model % self.n_heads:
            raise ParameterError(
                f"d_model={self.d_model} is not divisible by n_heads={self.n_heads}; "
                "allowed: d_model a multiple of n_heads"
            )
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

    def key(self) -> dict:
        """Every field but ``device`` (:func:`~bertology_lib.cache.config_key`): dimensions, corpus, training."""
        return config_key(self, leave_out=("device",))

    def checkpoint_steps(self) -> list[int]:
        """Log-spaced steps at which a checkpoint is kept (always including the last)."""
        n = self.n_checkpoints
        steps = {max(1, round(self.max_steps ** ((i + 1) / n))) for i in range(n)}
        return sorted(steps | {self.max_steps})


def corpus(cfg: MiniBertConfig):
    """(train, heldout) toy-English sentences; deterministic, regenerated in about a second."""
    sents = generate_corpus(cfg.corpus_config())
    return sents[: -cfg.heldout], sents[-cfg.heldout :]


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


def new_bert(
    vocab_size: int,
    n_layers: int,
    n_heads: int,
    d_model: int,
    seed: int = 0,
    max_positions: int = 64,
    nsp: bool = False,
):
    """A freshly initialised mini-BERT shape (MLP 4 x d_model): ``BertForMaskedLM``, or ``BertForPreTraining``
    (MLM + next-sentence heads) with ``nsp``; initialised from ``seed``."""
    from transformers import BertConfig, BertForMaskedLM, BertForPreTraining

    bc = BertConfig(
        vocab_size=vocab_size,
        hidden_size=d_model,
        num_hidden_layers=n_layers,
        num_attention_heads=n_heads,
        intermediate_size=4 * d_model,
        max_position_embeddings=max_positions,
        type_vocab_size=2,
    )
    torch.manual_seed(seed)
    return (BertForPreTraining if nsp else BertForMaskedLM)(bc)


def build_model(cfg: MiniBertConfig, vocab_size: int):
    """The untrained mini-BERT of ``cfg`` (a ``BertForMaskedLM``)."""
    return new_bert(vocab_size, cfg.n_layers, cfg.n_heads, cfg.d_model, seed=cfg.seed)


def history(folder: Path) -> dict:
    return json.loads((Path(folder) / "history.json").read_text())


def checkpoints(folder: Path) -> list[tuple[int, Path]]:
    """(step, folder) of every kept checkpoint, in training order."""
    out = [(int(p.name.split("_")[1]), p) for p in (Path(folder) / "checkpoints").iterdir()]
    return sorted(out)


def steps_per_epoch(cfg: MiniBertConfig) -> float:
    return (cfg.n_sentences - cfg.heldout) / cfg.batch_size


def epochs(cfg: MiniBertConfig) -> float:
    return cfg.max_steps / math.ceil(steps_per_epoch(cfg))
