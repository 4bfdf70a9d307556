"""The §5 notebooks' lab BERTs as units of work that can train side by side before the notebooks run.

The survey's §5 notebooks (training, §5.2 architecture, §5.3 objectives, §5.4 NSP) each pre-train a grid of
small lab BERTs (:mod:`bertology_lib.experiments.survey.pretraining`) and, where they score a downstream task,
fine-tune each one; :func:`~bertology_lib.experiments.survey.pretraining.evaluate_labs` trains them one after
another, at the book's one thread, so a cold notebook spends nearly all its time there (§5.2: 1,195 of
1,222 s). :func:`units` lists the same models, one unit per lab BERT (its pre-training and, when a reader
scores downstream, its fine-tuning), each with the notebooks that read it, so that ``bertology build/run
--jobs N`` trains them N at a time, longest first, and starts each notebook once its units are cached: the
notebook then finds every model in the cache and only measures. A lab BERT two notebooks share (§5.3's and
§5.4's *whole word*, §5's *80/10/10* and §5.2's base shape) is one unit.

The notebooks take their set-up and their grid from here (:func:`setup`, :func:`grid_of`), and a unit calls
the functions the notebooks' ``evaluate_labs`` calls with them, so it creates exactly the cache entries the
notebook would; ``tests/test_lab_jobs.py`` checks, at smoke, that after every unit has run the notebooks' calls
train nothing more, and that each notebook still takes its set-up and its grid from here.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bertology_lib.cache import ArtifactCache
from bertology_lib.errors import ParameterError

# notebook -> (grid function of experiments.survey.pretraining, the variants it keeps (None: all), downstream?)
GRIDS: dict[str, tuple[str, tuple[str, ...] | None, bool]] = {
    "survey_05_training": ("variant_grid", None, False),
    "survey_05b_architecture": ("architecture_grid", None, True),
    "survey_05c_objectives": ("objective_grid", ("token", "whole word", "span"), True),
    "survey_05d_nsp": ("objective_grid", ("whole word", "whole word + NSP"), True),
}
BASE_LAB_COST = 4 * 64 * 64  # cost unit: one step of the quick base lab BERT (4 blocks, d = 64)
# a whole-word + NSP unit takes about 3.5 x its model's block-steps (sentence pairs, the NSP head; measured at quick
# 2026-12-04, 1 thread: 255-267 s against 72-77 s for whole word alone, benchmarks/README.md)
NSP_COST_FACTOR = 3.5


@dataclass(frozen=True)
class Setup:
    """What a §5 notebook's set-up cell builds from its ``profile`` and ``seed`` parameters."""

    sizes: Any  # experiments.survey.training.TrainingSizes
    lab_seeds: list[int]
    mb_cfg: Any  # models.minibert.MiniBertConfig
    task: Any  # data.tasks.Task (the toy classification the labs are fine-tuned on)
    ft_cfg: Any  # training.finetune.FinetuneConfig (full fine-tuning)


def setup(profile: str, seed: int = 0) -> Setup:
    """The §5 notebooks' set-up: lab sizes and seeds, the corpus, the downstream task and fine-tuning."""
    from bertology_lib.data import tasks
    from bertology_lib.experiments.survey import training as tv
    from bertology_lib.models import minibert

    sizes = tv.TrainingSizes.for_profile(profile)
    mb_cfg = minibert.MiniBertConfig.for_profile(profile, seed=seed)
    task = tasks.toy_classification(
        n_train=sizes.n_train,
        n_dev=sizes.n_test,
        n_test=sizes.n_test,
        world_seed=mb_cfg.corpus_seed,
        vocab_size=mb_cfg.vocab_size,
    )
    return Setup(
        sizes, list(range(seed, seed + sizes.n_lab_seeds)), mb_cfg, task, sizes.finetune_config(profile, "full")
    )


def grid_of(notebook: str, s: Setup) -> dict[str, list]:
    """The grid (variant -> one LabConfig per seed) that ``notebook`` evaluates."""
    from bertology_lib.experiments.survey import pretraining as pre

    fn, keep, _ = GRIDS[notebook]
    grid = getattr(pre, fn)(s.sizes, s.lab_seeds)
    return {k: v for k, v in grid.items() if keep is None or k in keep}


@dataclass(frozen=True)
class Unit:
    """One lab BERT: ``name`` (its first variant's name and seed, e.g. ``lab-whole-word-s1``), ``cost`` (in
    steps of the quick base lab BERT, for ordering), ``readers`` (the notebooks that read it), ``run(cache)``."""

    name: str
    cost: int
    readers: tuple[str, ...]
    run: Callable[[ArtifactCache | None], object] = field(compare=False, repr=False)


def _slug(variant: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", variant.lower()).strip("-")


def _train(cfg: Any, s: Setup, downstream: bool, cache: ArtifactCache | None) -> Path:
    """What ``evaluate_labs`` trains for one lab BERT: its pre-training, then (downstream) its fine-tuning."""
    from bertology_lib.experiments.survey import pretraining as pre
    from bertology_lib.models import minibert
    from bertology_lib.training import finetune as ft

    texts = [x.text for x in minibert.corpus(s.mb_cfg)[0]]
    folder = pre.pretrain_lab(cfg, s.mb_cfg, texts=texts, cache=cache)
    if downstream:
        ft.finetune(s.task, ft.ModelSource(str(Path(folder) / "final")), s.ft_cfg, cfg.seed, cache=cache)
    return folder


def units(profile: str, seed: int = 0) -> list[Unit]:
    """The lab BERTs of the §5 notebooks at ``profile`` with the notebooks' ``seed`` parameter, longest first."""
    s = setup(profile, seed)  # validates the profile
    found: dict[str, dict[str, Any]] = {}  # the LabConfig's repr -> name, config, readers, downstream
    for nb in GRIDS:
        for variant, cfgs in grid_of(nb, s).items():
            for cfg in cfgs:
                u = found.setdefault(
                    repr(cfg), dict(name=f"lab-{_slug(variant)}-s{cfg.seed}", cfg=cfg, readers=(), downstream=False)
                )
                u["readers"] += (nb,)
                u["downstream"] |= GRIDS[nb][2]
    out = []
    for u in found.values():
        cfg = u["cfg"]
        cost = int(cfg.block_steps() * cfg.d_model**2 * (NSP_COST_FACTOR if cfg.nsp else 1) // BASE_LAB_COST)
        out.append(
            Unit(
                u["name"],
                max(1, cost),
                tuple(dict.fromkeys(u["readers"])),
                lambda cache, cfg=cfg, d=u["downstream"]: _train(cfg, s, d, cache),
            )
        )
    return sorted(out, key=lambda u: -u.cost)


def run_unit(profile: str, seed: int, name: str, cache: ArtifactCache | None = None) -> Unit:
    """Train the unit called ``name`` (or find it cached); raises with the allowed names for an unknown one."""
    found = {u.name: u for u in units(profile, seed)}
    if name not in found:
        raise ParameterError(f"unit={name!r} is not a lab BERT of profile {profile!r}; allowed: " + ", ".join(found))
    found[name].run(cache)
    return found[name]
