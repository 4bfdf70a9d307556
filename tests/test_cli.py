"""The `bertology` command, run as a user runs it (a subprocess)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NB = "notebooks/survey_02_architecture.ipynb"


def bertology(*args: str, env: dict | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    e = {**os.environ, **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "bertology_lib.book.cli", *args],
        cwd=ROOT,
        env=e,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.mark.slow  # runs the bertology command in a subprocess
@pytest.mark.parametrize(
    "args, expect",
    [
        (["-p", "profile", "bogus"], "profile='bogus' is not allowed; allowed: 'smoke', 'quick', 'full'"),
        (["--profile", "bogus"], "profile='bogus'"),
        (["-p", "seed=abc"], "seed='abc' is not an int"),
        (["-p", "seed", "-4"], "seed=-4 is out of range"),
        (["-p", "colour", "red"], "unknown parameter 'colour'; allowed: profile, seed, model"),
        (["-p", "seeds", "3"], "unknown parameter 'seeds' (did you mean seed?); allowed: profile, seed, model"),
        (["-p", "model", "no such model"], "model='no such model' is not a known model"),
        (["-p", "model", "bogus-model"], "model='bogus-model'"),
        (["--jobs", "0"], "--jobs 0 is not allowed; allowed: an int >= 1"),
    ],
)
def test_bad_parameters_fail_fast_with_allowed_values(args, expect, tmp_path):
    before = (ROOT / NB).read_bytes()
    r = bertology("run", NB, *args, env={"HF_ENDPOINT": "http://127.0.0.1:9", "BERTOLOGY_CACHE": str(tmp_path)})
    assert r.returncode != 0
    assert "running " not in r.stdout  # refused before any kernel started
    assert expect in r.stderr, r.stderr
    assert "allowed" in r.stderr
    assert (ROOT / NB).read_bytes() == before  # nothing half-written
    assert not (tmp_path.exists() and any(tmp_path.iterdir()))  # nothing cached


@pytest.mark.slow  # runs the bertology command in a subprocess
def test_unknown_notebook_suggests_the_closest_and_points_to_the_list():
    r = bertology("run", "survey_4_2")
    assert r.returncode != 0 and r.stderr.count("\n") == 1, r.stderr
    assert "'survey_4_2' is not part of the book (did you mean survey_04_2_attention_heads?)" in r.stderr
    assert "`bertology list` shows all" in r.stderr
    r = bertology("run", "survey_99_nothing")
    assert r.returncode != 0 and "bertology list" in r.stderr


@pytest.mark.parametrize(
    "typed, meant",
    [
        ("survey_3_1", "survey_03_1_syntax"),
        ("physics_5", "physics_05_probing"),
        ("survey_02_architektur", "survey_02_architecture"),
        ("syntax", "survey_03_1_syntax"),
        ("survey_03b", "survey_03b_english_bert"),
        ("physic_03", "physics_03_pretrain_finetune"),  # a dropped letter: not the first physics notebook
        ("phisics_06", "physics_06_bert"),
    ],
)
def test_did_you_mean_finds_a_notebook_from_a_prefix_a_typo_or_a_word(typed, meant):
    from bertology_lib.book.cli import did_you_mean
    from bertology_lib.book.specs import SPECS

    assert did_you_mean(typed, SPECS) == f" (did you mean {meant}?)"
    assert did_you_mean("xyz", SPECS) == "" and did_you_mean("duplicate_k", ["profile", "seed", "model"]) == ""


@pytest.mark.slow  # runs the bertology command in a subprocess
def test_list_shows_parameters_defaults_and_comments():
    r = bertology("list")
    assert r.returncode == 0, r.stderr
    assert "survey_02_architecture" in r.stdout
    for needle in ("profile", '"quick"', "seed", "model", '"minilm"', "smoke | quick | full"):
        assert needle in r.stdout


@pytest.mark.slow  # runs the bertology command in a subprocess
def test_claims_json_reads_the_executed_notebook():
    r = bertology("claims", "--json")
    assert r.returncode == 0, r.stderr
    claims = {c["id"]: c for c in json.loads(r.stdout)}
    for cid in ("survey2.bert_base_params", "survey2.bert_large_params"):
        assert claims[cid]["verdict"] in ("reproduced", "not reproduced", "inconclusive")
        assert claims[cid]["rule"] and claims[cid]["source"]
    table = bertology("claims")
    assert "survey2.bert_base_params" in table.stdout


@pytest.mark.slow  # runs the bertology command in a subprocess
def test_cache_ls_and_clear(tmp_path):
    from bertology_lib.cache import ArtifactCache, ArtifactKind, save_json

    ArtifactCache(tmp_path).get_or_create(ArtifactKind("thing", 1), {"n": 1}, lambda d: save_json(d / "x.json", {}))
    env = {"BERTOLOGY_CACHE": str(tmp_path)}
    r = bertology("cache", "ls", env=env)
    assert r.returncode == 0 and "thing" in r.stdout and "1 entries" in r.stdout
    r = bertology("cache", "clear", "--yes", env=env)
    assert r.returncode == 0 and "removed 1" in r.stdout
    assert "0 entries" in bertology("cache", "ls", env=env).stdout


@pytest.mark.slow  # runs the bertology command in a subprocess
def test_failing_notebook_reports_where(tmp_path):
    """A notebook that raises makes `run` exit non-zero naming the notebook and cell."""
    import nbformat

    nb = nbformat.read(ROOT / NB, as_version=4)
    for c in nb.cells:
        if c.cell_type == "code" and "parameters" not in c.metadata.get("tags", []):
            c.source = "raise RuntimeError('boom here')"
            break
    bad = tmp_path / "survey_02_architecture.ipynb"
    nbformat.write(nb, bad)
    r = bertology("run", str(bad), "--profile", "smoke", "--output-dir", str(tmp_path / "out"), timeout=300)
    assert r.returncode != 0
    assert "survey_02_architecture" in r.stderr and "RuntimeError: boom here" in r.stderr
    assert not (tmp_path / "out" / "survey_02_architecture.ipynb").exists()


def test_default_values_are_not_injected():
    """`--profile quick` on a notebook whose default is quick injects nothing; other values are typed."""
    from bertology_lib.book.cli import check_params

    path = Path(__file__).resolve().parents[1] / "notebooks" / "survey_02_architecture.ipynb"
    assert check_params(path, "quick", {}) == {}
    assert check_params(path, "smoke", {"seed": "3"}) == {"profile": "smoke", "seed": 3}


def test_build_skips_notebooks_executed_from_the_same_inputs(tmp_path, monkeypatch):
    """A stamped notebook is up to date until its sources, its parameters or the library change."""
    import shutil

    import nbformat

    from bertology_lib.book import stamps

    src = Path(__file__).resolve().parents[1] / "notebooks" / "survey_02_architecture.ipynb"
    nb_path = tmp_path / src.name
    shutil.copy(src, nb_path)
    nb = nbformat.read(nb_path, as_version=4)
    nb.metadata.pop(stamps.STAMP, None)
    nbformat.write(nb, nb_path)
    assert not stamps.up_to_date(nb_path, {})  # never stamped
    stamps.stamp(nb_path, {})
    assert stamps.up_to_date(nb_path, {})
    assert not stamps.up_to_date(nb_path, {"seed": 3})  # other parameters
    assert not stamps.up_to_date(nb_path, {}, lib="another library")  # the library changed
    nb = nbformat.read(nb_path, as_version=4)
    nb.cells[-1].source += "\n"  # an edited cell
    nbformat.write(nb, nb_path)
    assert not stamps.up_to_date(nb_path, {})


def test_library_closure_follows_imports_and_ignores_unrelated_modules(tmp_path):
    """A notebook's stamp depends on the library modules it reaches, directly or through other modules."""
    import nbformat

    from bertology_lib.book import stamps

    nb = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_code_cell("%matplotlib inline\nfrom bertology_lib.experiments.physics import grid as px"),
            nbformat.v4.new_code_cell("import bertology_lib.data.tasks\nx = 1"),
        ]
    )
    path = tmp_path / "nb.ipynb"
    nbformat.write(nb, path)
    pkg = Path(stamps.__file__).parents[1]
    names = {f.relative_to(pkg).as_posix() for f in stamps.library_closure(path)}
    assert {
        "experiments/physics/grid.py",
        "experiments/physics/training.py",
        "experiments/physics/probing.py",
        "data/bios/__init__.py",
        "data/tasks/__init__.py",
        "data/__init__.py",
        "__init__.py",
    } <= names
    assert "experiments/survey/behaviour.py" not in names and "experiments/survey/model_size.py" not in names
    assert stamps.library_sha(path) != stamps.library_sha()  # the whole package is a different set
    nb.cells.append(nbformat.v4.new_code_cell("from bertology_lib.experiments.survey import model_size"))
    nbformat.write(nb, path)
    assert "model_size.py" in {f.name for f in stamps.library_closure(path)}
    nb.cells.append(nbformat.v4.new_code_cell("def broken(:"))
    nbformat.write(nb, path)
    assert len(stamps.library_closure(path)) == len(stamps.library_closure())  # unparsable: everything counts


