"""Checkers of the survey notebooks' exercises (Rogers et al. 2020): the limits of probing (§3.4) and what
BERT's embeddings, heads and layers hold (§4.1–§4.3).

As in :mod:`bertology_lib.book.exercises.survey_knowledge` (whose helpers are shared): numbers are checked
against a truth computed here at a configuration the exercise fixes (the quick profile's probe sentences),
functions are run on hidden cases and compared with the library's own implementation.

Used by the exercises of ``survey_03_4_probing_limits`` and ``survey_04_1``–``survey_04_3``.
"""

from __future__ import annotations

import math
from collections import Counter

from bertology_lib.book.exercises.checks import as_number, checker
from bertology_lib.book.exercises.survey_knowledge import (
    as_share,
    call,
    near,
    quick_probe_table,
)


def survey34_memorise_truth(seed: int = 0) -> float:
    """Test accuracy on the control task (``probing.control_labels``, seed ``seed``) of the quick probe sentences
    of a perfect memoriser: each test word gets its type's training control label, an unseen type the most
    frequent training control label (``probing.majority_baseline`` on the control labels)."""
    from bertology_lib.analysis import probing

    table, tr, te = quick_probe_table()
    words = table.word.tolist()
    return probing.majority_baseline(words, probing.control_labels(words, table.upos.tolist(), seed), tr, te)


@checker("ex-survey34-memorise")
def _check_survey34_memorise(answer):
    """``answer``: a share in [0, 1] (+-0.005)."""
    from bertology_lib.analysis import probing

    v = as_share(answer)
    if v is None:
        return False, f"expected an accuracy between 0 and 1, got {answer!r}."
    truth = survey34_memorise_truth()
    if near(v, truth, 0.005):
        return True, ("correct: compare it with the probes' control accuracy above; the gap is what they did not "
                      "memorise.")
    table, tr, te = quick_probe_table()
    words = table.word.tolist()
    seen = set(table.word.iloc[tr])
    if near(v, probing.majority_baseline(words, table.upos.tolist(), tr, te), 0.001):
        return False, "that is the per-word majority of the real POS tags; the question is about the control labels."
    if near(v, sum(table.word.iloc[i] in seen for i in te) / len(te), 0.001):
        return False, ("that is the share of test words whose type was seen in training; the memoriser also "
                       "guesses the unseen ones, and is sometimes right.")
    return False, ("not quite: use probing.control_labels(words, upos, seed=0), remember each training word's "
                   "control label, and answer unseen test words with the most frequent training control label.")


def _entropy_bits(labels) -> float:
    counts = Counter(labels)
    n = sum(counts.values())
    return -sum(c / n * math.log2(c / n) for c in counts.values())


def survey34_prior_code_truth() -> float:
    """Compression (uniform bits / entropy bits) of a feature-free code that knows only the UPOS frequencies of
    the training words of the quick probe sentences; C = the number of tags in the table."""
    table, tr, _ = quick_probe_table()
    return math.log2(table.upos.nunique()) / _entropy_bits(table.upos.iloc[tr])


@checker("ex-survey34-prior-code")
def _check_survey34_prior_code(answer):
    """``answer``: a compression ratio (+-0.005)."""
    from bertology_lib.analysis import probing

    v = as_number(answer)
    if v is None or v <= 0:
        return False, f"expected a positive compression ratio, got {answer!r}."
    truth = survey34_prior_code_truth()
    if near(v, truth, 0.005):
        return True, ("correct: any compression beyond this comes from the features, not from knowing how common "
                      "each tag is.")
    table, tr, _ = quick_probe_table()
    if near(v, truth / math.log(2), 0.005):
        return False, "the entropy is in nats; the codelengths are in bits (use log2)."
    if near(v, 1 / truth, 0.005):
        return False, "that is the code's length over the uniform one; compression is uniform bits over the code's bits."
    control = probing.control_labels(table.word.tolist(), table.upos.tolist(), 0)
    if near(v, math.log2(table.upos.nunique()) / _entropy_bits([control[i] for i in tr]), 0.005):
        return False, "those are the control labels; the question is about the POS tags."
    return False, ("not quite: from the training words' UPOS frequencies p, H = -sum(p log2 p) bits per tag; the "
                   "uniform code spends log2(C) with C the number of tags; compression is their ratio.")


