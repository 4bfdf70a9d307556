"""Attention is not only weights: ‖α f(x)‖, the norm of what each head actually adds (Kobayashi et al. 2020).

:func:`attention_maps` runs one forward pass and records subword attention weights together with the
norm of each head's transformed value vectors ‖f(x)‖; :func:`norm_maps` gives ‖α f(x)‖ maps,
:func:`value_norms_by_role` and :func:`special_focus` compare [CLS]/[SEP]/punctuation by weight and by
norm, :func:`focus_lost` pools the share lost with an interval over sentences; :func:`collect_head_sums`
gives the per-sentence attention sums of :mod:`bertology_lib.analysis.attention_heldout` for many sentences.
The maps have the layout of :mod:`bertology_lib.analysis.attention` (``patterns[L][s]``:
(n_heads, T, T)). Used by the survey §4.2 notebook.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np
import pandas as pd
import torch

from bertology_lib import stats
from bertology_lib.analysis.attention import head_stats, token_roles
from bertology_lib.analysis.attention_heldout import HeadSums, head_sums
from bertology_lib.errors import ParameterError


# -- Kobayashi et al. 2020: attention norms -------------------------------------------------------
@dataclass
class AttentionMaps:
    """Subword attention of a batch of inputs, with the norms of the transformed value vectors.

    ``weights[L][s]``: (n_heads, T, T) attention weights α; ``value_norms[L][s]``:
    (n_heads, T) ‖f^h(x_j)‖ with f^h(x) = (x W_V^h + b_V^h) W_O^h, the vector
    head ``h`` adds to the attention output for key ``j`` per unit of weight
    (the output bias b_O, shared by all keys, and the residual/LayerNorm after
    it are not included — Kobayashi et al. 2020 §3); ``tokens[s]`` with
    specials; ``segments[s]``: token type ids (1 for the second text of a pair).
    """

    weights: list[list[torch.Tensor]]
    value_norms: list[list[torch.Tensor]] | None
    tokens: list[list[str]]
    segments: list[list[int]] = field(default_factory=list)
    n_forward_calls: int = 0

    @property
    def n_layers(self) -> int:
        return len(self.weights)


def _attention_blocks(model) -> list:
    base = getattr(model, "base_model", model)
    layers = getattr(getattr(base, "encoder", None), "layer", None)
    if layers is None or not all(
        hasattr(b, "attention")
        and hasattr(b.attention, "self")
        and hasattr(b.attention.self, "value")
        and hasattr(b.attention, "output")
        for b in layers
    ):
        raise TypeError(
            f"{type(model).__name__} is not a BERT-family encoder (encoder.layer[L].attention."
            "self.value / .output.dense); attention norms need one"
        )
    return list(layers)


@contextmanager
def _value_hooks(blocks):
    """Record the value projection's output of every block; hooks always removed."""
    store: dict[int, torch.Tensor] = {}
    handles = []
    try:
        for L, b in enumerate(blocks):
            handles.append(
                b.attention.self.value.register_forward_hook(
                    lambda mod, inp, out, L=L: store.__setitem__(L, out.detach())
                )
            )
        yield store
    finally:
        for h in handles:
            h.remove()


def transformed_values(values: torch.Tensor, w_out: torch.Tensor, n_heads: int) -> torch.Tensor:
    """f^h(x_j) for every head: (B, T, d) value-projection outputs, (d, d) output weight -> (B, H, T, d).

    ``values`` = x W_V + b_V (the ``value`` Linear's output, heads concatenated);
    ``w_out``: the output projection's ``weight`` (out, in), whose input
    columns ``h*d_head:(h+1)*d_head`` belong to head ``h``.
    """
    B, T, d = values.shape
    dh = d // n_heads
    v = values.reshape(B, T, n_heads, dh).permute(0, 2, 1, 3)  # (B, H, T, dh)
    w = w_out.reshape(w_out.shape[0], n_heads, dh).permute(1, 2, 0)  # (H, dh, d_out)
    return torch.einsum("bhtk,hko->bhto", v, w)


