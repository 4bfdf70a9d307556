"""Physics of Language Models 3.1 (Allen-Zhu & Li 2023, arXiv 2309.14316): the pipeline core.

Used by the physics_* notebooks. Builds on :mod:`bertology_lib.data.bios` (people, biographies, QA),
:mod:`bertology_lib.models.tokenization` (word-level tokenizer) and :mod:`bertology_lib.training.loop` (the loop):

* :func:`pretrain` -- a Llama-style decoder (rotary positions) trained from scratch on the BIO texts
  (causal LM on packed windows, EOS between biographies);
* :func:`finetune_qa` -- then QA fine-tuning on QA-train people (full, or LoRA on q/v plus trainable
  embeddings as in the paper), model selection on a validation split of QA-train people;
* :func:`mixed_train` -- BIO and QA-train QA in one run from scratch;
* :func:`evaluate_qa` -- exact-match accuracy of greedy answers per attribute, with the majority baseline.

Trained models are cached (:class:`bertology_lib.cache.ArtifactCache`): each entry is a plain HF folder
(``save_pretrained`` model + tokenizer) with ``physics_config.json`` and ``train_log.json`` beside it;
load one with :func:`load_model`. Nothing is pickled.
"""

from __future__ import annotations

import dataclasses
import hashlib
import inspect
import json
import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import torch

from bertology_lib.training import loop as training
from bertology_lib.cache import ArtifactCache, save_json
from bertology_lib.data import bios
from bertology_lib.profiles import Profile, get_profile
from bertology_lib.models.tokenization import build_word_tokenizer

PIPELINE_VERSION = 1  # bump when training/eval code changes what a cached model would be

# d_head 32 for the CPU sizes, GPT-2-small shape for "full"; MLP width 8/3 * d_model (SwiGLU has three
# matrices, so this matches GPT-2's 4 * d_model two-matrix MLP in parameters).
DECODER_SIZES: dict[str, dict[str, int]] = {
    "tiny": dict(hidden_size=64, num_hidden_layers=2, num_attention_heads=2, intermediate_size=176),
    "small": dict(hidden_size=128, num_hidden_layers=2, num_attention_heads=4, intermediate_size=344),
    "base": dict(hidden_size=256, num_hidden_layers=4, num_attention_heads=8, intermediate_size=688),
    "full": dict(hidden_size=768, num_hidden_layers=12, num_attention_heads=12, intermediate_size=2048),
}
MAX_CONTEXT = 512


def decoder_config(size: str, vocab_size: int, **overrides: Any):
    """A ``transformers.LlamaConfig`` (rotary positions, tied embeddings) for one of :data:`DECODER_SIZES`.

    tiny: d_model 64 x 2 layers (tests); small: 128 x 2 (~0.8M parameters with the bioS vocabulary);
    base: 256 x 4; full: 768 x 12 layers x 12 heads, context 512 (GPT-2-small size, as in the paper).
    Special-token ids follow :func:`bertology_lib.models.tokenization.build_word_tokenizer` (kind "gpt").
    """
    if size not in DECODER_SIZES:
        raise ValueError(f"size={size!r} is unknown; allowed: {', '.join(DECODER_SIZES)}")
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, int) or vocab_size < 1:
        raise ValueError(f"vocab_size={vocab_size!r} is invalid; allowed: an int >= 1")
    from transformers import LlamaConfig

    kw: dict[str, Any] = dict(
        vocab_size=vocab_size, max_position_embeddings=MAX_CONTEXT, tie_word_embeddings=True,
        pad_token_id=0, bos_token_id=2, eos_token_id=3, attention_dropout=0.0, initializer_range=0.02,
        **DECODER_SIZES[size],
    )
    kw.update(overrides)
    return LlamaConfig(**kw)