# --------------------------------------------------------------------------- §4.1 embeddings


def _occurrence_matrices():
    """Hidden (k, d) occurrence matrices: a shared offset (anisotropy), noise and unequal row norms."""
    import torch

    g = torch.Generator().manual_seed(4100)
    out = []
    for k, d, offset in ((2, 4, 1.0), (5, 16, 2.0), (9, 8, 0.5), (30, 32, 3.0), (4, 3, 0.0)):
        mu = offset * torch.randn(d, generator=g, dtype=torch.float64)
        V = mu + torch.randn(k, d, generator=g, dtype=torch.float64)
        out.append(V * (0.5 + 2.5 * torch.rand(k, 1, generator=g, dtype=torch.float64)))
    return out


def _as_float(out) -> float | None:
    try:
        return as_number(float(out))
    except (TypeError, ValueError, RuntimeError):
        return None


def _check_function_on(answer, cases, truth, mistakes, tol: float = 1e-6):
    """Run ``answer`` on each case; ``truth(case)`` is right, ``mistakes`` maps a hint to a wrong function."""
    for case in cases:
        out, err = call(answer, case.clone())
        if err:
            return False, err
        v = _as_float(out)
        if v is None:
            return False, f"expected your function to return a number, got {type(out).__name__}."
        if abs(v - truth(case)) <= tol:
            continue
        for hint, wrong in mistakes.items():
            if abs(v - wrong(case)) <= tol:
                return False, hint
        return False, None
    return True, ""


def _pairwise_cos(V):
    U = V / V.norm(dim=-1, keepdim=True)
    return U @ U.T


def self_similarity_truth(V) -> float:
    """Mean cosine over the k(k-1) ordered pairs of different rows of ``V`` (k, d): Ethayarajh's SelfSim."""
    k = V.shape[0]
    C = _pairwise_cos(V.double())
    return float(sum(C[i, j] for i in range(k) for j in range(k) if i != j) / (k * (k - 1)))


@checker("ex-survey41-selfsim")
def _check_survey41_selfsim(answer):
    """``answer``: a function ``V (k, d) tensor -> float``, the mean cosine between different occurrences;
    within 1e-6 of the truth on five hidden matrices (k = 2 to 30, with a shared offset)."""
    def with_diagonal(V):
        return float(_pairwise_cos(V).mean())

    def dots(V):
        k = V.shape[0]
        G = V @ V.T
        return float((G.sum() - G.trace()) / (k * (k - 1)))

    mistakes = {
        "you included each occurrence's similarity with itself (1); average over pairs of different occurrences.":
            with_diagonal,
        "cosines, not dot products: divide each vector by its norm first.": dots,
        "do not centre the vectors: SelfSim is on the raw vectors, and the anisotropy correction is a separate "
        "step (minus the layer's anisotropy).": lambda V: self_similarity_truth(V - V.mean(0)),
    }
    ok, hint = _check_function_on(answer, _occurrence_matrices(), self_similarity_truth, mistakes)
    if ok:
        return True, "correct: 1 for a static embedding, lower the more each occurrence depends on its context."
    return False, hint or ("not quite: normalise the rows, take all cosines between different rows (i != j) and "
                           "average them.")


def mev_truth(V) -> float:
    """Ethayarajh's MEV of ``V`` (k, d), uncentred: the largest eigenvalue of VᵀV over its trace (= σ₁² / Σσᵢ²)."""
    import torch

    G = V.double().T @ V.double()
    return float(torch.linalg.eigvalsh(G)[-1] / G.trace())


