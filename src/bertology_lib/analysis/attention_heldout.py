"""Held out means held out, for attention heads: a head or layer is chosen on some sentences and scored on others.

Claims about "the layer that attends most to [SEP]" or "the head that attends to the previous token" pick
the best of many candidates; picked and scored on the same sentences, even a random network's luckiest head
looks like a finding. Here the choice is made on validation sentences, the score is read on held-out
sentences with a 95% interval that resamples sentences, and the baselines are measured the same way: a
head that attends uniformly (1/T to every token) and the model's random-init twin.

===============================  ==========================================================
:class:`HeadSums`                per sentence, layer and head: the attention paid to [CLS],
                                 [SEP], punctuation, the token itself, the previous and
                                 next token, summed over the query rows, and what a
                                 uniform head would pay
:func:`head_sums`                :class:`HeadSums` of subword attention maps
:func:`sentence_ratio_interval`  a ratio of sums over sentences, resampling sentences
:func:`chosen_share`             the layer (or head) with the largest share on the
                                 validation sentences, scored on held-out ones, with an
                                 interval
:func:`type_share`               share of attention maps of some pattern types, interval
                                 over sentences (Kovaleva et al. 2019)
:func:`syntactic_gain`           the best head per relation (chosen on validation) minus
                                 the stronger of the best fixed offset and the twin's best
                                 head, mean over relations, interval over sentences
                                 (Clark et al. 2019)
:func:`specialists_vs_single`    the per-relation heads against the single best head over
                                 all arcs
===============================  ==========================================================

Pure: tensors in, numbers and DataFrames out. :func:`head_sums` gives the same shares as
:func:`bertology_lib.analysis.attention.head_stats` when pooled over sentences (a test checks it).
Used by the survey §4.2 notebook (``survey_04_2_attention_heads``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np
import pandas as pd
import torch

from bertology_lib import stats
from bertology_lib.analysis.attention import DIRECTIONS, head_accuracy, token_roles
from bertology_lib.errors import ParameterError

SUM_COLUMNS = ("cls", "sep", "punct", "self", "prev", "next")


@dataclass(frozen=True)
class HeadSums:
    """``sums[s, L, h, k]``: head ``h`` of layer ``L``'s attention on sentence ``s`` to the tokens of column
    ``k`` of :data:`SUM_COLUMNS`, summed over the query rows (shares: divide by :meth:`rows`);
    ``n_tokens[s]``: the sentence's T tokens, specials included; ``uniform[s, k]``: the same sum for a head
    that gives 1/T to every token."""

    sums: np.ndarray
    n_tokens: np.ndarray
    uniform: np.ndarray

    @property
    def n_sentences(self) -> int:
        return len(self.n_tokens)

    def rows(self, column: str) -> np.ndarray:
        """Query rows per sentence that count for ``column``: T, or T - 1 for ``prev``/``next``."""
        _column(column)
        return self.n_tokens - (1 if column in ("prev", "next") else 0)

    def share(self, column: str, sentences: Sequence[int] | None = None) -> np.ndarray:
        """(n_layers, n_heads) mean attention to ``column`` over the query rows of ``sentences`` (default all)."""
        s = _rows(sentences, self.n_sentences)
        return self.sums[s, :, :, _column(column)].sum(0) / self.rows(column)[s].sum()

    def uniform_share(self, column: str, sentences: Sequence[int] | None = None) -> float:
        """What a uniform head's mean attention to ``column`` is over the same rows."""
        s = _rows(sentences, self.n_sentences)
        return float(self.uniform[s, _column(column)].sum() / self.rows(column)[s].sum())

    @staticmethod
    def concat(parts: Sequence["HeadSums"]) -> "HeadSums":
        return HeadSums(
            np.concatenate([p.sums for p in parts]),
            np.concatenate([p.n_tokens for p in parts]),
            np.concatenate([p.uniform for p in parts]),
        )


def _column(column: str) -> int:
    if column not in SUM_COLUMNS:
        raise ParameterError(f"column={column!r} is not allowed; allowed: {', '.join(SUM_COLUMNS)}")
    return SUM_COLUMNS.index(column)


