"""Where a quick physics decoder training step spends its time: seconds per step at batch 16/32/64 (1 thread)
and, with ``--profile``, the torch profiler table of five steps at batch 16.

    .venv/bin/python benchmarks/physics_step_profile.py [--profile]
"""
from __future__ import annotations

import sys
import time

import torch

from bertology_lib.experiments.physics.config import PhysicsConfig, get_tokenizer
from bertology_lib.experiments.physics.training import bio_rows
from bertology_lib.models.decoder import new_decoder
torch.set_num_threads(1)
cfg = PhysicsConfig.for_profile("quick")
ds, tok = cfg.dataset(), get_tokenizer(cfg.tokenizer)
windows, labels = bio_rows(ds, tok, cfg.seq_len, cfg.packing)
print("vocab", len(tok), "windows", tuple(windows.shape), "pad share", float((windows == tok.pad_token_id).float().mean()))
model = new_decoder(cfg.model_size, tok, 0)
print("attn impl", model.config._attn_implementation, "params", sum(p.numel() for p in model.parameters()))
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for bs in [16, 32, 64]:
    x = windows[:bs]
    lab = x.clone(); lab[lab == tok.pad_token_id] = -100
    am = (x != tok.pad_token_id).long()
    for i in range(3):
        out = model(input_ids=x, attention_mask=am, labels=lab); out.loss.backward(); opt.step(); opt.zero_grad()
    t = time.perf_counter(); n = 10
    for i in range(n):
        out = model(input_ids=x, attention_mask=am, labels=lab); out.loss.backward(); opt.step(); opt.zero_grad()
    dt = (time.perf_counter() - t) / n
    print(f"batch {bs}: {dt:.3f} s/step, {dt/bs*16:.3f} s per 16 rows")
if "--profile" in sys.argv:
    from torch.profiler import profile, ProfilerActivity
    x = windows[:16]; lab = x.clone(); lab[lab == tok.pad_token_id] = -100; am = (x != tok.pad_token_id).long()
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        for i in range(5):
            out = model(input_ids=x, attention_mask=am, labels=lab); out.loss.backward(); opt.step(); opt.zero_grad()
    print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=20))
