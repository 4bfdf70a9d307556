"""Mixed training on bioS single stays far below the paper (0.52 at quick against 86.6% at N = 100k): do more passes
over the same data, or a larger QA share, close the gap at our N, or is it left to scale?

One arm per call (two calls side by side fill two cores), every model trained through the library's cached
``mixed_run`` path at the quick recipe, seed 0, N = 600, with the quick plan's learning-curve points:

- ``passes``: twice the quick mixed steps (8,000) at the quick QA share 0.5: every biography and QA-train answer
  read twice as often;
- ``share``: QA share 0.8 at the quick number of biography exposures (``px.n_sweep``'s rule: 10,000 steps, so the
  biographies get as many rows as at 0.5 and the QA-train answers four times as many);
- ``base``: the quick run itself and the quick table's QA share 0.2 (cached after a physics_02 run; trained here
  otherwise).

Each arm prints QA-test accuracy (mean over attributes, and without birth date), the memorisation check, QA-train
accuracy at the last curve point and the steps:

    BERTOLOGY_CACHE=... BERTOLOGY_THREADS=1 .venv/bin/python benchmarks/physics_mixed_single.py --arm passes

Results: benchmarks/README.md, "Physics: mixed training on single, more passes or a larger QA share".
"""

from __future__ import annotations

import argparse
import time

from bertology_lib.experiments.physics import grid as px
from bertology_lib.experiments.physics.config import PhysicsConfig
from bertology_lib.experiments.physics.training import learning_curve
from bertology_lib.runtime import apply_thread_policy


def report(label: str, acc, curve, seconds: float) -> None:
    by = acc.set_index("attribute")["accuracy"]
    last = curve.sort_values("step").iloc[-1] if len(curve) else None
    print(
        f"{label}: steps {int(acc['steps'].iloc[0])}, QA share {float(acc['qa_share'].iloc[0])}, "
        f"QA-test mean {by['mean']:.3f}, without birth date {by['mean_without_birth_date']:.3f}, "
        f"memorised {float(acc['memorised'].iloc[0]):.4f}, "
        f"last curve point: bio {last['bio']:.3f} qa_train {last['qa_train']:.3f} qa_test {last['qa_test']:.3f}; "
        f"{seconds:.0f} s",
        flush=True,
    )


def at_share(base: PhysicsConfig, q: float, curve_points: int):
    """The mixed run at QA share ``q`` with the biographies' exposures of ``base`` (``px.n_sweep``'s step rule, the
    book's cached unit where it is one) and its learning curve."""
    acc = px.n_sweep(base, [base.n_people], qa_shares=[q], progress=False, curve_points=curve_points)
    return acc, learning_curve(acc["path"].iloc[0])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--arm", choices=("base", "passes", "share"), required=True)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    apply_thread_policy()
    plan = px.Plan.for_profile("quick")
    base = PhysicsConfig.for_profile("quick", augmentation="single", seed=args.seed)
    if args.arm == "base":
        for q in (0.5, 0.2):
            t = time.time()
            acc, curve = at_share(base, q, plan.curve_points)
            report(f"base q={q}", acc, curve, time.time() - t)
    elif args.arm == "passes":
        t = time.time()
        acc, curve = px.mixed_run(base.replace(mixed_steps=2 * base.mixed_steps), curve_points=plan.curve_points)
        report("twice the passes", acc, curve, time.time() - t)
    else:
        t = time.time()
        acc, curve = at_share(base, 0.8, plan.curve_points)
        report("QA share 0.8, equal biography exposures", acc, curve, time.time() - t)


if __name__ == "__main__":
    main()
