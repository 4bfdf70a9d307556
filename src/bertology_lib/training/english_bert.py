"""Training the English lab BERT (:mod:`bertology_lib.models.english_bert`) through the one MLM pre-training
pipeline, cached once per config, resumable, with checkpoints kept through training.

* :func:`train_english_bert` -- train (or fetch from the cache) the model of an
  :class:`~bertology_lib.models.english_bert.EnglishBertConfig`; :func:`load` -- its model and tokenizer;
* :func:`english_bert_key` -- its cache key (the config, the loop's settings, the objective; :data:`KIND`
  carries the version);
* :func:`agreement_margins` -- the right verb form's logit minus the other number's at the masked verb of
  agreement items; :func:`agreement_accuracy` -- whether it is positive, the measure the checkpoints record on
  *validation* items (the notebooks score test items);
* importing this module registers the embedded name ``english-bert`` (``bertology_lib.training`` imports it).
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Sequence
from pathlib import Path

import torch

from bertology_lib.cache import ArtifactCache, ArtifactKind
from bertology_lib.data import english
from bertology_lib.errors import ParameterError
from bertology_lib.models.english_bert import NAME, EnglishBertConfig, build_model, corpus, corpus_key, tokenizer_for
from bertology_lib.models.registry import EmbeddedModel, register_embedded
from bertology_lib.runtime import resolve_dtype
from bertology_lib.training.loop import Resume, TrainConfig
from bertology_lib.training.pretrain import MLMObjective, masked_accuracy, mlm_batches, pretrain_mlm
from bertology_lib.validation import check_int

KIND = ArtifactKind("english-bert", 1)
RESUME_EVERY = 200  # optimiser steps between resumable states; 0: off
HEADS = r"(^|\.)cls\."  # the heads added to a pretrained body (route minilm): trained at lr x head_lr


def train_config(cfg: EnglishBertConfig) -> TrainConfig:
    """The loop's settings for ``cfg``: warm-up then linear decay to 0; new heads at ``head_lr`` x ``lr``."""
    scale = ((HEADS, cfg.head_lr),) if cfg.route == "minilm" and cfg.head_lr != 1.0 else ()
    return TrainConfig(
        lr=cfg.lr,
        weight_decay=cfg.weight_decay,
        warmup_steps=cfg.warmup_steps,
        max_steps=cfg.max_steps,
        batch_size=cfg.batch_size,
        seq_len=cfg.seq_len,
        schedule="linear",
        min_lr_ratio=0.0,
        seed=cfg.seed,
        device=cfg.device,
        dtype=resolve_dtype(cfg.dtype, cfg.device),
        lr_scale=scale,
    )


def objective(cfg: EnglishBertConfig) -> MLMObjective:
    """Whole-word masking (80/10/10), sentence pairs with next-sentence prediction when ``cfg.pairs``."""
    return MLMObjective(mask_prob=cfg.mask_prob, unit="word", nsp=cfg.pairs, seq_len=cfg.seq_len, bucket=50)


def english_bert_key(cfg: EnglishBertConfig) -> dict:
    """The cache key of the English lab BERT of ``cfg`` (kind :data:`KIND`): the config, the loop's settings, the
    objective, and what its text is (:func:`bertology_lib.models.english_bert.corpus_key`: the tarballs' sha256 and
    the split), so that a change in the corpus gives a new key."""
    return {
        "english_bert": cfg.key(),
        "train": train_config(cfg).key(),
        "objective": objective(cfg).key(),
        "corpus": corpus_key(),
    }


class MaskedLMView(torch.nn.Module):
    """A ``BertForPreTraining`` read as a masked LM: ``forward`` returns an object whose ``logits`` are the MLM
    logits, as a ``BertForMaskedLM``'s (what the library's cloze and accuracy measures read)."""

    def __init__(self, model) -> None:
        super().__init__()
        self.model = model

    def forward(self, input_ids, attention_mask=None, token_type_ids=None, **kw):
        out = self.model(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids)
        return type("MaskedLMOutput", (), {"logits": out.prediction_logits})()


