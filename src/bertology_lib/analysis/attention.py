"""What attention heads attend to: Clark et al. (2019), Kovaleva et al. (2019), Kobayashi et al. (2020).

Inputs are attention maps as the library collects them: ``patterns[L][s]``
of shape (n_heads, T, T) for block ``L`` (0-based) and sentence ``s`` — rows
are queries and sum to 1 — with ``tokens[s]`` the T tokens *including* the
special tokens ([CLS], [SEP]). Both
:func:`bertology_lib.analysis.activations.run_with_cache` (``keep_subword_attention=True``:
``cache.subword_patterns``, ``cache.tokens``) and :func:`attention_maps` (which
also takes sentence pairs and records value-vector norms) produce them.
Word-level maps (``cache.patterns``: no special tokens, a word's subwords
merged) serve the syntactic-head analysis.

============================  =============================================================
:func:`head_stats`            per (layer, head): mean attention to [CLS], [SEP], punctuation,
                              the token itself, the previous and next token; row entropy
                              (Clark et al. 2019, Fig. 1-2 and 4)
:func:`map_features`          per (layer, head, sentence) map: vertical, diagonal and
                              within-segment mass, the inputs of :func:`classify_maps`
:func:`classify_maps`         the Kovaleva et al. (2019) taxonomy by stated rules
:func:`type_shares`           share of each pattern type per layer
:func:`typical_maps`          the clearest map of each type (for example figures)
:func:`head_accuracy`         each head's accuracy at pointing to the gold syntactic head,
                              per dependency relation (word level, argmax)
:func:`syntactic_heads`       the best head per relation, selected on some sentences and
                              scored on others, vs the best fixed-offset baseline
                              (Clark et al. 2019, Table 1)
:func:`attention_maps`        one forward pass: subword attention weights and the norm of
                              each head's transformed value vectors ‖f(x)‖
:func:`norm_maps`             ‖α f(x)‖ maps (Kobayashi et al. 2020)
:func:`special_focus`         per layer: attention to [CLS]/[SEP] by weight vs by norm
============================  =============================================================

Everything but :func:`attention_maps` is pure: tensors in, DataFrames out.
Used by the survey §4.2 notebook (``survey_04_2_attention_heads``).
"""

from __future__ import annotations

import unicodedata
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np
import pandas as pd
import torch

PATTERN_TYPES = ("vertical", "diagonal", "vertical+diagonal", "block", "heterogeneous")
DIRECTIONS = ("dependent->head", "head->dependent")


# -- token roles -------------------------------------------------------------------------------
def is_punctuation(token: str) -> bool:
    """True for a token made only of Unicode punctuation (WordPiece ``##`` prefix ignored)."""
    t = token[2:] if token.startswith("##") and len(token) > 2 else token
    return bool(t) and all(unicodedata.category(c).startswith("P") for c in t)


def token_roles(tokens: Sequence[str], cls_token: str = "[CLS]", sep_token: str = "[SEP]") -> dict[str, np.ndarray]:
    """Boolean masks over ``tokens``: ``cls``, ``sep``, ``special`` (either) and ``punct``."""
    cls = np.array([t == cls_token for t in tokens])
    sep = np.array([t == sep_token for t in tokens])
    special = cls | sep
    punct = np.array([is_punctuation(t) for t in tokens]) & ~special
    return {"cls": cls, "sep": sep, "special": special, "punct": punct}


def _check(patterns, tokens) -> None:
    if not patterns or not patterns[0]:
        raise ValueError("patterns is empty; expected patterns[layer][sentence] of shape (n_heads, T, T)")
    if len(patterns[0]) != len(tokens):
        raise ValueError(f"patterns hold {len(patterns[0])} sentences but tokens {len(tokens)}; they must align")
    for s, (a, toks) in enumerate(zip(patterns[0], tokens)):
        if a.dim() != 3 or a.shape[-1] != len(toks) or a.shape[-2] != len(toks):
            raise ValueError(f"sentence {s}: pattern shape {tuple(a.shape)} does not match its "
                             f"{len(toks)} tokens; expected (n_heads, T, T)")