def test_library_closure_follows_only_the_checkers_of_a_notebooks_own_exercises(tmp_path, monkeypatch):
    """The exercises package imports every checker module; a notebook depends only on those of its labels."""
    import nbformat

    from bertology_lib.book import stamps

    owners = stamps.checker_modules(stamps.library_modules())
    assert owners["ex-physics03-exposures"] == "bertology_lib.book.exercises.physics_03_pretrain_finetune"
    assert owners["ex-physics05-ceiling"] == "bertology_lib.book.exercises.physics_05_probing"
    nb = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_code_cell(
                'from bertology_lib.book.exercises import check\nprint(check("ex-physics03-exposures", (1, 2)))'
            )
        ]
    )
    path = tmp_path / "nb.ipynb"
    nbformat.write(nb, path)
    pkg = Path(stamps.__file__).parents[1]
    names = {f.relative_to(pkg).as_posix() for f in stamps.library_closure(path)}
    assert {
        "book/exercises/__init__.py",
        "book/exercises/checks.py",
        "book/exercises/physics_03_pretrain_finetune.py",
        "experiments/physics/training.py",
    } <= names  # its checker, and what that checker imports
    assert (
        not {
            "book/exercises/survey_02_architecture.py",
            "book/exercises/physics_04_celebrities.py",
            "experiments/survey/behaviour.py",
        }
        & names
    )
    nb.cells.append(nbformat.v4.new_code_cell("print(check('ex-physics04-exposures', 3))"))
    nbformat.write(nb, path)
    assert "book/exercises/physics_04_celebrities.py" in {
        f.relative_to(pkg).as_posix() for f in stamps.library_closure(path)
    }
    # a new notebook's checker module, found by its @checker decorators, changes no other notebook's stamp
    before = stamps.library_sha(path)
    new = tmp_path / "survey_09_new.py"
    new.write_text(
        'from bertology_lib.book.exercises.checks import checker\n\n\n@checker("ex-survey9-new")\n'
        'def _check(answer):\n    return True, "yes"\n'
    )
    real = stamps.library_modules
    monkeypatch.setattr(stamps, "library_modules", lambda: {**real(), f"{stamps.EXERCISES}.survey_09_new": new})
    assert stamps.checker_modules(stamps.library_modules())["ex-survey9-new"] == f"{stamps.EXERCISES}.survey_09_new"
    assert stamps.library_sha(path) == before
    # every label a book notebook checks has a checker module, so no exercise falls outside the closure
    for p in Path(stamps.__file__).parents[3].joinpath("notebooks").glob("*.ipynb"):
        code = "".join("".join(c["source"]) for c in nbformat.read(p, as_version=4).cells if c.cell_type == "code")
        assert set(stamps._LABEL_RE.findall(code)) <= set(owners), p.name


