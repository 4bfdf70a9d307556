"""One forward pass -> every layer's states and attentions, pooled to words.

Hook-point names follow TransformerLens: ``hook_embed`` is the embedding
output (layer "0" of HF's ``hidden_states``), ``blocks.{L}.hook_resid_post``
the output of block ``L`` (0-based), ``blocks.{L}.attn.hook_pattern`` its
attention weights. Access them as ``cache["resid_post", L]`` /
``cache["pattern", L]`` or by full name.

Sentences are given as lists of words (gold annotations are per word); each
word's subword states are pooled (first subword, or mean). Every analysis
reads from an :class:`ActivationCache`; nothing re-runs the model per layer.
With ``cache=True`` the pass is stored in the artifact cache under a key made
of the model's weights, the tokenizer and the sentences, so notebooks that
probe the same model on the same data share one pass.

Used by the survey §3/§4 notebooks and by the probing sweeps.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import torch

from bertology_lib.cache import ArtifactKind, load_json, load_tensors, memo, save_json, save_tensors
from bertology_lib.errors import ParameterError

POOLING = ("first", "mean")
KIND = ArtifactKind("activations", 1)  # keyed by the model's, tokenizer's and sentences' fingerprints


@dataclass
class ActivationCache:
    """Word-level activations of a batch of sentences.

    ``resid``: (n_layers + 1, n_words_total, d_model); index 0 is the embedding
    output. ``patterns[L][s]``: (n_heads, n_words_s, n_words_s) word-level
    attention of block ``L`` for sentence ``s`` (rows: mean over a word's
    subwords; columns: sum, as in Clark et al. 2019), when requested.
    ``offsets``: sentence ``s`` owns words ``offsets[s]:offsets[s+1]``.
    """

    resid: torch.Tensor
    offsets: list[int]
    patterns: list[list[torch.Tensor]] | None = None
    subword_patterns: list[list[torch.Tensor]] | None = None  # (n_heads, T, T) incl. specials
    tokens: list[list[str]] = field(default_factory=list)
    n_forward_calls: int = 0  # forward calls of the pass that computed these states
    from_cache: bool = False  # True when read back from the artifact cache

    @property
    def n_layers(self) -> int:
        return self.resid.shape[0] - 1

    def __getitem__(self, key):
        if isinstance(key, tuple):
            kind, layer = key
            if kind == "resid_post":
                return self.resid[layer + 1]
            if kind == "embed":
                return self.resid[0]
            if kind == "pattern":
                if self.patterns is None:
                    raise KeyError("attention patterns were not collected (with_attention=False)")
                return self.patterns[layer]
            raise KeyError(f"unknown hook kind {kind!r}; allowed: embed, resid_post, pattern")
        if key == "hook_embed":
            return self.resid[0]
        parts = key.split(".")
        if len(parts) >= 3 and parts[0] == "blocks":
            L = int(parts[1])
            if parts[-1] == "hook_resid_post":
                return self["resid_post", L]
            if parts[-1] == "hook_pattern":
                return self["pattern", L]
        raise KeyError(f"unknown hook point {key!r}")

    def sentence(self, s: int) -> slice:
        return slice(self.offsets[s], self.offsets[s + 1])


def _word_index(enc, b: int, n_tokens: int) -> list[int | None]:
    wid = enc.word_ids(b)
    return [wid[t] for t in range(n_tokens)]


@torch.no_grad()
def run_with_cache(
    model,
    tokenizer,
    sentences: Sequence[Sequence[str]],
    batch_size: int = 32,
    pooling: str = "first",
    with_attention: bool = False,
    keep_subword_attention: bool = False,
    max_length: int = 512,
    device: str | None = None,
    progress: bool = False,
    cache: bool = False,
) -> ActivationCache:
    """Run ``model`` once over ``sentences`` and cache every layer, pooled to words.

    ``model`` is an HF encoder or decoder body (or a model with one) loaded
    with ``attn_implementation="eager"`` when ``with_attention``. With
    ``cache=True`` the result is read from (or written to) the artifact cache,
    keyed by :func:`activation_key`.
    """
    if pooling not in POOLING:
        raise ParameterError(f"pooling={pooling!r} is not allowed; allowed: {', '.join(POOLING)}")
    if not sentences:
        raise ParameterError("sentences is empty; give at least one sentence (a list of words)")
    kw = dict(
        batch_size=batch_size,
        pooling=pooling,
        with_attention=with_attention,
        keep_subword_attention=keep_subword_attention,
        max_length=max_length,
        device=device,
        progress=progress,
    )
    if cache:
        return _cached_pass(model, tokenizer, sentences, kw)
    return _pass(model, tokenizer, sentences, **kw)


@torch.no_grad()
def _pass(
    model,
    tokenizer,
    sentences,
    batch_size,
    pooling,
    with_attention,
    keep_subword_attention,
    max_length,
    device,
    progress,
) -> ActivationCache:
    from tqdm.auto import tqdm

    device = device or next(model.parameters()).device
    model.eval()
    layers_out: list[list[torch.Tensor]] = []
    patterns: list[list[torch.Tensor]] | None = None
    sub_patterns: list[list[torch.Tensor]] | None = None
    offsets, tokens, n_calls = [0], [], 0
    starts = range(0, len(sentences), batch_size)
    for start in tqdm(starts, desc="activations", disable=not progress):
        batch = [list(s) for s in sentences[start : start + batch_size]]
        enc = tokenizer(
            batch, is_split_into_words=True, return_tensors="pt", padding=True, truncation=True, max_length=max_length
        )
        inputs = {k: v.to(device) for k, v in enc.items() if k in ("input_ids", "attention_mask", "token_type_ids")}
        out = model(**inputs, output_hidden_states=True, output_attentions=with_attention)
        n_calls += 1
        hs = torch.stack(out.hidden_states).float().cpu()  # (L+1, B, T, d)
        if patterns is None and with_attention:
            patterns = [[] for _ in out.attentions]
            sub_patterns = [[] for _ in out.attentions] if keep_subword_attention else None
        for b, words in enumerate(batch):
            T = int(enc["attention_mask"][b].sum())
            wid = _word_index(enc, b, hs.shape[2])
            n_words = len(words)
            # (n_words, T) pooling matrix: which subwords belong to each word
            P = torch.zeros(n_words, hs.shape[2])
            for t, w in enumerate(wid):
                if w is not None and w < n_words:
                    P[w, t] = 1.0
            if (P.sum(1) == 0).any():
                raise ParameterError(
                    f"sentence {start + b} was truncated at {max_length} tokens; shorten it or raise max_length"
                )
            if pooling == "first":
                first = P.cumsum(1).eq(1) & P.bool()
                Pn = first.float()
            else:
                Pn = P / P.sum(1, keepdim=True)
            layers_out.append(torch.einsum("wt,ltd->lwd", Pn, hs[:, b]))  # (L+1, n_words, d)
            offsets.append(offsets[-1] + n_words)
            tokens.append(tokenizer.convert_ids_to_tokens(enc["input_ids"][b][:T].tolist()))
            if with_attention:
                Prow = P / P.sum(1, keepdim=True)
                for L, att in enumerate(out.attentions):
                    a = att[b].float().cpu()  # (n_heads, T_pad, T_pad)
                    patterns[L].append(torch.einsum("wt,htu,vu->hwv", Prow, a, P))
                    if sub_patterns is not None:
                        sub_patterns[L].append(a[:, :T, :T].clone())
    resid = torch.cat(layers_out, dim=1)  # (L+1, n_words_total, d)
    return ActivationCache(
        resid=resid,
        offsets=offsets,
        patterns=patterns,
        subword_patterns=sub_patterns,
        tokens=tokens,
        n_forward_calls=n_calls,
    )


# -- caching keyed by model + data -------------------------------------------
def _sha(obj_bytes_iter) -> str:
    h = hashlib.sha256()
    for b in obj_bytes_iter:
        h.update(b)
    return h.hexdigest()


def fingerprint_model(model) -> str:
    """SHA-256 of the weights that produce the hidden states (the body; heads and pooler excluded).

    A masked LM and its bare encoder loaded from the same checkpoint share a
    fingerprint, since their hidden states are the same; any change to a weight
    (fine-tuning, a random re-init) changes it.
    """
    body = getattr(model, "base_model", model)
    state = body.state_dict()

    def chunks():
        yield type(body).__name__.encode()
        yield body.config.to_json_string(use_diff=False).encode() if hasattr(body, "config") else b""
        for k in sorted(state):
            if k.startswith("pooler."):
                continue
            t = state[k].detach().cpu().contiguous()
            yield k.encode()
            yield str(tuple(t.shape)).encode() + str(t.dtype).encode()
            yield t.view(torch.uint8).numpy().tobytes() if t.numel() else b""

    return _sha(chunks())


def fingerprint_tokenizer(tokenizer) -> str:
    backend = getattr(tokenizer, "backend_tokenizer", None)
    spec = backend.to_str() if backend is not None else json.dumps(tokenizer.get_vocab(), sort_keys=True)
    return _sha([type(tokenizer).__name__.encode(), spec.encode()])


def activation_key(model, tokenizer, sentences, **options) -> dict:
    """The artifact-cache config of one pass: model, tokenizer and data fingerprints plus options."""
    opts = {k: v for k, v in options.items() if k not in ("device", "progress", "batch_size")}
    return {
        "model": fingerprint_model(model),
        "tokenizer": fingerprint_tokenizer(tokenizer),
        "sentences": _sha([json.dumps([list(s) for s in sentences]).encode()]),
        "n_sentences": len(sentences),
        **opts,
    }


def _save_pass(acts: ActivationCache, folder: Path) -> None:
    tensors = {"resid": acts.resid}
    for name, pats in (("pattern", acts.patterns), ("subword_pattern", acts.subword_patterns)):
        for L, per_sentence in enumerate(pats or []):
            for i, a in enumerate(per_sentence):
                tensors[f"{name}.{L}.{i}"] = a
    save_tensors(folder / "activations.safetensors", tensors)
    save_json(
        folder / "meta.json",
        {
            "offsets": acts.offsets,
            "tokens": acts.tokens,
            "n_forward_calls": acts.n_forward_calls,
            "n_layers": len(acts.patterns or []),
            "has_patterns": acts.patterns is not None,
            "has_subword_patterns": acts.subword_patterns is not None,
        },
    )


def _load_pass(folder: Path) -> ActivationCache:
    meta = load_json(folder / "meta.json")
    t = load_tensors(folder / "activations.safetensors")
    n_sent = len(meta["offsets"]) - 1

    def patterns(name: str, present: bool):
        if not present:
            return None
        return [[t[f"{name}.{L}.{i}"] for i in range(n_sent)] for L in range(meta["n_layers"])]

    return ActivationCache(
        resid=t["resid"],
        offsets=meta["offsets"],
        patterns=patterns("pattern", meta["has_patterns"]),
        subword_patterns=patterns("subword_pattern", meta["has_subword_patterns"]),
        tokens=meta["tokens"],
        n_forward_calls=meta["n_forward_calls"],
        from_cache=True,
    )


def _cached_pass(model, tokenizer, sentences, kw) -> ActivationCache:
    config = activation_key(model, tokenizer, sentences, **kw)
    return memo(KIND, config, lambda: _pass(model, tokenizer, sentences, **kw), _save_pass, _load_pass)
