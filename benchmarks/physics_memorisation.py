"""Which physics models fail their memorisation check, and on which attribute? Per-attribute memorisation.

The physics claims declare ``memorised`` (first-token accuracy of every attribute value after the person's name,
on one training biography per person, >= 0.95) as their instrument check. This script reads the quick grid's
pretrained decoders from the artifact cache (it trains nothing: a model that is not cached is skipped) and splits
that number by attribute, so the next calibration knows what to fix:

    BERTOLOGY_CACHE=... BERTOLOGY_THREADS=1 .venv/bin/python benchmarks/physics_memorisation.py

Results: benchmarks/README.md, "Physics: what fails the memorisation check".
"""

from __future__ import annotations

import pandas as pd

from bertology_lib.cache import ArtifactCache
from bertology_lib.experiments.physics import evaluation as ev
from bertology_lib.experiments.physics.instruments import memorisation_by_attribute as by_attribute
from bertology_lib.experiments.physics.config import PhysicsConfig
from bertology_lib.experiments.physics.grid import GRID
from bertology_lib.experiments.physics.training import load_model, pretrain_key
from bertology_lib.runtime import apply_thread_policy


def main() -> None:
    apply_thread_policy()
    cache = ArtifactCache()
    rows = []
    for aug in GRID:
        for seed in (0, 1):
            cfg = PhysicsConfig.for_profile("quick", augmentation=aug, seed=seed)
            path = cache.get("physics-pretrain", pretrain_key(cfg))
            if path is None:
                continue
            model, tok = load_model(path)
            ds = cfg.dataset()
            row = by_attribute(model, tok, ds)  # the library's split (instruments.memorisation_by_attribute)
            assert abs(row["all"] - ev.memorisation(model, tok, ds)) < 1e-9  # the same number as the check
            rows.append({"augmentation": aug, "seed": seed, **row})
            print(rows[-1], flush=True)
    print(pd.DataFrame(rows).set_index(["augmentation", "seed"]).round(3).to_string())


if __name__ == "__main__":
    main()