# -- Clark et al. 2019: where heads look ---------------------------------------------------------
STAT_COLUMNS = ("cls", "sep", "punct", "self", "prev", "next", "entropy", "uniform_entropy")


def head_stats(patterns: Sequence[Sequence[torch.Tensor]], tokens: Sequence[Sequence[str]],
               cls_token: str = "[CLS]", sep_token: str = "[SEP]") -> pd.DataFrame:
    """Per (layer, head): mean attention to [CLS], [SEP], punctuation, self, previous and next token.

    Averages are over every query token of every sentence (specials included,
    as in Clark et al. 2019); ``prev``/``next`` over the rows where that
    neighbour exists. ``entropy`` is the mean row entropy in nats and
    ``uniform_entropy`` that of uniform attention over the same rows (log T),
    the upper bound a broad head approaches.
    """
    _check(patterns, tokens)
    roles = [token_roles(t, cls_token, sep_token) for t in tokens]
    rows = []
    for L, per_sent in enumerate(patterns):
        H = per_sent[0].shape[0]
        sums = {k: torch.zeros(H, dtype=torch.float64) for k in STAT_COLUMNS}
        n_rows = n_prev = 0
        for a, r in zip(per_sent, roles):
            a = a.double()
            T = a.shape[-1]
            for k in ("cls", "sep", "punct"):
                sums[k] += a[:, :, torch.as_tensor(r[k])].sum((-1, -2))
            sums["self"] += a.diagonal(dim1=-2, dim2=-1).sum(-1)
            sums["prev"] += a.diagonal(offset=-1, dim1=-2, dim2=-1).sum(-1)
            sums["next"] += a.diagonal(offset=1, dim1=-2, dim2=-1).sum(-1)
            sums["entropy"] += -(a * a.clamp_min(1e-12).log()).sum((-1, -2))
            sums["uniform_entropy"] += T * np.log(T)
            n_rows += T
            n_prev += T - 1
        for h in range(H):
            row = {"layer": L, "head": h}
            for k in STAT_COLUMNS:
                row[k] = float(sums[k][h]) / (n_prev if k in ("prev", "next") else n_rows)
            rows.append(row)
    return pd.DataFrame(rows)


# -- Kovaleva et al. 2019: pattern taxonomy ------------------------------------------------------
@dataclass(frozen=True)
class TaxonomyRules:
    """Thresholds of :func:`classify_maps`, fixed in advance (shares of a query row's attention).

    A map is
    *vertical+diagonal* when both ``vertical`` and ``diagonal`` are at least
    ``mixed_min`` and together at least ``dominant``;
    else *vertical* when ``vertical >= dominant``;
    else *diagonal* when ``diagonal >= dominant``;
    else *block* when the rest (``1 - vertical - diagonal``) is at least
    ``dominant`` and at least ``block_own`` of it stays in the query's own
    segment (needs two segments, i.e. a sentence pair);
    else *heterogeneous*.
    """

    dominant: float = 0.5
    mixed_min: float = 0.2
    block_own: float = 0.8

    def classify(self, vertical: float, diagonal: float, own_segment: float) -> str:
        v, d = float(vertical), float(diagonal)
        if v >= self.mixed_min and d >= self.mixed_min and v + d >= self.dominant:
            return "vertical+diagonal"
        if v >= self.dominant:
            return "vertical"
        if d >= self.dominant:
            return "diagonal"
        if 1 - v - d >= self.dominant and np.isfinite(own_segment) and own_segment >= self.block_own:
            return "block"
        return "heterogeneous"