@checker("ex-survey41-mev")
def _check_survey41_mev(answer):
    """``answer``: a function ``V (k, d) tensor -> float``, the share of variance of the uncentred occurrence
    matrix its first principal direction explains; within 1e-6 on five hidden matrices."""
    import torch

    def svals(V):
        return torch.linalg.svdvals(V.double())

    mistakes = {
        "Ethayarajh's MEV is on the uncentred matrix of occurrences (a static embedding is a vector, not a "
        "direction around the mean): do not subtract the mean.": lambda V: mev_truth(V - V.mean(0)),
        "variance goes with the square of the singular values: sigma_1^2 / sum sigma_i^2.":
            lambda V: float(svals(V)[0] / svals(V).sum()),
        "that is the share the first direction does *not* explain.": lambda V: 1 - mev_truth(V),
    }
    ok, hint = _check_function_on(answer, _occurrence_matrices(), mev_truth, mistakes)
    if ok:
        return True, "correct: near 1 when one static vector would do, low when contexts spread the occurrences."
    return False, hint or "not quite: take the singular values of V (k, d) and return the first one's share of the energy."


# --------------------------------------------------------------------------- §4.2 attention heads


def _quick_held_out_lengths() -> list[int]:
    """Token counts (words + [CLS] + [SEP]) of the quick profile's held-out toy sentences (the last 375 of 1,500)."""
    table, _, te = quick_probe_table()
    return (table.iloc[te].groupby("sentence").size() + 2).tolist()


def survey42_uniform_truth() -> float:
    """``head_stats``' mean attention to [SEP] of a head attending uniformly (1/T per token) on the quick held-out
    toy sentences read by the word-level mini-BERT tokenizer (T = words + 2): sentences / query tokens."""
    T = _quick_held_out_lengths()
    return len(T) / sum(T)  # each sentence's T rows give 1/T each: one unit of [SEP] attention per sentence


@checker("ex-survey42-uniform")
def _check_survey42_uniform(answer):
    """``answer``: a share in [0, 1] (+-0.001)."""
    v = as_share(answer)
    if v is None:
        return False, f"expected a mean attention between 0 and 1, got {answer!r}."
    truth = survey42_uniform_truth()
    if near(v, truth, 0.001):
        return True, "correct: a head's attention to [SEP] says something only where it stands well above this line."
    T = _quick_held_out_lengths()
    if near(v, sum(1 / t for t in T) / len(T), 0.001):
        return False, ("you averaged per sentence; head_stats averages over query tokens, so a long sentence "
                       "counts once per token.")
    if near(v, 2 * truth, 0.001):
        return False, "that is [CLS] and [SEP] together; the question asks about [SEP] alone."
    if near(v, len(T) / sum(t - 2 for t in T), 0.001):
        return False, "count [CLS] and [SEP] among the T tokens a uniform head attends to (and among the query rows)."
    return False, ("not quite: each of a sentence's T query rows gives 1/T to [SEP]; sum that over every query "
                   "row of every held-out sentence and divide by the number of rows.")


def _attention_cases():
    """Hidden single-head maps: (weights (T, T), value norms (T,), special mask (T,)), specials with short vectors."""
    import torch

    g = torch.Generator().manual_seed(4200)
    out = []
    for T, extra_sep in ((5, None), (9, 4), (14, None), (7, 3)):
        w = torch.softmax(2 * torch.randn(T, T, generator=g, dtype=torch.float64), -1)
        special = torch.zeros(T, dtype=torch.bool)
        special[[0, T - 1]] = True
        if extra_sep is not None:
            special[extra_sep] = True  # a sentence pair: [CLS] a [SEP] b [SEP]
        norms = 0.5 + 3 * torch.rand(T, generator=g, dtype=torch.float64)
        norms[special] *= 0.2
        out.append((w, norms, special))
    return out


