"""The thread policy on a smoke run: 1 vs 2 torch threads, with and without a busy core, side by side.

Each run is a fresh process (threads are fixed once per process) that trains the smoke mini-BERT
(``train_minibert`` at ``--profile smoke``, or ``--steps`` steps of it) into an empty temporary cache and
reports its wall time, its final loss and held-out MLM accuracy. Threads: ``1``, ``2`` and ``policy``
(:func:`bertology_lib.runtime.apply_thread_policy` with ``BERTOLOGY_THREADS`` unset: the free cores).
Conditions: ``as is`` (whatever else runs on the machine) and ``+1 busy core`` (this script starts one
CPU-burning process for the duration). Rounds interleave every (condition, threads) pair so that they
see the same background; each pair's fastest and median are printed, and the 1-minute load average.

    .venv/bin/python benchmarks/bench_threads.py [--repeats 2] [--steps 30]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

WORKER = """
import json, os, sys, tempfile, time
from bertology_lib.runtime import THREADS_ENV, apply_thread_policy
n = apply_thread_policy(None if sys.argv[1] == "policy" else int(sys.argv[1]))
from bertology_lib.cache import ArtifactCache
from bertology_lib.models.minibert import MiniBertConfig, history
from bertology_lib.training.minibert import train_minibert
cfg = MiniBertConfig.for_profile("smoke", max_steps=int(sys.argv[2]))
with tempfile.TemporaryDirectory() as root:
    t0 = time.perf_counter()
    folder = train_minibert(cfg, ArtifactCache(root), progress=False, resume_every=0)
    wall = time.perf_counter() - t0
    h = history(folder)
print(json.dumps({"threads": n, "wall": wall, "train": h["seconds"], "loss": h["losses"][-1],
                  "mlm_acc": h["evals"][-1]["mlm_acc"], "load": os.getloadavg()[0]}))
"""

BURNER = "while True: pass"


def run_worker(threads: str, steps: int) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("BERTOLOGY_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")}
    out = subprocess.run([sys.executable, "-c", WORKER, threads, str(steps)], env=env, capture_output=True,
                         text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--steps", type=int, default=30, help="training steps (smoke profile: 30)")
    args = ap.parse_args()
    print(f"{os.cpu_count()} CPUs, 1-min load at start {os.getloadavg()[0]:.2f}; smoke mini-BERT, {args.steps} steps")
    results: dict[tuple[str, str], list[dict]] = {}
    for r in range(args.repeats):
        for cond in ("as is", "+1 busy core"):
            burner = subprocess.Popen([sys.executable, "-c", BURNER]) if cond != "as is" else None
            try:
                if burner is not None:
                    time.sleep(1.0)  # let it take its core
                for threads in ("1", "2", "policy"):
                    res = run_worker(threads, args.steps)
                    results.setdefault((cond, threads), []).append(res)
                    print(f"  round {r + 1} {cond:<13s} threads={threads:<6s} (= {res['threads']}) "
                          f"{res['wall']:7.2f} s  loss {res['loss']:.4f}  load {res['load']:.2f}", flush=True)
            finally:
                if burner is not None:
                    burner.kill()
                    burner.wait()
    print(f"\n{'condition':<14s} {'threads':<10s} {'fastest s':>10s} {'median s':>9s} {'loop s':>7s} "
          f"{'final loss':>10s} {'MLM acc':>8s}")
    for (cond, threads), rs in results.items():
        walls = [x["wall"] for x in rs]
        picked = sorted({x["threads"] for x in rs})
        label = threads if threads != "policy" else f"policy={','.join(map(str, picked))}"
        best = min(rs, key=lambda x: x["wall"])
        print(f"{cond:<14s} {label:<10s} {min(walls):10.2f} {statistics.median(walls):9.2f} {best['train']:7.2f} "
              f"{best['loss']:10.4f} {best['mlm_acc']:8.3f}")
    for cond in ("as is", "+1 busy core"):
        one, two = (min(x["wall"] for x in results[(cond, t)]) for t in ("1", "2"))
        loop1, loop2 = (min(x["train"] for x in results[(cond, t)]) for t in ("1", "2"))
        print(f"{cond}: 2 threads / 1 thread = {two / one:.1f}x the wall time, {loop2 / loop1:.1f}x the "
              f"training loop's (fastest of each)")
    print(f"1-min load at end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
