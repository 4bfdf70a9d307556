"""Training the embedded mini-BERT (:mod:`bertology_lib.models.minibert`) through the one MLM pre-training
pipeline, cached once per config, resumable, with checkpoints kept through training.

* :func:`train_minibert` -- train (or fetch from the cache) the mini-BERT of a
  :class:`~bertology_lib.models.minibert.MiniBertConfig`; :func:`load` -- its model and tokenizer, final or
  at a kept checkpoint;
* :func:`minibert_key` -- its cache key: the config (dimensions, corpus, training), the loop's settings and
  the masked-LM objective built from it (:data:`KIND` carries the version);
* importing this module registers the embedded name ``mini-bert`` with the model registry
  (:func:`bertology_lib.models.registry.register_embedded`), so that ``load_model("mini-bert")`` trains it
  on first use. The registry sits below training and does not import it: ``bertology_lib.training``
  imports this module, so any use of the training package registers the name.

Until 2026-12-05 the pipeline lived in ``bertology_lib.models.minibert``, which made ``models`` and
``training`` import each other.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from bertology_lib.cache import ArtifactCache, ArtifactKind
from bertology_lib.errors import ParameterError
from bertology_lib.models.minibert import NAME, MiniBertConfig, build_model, checkpoints, corpus, tokenizer_for
from bertology_lib.models.registry import EmbeddedModel, register_embedded
from bertology_lib.runtime import resolve_dtype
from bertology_lib.training.loop import Resume, TrainConfig
from bertology_lib.training.pretrain import MLMObjective, masked_accuracy, mlm_batches, pretrain_mlm
from bertology_lib.validation import check_int

KIND = ArtifactKind("minibert", 1)
RESUME_EVERY = 500  # optimiser steps between resumable states (and at every kept checkpoint); 0: off


def train_config(cfg: MiniBertConfig) -> TrainConfig:
    """The loop's settings of the mini-BERT of ``cfg`` (rows of 64 tokens, linear decay to 0)."""
    return TrainConfig(
        lr=cfg.lr,
        weight_decay=cfg.weight_decay,
        warmup_steps=cfg.warmup_steps,
        max_steps=cfg.max_steps,
        batch_size=cfg.batch_size,
        seq_len=64,
        schedule="linear",
        min_lr_ratio=0.0,
        seed=cfg.seed,
        device=cfg.device,
        dtype=resolve_dtype(cfg.dtype, cfg.device),
    )


def objective(cfg: MiniBertConfig) -> MLMObjective:
    """The masked-LM objective of the mini-BERT of ``cfg`` (whole words, length buckets of 50 batches)."""
    return MLMObjective(mask_prob=cfg.mask_prob, unit="word", seq_len=64, bucket=50)


def minibert_key(cfg: MiniBertConfig) -> dict:
    """The cache key of the mini-BERT of ``cfg`` (kind :data:`KIND`): what builds it, derived from ``cfg``."""
    return {"minibert": cfg.key(), "train": train_config(cfg).key(), "objective": objective(cfg).key()}


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


def train_minibert(
    cfg: MiniBertConfig, cache: ArtifactCache | None = None, progress: bool = True, resume_every: int = RESUME_EVERY
) -> Path:
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
        batches = mlm_batches([s.text for s in train_s], tok, objective(cfg), cfg.batch_size, seed=cfg.seed)
        result = pretrain_mlm(
            model, batches, train_config(cfg), callbacks=[ckpts], progress=progress, desc="mini-BERT", resume=resume
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
                    "resumed_from": result.extra.get("resumed_from", 0),
                },
                indent=1,
            )
        )

    return cache.get_or_create(KIND, minibert_key(cfg), build, scratch=resume_every > 0)


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


def _trained_path(profile: str = "quick", seed: int = 0) -> Path:
    return train_minibert(MiniBertConfig.for_profile(profile, seed=seed)) / "final"


register_embedded(
    EmbeddedModel(
        name=NAME,
        description="the lab's own BERT (MLM head), trained by the library on toy English with gold "
        "annotations; size set by the profile (quick: 6 layers x 4 heads, d_model 128)",
        family="bert",
        has_mlm_head=True,
        path=_trained_path,
    )
)
