"""What attention heads attend to: Clark et al. (2019), Kovaleva et al. (2019), Kobayashi et al. (2020).

Inputs are attention maps as the library collects them: ``patterns[L][s]``
of shape (n_heads, T, T) for block ``L`` (0-based) and sentence ``s`` — rows
are queries and sum to 1 — with ``tokens[s]`` the T tokens *including* the
special tokens ([CLS], [SEP]). Both
:func:`bertology_lib.analysis.activations.run_with_cache` (``keep_subword_attention=True``:
``cache.subword_patterns``, ``cache.tokens``) and
:func:`bertology_lib.analysis.attention_norms.attention_maps` (which also takes sentence pairs and
records value-vector norms) produce them.
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
:func:`head_similarity`       per sentence, how alike every pair of heads attends (1 - Jensen-
                              Shannon divergence; Clark et al. 2019 §6, Fig. 6), summed up by
                              :func:`within_across_gap` and :func:`layer_similarity`
============================  =============================================================

Everything here is pure: tensors in, DataFrames out. Attention weighted by the norm of the value
vectors (Kobayashi et al. 2020) lives in :mod:`bertology_lib.analysis.attention_norms`.
Used by the survey §4.2 notebook (``survey_04_2_attention_heads``); the head similarity by §6
(``survey_06_model_size``).
"""

from __future__ import annotations

import math
import unicodedata
from dataclasses import dataclass
from typing import Sequence

import numpy as np
import pandas as pd
import torch

from bertology_lib.errors import ParameterError

PATTERN_TYPES = ("vertical", "diagonal", "vertical+diagonal", "block", "heterogeneous")
DIRECTIONS = ("dependent->head", "head->dependent")
# Clark et al. 2019 §3 (their Fig. 2 in words): over half of BERT-base's attention goes to [SEP] in layers 6-10
# (1-based, of 12); what plots.attention_targets draws beside our heads, mapped by relative depth
CLARK_2019_SEP = {"source": "Clark et al. 2019 §3", "target": "[SEP]", "layers": (6, 10), "of": 12, "level": 0.5}


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
        raise ParameterError("patterns is empty; expected patterns[layer][sentence] of shape (n_heads, T, T)")
    if len(patterns[0]) != len(tokens):
        raise ParameterError(f"patterns hold {len(patterns[0])} sentences but tokens {len(tokens)}; they must align")
    for s, (a, toks) in enumerate(zip(patterns[0], tokens)):
        if a.dim() != 3 or a.shape[-1] != len(toks) or a.shape[-2] != len(toks):
            raise ParameterError(
                f"sentence {s}: pattern shape {tuple(a.shape)} does not match its "
                f"{len(toks)} tokens; expected (n_heads, T, T)"
            )


# -- Clark et al. 2019: where heads look ---------------------------------------------------------
STAT_COLUMNS = ("cls", "sep", "punct", "self", "prev", "next", "entropy", "uniform_entropy")


def head_stats(
    patterns: Sequence[Sequence[torch.Tensor]],
    tokens: Sequence[Sequence[str]],
    cls_token: str = "[CLS]",
    sep_token: str = "[SEP]",
) -> pd.DataFrame:
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


def map_features(
    patterns: Sequence[Sequence[torch.Tensor]],
    tokens: Sequence[Sequence[str]],
    segments: Sequence[Sequence[int]] | None = None,
    cls_token: str = "[CLS]",
    sep_token: str = "[SEP]",
) -> pd.DataFrame:
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
                out.append(
                    {
                        "layer": L,
                        "head": h,
                        "sentence": s,
                        "vertical": float(vert[h]),
                        "diagonal": float(diag[h]),
                        "own_segment": float(own_share[h]) if own_share is not None else float("nan"),
                    }
                )
    return pd.DataFrame(out)


def classify_maps(features: pd.DataFrame, rules: TaxonomyRules | None = None) -> pd.DataFrame:
    """``features`` (:func:`map_features`) with a ``type`` column (one of :data:`PATTERN_TYPES`)."""
    rules = rules or TaxonomyRules()
    types = [rules.classify(v, d, o) for v, d, o in zip(features.vertical, features.diagonal, features.own_segment)]
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
    score = pd.Series(
        {
            "vertical": classified.vertical,
            "diagonal": classified.diagonal,
            "vertical+diagonal": np.minimum(classified.vertical, classified.diagonal),
            "block": classified.own_segment.fillna(0.0) * rest,
            "heterogeneous": rest * leave,
        }
    )
    picked = [
        classified[classified.type == t].assign(_s=score[t]).sort_values("_s").index[-1]
        for t in PATTERN_TYPES
        if (classified.type == t).any()
    ]
    return classified.loc[picked].reset_index(drop=True)


