"""The ``bertology`` command: list, run, build, claims, cache.

Every failure exits non-zero with a message saying what failed and where.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, List, Optional

import typer

from bertology_lib import cache as cache_mod
from bertology_lib.book import claims as claims_mod
from bertology_lib.book.specs import SPECS, get_spec, notebook_paths, repo_root, validate_values
from bertology_lib.book.stamps import stamp, up_to_date
from bertology_lib.errors import BertologyError, ParameterError
from bertology_lib.profiles import PROFILE_NAMES

app = typer.Typer(
    help="BERTology Lab: run the book's notebooks, build the book, read the claims ledger.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
cache_app = typer.Typer(help="Inspect or clear the artifact cache.", no_args_is_help=True)
app.add_typer(cache_app, name="cache")


def _fail(msg: str, code: int = 1) -> None:
    typer.secho(f"error: {msg}", fg=typer.colors.RED, err=True)
    raise typer.Exit(code)


def _select(notebooks: list[str] | None, root: Path) -> list[Path]:
    """Resolve notebook arguments (paths or stems) to files, in book order."""
    if not notebooks:
        paths = notebook_paths(root)
        if not paths:
            _fail(f"no notebooks found under {root / 'notebooks'}")
        return paths
    out = []
    for n in notebooks:
        spec = get_spec(n)  # raises ParameterError listing the allowed notebooks
        p = Path(n).resolve() if Path(n).suffix == ".ipynb" and Path(n).is_file() else (
            root / "notebooks" / f"{spec.name}.ipynb"
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
            raise ParameterError(
                f"-p {item!r}: give parameters as `-p key value` or `-p key=value`"
            )
        k, v = item.split("=", 1)
        out[k.strip()] = v
    return out


def _check_params(path: Path, profile: str | None, given: dict[str, str]) -> dict[str, Any]:
    """Validate (and type) the parameters for one notebook before any kernel starts."""
    spec = get_spec(path.stem)
    values: dict[str, Any] = dict(given)
    if profile is not None:
        values["profile"] = profile
    checked = validate_values(spec.name, spec.params, values, coerce=True)
    # hand papermill only what was asked for and differs from the notebook's defaults, so that
    # a default run leaves no redundant injected-parameters cell in the executed notebook
    return {k: v for k, v in checked.items() if k in values and v != spec.param(k).default}


def execute(path: Path, params: dict[str, Any], output: Path, progress: bool = True) -> float:
    """Execute ``path`` with papermill into ``output`` atomically; return wall seconds.

    The notebook runs with its own folder as the working directory. On
    failure ``output`` is left untouched and the partial notebook is kept at
    ``_build/failed/<name>.ipynb`` for inspection.
    """
    import papermill as pm

    output.parent.mkdir(parents=True, exist_ok=True)
    tmp = output.parent / f".{output.stem}.running.ipynb"
    t0 = time.perf_counter()
    try:
        pm.execute_notebook(
            str(path), str(tmp), parameters=params, progress_bar=progress,
            cwd=str(path.parent), kernel_name="python3",
        )
    except BaseException:
        failed = repo_root() / "_build" / "failed" / path.name
        failed.parent.mkdir(parents=True, exist_ok=True)
        if tmp.exists():
            shutil.move(str(tmp), failed)
        raise
    os.replace(tmp, output)
    return time.perf_counter() - t0


















def _run(notebooks, profile, params, output_dir, skip_up_to_date: bool = False) -> list[tuple[str, float]]:
    from papermill.exceptions import PapermillExecutionError
    from tqdm.auto import tqdm

    root = repo_root()
    paths = _select(notebooks, root)
    given = _parse_params(params or [])
    # validate everything first: a bad value fails in seconds, before any work
    plan = [(p, _check_params(p, profile, given)) for p in paths]
    times: list[tuple[str, float]] = []
    bar = tqdm(plan, desc="notebooks", unit="nb", disable=len(plan) < 2)
    for path, p in bar:
        bar.set_postfix_str(path.stem)
        out = (Path(output_dir) / path.name) if output_dir else path
        if skip_up_to_date and out == path and up_to_date(path, p):
            typer.echo(f"{_show(path, root)} is up to date (same sources, parameters and library): not re-run")
            continue
        typer.echo(f"running {_show(path, root)} with {p or 'defaults'} -> {out}")
        try:
            times.append((path.stem, execute(path, p, out)))
            stamp(out, p)
        except PapermillExecutionError as e:
            _fail(
                f"{_show(path, root)} failed in cell {e.exec_count} "
                f"({e.ename}: {e.evalue}); partial output in _build/failed/{path.name}"
            )
    typer.echo("\nwall time per notebook:")
    for name, secs in times:
        typer.echo(f"  {name:<40s} {secs:8.1f} s")
    typer.echo(f"  {'total':<40s} {sum(s for _, s in times):8.1f} s")
    return times


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
    output_dir: Optional[Path] = typer.Option(None, "--output-dir", help="write executed copies here instead of in place"),
) -> None:
    """Execute notebooks with papermill (in place by default)."""
    _run(notebooks, profile, param, output_dir)


@app.command("profiles")
def profiles_cmd() -> None:
    """Every size table of the library and the book's experiments, profile by profile."""
    import pandas as pd

    from bertology_lib.profiles import DESCRIPTIONS, sizes_frame, size_tables

    for name, desc in DESCRIPTIONS.items():
        typer.echo(f"{name:<6s} {desc}")
    with pd.option_context("display.max_colwidth", 40, "display.width", 100):
        for qualname, table in size_tables().items():
            typer.secho(f"\n{qualname}", bold=True)
            typer.echo(sizes_frame(table).to_string())