def map_features(patterns: Sequence[Sequence[torch.Tensor]], tokens: Sequence[Sequence[str]],
                 segments: Sequence[Sequence[int]] | None = None, cls_token: str = "[CLS]",
                 sep_token: str = "[SEP]") -> pd.DataFrame:
    """One row per (layer, head, sentence) map with the features the taxonomy reads.

    Over the query rows of non-special tokens:
    ``vertical`` = mean mass on [CLS]/[SEP] columns (Kovaleva et al.'s vertical
    stripes are "mainly attention to [CLS] and [SEP]"); ``diagonal`` = mean mass
    on the non-special tokens at distance ≤ 1 (self, previous, next);
    ``own_segment`` = of the remaining mass (non-special keys at distance > 1),
    the share in the query's own segment — NaN unless the input has two
    segments (``segments[s]``: a segment id per token, e.g. ``token_type_ids``).
    """
    _check(patterns, tokens)
    out = []
    for s, toks in enumerate(tokens):
        r = token_roles(toks, cls_token, sep_token)
        spec = torch.as_tensor(r["special"])
        q = ~spec
        T = len(toks)
        idx = torch.arange(T)
        dist = (idx[:, None] - idx[None, :]).abs()
        band = (dist <= 1) & ~spec[None, :]
        rest = (dist > 1) & ~spec[None, :]
        seg = torch.as_tensor(np.asarray(segments[s])) if segments is not None else torch.zeros(T, dtype=torch.long)
        two = len(set(seg[q].tolist())) >= 2
        own = (seg[:, None] == seg[None, :]) & rest
        for L in range(len(patterns)):
            a = patterns[L][s].double()[:, q]  # (H, n_q, T)
            vert = a[:, :, spec].sum(-1).mean(-1)
            diag = (a * band[q]).sum(-1).mean(-1)
            rest_mass = (a * rest[q]).sum(-1)
            own_mass = (a * own[q]).sum(-1)
            own_share = (own_mass.sum(-1) / rest_mass.sum(-1).clamp_min(1e-12)) if two else None
            for h in range(a.shape[0]):
                out.append({"layer": L, "head": h, "sentence": s, "vertical": float(vert[h]),
                            "diagonal": float(diag[h]),
                            "own_segment": float(own_share[h]) if own_share is not None else float("nan")})
    return pd.DataFrame(out)


def classify_maps(features: pd.DataFrame, rules: TaxonomyRules | None = None) -> pd.DataFrame:
    """``features`` (:func:`map_features`) with a ``type`` column (one of :data:`PATTERN_TYPES`)."""
    rules = rules or TaxonomyRules()
    types = [rules.classify(v, d, o) for v, d, o in
             zip(features.vertical, features.diagonal, features.own_segment)]
    return features.assign(type=pd.Categorical(types, categories=PATTERN_TYPES))


def type_shares(classified: pd.DataFrame, by: str | Sequence[str] = "layer") -> pd.DataFrame:
    """Share of maps of each pattern type per ``by`` group (rows: groups, columns: the five types)."""
    keys = [by] if isinstance(by, str) else list(by)
    counts = classified.groupby(keys, observed=False)["type"].value_counts().unstack(fill_value=0)
    counts = counts.reindex(columns=list(PATTERN_TYPES), fill_value=0)
    return counts.div(counts.sum(1), axis=0)


def head_types(classified: pd.DataFrame) -> pd.DataFrame:
    """Per (layer, head): its most frequent type over sentences and that type's share."""
    shares = type_shares(classified, ["layer", "head"])
    return pd.DataFrame({"type": shares.idxmax(1), "share": shares.max(1)}).reset_index()


