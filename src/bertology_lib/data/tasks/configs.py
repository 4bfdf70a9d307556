"""Frozen configs of the tasks (their ``to_dict()`` goes into every cache key) and
:func:`configure`, which applies keyword overrides to one.

Used by the task makers of :mod:`bertology_lib.data.tasks` and by the notebooks' parameter cells.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bertology_lib.data.tasks.task import Task
from bertology_lib.data.toy_english import ToyEnglishConfig
from bertology_lib.errors import ParameterError
from bertology_lib.validation import check_choice, check_float, check_int, check_seed, check_subset

NLI_KINDS: tuple[str, ...] = ("paraphrase", "negation", "chain", "conjunction")
CLASSIFICATION_LABELS: dict[str, tuple[str, ...]] = {
    "negation": ("affirmative", "negated"),
    "subject_number": ("singular", "plural"),
}
QA_TYPES: tuple[str, ...] = (
    "city_of_person",
    "person_in_city",
    "capital",
    "person_with_job",
    "owner",
    "bigger",
    "smaller",
)
WORLDS: tuple[str, ...] = ("kb", "random")


def _subset_tuple(name: str, value: Any, allowed: tuple[str, ...]) -> tuple[str, ...]:
    """A non-empty subset of ``allowed`` as a tuple (the stored, cache-key form)."""
    if not isinstance(value, (list, tuple, str)):  # check_subset would iterate anything else
        raise ParameterError(
            f"{name}={value!r} is not a list; allowed: a non-empty subset of {', '.join(repr(a) for a in allowed)}"
        )
    return tuple(check_subset(name, value, allowed))


@dataclass(frozen=True)
class ToyTaskConfig:
    """Fields shared by the toy tasks. ``seed`` draws the examples; ``world_seed`` and
    ``vocab_size`` fix the lexicon and knowledge base (use the mini-BERT's
    ``corpus_seed`` and ``vocab_size`` so every word is in its vocabulary)."""

    n_train: int = 2000
    n_dev: int = 500
    n_test: int = 500
    seed: int = 0
    world_seed: int = 0
    vocab_size: int = 3000

    def __post_init__(self) -> None:
        check_int("n_train", self.n_train, 1, 1_000_000)
        check_int("n_dev", self.n_dev, 0, 1_000_000)
        check_int("n_test", self.n_test, 0, 1_000_000)
        check_seed(self.seed)
        check_seed(self.world_seed, "world_seed")
        check_int("vocab_size", self.vocab_size, 500, 200_000)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def sizes(self) -> dict[str, int]:
        return {"train": self.n_train, "dev": self.n_dev, "test": self.n_test}

    def toy_config(self, **kw: Any) -> ToyEnglishConfig:
        return ToyEnglishConfig(n_sentences=1, seed=self.world_seed, vocab_size=self.vocab_size, **kw)


@dataclass(frozen=True)
class ClassificationConfig(ToyTaskConfig):
    """``label``: ``negation`` or ``subject_number``; ``p_negation`` is the grammar's per-clause
    negation rate (raised from the corpus' 0.15 so negated and decoy clauses are common)."""

    label: str = "negation"
    p_negation: float = 0.3

    def __post_init__(self) -> None:
        super().__post_init__()
        check_choice("label", self.label, tuple(CLASSIFICATION_LABELS))
        check_float("p_negation", self.p_negation, 0.01, 0.9)


@dataclass(frozen=True)
class NLIConfig(ToyTaskConfig):
    """``kinds``: which NLI constructions to draw from (uniformly); ``world``: ``kb`` (premise
    facts true in the knowledge base) or ``random`` (a freshly shuffled world per example,
    so memorised facts cannot help)."""

    kinds: tuple[str, ...] = NLI_KINDS
    world: str = "kb"

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "kinds", _subset_tuple("kinds", self.kinds, NLI_KINDS))
        check_choice("world", self.world, WORLDS)


