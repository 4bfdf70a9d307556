"""The wall time of a cold ``bertology run --jobs N`` from measured job times: the same job list and order as
:func:`bertology_lib.book.cli_jobs.parallel_jobs`, run through the policy of
:func:`bertology_lib.book.execution.run_jobs` (in list order, a job waits while one it names in ``after`` is pending
or running, at most N at a time) on a simulated clock.

A cold run of a whole part can outlast a session (physics and survey + duplication each take about three hours on
2 cores). Measured in sittings on one empty cache, each job's wall is logged (``finished <job> in 38m08s``) and
every unit a sitting finished stays cached for the next; this script puts the sittings' job times back into one
schedule. It reads ``bertology run`` logs (``--log``, several allowed; a job in more than one keeps its last time)
and ``--time NAME=SECONDS`` for jobs measured otherwise, and says which jobs have no time (``--assume SECONDS``
gives them one, flagged, or they stop it).

    .venv/bin/python benchmarks/cold_schedule.py notebooks/physics_0*.ipynb --log run1.log --log run2.log [--jobs 2]
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

FINISHED = re.compile(r"finished (\S+) in (?:(\d+)h)?(\d+)m(?:(\d+)s)?")  # execution._clock: 38m08s, 1h05m


def job_times(logs: list[Path]) -> dict[str, float]:
    out: dict[str, float] = {}
    for log in logs:
        for m in FINISHED.finditer(log.read_text(errors="replace")):
            h, mnt, s = m.group(2), m.group(3), m.group(4)
            out[m.group(1)] = 3600 * int(h or 0) + 60 * int(mnt) + int(s or 0)
    return out


def simulate(
    jobs: list[tuple[str, float, tuple[str, ...]]], lanes: int
) -> tuple[float, list[tuple[str, float, float]]]:
    """``(wall, [(job, start, end)])`` of ``jobs`` (name, seconds, after) under run_jobs' policy on ``lanes``."""
    pending = list(jobs)
    running: dict[str, float] = {}  # name -> end time
    spans: list[tuple[str, float, float]] = []
    now = 0.0
    while pending or running:
        waiting = {n for n, _, _ in pending} | set(running)
        for job in list(pending):
            if len(running) >= lanes:
                break
            name, secs, after = job
            if any(dep in waiting for dep in after):
                continue
            pending.remove(job)
            running[name] = now + secs
            spans.append((name, now, now + secs))
        if not running:
            raise RuntimeError(f"deadlock: {[n for n, _, _ in pending]} wait on jobs that never run")
        now = min(running.values())
        for name in [n for n, end in running.items() if end <= now]:
            del running[name]
    return now, spans


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("notebooks", nargs="+", type=Path)
    ap.add_argument("--profile", default="quick")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--log", type=Path, action="append", default=[])
    ap.add_argument("--time", action="append", default=[], help="NAME=SECONDS for a job measured otherwise")
    ap.add_argument("--assume", type=float, default=None, help="seconds for every job with no time (flagged)")
    args = ap.parse_args()

    from bertology_lib.book.cli_jobs import parallel_jobs

    todo = [(p, {"profile": args.profile}, p) for p in args.notebooks]
    jobs = parallel_jobs(todo, "in-place", False)
    times = job_times(args.log)
    for t in args.time:
        name, _, secs = t.partition("=")
        times[name] = float(secs)
    notebook_names = {p.stem for p in args.notebooks}
    missing = [name for name, _, _ in jobs if name not in times]
    if missing and args.assume is None:
        raise SystemExit(f"no time for {len(missing)} job(s): {', '.join(missing)} (give --time or --assume)")
    sim = [(name, times.get(name, args.assume or 0.0), tuple(after)) for name, _, after in jobs]
    wall, spans = simulate(sim, args.jobs)
    total = sum(s for _, s, _ in sim)
    for name, start, end in spans:
        flag = "  (assumed)" if name in missing else ""
        kind = "notebook" if name in notebook_names else "unit"
        print(f"{start / 60:7.1f} -> {end / 60:7.1f} min  {kind:8s} {name}{flag}")
    print(
        f"{len(sim)} jobs, {total:,.0f} s of job time ({total / 60 / args.jobs:.1f} min at perfect packing on "
        f"{args.jobs} lanes); simulated wall {wall:,.0f} s = {wall / 60:.1f} min"
        + (f"; {len(missing)} job(s) assumed at {args.assume:g} s" if missing else "")
    )


if __name__ == "__main__":
    main()