def typical_maps(classified: pd.DataFrame) -> pd.DataFrame:
    """One map per type found: the one that shows its type most clearly (for example figures).

    Scores: vertical → ``vertical``; diagonal → ``diagonal``; vertical+diagonal →
    the smaller of the two; block → ``own_segment`` x the rest; heterogeneous →
    the rest (1 − vertical − diagonal) x the share of it leaving the own segment
    (1 where there is one segment).
    """
    rest = 1 - classified.vertical - classified.diagonal
    leave = (1 - classified.own_segment).fillna(1.0)
    score = pd.Series({
        "vertical": classified.vertical, "diagonal": classified.diagonal,
        "vertical+diagonal": np.minimum(classified.vertical, classified.diagonal),
        "block": classified.own_segment.fillna(0.0) * rest, "heterogeneous": rest * leave,
    })
    picked = [classified[classified.type == t].assign(_s=score[t]).sort_values("_s").index[-1]
              for t in PATTERN_TYPES if (classified.type == t).any()]
    return classified.loc[picked].reset_index(drop=True)


# -- Clark et al. 2019 Table 1: syntactic heads --------------------------------------------------
def _arcs(heads: Sequence[Sequence[int]], deprels: Sequence[Sequence[str]]) -> pd.DataFrame:
    rows = []
    for s, (hs, rels) in enumerate(zip(heads, deprels)):
        for i, (h, rel) in enumerate(zip(hs, rels)):
            if h != 0:
                rows.append((s, i, h - 1, rel.split(":")[0]))
    return pd.DataFrame(rows, columns=["sentence", "dependent", "head", "relation"])


def head_accuracy(patterns: Sequence[Sequence[torch.Tensor]], heads: Sequence[Sequence[int]],
                  deprels: Sequence[Sequence[str]]) -> tuple[pd.DataFrame, np.ndarray]:
    """Whether each head's argmax points along each gold arc, in both directions.

    ``patterns[L][s]``: word-level maps (n_heads, n, n) (``cache.patterns``);
    ``heads[s]``: 1-based gold heads (0 = root); ``deprels[s]``: relations
    (subtypes after ":" dropped). A word never counts as its own head, so the
    diagonal is excluded before the argmax. Returns the arcs (one row per
    non-root word: ``sentence``, ``dependent``, ``head`` (0-based),
    ``relation``) and a boolean array (n_arcs, 2, n_layers, n_heads): index 0
    of the second axis is dependent→head (the dependent's most-attended word
    is its head), 1 is head→dependent (the head's most-attended word is this
    dependent).
    """
    if len(patterns[0]) != len(heads) or len(heads) != len(deprels):
        raise ValueError(f"{len(patterns[0])} pattern sentences, {len(heads)} head lists and "
                         f"{len(deprels)} relation lists; they must align")
    arcs = _arcs(heads, deprels)
    n_layers, n_heads = len(patterns), patterns[0][0].shape[0]
    # argmax[s]: (n_layers, n_heads, n) most-attended other word of every word
    argmax = []
    for s in range(len(heads)):
        n = len(heads[s])
        if patterns[0][s].shape[-1] != n:
            raise ValueError(f"sentence {s}: pattern has {patterns[0][s].shape[-1]} words, heads {n}")
        a = torch.stack([patterns[L][s] for L in range(n_layers)]).double()  # (L, H, n, n)
        a = a.masked_fill(torch.eye(n, dtype=torch.bool), -1.0)
        argmax.append(a.argmax(-1).numpy())
    correct = np.zeros((len(arcs), 2, n_layers, n_heads), dtype=bool)
    for k, (s, d, h) in enumerate(zip(arcs.sentence, arcs.dependent, arcs["head"])):
        correct[k, 0] = argmax[s][:, :, d] == h
        correct[k, 1] = argmax[s][:, :, h] == d
    return arcs, correct


