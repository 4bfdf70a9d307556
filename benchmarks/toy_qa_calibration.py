"""Which fine-tuning settings lift duplication_02's toy tasks off their floors? Two seeds per setting, dev split.

duplication_02 once fine-tuned every toy task at lr 3e-4 for 5 epochs, and its QA baseline answered nothing (F1 at
the "always no answer" floor). This script fine-tunes the quick mini-BERT (read from the artifact cache, trained
there if missing) on the notebook's task keys with a few learning rates and epochs, two seeds each, uncached,
and prints the **dev** score beside the floor (the settings are chosen on dev; the notebook reports test):

    BERTOLOGY_THREADS=1 .venv/bin/python benchmarks/toy_qa_calibration.py [toy_qa|toy_nli ...]

Results and what they mean: benchmarks/README.md, "Toy QA: what it takes to answer".
"""

from __future__ import annotations

import sys
import time

from bertology_lib.data import tasks
from bertology_lib.models import minibert
from bertology_lib.runtime import apply_thread_policy
from bertology_lib.training import finetune as ft

SETTINGS = {  # task -> (lr, epochs, batch size)
    "toy_qa": [(1e-3, 10.0, 32), (1e-3, 5.0, 16), (2e-3, 5.0, 32), (1e-3, 20.0, 32), (2e-3, 10.0, 32)],
    "toy_nli": [(3e-4, 5.0, 32), (1e-3, 5.0, 32), (1e-3, 10.0, 32)],
}
SEEDS = (0, 1)


def main(names: list[str]) -> None:
    apply_thread_policy()  # BERTOLOGY_THREADS, else the free cores: two threads beside another run stall
    mb = minibert.MiniBertConfig.for_profile("quick", seed=0)
    world = dict(world_seed=mb.corpus_seed, vocab_size=mb.vocab_size)
    base = ft.ModelSource("mini-bert", profile="quick", seed=0)
    for name in names or list(SETTINGS):
        task = getattr(tasks, name)(n_train=400, n_dev=300, n_test=300, **world)
        floor = tasks.floor_scores(task)
        metric = "f1" if task.kind == "qa" else "accuracy"
        for lr, epochs, batch in SETTINGS[name]:
            for seed in SEEDS:
                cfg = ft.FinetuneConfig.for_profile("quick", lr=lr, epochs=epochs, batch_size=batch,
                                                    eval_splits=("dev",))
                t0 = time.time()
                r = ft.finetune(task, base, cfg, seed, use_cache=False)
                print(f"{name}, lr {lr:g}, {epochs:g} epochs, batch {batch}, seed {seed} ({r.train['steps']} steps, "
                      f"{time.time() - t0:.0f} s): dev {metric} {r.metrics['dev'][metric]:.3f} "
                      f"(floor {floor[metric]:.3f}, {floor['name']})", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