def _rows(sentences, n: int) -> np.ndarray:
    s = np.arange(n) if sentences is None else np.asarray(list(sentences), dtype=int)
    if len(s) == 0 or s.min() < 0 or s.max() >= n:
        raise ParameterError(f"sentences must be a non-empty subset of 0..{n - 1}")
    return s


def head_sums(
    patterns: Sequence[Sequence[torch.Tensor]],
    tokens: Sequence[Sequence[str]],
    cls_token: str = "[CLS]",
    sep_token: str = "[SEP]",
) -> HeadSums:
    """:class:`HeadSums` of subword maps ``patterns[L][s]`` (n_heads, T, T), ``tokens[s]`` with specials."""
    if not patterns or not patterns[0] or len(patterns[0]) != len(tokens):
        raise ParameterError("patterns[layer][sentence] must hold one (n_heads, T, T) map per sentence of tokens")
    n_l, n_h = len(patterns), patterns[0][0].shape[0]
    sums = np.zeros((len(tokens), n_l, n_h, len(SUM_COLUMNS)))
    uniform = np.zeros((len(tokens), len(SUM_COLUMNS)))
    for s, toks in enumerate(tokens):
        r = token_roles(toks, cls_token, sep_token)
        T = len(toks)
        a = torch.stack([patterns[L][s] for L in range(n_l)]).double()  # (L, H, T, T)
        if a.shape[-1] != T:
            raise ParameterError(f"sentence {s}: maps of {a.shape[-1]} tokens for {T} tokens")
        for k, name in enumerate(("cls", "sep", "punct")):
            sums[s, :, :, k] = a[..., torch.as_tensor(r[name])].sum((-1, -2)).numpy()
            uniform[s, k] = float(r[name].sum())  # T rows x (count / T)
        sums[s, :, :, 3] = a.diagonal(dim1=-2, dim2=-1).sum(-1).numpy()
        sums[s, :, :, 4] = a.diagonal(offset=-1, dim1=-2, dim2=-1).sum(-1).numpy()
        sums[s, :, :, 5] = a.diagonal(offset=1, dim1=-2, dim2=-1).sum(-1).numpy()
        uniform[s, 3:] = (1.0, (T - 1) / T, (T - 1) / T)
    return HeadSums(sums, np.array([len(t) for t in tokens], dtype=float), uniform)


def sentence_ratio_interval(
    num: np.ndarray, den: np.ndarray, seed: int = 0, n_resamples: int = 2000
) -> tuple[float, float, float]:
    """sum(num) / sum(den) over sentences, with a percentile-bootstrap interval resampling sentences."""
    data = np.stack([np.asarray(num, float), np.asarray(den, float)], 1)
    return stats.bootstrap_ci(data, lambda x: x[:, 0].sum() / x[:, 1].sum(), n_resamples, seed)


def chosen_share(
    sums: HeadSums,
    columns: str | Sequence[str],
    select: Sequence[int],
    evaluate: Sequence[int],
    by: str = "layer",
    seed: int = 0,
    n_resamples: int = 2000,
) -> dict:
    """The layer (``by="layer"``: mean over its heads) or single head (``by="head"``) and column with the
    largest mean attention share on the ``select`` sentences, scored on the ``evaluate`` sentences.

    Returns ``share`` with its 95% interval ``low``/``high`` (resampling evaluate sentences), ``column``,
    ``layer``, ``head`` (None by layer), ``selection_share``, ``uniform`` (a uniform head's share on the
    evaluate rows) and ``n_sentences``."""
    if by not in ("layer", "head"):
        raise ParameterError(f"by={by!r} is not allowed; allowed: layer, head")
    cols = [columns] if isinstance(columns, str) else list(columns)
    best = None
    for c in cols:
        sh = sums.share(c, select)  # (L, H)
        cand = sh.mean(1)[:, None] if by == "layer" else sh
        L, h = np.unravel_index(int(np.argmax(cand)), cand.shape)
        if best is None or cand[L, h] > best[0]:
            best = (float(cand[L, h]), c, int(L), int(h))
    sel_share, c, L, h = best
    ev = _rows(evaluate, sums.n_sentences)
    k = _column(c)
    num = sums.sums[ev, L, :, k].mean(-1) if by == "layer" else sums.sums[ev, L, h, k]
    share, low, high = sentence_ratio_interval(num, sums.rows(c)[ev], seed, n_resamples)
    return {
        "share": share,
        "low": low,
        "high": high,
        "column": c,
        "layer": L,
        "head": h if by == "head" else None,
        "selection_share": sel_share,
        "uniform": sums.uniform_share(c, ev),
        "n_sentences": int(len(ev)),
    }