@torch.no_grad()
def attention_maps(
    model,
    tokenizer,
    texts: Sequence[Sequence[str]],
    text_pairs: Sequence[Sequence[str]] | None = None,
    with_norms: bool = True,
    batch_size: int = 32,
    max_length: int = 512,
) -> AttentionMaps:
    """One forward pass per batch: subword attention weights (and value norms) of words or word pairs.

    ``texts``: sentences as lists of words; ``text_pairs``: optional second
    sentences (the input becomes [CLS] a [SEP] b [SEP], as for MRPC/RTE in
    Kovaleva et al. 2019). ``model`` is a BERT-family encoder loaded with
    eager attention. Value vectors come from a forward hook on each block's
    value projection; the output projection is read from its weights.
    """
    if not texts:
        raise ParameterError("texts is empty; give at least one sentence (a list of words)")
    if text_pairs is not None and len(text_pairs) != len(texts):
        raise ParameterError(f"{len(texts)} texts but {len(text_pairs)} text_pairs; they must align")
    blocks = _attention_blocks(model) if with_norms else []
    device = next(model.parameters()).device
    model.eval()
    weights: list[list[torch.Tensor]] = []
    vnorms: list[list[torch.Tensor]] | None = [] if with_norms else None
    tokens, segments, calls = [], [], 0
    with _value_hooks(blocks) as store:
        for start in range(0, len(texts), batch_size):
            a = [list(t) for t in texts[start : start + batch_size]]
            args = (a,) if text_pairs is None else (a, [list(t) for t in text_pairs[start : start + batch_size]])
            enc = tokenizer(
                *args,
                is_split_into_words=True,
                return_tensors="pt",
                padding=True,
                truncation=True,
                max_length=max_length,
            )
            inputs = {k: v.to(device) for k, v in enc.items() if k in ("input_ids", "attention_mask", "token_type_ids")}
            out = model(**inputs, output_attentions=True)
            calls += 1
            if not weights:
                weights = [[] for _ in out.attentions]
                if vnorms is not None:
                    vnorms.extend([] for _ in out.attentions)
            norms = []
            for L, b in enumerate(blocks):
                f = transformed_values(
                    store[L].float(), b.attention.output.dense.weight.float(), out.attentions[L].shape[1]
                )
                norms.append(f.norm(dim=-1).cpu())  # (B, H, T)
            for i in range(len(a)):
                T = int(enc["attention_mask"][i].sum())
                ids = enc["input_ids"][i][:T].tolist()
                tokens.append(tokenizer.convert_ids_to_tokens(ids))
                tt = enc.get("token_type_ids")
                segments.append(tt[i][:T].tolist() if tt is not None else [0] * T)
                for L, att in enumerate(out.attentions):
                    weights[L].append(att[i, :, :T, :T].float().cpu().clone())
                    if vnorms is not None:
                        vnorms[L].append(norms[L][i, :, :T].clone())
    return AttentionMaps(weights=weights, value_norms=vnorms, tokens=tokens, segments=segments, n_forward_calls=calls)


def norm_maps(maps: AttentionMaps, normalize: bool = True) -> list[list[torch.Tensor]]:
    """‖α_ij f^h(x_j)‖ = α_ij ‖f^h(x_j)‖ per layer and sentence, (n_heads, T, T).

    With ``normalize`` each row is divided by its sum, so the maps read as
    shares like the weights do and pass through :func:`head_stats` unchanged.
    """
    if maps.value_norms is None:
        raise ParameterError("these maps were collected with with_norms=False; no value norms to weight by")
    out = []
    for W, V in zip(maps.weights, maps.value_norms):
        layer = []
        for a, n in zip(W, V):
            m = a * n[:, None, :]
            layer.append(m / m.sum(-1, keepdim=True).clamp_min(1e-12) if normalize else m)
        out.append(layer)
    return out


