"""Is there a coreference head? (Clark et al. 2019, §4.2/§5), on the gender test of
:mod:`bertology_lib.data.suites.coreference`.

Clark et al. find a BERT-base head that, from a mention, attends most to the head word of the antecedent
(65% on CoNLL-2012; the nearest mention gets 27%). :func:`head_correct` scores every (layer, head) on every
item: from the pronoun's first subword, is the most-attended word the antecedent? (attention to a word = the
sum over its subwords; [CLS]/[SEP] carry no word and are left out; the words are those of
:attr:`~bertology_lib.data.suites.coreference.CorefItem.words`, the pronoun itself included.)
:class:`~bertology_lib.analysis.attention_norms.AttentionMaps` keep no word alignment, so the subword ->
word map is recomputed with the tokenizer (``word_ids`` of a fast tokenizer, the same call as
:func:`~bertology_lib.analysis.attention_norms.attention_maps`) and checked against the maps' tokens.

:func:`best_head_heldout` chooses the head on ``select`` items and scores it once on ``test`` items;
:func:`coref_gap` subtracts the stronger baseline (nearest mention, or the random-init twin's head chosen the
same way), with a paired bootstrap over test items. Used by the survey §4.2 notebook.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from bertology_lib import stats
from bertology_lib.analysis.attention_norms import AttentionMaps
from bertology_lib.data.suites.coreference import CorefItem
from bertology_lib.errors import ParameterError


def word_ids(tokenizer, words: Sequence[str]) -> list[int | None]:
    """The word index of every subword of ``words`` as the tokenizer splits them (None for [CLS]/[SEP])."""
    if not getattr(tokenizer, "is_fast", False):
        raise ParameterError(f"{type(tokenizer).__name__} gives no word_ids; allowed: a fast (Rust) tokenizer")
    return list(tokenizer(list(words), is_split_into_words=True, truncation=True, max_length=512).word_ids())


def head_correct(maps: AttentionMaps, items: Sequence[CorefItem], tokenizer) -> np.ndarray:
    """(items, layers, heads) booleans: does the head, from the pronoun's first subword, attend most to the
    antecedent? ``maps.weights[layer][item]``: (heads, T, T) attention of ``item.words`` (from
    :func:`~bertology_lib.analysis.attention_norms.attention_maps`, any ``with_norms``). Ties go to the
    earlier word."""
    if not items or not maps.weights or len(maps.weights[0]) != len(items) or len(maps.tokens) != len(items):
        n_maps = len(maps.weights[0]) if maps.weights else 0
        raise ParameterError(
            f"{n_maps} attention maps for {len(items)} items; allowed: one map per item, "
            "in the same order (at least one)"
        )
    n_layers, n_heads = maps.n_layers, int(maps.weights[0][0].shape[0])
    out = np.zeros((len(items), n_layers, n_heads), dtype=bool)
    for s, it in enumerate(items):
        wid = word_ids(tokenizer, it.words)
        if len(wid) != len(maps.tokens[s]):
            raise ParameterError(
                f"item {s}: the tokenizer gives {len(wid)} tokens but the map has "
                f"{len(maps.tokens[s])}; allowed: maps made with this tokenizer from item.words"
            )
        keys = np.array([w is not None for w in wid])
        owner = np.array([w for w in wid if w is not None])  # word of each non-special token
        query = wid.index(it.pronoun)
        for L in range(n_layers):
            row = maps.weights[L][s][:, query, :].double().numpy()[:, keys]  # (heads, word tokens)
            per_word = np.zeros((n_heads, len(it.words)))
            for h in range(n_heads):
                per_word[h] = np.bincount(owner, weights=row[h], minlength=len(it.words))
            out[s, L] = per_word.argmax(1) == it.antecedent
    return out


def nearest_mention_correct(items: Sequence[CorefItem]) -> np.ndarray:
    """(items,) booleans: is the nearest mention (the closer name before the pronoun) the antecedent?"""
    return np.array([it.nearest_mention() == it.antecedent for it in items], dtype=bool)


def _indices(name: str, idx: Sequence[int], n: int) -> np.ndarray:
    a = np.asarray(idx, dtype=int).ravel()
    if len(a) < 2 or a.min() < 0 or a.max() >= n:
        raise ParameterError(
            f"{name} has {len(a)} indices (range {a.min() if len(a) else '-'}.."
            f"{a.max() if len(a) else '-'}); allowed: at least 2 item indices in 0..{n - 1}"
        )
    return a


def _check_correct(correct: np.ndarray, name: str = "correct") -> np.ndarray:
    c = np.asarray(correct)
    if c.ndim != 3 or c.shape[0] < 2:
        raise ParameterError(f"{name} has shape {c.shape}; allowed: (items, layers, heads) with at least 2 items")
    return c.astype(float)


def _choose(c: np.ndarray, select: np.ndarray) -> tuple[int, int, float]:
    """The (layer, head) with the highest mean on the ``select`` items (first on ties) and that mean."""
    acc = c[select].mean(0)
    L, h = np.unravel_index(int(acc.argmax()), acc.shape)
    return int(L), int(h), float(acc[L, h])


def best_head_heldout(
    correct: np.ndarray,
    select: Sequence[int],
    test: Sequence[int],
    seed: int = 0,
    n_resamples: int = 2000,
    *,
    items: Sequence[CorefItem],
) -> dict:
    """The head with the highest accuracy on the ``select`` items, scored on the ``test`` items.

    ``correct``: (items, layers, heads) from :func:`head_correct`; ``items``: the items it scored (for the
    nearest-mention baseline). Returns ``layer``, ``head``, ``selection_accuracy``, the test ``accuracy``
    with its 95% percentile-bootstrap interval ``low``/``high`` (resampling test items), ``baseline`` (the
    nearest-mention accuracy on the test items) and ``gap`` = accuracy - baseline with a paired-bootstrap
    interval ``gap_low``/``gap_high``, ``n_select``, ``n_test``."""
    c = _check_correct(correct)
    if len(items) != len(c):
        raise ParameterError(f"{len(items)} items for correct of {len(c)} items; allowed: the items it scored")
    sel, ev = _indices("select", select, len(c)), _indices("test", test, len(c))
    L, h, sel_acc = _choose(c, sel)
    hit = c[ev, L, h]
    base = nearest_mention_correct(items)[ev].astype(float)
    acc, low, high = stats.bootstrap_ci(hit, np.mean, n_resamples, seed)
    gap, g_low, g_high = stats.paired_gap(hit, base, n_resamples=n_resamples, seed=seed)
    return {
        "layer": L,
        "head": h,
        "selection_accuracy": sel_acc,
        "accuracy": acc,
        "low": low,
        "high": high,
        "baseline": float(base.mean()),
        "gap": gap,
        "gap_low": g_low,
        "gap_high": g_high,
        "n_select": len(sel),
        "n_test": len(ev),
    }


def coref_gap(
    correct: np.ndarray,
    twin_correct: np.ndarray,
    items: Sequence[CorefItem],
    select: Sequence[int],
    test: Sequence[int],
    seed: int = 0,
    n_resamples: int = 2000,
) -> dict:
    """The trained model's held-out best head minus the stronger baseline, on the ``test`` items.

    Both models' heads are chosen on the ``select`` items (:func:`best_head_heldout`'s rule); the baseline is
    whichever of the nearest mention and the twin's chosen head (``twin_correct``: :func:`head_correct` of the
    random-init twin on the same items) is more accurate on the ``select`` items (the nearest mention on a
    tie), so the test items choose nothing. Returns ``gap`` with a 95% paired-bootstrap interval
    ``low``/``high`` over test items, ``accuracy``, ``layer``, ``head``, ``baseline`` (its name),
    ``baseline_accuracy``, ``nearest_accuracy``, ``twin_accuracy``, ``twin_layer``, ``twin_head`` (all test
    accuracies) and ``n_test``."""
    c, t = _check_correct(correct), _check_correct(twin_correct, "twin_correct")
    if len(items) != len(c) or len(t) != len(c):
        raise ParameterError(
            f"correct, twin_correct and items have {len(c)}, {len(t)} and {len(items)} items; "
            "allowed: the same items in the same order"
        )
    sel, ev = _indices("select", select, len(c)), _indices("test", test, len(c))
    L, h, _ = _choose(c, sel)
    tL, th, t_sel = _choose(t, sel)
    near = nearest_mention_correct(items).astype(float)
    if t_sel > near[sel].mean():
        name, base = f"twin head {tL}-{th}", t[ev, tL, th]
    else:
        name, base = "nearest mention", near[ev]
    hit = c[ev, L, h]
    gap, low, high = stats.paired_gap(hit, base, n_resamples=n_resamples, seed=seed)
    return {
        "gap": gap,
        "low": low,
        "high": high,
        "accuracy": float(hit.mean()),
        "layer": L,
        "head": h,
        "baseline": name,
        "baseline_accuracy": float(base.mean()),
        "nearest_accuracy": float(near[ev].mean()),
        "twin_accuracy": float(t[ev, tL, th].mean()),
        "twin_layer": tL,
        "twin_head": th,
        "n_test": len(ev),
    }
