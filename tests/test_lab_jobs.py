"""The §5 notebooks' lab BERTs as jobs of their own (experiments.survey.lab_jobs, `bertology build --jobs N`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bertology_lib.book import cli_jobs
from bertology_lib.errors import ParameterError
from bertology_lib.experiments.survey import lab_jobs

ROOT = Path(__file__).resolve().parents[1]


def _code(notebook: str) -> str:
    nb = json.loads((ROOT / "notebooks" / f"{notebook}.ipynb").read_text())
    return "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")


@pytest.mark.parametrize("notebook", list(lab_jobs.GRIDS))
def test_each_notebook_builds_the_set_up_and_grid_its_units_train(notebook):
    """The notebooks take their set-up and their grid from lab_jobs (setup, grid_of), the functions the units
    train from, and hand them to evaluate_labs as they are: if a notebook builds either another way, this fails
    instead of the units silently training models no notebook reads."""
    code = " ".join(_code(notebook).split())
    fn, keep, downstream = lab_jobs.GRIDS[notebook]
    assert "lab_setup = lab_jobs.setup(params.profile, params.seed)" in code
    assert (
        "sizes, lab_seeds, mb_cfg, task = lab_setup.sizes, lab_setup.lab_seeds, lab_setup.mb_cfg, lab_setup.task"
    ) in code
    for built_here in ("TrainingSizes.for_profile", "MiniBertConfig.for_profile", "toy_classification(", f"pre.{fn}("):
        assert built_here not in code, built_here
    grid = f'lab_jobs.grid_of("{notebook}", lab_setup)'
    if downstream:
        assert f"grid = {grid}" in code and "ft_cfg, prof = lab_setup.ft_cfg, params.profile" in code
        assert "pre.evaluate_labs(grid, mb_cfg, task, ft_cfg, probe_sents, held_texts)" in code
    else:
        assert f"pre.evaluate_labs({grid}, mb_cfg, None, None, probe_sents, held_texts)" in code


def test_units_are_one_per_lab_bert_shared_ones_once_longest_first():
    us = lab_jobs.units("quick")
    assert len({u.name for u in us}) == len(us)
    assert [u.cost for u in us] == sorted((u.cost for u in us), reverse=True)
    readers = {u.name: u.readers for u in us}
    assert readers["lab-whole-word-s0"] == ("survey_05c_objectives", "survey_05d_nsp")  # one unit, two readers
    assert readers["lab-80-10-10-s1"] == ("survey_05_training", "survey_05b_architecture")  # §5.2's base shape
    s = lab_jobs.setup("quick")
    wanted = {(nb, repr(c)) for nb in lab_jobs.GRIDS for cs in lab_jobs.grid_of(nb, s).values() for c in cs}
    assert len(wanted) == sum(len(u.readers) for u in us)  # every (notebook, lab BERT), none extra


def test_lab_jobs_start_before_the_notebooks_that_read_them():
    todo = [(Path(f"{n}.ipynb"), {}, Path(f"{n}.ipynb")) for n in ("survey_05c_objectives", "survey_05d_nsp")]
    jobs = {name: (cmd, after) for name, cmd, after in cli_jobs.parallel_jobs(todo, "in-place", False)}
    models = [n for n in jobs if n.startswith("lab-")]
    assert list(jobs)[-2:] == ["survey_05c_objectives", "survey_05d_nsp"] and len(jobs) == len(models) + 2
    after3, after4 = set(jobs["survey_05c_objectives"][1]), set(jobs["survey_05d_nsp"][1])
    assert {n.removeprefix("lab-quick-seed0-") for n in after3 & after4} == {f"lab-whole-word-s{s}" for s in range(3)}
    assert after3 | after4 == set(models)  # nothing trained for no one, the shared whole-word BERTs once
    assert jobs["lab-quick-seed0-lab-token-s2"][0][-6:] == [
        "train-lab",
        "lab-token-s2",
        "--profile",
        "quick",
        "--seed",
        "0",
    ]
    training = dict(
        (n, after)
        for n, _, after in cli_jobs.parallel_jobs(
            [(Path("survey_05_training.ipynb"), {}, Path("x.ipynb"))], "in-place", False
        )
    )["survey_05_training"]
    assert training[0] == "mini-bert-quick-seed0"  # it reads the mini-BERT as well as its own lab BERTs
    assert {n.removeprefix("lab-quick-seed0-lab-") for n in training[1:]} == {
        f"{v}-s{s}" for v in ("80-10-10", "mask-only", "stacked") for s in range(3)
    }
    smoke = cli_jobs.parallel_jobs(
        [(Path("survey_05d_nsp.ipynb"), {"profile": "smoke"}, Path("x.ipynb"))], "in-place", False
    )
    assert [(n, after) for n, _, after in smoke] == [("survey_05d_nsp", ())]  # at smoke the notebook trains its own


def test_an_unknown_lab_unit_is_refused_with_the_allowed_names(tmp_cache):
    from typer.testing import CliRunner

    from bertology_lib.book import cli

    with pytest.raises(ParameterError, match=r"unit='lab-nope-s0' is not a lab BERT .*allowed: .*lab-span-s0"):
        lab_jobs.run_unit("smoke", 0, "lab-nope-s0")
    r = CliRunner().invoke(cli.app, ["train-lab", "lab-nope-s0", "--profile", "smoke"])
    assert r.exit_code != 0 and "allowed: " in str(r.exception)
    r = CliRunner().invoke(cli.app, ["train-lab", "lab-span-s0", "--profile", "huge"])
    assert r.exit_code != 0 and "huge" in str(r.exception)
    assert not any(tmp_cache.rglob("*"))  # refused before any work


@pytest.mark.slow  # trains the first seed's lab BERTs at smoke (~20 s)
def test_after_the_lab_units_the_notebooks_calls_train_nothing(tmp_cache):
    """The units create exactly the cache entries the notebooks' evaluate_labs calls would: after the units of
    the first seed have run, those calls (as the notebooks make them, at smoke, for that seed's lab BERTs: every
    variant, with and without downstream fine-tuning) find every lab BERT and fine-tuning in the cache."""
    from bertology_lib.cache import ArtifactCache
    from bertology_lib.experiments.survey import pretraining as pre
    from bertology_lib.models import minibert

    for unit in lab_jobs.units("smoke"):
        if unit.name.endswith("-s0"):
            unit.run(None)
    cache = ArtifactCache()
    before = {e.path for e in cache.entries()}
    assert {e.kind for e in cache.entries()} >= {"lab-bert", "lab-tokenizer"}
    s = lab_jobs.setup("smoke")
    held = [x.text for x in minibert.corpus(s.mb_cfg)[1]]
    probes = minibert.fresh_sentences(s.mb_cfg, s.sizes.probe_sentences)
    for nb, (_, _, downstream) in lab_jobs.GRIDS.items():
        task, ft_cfg = (s.task, s.ft_cfg) if downstream else (None, None)
        first = {k: [c for c in v if c.seed == 0] for k, v in lab_jobs.grid_of(nb, s).items()}
        pre.evaluate_labs(first, s.mb_cfg, task, ft_cfg, probes, held, progress=False)
    assert {e.path for e in cache.entries()} == before