# -- Clark et al. 2019 Table 1: syntactic heads --------------------------------------------------
def _arcs(heads: Sequence[Sequence[int]], deprels: Sequence[Sequence[str]]) -> pd.DataFrame:
    rows = []
    for s, (hs, rels) in enumerate(zip(heads, deprels)):
        for i, (h, rel) in enumerate(zip(hs, rels)):
            if h != 0:
                rows.append((s, i, h - 1, rel.split(":")[0]))
    return pd.DataFrame(rows, columns=["sentence", "dependent", "head", "relation"])


def head_accuracy(
    patterns: Sequence[Sequence[torch.Tensor]], heads: Sequence[Sequence[int]], deprels: Sequence[Sequence[str]]
) -> tuple[pd.DataFrame, np.ndarray]:
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
        raise ParameterError(
            f"{len(patterns[0])} pattern sentences, {len(heads)} head lists and "
            f"{len(deprels)} relation lists; they must align"
        )
    arcs = _arcs(heads, deprels)
    n_layers, n_heads = len(patterns), patterns[0][0].shape[0]
    # argmax[s]: (n_layers, n_heads, n) most-attended other word of every word
    argmax = []
    for s in range(len(heads)):
        n = len(heads[s])
        if patterns[0][s].shape[-1] != n:
            raise ParameterError(f"sentence {s}: pattern has {patterns[0][s].shape[-1]} words, heads {n}")
        a = torch.stack([patterns[L][s] for L in range(n_layers)]).double()  # (L, H, n, n)
        a = a.masked_fill(torch.eye(n, dtype=torch.bool), -1.0)
        argmax.append(a.argmax(-1).numpy())
    correct = np.zeros((len(arcs), 2, n_layers, n_heads), dtype=bool)
    for k, (s, d, h) in enumerate(zip(arcs.sentence, arcs.dependent, arcs["head"])):
        correct[k, 0] = argmax[s][:, :, d] == h
        correct[k, 1] = argmax[s][:, :, h] == d
    return arcs, correct


def syntactic_heads(
    patterns: Sequence[Sequence[torch.Tensor]],
    heads: Sequence[Sequence[int]],
    deprels: Sequence[Sequence[str]],
    select: Sequence[int] | None = None,
    evaluate: Sequence[int] | None = None,
    min_arcs: int = 10,
    relations: Sequence[str] | None = None,
) -> pd.DataFrame:
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
        rows.append(
            {
                "relation": rel,
                "n_arcs": int(me.sum()),
                "layer": int(L),
                "head": int(h),
                "direction": DIRECTIONS[dr],
                "accuracy": float(correct[me, dr, L, h].mean()),
                "selection_accuracy": float(acc_sel[dr, L, h]),
                "baseline_offset": k,
                "baseline_accuracy": float((offset[me] == k).mean()),
            }
        )
    out = pd.DataFrame(
        rows,
        columns=[
            "relation",
            "n_arcs",
            "layer",
            "head",
            "direction",
            "accuracy",
            "selection_accuracy",
            "baseline_offset",
            "baseline_accuracy",
        ],
    )
    return out.sort_values("n_arcs", ascending=False, kind="stable").reset_index(drop=True)


def relation_head_matrix(
    patterns: Sequence[Sequence[torch.Tensor]],
    heads: Sequence[Sequence[int]],
    deprels: Sequence[Sequence[str]],
    relation: str,
    direction: str = DIRECTIONS[0],
) -> pd.DataFrame:
    """(layers x heads) accuracy of every head for one relation and direction (for a heatmap)."""
    if direction not in DIRECTIONS:
        raise ParameterError(f"direction={direction!r} is not allowed; allowed: {', '.join(DIRECTIONS)}")
    arcs, correct = head_accuracy(patterns, heads, deprels)
    m = np.ones(len(arcs), bool) if relation == "all" else (arcs.relation == relation).to_numpy()
    if not m.any():
        raise KeyError(f"relation {relation!r} has no arcs; allowed: all, {', '.join(sorted(set(arcs.relation)))}")
    acc = correct[m, DIRECTIONS.index(direction)].mean(0)
    return pd.DataFrame(
        acc, index=pd.Index(range(acc.shape[0]), name="layer"), columns=pd.Index(range(acc.shape[1]), name="head")
    )


