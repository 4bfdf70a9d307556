"""Did the layout (issue 15) change the physics numbers? Train one grid cell with the pipeline before the
layout (commit fbf9296, flat modules) and after it, at 1 thread, and print the weights' SHA-256.

    git worktree add /tmp/old fbf9296
    (cd /tmp/old && PYTHONPATH=src OMP_NUM_THREADS=1 ../main/.venv/bin/python ../main/benchmarks/layout_identity.py quick old multi5+permute)
    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/layout_identity.py quick new multi5+permute

Each run trains into a fresh temporary cache (quick: about 10 minutes per run on one core).
"""
import os, sys, json, time, tempfile
profile, which, aug = sys.argv[1], sys.argv[2], sys.argv[3]
import torch; torch.set_num_threads(1)
from pathlib import Path
if which == "old":
    from bertology_lib import physics as P
    from bertology_lib.cache import ArtifactCache
    cfgcls, wid = P.PhysicsConfig, P._weights_id
    pre, ft, load, ev = P.pretrain, P.finetune_qa, P.load_model, P.evaluate_qa
else:
    from bertology_lib.experiments.physics import config as C, training as T, evaluation as E
    from bertology_lib.cache import ArtifactCache
    cfgcls, wid = C.PhysicsConfig, T.weights_id
    pre, ft, ev = T.pretrain, T.finetune_qa, E.evaluate_qa
    load = T.load_model if hasattr(T, "load_model") else None
cache = ArtifactCache(Path(tempfile.mkdtemp(prefix=f"id-{which}-")))
cfg = cfgcls.for_profile(profile, augmentation=aug, seed=0)
t = time.time(); p = pre(cfg, cache=cache); t1 = time.time() - t
f = ft(p, cfg, lora=False, cache=cache); t2 = time.time() - t - t1
print(json.dumps({"which": which, "profile": profile, "aug": aug, "pretrain_sha": wid(p)[:16], "finetune_sha": wid(f)[:16],
                  "t_pretrain": round(t1), "t_finetune": round(t2)}))
