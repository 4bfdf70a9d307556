"""Can the mini-BERT learn duplication_02's toy QA task at quick sizes? One seed per setting, beside the floor.

duplication_02's quick configuration leaves every variant at the "always no answer" floor; this script fine-tunes
the quick mini-BERT (read from the artifact cache, trained there if missing) on the same task keys with a few
learning rates, epochs and training sizes, one seed each, uncached, and prints test F1 beside the floor:

    BERTOLOGY_THREADS=1 .venv/bin/python benchmarks/toy_qa_calibration.py

Results and what they mean: benchmarks/README.md, "Toy QA: what it takes to answer".
"""

from __future__ import annotations

import time

from bertology_lib.data import tasks
from bertology_lib.models import minibert
from bertology_lib.training import finetune as ft

SETTINGS = [(400, 3e-4, 5.0), (400, 1e-3, 10.0), (400, 1e-3, 25.0), (1200, 1e-3, 10.0)]  # (examples, lr, epochs)


def main() -> None:
    mb = minibert.MiniBertConfig.for_profile("quick", seed=0)
    world = dict(world_seed=mb.corpus_seed, vocab_size=mb.vocab_size)
    base = ft.ModelSource("mini-bert", profile="quick", seed=0)
    for n_train, lr, epochs in SETTINGS:
        task = tasks.toy_qa(n_train=n_train, n_dev=300, n_test=300, **world)
        cfg = ft.FinetuneConfig.for_profile("quick", lr=lr, epochs=epochs, eval_splits=("test",))
        t0 = time.time()
        r = ft.finetune(task, base, cfg, 0, use_cache=False)
        m, floor = r.metrics["test"], tasks.floor_scores(task)
        print(f"{n_train} examples, lr {lr:g}, {epochs:g} epochs ({r.train['steps']} steps, {time.time() - t0:.0f} s): "
              f"F1 {m['f1']:.3f} (floor {floor['f1']:.3f}), has-answer F1 {m['has_ans_f1']:.3f}, "
              f"no-answer rate {m['no_answer_rate']:.3f}", flush=True)


if __name__ == "__main__":
    main()