def test_stamps_hash_code_not_docstrings_comments_or_the_checker_registry(tmp_path):
    """A docstring or a comment leaves a stamp valid, a change of code does not; the exercises package names no
    checker module (it discovers them), so adding a notebook's checker module changes no other notebook's stamp."""
    from bertology_lib.book import stamps
    from bertology_lib.book.exercises import NOTEBOOK_MODULES

    def sha(text, module="pkg.mod"):
        f = tmp_path / "m.py"
        f.write_text(text)
        return stamps.hashed_source(f, module)

    base = sha('"""Doc."""\n\ndef f(x):\n    """Doc."""\n    return x + 1\n')
    assert sha('"""Another doc."""\n# a comment\n\n\ndef f(x):\n    return x + 1  # why\n') == base
    assert sha("def f(x):\n    return x + 2\n") != base
    assert sha('def f(x):\n    """Doc."""\n') == sha("def f(x):\n    pass\n")  # a body that was only a docstring
    known = stamps.library_modules()
    init = known[stamps.EXERCISES]
    owners = set(stamps.checker_modules(known).values())
    assert owners == {f"{stamps.EXERCISES}.{m}" for m in NOTEBOOK_MODULES}
    assert not stamps.imported_modules(init.read_text(), stamps.EXERCISES, True, known) & owners
    (tmp_path / "bad.py").write_bytes(b"def (:\n")
    assert stamps.hashed_source(tmp_path / "bad.py", "pkg.bad") == b"def (:\n"