def norm_share_truth(weights, value_norms, special) -> float:
    """Share of ‖α f(x)‖ on special keys, each query row renormalised to 1, averaged over every query row."""
    rows = []
    for i in range(weights.shape[0]):
        m = [float(weights[i, j] * value_norms[j]) for j in range(weights.shape[1])]
        rows.append(sum(x for x, s in zip(m, special.tolist()) if s) / sum(m))
    return sum(rows) / len(rows)


@checker("ex-survey42-normshare")
def _check_survey42_normshare(answer):
    """``answer``: a function ``(weights (T, T), value_norms (T,), special (T,) bool) -> float`` equal (1e-6) to
    the row-normalised norm share that ``norms.special_focus`` reports, on four hidden maps."""
    mistakes = {
        "that is the share by weight; weight each attention α_ij by the norm of the vector it moves, ‖f(x_j)‖.":
            lambda w, n, s: float(w[:, s].sum(-1).mean()),
        "rows of α‖f(x)‖ no longer sum to 1: divide each row by its sum before taking the share.":
            lambda w, n, s: float((w * n)[:, s].sum(-1).mean()),
        "share per query row first, then average the rows: a row whose vectors are long must not weigh more.":
            lambda w, n, s: float((w * n)[:, s].sum() / (w * n).sum()),
        "average over every query row, the special tokens' own rows included, as head_stats does.":
            lambda w, n, s: float(((w * n) / (w * n).sum(-1, keepdim=True))[~s][:, s].sum(-1).mean()),
    }
    for w, n, s in _attention_cases():
        out, err = call(answer, w.clone(), n.clone(), s.clone())
        if err:
            return False, err
        v = _as_float(out)
        if v is None:
            return False, f"expected your function to return a number, got {type(out).__name__}."
        if abs(v - norm_share_truth(w, n, s)) <= 1e-6:
            continue
        for hint, wrong in mistakes.items():
            if abs(v - wrong(w, n, s)) <= 1e-6:
                return False, hint
        return False, ("not quite: multiply each column j of the map by ‖f(x_j)‖, renormalise each row, sum the "
                       "special columns and average over the rows.")
    return True, "correct: the [CLS]/[SEP] focus by norm, as Kobayashi et al. (2020) measure it."


# --------------------------------------------------------------------------- §4.3 layers


def _score_curves() -> list[list[float]]:
    """Hidden per-layer probe scores: rising, peaked, dipping, flat, falling, random."""
    import numpy as np

    rng = np.random.default_rng(4300)
    curves = [[0.5, 0.6, 0.8, 0.85, 0.86], [0.7, 0.9, 0.95, 0.92, 0.8, 0.85, 0.97], [0.9, 0.8, 0.7],
              [0.6, 0.6, 0.6, 0.6], [0.3, 0.2, 0.5, 0.4, 0.45, 0.9, 0.1]]
    curves += [rng.uniform(0.4, 1.0, size=n).round(4).tolist() for n in (7, 13, 4)]
    return curves


def expected_layer_truth(scores) -> float:
    """``emb.centre_of_gravity`` of one curve (layers 0..L): the library's implementation is the reference."""
    import pandas as pd

    from bertology_lib.analysis.embeddings import centre_of_gravity

    df = pd.DataFrame({"target": "t", "model": "m", "layer": range(len(scores)), "accuracy": list(scores)})
    return float(centre_of_gravity(df).expected_layer.iloc[0])


def _gain_weighted(scores, best: bool = True, shift: int = 0) -> float:
    import numpy as np

    s = np.maximum.accumulate(np.asarray(scores, float)) if best else np.asarray(scores, float)
    gain = np.diff(s)
    return float(((np.arange(1, len(s)) + shift) * gain).sum() / gain.sum()) if gain.sum() > 0 else 0.0


