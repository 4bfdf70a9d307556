"""Pretrain + fine-tune on bioR-like biographies (Allen-Zhu & Li 2023 §2.2 and §4: the grid on bioR).

The paper's bioR rewrites each person's biography with an LLM; offline, the paraphrase generator of
:mod:`bertology_lib.data.bios.paraphrase` stands in (same people, same facts, same questions). A paraphrase cell is
``single`` (one rewrite per person) or ``multiM`` (M distinct rewrites); each rewrite draws its own sentence order,
so ``multi5`` here is as diverse per person as bioS ``multi5+permute`` and more diverse in wording.

The runs use the profile's :class:`~bertology_lib.experiments.physics.config.PhysicsConfig` (decoder, packing,
fine-tuning) with the pretraining steps scaled to the same passes over the text as the bioS cell
(:func:`equal_passes`: the rewrites are about 11% longer), a word tokenizer over
:func:`~bertology_lib.data.bios.paraphrase.vocabulary`, and their own cache kind, so they never collide with a bioS
run. QA fine-tuning is
:func:`~bertology_lib.experiments.physics.training.finetune_qa` itself: its questions, QA-train / QA-test split and
validation people are those of the bioS dataset of the same config, which are the paraphrase dataset's. Read by
``notebooks/physics_03_pretrain_finetune.ipynb``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, ClassVar

import pandas as pd

from bertology_lib.cache import ArtifactCache, ArtifactKind
from bertology_lib.data import bios
from bertology_lib.data.bios import paraphrase
from bertology_lib.errors import ParameterError
from bertology_lib.experiments.physics import evaluation, training
from bertology_lib.experiments.physics.config import PhysicsConfig, bios_tokenizer, vocab_id
from bertology_lib.models.tokenization import build_word_tokenizer
from bertology_lib.profiles import SizeTable
from bertology_lib.validation import check_seeds

PARAPHRASE_PRETRAIN_KIND = ArtifactKind("physics-paraphrase-pretrain", 1)
CELLS: tuple[str, ...] = ("single", "multi5")
TOKENIZER = "word+paraphrase"


@dataclass(frozen=True)
class ParaphrasePlan(SizeTable):
    """The paraphrase cells and seeds physics_03 runs at a profile (two seeds at quick, as every grid cell)."""

    cells: tuple[str, ...]
    seeds: tuple[int, ...]

    SIZES: ClassVar[dict[str, dict[str, Any]]] = {
        "smoke": dict(cells=CELLS, seeds=(0,)),
        "quick": dict(cells=CELLS, seeds=(0, 1)),
        "full": dict(cells=CELLS, seeds=(0, 1)),
    }


@lru_cache(maxsize=1)
def tokenizer():
    """The word-level GPT tokenizer over bioS's words and the rewrites' (:func:`paraphrase.vocabulary`)."""
    return build_word_tokenizer(paraphrase.vocabulary(), kind="gpt")


def check_config(cfg: PhysicsConfig) -> PhysicsConfig:
    """A paraphrase run is a bioS word-tokenizer run without filler on a ``single`` / ``multiM`` augmentation."""
    if cfg.tokenizer != "word" or cfg.filler_bios:
        raise ParameterError(
            f"tokenizer={cfg.tokenizer!r}, filler_bios={cfg.filler_bios} has no paraphrase version; allowed: "
            "tokenizer='word' (the run uses its own word tokenizer) and filler_bios=0"
        )
    paraphrase.check_config(cfg.bio_config())
    return cfg


@lru_cache(maxsize=4)
def _dataset(config: bios.BioConfig) -> bios.BioDataset:
    return paraphrase.generate(config)


def dataset(cfg: PhysicsConfig) -> bios.BioDataset:
    """The paraphrase dataset of ``cfg`` (its augmentation's multiplicity, people and seed)."""
    return _dataset(check_config(cfg).bio_config())


@lru_cache(maxsize=8)
def _tokens(config: bios.BioConfig, rewritten: bool) -> int:
    """Tokens of the training biographies of ``config`` as the repacked pretraining reads them (no special tokens):
    bioS in the word tokenizer, the rewrites in :func:`tokenizer`."""
    ds, tok = (_dataset(config), tokenizer()) if rewritten else (bios.generate_dataset(config), bios_tokenizer())
    return sum(len(ids) for ids in tok(ds.texts(), add_special_tokens=False)["input_ids"])


def equal_passes(cfg: PhysicsConfig) -> PhysicsConfig:
    """``cfg`` with its pretraining steps scaled by the rewrites' length over bioS's (same augmentation, people and
    seed), so that a paraphrase cell reads its biographies as many times as the bioS cell of the same config does
    (never fewer steps). At bioS's own steps the rewrites, ~11% longer, got ~10% fewer passes, and one ``multi5``
    seed stored 0.969 of its values, under the 0.97 of its values that every physics model must store (benchmarks/README.md,
    "Physics cold on an empty cache")."""
    cfg = check_config(cfg)
    ratio = _tokens(cfg.bio_config(), True) / _tokens(cfg.bio_config(), False)
    return cfg.replace(pretrain_steps=max(cfg.pretrain_steps, int(round(cfg.pretrain_steps * ratio))))


def pretrain_key(cfg: PhysicsConfig) -> dict:
    """:func:`training.pretrain_key` with the paraphrase dataset's key and tokenizer in place of bioS's."""
    check_config(cfg)
    return {
        **training.pretrain_key(cfg),
        "bio": paraphrase.key(cfg.bio_config()),
        "tokenizer": {"name": TOKENIZER, "vocab_sha": vocab_id(tokenizer())},
    }


def pretrain(cfg: PhysicsConfig, cache: ArtifactCache | None = None, progress: bool = False) -> Path:
    """Pretrain a decoder on the paraphrased biographies of ``cfg`` as :func:`training.pretrain` does on bioS (same
    decoder, schedule and packing; ``cfg`` as :func:`equal_passes` returns it, the callers' duty); returns the
    cached model folder."""
    cache = cache or ArtifactCache()
    key = pretrain_key(cfg)

    def build(folder: Path) -> None:
        training.build_pretrained(
            folder,
            cfg,
            dataset(cfg),
            tokenizer(),
            progress=progress,
            desc="pretrain (paraphrase)",
            log_extra={"style": "paraphrase"},
        )

    return cache.get_or_create(PARAPHRASE_PRETRAIN_KIND, key, build)


def finetune_run(cfg: PhysicsConfig, cache: ArtifactCache | None = None, progress: bool = False) -> pd.DataFrame:
    """Pretrain on the paraphrased biographies, fine-tune (full) on QA-train people, QA-test accuracy per attribute:
    the rows of :func:`bertology_lib.experiments.physics.grid.finetune_run` (``memorised`` read on the paraphrased
    training biographies) with ``data = "paraphrase"``."""
    cache = cache or ArtifactCache()
    cfg = equal_passes(cfg)
    pre = pretrain(cfg, cache, progress=progress)
    ds = dataset(cfg)
    memorised = evaluation.memorisation(*training.load_model(pre, device=training.run_device(cfg)), ds, seed=cfg.seed)
    tuned = training.finetune_qa(pre, cfg, lora=False, cache=cache, progress=progress)
    model, tok = training.load_model(tuned, device=training.run_device(cfg))
    log = training.train_log(tuned)
    table = evaluation.evaluate_qa(model, tok, ds, "test", cfg.val_fraction)
    return pd.DataFrame(
        [
            {
                "data": "paraphrase",
                "augmentation": cfg.augmentation,
                "seed": cfg.seed,
                "method": "full",
                "attribute": a,
                "accuracy": float(r["accuracy"]),
                "majority": float(r["majority"]),
                "n": int(r["n"]),
                "best_step": log.get("best_step"),
                "val_mean": log.get("best_val_mean"),
                "memorised": memorised,
                "pretrained": str(pre),
                "finetuned": str(tuned),
            }
            for a, r in table.iterrows()
        ]
    )


def finetune_grid(
    base: PhysicsConfig,
    cells: Sequence[str] = CELLS,
    seeds: Sequence[int] = (0, 1),
    cache: ArtifactCache | None = None,
    progress: bool = True,
) -> pd.DataFrame:
    """:func:`finetune_run` for every paraphrase cell and seed; everything is validated before the first model
    trains."""
    cells = list(cells)
    if not cells:
        raise ParameterError("cells is empty; allowed: paraphrase cells such as " + ", ".join(CELLS))
    seeds = check_seeds(seeds)
    plan = [check_config(base.replace(augmentation=c, seed=s)) for c in cells for s in seeds]
    if progress:
        from tqdm.auto import tqdm

        plan = tqdm(plan, desc="paraphrase: pretrain + fine-tune")
    return pd.concat([finetune_run(cfg, cache) for cfg in plan], ignore_index=True)


def examples(cfg: PhysicsConfig, person: int = 0, n: int = 3) -> pd.DataFrame:
    """``n`` rewrites of one person's biography (a ``multiM`` config with M >= ``n``) beside the bioS one of the
    same people: what the generator changes and what it keeps."""
    ds = dataset(cfg)
    rows = [{"data": "paraphrase", "copy": e.copy, "text": e.text} for e in ds.bios_of(person)[:n]]
    bio_s = cfg.dataset().bios_of(person)[0]
    return pd.DataFrame([{"data": "bioS", "copy": bio_s.copy, "text": bio_s.text}, *rows])
