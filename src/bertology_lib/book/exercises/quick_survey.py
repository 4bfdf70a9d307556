"""What the survey's §3–§4 checkers compute their truths on: the quick profile's toy English, fixed whatever
profile a notebook runs at, so that a teacher notebook passes its checks at smoke and at quick alike: the quick
mini-BERT config (:func:`minibert_config`), its 1,500 probe sentences split 1,125 / 375 (:func:`probe_table`), its
targeted suites (:func:`suite_items`) and the frequency baseline on a suite's items (:func:`prefer_more_frequent`).
Used by the checker modules of the survey's §3–§4 notebooks.
"""

from __future__ import annotations

import functools

TRAIN_SENTENCES = 1125  # the probes' split of the quick profile's 1,500 probe sentences (75%)


@functools.lru_cache(maxsize=1)
def minibert_config():
    """The quick profile's mini-BERT config (its corpus config is what every suite here is drawn from)."""
    from bertology_lib.models import minibert

    return minibert.MiniBertConfig.for_profile("quick")


@functools.lru_cache(maxsize=1)
def probe_table():
    """Word table of the quick profile's 1,500 probe sentences and its (train, test) rows (1,125 / 375)."""
    from bertology_lib.data import word_labels
    from bertology_lib.models import minibert

    table = word_labels.word_table(minibert.fresh_sentences(minibert_config(), 1500))
    tr, te = word_labels.sentence_split(table, TRAIN_SENTENCES)
    return table, tr, te


def suite_items(name: str, n_items: int = 240):
    """The items of the targeted suite ``name`` drawn from the quick corpus."""
    from bertology_lib.data import suites

    return suites.make_suite(name, minibert_config().corpus_config(), n_items)


def prefer_more_frequent(items, counts, tie: float = 0.0) -> float:
    """Accuracy on ``items`` of preferring the candidate with the larger count in ``counts``; a tie scores ``tie``."""
    score = [
        1.0 if counts[it.correct] > counts[it.incorrect] else tie if counts[it.correct] == counts[it.incorrect] else 0.0
        for it in items
    ]
    return sum(score) / len(score)
