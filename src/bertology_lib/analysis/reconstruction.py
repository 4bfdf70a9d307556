"""Reading the input back from every layer through the MLM head (Kao et al. 2020, RQ1)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import torch

from bertology_lib.errors import ParameterError


@dataclass(frozen=True)
class Reconstruction:
    """Per-sentence counts of :func:`reconstruction_counts`: ``hits[s, l]`` input tokens of sentence ``s``
    that the head recovers from layer ``l`` (0 = embeddings), ``agree[s, l]`` predictions equal to the final
    layer's, ``tokens[s]`` scored tokens (special tokens excluded), ``moved[s, l]`` the sum over those tokens of
    1 - cos(layer ``l``'s state, the embedding layer's): how far the blocks carried each token from its input.

    ``moved`` is the control for the residual path: a network whose blocks pass their input through unchanged
    reconstructs it from every layer trivially, and its states never move (``drift`` 0)."""

    hits: np.ndarray  # (n_sentences, n_layers + 1)
    agree: np.ndarray  # (n_sentences, n_layers + 1)
    tokens: np.ndarray  # (n_sentences,)
    moved: np.ndarray | None = None  # (n_sentences, n_layers + 1)

    def drift(self, rows: np.ndarray | None = None) -> np.ndarray:
        """Per layer: the mean over scored tokens of 1 - cos(state, embedding-layer state) (0 at layer 0)."""
        if self.moved is None:
            raise ParameterError("these counts carry no states' drift; allowed: counts from reconstruction_counts")
        r = slice(None) if rows is None else rows
        return self.moved[r].sum(0) / max(int(self.tokens[r].sum()), 1)

    def rates(self, rows: np.ndarray | None = None) -> np.ndarray:
        """Reconstruction rate per layer over ``rows`` (default: all sentences), pooled over tokens."""
        r = slice(None) if rows is None else rows
        return self.hits[r].sum(0) / max(int(self.tokens[r].sum()), 1)

    def frame(self) -> pd.DataFrame:
        """One row per layer: ``reconstruction``, ``agrees_with_final`` and ``n_tokens``."""
        total = max(int(self.tokens.sum()), 1)
        return pd.DataFrame(
            {
                "layer": range(self.hits.shape[1]),
                "reconstruction": self.hits.sum(0) / total,
                "agrees_with_final": self.agree.sum(0) / total,
                "n_tokens": int(self.tokens.sum()),
            }
        )


@torch.no_grad()
def reconstruction_counts(mlm, tokenizer, texts: list[str], batch_size: int = 64) -> Reconstruction:
    """Feed every layer's hidden states, unchanged, to the MLM head (Kao et al. 2020), sentence by sentence.

    Counts, per sentence and layer (0 = embeddings), the input tokens the head's argmax recovers (special
    tokens excluded) and, for contrast, how often the prediction at a layer equals the *final* layer's.
    """
    head = getattr(mlm, "cls", None) or getattr(mlm, "predictions", None)
    if head is None:
        raise ParameterError(f"{type(mlm).__name__} has no MLM head (cls); load it with head='mlm'")
    if not texts:
        raise ParameterError("texts is empty; allowed: at least one sentence")
    dev = next(mlm.parameters()).device
    special = torch.tensor(sorted(set(tokenizer.all_special_ids)), device=dev)
    hits, agree, tokens, moved = [], [], [], []
    for i in range(0, len(texts), batch_size):
        enc = tokenizer(texts[i : i + batch_size], return_tensors="pt", padding=True, truncation=True)
        enc = {k: v.to(dev) for k, v in enc.items() if k in ("input_ids", "attention_mask", "token_type_ids")}
        hs = mlm(**enc, output_hidden_states=True).hidden_states  # L+1 x (B, T, d)
        ids = enc["input_ids"]
        keep = enc["attention_mask"].bool() & ~torch.isin(ids, special)  # (B, T)
        # the head (position-wise) only at the counted positions: no vocabulary logits for padding or specials
        row, target = keep.nonzero()[:, 0], ids[keep]
        preds = [head(h[keep]).argmax(-1) for h in hs]  # L+1 x (N,)

        def per_row(hit: torch.Tensor) -> torch.Tensor:
            return torch.zeros(len(ids), dtype=torch.long, device=dev).index_add_(0, row, hit.long())

        hits.append(torch.stack([per_row(p == target) for p in preds], 1).cpu())  # (B, L+1)
        agree.append(torch.stack([per_row(p == preds[-1]) for p in preds], 1).cpu())
        tokens.append(keep.sum(1).cpu())
        cos = [torch.nn.functional.cosine_similarity(h.float(), hs[0].float(), dim=-1) for h in hs]  # (B, T) each
        moved.append(torch.stack([((1 - c) * keep).sum(1) for c in cos], 1).double().cpu())
    return Reconstruction(
        torch.cat(hits).numpy(), torch.cat(agree).numpy(), torch.cat(tokens).numpy(), torch.cat(moved).numpy()
    )


def reconstruction_by_layer(mlm, tokenizer, texts: list[str], batch_size: int = 64) -> pd.DataFrame:
    """One row per layer (0 = embeddings): ``reconstruction`` (share of input tokens the head's argmax recovers)
    and ``agrees_with_final`` (how often the head's prediction at a layer equals the final layer's)."""
    return reconstruction_counts(mlm, tokenizer, texts, batch_size).frame()


def reconstruction_gap(
    model: Reconstruction,
    baseline: Reconstruction,
    layers: list[int] | None = None,
    n_resamples: int = 2000,
    seed: int = 0,
) -> dict[str, float]:
    """The worst layer's reconstruction (over ``layers``, default every hidden layer) minus ``baseline``'s at
    that layer, with a 95% percentile interval from resampling sentences (both counted on the same ones).

    Returns ``gap``, ``low``, ``high``, ``layer`` (the model's worst layer), ``model`` and ``baseline`` rates,
    and ``moved``: the model's :meth:`Reconstruction.drift` at its worst layer (NaN when the counts carry none), the
    residual-path control: reconstruction from a layer whose states never left the input says nothing.
    """
    if model.hits.shape != baseline.hits.shape:
        raise ParameterError(
            f"counts of shape {model.hits.shape} and {baseline.hits.shape} differ; allowed: the "
            "same sentences through models of the same depth"
        )
    layers = list(range(1, model.hits.shape[1])) if layers is None else list(layers)
    rates, base = model.rates(), baseline.rates()
    worst = layers[int(np.argmin(rates[layers]))]
    rng = np.random.default_rng(seed)
    n = len(model.tokens)
    reps = []
    for _ in range(n_resamples):
        rows = rng.integers(0, n, n)
        r = model.rates(rows)
        w = layers[int(np.argmin(r[layers]))]  # the worst layer is chosen again in every resample
        reps.append(r[w] - baseline.rates(rows)[w])
    low, high = np.quantile(reps, [0.025, 0.975])
    return {
        "gap": float(rates[worst] - base[worst]),
        "low": float(low),
        "high": float(high),
        "layer": int(worst),
        "model": float(rates[worst]),
        "baseline": float(base[worst]),
        "moved": float(model.drift()[worst]) if model.moved is not None else float("nan"),
    }
