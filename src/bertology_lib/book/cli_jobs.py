"""The jobs of ``bertology run/build --jobs N``: which processes run side by side and what each waits for.

A notebook runs as its own ``bertology run`` process (:func:`child_command`); the models notebooks share
train first as jobs of their own (``train-minibert``, ``train-physics``, ``train-lab``) that those notebooks wait for.
:func:`bertology_lib.book.execution.execute_parallel` runs the list.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from bertology_lib.book import execution
from bertology_lib.book.specs import get_spec
from bertology_lib.experiments.survey.lab_jobs import GRIDS as LAB_GRIDS  # the notebooks with lab BERTs


def child_command(path: Path, params: dict[str, Any], mode: str, out: Path, yes: bool) -> list[str]:
    """The ``bertology run`` command that executes one notebook as ``bertology run`` would, in its own
    process."""
    cmd = [sys.executable, "-m", "bertology_lib.book.cli", "run", str(path)]
    for k, v in params.items():
        cmd += ["-p", f"{k}={v}"]
    cmd += {"in-place": ["--in-place"], "output-dir": ["--output-dir", str(out.parent)], "folder": []}[mode]
    return cmd + (["--yes"] if yes else [])


SHARED_MODELS = {"mini-bert": "train-minibert", "english-bert": "train-english-bert"}  # embedded name -> command


def reads_shared_model(spec: Any, params: dict[str, Any]) -> str | None:
    """The shared embedded model (:data:`SHARED_MODELS`: the mini-BERT, the English lab BERT) that a run of the
    survey or duplication notebook ``spec`` with ``params`` reads as its ``model``, or None."""
    if spec.part not in ("survey", "duplication") or "model" not in {q.name for q in spec.params}:
        return None
    name = str(params.get("model", spec.param("model").default))
    return name if name in SHARED_MODELS else None


def reads_minibert(spec: Any, params: dict[str, Any]) -> bool:
    """Whether a run of the notebook ``spec`` with ``params`` reads the mini-BERT: a survey or duplication
    notebook whose ``model`` is the mini-BERT (those with a real encoder or no ``model``, such as the §5 lab
    BERTs' notebooks, which train their own, start without waiting for it)."""
    from bertology_lib.models.minibert import NAME

    if spec.part not in ("survey", "duplication") or "model" not in {q.name for q in spec.params}:
        return False
    return str(params.get("model", spec.param("model").default)) == NAME


def _units(spec: Any, profile: str, seed: int) -> tuple[str, str, list]:
    """(job-name prefix, ``bertology`` command, units) of the models the notebook ``spec`` reads that train as
    jobs of their own: the physics units or the §5 lab BERTs; none at smoke, where a model trains in less time
    than a process takes to start."""
    if profile == "smoke":
        return "", "", []
    if spec.part == "physics":
        from bertology_lib.experiments.physics.jobs import units

        return "physics", "train-physics", units(profile, seed)
    if spec.name in LAB_GRIDS:
        from bertology_lib.experiments.survey.lab_jobs import units as lab_units

        return "lab", "train-lab", lab_units(profile, seed)
    return "", "", []


def parallel_jobs(
    todo: list[tuple[Path, dict[str, Any], Path]], mode: str, yes: bool
) -> list[tuple[str, list[str], tuple[str, ...]]]:
    """The jobs of a ``--jobs`` run: one per notebook (:func:`child_command`), each waiting for the notebooks
    :data:`~bertology_lib.book.execution.AFTER` names, and before them the models the notebooks read, as jobs
    of their own that those notebooks wait for (so that no two processes train the same model side by side):
    one ``train-minibert`` or ``train-english-bert`` job per profile and seed that the notebooks ask for
    (:func:`reads_shared_model`; the §3.1 notebook reads three trainings of the mini-BERT,
    :mod:`bertology_lib.experiments.survey.trainings`), and for
    the physics notebooks (beyond smoke) one ``train-physics`` job per unit of
    :func:`bertology_lib.experiments.physics.jobs.units`, longest first, so that the 2 cores train the
    physics models side by side instead of one notebook's models one after another; likewise one ``train-lab``
    job per lab BERT of the survey's §5 notebooks (:func:`bertology_lib.experiments.survey.lab_jobs.units`).
    The notebooks follow, longest first by their last run (:func:`last_duration`)."""
    jobs: dict[str, tuple[str, list[str], tuple[str, ...]]] = {}
    cost: dict[str, int] = {}  # physics units' training steps: they start longest first, after the mini-BERTs
    notebooks = []
    base_cmd = [sys.executable, "-m", "bertology_lib.book.cli"]
    for path, p, out in todo:
        spec = get_spec(path.stem)
        after = execution.AFTER.get(path.stem, ())
        profile, seed = p.get("profile", spec.param("profile").default), p.get("seed", spec.param("seed").default)
        shared = reads_shared_model(spec, p)
        if shared:
            from bertology_lib.experiments.survey import trainings

            seeds = [int(seed)]
            if shared == "mini-bert" and path.stem in trainings.READERS:  # its further trainings, side by side
                seeds = trainings.training_seeds(int(seed))
            for s in seeds:
                name = f"{shared}-{profile}-seed{s}"
                jobs.setdefault(
                    name,
                    (
                        name,
                        [*base_cmd, SHARED_MODELS[shared], "--profile", str(profile), "--seed", str(s)]
                        + (["--yes"] if yes else []),
                        (),
                    ),
                )
                after = (*after, name)
        prefix, command, units = _units(spec, str(profile), int(seed))
        for unit in units:  # the models it reads that train as jobs of their own (beyond smoke)
            if path.stem not in unit.readers:
                continue
            name = f"{prefix}-{profile}-seed{seed}-{unit.name}"
            jobs.setdefault(
                name,
                (
                    name,
                    [*base_cmd, command, unit.name, "--profile", str(profile), "--seed", str(seed)]
                    + (["--yes"] if yes else []),
                    (),
                ),
            )
            cost[name] = unit.cost
            after = (*after, name)
        notebooks.append((path.stem, child_command(path, p, mode, out, yes), after, last_duration(out)))
    notebooks.sort(key=lambda j: -j[3])  # stable: notebooks never run keep the book's order, after the rest
    return sorted(jobs.values(), key=lambda j: (j[0] in cost, -cost.get(j[0], 0))) + [
        (name, cmd, after) for name, cmd, after, _ in notebooks
    ]


def last_duration(path: Path) -> float:
    """Seconds the notebook at ``path`` took when it last ran (papermill's ``duration``), 0 when unknown: a
    ``--jobs`` run starts the longest notebooks first, so that no long one is left alone on one core at
    the end (benchmarks/README.md, "Survey and duplication fully cold")."""
    import json

    try:
        return float(json.loads(path.read_text())["metadata"]["papermill"]["duration"] or 0.0)
    except (OSError, ValueError, KeyError, TypeError):
        return 0.0
