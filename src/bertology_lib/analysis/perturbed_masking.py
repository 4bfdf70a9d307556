"""Perturbed masking (Wu et al. 2020): how much does hiding word j change the model's view of word i?

For a sentence and a word pair (i, j), mask word i and read its last-layer vector; mask words i *and* j
and read it again; the **impact** of j on i is the distance between the two vectors. No probe is trained,
so nothing is learned from labels. Wu et al. read dependency trees off the impact matrix; the survey's
summary of the result (Rogers et al. 2020 §3.1) is that words that belong together syntactically influence
each other more. :func:`arc_gap` tests exactly that on gold trees: impacts between words linked by a
dependency arc against impacts between unlinked words *at the same distance in the sentence* (nearby words
influence each other anyway), each sentence's impacts divided by their mean so that models of different
scales compare. Used by the survey §3.1 notebook.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

from bertology_lib.errors import ParameterError


@torch.no_grad()
def impact_matrix(model: torch.nn.Module, tokenizer, words: Sequence[str], batch_size: int = 256) -> np.ndarray:
    """(n, n) impacts of one sentence of ``n`` words: entry [i, j] is the Euclidean distance between word i's
    last-layer vector (mean over its tokens) with i masked and with i and j masked; the diagonal is 0.

    ``model`` is an encoder (``output_hidden_states``); every token of a masked word becomes ``[MASK]``.
    """
    words = list(words)
    if len(words) < 2:
        raise ParameterError(f"words has {len(words)} word(s); allowed: a sentence of at least 2 words")
    if tokenizer.mask_token_id is None:
        raise ParameterError("the tokenizer has no [MASK] token; allowed: a masked-LM tokenizer")
    enc = tokenizer(words, is_split_into_words=True)
    ids, wid = enc["input_ids"], enc.word_ids()
    pos = [[k for k, w in enumerate(wid) if w == i] for i in range(len(words))]
    if any(not p for p in pos):
        raise ParameterError("a word has no token; allowed: words the tokenizer keeps")
    n = len(words)
    rows, reads = [], []  # each row: a masked copy; reads: which word's vector to read
    for i in range(n):
        for j in [None, *[j for j in range(n) if j != i]]:
            x = list(ids)
            for k in pos[i] + (pos[j] if j is not None else []):
                x[k] = tokenizer.mask_token_id
            rows.append(x)
            reads.append(i)
    model.eval()
    dev = next(model.parameters()).device
    vecs = []
    for s in range(0, len(rows), batch_size):
        x = torch.tensor(rows[s : s + batch_size], device=dev)
        out = model(input_ids=x, attention_mask=torch.ones_like(x), output_hidden_states=True)
        h = out.hidden_states[-1].float().cpu()
        vecs += [h[b, pos[reads[s + b]]].mean(0) for b in range(len(x))]
    m = np.zeros((n, n))
    k = 0
    for i in range(n):
        base = vecs[k]
        k += 1
        for j in range(n):
            if j == i:
                continue
            m[i, j] = float(torch.linalg.vector_norm(base - vecs[k]))
            k += 1
    return m


def arc_pairs(heads: Sequence[int]) -> set[tuple[int, int]]:
    """Ordered 0-based (i, j) pairs linked by a dependency arc (either direction); ``heads`` 1-based, 0 = root."""
    arcs = set()
    for d, h in enumerate(heads):
        if h:
            arcs |= {(d, h - 1), (h - 1, d)}
    return arcs


def arc_gap_terms(impacts: np.ndarray, heads: Sequence[int], max_distance: int = 3) -> list[tuple[int, float, float]]:
    """Per distance d = 1..``max_distance`` with at least one linked and one unlinked pair in the sentence:
    (d, mean normalised impact over linked pairs, over unlinked pairs). Impacts are divided by the sentence's
    mean off-diagonal impact first."""
    n = len(heads)
    if impacts.shape != (n, n):
        raise ParameterError(f"impacts has shape {impacts.shape}; allowed: ({n}, {n}) for {n} heads")
    off = impacts[~np.eye(n, dtype=bool)]
    scale = float(off.mean()) if off.size and off.mean() > 0 else 1.0
    arcs = arc_pairs(heads)
    out = []
    for d in range(1, max_distance + 1):
        pairs = [(i, j) for i in range(n) for j in range(n) if abs(i - j) == d]
        lk = [impacts[p] / scale for p in pairs if p in arcs]
        un = [impacts[p] / scale for p in pairs if p not in arcs]
        if lk and un:
            out.append((d, float(np.mean(lk)), float(np.mean(un))))
    return out


def arc_gap(terms: Sequence[Sequence[tuple[int, float, float]]], idx: Sequence[int] | None = None) -> float:
    """Linked minus unlinked normalised impact, averaged first within each distance over the sentences
    ``idx`` (default all; repeats allowed, for a bootstrap), then over distances weighted by how many sentences
    contribute: the distance-matched gap."""
    idx = range(len(terms)) if idx is None else idx
    by_d: dict[int, list[float]] = {}
    for s in idx:
        for d, lk, un in terms[s]:
            by_d.setdefault(d, []).append(lk - un)
    if not by_d:
        return float("nan")
    total = sum(len(v) for v in by_d.values())
    return float(sum(np.mean(v) * len(v) for v in by_d.values()) / total)


def arc_gap_interval(
    trained: Sequence, baseline: Sequence, n_resamples: int = 2000, seed: int = 0, confidence: float = 0.95
) -> tuple[float, float, float]:
    """(gap of ``trained`` - gap of ``baseline``, low, high): :func:`arc_gap` of two models' terms on the same
    sentences, with a percentile bootstrap over sentences (paired: the same resample for both)."""
    from bertology_lib import stats

    if len(trained) != len(baseline) or len(trained) < 2:
        raise ParameterError(f"{len(trained)} and {len(baseline)} sentences; allowed: the same sentences, at least 2")
    return stats.bootstrap_ci(
        np.arange(len(trained)),
        lambda idx: arc_gap(trained, idx) - arc_gap(baseline, idx),
        n_resamples=n_resamples,
        seed=seed,
        confidence=confidence,
    )
