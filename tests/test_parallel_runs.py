"""Several notebooks at a time (`bertology build --jobs N`): the scheduler, its order and its failures."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from bertology_lib.book import cli_jobs, execution
from bertology_lib.errors import ParameterError


def job(
    name: str, seconds: float = 0.0, code: int = 0, mark: Path | None = None, after: tuple[str, ...] = ()
) -> tuple[str, list[str], tuple[str, ...]]:
    """A stand-in notebook run: sleeps, appends its name and times to ``mark``, exits with ``code``."""
    script = (
        f"import time, sys; t0 = time.time(); time.sleep({seconds}); "
        + (f"open({str(mark)!r}, 'a').write(f'{name} {{t0}} {{time.time()}}\\n'); " if mark else "")
        + f"print('last line of {name}'); sys.exit({code})"
    )
    return name, [sys.executable, "-c", script], after


def spans(mark: Path) -> dict[str, tuple[float, float]]:
    return {n: (float(a), float(b)) for n, a, b in (line.split() for line in mark.read_text().splitlines())}


def test_jobs_run_side_by_side_and_wait_for_what_they_read(tmp_path):
    mark = tmp_path / "mark.txt"
    lines = []
    done = execution.execute_parallel(
        [
            job("trainer", 1.0, mark=mark),
            job("other", 1.0, mark=mark),
            job("reader", 0.1, mark=mark, after=("trainer",)),
        ],
        2,
        tmp_path,
        echo=lines.append,
        poll_s=0.05,
    )
    s = spans(mark)
    assert s["other"][0] < s["trainer"][1]  # the two independent jobs overlapped
    assert s["reader"][0] >= s["trainer"][1]  # the reader started after its trainer ended, although a slot was free
    assert {n for n, _ in done} == {"trainer", "other", "reader"} and all(t > 0 for _, t in done)
    assert (tmp_path / execution.LOGS / "reader.log").read_text().strip() == "last line of reader"
    assert any(line.startswith("  finished reader") for line in lines)


def test_one_job_at_a_time_keeps_the_order(tmp_path):
    mark = tmp_path / "mark.txt"
    execution.execute_parallel(
        [job("a", 0.2, mark=mark), job("b", 0.0, mark=mark)], 1, tmp_path, echo=lambda _: None, poll_s=0.05
    )
    s = spans(mark)
    assert s["b"][0] >= s["a"][1]


def test_a_failed_job_stops_new_ones_and_names_itself(tmp_path):
    mark = tmp_path / "mark.txt"
    t0 = time.time()
    with pytest.raises(execution.NotebookRunError) as e:
        execution.execute_parallel(
            [job("bad", 0.0, code=3), job("slow", 0.5, mark=mark), job("later", 0.0, mark=mark)],
            2,
            tmp_path,
            echo=lambda _: None,
            poll_s=0.05,
        )
    msg = str(e.value)
    assert "bad (exit 3: last line of bad; log _build/logs/bad.log)" in msg
    assert "not started: later" in msg
    assert "slow" in spans(mark) and "later" not in spans(mark)  # the running job finished, no new one began
    assert time.time() - t0 < 30


@pytest.mark.parametrize("bad", [0, -1, True, 1.5])
def test_jobs_must_be_a_positive_int(tmp_path, bad):
    with pytest.raises(ParameterError, match="jobs=.* is not allowed; allowed: an int >= 1"):
        execution.execute_parallel([], bad, tmp_path)


def test_every_dependency_names_a_book_notebook():
    from bertology_lib.book.specs import SPECS

    for name, deps in execution.AFTER.items():
        assert name in SPECS and set(deps) <= set(SPECS), name


def test_notebooks_wait_for_the_mini_bert_job_and_for_what_they_read(tmp_path):

    nbs = [
        "physics_05_probing",
        "survey_03_1_syntax",
        "duplication_02_boost",
        "survey_02_architecture",
        "survey_05c_objectives",
        "survey_06b_real_encoder",
    ]
    params = {"survey_02_architecture": {"seed": 1, "model": "mini-bert"}}  # its default is MiniLM
    todo = [(tmp_path / f"{n}.ipynb", params.get(n, {}), tmp_path / f"{n}.ipynb") for n in nbs]
    jobs = {name: (cmd, after) for name, cmd, after in cli_jobs.parallel_jobs(todo, "in-place", False)}
    # one per profile and seed, first; the §3.1 notebook reads three trainings (seeds 0, 1, 2), survey_02 seed 1
    assert list(jobs)[:3] == ["mini-bert-quick-seed0", "mini-bert-quick-seed1", "mini-bert-quick-seed2"]
    assert list(jobs)[-6:] == nbs  # the models first, then the notebooks in their order
    assert jobs["mini-bert-quick-seed0"][0][-5:] == ["train-minibert", "--profile", "quick", "--seed", "0"]
    grid_units = tuple(
        f"physics-quick-seed0-grid-{a}-s{s}"
        for a, seeds in __import__("bertology_lib.experiments.physics.grid", fromlist=["Plan"])
        .Plan.for_profile("quick")
        .grid_seeds.items()
        for s in seeds
    )
    assert jobs["physics_05_probing"][1][0] == "physics_03_pretrain_finetune"
    assert set(jobs["physics_05_probing"][1][1:]) == set(grid_units)  # it probes the grid's models
    assert jobs[grid_units[0]][0][-6:] == [
        "train-physics",
        grid_units[0].removeprefix("physics-quick-seed0-"),
        "--profile",
        "quick",
        "--seed",
        "0",
    ]
    assert jobs["survey_03_1_syntax"][1] == tuple(f"mini-bert-quick-seed{s}" for s in (0, 1, 2))
    assert jobs["duplication_02_boost"][1] == ("mini-bert-quick-seed0",)
    assert jobs["survey_02_architecture"][1] == ("mini-bert-quick-seed1",)
    # a real encoder's notebook starts at once; the §5 lab BERTs' notebook (no model parameter) waits only for
    # its lab BERTs' jobs (tests/test_lab_jobs.py)
    assert jobs["survey_06b_real_encoder"][1] == ()
    assert jobs["survey_05c_objectives"][1] and all(
        n.startswith("lab-quick-seed0-lab-") for n in jobs["survey_05c_objectives"][1]
    )
    alone = cli_jobs.parallel_jobs(
        [(tmp_path / "survey_02_architecture.ipynb", {}, tmp_path / "x.ipynb")], "in-place", False
    )
    assert [(n, after) for n, _, after in alone] == [("survey_02_architecture", ())]  # MiniLM: no mini-BERT job


def test_child_command_runs_one_notebook_as_the_parent_would(tmp_path):

    nb = tmp_path / "survey_02_architecture.ipynb"
    base = [sys.executable, "-m", "bertology_lib.book.cli", "run", str(nb)]
    assert cli_jobs.child_command(nb, {"seed": 1}, "in-place", nb, False) == base + ["-p", "seed=1", "--in-place"]
    out = tmp_path / "out" / nb.name
    assert cli_jobs.child_command(nb, {}, "output-dir", out, True) == base + ["--output-dir", str(out.parent), "--yes"]
    assert cli_jobs.child_command(nb, {}, "folder", out, False) == base


def test_a_stamp_keeps_the_library_hash_taken_when_the_run_started(tmp_path):
    import nbformat

    from bertology_lib.book import stamps

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("from bertology_lib import stats")])
    path = tmp_path / "nb.ipynb"
    nbformat.write(nb, path)
    stamps.stamp(path, {}, {"threads": 1}, lib="before")
    assert stamps.read_stamp(path)["inputs_sha"] == stamps.inputs_sha(path, {}, "before")
    assert stamps.read_stamp(path)["inputs_sha"] != stamps.inputs_sha(path, {})


@pytest.mark.slow  # two smoke notebooks through the bertology command, side by side (~40 s)
def test_run_with_two_jobs_writes_both_notebooks_and_stamps_them(tmp_path):
    import os
    import subprocess

    from bertology_lib.book import stamps

    root = Path(__file__).resolve().parents[1]
    out = tmp_path / "out"
    env = {**os.environ, "BERTOLOGY_CACHE": str(tmp_path / "cache"), "BERTOLOGY_THREADS": "1"}
    # duplication_01 reads the mini-BERT by default, so the run trains it first as a job of its own
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "bertology_lib.book.cli",
            "run",
            "duplication_01_reconstruction",
            "physics_01_biographies",
            "--profile",
            "smoke",
            "--output-dir",
            str(out),
            "--jobs",
            "2",
        ],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    assert "2 notebooks, 2 at a time" in r.stdout and "wall, 2 at a time" in r.stdout
    assert "finished mini-bert-smoke-seed0" in r.stdout
    for name in ("duplication_01_reconstruction", "physics_01_biographies"):
        stamp = stamps.read_stamp(out / f"{name}.ipynb")
        assert stamp["params"] == {"profile": "smoke"} and stamp["environment"]["threads"] == 1
        assert (root / execution.LOGS / f"{name}.log").is_file()


def test_physics_units_start_longest_first_and_each_notebook_waits_for_its_own():
    from bertology_lib.experiments.physics.jobs import units

    todo = [(Path(f"{n}.ipynb"), {}, Path(f"{n}.ipynb")) for n in ("physics_02_mixed_training", "physics_06_bert")]
    jobs = cli_jobs.parallel_jobs(todo, "in-place", False)
    cost = {f"physics-quick-seed0-{u.name}": u.cost for u in units("quick")}
    models = [name for name, _, _ in jobs if name in cost]
    assert [cost[n] for n in models] == sorted((cost[n] for n in models), reverse=True)
    after = {name: set(deps) for name, _, deps in jobs}
    assert all(n.split("-seed0-")[1].startswith("mixed-") for n in after["physics_02_mixed_training"])
    assert {n.split("-seed0-")[1] for n in after["physics_06_bert"]} == {
        "bert-paper-single-s0",
        "bert-paper-multi5+permute-s0",
        "bert-profile-single-s0",
        "bert-profile-multi5+permute-s0",
        "grid-single-s0",
        "grid-multi5+permute-s0",
    }
    assert set(models) == after["physics_02_mixed_training"] | after["physics_06_bert"]  # nothing trained for no one


def test_an_unknown_physics_unit_is_refused_with_the_allowed_names(tmp_cache):
    from typer.testing import CliRunner

    from bertology_lib.book import cli
    from bertology_lib.experiments.physics.jobs import run_unit

    with pytest.raises(ParameterError, match=r"unit='grid-nope-s0' is not a physics unit .*allowed: .*grid-single-s0"):
        run_unit("smoke", 0, "grid-nope-s0")
    r = CliRunner().invoke(cli.app, ["train-physics", "grid-nope-s0", "--profile", "smoke"])
    assert r.exit_code != 0 and "allowed: " in str(r.exception)
    assert not any(tmp_cache.rglob("*"))  # refused before any work


def test_physics_notebooks_at_smoke_train_their_own_models():

    jobs = cli_jobs.parallel_jobs(
        [
            (
                Path("physics_03_pretrain_finetune.ipynb"),
                {"profile": "smoke"},
                Path("physics_03_pretrain_finetune.ipynb"),
            )
        ],
        "in-place",
        False,
    )
    assert [(n, after) for n, _, after in jobs] == [("physics_03_pretrain_finetune", ())]


@pytest.mark.slow  # trains every physics model at smoke (~1 min)
def test_after_the_physics_units_the_notebooks_calls_train_nothing(tmp_cache):
    """The units create exactly the cache entries the notebooks' calls would: after every unit has run, the
    calls of physics_02/03/04/06 (as the notebooks make them, at smoke) find every model in the cache."""
    from bertology_lib.cache import ArtifactCache
    from bertology_lib.experiments.physics import grid as px
    from bertology_lib.experiments.physics.config import PhysicsConfig
    from bertology_lib.experiments.physics.jobs import units

    for unit in units("smoke"):
        unit.run(None)
    cache = ArtifactCache()
    before = {e.path for e in cache.entries()}
    base, plan = PhysicsConfig.for_profile("smoke"), px.Plan.for_profile("smoke")
    px.finetune_grid(base, seeds=dict(plan.grid_seeds), progress=False)  # physics_03
    px.mixed_grid(base, seeds=list(plan.mixed_seeds), curve_points=plan.curve_points, progress=False)  # physics_02
    for s in plan.mixed_seeds:
        px.n_sweep(base, plan.n_sweep, seed=s, curve_points=plan.curve_points, progress=False)
    px.n_sweep(base, [base.n_people], qa_shares=plan.qa_shares, seed=0, curve_points=plan.curve_points, progress=False)
    px.celebrity_grid(base, seeds=list(plan.celebrity_seeds), settings=px.SETTINGS, progress=False)  # physics_04
    px.bert_grid(base, seeds=list(plan.bert_seeds), progress=False)  # physics_06
    px.finetune_grid(base, ["single", "multi5+permute"], seeds=list(plan.bert_seeds), methods=["full"], progress=False)
    assert {e.path for e in cache.entries()} == before


def test_notebooks_start_longest_first_by_their_last_run(tmp_path):
    import json

    def executed(name: str, secs: float | None) -> Path:
        p = tmp_path / f"{name}.ipynb"
        meta = {} if secs is None else {"papermill": {"duration": secs}}
        p.write_text(json.dumps({"cells": [], "metadata": meta, "nbformat": 4, "nbformat_minor": 5}))
        return p

    runs = [
        ("survey_03_1_syntax", 250.0),
        ("survey_06b_real_encoder", 790.0),
        ("survey_07_directions", None),
        ("duplication_03_real_encoder", 730.0),
        ("survey_03_2_semantics", None),
    ]
    todo = [(executed(n, s), {}, executed(n, s)) for n, s in runs]
    names = [n for n, _, _ in cli_jobs.parallel_jobs(todo, "in-place", False)]
    assert names[0] == "mini-bert-quick-seed0"
    # longest first; never-run notebooks after them, in the book's order
    assert names[-5:] == [
        "survey_06b_real_encoder",
        "duplication_03_real_encoder",
        "survey_03_1_syntax",
        "survey_07_directions",
        "survey_03_2_semantics",
    ]
    assert cli_jobs.last_duration(tmp_path / "missing.ipynb") == 0.0


def test_the_brown_filler_control_waits_for_full_at_quick():
    """The celebrity runs' Brown-filler control (two 33-minute units) is left out of quick's plan and units, kept at
    smoke and full (benchmarks/README.md, "Physics cold, measured in sittings on one cache")."""
    from bertology_lib.experiments.physics import grid as px
    from bertology_lib.experiments.physics.jobs import units

    assert px.Plan.for_profile("quick").filler_seeds == ()
    assert px.Plan.for_profile("full").filler_seeds == (0, 1) and px.Plan.for_profile("smoke").filler_seeds == (0,)
    assert px.Plan.for_profile("full").shifted(3).filler_seeds == (3, 4)
    quick = {u.name for u in units("quick")}
    assert not any(n.startswith("celebrity-filler") for n in quick)
    assert {"celebrity-with-s0", "celebrity-with-s1"} <= quick
    assert {"celebrity-filler-s0", "celebrity-filler-s1"} <= {u.name for u in units("full")}


def test_the_n_sweep_runs_at_every_mixed_seed_and_the_qa_shares_at_the_first():
    """physics3.1.mixed.single_grows_with_n pools every point of the N sweep over the plan's mixed seeds, so quick
    trains each N at both; the QA shares (a table, no claim) stay at the first seed. With the notebooks' ``seed``
    parameter every run moves with it."""
    from bertology_lib.experiments.physics import grid as px
    from bertology_lib.experiments.physics.jobs import units

    plan = px.Plan.for_profile("quick")
    assert plan.mixed_seeds == (0, 1)
    for seed in (0, 5):
        mixed = {u.name: u for u in units("quick", seed=seed) if u.name.startswith("mixed-single-")}
        sweep = {f"mixed-single-n{n}-q0.5-s{seed + k}" for n in plan.n_sweep for k in plan.mixed_seeds}
        shares = {f"mixed-single-n600-q{q}-s{seed}" for q in plan.qa_shares}
        assert set(mixed) == sweep | shares
        assert mixed[f"mixed-single-n150-q0.5-s{seed + 1}"].cost == mixed[f"mixed-single-n150-q0.5-s{seed}"].cost
        assert all(u.readers == ("physics_02_mixed_training",) for u in mixed.values())
