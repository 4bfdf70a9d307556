"""Training the physics decoders (Allen-Zhu & Li 2023): pretraining on biographies, QA fine-tuning (full
or LoRA), mixed training; every model cached as a plain HF folder.

* :func:`pretrain` -- a Llama-style decoder (:mod:`bertology_lib.models.decoder`) trained from scratch on
  the BIO texts (causal LM on packed windows, EOS between biographies);
* :func:`finetune_qa` -- then QA fine-tuning on QA-train people (full, or LoRA on q/v plus trainable
  embeddings as in the paper, folded in by peft's ``merge_and_unload``), model selection on a
  validation split of QA-train people (:class:`~bertology_lib.training.loop.KeepBest`);
* :func:`mixed_train` -- BIO and QA-train QA in one run from scratch, with a learning curve.

Each cache entry is a plain HF folder (``save_pretrained`` model + tokenizer) with
``physics_config.json`` and ``train_log.json`` beside it; load one with :func:`load_model`.
Nothing is pickled.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pandas as pd
import torch

from bertology_lib.cache import ArtifactCache, ArtifactKind, save_json
from bertology_lib.data import bios
from bertology_lib.errors import ParameterError
from bertology_lib.experiments.physics.config import (
    PhysicsConfig,
    get_tokenizer,
    tokenizer_id,
)
from bertology_lib.experiments.physics.evaluation import curve_metrics, evaluate_qa
from bertology_lib.models.decoder import decoder_spec, new_decoder
from bertology_lib.models.registry import quiet_hf
from bertology_lib.training.loop import KeepBest, TrainConfig, train
from bertology_lib.training.loop import generator
from bertology_lib.training.objectives import (
    GeneratorState,
    LMBatches,
    MixedBatches,
    PooledBatches,
    QABatches,
    check_shares,
    encode_qa,
    pack_labeled,
    pack_whole,
    pack_windows,
)
from bertology_lib.validation import check_int

# One kind per artifact, its version bumped when the code that builds it changes what it would build. 2: keys
# hold the decoder's dimensions (not the size's name) and every field at any value (2026-12-05).
PRETRAIN_KIND = ArtifactKind("physics-pretrain", 2)
FINETUNE_KIND = ArtifactKind("physics-finetune", 2)
MIXED_KIND = ArtifactKind("physics-mixed", 2)


def pretrain_key(cfg: PhysicsConfig) -> dict:
    """The cache key of :func:`pretrain` (kind :data:`PRETRAIN_KIND`): the biographies, the decoder's
    architecture by its dimensions (:func:`~bertology_lib.models.decoder.decoder_spec`, never the size's
    name: changing a size in ``DECODER_SIZES`` changes the key), the tokenizer's identity, the training
    settings, the packing and the filler."""
    return {
        "bio": cfg.bio_config().key(),
        "decoder": decoder_spec(cfg.model_size),
        "tokenizer": tokenizer_id(cfg.tokenizer),
        "train": cfg.pretrain_train_config().key(),
        "packing": cfg.packing,
        "filler_bios": cfg.filler_bios,
        **({"filler": cfg.filler} if cfg.filler_bios and cfg.filler != "shuffled" else {}),
    }


FILLER_SEED = 10_000  # the filler people's generator seed is cfg.seed + FILLER_SEED: never a run's own people


def filler_texts(cfg: PhysicsConfig) -> list[str]:
    """``cfg.filler_bios`` texts with no facts in them: multi5+permute biographies of other people (generator
    seed ``cfg.seed + FILLER_SEED``, the run's pools) with the words of each shuffled.

    The control for the celebrity run (paper §4.3): as many extra tokens as the celebrities' biographies, from
    the same vocabulary and of the same lengths, but no name stands next to its attributes, so they teach no
    way of storing knowledge. With ``cfg.filler == "brown"``, as many words of real English instead
    (:func:`brown_filler`). Seeded: the same config gives the same texts.
    """
    if cfg.filler_bios == 0:
        return []
    shuffled = _shuffled_bios(cfg)
    if cfg.filler == "brown":
        # each text with an eos before and after it must fit a window whole: seq_len - 2 tokens at most
        return brown_filler(sum(_n_tokens(t) for t in shuffled), cfg.seed, max_tokens=cfg.seq_len - 2)
    return shuffled


BROWN_TEXT_WORDS = 60  # a Brown filler text: consecutive sentences of one document up to about a biography's length


def _n_tokens(text: str) -> int:  # words and punctuation marks, as the word tokenizers split text
    return len(bios.words(text))


def brown_filler(n_words: int, seed: int, max_tokens: int = 126) -> list[str]:
    """Texts of real English with (about) ``n_words`` tokens (words and punctuation marks) in all: runs of
    consecutive sentences of the Brown corpus's training documents (about :data:`BROWN_TEXT_WORDS` tokens each,
    or ``max_tokens`` if fewer, never more than ``max_tokens``, so that each fits a window whole; a longer sentence is left out), the
    documents in a seeded order.

    The celebrity run's control as the paper frames it (§4.3): the same number of extra tokens as the
    celebrities' biographies, of unrelated real text rather than biographies with their words shuffled (which
    still name the dataset's cities, companies and dates). A run with it uses the ``word+brown`` tokenizer
    (:func:`~bertology_lib.experiments.physics.config.bios_brown_tokenizer`). Raises if the corpus is too small.
    """
    from bertology_lib.data import english

    check_int("max_tokens", max_tokens, minimum=1)
    target = min(BROWN_TEXT_WORDS, max_tokens)
    docs = english.load_english("brown", "train")
    rng = np.random.default_rng(seed + FILLER_SEED)
    out: list[str] = []
    total = 0
    for i in rng.permutation(len(docs)):
        chunk: list[str] = []
        size = 0
        for text in docs[int(i)].texts():
            n = _n_tokens(text)
            if n > max_tokens:
                continue
            if size + n > max_tokens:
                chunk, size = [], 0  # a run that would not fit: start again at this sentence
            chunk.append(text)
            size += n
            if size >= target:
                out.append(" ".join(chunk))
                total += size
                chunk, size = [], 0
                if total >= n_words:
                    return out
    raise ParameterError(
        f"the Brown training split has {total} words; n_words={n_words} is too many; allowed: at most {total}"
    )


def _shuffled_bios(cfg: PhysicsConfig) -> list[str]:
    n = -(-cfg.filler_bios // 5)
    src = bios.generate_dataset(
        bios.BioConfig.from_augmentation(
            "multi5+permute", n, seed=cfg.seed + FILLER_SEED, people_per_value=cfg.people_per_value
        )
    )
    rng = np.random.default_rng(cfg.seed + FILLER_SEED)
    out = []
    for text in src.texts()[: cfg.filler_bios]:
        words = text.split()
        out.append(" ".join(words[i] for i in rng.permutation(len(words))))
    return out


def bio_windows(dataset: bios.BioDataset, tokenizer, seq_len: int) -> torch.Tensor:
    """(n, seq_len) packed causal-LM windows of the (shuffled) biographies, EOS between them."""
    ids = tokenizer(dataset.texts(), add_special_tokens=False)["input_ids"]
    return pack_windows(ids, seq_len, tokenizer.eos_token_id)


def bio_rows(
    dataset: bios.BioDataset, tokenizer, seq_len: int, packing: str = "stream", extra: Sequence[str] = ()
) -> tuple[torch.Tensor, torch.Tensor | None]:
    """(windows, labels) of the biographies (then the ``extra`` texts, e.g. :func:`filler_texts`) for
    pretraining: :func:`bio_windows` (labels None = the windows) for ``stream`` packing,
    :func:`~bertology_lib.training.objectives.pack_whole` for ``whole`` and for ``repack`` (its first epoch's
    packing in the dataset's order; :class:`RepackBatches` packs every epoch anew)."""
    if packing == "stream":
        if not extra:
            return bio_windows(dataset, tokenizer, seq_len), None
        ids = tokenizer([*dataset.texts(), *extra], add_special_tokens=False)["input_ids"]
        return pack_windows(ids, seq_len, tokenizer.eos_token_id), None
    if packing in ("whole", "repack"):
        return pack_whole(
            tokenizer([*dataset.texts(), *extra], add_special_tokens=False)["input_ids"],
            seq_len,
            tokenizer.eos_token_id,
        )
    raise ParameterError(f"packing={packing!r} is not allowed; allowed: 'stream', 'whole', 'repack'")


class RepackBatches(GeneratorState):
    """Causal-LM batches of whole token lists packed anew every epoch (``packing="repack"``).

    Each epoch puts the lists in a new order (the private generator) and packs them whole
    (:func:`~bertology_lib.training.objectives.pack_whole`), then yields the windows in a shuffled order. So a
    biography meets new neighbours and a new offset in its window every epoch, as in the paper's randomly
    concatenated pretraining data, and the only context that keys its values is its own text. With a packing
    fixed once (``whole``, ``stream``) a model can instead recall a value from where it stands in a window it has
    seen hundreds of times (``benchmarks/README.md``, "Physics: fixed windows are memorised, not names").
    """

    def __init__(self, token_lists: Sequence[Sequence[int]], seq_len: int, eos_id: int, batch_size: int, seed: int = 0):
        self.lists = [list(t) for t in token_lists]
        self.seq_len, self.eos_id, self.batch_size = seq_len, eos_id, batch_size
        self.n_windows = len(pack_whole(self.lists, seq_len, eos_id)[0])  # refuses a list with no room for its eos
        self._g = generator(seed)

    def __len__(self) -> int:
        return math.ceil(self.n_windows / self.batch_size)

    def __iter__(self):
        order = torch.randperm(len(self.lists), generator=self._g).tolist()
        windows, labels = pack_whole([self.lists[i] for i in order], self.seq_len, self.eos_id)
        perm = torch.randperm(len(windows), generator=self._g)
        for i in range(0, len(perm), self.batch_size):
            idx = perm[i : i + self.batch_size]
            yield {"input_ids": windows[idx], "labels": labels[idx].clone()}


class RepackMixedBatches(PooledBatches):
    """Mixed-training batches (rows drawn from pools with given shares: the drawing loop of
    :class:`~bertology_lib.training.objectives.PooledBatches`, as in
    :class:`~bertology_lib.training.objectives.MixedBatches`) whose pools are packed anew every time one is used up.

    ``pools``: name -> (items, pack), where ``pack(items_in_some_order)`` returns (windows, labels), e.g. the
    biographies' token lists with :func:`~bertology_lib.training.objectives.pack_whole` and the QA examples with
    :func:`~bertology_lib.training.objectives.pack_labeled`. Each pool's epoch packs its items in a new order
    (the private generator) and walks the windows in a shuffled order, so no biography or QA pair keeps its
    neighbours or its place in a window (``packing="repack"``, see :class:`RepackBatches`).
    """

    def __init__(
        self,
        pools: dict[str, tuple[Sequence, Callable[[list], tuple[torch.Tensor, torch.Tensor]]]],
        shares: dict[str, float],
        batch_size: int,
        seed: int = 0,
    ) -> None:
        check_shares(shares, pools, "pools")
        check_int("batch_size", batch_size, minimum=1)
        self.names = list(pools)
        self.items = {k: list(pools[k][0]) for k in self.names}
        self.pack = {k: pools[k][1] for k in self.names}
        self.n_windows = {k: len(self.pack[k](self.items[k])[0]) for k in self.names}  # validates every pool
        self.probs = torch.tensor([float(shares[k]) for k in self.names])
        self.batch_size = batch_size
        self._g = generator(seed)
        self._left: dict[str, tuple[torch.Tensor, torch.Tensor]] = {}

    def state_dict(self) -> dict:
        return {"generator": self._g.get_state(), "left": dict(self._left)}

    def load_state_dict(self, state) -> None:
        self._g.set_state(state["generator"])
        self._left = {k: (x.clone(), y.clone()) for k, (x, y) in state["left"].items()}

    def _epoch(self, name: str) -> tuple[torch.Tensor, torch.Tensor]:
        order = torch.randperm(len(self.items[name]), generator=self._g).tolist()
        windows, labels = self.pack[name]([self.items[name][i] for i in order])
        perm = torch.randperm(len(windows), generator=self._g)
        return windows[perm], labels[perm]

    def _take(self, name: str, n: int) -> tuple[torch.Tensor, torch.Tensor]:
        xs, ys = [], []
        while n > 0:
            if name not in self._left or len(self._left[name][0]) == 0:
                self._left[name] = self._epoch(name)
            x, y = self._left[name]
            xs.append(x[:n])
            ys.append(y[:n])
            self._left[name] = (x[n:], y[n:])
            n -= len(xs[-1])
        return torch.cat(xs), torch.cat(ys)


def qa_examples(
    dataset: bios.BioDataset, tokenizer, split: str, val_fraction: float = 0.1
) -> list[tuple[list[int], list[int]]]:
    """(input_ids, labels) for every QA pair of a split: ``question answer . <eos>``, loss on ``answer . <eos>``."""
    return [encode_qa(tokenizer, p.question, f"{p.answer}.") for p in dataset.qa_pairs(split, val_fraction)]


def save_run(folder: Path, model, tokenizer, cfg: PhysicsConfig, log: dict) -> None:
    with quiet_hf():
        model.save_pretrained(folder)
        tokenizer.save_pretrained(folder)
    save_json(folder / "physics_config.json", cfg.to_dict())
    save_json(folder / "train_log.json", log)


def build_pretrained(
    folder: Path,
    cfg: PhysicsConfig,
    ds: bios.BioDataset,
    tok,
    extra: Sequence[str] = (),
    progress: bool = False,
    desc: str = "pretrain",
    log_extra: dict | None = None,
) -> None:
    """Pretrain a fresh decoder of ``cfg`` on the biographies of ``ds`` (then the ``extra`` texts) and save it to
    ``folder``: causal LM, ``cfg``'s steps, schedule and packing. The one pretraining of the physics part
    (:func:`pretrain` on bioS, :func:`bertology_lib.experiments.physics.paraphrase.pretrain` on paraphrases)."""
    model = new_decoder(cfg.model_size, tok, cfg.seed)
    tc = cfg.pretrain_train_config()
    windows, labels = bio_rows(ds, tok, cfg.seq_len, cfg.packing, extra)
    if cfg.packing == "repack":
        lists = tok([*ds.texts(), *extra], add_special_tokens=False)["input_ids"]
        batches = RepackBatches(lists, cfg.seq_len, tok.eos_token_id, tc.batch_size, seed=cfg.seed)
    else:
        batches = LMBatches(windows, tc.batch_size, seed=cfg.seed, labels=labels)
    res = train(model, batches, tc, progress=progress, desc=desc)
    log = {
        **res.to_dict(),
        "n_windows": len(windows),
        "epochs": res.steps * tc.batch_size / len(windows),
        "n_params": sum(p.numel() for p in model.parameters()),
        **(log_extra or {}),
    }
    save_run(folder, model.cpu(), tok, cfg, log)


def pretrain(cfg: PhysicsConfig, cache: ArtifactCache | None = None, progress: bool = False) -> Path:
    """Pretrain a decoder on the BIO texts of ``cfg.dataset()``; returns the cached model folder.

    Causal LM on packed windows. A second call with the same config (device aside) reuses the entry.
    """
    cache = cache or ArtifactCache()

    def build(folder: Path) -> None:
        build_pretrained(folder, cfg, cfg.dataset(), get_tokenizer(cfg.tokenizer), filler_texts(cfg), progress=progress)

    return cache.get_or_create(PRETRAIN_KIND, pretrain_key(cfg), build)


def weights_id(path: Path) -> str:
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


def apply_lora(model, rank: int):
    """LoRA on q_proj/v_proj plus a trainable (tied) embedding, as in the paper's LoRA fine-tuning."""
    import warnings

    from peft import LoraConfig, get_peft_model

    with warnings.catch_warnings():  # peft calls a transformers property deprecated in 5.x
        warnings.simplefilter("ignore", FutureWarning)
        peft_model = get_peft_model(
            model,
            LoraConfig(r=rank, lora_alpha=2 * rank, lora_dropout=0.0, bias="none", target_modules=["q_proj", "v_proj"]),
        )
    peft_model.get_input_embeddings().weight.requires_grad_(True)
    return peft_model


def fit_qa(
    view: torch.nn.Module,
    examples: Sequence[tuple[list[int], list[int]]],
    tokenizer,
    cfg: PhysicsConfig,
    tc: TrainConfig,
    evaluate: Callable[[torch.nn.Module], pd.DataFrame],
    progress: bool,
    desc: str,
) -> dict:
    """Train ``view`` on QA ``examples`` and keep the weights with the best mean validation accuracy.

    ``evaluate(view)`` returns a QA accuracy table (a ``mean`` row) on the validation people; tiny datasets
    may have none, and then the last weights are kept. Returns the training log (with the best step).
    Shared by the decoders' and the BERT's QA fine-tuning.
    """
    keep = KeepBest("mean")
    has_val = bool(cfg.dataset().split_people("val", cfg.val_fraction))  # tiny datasets may have no val people

    def eval_fn(m) -> dict:
        return {"mean": float(evaluate(m).loc["mean", "accuracy"])}

    res = train(
        view,
        QABatches(examples, tc.batch_size, tokenizer.pad_token_id, seed=cfg.seed),
        tc,
        callbacks=[keep],
        eval_fn=eval_fn if has_val else None,
        progress=progress,
        desc=desc,
    )
    if keep.state is not None:
        view.load_state_dict(keep.state)
    return {
        **res.to_dict(),
        "best_step": keep.step if has_val else res.steps,
        "best_val_mean": keep.best if has_val else None,
        "n_examples": len(examples),
        "epochs": res.steps * tc.batch_size / len(examples),
    }


def finetune_qa(
    pretrained_path: str | Path,
    cfg: PhysicsConfig,
    lora: bool | None = None,
    cache: ArtifactCache | None = None,
    progress: bool = False,
) -> Path:
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
    key = {
        "pretrained": weights_id(pretrained_path),
        "bio": cfg.bio_config().key(),
        "val_fraction": cfg.val_fraction,
        "train": tc.key(),
        "lora": lora,
        "lora_rank": cfg.lora_rank if lora else None,
    }

    def build(folder: Path) -> None:
        ds = cfg.dataset()
        model, tok = load_model(pretrained_path)
        if lora:
            model = apply_lora(model, cfg.lora_rank)
        examples = qa_examples(ds, tok, "fit", cfg.val_fraction)
        log = fit_qa(
            model,
            examples,
            tok,
            cfg,
            tc,
            lambda m: evaluate_qa(m, tok, ds, "val", cfg.val_fraction),
            progress,
            "finetune",
        )
        if lora:
            model = model.merge_and_unload()
        save_run(folder, model.cpu(), tok, cfg, {**log, "lora": lora, "pretrained": str(pretrained_path)})

    return cache.get_or_create(FINETUNE_KIND, key, build)


def mixed_train(
    cfg: PhysicsConfig,
    cache: ArtifactCache | None = None,
    progress: bool = False,
    curve_points: int = 10,
    curve_people: int = 64,
) -> Path:
    """Train from scratch on BIO windows and QA-train QA in one run; returns the cached model folder.

    Each batch row comes from the QA pool with probability ``cfg.qa_share`` (packed QA texts, loss on
    the answers), else from the BIO windows. QA-test people's QA is never seen. ``curve_points`` times
    during training (0: never) the learning curve of paper Fig. 1b/c is measured on ``curve_people``
    people per split (:func:`curve_metrics`: BIO, QA-train and QA-test accuracy) and stored in the
    ``evals`` of ``train_log.json``; measuring it does not change the training (greedy, no RNG).
    """
    cache = cache or ArtifactCache()
    check_int("curve_points", curve_points, minimum=0)
    check_int("curve_people", curve_people, minimum=1)
    tc = cfg.mixed_train_config()
    if curve_points:
        tc = dataclasses.replace(tc, eval_every=max(1, tc.max_steps // curve_points))
    key = {**pretrain_key(cfg), "train": tc.key(), "qa_share": cfg.qa_share, "curve": [curve_points, curve_people]}

    def build(folder: Path) -> None:
        ds, tok = cfg.dataset(), get_tokenizer(cfg.tokenizer)
        model = new_decoder(cfg.model_size, tok, cfg.seed)
        rng = np.random.default_rng([cfg.seed, 7])
        qa = qa_examples(ds, tok, "train")
        qa = [qa[i] for i in rng.permutation(len(qa)).tolist()]  # shuffle before packing
        pools = {
            "bio": bio_rows(ds, tok, cfg.seq_len, cfg.packing, filler_texts(cfg)),
            "qa": pack_labeled(qa, cfg.seq_len),
        }
        shares = {"bio": 1.0 - cfg.qa_share, "qa": cfg.qa_share}
        if cfg.packing == "repack":  # both pools packed anew every epoch: no fixed neighbours, no fixed offsets
            lists = tok([*ds.texts(), *filler_texts(cfg)], add_special_tokens=False)["input_ids"]
            repacked = {
                "bio": (lists, lambda items: pack_whole(items, cfg.seq_len, tok.eos_token_id)),
                "qa": (qa, lambda items: pack_labeled(items, cfg.seq_len)),
            }
            batches = RepackMixedBatches(repacked, shares, tc.batch_size, seed=cfg.seed)
        else:
            batches = MixedBatches(pools, shares, tc.batch_size, seed=cfg.seed)
        eval_fn = (lambda m: curve_metrics(m, tok, ds, curve_people, seed=cfg.seed)) if curve_points else None
        res = train(model, batches, tc, eval_fn=eval_fn, progress=progress, desc="mixed")
        log = {**res.to_dict(), "n_bio_windows": len(pools["bio"][0]), "n_qa_windows": len(pools["qa"][0])}
        save_run(folder, model.cpu(), tok, cfg, log)

    return cache.get_or_create(MIXED_KIND, key, build)


def learning_curve(path: str | Path) -> pd.DataFrame:
    """The learning curve a :func:`mixed_train` run stored: one row per point (step, bio, qa_train, qa_test)."""
    evals = train_log(path).get("evals", [])
    if not evals:
        raise ParameterError(f"{path} has no learning curve; allowed: a mixed_train folder built with curve_points > 0")
    return pd.DataFrame(evals)


def run_device(cfg: PhysicsConfig) -> str:
    """The device ``cfg``'s models are evaluated on: its ``device`` resolved (``auto``: cuda when available), so
    that at ``full`` the QA, memorisation and probes run where the model was trained, not on the CPU."""
    from bertology_lib.runtime import resolve_device

    return resolve_device(cfg.device)


def load_model(path: str | Path, device: str = "cpu", attn_implementation: str | None = None):
    """(model, tokenizer) from a folder written by :func:`pretrain` / :func:`finetune_qa` / :func:`mixed_train`.

    Pass ``attn_implementation="eager"`` to get attention weights.
    """
    from transformers import AutoTokenizer, LlamaForCausalLM

    kw = {"attn_implementation": attn_implementation} if attn_implementation else {}
    with quiet_hf():
        model = LlamaForCausalLM.from_pretrained(str(path), **kw).to(device).eval()
    return model, AutoTokenizer.from_pretrained(str(path))


def train_log(path: str | Path) -> dict:
    """The ``train_log.json`` beside a cached model (losses, lrs, evals, seconds, ...)."""
    return json.loads((Path(path) / "train_log.json").read_text())


def final_loss(path: str | Path, last: int = 50) -> float:
    """Mean training loss over the last ``last`` steps of a cached run (how far memorisation got)."""
    losses = train_log(path)["losses"][-last:]
    return float(sum(losses) / len(losses))
