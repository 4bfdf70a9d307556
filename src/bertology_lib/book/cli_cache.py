"""``bertology cache``: inspect, prune or clear the artifact cache (:mod:`bertology_lib.cache`)."""

from __future__ import annotations

import json
import textwrap
import time
from pathlib import Path
from typing import Any, Optional

import typer

from bertology_lib import cache as cache_mod

cache_app = typer.Typer(help="Inspect, prune or clear the artifact cache.", no_args_is_help=True)
WIDTH = 100  # tables fit a 100-column terminal


def _show(path: Path, root: Path) -> str:
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)


def _wrap(text: str, indent: int = 4) -> str:
    return textwrap.fill(text, WIDTH, subsequent_indent=" " * indent, break_on_hyphens=False)


def human_size(n: float) -> str:
    """A byte count as B, kB, MB or GB with one decimal."""
    for unit, div in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= div:
            return f"{n / div:.1f} {unit}"
    return f"{int(n)} B"


def _flat(obj: Any, prefix: str = "") -> dict[str, str]:
    if isinstance(obj, dict) or (isinstance(obj, list) and any(isinstance(v, dict) for v in obj)):
        out: dict[str, str] = {}  # a list of configs (e.g. a lab BERT's training phases) by index: train.1.seed
        for k, v in obj.items() if isinstance(obj, dict) else enumerate(obj):
            out.update(_flat(v, f"{prefix}{k}."))
        return out
    v = json.dumps(obj, separators=(",", ":"), default=str)
    if isinstance(obj, str) and len(obj) >= 32:  # a hash of another artifact: its head names it
        v = obj[:12] + "..."
    return {prefix[:-1]: v}


def config_summaries(entries: list) -> dict[Path, str]:
    """Per entry: the config fields that differ between entries of its kind (all fields for a kind with
    one entry), ``key=value`` flattened, at most ~250 characters."""
    by_kind: dict[str, list] = {}
    for e in entries:
        by_kind.setdefault(e.kind, []).append(e)
    out = {}
    for group in by_kind.values():
        flats = [_flat(e.config) for e in group]
        keys = sorted(set().union(*flats))
        differ = [k for k in keys if len({f.get(k) for f in flats}) > 1] if len(group) > 1 else keys
        for e, f in zip(group, flats):
            text = " ".join(f"{k}={f.get(k, '-')}" for k in (differ or keys))
            out[e.path] = (
                "corrupt (no valid manifest)"
                if e.config == {"corrupt": True}
                else (text if len(text) <= 250 else text[:247] + "...")
            )
    return out


def built_summary(built: dict) -> str:
    """What built an entry, in one line: ``torch 2.13.0, transformers 5.x, numpy 2.x, 1 thread, <CPU>``."""
    parts = [f"{k} {built[k]}" for k in ("torch", "transformers", "numpy") if k in built]
    if "threads" in built:
        parts.append(f"{built['threads']} thread" + ("" if built["threads"] == 1 else "s"))
    if "cpu" in built:
        parts.append(str(built["cpu"]))
    return ", ".join(parts)


@cache_app.command("ls")
def cache_ls() -> None:
    """List cache entries (kind and its version, key, size, date, the config fields that tell entries of a kind
    apart, what built each: versions, threads, CPU), the total size, and temporary folders left by builds that
    died."""
    c = cache_mod.ArtifactCache()
    typer.echo(f"cache root: {c.root}")
    entries = list(c.entries())
    summary = config_summaries(entries)
    for e in entries:
        age = time.strftime("%Y-%m-%d %H:%M", time.localtime(e.created)) if e.created else "corrupt"
        kind = e.kind if e.version is None else f"{e.kind} v{e.version}"  # no version: built before 2026-12-05
        typer.echo(f"{kind:<25s} {e.key}  {human_size(e.size):>9s}  {age}")
        typer.echo(textwrap.fill(summary[e.path], WIDTH, initial_indent="    ", subsequent_indent="    "))
        if e.built:
            typer.echo(
                textwrap.fill(built_summary(e.built), WIDTH, initial_indent="    built: ", subsequent_indent="    ")
            )
    typer.echo(f"{len(entries)} entries, {human_size(sum(e.size for e in entries))}")
    temps = list(c.temp_entries())
    if temps:
        typer.echo(
            _wrap(
                "temporary folders (builds in progress, or stale: left by a process that died; "
                "`bertology cache prune` removes the stale ones):",
                indent=0,
            )
        )
        for t in temps:
            state = f"in use by pid {t.pid}" if t.alive else (f"stale: pid {t.pid} is gone" if t.pid else "stale")
            typer.echo(f"  {_show(Path(t.path), c.root)}  {human_size(t.size)}  {state}")
        stale = [t for t in temps if not t.alive]
        typer.echo(f"{len(stale)} stale temporary folders, {human_size(sum(t.size for t in stale))}")


@cache_app.command("prune")
def cache_prune() -> None:
    """Remove the temporary folders of builds whose process died (never a live build's)."""
    c = cache_mod.ArtifactCache()
    size = sum(t.size for t in c.temp_entries() if not t.alive)
    n = c.prune()
    typer.echo(f"removed {n} stale temporary folders ({human_size(size)}) from {c.root}")


@cache_app.command("clear")
def cache_clear(
    kind: Optional[str] = typer.Option(None, "--kind", help="only entries of this kind"),
    yes: bool = typer.Option(False, "--yes", "-y", help="do not ask"),
) -> None:
    """Remove cache entries (all, or one kind)."""
    c = cache_mod.ArtifactCache()
    if kind is not None and kind not in {e.kind for e in c.entries()}:
        # nothing of this kind is here: an unknown kind fails naming the known ones, a known one removes 0
        typer.echo(f"removed {c.clear(kind)} entries from {c.root} (none of kind {kind})")
        return
    if not yes:
        typer.confirm(f"remove {'all' if kind is None else kind} entries under {c.root}?", abort=True)
    typer.echo(f"removed {c.clear(kind)} entries from {c.root}")