def type_share(
    classified: pd.DataFrame, types: Sequence[str], seed: int = 0, n_resamples: int = 2000
) -> tuple[float, float, float]:
    """Share of the maps of ``classified`` (:func:`~bertology_lib.analysis.attention.classify_maps`, one row
    per layer, head and sentence) whose type is one of ``types``, with an interval resampling sentences."""
    hit = classified.type.isin(list(types)).to_numpy(float)
    per = pd.DataFrame({"s": classified.sentence.to_numpy(), "hit": hit}).groupby("s").hit.agg(["sum", "size"])
    return sentence_ratio_interval(per["sum"].to_numpy(), per["size"].to_numpy(), seed, n_resamples)


# -- Clark et al. 2019, Table 1, held out ---------------------------------------------------------
def _best(acc: np.ndarray) -> tuple[int, int, int]:
    dr, L, h = np.unravel_index(int(acc.argmax()), acc.shape)
    return int(dr), int(L), int(h)


def _macro_interval(
    diff: np.ndarray, rel: np.ndarray, sent: np.ndarray, seed: int, n_resamples: int
) -> tuple[float, float, float]:
    """Mean over relations of the mean ``diff`` of each relation's arcs, with an interval resampling
    sentences (an arc goes with its sentence)."""
    _, s_idx = np.unique(sent, return_inverse=True)
    _, r_idx = np.unique(rel, return_inverse=True)
    n_s, n_r = s_idx.max() + 1, r_idx.max() + 1

    def macro(w: np.ndarray) -> float:
        wa = w[s_idx]
        num = np.bincount(r_idx, weights=wa * diff, minlength=n_r)
        den = np.bincount(r_idx, weights=wa, minlength=n_r)
        ok = den > 0
        return float((num[ok] / den[ok]).mean())

    rng = np.random.default_rng(seed)
    reps = [macro(np.bincount(rng.integers(0, n_s, n_s), minlength=n_s).astype(float)) for _ in range(n_resamples)]
    return macro(np.ones(n_s)), float(np.quantile(reps, 0.025)), float(np.quantile(reps, 0.975))


