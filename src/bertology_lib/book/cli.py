"""The ``bertology`` command: list, run, build, claims, cache.

Every failure exits non-zero with one line saying what failed and where; every value is checked before
any work. Commands that compute (``run``, ``build``, ``regression``, ``train-minibert``, ``train-english-bert``,
``train-physics``, ``train-lab``) apply the thread policy first and print the thread count once; notebooks run
through :mod:`bertology_lib.book.execution`.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any, List, Optional

import typer

from bertology_lib import cache as cache_mod
from bertology_lib.book import claims as claims_mod
from bertology_lib.book import cli_jobs, conclusions, execution, null_run, stamps
from bertology_lib.book.cli_cache import cache_app
from bertology_lib.book.specs import SPECS, get_spec, notebook_paths, repo_root, validate_values
from bertology_lib.errors import BertologyError, ParameterError
from bertology_lib.profiles import PROFILE_NAMES

app = typer.Typer(
    help="BERTology Lab: run the book's notebooks, build the book, read the claims ledger.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
WIDTH = 100  # tables fit a 100-column terminal
REF_BOOK = execution.REFERENCES["quick"]
app.add_typer(cache_app, name="cache")


def _fail(msg: str, code: int = 1) -> None:
    typer.secho(f"error: {msg}", fg=typer.colors.RED, err=True)
    raise typer.Exit(code)


def did_you_mean(name: str, options: Any) -> str:
    """`` (did you mean X?)`` for the option closest to a mistyped ``name`` (compared with each option's start, so
    a prefix such as ``survey_4_2`` or ``physics_5`` finds its notebook; else the option holding the most of its
    parts, as ``syntax``), or ``""``."""
    import difflib

    def plain(x: str) -> str:  # numbers without their padding: survey_3_1 ~ survey_03_1, physics_5 ~ physics_05
        return re.sub(r"(?<![0-9])0+(?=[0-9])", "", x.lower())

    key, options = plain(name), list(options)
    best, ratio = None, 0.0
    for o in options:  # the option's start, a character shorter or longer too (a dropped or added letter)
        starts = {plain(o)[: max(n, 1)] for n in range(len(key) - 1, len(key) + 3)}
        r = max(difflib.SequenceMatcher(None, key, start).ratio() for start in starts)
        if r > ratio:
            best, ratio = o, r
    if ratio < 0.75:
        parts = [p for p in key.replace("-", "_").split("_") if p]
        scored = sorted(((sum(p in plain(o) for p in parts), o) for o in options), key=lambda t: -t[0])
        top = scored[0] if scored else (0, None)
        unique = len(scored) < 2 or top[0] > scored[1][0]
        best = top[1] if top[0] and unique else (best if ratio >= 0.6 else None)
    return f" (did you mean {best}?)" if best else ""


def _select(notebooks: list[str] | None, root: Path) -> list[Path]:
    """Resolve notebook arguments (paths or stems) to files, in book order."""
    if not notebooks:
        paths = notebook_paths(root)
        if not paths:
            _fail(f"no notebooks found under {root / 'notebooks'}")
        return paths
    out = []
    for n in notebooks:
        stem = Path(n).stem if Path(n).suffix == ".ipynb" else n
        if stem not in SPECS:
            raise ParameterError(
                f"notebook {n!r} is not part of the book{did_you_mean(stem, SPECS)}; `bertology list` shows all "
                f"{len(SPECS)}"
            )
        spec = get_spec(n)
        p = (
            Path(n).resolve()
            if Path(n).suffix == ".ipynb" and Path(n).is_file()
            else (root / "notebooks" / f"{spec.name}.ipynb")
        )
        if not p.is_file():
            _fail(f"notebook file {p} does not exist")
        out.append(p)
    return out


def _show(path: Path, root: Path) -> str:
    """A path relative to the checkout when it is inside it."""
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)


def _parse_params(raw: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in raw:
        if "=" not in item:
            raise ParameterError(f"-p {item!r}: give parameters as `-p key value` or `-p key=value`")
        k, v = item.split("=", 1)
        out[k.strip()] = v
    return out


def check_params(path: Path, profile: str | None, given: dict[str, str]) -> dict[str, Any]:
    """Validate (and type) the parameters for one notebook before any kernel starts."""
    spec = get_spec(path.stem)
    names = [q.name for q in spec.params]
    for k in given:
        if k not in names:
            raise ParameterError(
                f"{spec.name}: unknown parameter {k!r}{did_you_mean(k, names)}; allowed: {', '.join(names)}"
            )
    values: dict[str, Any] = dict(given)
    if profile is not None:
        if "profile" in given and given["profile"].strip() != profile:
            raise ParameterError(
                f"--profile {profile} and -p profile={given['profile']} disagree; give the profile once"
            )
        values["profile"] = profile
    checked = validate_values(spec.name, spec.params, values, coerce=True)
    check_model_ranges(spec, checked)
    # hand papermill only what was asked for and differs from the notebook's defaults, so that
    # a default run leaves no redundant injected-parameters cell in the executed notebook
    return {k: v for k, v in checked.items() if k in values and v != spec.param(k).default}


BLOCK_PARAMS = ("duplicate_k",)  # parameters that count a model's blocks: at most the model's number of blocks


def model_blocks(model: str, profile: str) -> int | None:
    """How many transformer blocks ``model`` has, told without loading or training it: the mini-BERT from its
    profile's config, MiniLM (and the English lab BERT built on its encoder, or trained from scratch at its
    profile's depth) from the config the package ships, a local folder from its ``config.json``; None for a
    hub name (its kernel checks it once loaded). A random-init twin has its model's blocks."""
    from bertology_lib.models import english_bert, minibert, registry

    name = registry.canonical_name(model)
    name = name.removeprefix(registry.RANDOM_INIT)
    if name == minibert.NAME:
        return int(minibert.MiniBertConfig.for_profile(profile).n_layers)
    if name == english_bert.NAME:
        cfg = english_bert.EnglishBertConfig.for_profile(profile)
        if cfg.route == "scratch":
            return int(cfg.n_layers)
        name = "minilm"
    folder = Path(registry.model_path(name)) if name == "minilm" else Path(name)
    config = folder / "config.json"
    if config.is_file():
        n = json.loads(config.read_text()).get("num_hidden_layers")
        return int(n) if isinstance(n, int) else None
    return None