def syntactic_heads(patterns: Sequence[Sequence[torch.Tensor]], heads: Sequence[Sequence[int]],
                    deprels: Sequence[Sequence[str]], select: Sequence[int] | None = None,
                    evaluate: Sequence[int] | None = None, min_arcs: int = 10,
                    relations: Sequence[str] | None = None) -> pd.DataFrame:
    """The best single head per dependency relation vs the best fixed-offset baseline (Clark et al. Table 1).

    For each relation (and ``"all"``, every arc), the (layer, head, direction)
    with the highest accuracy on the ``select`` sentences is scored on the
    ``evaluate`` sentences (both default to all: Clark et al. select and score
    on the same data, which flatters the best head). The baseline predicts
    the word at the relation's most frequent offset (head position −
    dependent position, on ``select``); its accuracy on ``evaluate`` is
    ``baseline_accuracy``. Relations with fewer than ``min_arcs`` arcs in
    either set are left out. One row per relation, sorted by ``n_arcs``.
    """
    arcs, correct = head_accuracy(patterns, heads, deprels)
    n_s = len(heads)
    sel = np.isin(arcs.sentence, np.arange(n_s) if select is None else np.asarray(select))
    ev = np.isin(arcs.sentence, np.arange(n_s) if evaluate is None else np.asarray(evaluate))
    offset = (arcs["head"] - arcs.dependent).to_numpy()
    wanted = list(relations) if relations is not None else ["all", *arcs.relation.value_counts().index]
    rows = []
    for rel in wanted:
        m = np.ones(len(arcs), bool) if rel == "all" else (arcs.relation == rel).to_numpy()
        ms, me = m & sel, m & ev
        if ms.sum() < min_arcs or me.sum() < min_arcs:
            continue
        acc_sel = correct[ms].mean(0)  # (2, L, H)
        dr, L, h = np.unravel_index(int(acc_sel.argmax()), acc_sel.shape)
        values, counts = np.unique(offset[ms], return_counts=True)
        k = int(values[counts.argmax()])
        rows.append({"relation": rel, "n_arcs": int(me.sum()), "layer": int(L), "head": int(h),
                     "direction": DIRECTIONS[dr], "accuracy": float(correct[me, dr, L, h].mean()),
                     "selection_accuracy": float(acc_sel[dr, L, h]), "baseline_offset": k,
                     "baseline_accuracy": float((offset[me] == k).mean())})
    out = pd.DataFrame(rows, columns=["relation", "n_arcs", "layer", "head", "direction", "accuracy",
                                      "selection_accuracy", "baseline_offset", "baseline_accuracy"])
    return out.sort_values("n_arcs", ascending=False, kind="stable").reset_index(drop=True)


def relation_head_matrix(patterns: Sequence[Sequence[torch.Tensor]], heads: Sequence[Sequence[int]],
                         deprels: Sequence[Sequence[str]], relation: str,
                         direction: str = DIRECTIONS[0]) -> pd.DataFrame:
    """(layers x heads) accuracy of every head for one relation and direction (for a heatmap)."""
    if direction not in DIRECTIONS:
        raise ValueError(f"direction={direction!r} is not allowed; allowed: {', '.join(DIRECTIONS)}")
    arcs, correct = head_accuracy(patterns, heads, deprels)
    m = np.ones(len(arcs), bool) if relation == "all" else (arcs.relation == relation).to_numpy()
    if not m.any():
        raise KeyError(f"relation {relation!r} has no arcs; allowed: all, {', '.join(sorted(set(arcs.relation)))}")
    acc = correct[m, DIRECTIONS.index(direction)].mean(0)
    return pd.DataFrame(acc, index=pd.Index(range(acc.shape[0]), name="layer"),
                        columns=pd.Index(range(acc.shape[1]), name="head"))


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
    if layers is None or not all(hasattr(b, "attention") and hasattr(b.attention, "self")
                                 and hasattr(b.attention.self, "value") and hasattr(b.attention, "output")
                                 for b in layers):
        raise TypeError(f"{type(model).__name__} is not a BERT-family encoder (encoder.layer[L].attention."
                        "self.value / .output.dense); attention norms need one")
    return list(layers)