def as_masked_lm(model):
    """``model`` if it is a masked LM already, else its :class:`MaskedLMView`."""
    return MaskedLMView(model) if hasattr(model, "cls") and hasattr(model.cls, "seq_relationship") else model


@torch.no_grad()
def agreement_margins(model, tokenizer, items: Sequence[english.AgreementItem], batch_size: int = 64) -> list[float]:
    """Per item: the masked LM's logit of the right form minus that of the other number's, at the ``[MASK]`` that
    replaces the verb (its first word piece; Linzen et al. 2016 / Goldberg 2019). Positive: the model agrees."""
    mlm = as_masked_lm(model)
    mlm.eval()
    ids = {w: tokenizer.convert_tokens_to_ids(w) for w in english.AGREEMENT_PAIRS}
    if any(i == tokenizer.unk_token_id for i in ids.values()):
        raise ParameterError(f"tokenizer splits or lacks one of {sorted(ids)}; allowed: one piece each")
    dev = next(mlm.parameters()).device
    out = []
    for k in range(0, len(items), batch_size):
        chunk = items[k : k + batch_size]
        enc = tokenizer(
            [list(i.words) for i in chunk],
            is_split_into_words=True,
            truncation=True,
            max_length=128,
            padding=True,
            return_tensors="pt",
        )
        pos = [enc.word_ids(b).index(it.verb) for b, it in enumerate(chunk)]
        enc["input_ids"][torch.arange(len(chunk)), pos] = tokenizer.mask_token_id
        logits = mlm(input_ids=enc["input_ids"].to(dev), attention_mask=enc["attention_mask"].to(dev)).logits
        at = logits[torch.arange(len(chunk)), pos].cpu()  # (B, vocab)
        out += [float(at[b, ids[it.right]] - at[b, ids[it.wrong]]) for b, it in enumerate(chunk)]
    return out


def agreement_accuracy(model, tokenizer, items: Sequence[english.AgreementItem], batch_size: int = 64) -> list[bool]:
    """Per item: does the masked LM score the right form above the other number's at the masked verb?
    (:func:`agreement_margins` above 0.)"""
    return [m > 0 for m in agreement_margins(model, tokenizer, items, batch_size)]


class Checkpoints:
    """Callback of :func:`train_english_bert`: at each step of ``steps`` save the model and tokenizer to
    ``root/step_<N>/`` and record held-out masked-word accuracy and agreement (validation items) with the
    training seconds so far; resumable (``state_dict``)."""

    def __init__(self, root: Path, steps: set[int], tok, held: list[str], items) -> None:
        self.root, self.steps, self.tok, self.held, self.items = root, steps, tok, held, items
        self.evals: list[dict] = []
        self.seconds, self._since = 0.0, time.perf_counter()

    def on_step_end(self, step: int, loss: float, view) -> None:
        now = time.perf_counter()
        self.seconds += now - self._since
        if step in self.steps:
            m = view.model
            out = self.root / f"step_{step:06d}"
            m.save_pretrained(out)
            self.tok.save_pretrained(out)
            right = agreement_accuracy(m, self.tok, self.items)
            no_attr = [r for r, it in zip(right, self.items) if it.n_attractors == 0]
            self.evals.append(
                {
                    "step": step,
                    "loss": loss,
                    "train_seconds": round(self.seconds, 1),
                    "mlm_acc": masked_accuracy(as_masked_lm(m), self.tok, self.held),
                    "agreement_0": sum(no_attr) / max(1, len(no_attr)),
                    "agreement_all": sum(right) / max(1, len(right)),
                }
            )
            m.train()
        self._since = time.perf_counter()  # evaluation does not count as training time

    def state_dict(self) -> dict:
        return {"evals": self.evals, "seconds": self.seconds}

    def load_state_dict(self, state: dict) -> None:
        self.evals, self.seconds = list(state["evals"]), float(state["seconds"])
        kept = {f"step_{e['step']:06d}" for e in self.evals}
        for folder in self.root.glob("step_*"):
            if folder.name not in kept:
                shutil.rmtree(folder)