def check_model_ranges(spec: Any, values: dict[str, Any]) -> None:
    """The ranges that depend on the model (``duplicate_k`` <= its blocks), checked before a kernel starts when
    the model's depth can be told without loading it (:func:`model_blocks`)."""
    model_param = next((q for q in spec.params if q.name == "model"), None)
    for k in BLOCK_PARAMS:
        if k not in {q.name for q in spec.params} or model_param is None:
            continue
        value = values.get(k, spec.param(k).default)
        model = str(values.get("model", model_param.default))
        profile = str(values.get("profile", spec.param("profile").default))
        n = model_blocks(model, profile)
        if n is not None and int(value) > n:
            raise ParameterError(
                f"{spec.name}: {k}={value} is out of range for model {model!r} at profile {profile} ({n} blocks); "
                f"allowed: 0..{n}"
            )


def _threads(jobs: int = 1) -> int:
    """Apply the thread policy (this process and every kernel it starts) and say the count once; with several
    jobs and no ``BERTOLOGY_THREADS``, the free cores are shared out between the jobs."""
    from bertology_lib.runtime import THREADS_ENV, free_cores

    asked = os.environ.get(THREADS_ENV)
    if jobs > 1 and not asked:
        os.environ[THREADS_ENV] = str(max(1, free_cores() // jobs))
    n = execution.apply_threads()
    why = (
        f"{THREADS_ENV}={asked}"
        if asked
        else f"the free cores now shared by {jobs} jobs"
        if jobs > 1
        else f"the free cores now; set {THREADS_ENV} to fix it"
    )
    typer.echo(f"threads: {n} per process and kernel ({why})")
    return n


def _run(
    notebooks,
    profile,
    params,
    *,
    mode: str = "folder",
    output_dir: Path | None = None,
    skip_up_to_date: bool = False,
    yes: bool = False,
    dry_run: bool = False,
    jobs: int = 1,
) -> tuple[int, int]:
    """Validate every notebook's parameters, then execute them; returns (up to date, executed).

    ``mode``: ``folder`` (``_build/runs/<notebook>-<params>/``), ``in-place`` (over the book's notebook,
    stamped; with ``skip_up_to_date`` a current stamp skips it) or ``output-dir`` (``output_dir/<name>``).
    ``jobs`` > 1: that many notebooks at a time, each in its own process
    (:func:`bertology_lib.book.execution.execute_parallel`, :func:`bertology_lib.book.cli_jobs.parallel_jobs`).
    """
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ParameterError(f"--jobs {jobs!r} is not allowed; allowed: an int >= 1")
    root = repo_root()
    paths = _select(notebooks, root)
    given = _parse_params(params or [])
    # validate everything first: a bad value fails in seconds, before any work
    plan = [(p, check_params(p, profile, given)) for p in paths]
    execution.confirm_full({q.get("profile", get_spec(p.stem).param("profile").default) for p, q in plan}, yes)
    _threads(jobs)
    env = stamps.current_environment()
    if skip_up_to_date:
        c = cache_mod.ArtifactCache()
        typer.echo(f"artifact cache: {c.root} ({sum(1 for _ in c.entries())} entries)")
    times: list[tuple[str, float]] = []
    todo: list[tuple[Path, dict[str, Any], Path]] = []
    fresh = 0
    for i, (path, p) in enumerate(plan, 1):
        out = {
            "in-place": path,
            "output-dir": Path(output_dir or ".") / path.name,
            "folder": execution.run_folder(root, path.stem, p) / path.name,
        }[mode]
        why = stamps.stale_reason(path, p, env=env) if skip_up_to_date else None
        if skip_up_to_date and why is None:
            typer.echo(
                f"[{i}/{len(plan)}] {_show(path, root)} is up to date (same sources, parameters, library "
                "and environment): not re-run"
            )
            fresh += 1
            continue
        verb = "would run" if dry_run else "queued" if jobs > 1 else "running"
        typer.echo(
            f"[{i}/{len(plan)}] {verb} {_show(path, root)} with {p or 'defaults'} -> {_show(out, root)}"
            + (f" ({why})" if why else "")
        )
        if dry_run:
            continue
        if jobs > 1:
            todo.append((path, p, out))
            continue
        lib = stamps.library_sha(path)  # the sources as they are when the run starts
        times.append((path.stem, execution.execute(path, p, out, root, echo=typer.echo)))
        stamps.stamp(out, p, env, lib=lib)
    if todo:
        typer.echo(f"{len(todo)} notebooks, {jobs} at a time:")
        t0 = time.perf_counter()
        times += execution.execute_parallel(cli_jobs.parallel_jobs(todo, mode, yes), jobs, root, echo=typer.echo)
        side_by_side = time.perf_counter() - t0
    if times:
        typer.echo("\nwall time per notebook:")
        for name, secs in times:
            typer.echo(f"  {name:<40s} {secs:8.1f} s")
        typer.echo(f"  {'total':<40s} {sum(s for _, s in times):8.1f} s")
        if todo:
            typer.echo(f"  {f'wall, {jobs} at a time':<40s} {side_by_side:8.1f} s")
    return fresh, len(plan) - fresh


@app.command("list")
def list_notebooks() -> None:
    """Every notebook with its parameters, defaults and comments (papermill inspection)."""
    import papermill as pm

    root = repo_root()
    for path in notebook_paths(root):
        spec = get_spec(path.stem)
        typer.secho(f"{_show(path, root)}  —  {spec.title}", bold=True)
        for name, info in pm.inspect_notebook(str(path)).items():
            allowed = spec.param(name).allowed() if name in {q.name for q in spec.params} else "?"
            typer.echo(f"    {name:<10s} = {info['default']:<10s} # {info['help']}")
            typer.echo(f"    {'':<10s}   allowed: {allowed}")


@app.command(context_settings={"help_option_names": ["-h", "--help"]})
def run(
    notebooks: Optional[List[str]] = typer.Argument(None, help="notebook paths or names; default: all"),
    profile: Optional[str] = typer.Option(None, "--profile", help=f"one of {', '.join(PROFILE_NAMES)}"),
    param: Optional[List[str]] = typer.Option(None, "-p", "--param", help="key value (or key=value); repeatable"),
    output_dir: Optional[Path] = typer.Option(None, "--output-dir", help="write executed copies here"),
    in_place: bool = typer.Option(False, "--in-place", help="write over the book's notebook (and stamp it)"),
    yes: bool = typer.Option(False, "--yes", help="run profile full even without a CUDA GPU"),
    jobs: int = typer.Option(
        1,
        "--jobs",
        "-j",
        help="notebooks at a time, each in its own process (the free "
        "cores are shared out unless BERTOLOGY_THREADS is set)",
    ),
    null: bool = typer.Option(
        False,
        "--null",
        help="the null-model run: every model replaced by its random-init "
        "twin, into _build/runs/null/, recorded in book/null_model_run.json "
        "(default notebooks: every one with a model parameter: §3-§7, duplication)",
    ),
) -> None:
    """Execute notebooks with papermill into _build/runs/<notebook>-<param=value,...>/ (the book's notebooks
    are not touched unless --in-place)."""
    if in_place and output_dir is not None:
        raise ParameterError(f"--in-place and --output-dir {output_dir} exclude each other; give one")
    if null:
        if in_place or output_dir is not None:
            raise ParameterError("--null writes to _build/runs/null/; it excludes --in-place and --output-dir")
        root = repo_root()
        names = notebooks or null_run.default_notebooks([q.stem for q in notebook_paths(root)])
        _null_runs(names, profile, param, yes)
        return
    mode = "in-place" if in_place else "output-dir" if output_dir is not None else "folder"
    _run(notebooks, profile, param, mode=mode, output_dir=output_dir, yes=yes, jobs=jobs)


def _null_runs(names, profile, param, yes: bool) -> None:
    """The null-model runs of ``names`` (every model parameter set to its random-init twin) into
    ``_build/runs/null/``, then the record (:func:`bertology_lib.book.null_run.write_record`)."""
    root = repo_root()
    for n in names:  # one notebook at a time: each has its own model parameters
        twins = [f"{k}={v}" for k, v in null_run.null_params(get_spec(n)).items()]
        _run([n], profile, twins + list(param or []), mode="output-dir", output_dir=root / null_run.NULL_DIR, yes=yes)
    typer.echo(f"null-model record: {_show(null_run.write_record(root, profile or 'quick'), root)}")


def all_size_tables() -> dict:
    """Every size table of the library and the book's experiments, by qualified name: imports the modules
    that hold one (a table registers itself on import; a test checks this list against the library)."""
    import bertology_lib.experiments.duplication.boost  # noqa: F401
    import bertology_lib.experiments.physics.config  # noqa: F401
    import bertology_lib.experiments.physics.grid  # noqa: F401
    import bertology_lib.experiments.physics.paraphrase  # noqa: F401
    import bertology_lib.experiments.survey.architecture  # noqa: F401
    import bertology_lib.experiments.survey.behaviour  # noqa: F401
    import bertology_lib.experiments.survey.english  # noqa: F401
    import bertology_lib.experiments.survey.model_size  # noqa: F401
    import bertology_lib.experiments.survey.perturbed  # noqa: F401
    import bertology_lib.experiments.survey.probing_limits  # noqa: F401
    import bertology_lib.experiments.survey.semantics  # noqa: F401
    import bertology_lib.experiments.survey.sizes  # noqa: F401
    import bertology_lib.experiments.survey.training  # noqa: F401
    import bertology_lib.models.english_bert  # noqa: F401
    import bertology_lib.models.minibert  # noqa: F401
    import bertology_lib.training.finetune  # noqa: F401
    from bertology_lib.profiles import size_tables

    return size_tables()


@app.command("profiles")
def profiles_cmd() -> None:
    """Every size table of the library and the book's experiments, profile by profile."""
    import pandas as pd

    from bertology_lib.profiles import DESCRIPTIONS, sizes_frame

    for name, desc in DESCRIPTIONS.items():
        typer.echo(f"{name:<6s} {desc}")
    with pd.option_context("display.max_colwidth", 40, "display.width", 100):
        for qualname, table in all_size_tables().items():
            typer.secho(f"\n{qualname}", bold=True)
            typer.echo(sizes_frame(table).to_string())


@app.command("train-minibert")
def train_minibert_cmd(
    profile: str = typer.Option("quick", "--profile", help=f"one of {', '.join(PROFILE_NAMES)}"),
    seed: int = typer.Option(0, "--seed", help="training seed (an int >= 0)"),
    yes: bool = typer.Option(False, "--yes", help="train profile full even without a CUDA GPU"),
) -> None:
    """Train (or find in the cache) the embedded mini-BERT; runs data-parallel under `accelerate launch`."""
    from bertology_lib.profiles import PROFILE_PARAM, SEED_PARAM

    PROFILE_PARAM.validate(profile)  # before any work: a bad value creates nothing
    SEED_PARAM.validate(seed)
    execution.confirm_full({profile}, yes)
    _threads()
    from bertology_lib.models import minibert
    from bertology_lib.training.minibert import train_minibert

    cfg = minibert.MiniBertConfig.for_profile(profile, seed=seed)
    folder = train_minibert(cfg)
    evals = minibert.history(folder)["evals"]
    typer.echo(f"{folder}: held-out MLM accuracy {evals[-1]['mlm_acc']:.3f}" if evals else str(folder))


@app.command("train-english-bert")
def train_english_bert_cmd(
    profile: str = typer.Option("quick", "--profile", help=f"one of {', '.join(PROFILE_NAMES)}"),
    seed: int = typer.Option(0, "--seed", help="training seed (an int >= 0)"),
    yes: bool = typer.Option(False, "--yes", help="train profile full even without a CUDA GPU"),
) -> None:
    """Train (or find in the cache) the English lab BERT (a shared model of the survey notebooks)."""
    from bertology_lib.profiles import PROFILE_PARAM, SEED_PARAM

    PROFILE_PARAM.validate(profile)
    SEED_PARAM.validate(seed)
    execution.confirm_full({profile}, yes)
    _threads()
    from bertology_lib.models.english_bert import EnglishBertConfig
    from bertology_lib.training.english_bert import history, train_english_bert

    folder = train_english_bert(EnglishBertConfig.for_profile(profile, seed=seed))
    last = history(folder)["evals"][-1]
    typer.echo(f"{folder}: held-out masked-word accuracy {last['mlm_acc']:.3f}, agreement {last['agreement_0']:.3f}")


@app.command("train-physics")
def train_physics_cmd(
    unit: str = typer.Argument(..., help="a unit of experiments.physics.jobs.units, e.g. grid-single-s0"),
    profile: str = typer.Option("quick", "--profile", help=f"one of {', '.join(PROFILE_NAMES)}"),
    seed: int = typer.Option(0, "--seed", help="the physics notebooks' seed parameter (an int >= 0)"),
    yes: bool = typer.Option(False, "--yes", help="train profile full even without a CUDA GPU"),
) -> None:
    """Train (or find in the cache) one unit of the physics notebooks' models (what `build --jobs N` runs side
    by side before the physics notebooks)."""
    _train_unit("physics", unit, profile, seed, yes)


@app.command("train-lab")
def train_lab_cmd(
    unit: str = typer.Argument(..., help="a unit of experiments.survey.lab_jobs.units, e.g. lab-whole-word-s0"),
    profile: str = typer.Option("quick", "--profile", help=f"one of {', '.join(PROFILE_NAMES)}"),
    seed: int = typer.Option(0, "--seed", help="the §5 notebooks' seed parameter (an int >= 0)"),
    yes: bool = typer.Option(False, "--yes", help="train profile full even without a CUDA GPU"),
) -> None:
    """Train (or find in the cache) one lab BERT of the survey's §5 notebooks, with its fine-tuning (what
    `build --jobs N` runs side by side before those notebooks)."""
    _train_unit("lab", unit, profile, seed, yes)


def _train_unit(part: str, unit: str, profile: str, seed: int, yes: bool) -> None:
    from bertology_lib.profiles import PROFILE_PARAM, SEED_PARAM

    PROFILE_PARAM.validate(profile)  # before any work: a bad value creates nothing
    SEED_PARAM.validate(seed)
    if part == "physics":
        from bertology_lib.experiments.physics import jobs
    else:
        from bertology_lib.experiments.survey import lab_jobs as jobs
    names = [u.name for u in jobs.units(profile, seed)]
    if unit not in names:
        what = "a physics unit" if part == "physics" else "a lab BERT"
        raise ParameterError(f"unit={unit!r} is not {what} of profile {profile!r}; allowed: {', '.join(names)}")
    execution.confirm_full({profile}, yes)
    _threads()
    start = time.perf_counter()
    jobs.run_unit(profile, seed, unit)
    typer.echo(f"{unit}: {time.perf_counter() - start:.1f} s")


@app.command()
def regression(
    notebooks: Optional[List[str]] = typer.Argument(None, help="notebook paths or names; default: all"),
) -> None:
    """Regenerate the smoke-profile nbval copies in tests/regression/ (at 1 thread and the AVX2 code paths,
    the environment the test suite compares them in)."""
    root = repo_root()
    execution.pin_regression_environment()
    _run(notebooks, "smoke", [], mode="output-dir", output_dir=root / "tests" / "regression")


@app.command("export-student")
def export_student_cmd(
    notebooks: Optional[List[str]] = typer.Argument(None, help="notebook paths or names; default: all"),
    out: Optional[Path] = typer.Option(
        None, "--out", help="folder for student/<name>.ipynb and teacher/<name>.ipynb; default: _build/student"
    ),
) -> None:
    """Write student notebooks (solutions stubbed, outputs cleared) and teacher copies."""
    from bertology_lib.book.exercises import export_student, export_teacher

    root = repo_root()
    dest = out if out is not None else root / "_build" / "student"
    for path in _select(notebooks, root):
        s = export_student(path, dest / "student" / path.name)
        t = export_teacher(path, dest / "teacher" / path.name)
        typer.echo(f"{_show(path, root)} -> {_show(s, root)}, {_show(t, root)}")


def write_ledger_page(root: Path) -> Path:
    """Regenerate ``book/claims_ledger.md`` and ``book/findings.md`` from the executed notebooks."""
    paths = notebook_paths(root)
    claims = claims_mod.collect(paths)
    stale = {p.stem: why for p in paths if (why := conclusions.stale_note(p))}
    titles = {name: spec.title for name, spec in SPECS.items()}
    parts = {name: spec.part for name, spec in SPECS.items()}
    for name, text in (
        ("claims_ledger.md", claims_mod.ledger_markdown(claims, titles, parts)),
        (
            "findings.md",
            conclusions.findings_markdown(claims, titles, parts, stale)
            + "\n".join(null_run.findings_section(null_run.load_record(root), null_run.currency(root))),
        ),
    ):
        page = root / "book" / name
        tmp = page.with_suffix(".md.tmp")
        tmp.write_text(text)
        os.replace(tmp, page)
    return root / "book" / "claims_ledger.md"


@app.command()
def build(
    profile: str = typer.Option("quick", "--profile", help=f"one of {', '.join(PROFILE_NAMES)}"),
    execute_notebooks: bool = typer.Option(True, "--run/--no-run", help="execute notebooks first"),
    force: bool = typer.Option(False, "--force", help="re-execute every notebook, even when up to date"),
    dry_run: bool = typer.Option(False, "--dry-run", help="say what would be executed, build nothing"),
    yes: bool = typer.Option(False, "--yes", help="run profile full even without a CUDA GPU"),
    jobs: int = typer.Option(
        1,
        "--jobs",
        "-j",
        help="notebooks at a time, each in its own process (the free "
        "cores are shared out unless BERTOLOGY_THREADS is set)",
    ),
    null: bool = typer.Option(
        True,
        "--null/--no-null",
        help="after executing, rerun the null-model run of every notebook whose null run no longer matches "
        "the book's run of it (its stamp changed; book/null_model_run.json)",
    ),
) -> None:
    """Execute the notebooks in place (those not up to date: a stamp records their sources, parameters,
    library and environment; all with --force), rerun the null-model runs that no longer match them (unless
    --no-null), regenerate the claims ledger page, build the HTML book."""
    root = repo_root()
    if execute_notebooks:
        fresh, ran = _run(
            None, profile, [], mode="in-place", skip_up_to_date=not force, yes=yes, dry_run=dry_run, jobs=jobs
        )
        did = "would be executed" if dry_run else "executed"
        typer.secho(
            f"{fresh} up to date, {ran} {did}"
            + (
                "; --force re-executes every notebook"
                if force
                else "; `make book FORCE=1` (bertology build --force) re-executes all"
            ),
            bold=True,
        )
    if execute_notebooks and null:
        behind = [n for n, why in null_run.currency(root).items() if why]
        if dry_run:
            typer.echo(
                f"null-model runs that would be rerun (they no longer match the book's runs): {len(behind)}"
                + (f" ({', '.join(behind)})" if behind else "")
            )
        elif behind:
            typer.secho(f"null-model runs to rerun (they no longer match the book's runs): {len(behind)}", bold=True)
            _null_runs(behind, profile, [], yes)
    if dry_run:
        return
    page = write_ledger_page(root)
    typer.echo(f"wrote {page.relative_to(root)}")
    # A clean build: no page of an earlier table of contents survives in _build/html.
    shutil.rmtree(root / "_build" / "html", ignore_errors=True)
    shutil.rmtree(root / "_build" / ".doctrees", ignore_errors=True)
    jb = Path(sys.executable).with_name("jupyter-book")
    cmd = [str(jb) if jb.exists() else "jupyter-book", "build", str(root), "--all", "--warningiserror", "--keep-going"]
    typer.echo(" ".join(cmd))
    rc = subprocess.call(cmd, cwd=root)
    if rc != 0:
        _fail(f"jupyter-book build failed (exit {rc}); see the warnings above", rc)
    typer.echo(f"book: {root / '_build' / 'html' / 'index.html'}")


def _wrap(text: str, indent: int = 4) -> str:
    return textwrap.fill(text, WIDTH, subsequent_indent=" " * indent, break_on_hyphens=False)


@app.command()
def claims(
    as_json: bool = typer.Option(False, "--json", help="print JSON instead of a table"),
    markdown: bool = typer.Option(False, "--markdown", help="print the ledger page's Markdown"),
    wide: bool = typer.Option(False, "--wide", help="one wide table row per claim (wider than 100 columns)"),
    runs: bool = typer.Option(False, "--runs", help="claims of the executed runs beside the book's"),
    runs_dir: Optional[Path] = typer.Option(
        None, "--runs-dir", help="where the runs are (implies --runs; default _build/runs; also reads an --output-dir)"
    ),
) -> None:
    """The claims ledger, read back from the executed notebooks (or runs beside the book's values)."""
    root = repo_root()
    if runs or runs_dir is not None:
        folder = runs_dir if runs_dir is not None else root / execution.RUNS
        if runs_dir is not None and not folder.is_dir():
            raise ParameterError(
                f"--runs-dir {folder} is not a folder; `bertology run` writes runs to {execution.RUNS}"
            )
        rows = execution.run_comparison(root, folder) if folder.is_dir() else []
        if as_json:
            typer.echo(json.dumps(rows, indent=2))
            return
        if not rows:
            typer.echo(f"no claims in executed runs under {_show(folder, root)} (`bertology run` writes them)")
        last = None
        for r in rows:
            if r["run"] != last:
                last = r["run"]
                label = ", ".join(f"{k}={v}" for k, v in r["params"].items()) or "defaults"
                typer.secho(_wrap(f"{r['run']}  ({label})"), bold=True)
                ref = next((x["reference"] for x in rows if x["run"] == last and x["reference"]), None)
                typer.echo(
                    _wrap(
                        f"  compared with {ref} (profile {r['profile']})"
                        if ref
                        else f"  profile {r['profile']}: no reference holds these claims (the book is quick, the "
                        "smoke copies smoke); its values stand alone",
                        indent=4,
                    )
                )
            flag = ("   <- verdict differs" if r["same_verdict"] is False else "") + (
                "   <- beyond the rerun tolerance" if r["within_tolerance"] is False else ""
            )
            where = "book" if r["reference"] == REF_BOOK else "copy" if r["reference"] else "ref."  # fits 100 columns
            typer.echo(
                _wrap(
                    f"  {r['id']}: {where} {r['book_shown']} ({r['book_verdict'] or 'none'}); "
                    f"run {r['run_shown']} ({r['run_verdict']}){flag}",
                    indent=6,
                )
            )
        compared = [r for r in rows if r["book_verdict"] is not None]
        n_diff = sum(r["same_verdict"] is False for r in rows)
        n_far = sum(r["within_tolerance"] is False for r in rows)
        typer.echo(
            _wrap(
                f"{len(rows)} claims in runs, {len(compared)} compared with a reference of their own profile; "
                f"{n_diff} with a verdict other than the reference's, {n_far} with a value beyond the rerun "
                "tolerance (book/rerun.md: inside the reference's interval, or within 10% for a single number)",
                indent=0,
            )
        )
        return
    items = claims_mod.collect(notebook_paths(root))
    if as_json:
        typer.echo(json.dumps([c.to_dict() for c in items], indent=2))
    elif markdown:
        typer.echo(
            claims_mod.ledger_markdown(
                items, {n: s.title for n, s in SPECS.items()}, {n: s.part for n, s in SPECS.items()}
            )
        )
    elif wide:
        import pandas as pd

        df = claims_mod.ledger_frame(items)
        with pd.option_context("display.max_colwidth", 60, "display.width", 200):
            typer.echo(
                df[["verdict", "id", "paper", "ours", "rule", "notebook", "profile"]].to_string(index=False)
                if len(df)
                else "no claims recorded yet"
            )
    else:
        for c in items:
            typer.echo(_wrap(f"{c.verdict.upper():<14s} {c.id}  [{c.notebook}, {c.profile}]"))
            typer.echo(
                _wrap(
                    f"    paper {claims_mod.with_unit(c.paper, c.unit)}; ours "
                    f"{claims_mod.with_unit(c.ours, c.unit)}; rule: {c.rule}"
                )
            )
        if not items:
            typer.echo("no claims recorded yet")
    if not as_json and not markdown:
        typer.echo(", ".join(f"{n} {v}" for v, n in claims_mod.summary(items).items()))


def normalize_argv(argv: list[str]) -> list[str]:
    """Accept papermill's ``-p key value`` as well as ``-p key=value``."""
    out: list[str] = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("-p", "--param") and i + 2 < len(argv) and "=" not in argv[i + 1]:
            out += [a, f"{argv[i + 1]}={argv[i + 2]}"]
            i += 3
            continue
        out.append(a)
        i += 1
    return out


def main() -> None:
    """Console entry point."""
    argv = normalize_argv(sys.argv[1:])
    try:
        rv = app(args=argv, prog_name="bertology", standalone_mode=False)
        if isinstance(rv, int):  # click returns Exit codes when not standalone
            sys.exit(rv)
    except typer.Exit as e:
        sys.exit(e.exit_code)
    except typer.Abort as e:  # click turns Ctrl-C outside a notebook (and a declined prompt) into Abort
        if isinstance(e.__cause__, KeyboardInterrupt):
            typer.secho("interrupted", fg=typer.colors.RED, err=True)
            sys.exit(130)
        sys.exit(1)
    except execution.RunInterrupted as e:
        typer.secho(str(e), fg=typer.colors.RED, err=True)
        sys.exit(130)
    except KeyboardInterrupt:
        typer.secho("interrupted", fg=typer.colors.RED, err=True)
        sys.exit(130)
    except (ParameterError, BertologyError, FileNotFoundError) as e:
        typer.secho(f"error: {e}", fg=typer.colors.RED, err=True)
        sys.exit(2)
    except Exception as e:  # click usage errors and the unexpected
        import click

        if isinstance(e, click.ClickException):
            e.show()
            sys.exit(e.exit_code)
        typer.secho(f"error: {e.__class__.__name__}: {e}", fg=typer.colors.RED, err=True)
        sys.exit(1)


if __name__ == "__main__":
    main()
