"""The quick mini-BERT's training rate alone on the machine, at 1 and at 2 threads, side by side.

At ``--jobs 2`` the shared mini-BERT trains as a job of its own at 1 thread beside the lab units; at ``--jobs 1``
(or when a reader runs survey_02 alone) the notebook trains it in its kernel at the thread policy's count, the
free cores. This script trains the quick recipe for ``--steps`` steps (one kept checkpoint, an empty temporary
cache, a fresh process per thread count and batch size, one after the other) and prints seconds per step,
sentences per second, and the time the quick recipe's sentences (12,000 steps x 64) would take at that rate. The
learning-rate schedule follows ``--steps``; the time of a step does not.

    .venv/bin/python benchmarks/minibert_threads.py [--steps 1000] [--threads 1,2] [--batch-sizes 64,128]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

WORKER = """
import json, sys, tempfile, time
from bertology_lib.runtime import apply_thread_policy
n = apply_thread_policy(int(sys.argv[1]))
from bertology_lib.cache import ArtifactCache
from bertology_lib.models.minibert import MiniBertConfig, history
from bertology_lib.training.minibert import train_minibert
quick = MiniBertConfig.for_profile("quick")
cfg = MiniBertConfig.for_profile("quick", max_steps=int(sys.argv[2]), n_checkpoints=1, batch_size=int(sys.argv[3]))
with tempfile.TemporaryDirectory() as root:
    t0 = time.perf_counter()
    folder = train_minibert(cfg, ArtifactCache(root), progress=False, resume_every=0)
    wall = time.perf_counter() - t0
    h = history(folder)
print(json.dumps({"threads": n, "wall": wall, "train": h["seconds"], "quick_steps": quick.max_steps,
                  "quick_batch": quick.batch_size}))
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=1000)
    ap.add_argument("--threads", default="1,2", help="thread counts, comma-separated")
    ap.add_argument("--batch-sizes", default="64", help="batch sizes, comma-separated (the quick recipe's is 64); "
                    "the sentences per second say whether a larger batch at equal sentences would be faster")
    args = ap.parse_args()
    print(f"{os.cpu_count()} CPUs, 1-min load at start {os.getloadavg()[0]:.2f}; quick mini-BERT, {args.steps} steps")
    env = {k: v for k, v in os.environ.items() if k not in ("BERTOLOGY_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")}
    for threads in (int(t) for t in args.threads.split(",")):
        for batch in (int(b) for b in args.batch_sizes.split(",")):
            out = subprocess.run([sys.executable, "-c", WORKER, str(threads), str(args.steps), str(batch)], env=env,
                                 capture_output=True, text=True, check=True)
            r = json.loads(out.stdout.strip().splitlines()[-1])
            per = r["train"] / args.steps
            sentences = r["quick_steps"] * r["quick_batch"]  # the quick recipe's sentences (steps x its batch)
            print(f"threads {r['threads']}, batch {batch}: {r['wall']:.1f} s wall, training loop {r['train']:.1f} s = "
                  f"{per:.3f} s/step, {batch / per:.0f} sentences/s; the quick recipe's {sentences:,} sentences at "
                  f"this rate: {per * sentences / batch / 60:.1f} min", flush=True)
    print(f"1-min load at end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
