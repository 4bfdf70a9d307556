"""Did the house move of issue #36 change any trained weights? Train the same models with the code of a git
revision (default: e71f9ac, the last commit before it) and with the working tree, each into a fresh cache, and
compare the SHA-256 of every safetensors file they wrote.

    .venv/bin/python benchmarks/house_identity.py                 # e71f9ac vs the working tree, profile smoke
    .venv/bin/python benchmarks/house_identity.py --rev main --profile smoke

What is trained (at the given profile, seed 0, one thread, ``PYTHONHASHSEED=0``):

* ``physics-pretrain``: the physics decoder (``experiments.physics.training.pretrain``), and
  ``physics-bert-pretrain``: the physics BERT (``experiments.physics.bert.bert_pretrain``);
* ``minibert``: the embedded mini-BERT (``train_minibert``: ``models.minibert`` before the move,
  ``training.minibert`` after it), its final weights and every kept checkpoint;
* ``lab-bert``: two §5 lab BERTs (``experiments.survey.pretraining.pretrain_lab``): the progressively stacked
  variant of ``variant_grid`` (two phases) and the WordPiece span-masking variant of ``objective_grid`` (its
  tokenizer is the ``lab-tokenizer`` kind).

The revision's ``src/`` is extracted with ``git archive`` into a temporary folder, and each side runs this file
with ``--child`` in its own process, ``PYTHONPATH`` pointing at its ``src/``. The cache keys differ by design
(the move gave every kind new keys); the weights must not. Exit status 0 when every file's hash is equal.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def child(profile: str, cache_root: str) -> dict:
    import torch

    torch.set_num_threads(1)
    from bertology_lib.cache import ArtifactCache
    from bertology_lib.experiments.physics import bert as pbert, training as ptrain
    from bertology_lib.experiments.physics.config import PhysicsConfig
    from bertology_lib.experiments.survey import pretraining as pre
    from bertology_lib.experiments.survey.training import TrainingSizes
    from bertology_lib.models.minibert import MiniBertConfig

    try:  # after the move
        from bertology_lib.training.minibert import train_minibert
    except ImportError:  # before it
        from bertology_lib.models.minibert import train_minibert

    cache = ArtifactCache(cache_root)
    pcfg = PhysicsConfig.for_profile(profile)
    mb = MiniBertConfig.for_profile(profile, seed=0)
    sizes = TrainingSizes.for_profile(profile)
    folders, seconds = {}, {}
    jobs = {
        "physics-pretrain": lambda: ptrain.pretrain(pcfg, cache),
        "physics-bert-pretrain": lambda: pbert.bert_pretrain(pcfg, cache),
        "minibert": lambda: train_minibert(mb, cache, progress=False, resume_every=0),
        "lab-bert stacked": lambda: pre.pretrain_lab(pre.variant_grid(sizes, [0])["stacked"][0], mb, cache=cache),
        "lab-bert wordpiece span": lambda: pre.pretrain_lab(pre.objective_grid(sizes, [0])["span"][0], mb, cache=cache),
    }
    for name, job in jobs.items():
        t = time.time()
        folders[name] = Path(job())
        seconds[name] = round(time.time() - t, 1)
    out = {}
    for name, folder in folders.items():
        files = sorted(folder.rglob("*.safetensors"))
        out[name] = {"key": f"{folder.parent.name}/{folder.name}", "seconds": seconds[name],
                     "files": {str(f.relative_to(folder)): hashlib.sha256(f.read_bytes()).hexdigest() for f in files}}
    return out


def run_side(src: Path, profile: str) -> dict:
    env = {**os.environ, "PYTHONPATH": str(src), "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
           "PYTHONHASHSEED": "0", "TOKENIZERS_PARALLELISM": "false"}
    with tempfile.TemporaryDirectory(prefix="house-identity-cache-") as cache:
        env["BERTOLOGY_CACHE"] = cache
        proc = subprocess.run([sys.executable, __file__, "--child", "--profile", profile, "--cache", cache],
                              env=env, capture_output=True, text=True, cwd=str(src.parent))
        if proc.returncode:
            sys.stderr.write(proc.stderr[-4000:])
            raise SystemExit(f"the run with {src} failed ({proc.returncode})")
        return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rev", default="e71f9ac", help="the revision to compare the working tree with")
    ap.add_argument("--profile", default="smoke")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--cache", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(args.profile, args.cache)))
        return
    with tempfile.TemporaryDirectory(prefix="house-identity-rev-") as tree:
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.rev, "src"], check=True,
                                 capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", tree], input=archive, check=True)
        old = run_side(Path(tree) / "src", args.profile)
    new = run_side(ROOT / "src", args.profile)
    same = True
    print(f"{'artifact':<26s} {'files':>5s}  {'weights':<9s} {'old key':<42s} new key")
    for name in old:
        a, b = old[name]["files"], new[name]["files"]
        equal = a == b and bool(a)
        same &= equal
        print(f"{name:<26s} {len(a):>5d}  {'equal' if equal else 'DIFFER':<9s} {old[name]['key']:<42s} {new[name]['key']}")
    first = {name: next(iter(v["files"].values()))[:16] for name, v in new.items()}
    print(json.dumps({"rev": args.rev, "profile": args.profile, "identical": same, "sha256_first_file": first,
                      "seconds_old": {k: v["seconds"] for k, v in old.items()},
                      "seconds_new": {k: v["seconds"] for k, v in new.items()}}))
    raise SystemExit(0 if same else 1)


if __name__ == "__main__":
    main()