def syntactic_gain(
    patterns,
    heads: Sequence[Sequence[int]],
    deprels: Sequence[Sequence[str]],
    select: Sequence[int],
    evaluate: Sequence[int],
    twin_patterns=None,
    min_arcs: int = 10,
    seed: int = 0,
    n_resamples: int = 2000,
) -> tuple[pd.DataFrame, dict]:
    """Clark et al.'s Table 1, held out, against the strongest baseline.

    Per relation with at least ``min_arcs`` arcs in both sets: the model's best (direction, layer, head) on
    the ``select`` sentences, and the baseline with the higher ``select`` accuracy of the relation's most
    frequent fixed offset and (given ``twin_patterns``, the random-init twin's word-level maps of the same
    sentences) the twin's best head; both scored on the ``evaluate`` arcs. Returns one row per relation
    (``accuracy``, ``baseline``, ``baseline_accuracy``, ``gain``) and the mean gain over relations with a
    95% interval resampling evaluate sentences (``gain``, ``low``, ``high``, ``n_relations``, ``n_arcs``)."""
    arcs, correct = head_accuracy(patterns, heads, deprels)
    twin = head_accuracy(twin_patterns, heads, deprels)[1] if twin_patterns is not None else None
    sel = np.isin(arcs.sentence, np.asarray(select))
    ev = np.isin(arcs.sentence, np.asarray(evaluate))
    offset = (arcs["head"] - arcs.dependent).to_numpy()
    rows, diff, rel_of, sent_of = [], [], [], []
    for rel in arcs.relation.value_counts().index:
        m = (arcs.relation == rel).to_numpy()
        ms, me = m & sel, m & ev
        if ms.sum() < min_arcs or me.sum() < min_arcs:
            continue
        dr, L, h = _best(correct[ms].mean(0))
        values, counts = np.unique(offset[ms], return_counts=True)
        k = int(values[counts.argmax()])
        base_name, base_sel, base_ev = f"offset {k:+d}", float((offset[ms] == k).mean()), offset[me] == k
        if twin is not None:
            tdr, tL, th = _best(twin[ms].mean(0))
            if twin[ms][:, tdr, tL, th].mean() > base_sel:
                base_name, base_ev = f"twin head {tL}-{th} ({DIRECTIONS[tdr]})", twin[me][:, tdr, tL, th]
        c = correct[me][:, dr, L, h]
        rows.append(
            {
                "relation": rel,
                "n_arcs": int(me.sum()),
                "layer": L,
                "head": h,
                "direction": DIRECTIONS[dr],
                "accuracy": float(c.mean()),
                "baseline": base_name,
                "baseline_accuracy": float(base_ev.mean()),
                "gain": float(c.mean() - base_ev.mean()),
            }
        )
        diff.append(c.astype(float) - base_ev.astype(float))
        rel_of.append(np.full(int(me.sum()), len(rows) - 1))
        sent_of.append(arcs.sentence.to_numpy()[me])
    table = pd.DataFrame(
        rows,
        columns=[
            "relation",
            "n_arcs",
            "layer",
            "head",
            "direction",
            "accuracy",
            "baseline",
            "baseline_accuracy",
            "gain",
        ],
    )
    if not rows:
        return table, {"gain": float("nan"), "low": float("nan"), "high": float("nan"), "n_relations": 0, "n_arcs": 0}
    g, low, high = _macro_interval(
        np.concatenate(diff), np.concatenate(rel_of), np.concatenate(sent_of), seed, n_resamples
    )
    return table, {"gain": g, "low": low, "high": high, "n_relations": len(rows), "n_arcs": int(table.n_arcs.sum())}


def specialists_vs_single(
    patterns,
    heads: Sequence[Sequence[int]],
    deprels: Sequence[Sequence[str]],
    select: Sequence[int],
    evaluate: Sequence[int],
    min_arcs: int = 10,
    seed: int = 0,
    n_resamples: int = 2000,
) -> dict:
    """Is the tree spread over heads? On the ``evaluate`` arcs of the relations with at least ``min_arcs``
    arcs in both sets: the accuracy of reading each arc with its relation's best head (chosen on ``select``)
    minus that of the single head that is best over all arcs (chosen on ``select`` too), paired by arc, with
    an interval resampling sentences. Returns ``gap``, ``low``, ``high``, ``specialists``, ``single``,
    ``single_layer``, ``single_head``, ``single_direction``, ``n_arcs``, ``n_relations``."""
    arcs, correct = head_accuracy(patterns, heads, deprels)
    sel = np.isin(arcs.sentence, np.asarray(select))
    ev = np.isin(arcs.sentence, np.asarray(evaluate))
    spec = np.zeros(len(arcs), bool)
    scored = np.zeros(len(arcs), bool)
    n_rel = 0
    for rel in arcs.relation.unique():
        m = (arcs.relation == rel).to_numpy()
        if (m & sel).sum() < min_arcs or (m & ev).sum() < min_arcs:
            continue
        dr, L, h = _best(correct[m & sel].mean(0))
        spec[m] = correct[m, dr, L, h]
        scored |= m
        n_rel += 1
    if n_rel == 0:
        return {"gap": float("nan"), "low": float("nan"), "high": float("nan"), "n_arcs": 0, "n_relations": 0}
    dr, L, h = _best(correct[scored & sel].mean(0))
    te = scored & ev
    single = correct[te, dr, L, h]
    gap, low, high = stats.paired_gap(spec[te], single, arcs.sentence.to_numpy()[te], n_resamples, seed)
    return {
        "gap": gap,
        "low": low,
        "high": high,
        "specialists": float(spec[te].mean()),
        "single": float(single.mean()),
        "single_layer": L,
        "single_head": h,
        "single_direction": DIRECTIONS[dr],
        "n_arcs": int(te.sum()),
        "n_relations": n_rel,
    }
