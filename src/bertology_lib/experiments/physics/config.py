"""The settings of a Physics of Language Models 3.1 run (Allen-Zhu & Li 2023, arXiv 2309.14316).

:class:`PhysicsConfig` determines a run (and keys its cache entries): the bioS dataset (augmentation,
people, celebrities), the decoder size, pretraining / fine-tuning / mixed-training settings. Its
``SIZES`` give smoke, quick (2-core CPU) and full (the paper's recipe, GPU). Tokenizers: the word-level
bioS tokenizer (:func:`bios_tokenizer`) or any HF tokenizer (:func:`get_tokenizer`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import asdict, dataclass
from functools import lru_cache
from typing import Any

from bertology_lib.data import bios
from bertology_lib.errors import ParameterError
from bertology_lib.models.decoder import DECODER_SIZES, MAX_CONTEXT
from bertology_lib.models.registry import quiet_hf
from bertology_lib.models.tokenization import build_word_tokenizer
from bertology_lib.profiles import SizeTable
from bertology_lib.training.loop import TrainConfig
from bertology_lib.validation import check_bool, check_choice, check_fraction, check_int


PACKINGS: tuple[str, ...] = ("stream", "whole", "repack")
FILLERS: tuple[str, ...] = ("shuffled", "brown")
BROWN_WORDS = 5000  # the "word+brown" tokenizer adds the Brown training split's most frequent words (rarer ones: <unk>)


@dataclass(frozen=True)
class PhysicsConfig(SizeTable):
    """Everything that determines a Physics-3.1 run; build it with :meth:`for_profile`.

    Pretraining uses ``lr``/``weight_decay``/``warmup_steps`` (warmup + cosine to 0.1 x lr) for
    ``pretrain_steps`` of ``batch_size`` windows of ``seq_len`` tokens. QA fine-tuning uses the
    ``finetune_*`` fields (LoRA trains at ``lora_lr``: low-rank updates want a larger step) and picks
    the checkpoint with the best accuracy on ``val_fraction`` of the QA-train people. Mixed training runs ``mixed_steps`` with a ``qa_share`` of rows from QA windows.
    ``n_minority`` > 0 selects the celebrity setup (see :func:`bertology_lib.data.bios.celebrity_dataset`).
    ``packing``: how biographies fill the pretraining windows (``stream``: back to back and cut every
    ``seq_len`` tokens, so a biography cut at a window edge loses its name for the values after the cut;
    ``whole``: :func:`bertology_lib.training.objectives.pack_whole`, no biography is cut; both pack once, so every
    biography keeps its window, offset and neighbours for the whole run; ``repack``: packed whole anew every
    epoch, :class:`~bertology_lib.experiments.physics.training.RepackBatches`, pretraining only).
    ``people_per_value``: pools that scale with N (:meth:`bertology_lib.data.bios.BioConfig.pool_sizes`), so a
    classifier probe sees every class in training; 0 keeps the paper's pools.
    ``embedding_lr``: multiplier of ``lr`` for the (tied) embedding matrix in pretraining and mixed training
    (:class:`~bertology_lib.training.loop.TrainConfig`), not in fine-tuning.
    ``filler_bios``: extra pretraining text with no facts a question asks about (the celebrity run's control,
    :func:`bertology_lib.experiments.physics.training.filler_texts`); 0 adds none. ``filler``: what that text is
    (``shuffled``: word-shuffled biographies of other people; ``brown``: as many tokens of the Brown corpus, real
    English with no facts about anyone in the dataset, read through the ``word+brown`` tokenizer).
    """

    augmentation: str = "multi5+permute"
    n_people: int = 500
    model_size: str = "small"
    seq_len: int = 128
    batch_size: int = 32
    lr: float = 1e-3
    embedding_lr: float = 1.0  # x lr for the tied embedding matrix in pretraining / mixed training
    weight_decay: float = 0.1
    warmup_steps: int = 100
    pretrain_steps: int = 2000
    finetune_steps: int = 500
    finetune_lr: float = 1e-3
    finetune_weight_decay: float = 0.01
    finetune_batch_size: int = 32
    finetune_eval_every: int = 100
    mixed_steps: int = 2000
    bert_steps: int = 2000  # the BERT's pretraining steps (physics_06), at the decoder's tokens per step
    bert_mask_prob: float = 0.15  # share of words the BERT masks (whole-word masking)
    qa_share: float = 0.5
    lora: bool = False
    lora_rank: int = 8
    lora_lr: float = 1e-3
    val_fraction: float = 0.1
    n_minority: int = 0
    seed: int = 0
    device: str = "cpu"  # not part of cache keys
    dtype: str = "float32"
    tokenizer: str = "word"  # "word" (our word-level tokenizer) or a tokenizer folder / hub name (e.g. GPT-2 BPE)
    packing: str = "stream"  # "stream": biographies back to back, cut into windows; "whole": no biography is cut
    people_per_value: int = 0  # 0: the paper's pools; k: pools of ceil(n_people / k) values (BioConfig.pool_sizes)
    filler_bios: int = 0  # extra word-shuffled biographies of other people in pretraining (training.filler_texts)
    filler: str = (
        "shuffled"  # what filler_bios adds: "shuffled" biographies or "brown" (real English, training.filler_texts)
    )

    def __post_init__(self) -> None:
        self.bio_config()  # validates augmentation, n_people, n_minority, seed (messages name the value)
        check_choice("model_size", self.model_size, tuple(DECODER_SIZES))
        check_int("seq_len", self.seq_len, 1, MAX_CONTEXT)
        check_fraction("qa_share", self.qa_share, open_min=False, open_max=False)
        check_fraction("val_fraction", self.val_fraction)
        check_int("lora_rank", self.lora_rank, minimum=1)
        check_bool("lora", self.lora)
        check_choice("packing", self.packing, PACKINGS)
        check_choice("filler", self.filler, FILLERS)
        check_int("filler_bios", self.filler_bios, minimum=0)
        check_int("bert_steps", self.bert_steps, minimum=1)
        check_fraction("bert_mask_prob", self.bert_mask_prob)
        if not isinstance(self.tokenizer, str) or not self.tokenizer.strip():
            raise ParameterError(
                f"tokenizer={self.tokenizer!r} is invalid; allowed: 'word' or a tokenizer folder / "
                "hub name (e.g. a GPT-2 BPE tokenizer)"
            )
        for tc in (
            self.pretrain_train_config(),
            self.finetune_train_config(False),
            self.finetune_train_config(True),
            self.mixed_train_config(),
        ):
            del tc  # constructing them validated steps, lrs, batch sizes, device and dtype

    @classmethod
    def for_profile(cls, profile: str, **overrides: Any) -> PhysicsConfig:
        """Sizes for ``smoke`` (seconds), ``quick`` (minutes on a 2-core CPU) or ``full`` (paper scale, GPU).

        ``full`` follows the paper's pretraining recipe (AdamW wd 0.1, lr 1e-3, warmup + cosine,
        batch 96, context 512, N = 100k, GPT-2-small size); its fine-tuning lengths are ours.
        """
        return super().for_profile(profile, **overrides)

    def replace(self, **changes: Any) -> PhysicsConfig:
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict:
        return asdict(self)

    # -- derived configs ------------------------------------------------------------------------
    def bio_config(self) -> bios.BioConfig:
        return bios.BioConfig.from_augmentation(
            self.augmentation,
            self.n_people,
            seed=self.seed,
            n_minority=self.n_minority,
            people_per_value=self.people_per_value,
        )

    def dataset(self) -> bios.BioDataset:
        return _dataset(self.bio_config())

    def pretrain_train_config(self) -> TrainConfig:
        return TrainConfig(
            lr=self.lr,
            embedding_lr=self.embedding_lr,
            weight_decay=self.weight_decay,
            warmup_steps=self.warmup_steps,
            max_steps=self.pretrain_steps,
            batch_size=self.batch_size,
            seq_len=self.seq_len,
            schedule="cosine",
            seed=self.seed,
            device=self.device,
            dtype=self.dtype,
        )

    def finetune_train_config(self, lora: bool | None = None) -> TrainConfig:
        """QA fine-tuning settings; ``lora`` (default ``self.lora``) trains at ``lora_lr`` instead of ``finetune_lr``."""
        lora = self.lora if lora is None else lora
        return TrainConfig(
            lr=self.lora_lr if lora else self.finetune_lr,
            weight_decay=self.finetune_weight_decay,
            warmup_steps=min(self.warmup_steps, self.finetune_steps // 10),
            max_steps=self.finetune_steps,
            batch_size=self.finetune_batch_size,
            seq_len=self.seq_len,
            schedule="cosine",
            eval_every=self.finetune_eval_every,
            seed=self.seed,
            device=self.device,
            dtype=self.dtype,
        )

    def mixed_train_config(self) -> TrainConfig:
        return dataclasses.replace(self.pretrain_train_config(), max_steps=self.mixed_steps)


PhysicsConfig.SIZES = {
    "smoke": dict(
        n_people=20,
        model_size="tiny",
        seq_len=128,
        batch_size=8,
        warmup_steps=5,
        pretrain_steps=30,
        finetune_steps=20,
        finetune_batch_size=8,
        finetune_eval_every=10,
        mixed_steps=30,
        bert_steps=30,
        device="cpu",
        packing="whole",
        people_per_value=10,
        embedding_lr=10.0,
    ),
    # Calibrated 2026-12-01 (2-core box, 1 thread, one seed; benchmarks/README.md, "Physics at
    # quick"): whole-biography packing (stream packing cut 23% of single's values from their name) and pools
    # that scale with N (10 people per value: 30 values per pooled attribute at N = 300, so a classifier probe
    # sees every class). Small decoder, 2000 steps of 16 x 128 tokens (42 epochs of multi5+permute, 213 of
    # single; 9 min at 1 thread, ~4.2 min at 2): memorised (first token after the name) multi5+permute 0.98,
    # single 0.946 (birth date, the value right after the name, 0.78; the others >= 0.95). QA fine-tuning
    # at lr 1e-4 (validation people: 0.756 vs 0.656 at 3e-5; 3e-4 picks its step-75 checkpoint, overfitting):
    # multi5+permute QA-test 0.69, single 0.06 (majority 0.05). The tiny decoder (3000 steps) memorises
    # (0.97) but extracts nothing (0.06): width, not only passes, buys extraction. N = 200 at the same steps
    # memorises more (0.99) but extracts less (0.60): fewer QA-train people.
    # Embedding matrix at 10 x lr (2026-12-02, benchmarks/README.md, "The embeddings' learning rate"): the value right
    # after the name rises from ~0.75 to ~0.98 in single; permute1 (two seeds) and multi2+permute go from failing the
    # memorisation bar to passing it, multi5+permute and fullname pass as before, single stays at the bar.
    # Full fine-tuning at lr 1e-3 (2026-12-02, benchmarks/README.md, "Physics: the full fine-tuning rate"; chosen on
    # validation people): with the faster embeddings, 1e-4 extracted 0.19-0.69 from multi5+permute, 1e-3 0.95.
    # The BERT at 4 x the decoder's steps and 40% masked words (2026-12-03, benchmarks/README.md, "The physics BERT"):
    # at the decoder's 2,000 steps it memorised 0.05 (15%) or 0.13 (40%) of its biographies' values; at 8,000
    # steps and 40%, 0.960. A BERT learns only from its masked words, so at 15% each value is a target in about
    # one reading in seven; `full` keeps the paper's 15% at the decoder's steps.
    # Re-packed every epoch, N = 600, pools of N / 40 values (2026-12-05, benchmarks/README.md, "Physics: fixed windows
    # are memorised, not names" and "Physics: the re-packed recipe"): with the packing fixed once, the decoders memorised
    # their windows rather than the people (single stayed at the memorisation bar); re-packed, every model stores
    # every sampled value (0.99-1.00). At N = 300 the re-packed multi5+permute extracted 0.46 / 0.90 (seeds 0 / 1) at
    # lr 3e-3 and 0.77 / 0.49 at 1e-3; N = 600 with 40 people per value (so every probe class has >= 20 probe-training
    # people) extracted 0.83 / 0.90, chosen on validation people (0.81 / 0.91); single 0.14, permute1 0.21.
    # The BERT's profile arm at 16,600 steps (2026-12-05, benchmarks/README.md, "Physics: the BERT's profile arm at
    # N = 600 needs twice the steps"): at N = 600 and 8,000 steps multi5+permute stored 0.859 of its values (under the bar); at
    # 16,600 (twice the steps per biography of the N = 300 calibration above), 0.986.
    "quick": dict(
        n_people=600,
        model_size="small",
        seq_len=128,
        batch_size=16,
        lr=3e-3,
        embedding_lr=10.0,
        warmup_steps=60,
        pretrain_steps=2000,
        finetune_steps=300,
        finetune_lr=1e-3,
        finetune_batch_size=32,
        finetune_eval_every=25,
        mixed_steps=4000,
        bert_steps=16_600,
        bert_mask_prob=0.4,
        device="cpu",
        packing="repack",
        people_per_value=40,
    ),
    "full": dict(
        n_people=100_000,
        model_size="full",
        seq_len=512,
        batch_size=96,
        lr=1e-3,
        weight_decay=0.1,
        warmup_steps=1000,
        pretrain_steps=80_000,
        finetune_steps=20_000,
        finetune_lr=3e-4,
        finetune_batch_size=96,
        finetune_eval_every=2000,
        mixed_steps=160_000,
        bert_steps=80_000,
        lora_rank=16,
        device="auto",
        dtype="bfloat16",
    ),
}


@lru_cache(maxsize=4)
def _dataset(config: bios.BioConfig) -> bios.BioDataset:
    return bios.generate_dataset(config)


def bios_tokenizer():
    """The word-level GPT tokenizer over the whole bioS vocabulary (same for every dataset)."""
    return build_word_tokenizer(bios.vocabulary(), kind="gpt")


@lru_cache(maxsize=1)
def brown_words(n: int = BROWN_WORDS) -> tuple[str, ...]:
    """The ``n`` most frequent words of the Brown corpus's training split that the bioS vocabulary lacks (ties
    by first occurrence), split as the word tokenizer splits text."""
    import collections

    from bertology_lib.data import english

    known = set(bios.vocabulary())
    counts: collections.Counter = collections.Counter()
    for doc in english.load_english("brown", "train"):
        for text in doc.texts():
            counts.update(w for w in bios.words(text) if w not in known)
    return tuple(w for w, _ in counts.most_common(n))


def bios_brown_tokenizer():
    """The bioS word tokenizer (same ids for every bioS word) extended by :func:`brown_words`: the tokenizer of a
    run whose filler is real English (``PhysicsConfig.filler == "brown"``)."""
    return build_word_tokenizer([*bios.vocabulary(), *brown_words()], kind="gpt")


def get_tokenizer(name: str = "word"):
    """The tokenizer a config names: ``"word"`` (:func:`bios_tokenizer`), ``"word+brown"``
    (:func:`bios_brown_tokenizer`) or any HF tokenizer by folder / hub name (GPT-2 BPE and the like), given a
    pad token (its EOS) if it has none.

    Subword tokenizers train and answer QA like the word-level one; the probes of
    :mod:`bertology_lib.experiments.physics.probing` locate positions by words and need ``"word"``.
    """
    if name == "word":
        return bios_tokenizer()
    if name == "word+brown":
        return bios_brown_tokenizer()
    from transformers import AutoTokenizer

    with quiet_hf():
        tok = AutoTokenizer.from_pretrained(name)
    if tok.eos_token_id is None:
        raise ParameterError(
            f"tokenizer={name!r} has no EOS token; allowed: a causal-LM tokenizer with one (GPT-2 has)"
        )
    if tok.pad_token_id is None:
        tok.pad_token = tok.eos_token
    return tok


def vocab_id(tokenizer) -> str:
    """A hash of a tokenizer's vocabulary (token -> id), for cache keys."""
    vocab = json.dumps(sorted(tokenizer.get_vocab().items()), ensure_ascii=False)
    return hashlib.sha256(vocab.encode()).hexdigest()[:16]


def tokenizer_id(name: str) -> dict:
    """Identity of a tokenizer for cache keys: its name and a hash of its vocabulary."""
    return {"name": name, "vocab_sha": vocab_id(get_tokenizer(name))}
