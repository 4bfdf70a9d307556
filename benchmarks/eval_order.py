"""Evaluation batches in the rows' order vs grouped by length (`training.predictions.predict`), side by side.

`predict` used to run the rows of a split in their order, so each batch of 128 padded to its longest row;
it now runs them longest first (`length_order`), so a batch pads little, and puts the predictions back in
the split's order. Padding is masked (attention, and the QA head's logits), so only float rounding may
differ. This script runs both on the real MiniLM with a fresh head (timing does not depend on training)
at one thread, on the SST-2 test sentences and on the toy QA task's test split, and prints the best of
``--repeats`` walls, the largest probability difference and whether the metrics are equal.

    .venv/bin/python benchmarks/eval_order.py [--repeats 3]
"""

from __future__ import annotations

import argparse
import time

import torch

from bertology_lib.data import tasks
from bertology_lib.models.task_heads import build_model
from bertology_lib.training import finetune as ft
from bertology_lib.training.encoding import collate, encode, max_len_for
from bertology_lib.training.predictions import Predictions, predict


@torch.no_grad()
def predict_in_order(model, features, pad_id: int, cfg) -> Predictions:
    """The previous `predict` for classification: batches of consecutive rows."""
    model.eval()
    chunks = []
    for i in range(0, len(features.rows), cfg.eval_batch_size):
        batch = collate(features.rows[i: i + cfg.eval_batch_size], pad_id)
        batch.pop("labels")
        chunks.append(model(**batch).logits.float().softmax(-1))
    return Predictions(features.kind, features.ids, features.golds, {"probs": torch.cat(chunks)}, 2,
                       features.contexts, cfg.max_answer_words, cfg.null_threshold)


def best(fn, repeats: int) -> tuple[float, object]:
    walls, out = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        walls.append(time.perf_counter() - t0)
    return min(walls), out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    torch.set_num_threads(1)
    cfg = ft.FinetuneConfig.for_profile("quick")
    src = ft.ModelSource("minilm", profile="quick")
    tok, body = src.load_tokenizer(), src.load_model()
    for name, task in (("SST-2 test (872)", tasks.sst2_task(n_train=32, n_test=None)),
                       ("toy QA test", tasks.toy_qa())):
        model = build_model(task, body, seed=0)
        feats = encode(task, "test", tok, max_len_for(model.encoder, cfg.max_len))
        lengths = sorted(len(r["input_ids"]) for r in feats.rows)
        t_new, new = best(lambda: predict(model, feats, tok.pad_token_id, cfg, task.n_labels), args.repeats)
        line = f"{name}: {len(feats.rows)} rows, tokens median {lengths[len(lengths) // 2]}, max {lengths[-1]}; "
        if task.kind == "classification":
            t_old, old = best(lambda: predict_in_order(model, feats, tok.pad_token_id, cfg), args.repeats)
            diff = (new.probs["probs"] - old.probs["probs"]).abs().max().item()
            line += (f"in order {t_old:.2f} s, by length {t_new:.2f} s ({t_old / t_new:.2f}x); "
                     f"max |prob diff| {diff:.1e}; metrics equal: {new.metrics() == old.metrics()}")
        else:  # the QA path of `predict` in rows' order: one row per batch pads nothing, a reference
            one = ft.FinetuneConfig.for_profile("quick", eval_batch_size=1)
            ref = predict(model, feats, tok.pad_token_id, one, task.n_labels)
            diff = max((new.probs[k] - ref.probs[k]).abs().max().item() for k in ("start", "end"))
            line += (f"by length {t_new:.2f} s; max |prob diff| vs one row per batch {diff:.1e}; "
                     f"metrics equal: {new.metrics() == ref.metrics()}")
        print(line, flush=True)


if __name__ == "__main__":
    main()
