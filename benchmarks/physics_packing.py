"""Does stream packing cut biographies from their names, and are the cut values the ones not memorised? (#17)

For the quick grid models (single and multi5+permute, seed 0; pretrained from the artifact cache, or trained
there first: about 10 minutes each on one core), sample 300 training biographies and sort every attribute
value by where stream packing (``objectives.pack_windows``) put it: in the same window as its person's name,
in a later window (cut from the name), or in the dropped tail. Prints first-token memorisation per group.

    OMP_NUM_THREADS=1 BERTOLOGY_CACHE=... .venv/bin/python benchmarks/physics_packing.py
"""
import torch; torch.set_num_threads(1)
import numpy as np
from bertology_lib.cache import ArtifactCache
from bertology_lib.experiments.physics import training as T, evaluation as E
from bertology_lib.experiments.physics.config import PhysicsConfig, get_tokenizer
cache = ArtifactCache()  # BERTOLOGY_CACHE or the default cache
base = PhysicsConfig.for_profile("quick")
for aug in ["single", "multi5+permute"]:
    cfg = base.replace(augmentation=aug, seed=0)
    ds, tok = cfg.dataset(), get_tokenizer("word")
    ids = tok(ds.texts(), add_special_tokens=False)["input_ids"]
    # stream positions as pack_sequences joins them: eos between lists (check exact layout below)
    starts, pos = [], 0
    for x in ids:
        starts.append(pos); pos += len(x) + 1
    n_full = pos // cfg.seq_len
    model, _ = T.load_model(T.pretrain(cfg, cache))
    entries = ds.bios
    sel = np.random.default_rng(0).permutation(len(entries))[:300]
    enc_ids, word_ids = E.encode_words(tok, [entries[i].text for i in sel])
    hits = {"same window as name": [], "cut from name": [], "dropped tail": []}
    for j, i in enumerate(sel):
        e = entries[i]
        w = word_ids[j]
        x = enc_ids[j]
        with torch.no_grad():
            pred = model(input_ids=torch.tensor([x])).logits.argmax(-1)[0]
        name_tok = max(k for k, wid in enumerate(w) if wid is not None and e.span("name")[0] <= wid < e.span("name")[1])
        for lab, ws, we in e.spans:
            if lab == "name": continue
            k = min(kk for kk, wid in enumerate(w) if wid is not None and ws <= wid < we)
            # token k of the encoded text (eos at 0) is stream position starts[i] + k - 1
            sp, sn = starts[i] + k - 1, starts[i] + name_tok - 1
            if sp >= n_full * cfg.seq_len: key = "dropped tail"
            elif sp // cfg.seq_len == sn // cfg.seq_len: key = "same window as name"
            else: key = "cut from name"
            hits[key].append(int(pred[k - 1]) == x[k])
    print(aug, {k: (len(v), round(float(np.mean(v)), 3) if v else None) for k, v in hits.items()}, flush=True)
