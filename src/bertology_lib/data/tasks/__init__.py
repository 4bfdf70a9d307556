"""Small labelled downstream tasks: toy classification, toy NLI, toy extractive QA, and SST-2.

The toy tasks are built with the toy-English grammar and its knowledge base
(:mod:`bertology_lib.data.toy_english`), so every word is in the mini-BERT's
vocabulary (same ``world_seed`` = the mini-BERT's ``corpus_seed`` and the same
``vocab_size``) and every label is known, not annotated. Each task is
deterministic from its frozen config and comes as train/dev/test splits with
exactly balanced labels (no example text repeats across splits).

==========================  ====================================================================
:func:`toy_classification`  one sentence -> a property of its *main* clause (negation, subject number)
:func:`toy_nli`             premise/hypothesis -> entailment / neutral / contradiction
:func:`toy_qa`              SQuAD 2.0-style extractive QA over a paragraph of facts,
                            about a third unanswerable; EM/F1 with no-answer handling
:func:`sst2_task`           GLUE SST-2 (``../shared/data`` or a download) in the same shape
==========================  ====================================================================

Modules:

* ``task``: the example types, :class:`Task` (splits, cache key, :meth:`Task.from_examples`)
  and :func:`fill_splits` (balanced, duplicate-free splits).
* ``configs``: the frozen configs (:class:`ClassificationConfig`, :class:`NLIConfig`,
  :class:`QAConfig`, :class:`SST2Config`), :func:`configure` and :func:`toy_world`.
* ``world``: :class:`World` (the knowledge base or a shuffled copy) and :class:`Speaker`
  (facts said in the generator's templates).
* ``classification``, ``nli``, ``qa``, ``sst2``: one task maker each (their docstrings give
  the labels and the world rules).
* ``metrics``: SQuAD 2.0 exact match and F1, accuracy and macro-F1, and :func:`floor_scores` (what
  always predicting the majority label, or always abstaining, scores).

Used by :mod:`bertology_lib.training.finetune` and the duplication and survey §5-§7 notebooks.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bertology_lib.data.tasks.classification import main_clause_negated, toy_classification
from bertology_lib.data.tasks.configs import (
    CLASSIFICATION_LABELS,
    NLI_KINDS,
    QA_TYPES,
    WORLDS,
    ClassificationConfig,
    NLIConfig,
    QAConfig,
    SST2Config,
    ToyTaskConfig,
    configure,
    toy_world,
)
from bertology_lib.data.tasks.metrics import (
    classification_metrics,
    floor_gap,
    floor_scores,
    normalize_answer,
    qa_metrics,
    squad_exact,
    squad_f1,
)
from bertology_lib.data.tasks.nli import lexical_overlap_subset, toy_nli
from bertology_lib.data.tasks.qa import toy_qa
from bertology_lib.data.tasks.sst2 import SST2_LABELS, sst2, sst2_data_key, sst2_task
from bertology_lib.data.tasks.task import (
    CONTRADICTION,
    ENTAILMENT,
    KINDS,
    NEUTRAL,
    NLI_LABELS,
    SPLITS,
    TASKS_VERSION,
    ClassificationExample,
    Example,
    QAExample,
    Task,
    fill_splits,
)
from bertology_lib.data.toy_english import vocabulary
from bertology_lib.validation import check_choice

__all__ = [
    "SPLITS",
    "TASK_NAMES",
    "KINDS",
    "NLI_LABELS",
    "ENTAILMENT",
    "NEUTRAL",
    "CONTRADICTION",
    "QA_TYPES",
    "NLI_KINDS",
    "CLASSIFICATION_LABELS",
    "WORLDS",
    "SST2_LABELS",
    "TASKS_VERSION",
    "ClassificationExample",
    "QAExample",
    "Example",
    "Task",
    "fill_splits",
    "ToyTaskConfig",
    "ClassificationConfig",
    "NLIConfig",
    "QAConfig",
    "SST2Config",
    "configure",
    "toy_world",
    "toy_classification",
    "main_clause_negated",
    "toy_nli",
    "lexical_overlap_subset",
    "toy_qa",
    "sst2",
    "sst2_task",
    "sst2_data_key",
    "get_task",
    "task_vocabulary",
    "toy_vocabulary",
    "normalize_answer",
    "squad_exact",
    "squad_f1",
    "qa_metrics",
    "classification_metrics",
    "floor_scores",
    "floor_gap",
]

TASK_NAMES: tuple[str, ...] = ("toy_classification", "toy_nli", "toy_qa", "sst2")
_MAKERS: dict[str, Callable[..., Task]] = {
    "toy_classification": toy_classification,
    "toy_nli": toy_nli,
    "toy_qa": toy_qa,
    "sst2": sst2_task,
}


def get_task(name: str, **config: Any) -> Task:
    """A task by name (:data:`TASK_NAMES`) with config overrides, e.g. ``get_task("toy_qa", n_train=500)``."""
    check_choice("task", name, TASK_NAMES)
    return _MAKERS[name](**config)


def task_vocabulary(task: Task) -> set[str]:
    """Every word of a toy task's examples (to check them against a tokenizer's vocabulary)."""
    words: set[str] = set()
    for s in SPLITS:
        for e in task.examples(s):
            if isinstance(e, QAExample):
                words.update(e.question)
                words.update(e.context)
            else:
                words.update(e.text.split())
                words.update((e.text_pair or "").split())
    return words


def toy_vocabulary(task: Task) -> set[str]:
    """The toy-English vocabulary (= the mini-BERT's words) of a toy task's world."""
    return set(vocabulary(toy_world(task)))