@app.command("train-minibert")
def train_minibert_cmd(
    profile: str = typer.Option("quick", "--profile", help=f"one of {', '.join(PROFILE_NAMES)}"),
    seed: int = typer.Option(0, "--seed", help="training seed (an int >= 0)"),
) -> None:
    """Train (or find in the cache) the embedded mini-BERT; runs data-parallel under `accelerate launch`."""
    from bertology_lib.models import minibert

    cfg = minibert.MiniBertConfig.for_profile(profile, seed=seed)
    folder = minibert.train_minibert(cfg)
    evals = minibert.history(folder)["evals"]
    typer.echo(f"{folder}: held-out MLM accuracy {evals[-1]['mlm_acc']:.3f}" if evals else str(folder))


@app.command()
def regression(
    notebooks: Optional[List[str]] = typer.Argument(None, help="notebook paths or names; default: all"),
) -> None:
    """Regenerate the smoke-profile nbval copies in tests/regression/."""
    root = repo_root()
    _run(notebooks, "smoke", [], root / "tests" / "regression")


@app.command("export-student")
def export_student_cmd(
    notebooks: Optional[List[str]] = typer.Argument(None, help="notebook paths or names; default: all"),
    out: Optional[Path] = typer.Option(
        None, "--out", help="folder for student/<name>.ipynb and teacher/<name>.ipynb; default: _build/student"),
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
    claims = claims_mod.collect(notebook_paths(root))
    titles = {name: spec.title for name, spec in SPECS.items()}
    parts = {name: spec.part for name, spec in SPECS.items()}
    for name, text in (("claims_ledger.md", claims_mod.ledger_markdown(claims, titles, parts)),
                       ("findings.md", claims_mod.findings_markdown(claims, titles, parts))):
        page = root / "book" / name
        tmp = page.with_suffix(".md.tmp")
        tmp.write_text(text)
        os.replace(tmp, page)
    return root / "book" / "claims_ledger.md"


@app.command()
def build(
    profile: str = typer.Option("quick", "--profile", help=f"one of {', '.join(PROFILE_NAMES)}"),
    execute_notebooks: bool = typer.Option(True, "--run/--no-run", help="execute notebooks first"),
    force: bool = typer.Option(False, "--force", help="re-execute notebooks even when up to date"),
) -> None:
    """Execute every notebook (skipping those already executed from the same sources, parameters and
    library), regenerate the claims ledger page, build the HTML book."""
    root = repo_root()
    if execute_notebooks:
        _run(None, profile, [], None, skip_up_to_date=not force)
    page = write_ledger_page(root)
    typer.echo(f"wrote {page.relative_to(root)}")
    # A clean build: no page of an earlier table of contents survives in _build/html.
    shutil.rmtree(root / "_build" / "html", ignore_errors=True)
    shutil.rmtree(root / "_build" / ".doctrees", ignore_errors=True)
    jb = Path(sys.executable).with_name("jupyter-book")
    cmd = [str(jb) if jb.exists() else "jupyter-book", "build", str(root), "--all",
           "--warningiserror", "--keep-going"]
    typer.echo(" ".join(cmd))
    rc = subprocess.call(cmd, cwd=root)
    if rc != 0:
        _fail(f"jupyter-book build failed (exit {rc}); see the warnings above", rc)
    typer.echo(f"book: {root / '_build' / 'html' / 'index.html'}")


@app.command()
def claims(
    as_json: bool = typer.Option(False, "--json", help="print JSON instead of a table"),
    markdown: bool = typer.Option(False, "--markdown", help="print the ledger page's Markdown"),
) -> None:
    """The claims ledger, read back from the executed notebooks."""
    root = repo_root()
    items = claims_mod.collect(notebook_paths(root))
    if as_json:
        typer.echo(json.dumps([c.to_dict() for c in items], indent=2))
    elif markdown:
        typer.echo(claims_mod.ledger_markdown(items, {n: s.title for n, s in SPECS.items()},
                                              {n: s.part for n, s in SPECS.items()}))
    else:
        import pandas as pd

        df = claims_mod.ledger_frame(items)
        with pd.option_context("display.max_colwidth", 60, "display.width", 200):
            typer.echo(df[["verdict", "id", "paper", "ours", "rule", "notebook", "profile"]].to_string(index=False)
                       if len(df) else "no claims recorded yet")
        typer.echo(", ".join(f"{n} {v}" for v, n in claims_mod.summary(items).items()))


@cache_app.command("ls")
def cache_ls() -> None:
    """List cache entries (kind, key, size, age)."""
    c = cache_mod.ArtifactCache()
    typer.echo(f"cache root: {c.root}")
    n = 0
    for e in c.entries():
        n += 1
        age = time.strftime("%Y-%m-%d %H:%M", time.localtime(e.created)) if e.created else "corrupt"
        cfg = json.dumps(e.config, sort_keys=True)
        typer.echo(f"  {e.kind:<16s} {e.key}  {e.size / 1e6:8.2f} MB  {age}  {cfg[:80]}")
    typer.echo(f"{n} entries")


@cache_app.command("clear")
def cache_clear(
    kind: Optional[str] = typer.Option(None, "--kind", help="only entries of this kind"),
    yes: bool = typer.Option(False, "--yes", "-y", help="do not ask"),
) -> None:
    """Remove cache entries (all, or one kind)."""
    c = cache_mod.ArtifactCache()
    if not yes:
        typer.confirm(f"remove {'all' if kind is None else kind} entries under {c.root}?", abort=True)
    typer.echo(f"removed {c.clear(kind)} entries from {c.root}")


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
    except typer.Abort:
        sys.exit(1)
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
