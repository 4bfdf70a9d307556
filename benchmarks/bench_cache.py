"""Cache hit cost: full SHA-256 verification vs a size-only check, side by side.

Every cache read verifies each file's SHA-256 so that a corrupt entry is never
used. This measures what that costs on a checkpoint-sized entry, against the
cheaper size-only check, in one run on the same entry.

    .venv/bin/python benchmarks/bench_cache.py [--mb 100] [--repeats 5]
"""

from __future__ import annotations

import argparse
import tempfile
import time

import torch

from bertology_lib.cache import ArtifactCache, ArtifactKind, save_tensors


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=int, default=100, help="entry size in MB")
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as root:
        cache = ArtifactCache(root)
        n = args.mb * 1_000_000 // 4
        entry = cache.get_or_create(
            ArtifactKind("bench", 1), {"mb": args.mb}, lambda d: save_tensors(d / "w.safetensors", {"w": torch.randn(n)})
        )
        timings = {}
        for label, verify in (("sha256 (what get() does)", True), ("size only", False)):
            t0 = time.perf_counter()
            for _ in range(args.repeats):
                assert cache.is_valid(entry, verify_hashes=verify)
            timings[label] = (time.perf_counter() - t0) / args.repeats
    for label, secs in timings.items():
        print(f"{label:<28s} {secs * 1e3:9.1f} ms per hit  ({args.mb / secs:8.0f} MB/s)")
    a, b = timings.values()
    print(f"ratio sha256 / size-only: {a / b:.0f}x")


if __name__ == "__main__":
    main()
