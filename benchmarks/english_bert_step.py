"""Seconds per training step of the English lab BERT's (or the mini-BERT's) quick recipe, side by side: eager vs SDPA
attention, float32 vs bfloat16 autocast (master weights float32), on the same batches, in one process.

Each arm builds the quick config's untrained model (MiniLM's encoder with new MLM and NSP heads, seed 0), draws the
same batches from the library's pipeline (:func:`bertology_lib.training.pretrain.mlm_batches`: whole-word masking,
sentence pairs, 32 x 64 tokens) and runs ``--steps`` optimiser steps through
:func:`bertology_lib.training.pretrain.pretrain_mlm` after ``--warmup`` untimed ones; arms are interleaved over
``--repeats`` rounds and each keeps its fastest round. It also prints the loss after the timed steps, so an arm that
is fast because it is broken shows.

With ``--model mini-bert`` the same for the mini-BERT of the toy grammar (its quick config, its pipeline, 64 x 64).

    BERTOLOGY_THREADS=1 .venv/bin/python benchmarks/english_bert_step.py [--steps 12] [--repeats 2] [--model mini-bert]
"""

from __future__ import annotations

import argparse
import os
import time


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=12)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--arms", default="eager:float32,sdpa:float32,eager:bfloat16,sdpa:bfloat16")
    ap.add_argument("--model", choices=("english-bert", "mini-bert"), default="english-bert")
    args = ap.parse_args()

    from dataclasses import replace

    from bertology_lib.runtime import apply_thread_policy
    from bertology_lib.training.pretrain import mlm_batches, pretrain_mlm

    threads = apply_thread_policy()
    if args.model == "english-bert":
        from bertology_lib.models.english_bert import EnglishBertConfig, build_model, corpus, tokenizer_for
        from bertology_lib.training.english_bert import objective, train_config

        cfg = EnglishBertConfig.for_profile("quick")
        text, tok = corpus(cfg), tokenizer_for(cfg)

        def make():
            batches = mlm_batches(list(text.train), tok, objective(cfg), cfg.batch_size, seed=0,
                                  partners=[list(p) for p in text.partners])
            return build_model(cfg, tok), batches
    else:
        from bertology_lib.models.minibert import MiniBertConfig, build_model, corpus, tokenizer_for
        from bertology_lib.training.minibert import objective, train_config

        cfg = MiniBertConfig.for_profile("quick")
        tok, (train_s, _) = tokenizer_for(cfg), corpus(cfg)
        texts = [s.text for s in train_s]

        def make():
            return build_model(cfg, len(tok)), mlm_batches(texts, tok, objective(cfg), cfg.batch_size, seed=0)

    n = args.warmup + args.steps
    print(f"{os.uname().nodename}: {threads} thread(s), load {os.getloadavg()[0]:.2f}; {args.model} quick recipe, "
          f"{cfg.batch_size} rows a step, {n} steps per arm ({args.warmup} untimed)", flush=True)
    best: dict[str, float] = {}
    losses: dict[str, float] = {}
    for _ in range(args.repeats):
        for arm in args.arms.split(","):
            attn, dtype = arm.split(":")
            model, batches = make()
            model.set_attn_implementation(attn)
            marks: list[float] = []

            class Clock:
                def on_step_end(self, step, loss, view):
                    marks.append(time.perf_counter())

            tc = replace(train_config(cfg), max_steps=n, warmup_steps=2, dtype=dtype)
            res = pretrain_mlm(model, batches, tc, callbacks=[Clock()], progress=False)
            per = (marks[-1] - marks[args.warmup - 1]) / args.steps
            best[arm] = min(best.get(arm, float("inf")), per)
            losses[arm] = sum(res.losses[-args.steps :]) / args.steps
            print(f"  {arm:<16} {per:6.3f} s/step  mean loss of the timed steps {losses[arm]:.3f}", flush=True)
    base = best[args.arms.split(",")[0]]
    print("fastest round per arm:")
    for arm, per in best.items():
        print(f"  {arm:<16} {per:6.3f} s/step  ({base / per:4.2f}x the first arm)")


if __name__ == "__main__":
    main()