def value_norms_by_role(maps: AttentionMaps, cls_token: str = "[CLS]", sep_token: str = "[SEP]") -> pd.DataFrame:
    """Mean ‖f(x)‖ per layer for [CLS], [SEP], punctuation and other tokens (averaged over heads).

    Kobayashi et al. (2020, §4) find the transformed vectors of the tokens that
    receive the most attention weight to be small.
    """
    if maps.value_norms is None:
        raise ParameterError("these maps were collected with with_norms=False")
    rows = []
    for L, per in enumerate(maps.value_norms):
        acc: dict[str, list[float]] = {"[CLS]": [], "[SEP]": [], "punctuation": [], "other": []}
        for n, toks in zip(per, maps.tokens):
            r = token_roles(toks, cls_token, sep_token)
            other = ~(r["special"] | r["punct"])
            m = n.mean(0).numpy()  # (T,)
            for name, mask in (("[CLS]", r["cls"]), ("[SEP]", r["sep"]), ("punctuation", r["punct"]), ("other", other)):
                acc[name].extend(m[mask].tolist())
        for name, v in acc.items():
            if v:
                rows.append({"layer": L, "token": name, "value_norm": float(np.mean(v)), "n": len(v)})
    return pd.DataFrame(rows)


def special_focus(maps: AttentionMaps, cls_token: str = "[CLS]", sep_token: str = "[SEP]") -> pd.DataFrame:
    """Per layer: mean share of attention on [CLS]+[SEP] by weight and by norm, and how much disappears.

    ``weight_share`` averages α over heads and query rows; ``norm_share`` does
    the same with the row-normalised ‖α f(x)‖ maps (:func:`norm_maps`);
    ``disappears`` = 1 − norm_share / weight_share (the fraction of the
    [CLS]/[SEP] focus that does not survive weighting by the vectors' norms).
    """
    w = head_stats(maps.weights, maps.tokens, cls_token, sep_token)
    n = head_stats(norm_maps(maps), maps.tokens, cls_token, sep_token)
    out = pd.DataFrame(
        {"layer": w.layer, "head": w["head"], "weight_share": w.cls + w.sep, "norm_share": n.cls + n.sep}
    )
    per = out.groupby("layer")[["weight_share", "norm_share"]].mean().reset_index()
    per["disappears"] = 1 - per.norm_share / per.weight_share.clip(lower=1e-12)
    return per


def focus_lost(
    maps: AttentionMaps, seed: int = 0, n_resamples: int = 2000, cls_token: str = "[CLS]", sep_token: str = "[SEP]"
) -> tuple[float, float, float]:
    """The share of the attention on [CLS] and [SEP] that does not survive weighting by the vectors' norms,
    all layers and heads pooled, with a 95% interval resampling sentences: ``(lost, low, high)``.

    Pooled, it equals ``1 - sum(norm_share) / sum(weight_share)`` over the layers of :func:`special_focus`
    (every layer has the same heads and query rows)."""
    normed = norm_maps(maps)
    per = np.zeros((len(maps.tokens), 2))
    for s, toks in enumerate(maps.tokens):
        special = torch.as_tensor(token_roles(toks, cls_token, sep_token)["special"])
        for L in range(maps.n_layers):
            per[s, 0] += float(maps.weights[L][s].double()[..., special].sum())
            per[s, 1] += float(normed[L][s].double()[..., special].sum())
    return stats.bootstrap_ci(per, lambda x: 1 - x[:, 1].sum() / x[:, 0].sum(), n_resamples, seed)


def collect_head_sums(
    model, tokenizer, texts: Sequence[Sequence[str]], chunk: int = 256, batch_size: int = 32
) -> HeadSums:
    """:func:`~bertology_lib.analysis.attention_heldout.head_sums` of every sentence of ``texts``, computed
    ``chunk`` sentences at a time so that the attention maps of a large set never sit in memory together."""
    parts = []
    for start in range(0, len(texts), chunk):
        m = attention_maps(model, tokenizer, texts[start : start + chunk], with_norms=False, batch_size=batch_size)
        parts.append(head_sums(m.weights, m.tokens))
    return HeadSums.concat(parts)
