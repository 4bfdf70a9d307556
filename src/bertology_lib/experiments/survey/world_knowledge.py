"""The survey's §3.3 (world knowledge) against baselines that know no facts: Petroni et al.'s frequency
baseline, a knowledge base read off the training split, and the random-init twin.

* :func:`relation_word_counts`: how often each word occurs in the training split's sentences stating facts
  of each relation.
* :func:`frequency_baseline`: per scored item, prefer the candidate that occurs more often in the sentences
  of the item's relation (Petroni et al. 2019's frequency baseline: the object's prior, not the subject's fact).
* :func:`extracted_kb_baseline`: a knowledge base read off the training split by template (what a relation
  extractor on this corpus would hold): right on every tested fact the split states, a coin flip on the rest.

The model is set beside them with :func:`bertology_lib.experiments.survey.semantics.baseline_table`.

Used by ``survey_03_3_world_knowledge``.
"""

from __future__ import annotations

from collections import Counter
from typing import Mapping

import numpy as np
import pandas as pd


def relation_word_counts(sentences) -> Counter:
    """``(relation, word) -> count`` over the fact sentences (``meta["kind"] == "fact"``) of ``sentences``
    (pass the mini-BERT's training split): how often each word occurs where facts of a relation are stated."""
    counts: Counter = Counter()
    for s in sentences:
        if s.meta.get("kind") != "fact":
            continue
        for rel in {f[0] for f in s.meta.get("facts", ())}:
            counts.update((rel, w) for w in s.words)
    return counts


def frequency_baseline(scored: pd.DataFrame, counts: Mapping[tuple[str, str], int]) -> np.ndarray:
    """Per row of a scored knowledge suite (``relation``, ``correct_word``, ``incorrect_word``): 1 when the
    correct candidate occurs more often than the incorrect one in the sentences of the row's relation
    (:func:`relation_word_counts`), 0 when less often, 0.5 on a tie. Subject-blind: it knows which objects
    are common for a relation, not whose they are."""
    out = np.empty(len(scored))
    for i, (rel, good, bad) in enumerate(zip(scored["relation"], scored["correct_word"], scored["incorrect_word"])):
        a, b = counts.get((rel, good), 0), counts.get((rel, bad), 0)
        out[i] = 1.0 if a > b else 0.0 if a < b else 0.5
    return out


def extracted_kb_baseline(scored: pd.DataFrame) -> np.ndarray:
    """Per row (with ``n_stated``, from :func:`~bertology_lib.experiments.survey.knowledge.with_fact_mentions`):
    1 when the training split states the fact at least once (a knowledge base extracted from the split by its
    templates holds it), else 0.5 (a coin flip)."""
    return np.where(scored["n_stated"].to_numpy() > 0, 1.0, 0.5)
