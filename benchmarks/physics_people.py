"""More people or more passes? One quick physics cell pretrained and fine-tuned at another N or step count.

The quick grid's ``multi5+permute`` extracts 0.48-0.69 of QA-test answers at N = 300 (#17 asks for 0.8), and an
earlier calibration reached 0.84 at N = 500. A pretraining costs its steps, not its people, so N is free in time
but costs passes (memorisation). This script runs the quick recipe (``PhysicsConfig.for_profile("quick")``) of one
augmentation and seed with ``n_people`` / ``pretrain_steps`` / ``embedding_lr`` changed, pretrains and fully
fine-tunes it (cached in ``BERTOLOGY_CACHE``: use a scratch cache), and prints memorisation, the validation
people's accuracy that picked the checkpoint and QA-test accuracy:

    BERTOLOGY_CACHE=/tmp/cal BERTOLOGY_THREADS=1 .venv/bin/python benchmarks/physics_people.py multi5+permute 0 --people 500

Results: benchmarks/README.md, "Physics: more people at the quick recipe".
"""

from __future__ import annotations

import argparse
import time

from bertology_lib.experiments.physics import grid as px
from bertology_lib.experiments.physics.config import PhysicsConfig
from bertology_lib.runtime import apply_thread_policy


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("augmentation")
    ap.add_argument("seed", type=int)
    ap.add_argument("--people", type=int, default=0, help="n_people (0: the profile's)")
    ap.add_argument("--steps", type=int, default=0, help="pretraining steps (0: the profile's)")
    ap.add_argument("--embed-lr", type=float, default=None, help="embedding lr multiplier (default: the profile's)")
    args = ap.parse_args()
    n = apply_thread_policy()
    changes = {k: v for k, v in (("n_people", args.people), ("pretrain_steps", args.steps)) if v}
    if args.embed_lr is not None:
        changes["embedding_lr"] = args.embed_lr
    cfg = PhysicsConfig.for_profile("quick", augmentation=args.augmentation, seed=args.seed, **changes)
    t0 = time.time()
    df = px.finetune_run(cfg, ["full"])
    mean = df[df.attribute == "mean"].iloc[0]
    print(f"{args.augmentation} seed {args.seed}, N {cfg.n_people}, {cfg.pretrain_steps} steps, embedding lr "
          f"x{cfg.embedding_lr:g}, {n} thread(s), {time.time() - t0:.0f} s: memorised {mean.memorised:.3f}, "
          f"validation {mean.val_mean:.3f} (step {mean.best_step}), QA-test {mean.accuracy:.3f} "
          f"(majority {mean.majority:.3f})")
    print(df[df.method == "full"].set_index("attribute")["accuracy"].round(3).to_dict())


if __name__ == "__main__":
    main()
