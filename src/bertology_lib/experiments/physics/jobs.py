"""The physics notebooks' models as units of work that can train side by side before the notebooks run.

Every physics notebook trains (or finds in the artifact cache) its models through
:mod:`bertology_lib.experiments.physics.grid`; one notebook trains them one after another, on one core at
the book's one thread. :func:`units` lists the same models, cut into independent *units* (one grid cell and
seed with its fine-tunings, one paraphrase cell and seed, one mixed-training run, one celebrity run, one BERT), each with the notebooks that
read it, so that ``bertology build --jobs N`` can train them N at a time, longest first, and start each
notebook once its units are cached; the notebook then finds every model in the cache and only evaluates.

A unit calls the same function with the same configuration as its notebook (for one cell and seed), so it
creates exactly the cache entries the notebook would; ``tests/test_parallel_runs.py`` checks, at smoke, that
after every unit has run the notebooks' calls train nothing more.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from bertology_lib.cache import ArtifactCache
from bertology_lib.errors import ParameterError
from bertology_lib.experiments.physics import grid as px
from bertology_lib.experiments.physics import paraphrase as pp
from bertology_lib.experiments.physics.bert import bert_mixed_steps, recipe_config
from bertology_lib.experiments.physics.config import PhysicsConfig

GRID_READERS = ("physics_03_pretrain_finetune", "physics_05_probing")
PARAPHRASE_READERS = ("physics_03_pretrain_finetune",)
MIXED_READERS = ("physics_02_mixed_training",)
CELEBRITY_READERS = ("physics_04_celebrities",)
BERT_READERS = ("physics_06_bert",)


@dataclass(frozen=True)
class Unit:
    """One independent piece of a physics notebook's training.

    ``name``: unique within a profile and seed (``grid-single-s0``, ``mixed-n150-q0.5-s0``, ...); ``cost``: its
    training steps, for ordering (longest first); ``readers``: the notebooks that read what it trains;
    ``run(cache)`` trains it (or finds it cached).
    """

    name: str
    cost: int
    readers: tuple[str, ...]
    run: Callable[[ArtifactCache | None], object] = field(compare=False, repr=False)


def units(profile: str, seed: int = 0) -> list[Unit]:
    """The units of every physics notebook at ``profile`` with the notebooks' ``seed`` parameter (each run of a
    notebook's plan uses ``seed`` + its plan seed), longest first."""
    base = PhysicsConfig.for_profile(profile)  # validates the profile
    plan = px.Plan.for_profile(profile)
    out: dict[str, Unit] = {}

    def add(name: str, cost: int, readers: tuple[str, ...], run: Callable[[ArtifactCache | None], object]) -> None:
        if name in out:  # another notebook reads the same models: one unit, every reader
            old = out[name]
            out[name] = Unit(name, old.cost, tuple(dict.fromkeys(old.readers + readers)), old.run)
        else:
            out[name] = Unit(name, cost, readers, run)

    # physics_03 (and physics_05, which probes its pretrained models): every cell and seed, full and LoRA
    ft_cost = 2 * base.finetune_steps
    for aug, seeds in plan.grid_seeds.items():
        for s in (seed + k for k in seeds):
            cfg = base.replace(augmentation=aug, seed=s)
            add(
                f"grid-{aug}-s{s}",
                base.pretrain_steps + ft_cost,
                GRID_READERS,
                lambda cache, cfg=cfg: px.finetune_run(cfg, px.METHODS, cache),
            )

    # physics_03's bioR-like cells: pretraining on the paraphrased biographies, full fine-tuning
    pplan = pp.ParaphrasePlan.for_profile(profile)
    for cell in pplan.cells:
        for s in (seed + k for k in pplan.seeds):
            cfg = base.replace(augmentation=cell, seed=s)
            add(
                f"paraphrase-{cell}-s{s}",
                base.pretrain_steps + base.finetune_steps,
                PARAPHRASE_READERS,
                lambda cache, cfg=cfg: pp.finetune_run(cfg, cache),
            )

    # physics_06's decoders beside the BERTs: full fine-tuning of single and multi5+permute (the grid's when it
    # has them; its LoRA fine-tuning is then trained for physics_03 too)
    for aug in ("single", "multi5+permute"):
        for s in (seed + k for k in plan.bert_seeds):
            cfg = base.replace(augmentation=aug, seed=s)
            if f"grid-{aug}-s{s}" in out:
                add(f"grid-{aug}-s{s}", 0, BERT_READERS, out[f"grid-{aug}-s{s}"].run)
            else:
                add(
                    f"decoder-{aug}-s{s}",
                    base.pretrain_steps + base.finetune_steps,
                    BERT_READERS,
                    lambda cache, cfg=cfg: px.finetune_run(cfg, ("full",), cache),
                )
            for recipe in px.BERT_RECIPES:
                steps = recipe_config(base.replace(augmentation=aug), recipe).bert_steps
                add(
                    f"bert-{recipe}-{aug}-s{s}",
                    steps + base.finetune_steps,
                    BERT_READERS,
                    lambda cache, a=aug, s=s, r=recipe: px.bert_grid(
                        base, [a], seeds=[s], cache=cache, progress=False, recipe=r
                    ),
                )

    # physics_06: BERTs under mixed training (the profile arm), where the plan has them
    for aug in ("single", "multi5+permute"):
        for s in (seed + k for k in plan.bert_mixed_seeds):
            add(
                f"bert-mixed-{aug}-s{s}",
                bert_mixed_steps(recipe_config(base, "profile")),
                BERT_READERS,
                lambda cache, a=aug, s=s: px.bert_mixed_grid(base, [a], seeds=[s], cache=cache, progress=False),
            )

    # physics_02: mixed training of single and multi5+permute, then the N sweep and the QA shares on single
    # (same configurations as grid.n_sweep: steps scale with N and with the biographies' share of rows)
    for aug in ("single", "multi5+permute"):
        for s in (seed + k for k in plan.mixed_seeds):
            cfg = base.replace(augmentation=aug, seed=s)
            add(
                f"mixed-{aug}-n{base.n_people}-q{base.qa_share}-s{s}",
                base.mixed_steps,
                MIXED_READERS,
                lambda cache, cfg=cfg: px.mixed_run(cfg, cache, curve_points=plan.curve_points),
            )
    # the N sweep at every mixed seed (its claim reads them all), the QA shares at the first
    sweep = [(n, base.qa_share, seed + k) for k in plan.mixed_seeds for n in plan.n_sweep]
    sweep += [(base.n_people, q, seed) for q in plan.qa_shares]
    for n, q, s in dict.fromkeys(sweep):
        steps = max(1, int(round(base.mixed_steps * n / base.n_people * (1 - base.qa_share) / (1 - q))))
        add(
            f"mixed-single-n{n}-q{q}-s{s}",
            steps,
            MIXED_READERS,
            lambda cache, n=n, q=q, s=s: px.n_sweep(
                base, [n], seed=s, qa_shares=[q], cache=cache, progress=False, curve_points=plan.curve_points
            ),
        )

    # physics_04: with celebrities and the filler control (where the plan has it); the runs without are the grid's
    # permute1 cells
    for setting, seeds in (("with", plan.celebrity_seeds), ("filler", plan.filler_seeds)):
        for s in (seed + k for k in seeds):
            cfg = px.celebrity_config(base) if setting == "with" else px.filler_config(base)
            add(
                f"celebrity-{setting}-s{s}",
                cfg.pretrain_steps + base.finetune_steps,
                CELEBRITY_READERS,
                lambda cache, setting=setting, s=s: px.celebrity_grid(
                    base, seeds=[s], settings=[setting], cache=cache, progress=False
                ),
            )
    for s in (seed + k for k in plan.celebrity_seeds):
        name = f"grid-permute1-s{s}"
        if name in out:
            add(name, 0, CELEBRITY_READERS, out[name].run)
        else:
            add(
                f"celebrity-without-s{s}",
                base.pretrain_steps + base.finetune_steps,
                CELEBRITY_READERS,
                lambda cache, s=s: px.celebrity_grid(
                    base, seeds=[s], settings=["without"], cache=cache, progress=False
                ),
            )
    return sorted(out.values(), key=lambda u: -u.cost)


def run_unit(profile: str, seed: int, name: str, cache: ArtifactCache | None = None) -> Unit:
    """Train the unit called ``name`` (or find it cached); raises with the allowed names for an unknown one."""
    found = {u.name: u for u in units(profile, seed)}
    if name not in found:
        raise ParameterError(
            f"unit={name!r} is not a physics unit of profile {profile!r}; allowed: " + ", ".join(found)
        )
    found[name].run(cache)
    return found[name]
