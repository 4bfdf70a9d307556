"""A two-sided n-gram that chooses between the two fillers of a cloze item, counted on a model's training text.

The baseline that knows the generator: a toy grammar that, say, only ever puts an NPI next to its licensor lets
adjacent-word counts decide an NPI item without any syntax. :class:`NGramCloze` counts, over training sentences,
every word with its left and right neighbours, and prefers the filler whose counts in the item's slot are higher:
first the (left, filler, right) triple, then the two bigrams together, then the filler's own frequency; a tie at
every level counts 0.5 (a coin flip's expected score). Used by ``survey_03_1_syntax`` beside its NPI rows.
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