def validation_items(cfg: EnglishBertConfig) -> list[english.AgreementItem]:
    """The agreement items the checkpoints are scored on: Brown's validation documents (test stays unseen)."""
    items = english.agreement_items(english.load_english("brown", "validation"))
    return items if not cfg.max_sentences else items[: cfg.heldout]


def train_english_bert(
    cfg: EnglishBertConfig, cache: ArtifactCache | None = None, progress: bool = True, resume_every: int = RESUME_EVERY
) -> Path:
    """Train (or fetch from the cache) the English lab BERT for ``cfg``; returns its cache folder, holding
    ``final/`` and ``checkpoints/step_<N>/`` (HF folders with the tokenizer) and ``history.json`` (losses, the
    checkpoints' held-out measures, training seconds, parameters). A killed build resumes from its last state."""
    check_int("resume_every", resume_every, minimum=0)
    cache = cache or ArtifactCache()

    def build(folder: Path, scratch: Path | None = None) -> None:
        tok = tokenizer_for(cfg)
        text = corpus(cfg)
        model = build_model(cfg, tok)
        work = scratch if scratch is not None else folder
        ckpts = Checkpoints(
            work / "checkpoints", set(cfg.checkpoint_steps()), tok, list(text.heldout), validation_items(cfg)
        )
        resume = Resume(scratch / "train", every=resume_every, at=tuple(ckpts.steps)) if scratch is not None else None
        batches = mlm_batches(
            list(text.train),
            tok,
            objective(cfg),
            cfg.batch_size,
            seed=cfg.seed,
            partners=[list(p) for p in text.partners] if cfg.pairs else None,
        )
        result = pretrain_mlm(
            model, batches, train_config(cfg), callbacks=[ckpts], progress=progress, desc="English BERT", resume=resume
        )
        if work != folder:
            os.replace(work / "checkpoints", folder / "checkpoints")
        model.save_pretrained(folder / "final")
        tok.save_pretrained(folder / "final")
        (folder / "history.json").write_text(
            json.dumps(
                {
                    "losses": result.losses,
                    "evals": ckpts.evals,
                    "seconds": result.seconds,
                    "n_params": sum(p.numel() for p in model.parameters()),
                    "n_sentences": len(text.train),
                    "resumed_from": result.extra.get("resumed_from", 0),
                    "nsp_train_accuracy": result.extra.get("nsp_train_accuracy"),
                },
                indent=1,
            )
        )

    return cache.get_or_create(KIND, english_bert_key(cfg), build, scratch=resume_every > 0)


def history(folder: Path) -> dict:
    return json.loads((Path(folder) / "history.json").read_text())


def load(cfg: EnglishBertConfig, head: str = "mlm", step: int | None = None, cache: ArtifactCache | None = None):
    """(model, tokenizer) of the trained English lab BERT (final, or the checkpoint at ``step``), eager attention;
    ``head``: ``mlm`` (a ``BertForMaskedLM``: the pre-training heads' MLM part), ``pretraining`` or ``base``."""
    from transformers import AutoModel, AutoTokenizer, BertForMaskedLM, BertForPreTraining

    from bertology_lib.models.registry import quiet_hf

    folder = train_english_bert(cfg, cache)
    path = folder / "final" if step is None else folder / "checkpoints" / f"step_{step:06d}"
    if not path.is_dir():
        raise ParameterError(f"step={step} has no checkpoint; allowed: {cfg.checkpoint_steps()}")
    loader = {"mlm": BertForMaskedLM, "pretraining": BertForPreTraining}.get(head, AutoModel)
    with quiet_hf():
        model = loader.from_pretrained(path, attn_implementation="eager").eval()
    return model, AutoTokenizer.from_pretrained(path)


def _trained_path(profile: str = "quick", seed: int = 0) -> Path:
    return train_english_bert(EnglishBertConfig.for_profile(profile, seed=seed)) / "final"


register_embedded(
    EmbeddedModel(
        name=NAME,
        description="the English lab BERT: all-MiniLM-L6-v2's encoder with a masked-LM head learned here on 3.0M "
        "words of public English (Brown, State of the Union, Moby Dick), sentence pairs with NSP",
        family="bert",
        has_mlm_head=True,
        path=_trained_path,
    )
)
