"""Which full fine-tuning learning rate extracts what the quick decoders store? Chosen on validation people only.

At embedding lr x10 the quick grid's multi5+permute models answer 0.96-0.98 of QA-test questions after LoRA
fine-tuning (lr 1e-3) but 0.19-0.69 after full fine-tuning at the profile's 1e-4 (physics_03, 2026-12-02). This
script fully fine-tunes cached quick pretrained models at several learning rates (the fine-tunings are cached in
``BERTOLOGY_CACHE`` like the book's) and prints, per model and rate, the validation people's best accuracy (which
picks the checkpoint, and is the only number the choice of rate may read) beside QA-test:

    BERTOLOGY_CACHE=/work/cache BERTOLOGY_THREADS=1 .venv/bin/python benchmarks/physics_finetune_lr.py 3e-4 1e-3

The rule, fixed before the runs: the rate with the highest mean validation accuracy over the listed models.
Results: benchmarks/README.md, "Physics: the full fine-tuning rate".
"""

from __future__ import annotations

import argparse
import time

from bertology_lib.experiments.physics import training
from bertology_lib.experiments.physics.config import PhysicsConfig
from bertology_lib.experiments.physics.evaluation import evaluate_qa
from bertology_lib.runtime import apply_thread_policy

MODELS = [("multi5+permute", 0), ("multi5+permute", 1), ("single", 0)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("lrs", nargs="+", type=float)
    args = ap.parse_args()
    apply_thread_policy()
    for lr in args.lrs:
        for aug, seed in MODELS:
            cfg = PhysicsConfig.for_profile("quick", augmentation=aug, seed=seed).replace(finetune_lr=lr)
            t0 = time.time()
            tuned = training.finetune_qa(training.pretrain(cfg), cfg, lora=False)
            log = training.train_log(tuned)
            model, tok = training.load_model(tuned)
            test = evaluate_qa(model, tok, cfg.dataset(), "test", cfg.val_fraction)
            print(f"lr {lr:g} {aug} seed {seed}: validation {log['best_val_mean']:.3f} at step {log['best_step']}, "
                  f"QA-test {test.loc['mean', 'accuracy']:.3f} (majority {test.loc['mean', 'majority']:.3f}), "
                  f"{time.time() - t0:.0f} s", flush=True)


if __name__ == "__main__":
    main()