@checker("ex-survey43-expected")
def _check_survey43_expected(answer):
    """``answer``: a function ``scores (list of per-layer floats, layer 0 first) -> float``, the expected layer as
    ``emb.centre_of_gravity`` computes it; within 1e-6 on eight hidden curves."""
    import numpy as np

    mistakes = {
        "a score that falls after its peak gives a negative gain; use the running maximum of the scores (what "
        "layers 0..l make available) before taking differences.": lambda s: _gain_weighted(s, best=False),
        "layers are 0-based: the first gain is that of layer 1.": lambda s: _gain_weighted(s, shift=1),
        "weight the layers by the gains, not by the scores themselves.":
            lambda s: float((np.arange(len(s)) * np.asarray(s)).sum() / np.sum(s)),
        "that is the best layer; the expected layer averages the layers by how much each one adds.":
            lambda s: float(np.argmax(s)),
    }
    for scores in _score_curves():
        out, err = call(answer, list(scores))
        flat = max(scores) <= scores[0]
        if err and not flat:
            return False, err
        v = None if err else _as_float(out)
        if v is None and flat:
            return False, "when no layer improves on layer 0, the expected layer is 0 (everything is in the embeddings)."
        if v is None:
            return False, f"expected your function to return a number, got {type(out).__name__}."
        if abs(v - expected_layer_truth(scores)) <= 1e-6:
            continue
        for hint, wrong in mistakes.items():
            if abs(v - wrong(scores)) <= 1e-6:
                return False, hint
        if flat:
            return False, "when no layer improves on layer 0, the expected layer is 0 (everything is in the embeddings)."
        return False, ("not quite: running maximum of the scores, gains between consecutive layers, then the "
                       "gain-weighted mean of the layers 1..L.")
    return True, "correct: the expected layer of each target is what the pipeline figure above orders."


def _hidden_trees() -> list[tuple[int, ...]]:
    """Hidden gold trees (1-based heads, 0 = root): toy sentences of an unused seed, a chain and a star."""
    from bertology_lib.data.toy_english import ToyEnglishConfig, generate_corpus

    trees = [s.heads for s in generate_corpus(ToyEnglishConfig(n_sentences=6, seed=4343))]
    return trees + [(0, 1, 2, 3, 4), (3, 3, 0, 3, 3, 3), (0,)]


def tree_distance_truth(heads):
    """(n, n) edges between every pair of words: :func:`bertology_lib.analysis.structural_probe.tree_distances`."""
    from bertology_lib.analysis.structural_probe import tree_distances

    return tree_distances(heads)


@checker("ex-survey43-distance")
def _check_survey43_distance(answer):
    """``answer``: a function ``heads (1-based, 0 = root) -> (n, n) array`` of path lengths, equal to the gold
    distances on nine hidden trees."""
    import numpy as np

    from bertology_lib.analysis.structural_probe import tree_depths

    for heads in _hidden_trees():
        out, err = call(answer, tuple(heads))
        if err:
            return False, err
        truth = tree_distance_truth(heads)
        try:
            D = np.asarray(out, dtype=float)
        except (TypeError, ValueError):
            return False, f"expected an (n, n) array of distances, got {type(out).__name__}."
        if D.shape != truth.shape:
            return False, f"expected an (n, n) array for a sentence of n = {len(heads)} words, got shape {D.shape}."
        if np.allclose(D, truth):
            continue
        n = len(heads)
        depth = tree_depths(heads)
        if np.allclose(D, np.abs(depth[:, None] - depth[None, :])):
            return False, ("that is the difference of the two words' depths; two words on different branches are "
                           "further apart than that: count the edges of the path between them.")
        if np.allclose(D, np.abs(np.arange(n)[:, None] - np.arange(n)[None, :])):
            return False, "that is the distance in the word order (the right-branching view); count edges of the tree."
        return False, ("not quite: link each word i to heads[i] - 1 (heads are 1-based, 0 is the root), then count "
                       "the edges on the path between every two words, e.g. breadth-first from each word.")
    return True, "correct: these are the distances the probe's ‖B(h_i - h_j)‖² is trained to match."
