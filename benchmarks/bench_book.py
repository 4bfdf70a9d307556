"""Book build wall time: cold (empty artifact cache, every notebook executed) vs warm (nothing changed).

`bertology build` re-executes a notebook only when its cell sources, its parameters or the library's
sources differ from the stamp written when it last ran (`cli.up_to_date`); a warm build therefore only
regenerates the ledger pages and renders HTML. This script times both, one after the other, in a copy
of the repository so the working tree is untouched:

    .venv/bin/python benchmarks/bench_book.py            # warm only: executes what is stale, then times a warm build
    .venv/bin/python benchmarks/bench_book.py --cold     # also a cold build on an empty cache first (an hour or more on 2 cores)

Targets (benchmarks issue): cold <= 2 h, warm <= 2 min on 2 CPU cores, profile quick.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _build(repo: Path, env: dict, *extra: str) -> float:
    bertology = Path(sys.executable).with_name("bertology")
    t0 = time.perf_counter()
    subprocess.run([str(bertology), "build", "--profile", "quick", *extra], cwd=repo, env=env, check=True)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cold", action="store_true", help="first build on an empty artifact cache (slow)")
    args = ap.parse_args()
    print(f"load average at start: {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "repo"
        shutil.copytree(ROOT, repo, ignore=shutil.ignore_patterns(".venv", "_build", ".git", "__pycache__"))
        if (ROOT.parent / "shared").exists() and not (Path(tmp) / "shared").exists():
            os.symlink(ROOT.parent / "shared", Path(tmp) / "shared")  # real data sits beside the repository
        env = dict(os.environ)
        if args.cold:
            env["BERTOLOGY_CACHE"] = str(Path(tmp) / "cache")
            cold = _build(repo, env, "--force")
            print(f"cold build (empty cache, every notebook executed): {cold / 60:.1f} min")
        else:
            first = _build(repo, env)
            print(f"first build (stale notebooks executed with the existing cache): {first / 60:.1f} min")
        warm = _build(repo, env)
        print(f"warm build (nothing changed: ledger + rendering only): {warm:.0f} s")
    print(f"load average at end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
