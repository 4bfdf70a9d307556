"""Cloze scoring of minimal pairs with a masked LM.

Each item masks one word and names a correct and an incorrect filler; the
model "passes" when it gives the correct one the higher logit at the masked
position (Goldberg 2019; Warstadt et al. 2019; Ettinger 2020). Works with any
MLM whose tokenizer has a mask token; with sub-word tokenizers both fillers
must be single tokens, and items where they are not are skipped and counted.

Used by the survey §3 notebooks.
"""

from __future__ import annotations

from typing import Any, Sequence

import pandas as pd
import torch

from bertology_lib.errors import ParameterError


def _single_id(tokenizer, word: str) -> int | None:
    ids = tokenizer(word, add_special_tokens=False)["input_ids"]
    if len(ids) != 1 or ids[0] == tokenizer.unk_token_id:
        return None
    return ids[0]


@torch.no_grad()
def score_items(model, tokenizer, items: Sequence[Any], batch_size: int = 64) -> pd.DataFrame:
    """One row per scorable item: logits of both fillers, ``correct`` (bool) and ``meta`` columns.

    ``items`` have ``words``, ``mask_index``, ``correct``, ``incorrect``,
    ``suite`` and ``meta`` (see :class:`bertology_lib.data.toy_english.ClozeItem`).
    ``df.attrs["skipped"]`` counts items whose fillers are not single tokens.
    """
    if tokenizer.mask_token is None:
        raise ParameterError(f"{type(tokenizer).__name__} has no mask token: cloze scoring needs an MLM")
    device = next(model.parameters()).device
    model.eval()
    rows, skipped = [], 0
    usable = []
    for idx, it in enumerate(items):
        a, b = _single_id(tokenizer, it.correct), _single_id(tokenizer, it.incorrect)
        if a is None or b is None:
            skipped += 1
            continue
        usable.append((idx, it, a, b))
    for start in range(0, len(usable), batch_size):
        chunk = usable[start : start + batch_size]
        batch = []
        for _, it, _, _ in chunk:
            w = list(it.words)
            w[it.mask_index] = tokenizer.mask_token
            batch.append(w)
        enc = tokenizer(batch, is_split_into_words=True, return_tensors="pt", padding=True)
        logits = model(
            **{k: v.to(device) for k, v in enc.items() if k in ("input_ids", "attention_mask", "token_type_ids")}
        ).logits
        for b_i, (idx, it, a, b) in enumerate(chunk):
            pos = (enc["input_ids"][b_i] == tokenizer.mask_token_id).nonzero()
            if len(pos) != 1:
                skipped += 1
                continue
            lg = logits[b_i, int(pos[0])]
            la, lb = float(lg[a]), float(lg[b])
            rows.append(
                {
                    "item": idx,
                    "suite": it.suite,
                    "text": " ".join(it.words),
                    "correct_word": it.correct,
                    "incorrect_word": it.incorrect,
                    "logit_correct": la,
                    "logit_incorrect": lb,
                    "margin": la - lb,
                    "correct": la > lb,
                    **{k: v for k, v in it.meta.items() if isinstance(v, (str, int, float, bool))},
                }
            )
    df = pd.DataFrame(rows)
    df.attrs["skipped"] = skipped
    return df


def accuracy_by(df: pd.DataFrame, by: str | list[str]) -> pd.DataFrame:
    """Accuracy, item count and a binomial standard error per group."""
    g = df.groupby(by)["correct"]
    out = g.agg(accuracy="mean", n="size").reset_index()
    out["stderr"] = (out.accuracy * (1 - out.accuracy) / out.n).pow(0.5)
    return out


def insensitivity(model, tokenizer, items: Sequence[Any], transforms: dict[str, Any]) -> pd.DataFrame:
    """Does the preference change when the context is damaged? (survey §3.1; Ettinger 2020)

    ``transforms`` maps a name to ``item -> item`` (e.g.
    :func:`bertology_lib.data.toy_english.apply_transform` with a fixed name).
    One row per transform: accuracy on the original and transformed items and
    the share of items whose preferred filler stayed the same.
    """
    rows = []
    for name, fn in transforms.items():
        pairs = [(it, fn(it)) for it in items]
        pairs = [(a, b) for a, b in pairs if b is not None]  # a transform may delete the masked word
        base = score_items(model, tokenizer, [a for a, _ in pairs]).set_index("item")
        t = score_items(model, tokenizer, [b for _, b in pairs]).set_index("item")
        both = base.index.intersection(t.index)
        same = float((base.loc[both, "correct"] == t.loc[both, "correct"]).mean()) if len(both) else float("nan")
        rows.append(
            {
                "transform": name,
                "accuracy_original": float(base.loc[both, "correct"].mean()),
                "accuracy_transformed": float(t.loc[both, "correct"].mean()),
                "same_preference": same,
                "n": len(both),
            }
        )
    return pd.DataFrame(rows)


def suite_across_checkpoints(checkpoints, items, by: str) -> pd.DataFrame:
    """Score ``items`` with every kept checkpoint: accuracy per (step, ``by`` group).

    ``checkpoints``: (step, folder) pairs (:func:`bertology_lib.models.minibert.checkpoints`).
    """
    from transformers import AutoModelForMaskedLM, AutoTokenizer

    frames = []
    for step, folder in checkpoints:
        model = AutoModelForMaskedLM.from_pretrained(folder).eval()
        tok = AutoTokenizer.from_pretrained(folder)
        acc = accuracy_by(score_items(model, tok, items), by)
        acc.insert(0, "step", step)
        frames.append(acc)
    return pd.concat(frames, ignore_index=True)