# -- Clark et al. 2019 §6: heads that attend alike ---------------------------------------------------
def head_similarity(patterns: Sequence[Sequence[torch.Tensor]]) -> np.ndarray:
    """How alike every pair of heads attends, per sentence: (S, L*H, L*H), heads in layer-major order
    (head ``h`` of layer ``L`` at index ``L * H + h``).

    The similarity of two heads is 1 - JS / ln 2 of their attention rows (the distributions of one query token
    over the keys), averaged over the sentence's query tokens: 1 for the same attention, 0 for attention on
    disjoint tokens. Clark et al. (2019, §6) measure the distance between heads by the Jensen-Shannon
    divergence of their attention distributions; JS = H((p + q) / 2) - (H(p) + H(q)) / 2 in nats.
    """
    if not patterns or not patterns[0]:
        raise ParameterError("patterns is empty; expected patterns[layer][sentence] of shape (n_heads, T, T)")
    if len({len(per_sent) for per_sent in patterns}) != 1:
        raise ParameterError("the layers of patterns hold different numbers of sentences; they must align")
    out = []
    for s in range(len(patterns[0])):
        P = torch.cat([per_sent[s].double() for per_sent in patterns])  # (N, T, T), N = L * H
        ent = -torch.xlogy(P, P).sum(-1)  # (N, T) row entropies
        sim = torch.empty(P.shape[0], P.shape[0], dtype=torch.float64)
        for i in range(P.shape[0]):  # one head against all: (N, T, T) at a time
            M = (P[i] + P) / 2
            js = (-torch.xlogy(M, M).sum(-1) - (ent[i] + ent) / 2).clamp_min(0.0)  # (N, T)
            sim[i] = 1.0 - js.mean(-1) / math.log(2.0)
        out.append(sim.numpy())
    return np.stack(out)


def _layer_of(similarity: np.ndarray, n_heads: int) -> np.ndarray:
    sim = np.asarray(similarity)
    if sim.ndim != 3 or sim.shape[1] != sim.shape[2]:
        raise ParameterError(f"similarity has shape {sim.shape}; expected (S, L*H, L*H) from head_similarity")
    N = sim.shape[1]
    if not isinstance(n_heads, int) or n_heads < 2 or N % n_heads or N // n_heads < 2:
        raise ParameterError(
            f"n_heads={n_heads!r} for {N} heads; allowed: an int >= 2 dividing them into at "
            "least 2 layers (within- and across-layer pairs both needed)"
        )
    return np.arange(N) // n_heads


def within_across_gap(similarity: np.ndarray, n_heads: int) -> np.ndarray:
    """Per sentence (S,): the mean similarity (:func:`head_similarity`) of pairs of distinct heads in the same
    layer minus that of pairs of heads in different layers. Clark et al. (2019, Fig. 6) find heads of the same
    layer close to each other."""
    layer = _layer_of(similarity, n_heads)
    same = layer[:, None] == layer[None, :]
    within = same & ~np.eye(len(layer), dtype=bool)
    sim = np.asarray(similarity)
    return sim[:, within].mean(1) - sim[:, ~same].mean(1)


def layer_similarity(similarity: np.ndarray, n_heads: int) -> pd.DataFrame:
    """(layers x layers) mean similarity between the heads of two layers, over sentences and pairs of distinct
    heads: the diagonal is within a layer, the rest across layers."""
    layer = _layer_of(similarity, n_heads)
    mean = np.asarray(similarity).mean(0)
    n_layers = int(layer.max()) + 1
    distinct = ~np.eye(len(layer), dtype=bool)
    out = np.array(
        [
            [
                mean[np.ix_(layer == a, layer == b)][distinct[np.ix_(layer == a, layer == b)]].mean()
                for b in range(n_layers)
            ]
            for a in range(n_layers)
        ]
    )
    return pd.DataFrame(
        out, index=pd.Index(range(n_layers), name="layer"), columns=pd.Index(range(n_layers), name="layer")
    )