@contextmanager
def _value_hooks(blocks):
    """Record the value projection's output of every block; hooks always removed."""
    store: dict[int, torch.Tensor] = {}
    handles = []
    try:
        for L, b in enumerate(blocks):
            handles.append(b.attention.self.value.register_forward_hook(
                lambda mod, inp, out, L=L: store.__setitem__(L, out.detach())))
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
def attention_maps(model, tokenizer, texts: Sequence[Sequence[str]],
                   text_pairs: Sequence[Sequence[str]] | None = None, with_norms: bool = True,
                   batch_size: int = 32, max_length: int = 512) -> AttentionMaps:
    """One forward pass per batch: subword attention weights (and value norms) of words or word pairs.

    ``texts``: sentences as lists of words; ``text_pairs``: optional second
    sentences (the input becomes [CLS] a [SEP] b [SEP], as for MRPC/RTE in
    Kovaleva et al. 2019). ``model`` is a BERT-family encoder loaded with
    eager attention. Value vectors come from a forward hook on each block's
    value projection; the output projection is read from its weights.
    """
    if not texts:
        raise ValueError("texts is empty; give at least one sentence (a list of words)")
    if text_pairs is not None and len(text_pairs) != len(texts):
        raise ValueError(f"{len(texts)} texts but {len(text_pairs)} text_pairs; they must align")
    blocks = _attention_blocks(model) if with_norms else []
    device = next(model.parameters()).device
    model.eval()
    weights: list[list[torch.Tensor]] = []
    vnorms: list[list[torch.Tensor]] | None = [] if with_norms else None
    tokens, segments, calls = [], [], 0
    with _value_hooks(blocks) as store:
        for start in range(0, len(texts), batch_size):
            a = [list(t) for t in texts[start:start + batch_size]]
            args = (a,) if text_pairs is None else (a, [list(t) for t in text_pairs[start:start + batch_size]])
            enc = tokenizer(*args, is_split_into_words=True, return_tensors="pt", padding=True,
                            truncation=True, max_length=max_length)
            inputs = {k: v.to(device) for k, v in enc.items() if k in ("input_ids", "attention_mask", "token_type_ids")}
            out = model(**inputs, output_attentions=True)
            calls += 1
            if not weights:
                weights = [[] for _ in out.attentions]
                if vnorms is not None:
                    vnorms.extend([] for _ in out.attentions)
            norms = []
            for L, b in enumerate(blocks):
                f = transformed_values(store[L].float(), b.attention.output.dense.weight.float(),
                                       out.attentions[L].shape[1])
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
    return AttentionMaps(weights=weights, value_norms=vnorms, tokens=tokens, segments=segments,
                         n_forward_calls=calls)


def norm_maps(maps: AttentionMaps, normalize: bool = True) -> list[list[torch.Tensor]]:
    """‖α_ij f^h(x_j)‖ = α_ij ‖f^h(x_j)‖ per layer and sentence, (n_heads, T, T).

    With ``normalize`` each row is divided by its sum, so the maps read as
    shares like the weights do and pass through :func:`head_stats` unchanged.
    """
    if maps.value_norms is None:
        raise ValueError("these maps were collected with with_norms=False; no value norms to weight by")
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
        raise ValueError("these maps were collected with with_norms=False")
    rows = []
    for L, per in enumerate(maps.value_norms):
        acc: dict[str, list[float]] = {"[CLS]": [], "[SEP]": [], "punctuation": [], "other": []}
        for n, toks in zip(per, maps.tokens):
            r = token_roles(toks, cls_token, sep_token)
            other = ~(r["special"] | r["punct"])
            m = n.mean(0).numpy()  # (T,)
            for name, mask in (("[CLS]", r["cls"]), ("[SEP]", r["sep"]), ("punctuation", r["punct"]),
                               ("other", other)):
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
    out = pd.DataFrame({"layer": w.layer, "head": w["head"], "weight_share": w.cls + w.sep,
                        "norm_share": n.cls + n.sep})
    per = out.groupby("layer")[["weight_share", "norm_share"]].mean().reset_index()
    per["disappears"] = 1 - per.norm_share / per.weight_share.clip(lower=1e-12)
    return per
