"""Reading the input back from every layer through the MLM head (Kao et al. 2020, RQ1)."""

from __future__ import annotations

import pandas as pd
import torch

from bertology_lib.errors import ParameterError


@torch.no_grad()
def reconstruction_by_layer(mlm, tokenizer, texts: list[str], batch_size: int = 64) -> pd.DataFrame:
    """Feed every layer's hidden states, unchanged, to the MLM head (Kao et al. 2020).

    Returns one row per layer (0 = embeddings): ``reconstruction`` (share of
    input tokens the head's argmax recovers, special tokens excluded) and
    ``logit_lens_next``: for contrast, how often the head's prediction at a
    layer equals the *final* layer's prediction.
    """
    head = getattr(mlm, "cls", None) or getattr(mlm, "predictions", None)
    if head is None:
        raise ParameterError(f"{type(mlm).__name__} has no MLM head (cls); load it with head='mlm'")
    dev = next(mlm.parameters()).device
    special = set(tokenizer.all_special_ids)
    hits = agree = None
    total = 0
    for i in range(0, len(texts), batch_size):
        enc = tokenizer(texts[i : i + batch_size], return_tensors="pt", padding=True, truncation=True)
        enc = {k: v.to(dev) for k, v in enc.items() if k in ("input_ids", "attention_mask", "token_type_ids")}
        hs = mlm(**enc, output_hidden_states=True).hidden_states  # L+1 x (B, T, d)
        ids = enc["input_ids"]
        keep = enc["attention_mask"].bool() & ~torch.isin(ids, torch.tensor(sorted(special), device=dev))
        preds = [head(h).argmax(-1) for h in hs]
        h_ = torch.tensor([int((p == ids)[keep].sum()) for p in preds])
        a_ = torch.tensor([int((p == preds[-1])[keep].sum()) for p in preds])
        hits = h_ if hits is None else hits + h_
        agree = a_ if agree is None else agree + a_
        total += int(keep.sum())
    return pd.DataFrame({"layer": range(len(hits)), "reconstruction": (hits / total).numpy(),
                         "agrees_with_final": (agree / total).numpy(), "n_tokens": total})
