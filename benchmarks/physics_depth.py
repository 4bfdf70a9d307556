"""Does a deeper physics decoder memorise the value right after the name? One pretraining per call, uncached.

The quick decoder (2 blocks x 128) stores every bioS ``single`` attribute but the birth date, the value that
follows the name (``benchmarks/physics_memorisation.py``). This script pretrains the quick recipe of one
augmentation and seed with the decoder's depth or MLP width changed, then prints memorisation by attribute:

    BERTOLOGY_THREADS=1 .venv/bin/python benchmarks/physics_depth.py single 1 --layers 3

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
from bertology_lib.experiments.physics.training import bio_rows, filler_texts
from bertology_lib.models.decoder import DECODER_SIZES, decoder_config
from bertology_lib.runtime import apply_thread_policy
from bertology_lib.training.loop import train
from bertology_lib.training.objectives import LMBatches

sys.path.insert(0, str(Path(__file__).parent))
from physics_memorisation import by_attribute  # noqa: E402  (the sibling script's per-attribute check)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("augmentation")
    ap.add_argument("seed", type=int)
    ap.add_argument("--layers", type=int, default=DECODER_SIZES["small"]["num_hidden_layers"])
    ap.add_argument("--intermediate", type=int, default=DECODER_SIZES["small"]["intermediate_size"])
    ap.add_argument("--steps", type=int, default=0, help="pretraining steps (0: the quick profile's)")
    ap.add_argument("--weight-decay", type=float, default=None,
                    help="pretraining weight decay (default: the profile's)")
    args = ap.parse_args()
    apply_thread_policy()

    cfg = PhysicsConfig.for_profile("quick", augmentation=args.augmentation, seed=args.seed)
    if args.steps:
        cfg = dataclasses.replace(cfg, pretrain_steps=args.steps)
    if args.weight_decay is not None:
        cfg = dataclasses.replace(cfg, weight_decay=args.weight_decay)
    ds, tok = cfg.dataset(), get_tokenizer(cfg.tokenizer)
    torch.manual_seed(cfg.seed)
    from transformers import LlamaForCausalLM

    bos = tok.eos_token_id if tok.bos_token_id is None else tok.bos_token_id
    model = LlamaForCausalLM(decoder_config(cfg.model_size, len(tok), pad_token_id=tok.pad_token_id,
                                            eos_token_id=tok.eos_token_id, bos_token_id=bos,
                                            num_hidden_layers=args.layers, intermediate_size=args.intermediate))
    tc = cfg.pretrain_train_config()
    windows, labels = bio_rows(ds, tok, cfg.seq_len, cfg.packing, filler_texts(cfg))
    t0 = time.time()
    res = train(model, LMBatches(windows, tc.batch_size, seed=cfg.seed, labels=labels), tc, progress=False)
    model.eval()
    row = by_attribute(model, tok, ev.training_bios(ds, n_people=128, seed=0))
    n = sum(p.numel() for p in model.parameters())
    print(f"{args.augmentation} seed {args.seed}, {args.layers} blocks, MLP {args.intermediate}, {tc.max_steps} steps, "
          f"weight decay {cfg.weight_decay:g}, {n:,} parameters, {time.time() - t0:.0f} s, "
          f"final loss {res.losses[-1]:.3f}")
    print({k: round(v, 3) for k, v in row.items()})


if __name__ == "__main__":
    main()
