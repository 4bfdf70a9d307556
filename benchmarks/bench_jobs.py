"""Notebooks one at a time vs side by side (`bertology run --jobs N`), each from an empty artifact cache.

Runs the same notebooks twice in one go, first with ``--jobs 1`` at ``--threads`` threads (the cores given to
one notebook), then with ``--jobs N`` at one thread each, each time into a scratch folder (``--output-dir``)
with a fresh cache, and prints both walls and the notebooks' own times:

    .venv/bin/python benchmarks/bench_jobs.py --profile smoke                  # a few seconds each
    .venv/bin/python benchmarks/bench_jobs.py --profile quick physics_01_biographies survey_03_3_world_knowledge

Both runs train what they need themselves (the mini-BERT for survey and duplication notebooks), so the numbers
are cold times. Results: benchmarks/README.md, "Notebooks side by side".
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = ["survey_02_architecture", "survey_03_3_world_knowledge", "physics_01_biographies", "physics_02_mixed_training"]


def _run(notebooks: list[str], profile: str, jobs: int, threads: int, scratch: Path) -> tuple[float, str]:
    env = {**os.environ, "BERTOLOGY_CACHE": str(scratch / "cache"), "BERTOLOGY_THREADS": str(threads)}
    cmd = [sys.executable, "-m", "bertology_lib.book.cli", "run", *notebooks, "--profile", profile,
           "--output-dir", str(scratch / "out"), "--jobs", str(jobs)]
    t0 = time.perf_counter()
    r = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if r.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}")
    table = r.stdout[r.stdout.index("wall time per notebook:"):]
    return wall, re.sub(r"\n+$", "", table)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("notebooks", nargs="*", default=DEFAULT)
    ap.add_argument("--profile", default="smoke")
    ap.add_argument("--jobs", type=int, default=2, help="notebooks side by side in the second run")
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1,
                    help="threads of the one-at-a-time run (default: every core)")
    args = ap.parse_args()
    print(f"{len(args.notebooks)} notebooks at {args.profile}, {os.cpu_count()} cores, "
          f"load average at start {os.getloadavg()[0]:.2f}")
    walls = {}
    for jobs, threads in ((1, args.threads), (args.jobs, 1)):
        with tempfile.TemporaryDirectory() as tmp:
            wall, table = _run(args.notebooks, args.profile, jobs, threads, Path(tmp))
        walls[jobs] = wall
        print(f"\n--jobs {jobs}, {threads} thread(s) per notebook: {wall:.1f} s wall\n{table}")
    print(f"\nside by side / one at a time: {walls[args.jobs] / walls[1]:.2f}")


if __name__ == "__main__":
    main()
