"""A two-sided n-gram that chooses between the two fillers of a cloze item, counted on a model's training text.

The baseline that knows the generator: a toy grammar that, say, only ever puts an NPI next to its licensor lets
adjacent-word counts decide an NPI item without any syntax. :class:`NGramCloze` counts, over training sentences,
every word with its left and right neighbours, and prefers the filler whose counts in the item's slot are higher:
first the (left, filler, right) triple, then the two bigrams together, then the filler's own frequency; a tie at
every level counts 0.5 (a coin flip's expected score). Used by ``survey_03_1_syntax`` beside its NPI rows.
:func:`context_vectors` is the co-occurrence model of the same counts (PPMI-SVD over a window), the baseline of
``survey_03_2_semantics``'s entity types: what a new noun's contexts give without a network.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Sequence

import numpy as np

from bertology_lib.errors import ParameterError

BOS, EOS = "<s>", "</s>"


class NGramCloze:
    """Counts of (left, word, right), (left, word), (word, right) and word over ``sentences`` (word sequences)."""

    def __init__(self, sentences: Sequence[Sequence[str]]) -> None:
        self.tri: Counter = Counter()
        self.left: Counter = Counter()
        self.right: Counter = Counter()
        self.uni: Counter = Counter()
        for words in sentences:
            padded = [BOS, *words, EOS]
            for i in range(1, len(padded) - 1):
                lt, w, rt = padded[i - 1], padded[i], padded[i + 1]
                self.tri[(lt, w, rt)] += 1
                self.left[(lt, w)] += 1
                self.right[(w, rt)] += 1
                self.uni[w] += 1
        if not self.uni:
            raise ParameterError("sentences is empty; allowed: the training sentences, as word sequences")

    def prefers(self, words: Sequence[str], i: int, a: str, b: str) -> float:
        """1.0 if filler ``a`` beats ``b`` in slot ``i`` of ``words``, 0.0 if ``b`` beats ``a``, 0.5 on a tie."""
        padded = [BOS, *words, EOS]
        lt, rt = padded[i], padded[i + 2]
        for score in (
            lambda w: self.tri[(lt, w, rt)],
            lambda w: self.left[(lt, w)] + self.right[(w, rt)],
            lambda w: self.uni[w],
        ):
            sa, sb = score(a), score(b)
            if sa != sb:
                return 1.0 if sa > sb else 0.0
        return 0.5

    def choose(self, items: Sequence[Any]) -> np.ndarray:
        """Per cloze item (``words``, ``mask_index``, ``correct``, ``incorrect``): 1 if the n-gram prefers the correct
        filler, 0 if the incorrect one, 0.5 on a tie. (N,) floats."""
        return np.array([self.prefers(it.words, it.mask_index, it.correct, it.incorrect) for it in items])


def effect_beyond(
    model_a: Sequence[float], baseline_a: Sequence[float], model_b: Sequence[float], baseline_b: Sequence[float]
) -> tuple[float, float, float]:
    """(estimate, low, high): the model's effect between two sets of items (mean over ``a`` minus mean over ``b``)
    minus the baseline's on the same items, paired by item within each set; a Welch normal 95% interval over the
    two independent sets of per-item differences."""
    da = np.asarray(model_a, dtype=float) - np.asarray(baseline_a, dtype=float)
    db = np.asarray(model_b, dtype=float) - np.asarray(baseline_b, dtype=float)
    if len(da) < 2 or len(db) < 2:
        raise ParameterError(f"{len(da)} and {len(db)} items; allowed: at least 2 in each set")
    est = float(da.mean() - db.mean())
    se = float(np.sqrt(da.var(ddof=1) / len(da) + db.var(ddof=1) / len(db)))
    return est, est - 1.96 * se, est + 1.96 * se


def context_vectors(
    sentences: Sequence[Sequence[str]], words: Sequence[str], window: int = 2, dim: int = 50, seed: int = 0
) -> np.ndarray:
    """Distributional vectors of ``words`` from ``sentences`` (word or lemma sequences, e.g. a model's training
    split): the positive pointwise mutual information of every (word, context word) pair within ``window``
    positions, reduced to ``dim`` dimensions by a truncated SVD (the PPMI-SVD of Levy & Goldberg 2014), one row
    per entry of ``words`` (a word that never occurs gets a zero row). Shape ``(len(words), dim)``.

    The co-occurrence model of the baseline that knows the generator: when a toy grammar gives each noun class
    its own verbs, a linear probe on these rows reads a new noun's class from its training contexts alone, without
    any network (``survey3.2.entity_types_beyond_contexts``)."""
    from scipy import sparse
    from sklearn.decomposition import TruncatedSVD

    if isinstance(window, bool) or not isinstance(window, int) or window < 1:
        raise ParameterError(f"window={window!r} is invalid; allowed: an int >= 1 (context words on each side)")
    if isinstance(dim, bool) or not isinstance(dim, int) or dim < 1:
        raise ParameterError(f"dim={dim!r} is invalid; allowed: an int >= 1")
    if not words:
        raise ParameterError("words is empty; allowed: the words whose contexts to count")
    vocab: dict[str, int] = {}
    pairs: Counter = Counter()
    for sent in sentences:
        ids = [vocab.setdefault(w, len(vocab)) for w in sent]
        for i, w in enumerate(ids):
            for c in ids[max(0, i - window) : i] + ids[i + 1 : i + 1 + window]:
                pairs[w, c] += 1
    if not pairs:
        raise ParameterError("sentences have no word pairs; allowed: the training sentences, as word sequences")
    rows, cols = (np.fromiter((k[j] for k in pairs), dtype=np.int64, count=len(pairs)) for j in (0, 1))
    counts = np.fromiter(pairs.values(), dtype=np.float64, count=len(pairs))
    row_sum = np.bincount(rows, counts, len(vocab))
    col_sum = np.bincount(cols, counts, len(vocab)) ** 0.75  # context smoothing (Levy et al. 2015)
    pmi = np.log(counts * col_sum.sum() / (row_sum[rows] * col_sum[cols]))
    keep = pmi > 0
    ppmi = sparse.csr_matrix((pmi[keep], (rows[keep], cols[keep])), shape=(len(vocab), len(vocab)))
    k = max(1, min(dim, len(vocab) - 1))
    emb = TruncatedSVD(k, random_state=seed).fit_transform(ppmi) if len(vocab) > 1 else np.zeros((1, 1))
    out = np.zeros((len(words), dim), dtype=np.float32)
    for i, w in enumerate(words):
        if w in vocab:
            out[i, : emb.shape[1]] = emb[vocab[w]]
    return out
