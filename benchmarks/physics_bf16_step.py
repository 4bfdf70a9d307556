"""Seconds per training step of the quick physics models in float32 and under bfloat16 autocast, side by side on
the same batches, in one process (1 thread): the decoder on bioS (a grid cell's pretraining), the decoder with the
``word+brown`` tokenizer (the Brown-filler control's: a 2.8x larger output layer; timed on the bioS rows) and the BERT of the profile arm
(whole-word masking of 40%, masked positions only). Each arm trains a fresh model through the library's loop
(:func:`bertology_lib.training.loop.train`, ``TrainConfig.dtype``) for ``--warmup`` untimed and ``--steps`` timed
steps; the arms alternate over ``--repeats`` rounds and each keeps its fastest round; the mean loss of the timed
steps is printed, so an arm that is fast because it is broken shows.

    BERTOLOGY_THREADS=1 .venv/bin/python benchmarks/physics_bf16_step.py [--steps 20] [--repeats 2]
"""

from __future__ import annotations

import argparse
import os
import time
from dataclasses import replace


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--repeats", type=int, default=2)
    args = ap.parse_args()

    import torch

    from bertology_lib.experiments.physics import bert as pb
    from bertology_lib.experiments.physics.config import PhysicsConfig, get_tokenizer
    from bertology_lib.experiments.physics.training import bio_rows
    from bertology_lib.models.decoder import matching_bert_config, new_decoder
    from bertology_lib.runtime import apply_thread_policy
    from bertology_lib.training.loop import TrainConfig, train
    from bertology_lib.training.objectives import LMBatches
    from bertology_lib.training.pretrain import mlm_batches, pretrain_mlm

    threads = apply_thread_policy()
    cfg = PhysicsConfig.for_profile("quick")
    ds = cfg.dataset()
    n = args.warmup + args.steps

    def decoder_arm(tokenizer: str):
        tok = get_tokenizer(tokenizer)
        windows, labels = bio_rows(ds, tok, cfg.seq_len, cfg.packing)

        def run(dtype: str, marks: list[float]):
            model = new_decoder(cfg.model_size, tok, 0)
            tc = TrainConfig(lr=cfg.lr, max_steps=n, batch_size=cfg.batch_size, seq_len=cfg.seq_len, dtype=dtype)
            res = train(
                model, LMBatches(windows, cfg.batch_size, labels=labels), tc, callbacks=[Clock(marks)], progress=False
            )
            return res.losses

        return run, len(tok)

    def bert_arm():
        tok = pb.bert_tokenizer()
        rows = pb.bert_rows(ds, tok, cfg)

        def run(dtype: str, marks: list[float]):
            from transformers import BertForMaskedLM

            torch.manual_seed(0)
            model = BertForMaskedLM(matching_bert_config(cfg.model_size, len(tok)))
            batches = mlm_batches(ds.texts(), tok, pb.bert_objective(cfg.bert_mask_prob), rows, seed=0)
            tc = replace(pb._bert_train_config(cfg, None), max_steps=n, dtype=dtype)
            return pretrain_mlm(model, batches, tc, callbacks=[Clock(marks)], progress=False).losses

        return run, len(tok)

    class Clock:
        def __init__(self, marks: list[float]) -> None:
            self.marks = marks

        def on_step_end(self, step, loss, view):
            self.marks.append(time.perf_counter())

    arms = {
        "decoder (bioS)": decoder_arm("word"),
        "decoder (word+brown)": decoder_arm("word+brown"),
        "BERT": bert_arm(),
    }
    print(f"{os.uname().nodename}: {threads} thread(s), load {os.getloadavg()[0]:.2f}; {n} steps per arm", flush=True)
    best: dict[tuple[str, str], float] = {}
    loss: dict[tuple[str, str], float] = {}
    for _ in range(args.repeats):
        for name, (run, _) in arms.items():
            for dtype in ("float32", "bfloat16"):
                marks: list[float] = []
                losses = run(dtype, marks)
                per = (marks[-1] - marks[args.warmup - 1]) / args.steps
                best[name, dtype] = min(best.get((name, dtype), float("inf")), per)
                loss[name, dtype] = sum(losses[-args.steps :]) / args.steps
    print("| model | vocabulary | float32 (s/step) | bfloat16 (s/step) | speed-up | loss float32 / bfloat16 |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name, (_, vocab) in arms.items():
        a, b = best[name, "float32"], best[name, "bfloat16"]
        print(
            f"| {name} | {vocab} | {a:.4f} | {b:.4f} | {a / b:.2f}x | {loss[name, 'float32']:.3f} / {loss[name, 'bfloat16']:.3f} |"
        )


if __name__ == "__main__":
    main()
