"""Which physics models fail their memorisation check, and on which attribute? Per-attribute memorisation.

The physics claims declare ``memorised`` (first-token accuracy of every attribute value after the person's name,
on one training biography per person, >= 0.95) as their instrument check. This script reads the quick grid's
pretrained decoders from the artifact cache (it trains nothing: a model that is not cached is skipped) and splits
that number by attribute, so the next calibration knows what to fix:

    BERTOLOGY_CACHE=... BERTOLOGY_THREADS=1 .venv/bin/python benchmarks/physics_memorisation.py

Results: benchmarks/README.md, "Physics: what fails the memorisation check".
"""

from __future__ import annotations

import collections

import pandas as pd
import torch

from bertology_lib.cache import ArtifactCache
from bertology_lib.experiments.physics import evaluation as ev
from bertology_lib.experiments.physics.evaluation import encode_words, pad_right
from bertology_lib.experiments.physics.config import PhysicsConfig
from bertology_lib.experiments.physics.grid import GRID
from bertology_lib.experiments.physics.training import load_model, pretrain_key
from bertology_lib.runtime import apply_thread_policy


@torch.no_grad()
def by_attribute(model, tokenizer, entries) -> dict[str, float]:
    """:func:`~bertology_lib.experiments.physics.evaluation.memorisation`'s hits (first token, after the name),
    grouped by the attribute of the value."""
    ids, word_ids = encode_words(tokenizer, [e.text for e in entries])
    hits = collections.defaultdict(list)
    for s in range(0, len(ids), 64):
        rows = ids[s: s + 64]
        x, mask = pad_right(rows, tokenizer.pad_token_id or 0)
        pred = model(input_ids=x, attention_mask=mask).logits.argmax(-1)
        for i, e in enumerate(entries[s: s + 64]):
            named = False
            for lab, ws, we in e.spans:
                if lab == "name":
                    named = True
                    continue
                if not named:
                    continue
                toks = [k for k, wid in enumerate(word_ids[s + i]) if wid is not None and ws <= wid < we][:1]
                hits[lab].append(all(int(pred[i, k - 1]) == rows[i][k] for k in toks))
    out = {a: sum(h) / len(h) for a, h in hits.items()}
    out["all"] = sum(sum(h) for h in hits.values()) / sum(len(h) for h in hits.values())
    return out


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
            entries = ev.training_bios(ds, n_people=128, seed=0)
            row = by_attribute(model, tok, entries)
            assert abs(row["all"] - ev.memorisation(model, tok, ds)) < 1e-9  # the same number as the check
            rows.append({"augmentation": aug, "seed": seed, **row})
            print(rows[-1], flush=True)
    print(pd.DataFrame(rows).set_index(["augmentation", "seed"]).round(3).to_string())


if __name__ == "__main__":
    main()
