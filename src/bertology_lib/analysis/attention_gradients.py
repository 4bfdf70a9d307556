"""Attention to [SEP] as a no-op: much attention, little gradient (Clark et al. 2019, §3, Fig. 3).

Clark et al. find heads in BERT's middle layers attending heavily to [SEP], yet the masked-LM loss hardly
changes when that attention changes: the gradient of the loss with respect to the attention weights on
[SEP] is small, so attending to [SEP] reads as a "no-op" a head falls back on when its function does not
apply. :func:`sep_attention_and_gradient` masks ``mask_prob`` of each sentence's tokens, runs the masked LM
and gives, per sentence and layer, the share of attention that goes to [SEP] and the share of the gradient
magnitude ``|dL/dα|`` that falls on the attention to [SEP]; :func:`sep_layer_profile` averages both per layer,
:func:`peak_layer` finds the layer attending most to [SEP] and :func:`noop_gap` the attention share minus the
gradient share there, with a bootstrap over sentences. The reference repository (clarkkev/attention-analysis)
holds no gradient code; this is our own. Roles come from
:func:`bertology_lib.analysis.attention.token_roles`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import torch

from bertology_lib import stats
from bertology_lib.analysis.attention import token_roles
from bertology_lib.errors import ParameterError
from bertology_lib.validation import check_fraction, check_int, check_seed

ATTENTION, GRADIENT = 0, 1


def _check_texts(texts: Sequence[Sequence[str]]) -> None:
    if isinstance(texts, str) or not texts:
        raise ParameterError(
            f"texts={texts!r} is not allowed; allowed: a non-empty list of sentences, each a non-empty list of words"
        )
    for i, t in enumerate(texts):
        if isinstance(t, str) or not t or not all(isinstance(w, str) for w in t):
            raise ParameterError(f"texts[{i}]={t!r} is not allowed; allowed: a non-empty list of words (str)")


def _mask_positions(rng: np.random.Generator, candidates: np.ndarray, mask_prob: float) -> np.ndarray:
    """``mask_prob`` of the candidate positions (rounded, at least one), drawn without replacement."""
    n = max(1, round(mask_prob * len(candidates)))
    return np.sort(rng.choice(candidates, size=n, replace=False))


def sep_attention_and_gradient(
    model,
    tokenizer,
    texts: Sequence[Sequence[str]],
    mask_prob: float = 0.15,
    seed: int = 0,
    batch_size: int = 32,
    max_length: int = 512,
) -> np.ndarray:
    """(sentences, layers, 2) array: per sentence and layer, ``[..., 0]`` the attention share to [SEP] and
    ``[..., 1]`` the gradient share to [SEP].

    ``texts``: sentences as lists of words (tokenized with ``is_split_into_words=True``, as in
    :func:`~bertology_lib.analysis.attention_norms.attention_maps`). In every sentence ``mask_prob`` of the
    non-special tokens (rounded, at least one) are replaced by the mask token; the positions are drawn with
    ``np.random.default_rng(seed)`` sentence by sentence, so they do not depend on ``batch_size``. The loss
    L of a sentence is the masked-LM cross-entropy averaged over its masked positions. Only real tokens
    (not padding) count, as queries and as keys; with T of them and H heads:

    * attention share = (1 / HT) Σ_h Σ_q Σ_{k ∈ [SEP]} α[h, q, k] (the mean over heads and queries of the
      weight on the [SEP] key(s), as in :mod:`bertology_lib.analysis.attention_layers`);
    * gradient share = ``Σ_h Σ_q Σ_{k ∈ [SEP]} |dL/dα[h, q, k]| / Σ_h Σ_q Σ_k |dL/dα[h, q, k]|`` (NaN if the
      loss does not depend on the weights at all).

    ``model`` is a BERT-family masked LM (``BertForMaskedLM``) loaded with eager attention: only then does
    transformers 5 return the weights. In eval mode the tensors in ``output.attentions`` are the softmax
    outputs that the attention matmul itself uses (dropout is the identity), so they carry the gradient;
    it is taken with :func:`torch.autograd.grad` on those tensors — the same numbers as ``retain_grad()`` +
    ``backward()``, without touching the parameters' ``.grad``. A forward hook makes the embedding output
    require grad so that frozen weights still give a graph. The model runs in eval mode; its training flag
    and every parameter's ``requires_grad`` and ``.grad`` are left as they were. Sentences of a batch do
    not interact, so one backward pass of the summed per-sentence losses gives each sentence's own gradient.
    """
    _check_texts(texts)
    mask_prob = check_fraction("mask_prob", mask_prob)
    seed = check_seed(seed)
    batch_size = check_int("batch_size", batch_size, minimum=1)
    max_length = check_int("max_length", max_length, minimum=3)
    if getattr(tokenizer, "mask_token_id", None) is None:
        raise ParameterError(
            f"tokenizer {type(tokenizer).__name__} has no mask token; allowed: a masked-LM tokenizer (with [MASK])"
        )
    embeddings = getattr(getattr(model, "base_model", model), "embeddings", None)
    if not isinstance(embeddings, torch.nn.Module):
        raise TypeError(f"{type(model).__name__} has no embeddings module; a BERT-family masked LM is needed")
    cls_token, sep_token = tokenizer.cls_token, tokenizer.sep_token
    rng = np.random.default_rng(seed)
    device = next(model.parameters()).device
    was_training = model.training
    model.eval()
    rows: list[np.ndarray] = []
    hook = embeddings.register_forward_hook(lambda mod, inp, out: out.requires_grad_(True))
    try:
        with torch.enable_grad():
            for start in range(0, len(texts), batch_size):
                batch = [list(t) for t in texts[start : start + batch_size]]
                enc = tokenizer(
                    batch,
                    is_split_into_words=True,
                    return_tensors="pt",
                    padding=True,
                    truncation=True,
                    max_length=max_length,
                )
                ids = enc["input_ids"].clone()
                labels = torch.full_like(ids, -100)
                lengths, seps = [], []
                for i in range(len(batch)):
                    T = int(enc["attention_mask"][i].sum())
                    roles = token_roles(tokenizer.convert_ids_to_tokens(ids[i][:T].tolist()), cls_token, sep_token)
                    candidates = np.flatnonzero(~roles["special"])
                    if len(candidates) == 0 or not roles["sep"].any():
                        raise ParameterError(
                            f"texts[{start + i}]={batch[i]!r} gives no maskable token or no "
                            f"{sep_token}; allowed: sentences with at least one word"
                        )
                    pos = torch.as_tensor(_mask_positions(rng, candidates, mask_prob))
                    labels[i, pos] = ids[i, pos]
                    ids[i, pos] = tokenizer.mask_token_id
                    lengths.append(T)
                    seps.append(torch.as_tensor(roles["sep"]))
                inputs = {k: v.to(device) for k, v in enc.items() if k in ("attention_mask", "token_type_ids")}
                out = model(input_ids=ids.to(device), **inputs, output_attentions=True)
                labels = labels.to(device)
                ce = torch.nn.functional.cross_entropy(
                    out.logits.float().transpose(1, 2), labels, ignore_index=-100, reduction="none"
                )  # (B, T)
                loss = (ce.sum(1) / (labels != -100).sum(1)).sum()
                grads = torch.autograd.grad(loss, list(out.attentions))
                for i, (T, sep) in enumerate(zip(lengths, seps)):
                    row = np.zeros((len(grads), 2))
                    for L, (a, g) in enumerate(zip(out.attentions, grads)):
                        a_i = a[i, :, :T, :T].detach().double().cpu()
                        g_i = g[i, :, :T, :T].abs().double().cpu()
                        row[L, ATTENTION] = float(a_i[..., sep].sum(-1).mean())
                        total = float(g_i.sum())
                        row[L, GRADIENT] = float(g_i[..., sep].sum()) / total if total > 0 else np.nan
                    rows.append(row)
    finally:
        hook.remove()
        model.train(was_training)
    return np.stack(rows)


def _check_array(arr: np.ndarray) -> np.ndarray:
    a = np.asarray(arr, dtype=float)
    if a.ndim != 3 or a.shape[2] != 2 or a.shape[0] == 0 or a.shape[1] == 0:
        raise ParameterError(
            f"array of shape {a.shape} is not allowed; allowed: (sentences, layers, 2) from sep_attention_and_gradient"
        )
    return a


def sep_layer_profile(arr: np.ndarray) -> pd.DataFrame:
    """One row per layer: ``attention_share`` and ``gradient_share`` to [SEP] (means over sentences, NaN
    shares skipped) and ``ratio`` = gradient share / attention share (below 1: a no-op)."""
    a = _check_array(arr)
    att, grad = np.nanmean(a[..., ATTENTION], 0), np.nanmean(a[..., GRADIENT], 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = grad / att
    return pd.DataFrame(
        {"layer": np.arange(a.shape[1]), "attention_share": att, "gradient_share": grad, "ratio": ratio}
    )


def peak_layer(arr: np.ndarray) -> int:
    """The layer with the highest mean attention share to [SEP] (the first one on ties)."""
    return int(np.argmax(np.nanmean(_check_array(arr)[..., ATTENTION], 0)))


def noop_gap(
    arr: np.ndarray, layer: int | None = None, n_resamples: int = 2000, seed: int = 0, confidence: float = 0.95
) -> tuple[float, float, float]:
    """(gap, low, high): at ``layer`` (default :func:`peak_layer`), the mean over sentences of attention
    share − gradient share to [SEP], with a percentile bootstrap interval resampling sentences.

    Positive: the layer attends to [SEP] more than the loss cares about that attention (Clark et al.'s
    no-op). A random-init model attends about uniformly and its gradient is spread about evenly too, so its
    gap sits near 0. Sentences whose gradient share is NaN are dropped."""
    a = _check_array(arr)
    n_layers = a.shape[1]
    if layer is None:
        layer = peak_layer(a)
    layer = check_int("layer", layer, minimum=-n_layers, maximum=n_layers - 1)
    diff = a[:, layer, ATTENTION] - a[:, layer, GRADIENT]
    diff = diff[np.isfinite(diff)]
    return stats.bootstrap_ci(diff, np.mean, n_resamples=n_resamples, seed=seed, confidence=confidence)
