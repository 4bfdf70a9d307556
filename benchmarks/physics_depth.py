"""What makes a physics decoder memorise the value right after the name? One pretraining per call, uncached.

The quick decoder (2 blocks x 128) stores every bioS ``single`` attribute but the birth date, the value that
follows the name (``benchmarks/physics_memorisation.py``). This script pretrains the quick recipe of one
augmentation and seed with one thing changed (depth, MLP width, steps, weight decay, the embeddings'
learning rate (tied: input and output), or untied embeddings), then prints memorisation by attribute:

    BERTOLOGY_THREADS=1 .venv/bin/python benchmarks/physics_depth.py single 1 --layers 3
    BERTOLOGY_THREADS=1 .venv/bin/python benchmarks/physics_depth.py single 1 --embed-lr 10
    BERTOLOGY_THREADS=1 .venv/bin/python benchmarks/physics_depth.py single 1 --embed-lr 10 --embed-decay 0.01
    BERTOLOGY_THREADS=1 .venv/bin/python benchmarks/physics_depth.py single 1 --untie

Results: benchmarks/README.md, "Physics: what fails the memorisation check".
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path

import torch

from bertology_lib.experiments.physics import evaluation as ev
from bertology_lib.experiments.physics.config import PhysicsConfig, get_tokenizer
from bertology_lib.experiments.physics.instruments import memorisation_by_attribute
from bertology_lib.experiments.physics.training import bio_rows, filler_texts
from bertology_lib.models.decoder import DECODER_SIZES, decoder_config
from bertology_lib.runtime import apply_thread_policy
from bertology_lib.training import loop
from bertology_lib.training.loop import train
from bertology_lib.training.objectives import LMBatches



def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("augmentation")
    ap.add_argument("seed", type=int)
    ap.add_argument("--layers", type=int, default=DECODER_SIZES["small"]["num_hidden_layers"])
    ap.add_argument("--intermediate", type=int, default=DECODER_SIZES["small"]["intermediate_size"])
    ap.add_argument("--steps", type=int, default=0, help="pretraining steps (0: the quick profile's)")
    ap.add_argument("--weight-decay", type=float, default=None,
                    help="pretraining weight decay (default: the profile's)")
    ap.add_argument("--embed-lr", type=float, default=None,
                    help="learning-rate multiplier of the embedding matrix (tied: the input and the output layer; "
                         "default: the profile's PhysicsConfig.embedding_lr, 10 at quick since 2026-12-02)")
    ap.add_argument("--embed-decay", type=float, default=None,
                    help="weight decay of the embedding matrix's group (default: the profile's); AdamW shrinks by "
                         "lr x decay per step, so at --embed-lr 10 a decay of a tenth keeps the recipe's shrinkage")
    ap.add_argument("--untie", action="store_true",
                    help="separate input and output embeddings (the decoders tie them)")
    args = ap.parse_args()
    apply_thread_policy()

    cfg = PhysicsConfig.for_profile("quick", augmentation=args.augmentation, seed=args.seed)
    if args.steps:
        cfg = dataclasses.replace(cfg, pretrain_steps=args.steps)
    if args.weight_decay is not None:
        cfg = dataclasses.replace(cfg, weight_decay=args.weight_decay)
    if args.embed_lr is not None:
        cfg = dataclasses.replace(cfg, embedding_lr=args.embed_lr)
    ds, tok = cfg.dataset(), get_tokenizer(cfg.tokenizer)
    torch.manual_seed(cfg.seed)
    from transformers import LlamaForCausalLM

    bos = tok.eos_token_id if tok.bos_token_id is None else tok.bos_token_id
    model = LlamaForCausalLM(decoder_config(cfg.model_size, len(tok), pad_token_id=tok.pad_token_id,
                                            eos_token_id=tok.eos_token_id, bos_token_id=bos,
                                            num_hidden_layers=args.layers, intermediate_size=args.intermediate,
                                            tie_word_embeddings=not args.untie))
    tc = cfg.pretrain_train_config()
    emb_decay = cfg.weight_decay if args.embed_decay is None else args.embed_decay
    if emb_decay != cfg.weight_decay:  # the embedding matrix in a group of its own, with its own decay
        emb = model.get_input_embeddings().weight

        def groups(m, weight_decay, embedding_lr=None, _base=loop.param_groups):
            out = [{**g, "params": [p for p in g["params"] if p is not emb]} for g in _base(m, weight_decay)]
            return out + [{"params": [emb], "weight_decay": emb_decay, "lr": tc.lr * cfg.embedding_lr}]

        loop.param_groups = groups
    windows, labels = bio_rows(ds, tok, cfg.seq_len, cfg.packing, filler_texts(cfg))
    t0 = time.time()
    res = train(model, LMBatches(windows, tc.batch_size, seed=cfg.seed, labels=labels), tc, progress=False)
    model.eval()
    row = memorisation_by_attribute(model, tok, ds)  # 128 training biographies, sample seed 0
    n = sum(p.numel() for p in model.parameters())
    print(f"{args.augmentation} seed {args.seed}, {args.layers} blocks, MLP {args.intermediate}, {tc.max_steps} steps, "
          f"weight decay {cfg.weight_decay:g}, embedding lr x{cfg.embedding_lr:g} decay {emb_decay:g}, "
          f"{'untied' if args.untie else 'tied'} embeddings, {n:,} parameters, {time.time() - t0:.0f} s, "
          f"final loss {res.losses[-1]:.3f}")
    print({k: round(v, 3) for k, v in row.items()})


if __name__ == "__main__":
    main()
