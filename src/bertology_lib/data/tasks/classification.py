"""Toy classification: one sentence -> a property of its *main* clause.

Labels (``ClassificationConfig.label``), both needing context:

* ``negation``: is the main clause negated? ("not"/"never" attached to the root
  predicate, or "no" on the main subject). A "not" in a subordinate, relative or
  coordinated clause does not count; ``meta["licensor_elsewhere"]`` marks
  affirmative sentences that still contain a licensor (the cases a bag-of-words
  rule gets wrong).
* ``subject_number``: is the main subject plural? The subject may follow a
  fronted subordinate clause or carry PP/relative-clause attractors;
  ``meta["n_attractors"]`` counts nouns of the other number between subject and verb.

:func:`main_clause_negated` is the negation rule, also used to re-derive the labels of the
CheckList items (:mod:`bertology_lib.data.checklist`).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from bertology_lib.data.tasks.configs import CLASSIFICATION_LABELS, ClassificationConfig, configure
from bertology_lib.data.tasks.task import ClassificationExample, Task, fill_splits
from bertology_lib.data.toy_english import LICENSORS, Builder, Sentence


def main_clause_negated(
    words: Sequence[str], heads: Sequence[int], deprels: Sequence[str], subject: int | None
) -> bool:
    """True when "not"/"never" modifies the root predicate or "no" determines the main subject
    (word ``subject``, 0-based); the label rule of the toy negation task."""
    root = heads.index(0)
    for i, w in enumerate(words):
        if w in ("not", "never") and heads[i] - 1 == root and deprels[i] == "advmod":
            return True
        if w == "no" and subject is not None and heads[i] - 1 == subject and deprels[i] == "det":
            return True
    return False


def _subject_number(s: Sentence) -> str | None:
    subj = s.meta.get("subject_index")
    if subj is None:
        return None
    for a in s.meta.get("agreement", ()):
        if a["clause"] == "main" and a["subject"] == subj:
            return a["number"]
    if any(s.deprels[j] == "conj" and s.heads[j] - 1 == subj for j in range(len(s))):
        return "Plur"
    n = s.number[subj]
    return n if n in ("Sing", "Plur") else None


def toy_classification(config: ClassificationConfig | None = None, **overrides: Any) -> Task:
    """Sentence classification from the toy grammar (``config.label``: negation | subject_number).

    Sentences are drawn with the grammar's own sampler (no knowledge-base fact sentences)
    and kept until each split holds equal counts per label.
    """
    cfg = configure(ClassificationConfig, config, overrides)
    names = CLASSIFICATION_LABELS[cfg.label]

    def build() -> dict[str, list]:
        rng = random.Random(f"tasks:classification:{cfg.label}:{cfg.seed}")
        b = Builder(cfg.toy_config(p_negation=cfg.p_negation, p_fact=0.0), rng)
        pools: dict[int, list] = {0: [], 1: []}

        def make(label: int) -> tuple[str, ClassificationExample] | None:
            while not pools[label]:
                s = b.rand_sentence()
                if len(s) > b.cfg.max_len:
                    continue
                subj = s.meta.get("subject_index")
                if cfg.label == "negation":
                    y = int(main_clause_negated(s.words, s.heads, s.deprels, subj))
                    meta = {"licensor_elsewhere": y == 0 and any(w in LICENSORS for w in s.words)}
                else:
                    n = _subject_number(s)
                    if n is None:
                        continue
                    y = int(n == "Plur")
                    meta = {"n_attractors": len(s.meta.get("attractors", ()))}
                meta["subject_index"] = subj
                pools[y].append((s.text, meta))
            text, meta = pools[label].pop()
            return text, ClassificationExample("", text, label, None, meta)

        return fill_splits(cfg.sizes(), [0, 1], rng, make, cfg.label)

    return Task(
        "toy_classification",
        "classification",
        names,
        {**cfg.to_dict(), "task": "toy_classification"},
        build,
        f"toy English: is the main clause {'negated' if cfg.label == 'negation' else 'subject plural'}?",
    )