@dataclass(frozen=True)
class PhysicsConfig:
    """Everything that determines a Physics-3.1 run; build it with :meth:`for_profile`.

    Pretraining uses ``lr``/``weight_decay``/``warmup_steps`` (warmup + cosine to 0.1 x lr) for
    ``pretrain_steps`` of ``batch_size`` windows of ``seq_len`` tokens. QA fine-tuning uses the
    ``finetune_*`` fields (LoRA trains at ``lora_lr``: low-rank updates want a larger step) and picks
    the checkpoint with the best accuracy on ``val_fraction`` of the QA-train people. Mixed training runs ``mixed_steps`` with a ``qa_share`` of rows from QA windows.
    ``n_minority`` > 0 selects the celebrity setup (see :func:`bertology_lib.data.bios.celebrity_dataset`).
    """

    augmentation: str = "multi5+permute"
    n_people: int = 500
    model_size: str = "small"
    seq_len: int = 128
    batch_size: int = 32
    lr: float = 1e-3
    weight_decay: float = 0.1
    warmup_steps: int = 100
    pretrain_steps: int = 2000
    finetune_steps: int = 500
    finetune_lr: float = 1e-3
    finetune_weight_decay: float = 0.01
    finetune_batch_size: int = 32
    finetune_eval_every: int = 100
    mixed_steps: int = 2000
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

    def __post_init__(self) -> None:
        self.bio_config()  # validates augmentation, n_people, n_minority, seed (messages name the value)
        if self.model_size not in DECODER_SIZES:
            raise ValueError(f"model_size={self.model_size!r} is unknown; allowed: {', '.join(DECODER_SIZES)}")
        if isinstance(self.seq_len, bool) or not isinstance(self.seq_len, int) or not 1 <= self.seq_len <= MAX_CONTEXT:
            raise ValueError(f"seq_len={self.seq_len!r} is out of range; allowed: 1..{MAX_CONTEXT}")
        if not 0.0 <= self.qa_share <= 1.0:
            raise ValueError(f"qa_share={self.qa_share!r} is out of range; allowed: 0 <= qa_share <= 1")
        if not 0.0 < self.val_fraction < 1.0:
            raise ValueError(f"val_fraction={self.val_fraction!r} is out of range; allowed: 0 < val_fraction < 1")
        if isinstance(self.lora_rank, bool) or not isinstance(self.lora_rank, int) or self.lora_rank < 1:
            raise ValueError(f"lora_rank={self.lora_rank!r} is invalid; allowed: an int >= 1")
        if not isinstance(self.lora, bool):
            raise ValueError(f"lora={self.lora!r} is invalid; allowed: True or False")
        if not isinstance(self.tokenizer, str) or not self.tokenizer.strip():
            raise ValueError(f"tokenizer={self.tokenizer!r} is invalid; allowed: 'word' or a tokenizer folder / "
                             "hub name (e.g. a GPT-2 BPE tokenizer)")
        for tc in (self.pretrain_train_config(), self.finetune_train_config(False), self.finetune_train_config(True),
                   self.mixed_train_config()):
            del tc  # constructing them validated steps, lrs, batch sizes, device and dtype

    @classmethod
    def for_profile(cls, profile: str | Profile, **overrides: Any) -> PhysicsConfig:
        """Sizes for ``smoke`` (seconds), ``quick`` (minutes on a 2-core CPU) or ``full`` (paper scale, GPU).

        ``full`` follows the paper's pretraining recipe (AdamW wd 0.1, lr 1e-3, warmup + cosine,
        batch 96, context 512, N = 100k, GPT-2-small size); its fine-tuning lengths are ours.
        """
        name = profile.name if isinstance(profile, Profile) else get_profile(profile).name
        unknown = sorted(set(overrides) - {f.name for f in dataclasses.fields(cls)})
        if unknown:
            raise ValueError(f"unknown PhysicsConfig field(s) {', '.join(unknown)}; allowed: "
                             f"{', '.join(f.name for f in dataclasses.fields(cls))}")
        return cls(**{**_PROFILE_SIZES[name], **overrides})

    def replace(self, **changes: Any) -> PhysicsConfig:
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict:
        return asdict(self)

    # -- derived configs ------------------------------------------------------------------------
    def bio_config(self) -> bios.BioConfig:
        return bios.BioConfig.from_augmentation(self.augmentation, self.n_people, seed=self.seed,
                                                n_minority=self.n_minority)

    def dataset(self) -> bios.BioDataset:
        return _dataset(self.bio_config())

    def pretrain_train_config(self) -> training.TrainConfig:
        return training.TrainConfig(
            lr=self.lr, weight_decay=self.weight_decay, warmup_steps=self.warmup_steps,
            max_steps=self.pretrain_steps, batch_size=self.batch_size, seq_len=self.seq_len,
            schedule="cosine", seed=self.seed, device=self.device, dtype=self.dtype)

    def finetune_train_config(self, lora: bool | None = None) -> training.TrainConfig:
        """QA fine-tuning settings; ``lora`` (default ``self.lora``) trains at ``lora_lr`` instead of ``finetune_lr``."""
        lora = self.lora if lora is None else lora
        return training.TrainConfig(
            lr=self.lora_lr if lora else self.finetune_lr, weight_decay=self.finetune_weight_decay,
            warmup_steps=min(self.warmup_steps, self.finetune_steps // 10), max_steps=self.finetune_steps,
            batch_size=self.finetune_batch_size, seq_len=self.seq_len, schedule="cosine",
            eval_every=self.finetune_eval_every, seed=self.seed, device=self.device, dtype=self.dtype)

    def mixed_train_config(self) -> training.TrainConfig:
        return dataclasses.replace(self.pretrain_train_config(), max_steps=self.mixed_steps)


_PROFILE_SIZES: dict[str, dict[str, Any]] = {
    "smoke": dict(n_people=20, model_size="tiny", seq_len=64, batch_size=8, warmup_steps=5,
                  pretrain_steps=30, finetune_steps=20, finetune_batch_size=8, finetune_eval_every=10,
                  mixed_steps=30, device="cpu"),
    # Calibrated on a shared 2-core box, 1 thread, in 6 pretraining runs (one seed each unless said):
    # 16 x 128-token windows per step cost ~0.19 s (~9k tokens/s), so 1200 steps = 3.7 min. N=300
    # multi5+permute packs into 663 windows: 29 epochs, 145 exposures per fact, final BIO loss 0.025.
    # Then full fine-tuning at lr 3e-4 for 300 steps (~12 epochs of QA-fit), selected on validation
    # people: QA-test mean 64% (seed 0) / 46% (seed 1); bioS single, same settings: 2% (majority 2%).
    # N=500 at the same cost stores less (17 epochs, loss 0.33): 55% (seed 0). lr 1e-3 fine-tuning
    # overfits within 50 steps; LoRA (q/v + embeddings) wants lr ~1e-3 (45% / 40% at seeds 1 / 0).
    # Mixed training gives the biographies the exposures pretraining gives them: with a QA share of 1/2,
    # twice the steps. At 1200 mixed steps (half the exposures) multi5+permute reached 43% / 24% QA-test
    # (seeds 0 / 1) with BIO memorisation still rising; at 2400 steps, 67% (seed 0), 310 s idle.
    "quick": dict(n_people=300, model_size="small", seq_len=128, batch_size=16, lr=3e-3, warmup_steps=60,
                  pretrain_steps=1200, finetune_steps=300, finetune_lr=3e-4, finetune_batch_size=32,
                  finetune_eval_every=25, mixed_steps=2400, device="cpu"),
    "full": dict(n_people=100_000, model_size="full", seq_len=512, batch_size=96, lr=1e-3,
                 weight_decay=0.1, warmup_steps=1000, pretrain_steps=80_000, finetune_steps=20_000,
                 finetune_lr=3e-4, finetune_batch_size=96, finetune_eval_every=2000, mixed_steps=160_000,
                 lora_rank=16, device="auto", dtype="bfloat16"),
}


@lru_cache(maxsize=4)
def _dataset(config: bios.BioConfig) -> bios.BioDataset:
    return bios.generate_dataset(config)


def bios_tokenizer():
    """The word-level GPT tokenizer over the whole bioS vocabulary (same for every dataset)."""
    return build_word_tokenizer(bios.vocabulary(), kind="gpt")


def get_tokenizer(name: str = "word"):
    """The tokenizer a config names: ``"word"`` (:func:`bios_tokenizer`) or any HF tokenizer by folder / hub
    name (GPT-2 BPE and the like), given a pad token (its EOS) if it has none.

    Subword tokenizers train and answer QA like the word-level one; the probes of
    :mod:`bertology_lib.experiments.physics.probing` locate positions by words and need ``"word"``.
    """
    if name == "word":
        return bios_tokenizer()
    from transformers import AutoTokenizer

    _quiet_hf()
    tok = AutoTokenizer.from_pretrained(name)
    if tok.eos_token_id is None:
        raise ValueError(f"tokenizer={name!r} has no EOS token; allowed: a causal-LM tokenizer with one (GPT-2 has)")
    if tok.pad_token_id is None:
        tok.pad_token = tok.eos_token
    return tok


# ----------------------------------------------------------------------------------------------
# Training stages
# ----------------------------------------------------------------------------------------------

def _pretrain_key(cfg: PhysicsConfig) -> dict:
    tc = cfg.pretrain_train_config().to_dict()
    tc.pop("device")
    key = {"version": PIPELINE_VERSION, "bio": cfg.bio_config().to_dict(), "model_size": cfg.model_size,
           "train": tc}
    if cfg.tokenizer != "word":  # keys of word-level runs stay as they were
        key["tokenizer"] = _tokenizer_id(cfg.tokenizer)
    return key


def _tokenizer_id(name: str) -> dict:
    """Identity of a tokenizer for cache keys: its name and a hash of its vocabulary."""
    tok = get_tokenizer(name)
    vocab = json.dumps(sorted(tok.get_vocab().items()), ensure_ascii=False)
    return {"name": name, "vocab_sha": hashlib.sha256(vocab.encode()).hexdigest()[:16]}


def _new_model(cfg: PhysicsConfig, tokenizer):
    from transformers import LlamaForCausalLM

    torch.manual_seed(cfg.seed)  # model init; training reseeds via set_seed
    eos = tokenizer.eos_token_id
    ids = dict(pad_token_id=tokenizer.pad_token_id, eos_token_id=eos,
               bos_token_id=tokenizer.bos_token_id if tokenizer.bos_token_id is not None else eos)
    return LlamaForCausalLM(decoder_config(cfg.model_size, len(tokenizer), **ids))


def bio_windows(dataset: bios.BioDataset, tokenizer, seq_len: int) -> torch.Tensor:
    """(n, seq_len) packed causal-LM windows of the (shuffled) biographies, EOS between them."""
    ids = tokenizer(dataset.texts(), add_special_tokens=False)["input_ids"]
    return training.pack_windows(ids, seq_len, tokenizer.eos_token_id)


def qa_examples(dataset: bios.BioDataset, tokenizer, split: str, val_fraction: float = 0.1
                ) -> list[tuple[list[int], list[int]]]:
    """(input_ids, labels) for every QA pair of a split: ``question answer . <eos>``, loss on ``answer . <eos>``."""
    return [training.encode_qa(tokenizer, p.question, f"{p.answer}.")
            for p in dataset.qa_pairs(split, val_fraction)]


def _quiet_hf() -> None:
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()  # per-shard bars for a 1 MB model are noise


def _save(folder: Path, model, tokenizer, cfg: PhysicsConfig, log: dict) -> None:
    _quiet_hf()
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    save_json(folder / "physics_config.json", cfg.to_dict())
    save_json(folder / "train_log.json", log)


def pretrain(cfg: PhysicsConfig, cache: ArtifactCache | None = None, progress: bool = False) -> Path:
    """Pretrain a decoder on the BIO texts of ``cfg.dataset()``; returns the cached model folder.

    Causal LM on packed windows. A second call with the same config (device aside) reuses the entry.
    """
    cache = cache or ArtifactCache()

    def build(folder: Path) -> None:
        ds, tok = cfg.dataset(), get_tokenizer(cfg.tokenizer)
        model = _new_model(cfg, tok)
        tc = cfg.pretrain_train_config()
        windows = bio_windows(ds, tok, cfg.seq_len)
        res = training.train(model, training.LMBatches(windows, tc.batch_size, seed=cfg.seed), tc,
                             progress=progress, desc="pretrain")
        log = {**res.to_dict(), "n_windows": len(windows), "epochs": res.steps * tc.batch_size / len(windows),
               "n_params": sum(p.numel() for p in model.parameters())}
        _save(folder, model.cpu(), tok, cfg, log)

    return cache.get_or_create("physics-pretrain", _pretrain_key(cfg), build)


def _weights_id(path: Path) -> str:
    """Content id of a saved model (its weights' SHA-256), for keying what is derived from it."""
    path = Path(path)
    manifest = path / "MANIFEST.json"
    if manifest.is_file():
        files = json.loads(manifest.read_text()).get("files", {})
        if "model.safetensors" in files:
            return files["model.safetensors"]["sha256"]
    h = hashlib.sha256()
    with open(path / "model.safetensors", "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _apply_lora(model, rank: int):
    """LoRA on q_proj/v_proj plus a trainable (tied) embedding, as in the paper's LoRA fine-tuning."""
    import warnings

    from peft import LoraConfig, get_peft_model

    with warnings.catch_warnings():  # peft calls a transformers property deprecated in 5.x
        warnings.simplefilter("ignore", FutureWarning)
        peft_model = get_peft_model(model, LoraConfig(r=rank, lora_alpha=2 * rank, lora_dropout=0.0,
                                                      bias="none", target_modules=["q_proj", "v_proj"]))
    peft_model.get_input_embeddings().weight.requires_grad_(True)
    return peft_model


class _KeepBest:
    """Callback: remember the weights with the best validation accuracy (ties go to the later step)."""

    def __init__(self, metric: str) -> None:
        self.metric, self.best, self.step, self.state = metric, -math.inf, 0, None

    def on_eval(self, step: int, metrics: dict, model) -> None:
        if metrics[self.metric] >= self.best:
            self.best, self.step = metrics[self.metric], step
            self.state = {k: v.detach().clone() for k, v in model.state_dict().items()}


def finetune_qa(pretrained_path: str | Path, cfg: PhysicsConfig, lora: bool | None = None,
                cache: ArtifactCache | None = None, progress: bool = False) -> Path:
    """Fine-tune a pretrained decoder on QA of QA-train people; returns the cached model folder.

    ``lora`` (default ``cfg.lora``): full fine-tuning, or LoRA rank ``cfg.lora_rank`` on q_proj/v_proj
    with trainable embeddings, merged into a plain model before saving. The saved weights are those
    with the best exact-match accuracy on the validation people (``cfg.val_fraction`` of QA-train,
    never QA-test), checked every ``cfg.finetune_eval_every`` steps. Training uses the other QA-train
    people ("fit").
    """
    cache = cache or ArtifactCache()
    lora = cfg.lora if lora is None else lora
    pretrained_path = Path(pretrained_path)
    tc = cfg.finetune_train_config(lora)
    tc_key = tc.to_dict()
    tc_key.pop("device")
    key = {"version": PIPELINE_VERSION, "pretrained": _weights_id(pretrained_path),
           "bio": cfg.bio_config().to_dict(), "val_fraction": cfg.val_fraction, "train": tc_key,
           "lora": lora, "lora_rank": cfg.lora_rank if lora else None}

    def build(folder: Path) -> None:
        ds = cfg.dataset()
        model, tok = load_model(pretrained_path)
        if lora:
            model = _apply_lora(model, cfg.lora_rank)
        examples = qa_examples(ds, tok, "fit", cfg.val_fraction)
        keep = _KeepBest("mean")
        has_val = bool(ds.split_people("val", cfg.val_fraction))  # tiny datasets may have no val people

        def eval_fn(m) -> dict:
            table = evaluate_qa(m, tok, ds, "val", val_fraction=cfg.val_fraction)
            return {"mean": float(table.loc["mean", "accuracy"])}

        res = training.train(model, training.QABatches(examples, tc.batch_size, tok.pad_token_id, seed=cfg.seed),
                             tc, callbacks=[keep], eval_fn=eval_fn if has_val else None, progress=progress,
                             desc="finetune")
        if keep.state is not None:
            model.load_state_dict(keep.state)
        if lora:
            model = model.merge_and_unload()
        log = {**res.to_dict(), "best_step": keep.step if has_val else res.steps,
               "best_val_mean": keep.best if has_val else None, "lora": lora,
               "n_examples": len(examples), "epochs": res.steps * tc.batch_size / len(examples),
               "pretrained": str(pretrained_path)}
        _save(folder, model.cpu(), tok, cfg, log)

    return cache.get_or_create("physics-finetune", key, build)


def mixed_train(cfg: PhysicsConfig, cache: ArtifactCache | None = None, progress: bool = False,
                curve_points: int = 10, curve_people: int = 64) -> Path:
    """Train from scratch on BIO windows and QA-train QA in one run; returns the cached model folder.

    Each batch row comes from the QA pool with probability ``cfg.qa_share`` (packed QA texts, loss on
    the answers), else from the BIO windows. QA-test people's QA is never seen. ``curve_points`` times
    during training (0: never) the learning curve of paper Fig. 1b/c is measured on ``curve_people``
    people per split (:func:`curve_metrics`: BIO, QA-train and QA-test accuracy) and stored in the
    ``evals`` of ``train_log.json``; measuring it does not change the training (greedy, no RNG).
    """
    cache = cache or ArtifactCache()
    for name, v, lo in (("curve_points", curve_points, 0), ("curve_people", curve_people, 1)):
        if isinstance(v, bool) or not isinstance(v, int) or v < lo:
            raise ValueError(f"{name}={v!r} is invalid; allowed: an int >= {lo}")
    tc = cfg.mixed_train_config()
    if curve_points:
        tc = dataclasses.replace(tc, eval_every=max(1, tc.max_steps // curve_points))
    key = {**_pretrain_key(cfg), "train": {**tc.to_dict(), "device": None}, "qa_share": cfg.qa_share,
           "curve": [curve_points, curve_people]}

    def build(folder: Path) -> None:
        ds, tok = cfg.dataset(), get_tokenizer(cfg.tokenizer)
        model = _new_model(cfg, tok)
        rng = np.random.default_rng([cfg.seed, 7])
        qa = qa_examples(ds, tok, "train")
        qa = [qa[i] for i in rng.permutation(len(qa)).tolist()]  # shuffle before packing
        pools = {"bio": (bio_windows(ds, tok, cfg.seq_len), None), "qa": training.pack_labeled(qa, cfg.seq_len)}
        batches = training.MixedBatches(pools, {"bio": 1.0 - cfg.qa_share, "qa": cfg.qa_share},
                                        tc.batch_size, seed=cfg.seed)
        eval_fn = (lambda m: curve_metrics(m, tok, ds, curve_people, seed=cfg.seed)) if curve_points else None
        res = training.train(model, batches, tc, eval_fn=eval_fn, progress=progress, desc="mixed")
        log = {**res.to_dict(), "n_bio_windows": len(pools["bio"][0]), "n_qa_windows": len(pools["qa"][0])}
        _save(folder, model.cpu(), tok, cfg, log)

    return cache.get_or_create("physics-mixed", key, build)


def _sample(people: Sequence[int], k: int, seed: int, stream: int) -> list[int]:
    rng = np.random.default_rng([seed, stream])
    return sorted(rng.permutation(np.asarray(people))[:k].tolist()) if len(people) else []


@torch.no_grad()
def bio_accuracy(model, tokenizer, entries: Sequence[bios.BioEntry], batch_size: int = 64) -> float:
    """Share of (biography, attribute) pairs whose whole value the model predicts token by token.

    Teacher-forced: every value token must be the argmax next token after the true prefix (``<eos>``
    in front, as in packed pretraining). This is the "BIO accuracy" of paper Fig. 1b: has the model
    memorised the training biographies?
    """
    from bertology_lib.experiments.physics.probing import _encode, _pad_right

    if not entries:
        raise ValueError("entries is empty; allowed: at least one biography")
    ids, word_ids = _encode(tokenizer, [e.text for e in entries])
    device = next(model.parameters()).device
    was_training = model.training
    model.eval()
    hits = []
    for s in range(0, len(ids), batch_size):
        rows = ids[s: s + batch_size]
        x, mask = _pad_right(rows, tokenizer.pad_token_id or 0)
        pred = model(input_ids=x.to(device), attention_mask=mask.to(device)).logits.argmax(-1).cpu()
        for i, e in enumerate(entries[s: s + batch_size]):
            w = word_ids[s + i]
            for lab, ws, we in e.spans:
                if lab == "name":
                    continue
                toks = [k for k, wid in enumerate(w) if wid is not None and ws <= wid < we]
                hits.append(all(int(pred[i, k - 1]) == rows[i][k] for k in toks))
    model.train(was_training)
    return float(np.mean(hits))


def curve_metrics(model, tokenizer, dataset: bios.BioDataset, n_people: int = 64, seed: int = 0) -> dict:
    """One learning-curve point: ``bio`` (:func:`bio_accuracy` on one biography of each of ``n_people``
    people), ``qa_train`` and ``qa_test`` (mean exact-match QA accuracy on ``n_people`` people of each
    split); the people are a fixed seeded sample, the same at every point."""
    people = _sample(range(len(dataset.people)), n_people, seed, 21)
    first: dict[int, bios.BioEntry] = {}
    wanted = set(people)
    for e in dataset.bios:
        if e.person in wanted and e.person not in first:
            first[e.person] = e
    out = {"bio": bio_accuracy(model, tokenizer, [first[p] for p in people])}
    for split, stream in (("train", 22), ("test", 23)):
        chosen = _sample(dataset.split_people(split), n_people, seed, stream)
        out[f"qa_{split}"] = _qa_mean(model, tokenizer, dataset, chosen) if chosen else math.nan
    return out


def _qa_mean(model, tokenizer, dataset: bios.BioDataset, people: Sequence[int]) -> float:
    pairs = [bios.QAPair(i, a, *dataset.qa(i, a)) for i in people for a in bios.ATTRIBUTES]
    preds = generate_answers(model, tokenizer, [p.question for p in pairs], max_new_tokens=_max_answer_tokens(tokenizer))
    return float(np.mean([bios.exact_match(pr, p.answer) for pr, p in zip(preds, pairs)]))


def learning_curve(path: str | Path) -> pd.DataFrame:
    """The learning curve a :func:`mixed_train` run stored: one row per point (step, bio, qa_train, qa_test)."""
    evals = train_log(path).get("evals", [])
    if not evals:
        raise ValueError(f"{path} has no learning curve; allowed: a mixed_train folder built with curve_points > 0")
    return pd.DataFrame(evals)


def load_model(path: str | Path, device: str = "cpu", attn_implementation: str | None = None):
    """(model, tokenizer) from a folder written by :func:`pretrain` / :func:`finetune_qa` / :func:`mixed_train`.

    Pass ``attn_implementation="eager"`` to get attention weights.
    """
    from transformers import AutoTokenizer, LlamaForCausalLM

    _quiet_hf()
    kw = {"attn_implementation": attn_implementation} if attn_implementation else {}
    model = LlamaForCausalLM.from_pretrained(str(path), **kw).to(device).eval()
    return model, AutoTokenizer.from_pretrained(str(path))


def train_log(path: str | Path) -> dict:
    """The ``train_log.json`` beside a cached model (losses, lrs, evals, seconds, ...)."""
    return json.loads((Path(path) / "train_log.json").read_text())


def final_loss(path: str | Path, last: int = 50) -> float:
    """Mean training loss over the last ``last`` steps of a cached run (how far memorisation got)."""
    losses = train_log(path)["losses"][-last:]
    return float(sum(losses) / len(losses))


# ----------------------------------------------------------------------------------------------
# Evaluation
# ----------------------------------------------------------------------------------------------

def _cache_argument(model) -> str:
    """The KV-cache keyword of the model's forward: ``cache`` (transformers >= 5.2x) or ``past_key_values``."""
    base = model.get_base_model() if hasattr(model, "get_base_model") else model
    return "cache" if "cache" in inspect.signature(type(base).forward).parameters else "past_key_values"


@lru_cache(maxsize=1)
def _longest_answer() -> int:
    """Most words any bioS answer can have (dates have 4: "October 2 , 1996")."""
    return max(4, *(len(bios.words(v)) for pool in (bios.CITIES, bios.UNIVERSITIES, bios.MAJORS, bios.COMPANIES)
                    for v in pool))


def _max_answer_tokens(tokenizer) -> int:
    """Tokens the longest bioS answer (plus its full stop) takes: words for the word-level tokenizer,
    more for subword tokenizers (measured on every pool value and the longest dates)."""
    backend = getattr(tokenizer, "backend_tokenizer", None)
    if backend is not None and type(backend.model).__name__ == "WordLevel":
        return _longest_answer() + 2
    key = (tokenizer.name_or_path, len(tokenizer))
    if key not in _ANSWER_TOKENS:
        values = [v for pool in (bios.CITIES, bios.UNIVERSITIES, bios.MAJORS, bios.COMPANIES) for v in pool]
        values += [f"{m} 28, 2099" for m in bios.MONTHS]
        _ANSWER_TOKENS[key] = 2 + max(len(tokenizer(f" {v}.", add_special_tokens=False)["input_ids"]) for v in values)
    return _ANSWER_TOKENS[key]


_ANSWER_TOKENS: dict = {}


@torch.no_grad()
def generate_answers(model, tokenizer, prompts: Sequence[str], max_new_tokens: int = 16,
                     batch_size: int = 256, stop: Sequence[str] = (".",)) -> list[str]:
    """Greedy completions of ``prompts``, cut at EOS or a ``stop`` token (not included), decoded.

    Prompts are grouped by token length, so batches need no padding (all bioS questions of one
    attribute have the same length); each batch decodes with the KV cache until every row stopped.
    """
    device = next(model.parameters()).device
    cache_arg = _cache_argument(model)
    was_training = model.training
    model.eval()
    ids = tokenizer(list(prompts), add_special_tokens=False)["input_ids"]
    stop_list = [tokenizer.eos_token_id, *tokenizer.convert_tokens_to_ids(list(stop))]
    stop_ids, stop_set = torch.tensor(stop_list, device=device), set(stop_list)
    by_len: dict[int, list[int]] = {}
    for i, x in enumerate(ids):
        by_len.setdefault(len(x), []).append(i)
    out: list[str] = [""] * len(ids)
    for rows_all in by_len.values():
        for s in range(0, len(rows_all), batch_size):
            rows = rows_all[s: s + batch_size]
            x = torch.tensor([ids[i] for i in rows], device=device)  # (B, T)
            gen = torch.empty((len(rows), 0), dtype=torch.long, device=device)
            done = torch.zeros(len(rows), dtype=torch.bool, device=device)
            res = model(input_ids=x, use_cache=True, logits_to_keep=1)
            for _ in range(max_new_tokens):
                nxt = res.logits[:, -1].argmax(-1)  # (B,)
                gen = torch.cat([gen, nxt[:, None]], dim=1)
                done |= torch.isin(nxt, stop_ids)
                if bool(done.all()):
                    break
                past = res["cache"] if "cache" in res else res["past_key_values"]
                res = model(input_ids=nxt[:, None], use_cache=True, logits_to_keep=1, **{cache_arg: past})
            for r, g in zip(rows, gen.tolist()):
                cut = next((k for k, t in enumerate(g) if t in stop_set), len(g))
                out[r] = tokenizer.decode(g[:cut], skip_special_tokens=True)
    model.train(was_training)
    return out


def qa_predictions(model, tokenizer, dataset: bios.BioDataset, split: str = "test", val_fraction: float = 0.1,
                   attributes: Sequence[str] = bios.ATTRIBUTES, batch_size: int = 256) -> pd.DataFrame:
    """One row per QA pair of ``split``: person, attribute, answer, prediction, correct (exact match)."""
    pairs = dataset.qa_pairs(split, val_fraction, attributes)
    if not pairs:
        raise ValueError(f"split={split!r} has no people in this dataset; allowed: a non-empty split")
    preds = generate_answers(model, tokenizer, [p.question for p in pairs], max_new_tokens=_max_answer_tokens(tokenizer),
                             batch_size=batch_size)
    return pd.DataFrame({
        "person": [p.person for p in pairs], "attribute": [p.attribute for p in pairs],
        "answer": [p.answer for p in pairs], "prediction": preds,
        "correct": [bios.exact_match(pr, p.answer) for pr, p in zip(preds, pairs)],
    })


def evaluate_qa(model, tokenizer, dataset: bios.BioDataset, split: str = "test", val_fraction: float = 0.1,
                attributes: Sequence[str] = bios.ATTRIBUTES, batch_size: int = 256) -> pd.DataFrame:
    """Exact-match QA accuracy per attribute on ``split`` people ('test', 'train', 'val', 'fit', 'all').

    Returns a DataFrame indexed by attribute plus ``mean`` and ``mean_without_birth_date`` rows, with
    columns ``accuracy``, ``majority`` (accuracy of always answering the most common QA-train answer)
    and ``n`` (questions). The paper reports means without birth date too, since a date has three parts.
    """
    preds = qa_predictions(model, tokenizer, dataset, split, val_fraction, attributes, batch_size)
    train_people = [dataset.people[i] for i in dataset.qa_train]
    guess = {a: ans for a, (ans, _) in bios.majority_baseline(train_people, attributes).items()}
    preds["majority"] = [ans == guess[a] for a, ans in zip(preds["attribute"], preds["answer"])]
    table = preds.groupby("attribute", sort=False).agg(
        accuracy=("correct", "mean"), majority=("majority", "mean"), n=("correct", "size"))
    table = table.reindex([a for a in attributes if a in table.index])
    no_date = table.drop(index="birth_date", errors="ignore")
    table.loc["mean"] = [table["accuracy"].mean(), table["majority"].mean(), table["n"].sum()]
    table.loc["mean_without_birth_date"] = [no_date["accuracy"].mean(), no_date["majority"].mean(),
                                            no_date["n"].sum()]
    table["n"] = table["n"].astype(int)
    table.index.name = "attribute"
    return table
