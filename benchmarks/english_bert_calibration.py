"""Calibration of the English lab BERT (#37): what a recipe reaches, checkpoint by checkpoint, on this CPU.

Trains :class:`bertology_lib.models.english_bert.EnglishBertConfig` (the quick profile with the overrides given)
through the library's own pipeline (:func:`bertology_lib.training.english_bert.train_english_bert`) into a
scratch cache, and prints what its checkpoints recorded: training seconds, held-out masked-word accuracy (1,500
sentences of the test documents) and agreement on Brown *validation* items (the test items stay for the book),
beside the two references the instruments compare with: a two-sided n-gram model counted on the same training
text, scored on the same masked positions, and the agreement items' majority form.

    python benchmarks/english_bert_calibration.py                       # the quick recipe as it stands
    python benchmarks/english_bert_calibration.py max_steps=800 head_lr=1 pairs=false n_checkpoints=4
"""

from __future__ import annotations

import ast
import sys
import tempfile
import time
from pathlib import Path


def main() -> None:
    overrides = {}
    for arg in sys.argv[1:]:
        k, _, v = arg.partition("=")
        overrides[k] = {"true": True, "false": False}.get(v.lower(), None) if v.lower() in ("true", "false") \
            else (ast.literal_eval(v) if v[:1].isdigit() or v[:1] in "-." else v)
    from bertology_lib.analysis import mlm_strength as strength
    from bertology_lib.cache import ArtifactCache
    from bertology_lib.models.english_bert import EnglishBertConfig, corpus, tokenizer_for
    from bertology_lib.runtime import apply_thread_policy
    from bertology_lib.training.english_bert import history, train_english_bert, validation_items

    threads = apply_thread_policy()
    cfg = EnglishBertConfig.for_profile("quick", **overrides)
    print(f"{cfg} at {threads} threads", flush=True)
    text, tok = corpus(cfg), tokenizer_for(cfg)
    t0 = time.time()
    ngram = strength.NGramMLM(list(text.train), tok)
    ngram_acc = float(strength.hits(strength.masked_predictions({"ngram": ngram}, tok, list(text.heldout)),
                                    "ngram").mean())
    items = validation_items(cfg)
    share_sg = sum(it.right in ("is", "was", "has") for it in items) / len(items)
    print(f"references ({time.time() - t0:.0f} s): two-sided n-gram masked-word accuracy {ngram_acc:.3f}; "
          f"agreement majority {max(share_sg, 1 - share_sg):.3f} on {len(items)} validation items "
          f"({sum(it.n_attractors > 0 for it in items)} with attractors)", flush=True)
    with tempfile.TemporaryDirectory(prefix="english-bert-calibration-") as tmp:
        t0 = time.time()
        folder = train_english_bert(cfg, cache=ArtifactCache(Path(tmp)), progress=False, resume_every=0)
        h = history(folder)
        print(f"trained in {time.time() - t0:.0f} s of wall ({h['seconds']:.0f} s in the loop), "
              f"{h['n_params'] / 1e6:.1f}M parameters, {h['n_sentences']} sentences; NSP train accuracy "
              f"{h['nsp_train_accuracy']}", flush=True)
        for e in h["evals"]:
            print(f"step {e['step']:>6}  {e['train_seconds'] / 60:5.1f} min  loss {e['loss']:.3f}  masked-word acc "
                  f"{e['mlm_acc']:.3f} (n-gram {ngram_acc:.3f})  agreement, no attractor {e['agreement_0']:.3f}, "
                  f"all {e['agreement_all']:.3f}", flush=True)


if __name__ == "__main__":
    main()
