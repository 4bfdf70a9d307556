"""What the checkers compute their truths on: the quick profile's configurations and data, fixed whatever
profile a notebook runs at, so that a teacher notebook passes its checks at smoke and at quick alike.

* the survey's toy English: the quick mini-BERT config (:func:`minibert_config`), its 1,500 probe sentences
  split 1,125 / 375 (:func:`probe_table`), its targeted suites (:func:`suite_items`) and the frequency
  baseline on a suite's items (:func:`prefer_more_frequent`);
* the physics biographies: the quick physics config (:func:`physics_config`) and how often a pretraining run
  reads one biography (:func:`bio_exposures`).

Used by the checker modules of the survey's §3–§4 notebooks and of the physics notebooks.
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
    score = [1.0 if counts[it.correct] > counts[it.incorrect] else tie if counts[it.correct] == counts[it.incorrect]
             else 0.0 for it in items]
    return sum(score) / len(score)


def physics_config():
    """The physics configuration at ``quick``: every truth is fixed there, whatever profile the notebook runs."""
    from bertology_lib.experiments.physics.config import PhysicsConfig

    return PhysicsConfig.for_profile("quick")


def bio_exposures(cfg, steps: int | None = None, batch_size: int | None = None) -> float:
    """Times one biography's facts are read in a decoder pretraining run of ``cfg``, per copy of a person:
    rows read (``steps x batch_size``) over the BIO windows of ``cfg.dataset()`` packed as ``cfg.packing`` says
    (the epochs)."""
    from bertology_lib.experiments.physics.config import bios_tokenizer
    from bertology_lib.experiments.physics.training import bio_rows

    steps = cfg.pretrain_steps if steps is None else steps
    batch_size = cfg.batch_size if batch_size is None else batch_size
    return steps * batch_size / len(bio_rows(cfg.dataset(), bios_tokenizer(), cfg.seq_len, cfg.packing)[0])