@dataclass(frozen=True)
class QAConfig(ToyTaskConfig):
    """``n_facts``: sentences per context; ``p_unanswerable``: share of unanswerable questions
    (SQuAD 2.0 has about a third); ``qtypes``: question types drawn uniformly; ``world`` as in
    :class:`NLIConfig`."""

    n_facts: int = 4
    p_unanswerable: float = 1 / 3
    qtypes: tuple[str, ...] = QA_TYPES
    world: str = "kb"

    def __post_init__(self) -> None:
        super().__post_init__()
        check_int("n_facts", self.n_facts, 1, 12)
        check_float("p_unanswerable", self.p_unanswerable, 0.0, 1.0)
        object.__setattr__(self, "qtypes", _subset_tuple("qtypes", self.qtypes, QA_TYPES))
        check_choice("world", self.world, WORLDS)


@dataclass(frozen=True)
class SST2Config:
    """GLUE SST-2: train = ``train.tsv`` less ``n_dev`` held-out rows (our dev); test = GLUE's
    labelled dev set (872 sentences; GLUE's test labels are private). ``None`` = all rows.
    ``path``: a folder holding ``train.tsv`` and ``dev.tsv`` (or ``sst2/...``) for
    :func:`bertology_lib.data.real.load_sst2` (default: the usual search, then a download).
    A single file is refused: the task needs both files, and training and testing on one
    file would leak the test set."""

    n_train: int | None = None
    n_dev: int = 872
    n_test: int | None = None
    seed: int = 0
    path: str | None = None

    def __post_init__(self) -> None:
        for name in ("n_train", "n_test"):
            if getattr(self, name) is not None:
                check_int(name, getattr(self, name), 1, 10_000_000)
        check_int("n_dev", self.n_dev, 0, 60_000)
        check_seed(self.seed)
        if self.path is not None and not isinstance(self.path, (str, Path)):
            raise ParameterError(f"path={self.path!r} is not a path; allowed: a folder path (str) or None")
        if self.path is not None:
            if Path(self.path).expanduser().is_file():
                raise ParameterError(
                    f"path={str(self.path)!r} is a single file; allowed: a folder holding "
                    "train.tsv and dev.tsv (the task trains on one and tests on the other)"
                )
            object.__setattr__(self, "path", str(self.path))

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d.pop("path")  # the task's key carries the files' hashes instead (Task.key()["data"])
        return d


def configure(cls: type, config: Any, overrides: Mapping[str, Any]) -> Any:
    """``config`` (default ``cls()``) with ``overrides``; an unknown field name is a ParameterError."""
    if config is not None and not isinstance(config, cls):
        raise ParameterError(f"config={config!r} is not a {cls.__name__}; allowed: a {cls.__name__} or None")
    fields = {f.name for f in dataclasses.fields(cls)}
    bad = sorted(set(overrides) - fields)
    if bad:
        raise ParameterError(
            f"{bad[0]}={overrides[bad[0]]!r} is not a {cls.__name__} field; allowed: {', '.join(sorted(fields))}"
        )
    return dataclasses.replace(config or cls(), **overrides)


def toy_world(task_or_config: Any) -> ToyEnglishConfig:
    """The toy-English world (lexicon and knowledge base) of a toy task: its ``world_seed`` and
    ``vocab_size``; a :class:`ToyEnglishConfig` is returned as it is.

    Used by :func:`bertology_lib.data.tasks.toy_vocabulary` and the CheckList/HANS items, so
    their words are in the task model's vocabulary.
    """
    if isinstance(task_or_config, ToyEnglishConfig):
        return task_or_config
    if isinstance(task_or_config, Task) and "world_seed" in task_or_config.config:
        c = task_or_config.config
        return ToyEnglishConfig(n_sentences=1, seed=c["world_seed"], vocab_size=c["vocab_size"])
    raise ParameterError(
        f"world={task_or_config!r} is not usable; allowed: a toy task (its world_seed and "
        "vocab_size) or a ToyEnglishConfig"
    )
