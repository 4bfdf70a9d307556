"""Labelled examples, the :class:`Task` that holds their splits, and balanced split filling.

Used by every task maker in :mod:`bertology_lib.data.tasks`, by fine-tuning
(:mod:`bertology_lib.training`) and by the CheckList/HANS items (:meth:`Task.from_examples`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bertology_lib.errors import ParameterError
from bertology_lib.validation import check_choice, check_subset

SPLITS: tuple[str, ...] = ("train", "dev", "test")
KINDS: tuple[str, ...] = ("classification", "qa")
NLI_LABELS: tuple[str, ...] = ("entailment", "neutral", "contradiction")  # MNLI order
ENTAILMENT, NEUTRAL, CONTRADICTION = 0, 1, 2  # indices into NLI_LABELS
TASKS_VERSION = 1  # bump when generation changes (part of every cache key)


@dataclass(frozen=True)
class ClassificationExample:
    """A sentence (or sentence pair: ``text_pair``) with an integer label."""

    id: str
    text: str
    label: int
    text_pair: str | None = None
    meta: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclass(frozen=True)
class QAExample:
    """A question about a context; ``answer`` is a word span ``[start, end)`` or None (unanswerable)."""

    id: str
    question: tuple[str, ...]
    context: tuple[str, ...]
    answer: tuple[int, int] | None
    meta: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)

    @property
    def answerable(self) -> bool:
        return self.answer is not None

    @property
    def answer_text(self) -> str:
        """The gold answer's words joined by spaces; "" when unanswerable."""
        return "" if self.answer is None else " ".join(self.context[self.answer[0] : self.answer[1]])

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


Example = ClassificationExample | QAExample


class Task:
    """A named labelled task with train/dev/test splits, built lazily and memoised.

    ``kind`` is ``classification`` (sentence or sentence pair -> one of ``label_names``)
    or ``qa`` (extractive, ``label_names`` empty). ``key()`` is what identifies the
    data in cache keys (name, config, generator version, and ``data_key()`` for tasks read
    from files: a hash of their content). Build your own with :meth:`from_examples`
    (e.g. a CheckList suite or a test set).
    """

    def __init__(
        self,
        name: str,
        kind: str,
        label_names: Sequence[str],
        config: Mapping[str, Any],
        build: Callable[[], Mapping[str, list]],
        description: str = "",
        data_key: Callable[[], Mapping[str, Any]] | None = None,
    ) -> None:
        check_choice("kind", kind, KINDS)
        self.name, self.kind, self.label_names = name, kind, tuple(label_names)
        self.config = dict(config)
        self.description = description
        self._build = build
        self._data_key = data_key
        self._data: dict[str, Any] | None = None
        self._splits: dict[str, list] | None = None

    def __repr__(self) -> str:
        return f"Task({self.name!r}, kind={self.kind!r}, labels={self.label_names}, config={self.config})"

    @property
    def n_labels(self) -> int:
        return len(self.label_names)

    @property
    def is_pair(self) -> bool:
        """True for sentence-pair classification (NLI); QA is always a pair (question, context)."""
        if self.kind == "qa":
            return True
        ex = self.examples("train") or self.examples("test")
        return bool(ex) and ex[0].text_pair is not None

    def _all(self) -> dict[str, list]:
        if self._splits is None:
            built = self._build()
            self._splits = {s: list(built.get(s, [])) for s in SPLITS}
        return self._splits

    def examples(self, split: str) -> list:
        """The examples of ``split`` (train | dev | test)."""
        check_choice("split", split, SPLITS)
        return self._all()[split]

    def sizes(self) -> dict[str, int]:
        return {s: len(self.examples(s)) for s in SPLITS}

    def key(self) -> dict[str, Any]:
        """What identifies the data in cache keys; file-based tasks add their files' hashes."""
        key = {
            "name": self.name,
            "kind": self.kind,
            "labels": list(self.label_names),
            "config": self.config,
            "version": TASKS_VERSION,
        }
        if self._data_key is not None:
            if self._data is None:  # computed once: hashing the files reads them
                self._data = dict(self._data_key())
            key["data"] = self._data
        return key

    def frame(self, split: str):
        """One row per example (text columns, label or answer, and the meta fields)."""
        import pandas as pd

        rows = []
        for ex in self.examples(split):
            if isinstance(ex, QAExample):
                row = {
                    "id": ex.id,
                    "question": " ".join(ex.question),
                    "context": " ".join(ex.context),
                    "answer": ex.answer_text,
                    "answerable": ex.answerable,
                }
            else:
                row = {
                    "id": ex.id,
                    "text": ex.text,
                    "text_pair": ex.text_pair,
                    "label": ex.label,
                    "label_name": self.label_names[ex.label],
                }
            rows.append({**row, **{k: v for k, v in ex.meta.items() if not isinstance(v, (list, tuple, dict))}})
        return pd.DataFrame(rows)

    @classmethod
    def from_examples(
        cls, name: str, splits: Mapping[str, Sequence[Example]], label_names: Sequence[str] = ()
    ) -> "Task":
        """A task from ready examples; its key hashes their content."""
        check_subset("splits", list(splits), SPLITS)
        all_ex = [e for s in splits.values() for e in s]
        if not all_ex:
            raise ParameterError("splits hold no examples; allowed: at least one example")
        qa = all(isinstance(e, QAExample) for e in all_ex)
        if not qa and not all(isinstance(e, ClassificationExample) for e in all_ex):
            raise ParameterError("splits mix QA and classification examples; allowed: one kind")
        if not qa:
            labels = {e.label for e in all_ex}
            if not label_names or not labels <= set(range(len(label_names))):
                raise ParameterError(f"label_names={tuple(label_names)!r} do not cover labels {sorted(labels)}")
        payload = json.dumps(
            {s: [e.to_dict() for e in ex] for s, ex in sorted(splits.items())}, sort_keys=True, default=list
        )
        digest = hashlib.sha256(payload.encode()).hexdigest()[:16]
        data = {s: list(ex) for s, ex in splits.items()}
        return cls(
            name, "qa" if qa else "classification", () if qa else label_names, {"examples_sha256": digest}, lambda: data
        )


def _stratified_labels(n: int, labels: Sequence[Any], rng: random.Random) -> list[Any]:
    """``n`` labels, as equal counts as possible (earlier labels get the remainder), shuffled."""
    out = [labels[i % len(labels)] for i in range(n)]
    rng.shuffle(out)
    return out


def fill_splits(
    sizes: Mapping[str, int],
    labels: Sequence[Any],
    rng: random.Random,
    make: Callable[[Any], tuple[str, Any] | None],
    prefix: str,
    max_tries: int = 200,
) -> dict[str, list]:
    """Examples for every split (``sizes``: split -> count) with stratified ``labels``;
    ``make(label) -> (dedupe_key, example)``.

    Example texts never repeat, within or across splits (``dedupe_key``); ids are
    ``<prefix>-<split>-<i>``. Used by the toy classification and NLI tasks.
    """
    seen: set[str] = set()
    out: dict[str, list] = {}
    for split, n in sizes.items():
        exs = []
        for want in _stratified_labels(n, labels, rng):
            for _ in range(max_tries):
                made = make(want)
                if made is not None and made[0] not in seen:
                    seen.add(made[0])
                    exs.append(dataclasses.replace(made[1], id=f"{prefix}-{split}-{len(exs)}"))
                    break
            else:
                raise ParameterError(
                    f"could not draw {n} distinct {split} examples (label {want!r}) from this world; "
                    "allowed: fewer examples, or more facts/kinds"
                )
        out[split] = exs
    return out
