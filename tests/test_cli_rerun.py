"""Rerunning without surprises (issue #19), the parts that need no kernel: stamps that cover the
environment, build counts, run-folder names, validation before work, the heartbeat, what the book
hides, claims that fit 100 columns, and the cache commands."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from typer.testing import CliRunner

from bertology_lib.book import cli, cli_cache, execution, stamps
from bertology_lib.errors import ParameterError

ROOT = Path(__file__).resolve().parents[1]
NB = ROOT / "notebooks" / "survey_02_architecture.ipynb"
ENV = {"numpy": "2.0", "threads": 1, "torch": "2.13.0", "transformers": "5.0"}


def unstamped_copy(src: Path, dest: Path) -> Path:
    nb = nbformat.read(src, as_version=4)
    nb.metadata.pop(stamps.STAMP, None)
    dest.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, dest)
    return dest


@pytest.fixture
def checkout(tmp_path):
    """A minimal checkout (``_toc.yml`` and two notebooks) for commands that find the root from the cwd."""
    root = tmp_path / "checkout"
    (root / "notebooks").mkdir(parents=True)
    shutil.copy(ROOT / "_toc.yml", root / "_toc.yml")
    for name in ("survey_02_architecture", "physics_01_biographies"):
        unstamped_copy(ROOT / "notebooks" / f"{name}.ipynb", root / "notebooks" / f"{name}.ipynb")
    return root


# -- 1. stamps and `make book` ----------------------------------------------------------------------
def test_stamp_covers_the_environment(tmp_path):
    path = unstamped_copy(NB, tmp_path / NB.name)
    stamps.stamp(path, {}, ENV)
    assert stamps.read_stamp(path)["environment"] == ENV
    assert stamps.up_to_date(path, {}, env=ENV)
    for key, other in (("torch", "2.14.0"), ("transformers", "5.1"), ("numpy", "2.1"), ("threads", 2)):
        reason = stamps.stale_reason(path, {}, env={**ENV, key: other})
        assert reason is not None and f"{key} {ENV[key]} -> {other}" in reason
    assert "parameters" in stamps.stale_reason(path, {"seed": 3}, env=ENV)


def test_a_stamp_without_environment_is_stale_but_its_hash_stays_comparable(tmp_path):
    """Stamps written before the environment was recorded keep their inputs hash (same formula), and are
    re-executed because the stack they ran on is unknown."""
    path = unstamped_copy(NB, tmp_path / NB.name)
    stamps.stamp(path, {}, ENV)
    nb = json.loads(path.read_text())
    old = {k: v for k, v in nb["metadata"][stamps.STAMP].items() if k != "environment"}
    assert old["inputs_sha"] == stamps.inputs_sha(path, {})
    nb["metadata"][stamps.STAMP] = old
    path.write_text(json.dumps(nb))
    assert "no environment" in stamps.stale_reason(path, {}, env=ENV)


def test_a_changed_claim_spec_stales_the_notebook_that_records_it_and_no_other(tmp_path, monkeypatch):
    """Spec modules are loaded by name, so no import closure reaches them: the stamp hashes the specs of the
    claims a notebook records (literal ids, and f-string ids by their head) beside its library closure."""
    import dataclasses

    from bertology_lib.book.claims.registry import REGISTRY, load_all
    from bertology_lib.book.claims.rules import IntervalAbove

    load_all()
    syntax = unstamped_copy(ROOT / "notebooks" / "survey_03_1_syntax.ipynb", tmp_path / "survey_03_1_syntax.ipynb")
    emb = unstamped_copy(ROOT / "notebooks" / "survey_04_1_embeddings.ipynb", tmp_path / "survey_04_1_embeddings.ipynb")
    ids = stamps.recorded_claim_ids(syntax, REGISTRY)
    assert "survey3.1.npi_scope" in ids and "survey3.1.insensitive_to_object_removal" in ids
    assert "survey4.1.anisotropy_minilm" in stamps.recorded_claim_ids(emb, REGISTRY)  # an f-string id
    for path in (syntax, emb):
        stamps.stamp(path, {}, ENV)
        assert stamps.up_to_date(path, {}, env=ENV)
    spec = REGISTRY["survey3.1.npi_scope"]
    monkeypatch.setitem(REGISTRY, spec.id, dataclasses.replace(spec, rule=IntervalAbove(0.1)))
    assert stamps.stale_reason(syntax, {}, env=ENV) == "the registered specs of its claims changed"
    assert stamps.up_to_date(emb, {}, env=ENV)
    nb = json.loads(syntax.read_text())  # a stamp from before the claims hash: judged on the rest only
    del nb["metadata"][stamps.STAMP]["claims_sha"]
    syntax.write_text(json.dumps(nb))
    assert stamps.up_to_date(syntax, {}, env=ENV)


def test_the_notebook_registry_stales_only_the_notebook_whose_entry_changed(tmp_path, monkeypatch):
    """Every notebook imports the registry (:mod:`bertology_lib.book.specs`): adding, renaming or re-parametrising
    another notebook leaves a stamp valid, a change to the notebook's own entry or to the registry's code does not."""
    import dataclasses

    from bertology_lib.book import specs

    syntax = unstamped_copy(ROOT / "notebooks" / "survey_03_1_syntax.ipynb", tmp_path / "survey_03_1_syntax.ipynb")
    stamps.stamp(syntax, {}, ENV)
    other = specs.SPECS["survey_05c_objectives"]
    monkeypatch.setitem(specs.SPECS, other.name, dataclasses.replace(other, title="renamed"))
    monkeypatch.setitem(specs.SPECS, "survey_09_new", dataclasses.replace(other, name="survey_09_new"))
    assert stamps.up_to_date(syntax, {}, env=ENV)
    own = specs.SPECS["survey_03_1_syntax"]
    monkeypatch.setitem(specs.SPECS, own.name, dataclasses.replace(own, title="renamed"))
    assert "library sources changed" in stamps.stale_reason(syntax, {}, env=ENV)
    src = Path(specs.__file__).read_text()
    registry = tmp_path / "specs.py"
    registry.write_text(src + '\n_survey3("survey_09_new", "§9", real=False)\n')
    assert stamps.hashed_source(registry, stamps.SPECS_MODULE) == stamps.hashed_source(
        Path(specs.__file__), stamps.SPECS_MODULE
    )
    registry.write_text(src.replace("def get_spec(name: str)", "def get_spec(name: str, x=1)"))
    assert stamps.hashed_source(registry, stamps.SPECS_MODULE) != stamps.hashed_source(
        Path(specs.__file__), stamps.SPECS_MODULE
    )


def test_build_says_how_many_notebooks_are_up_to_date(checkout, monkeypatch):
    env = dict(ENV)
    monkeypatch.setattr(stamps, "current_environment", lambda: dict(env))
    monkeypatch.setattr(execution, "apply_threads", lambda: 1)
    monkeypatch.setenv("BERTOLOGY_CACHE", str(checkout / "cache"))
    monkeypatch.chdir(checkout)
    stamps.stamp(checkout / "notebooks" / "survey_02_architecture.ipynb", {}, env)
    runner = CliRunner()

    r = runner.invoke(cli.app, ["build", "--dry-run"])
    assert r.exit_code == 0, r.output
    assert (
        "1 up to date, 1 would be executed; `make book FORCE=1` (bertology build --force) re-executes all" in r.output
    )
    assert "survey_02_architecture.ipynb is up to date" in r.output
    assert "physics_01_biographies.ipynb" in r.output and "no stamp" in r.output
    # survey_02 has a model parameter and no null run recorded here: a build would rerun its null run
    assert "null-model runs that would be rerun (they no longer match the book's runs): 1 (survey_02_architecture)" in (
        r.output
    )

    r = runner.invoke(cli.app, ["build", "--dry-run", "--force"])
    assert "0 up to date, 2 would be executed; --force re-executes every notebook" in r.output

    env["threads"] = 2  # another thread count: the stamped notebook is executed again, saying why
    r = runner.invoke(cli.app, ["build", "--dry-run"])
    assert "0 up to date, 2 would be executed" in r.output and "threads 1 -> 2" in r.output
    assert not (checkout / "_build").exists()  # a dry run writes nothing


@pytest.mark.slow  # runs make
def test_make_book_force_and_reproduce():
    def dry(*args):
        return subprocess.run(["make", "-n", *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout

    assert "bertology build --profile quick --jobs 1 --force" in dry("book", "FORCE=1")
    assert "--force" not in dry("book") and "--force" not in dry("book", "FORCE=0")
    assert "bertology build --profile quick --jobs 2" in dry("book", "JOBS=2")
    out = dry("reproduce")
    assert "rm -rf _build/reproduce-cache && mkdir -p _build/reproduce-cache" in out
    assert f"BERTOLOGY_CACHE={ROOT}/_build/reproduce-cache" in out and "build --profile quick --jobs 1 --force" in out
    assert "fresh, empty cache _build/reproduce-cache" in out


# -- 2. run folders ---------------------------------------------------------------------------------
def test_run_folder_names_say_the_parameters(tmp_path):
    name = "survey_02_architecture"
    assert (
        execution.run_folder(tmp_path, name, {"profile": "smoke", "seed": 3})
        == tmp_path / "_build" / "runs" / f"{name}-profile=smoke,seed=3"
    )
    assert execution.run_folder(tmp_path, name, {}).name == f"{name}-defaults"
    assert execution.run_folder(tmp_path, name, {"model": "org/my model"}).name == f"{name}-model=org_my_model"
    long = execution.run_folder(tmp_path, name, {"model": "x" * 300})
    assert len(long.name) < 160 and long != execution.run_folder(tmp_path, name, {"model": "x" * 299})


def test_run_modes_exclude_each_other(tmp_path):
    r = CliRunner().invoke(cli.app, ["run", "survey_02_architecture", "--in-place", "--output-dir", str(tmp_path)])
    assert isinstance(r.exception, ParameterError) and "--in-place and --output-dir" in str(r.exception)


# -- 3. validation before work ---------------------------------------------------------------------
def test_conflicting_profiles_are_an_error_naming_both():
    with pytest.raises(ParameterError, match=r"--profile smoke and -p profile=full disagree"):
        cli.check_params(NB, "smoke", {"profile": "full"})
    assert cli.check_params(NB, "smoke", {"profile": "smoke"}) == {"profile": "smoke"}


def test_full_profile_without_a_gpu_asks_for_yes(monkeypatch):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(ParameterError) as e:
        execution.confirm_full({"quick", "full"}, yes=False)
    msg = str(e.value)
    assert "without a CUDA GPU" in msg and "--yes" in msg and "rough" in msg and "100,000 steps" in msg
    assert "\n" not in msg
    execution.confirm_full({"full"}, yes=True)
    execution.confirm_full({"smoke", "quick"}, yes=False)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    execution.confirm_full({"full"}, yes=False)


# -- 4. threads ---------------------------------------------------------------------------------------
def test_apply_threads_hands_the_count_to_kernels(monkeypatch):
    import torch

    before = torch.get_num_threads()
    monkeypatch.setenv("BERTOLOGY_THREADS", "1")
    monkeypatch.setenv("OMP_NUM_THREADS", "7")
    try:
        assert execution.apply_threads() == 1
        assert os.environ["OMP_NUM_THREADS"] == "1" and os.environ["BERTOLOGY_THREADS"] == "1"
        assert torch.get_num_threads() == 1
    finally:
        torch.set_num_threads(before)


# -- 5. the heartbeat ---------------------------------------------------------------------------------
def test_heartbeat_names_the_cell_at_most_every_interval():
    now = [0.0]
    lines: list[str] = []
    beat = execution.Heartbeat("physics_05_probing", every=30, echo=lines.append, clock=lambda: now[0])
    now[0] = 40
    assert beat.tick() is None  # no cell started yet
    beat.cell_started(6, 21, "# train\nresult = probing.run(params)\n")
    now[0] = 45
    assert beat.tick() is not None  # 45 s since the start: due
    now[0] = 60
    assert beat.tick() is None  # 15 s since the last line
    now[0] = 125
    line = beat.tick()
    assert line == "  ... physics_05_probing: cell 7/21 running (result = probing.run(params)), 2m05s elapsed"
    assert lines == [lines[0], line]
    beat.cell_done(6)
    assert beat.where() == "after cell 7/21"


# -- 6. what the reader does not see -------------------------------------------------------------------
def test_injected_parameters_cell_is_tagged_remove_cell(tmp_path):
    nb = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_code_cell("seed = 0", metadata={"tags": ["parameters"]}),
            nbformat.v4.new_code_cell("# Parameters\nseed = 3\n", metadata={"tags": ["injected-parameters"]}),
        ]
    )
    path = tmp_path / "nb.ipynb"
    nbformat.write(nb, path)
    execution.tag_injected_cell(path)
    tags = [c.metadata.get("tags") for c in nbformat.read(path, as_version=4).cells]
    assert tags == [["parameters"], ["injected-parameters", "remove-cell"]]


def test_book_config_removes_stderr_progress_bars():
    import yaml

    config = yaml.safe_load((ROOT / "_config.yml").read_text())["sphinx"]["config"]
    assert config["nb_output_stderr"] == "remove"


def test_claims_fit_a_100_column_terminal():
    runner = CliRunner()
    r = runner.invoke(cli.app, ["claims"])
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    assert len(lines) > 10 and max(len(line) for line in lines) <= 100
    assert any(len(line) > 100 for line in runner.invoke(cli.app, ["claims", "--wide"]).output.splitlines())


# -- 7. the cache commands -----------------------------------------------------------------------------
def _dead_pid() -> int:
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


@pytest.fixture
def filled_cache(tmp_path, monkeypatch):
    from bertology_lib.cache import ArtifactCache, save_json
    from bertology_lib.experiments.physics.training import PRETRAIN_KIND

    root = tmp_path / "cache"
    monkeypatch.setenv("BERTOLOGY_CACHE", str(root))
    c = ArtifactCache(root)
    shared = {"train": {"lr": 0.001, "max_steps": 30, "batch_size": 8}, "decoder": {"hidden_size": 64}}
    for n_people in (20, 40):
        cfg = {**shared, "bio": {"n_people": n_people, "multi": 5, "seed": 0}, "pretrained": "ab" * 32}
        c.get_or_create(PRETRAIN_KIND, cfg, lambda d: save_json(d / "x.json", {"w": [0.0] * 5000}))
    dead = root / "physics-pretrain" / f".tmp-0123456789-{_dead_pid()}-deadbeef"
    dead.mkdir()
    (dead / "model.safetensors").write_bytes(b"\0" * 300_000)
    live = root / "physics-pretrain" / f".tmp-9876543210-{os.getpid()}-cafecafe"
    live.mkdir()
    (live / "part").write_bytes(b"\0" * 1000)
    return c, dead, live


def test_cache_ls_shows_sizes_what_tells_entries_apart_total_and_stale_folders(filled_cache):
    c, dead, live = filled_cache
    r = CliRunner().invoke(cli.app, ["cache", "ls"])
    assert r.exit_code == 0, r.output
    out = r.output
    assert "bio.n_people=20" in out and "bio.n_people=40" in out  # the fields that differ, not a cut prefix
    assert out.count("physics-pretrain v2 ") == 2  # the kind's version beside its name
    assert "train.lr" not in out  # shared by both entries
    sizes = [e.size for e in c.entries()]
    assert f"2 entries, {cli_cache.human_size(sum(sizes))}" in out and "kB" in out
    assert f"{dead.name}  300.0 kB  stale: pid" in out and f"in use by pid {os.getpid()}" in out
    assert "1 stale temporary folders, 300.0 kB" in out
    assert max(len(line) for line in out.splitlines() if not line.startswith("cache root")) <= 100


def test_cache_prune_removes_only_dead_processes_folders(filled_cache):
    c, dead, live = filled_cache
    r = CliRunner().invoke(cli.app, ["cache", "prune"])
    assert r.exit_code == 0, r.output
    assert "removed 1 stale temporary folders (300.0 kB)" in r.output
    assert not dead.exists() and live.exists() and len(list(c.entries())) == 2


def test_cache_clear_refuses_an_unknown_kind_before_removing_anything(filled_cache):
    c, dead, live = filled_cache
    r = CliRunner().invoke(cli.app, ["cache", "clear", "--kind", "physics-pretrian", "--yes"])
    assert isinstance(r.exception, ParameterError), r.output
    assert "physics-pretrian" in str(r.exception) and "'physics-pretrain'" in str(r.exception)
    assert len(list(c.entries())) == 2 and dead.exists()


def test_rerun_tolerance_inside_the_books_interval_or_within_ten_percent():
    assert execution.within_tolerance([0.2, -0.4, 0.9], [0.5, 0.1, 1.0], "duplication") is True
    assert execution.within_tolerance([0.2, -0.4, 0.9], [1.5, 1.0, 2.0], "duplication") is False
    assert (
        execution.within_tolerance(0.65, 0.70, "survey") is True
        and execution.within_tolerance(0.65, 0.75, "survey") is False
    )
    assert execution.within_tolerance(None, 0.7, "survey") is None
    assert execution.within_tolerance("n/a", "n/a", "survey") is True


def test_cache_entries_record_what_built_them_outside_the_key(filled_cache, monkeypatch):
    import json

    import torch

    from bertology_lib import cache as cache_mod, runtime

    c, dead, live = filled_cache
    entries = list(c.entries())
    for e in entries:
        assert e.built["threads"] == torch.get_num_threads() and e.built["torch"] == torch.__version__
        assert e.built["cpu"] == runtime.cpu_model() and e.built["cpu"]
        # the key is the config's alone: the same config built elsewhere is the same entry
        assert e.key == cache_mod.cache_key(e.artifact_kind, e.config)
    out = CliRunner().invoke(cli.app, ["cache", "ls"]).output
    assert out.count("built: torch ") == 2 and runtime.cpu_model()[:20] in out
    # an entry written before the record existed lists without it
    art = entries[0].path / cache_mod.CONFIG
    old = json.loads(art.read_text())
    del old["built"]
    art.write_text(json.dumps(old))
    assert [e.built for e in c.entries()][0] == {}
    assert CliRunner().invoke(cli.app, ["cache", "ls"]).output.count("built: torch ") == 1
