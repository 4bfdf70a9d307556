"""Small labelled downstream tasks: toy classification, toy NLI, toy extractive QA, and SST-2.

The toy tasks are built with the toy-English grammar and its knowledge base
(:mod:`bertology_lib.data.toy_english`), so every word is in the mini-BERT's
vocabulary (same ``world_seed`` = the mini-BERT's ``corpus_seed`` and the same
``vocab_size``) and every label is known, not annotated. Each task is
deterministic from its frozen config and comes as train/dev/test splits with
exactly balanced labels (no example text repeats across splits).

==========================  ====================================================================
:func:`toy_classification`  one sentence -> a property of its *main* clause (see below)
:func:`toy_nli`             premise/hypothesis -> entailment / neutral / contradiction
:func:`toy_qa`              SQuAD 2.0-style extractive QA over a paragraph of facts,
                            about a third unanswerable; EM/F1 with no-answer handling
:func:`sst2_task`           GLUE SST-2 (``../shared/data`` or a download) in the same shape
==========================  ====================================================================

Classification labels (``ClassificationConfig.label``), both needing context:

* ``negation``: is the main clause negated? ("not"/"never" attached to the root
  predicate, or "no" on the main subject). A "not" in a subordinate, relative or
  coordinated clause does not count; ``meta["licensor_elsewhere"]`` marks
  affirmative sentences that still contain a licensor (the cases a bag-of-words
  rule gets wrong).
* ``subject_number``: is the main subject plural? The subject may follow a
  fronted subordinate clause or carry PP/relative-clause attractors;
  ``meta["n_attractors"]`` counts nouns of the other number between subject and verb.

World rules that the NLI and QA labels rely on (the premise or context is the
only evidence, plus these): a person lives in exactly one city and has exactly one
occupation, a city lies in exactly one country, a country has one capital, and
sizes are a strict total order. A hypothesis is *entailed* when the premise and
the rules make it true, a *contradiction* when they make it false, else *neutral*.

NLI kinds (``meta["kind"]``): ``paraphrase`` (one fact, restated/conflicting/
unrelated), ``negation`` ("X is not a baker"), ``chain`` (two premise facts: city
-> country, size transitivity) and ``conjunction`` ("X lives in C and Y is a
baker" -> "X is a baker"?). ``meta["overlap"]`` is the share of hypothesis words
found in the premise; :func:`lexical_overlap_subset` keeps the examples whose
every hypothesis word is in the premise. That subset mixes entailments with
neutral and contradiction pairs, so a model that follows the lexical-overlap
heuristic (McCoy et al. 2019, HANS) fails on its non-entailed half.

QA (``meta["qtype"]``): ``city_of_person`` ("which city does X live in"),
``person_in_city`` ("who lives in C"), ``capital`` ("which city is the capital of
K"), ``person_with_job`` ("who is a baker"), ``owner`` ("who owns three cats"),
``bigger``/``smaller`` ("which is bigger than the cat"). Answers are word spans
``[start, end)`` in the context. An unanswerable question (SQuAD 2.0) is made by
removing the answering fact; when possible a *near miss* takes its place (a fact
about the same entity or relation that does not answer it, e.g. "X lives in
<country>" for "which city does X live in"), ``meta["near_miss"]``.

Metrics follow the official SQuAD 2.0 script (answers normalised: lower case,
punctuation and articles removed; an empty prediction means "no answer") but are
reported as fractions in [0, 1], not percentages.

Used by :mod:`bertology_lib.training.finetune` and the duplication and survey §5-§7 notebooks.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import random
import re
import string
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bertology_lib.data.toy_english import (
    LICENSORS,
    N_TEMPLATES,
    NUMERALS,
    OCCUPATIONS,
    PET_ANIMALS,
    Fact,
    KnowledgeBase,
    ToyEnglishConfig,
    _Builder,
    knowledge_base,
    vocabulary,
)
from bertology_lib.errors import ParameterError

__all__ = [
    "SPLITS", "TASK_NAMES", "NLI_LABELS", "QA_TYPES", "NLI_KINDS", "CLASSIFICATION_LABELS",
    "ClassificationExample", "QAExample", "Task",
    "ClassificationConfig", "NLIConfig", "QAConfig", "SST2Config",
    "toy_classification", "toy_nli", "toy_qa", "sst2", "sst2_task", "get_task",
    "lexical_overlap_subset", "normalize_answer", "squad_exact", "squad_f1", "qa_metrics",
    "classification_metrics",
]

SPLITS: tuple[str, ...] = ("train", "dev", "test")
TASK_NAMES: tuple[str, ...] = ("toy_classification", "toy_nli", "toy_qa", "sst2")
KINDS: tuple[str, ...] = ("classification", "qa")
NLI_LABELS: tuple[str, ...] = ("entailment", "neutral", "contradiction")  # MNLI order
NLI_KINDS: tuple[str, ...] = ("paraphrase", "negation", "chain", "conjunction")
CLASSIFICATION_LABELS: dict[str, tuple[str, ...]] = {
    "negation": ("affirmative", "negated"),
    "subject_number": ("singular", "plural"),
}
QA_TYPES: tuple[str, ...] = ("city_of_person", "person_in_city", "capital", "person_with_job",
                             "owner", "bigger", "smaller")
WORLDS: tuple[str, ...] = ("kb", "random")
TASKS_VERSION = 1  # bump when generation changes (part of every cache key)


# ---------------------------------------------------------------------------------
# Examples
# ---------------------------------------------------------------------------------


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
        return "" if self.answer is None else " ".join(self.context[self.answer[0]: self.answer[1]])

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


Example = ClassificationExample | QAExample


class Task:
    """A named labelled task with train/dev/test splits, built lazily and memoised.

    ``kind`` is ``classification`` (sentence or sentence pair -> one of ``label_names``)
    or ``qa`` (extractive, ``label_names`` empty). ``key()`` is what identifies the
    data in cache keys (name, config, generator version). Build your own with
    :meth:`from_examples` (e.g. a CheckList suite or a test set).
    """

    def __init__(self, name: str, kind: str, label_names: Sequence[str], config: Mapping[str, Any],
                 build: Callable[[], Mapping[str, list]], description: str = "") -> None:
        if kind not in KINDS:
            raise ParameterError(f"kind={kind!r} is not a task kind; allowed: {', '.join(KINDS)}")
        self.name, self.kind, self.label_names = name, kind, tuple(label_names)
        self.config = dict(config)
        self.description = description
        self._build = build
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
        if split not in SPLITS:
            raise ParameterError(f"split={split!r} is not a split; allowed: {', '.join(SPLITS)}")
        return self._all()[split]

    def sizes(self) -> dict[str, int]:
        return {s: len(self.examples(s)) for s in SPLITS}

    def key(self) -> dict[str, Any]:
        return {"name": self.name, "kind": self.kind, "labels": list(self.label_names),
                "config": self.config, "version": TASKS_VERSION}

    def frame(self, split: str):
        """One row per example (text columns, label or answer, and the meta fields)."""
        import pandas as pd

        rows = []
        for ex in self.examples(split):
            if isinstance(ex, QAExample):
                row = {"id": ex.id, "question": " ".join(ex.question), "context": " ".join(ex.context),
                       "answer": ex.answer_text, "answerable": ex.answerable}
            else:
                row = {"id": ex.id, "text": ex.text, "text_pair": ex.text_pair, "label": ex.label,
                       "label_name": self.label_names[ex.label]}
            rows.append({**row, **{k: v for k, v in ex.meta.items() if not isinstance(v, (list, tuple, dict))}})
        return pd.DataFrame(rows)

    @classmethod
    def from_examples(cls, name: str, splits: Mapping[str, Sequence[Example]],
                      label_names: Sequence[str] = ()) -> "Task":
        """A task from ready examples; its key hashes their content."""
        bad = sorted(set(splits) - set(SPLITS))
        if bad:
            raise ParameterError(f"splits={bad!r} are not splits; allowed: {', '.join(SPLITS)}")
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
        payload = json.dumps({s: [e.to_dict() for e in ex] for s, ex in sorted(splits.items())},
                             sort_keys=True, default=list)
        digest = hashlib.sha256(payload.encode()).hexdigest()[:16]
        data = {s: list(ex) for s, ex in splits.items()}
        return cls(name, "qa" if qa else "classification", () if qa else label_names,
                   {"examples_sha256": digest}, lambda: data)


# ---------------------------------------------------------------------------------
# Configs
# ---------------------------------------------------------------------------------


def _int(obj: Any, name: str, lo: int, hi: int = 10**9) -> None:
    v = getattr(obj, name)
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise ParameterError(f"{name}={v!r} is out of range; allowed: an int in [{lo}, {hi}]")


def _prob(obj: Any, name: str, lo: float = 0.0, hi: float = 1.0) -> None:
    v = getattr(obj, name)
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not lo <= v <= hi:
        raise ParameterError(f"{name}={v!r} is out of range; allowed: a number in [{lo}, {hi}]")


def _choice(obj: Any, name: str, allowed: Sequence[str]) -> None:
    v = getattr(obj, name)
    if v not in allowed:
        raise ParameterError(f"{name}={v!r} is not allowed; allowed: {', '.join(allowed)}")


@dataclass(frozen=True)
class _ToyTaskConfig:
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
        _int(self, "n_train", 1, 1_000_000)
        _int(self, "n_dev", 0, 1_000_000)
        _int(self, "n_test", 0, 1_000_000)
        _int(self, "seed", 0, 2**63 - 1)
        _int(self, "world_seed", 0, 2**63 - 1)
        _int(self, "vocab_size", 500, 200_000)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def sizes(self) -> dict[str, int]:
        return {"train": self.n_train, "dev": self.n_dev, "test": self.n_test}

    def toy_config(self, **kw: Any) -> ToyEnglishConfig:
        return ToyEnglishConfig(n_sentences=1, seed=self.world_seed, vocab_size=self.vocab_size, **kw)


@dataclass(frozen=True)
class ClassificationConfig(_ToyTaskConfig):
    """``label``: ``negation`` or ``subject_number``; ``p_negation`` is the grammar's per-clause
    negation rate (raised from the corpus' 0.15 so negated and decoy clauses are common)."""

    label: str = "negation"
    p_negation: float = 0.3

    def __post_init__(self) -> None:
        super().__post_init__()
        _choice(self, "label", tuple(CLASSIFICATION_LABELS))
        _prob(self, "p_negation", 0.01, 0.9)


@dataclass(frozen=True)
class NLIConfig(_ToyTaskConfig):
    """``kinds``: which NLI constructions to draw from (uniformly); ``world``: ``kb`` (premise
    facts true in the knowledge base) or ``random`` (a freshly shuffled world per example,
    so memorised facts cannot help)."""

    kinds: tuple[str, ...] = NLI_KINDS
    world: str = "kb"

    def __post_init__(self) -> None:
        super().__post_init__()
        kinds = tuple(self.kinds) if isinstance(self.kinds, (list, tuple)) else self.kinds
        if not isinstance(kinds, tuple) or not kinds or any(k not in NLI_KINDS for k in kinds):
            raise ParameterError(f"kinds={self.kinds!r} is not allowed; allowed: a non-empty subset of "
                                 f"{', '.join(NLI_KINDS)}")
        object.__setattr__(self, "kinds", kinds)
        _choice(self, "world", WORLDS)


@dataclass(frozen=True)
class QAConfig(_ToyTaskConfig):
    """``n_facts``: sentences per context; ``p_unanswerable``: share of unanswerable questions
    (SQuAD 2.0 has about a third); ``qtypes``: question types drawn uniformly; ``world`` as in
    :class:`NLIConfig`."""

    n_facts: int = 4
    p_unanswerable: float = 1 / 3
    qtypes: tuple[str, ...] = QA_TYPES
    world: str = "kb"

    def __post_init__(self) -> None:
        super().__post_init__()
        _int(self, "n_facts", 1, 12)
        _prob(self, "p_unanswerable", 0.0, 1.0)
        q = tuple(self.qtypes) if isinstance(self.qtypes, (list, tuple)) else self.qtypes
        if not isinstance(q, tuple) or not q or any(k not in QA_TYPES for k in q):
            raise ParameterError(f"qtypes={self.qtypes!r} is not allowed; allowed: a non-empty subset of "
                                 f"{', '.join(QA_TYPES)}")
        object.__setattr__(self, "qtypes", q)
        _choice(self, "world", WORLDS)


@dataclass(frozen=True)
class SST2Config:
    """GLUE SST-2: train = ``train.tsv`` less ``n_dev`` held-out rows (our dev); test = GLUE's
    labelled dev set (872 sentences; GLUE's test labels are private). ``None`` = all rows.
    ``path``: a file or folder for :func:`bertology_lib.data.real.load_sst2` (default: the
    usual search, then a download)."""

    n_train: int | None = None
    n_dev: int = 872
    n_test: int | None = None
    seed: int = 0
    path: str | None = None

    def __post_init__(self) -> None:
        for name in ("n_train", "n_test"):
            if getattr(self, name) is not None:
                _int(self, name, 1, 10_000_000)
        _int(self, "n_dev", 0, 60_000)
        _int(self, "seed", 0, 2**63 - 1)
        if self.path is not None and not isinstance(self.path, (str, Path)):
            raise ParameterError(f"path={self.path!r} is not a path; allowed: a str path or None")
        if self.path is not None:
            object.__setattr__(self, "path", str(self.path))

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d.pop("path")  # where the public file lies does not change the data
        return d


# ---------------------------------------------------------------------------------
# Shared helpers
# ---------------------------------------------------------------------------------


def _configure(cls: type, config: Any, overrides: Mapping[str, Any]) -> Any:
    """``config`` (default ``cls()``) with ``overrides``; an unknown field name is a ParameterError."""
    if config is not None and not isinstance(config, cls):
        raise ParameterError(f"config={config!r} is not a {cls.__name__}; allowed: a {cls.__name__} or None")
    fields = {f.name for f in dataclasses.fields(cls)}
    bad = sorted(set(overrides) - fields)
    if bad:
        raise ParameterError(f"{bad[0]}={overrides[bad[0]]!r} is not a {cls.__name__} field; allowed: "
                             f"{', '.join(sorted(fields))}")
    return dataclasses.replace(config or cls(), **overrides)


def _stratified_labels(n: int, labels: Sequence[Any], rng: random.Random) -> list[Any]:
    """``n`` labels, as equal counts as possible (earlier labels get the remainder), shuffled."""
    out = [labels[i % len(labels)] for i in range(n)]
    rng.shuffle(out)
    return out


def _fill_splits(cfg: _ToyTaskConfig, labels: Sequence[Any], rng: random.Random,
                 make: Callable[[Any], tuple[str, Any] | None], prefix: str,
                 max_tries: int = 200) -> dict[str, list]:
    """Examples for every split with stratified ``labels``; ``make(label) -> (dedupe_key, example)``.

    Example texts never repeat, within or across splits (``dedupe_key``); ids are
    ``<prefix>-<split>-<i>``.
    """
    seen: set[str] = set()
    out: dict[str, list] = {}
    for split, n in cfg.sizes().items():
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
                    "allowed: fewer examples, or more facts/kinds")
        out[split] = exs
    return out


def _article(word: str) -> str:
    return "an" if word[:1] in "aeiou" else "a"


@dataclass
class _World:
    """The facts a task draws from: the knowledge base, or a shuffled copy of it."""

    people: tuple[str, ...]
    cities: tuple[str, ...]
    countries: tuple[str, ...]
    lives_in: dict[str, str]
    city_country: dict[str, str]
    capital: dict[str, str]  # country -> city
    occupation: dict[str, str]
    owns: dict[str, tuple[int, str]]
    size_order: tuple[str, ...]

    @classmethod
    def of(cls, kb: KnowledgeBase) -> "_World":
        return cls(kb.people, kb.cities, kb.countries, dict(kb.lives_in), dict(kb.city_country),
                   dict(kb.capital), dict(kb.occupation), dict(kb.owns), tuple(kb.size_order))

    def shuffled(self, rng: random.Random) -> "_World":
        """Same names, freshly drawn relations (cities spread over countries as in the KB)."""
        countries = list(self.countries)
        rng.shuffle(countries)
        cities = list(self.cities)
        rng.shuffle(cities)
        city_country = {c: countries[i % len(countries)] for i, c in enumerate(cities)}
        capital = {k: next(c for c in cities if city_country[c] == k) for k in countries}
        order = list(self.size_order)
        rng.shuffle(order)
        return _World(self.people, self.cities, self.countries,
                      {p: rng.choice(self.cities) for p in self.people}, city_country, capital,
                      {p: rng.choice(OCCUPATIONS) for p in self.people},
                      {p: (rng.randint(1, 9), rng.choice(PET_ANIMALS)) for p in self.people}, tuple(order))

    def country_of(self, person: str) -> str:
        return self.city_country[self.lives_in[person]]

    def smaller(self, a: str, b: str) -> bool:
        return self.size_order.index(a) < self.size_order.index(b)

    def facts(self) -> list[Fact]:
        """Every fact of the world, in the toy generator's relations."""
        caps = set(self.capital.values())
        f = [Fact("lives_in", p, c) for p, c in self.lives_in.items()]
        f += [Fact("lives_in_country", p, self.country_of(p)) for p in self.people]
        f += [Fact("city_in_country", c, k) for c, k in self.city_country.items() if c not in caps]
        f += [Fact("capital_of", c, k) for k, c in self.capital.items()]
        f += [Fact("occupation", p, o) for p, o in self.occupation.items()]
        f += [Fact("owns", p, a, n) for p, (n, a) in self.owns.items()]
        o = self.size_order
        f += [Fact("smaller_than", o[i], o[j]) for i in range(len(o)) for j in range(i + 1, len(o))]
        return f


class _Speaker:
    """Says facts in the toy generator's templates (and a few negated forms)."""

    def __init__(self, b: _Builder, rng: random.Random) -> None:
        self.b, self.rng = b, rng

    def template(self, fact: Fact) -> int:
        return self.rng.randrange(N_TEMPLATES[fact.relation])

    def say(self, fact: Fact, template: int | None = None) -> tuple[str, ...]:
        t = self.template(fact) if template is None else template
        return self.b.fact_sentence(fact, t).words

    def negated(self, fact: Fact) -> tuple[str, ...]:
        """A sentence saying that ``fact`` does not hold."""
        s, o = fact.subject, fact.object
        if fact.relation == "occupation":
            return (s, "is", "not", _article(o), o, ".")
        if fact.relation in ("lives_in", "lives_in_country"):
            return (s, "does", "not", "live", "in", o, ".")
        if fact.relation == "smaller_than":
            return ("the", s, "is", "not", "smaller", "than", "the", o, ".")
        raise ValueError(f"no negated form for relation {fact.relation!r}")  # pragma: no cover


def _words_key(*parts: Sequence[str]) -> str:
    return " | ".join(" ".join(p) for p in parts)


# ---------------------------------------------------------------------------------
# Toy classification
# ---------------------------------------------------------------------------------


def _main_clause_negated(words: Sequence[str], heads: Sequence[int], deprels: Sequence[str],
                         subject: int | None) -> bool:
    root = heads.index(0)
    for i, w in enumerate(words):
        if w in ("not", "never") and heads[i] - 1 == root and deprels[i] == "advmod":
            return True
        if w == "no" and subject is not None and heads[i] - 1 == subject and deprels[i] == "det":
            return True
    return False


def _subject_number(s) -> str | None:
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
    cfg = _configure(ClassificationConfig, config, overrides)
    names = CLASSIFICATION_LABELS[cfg.label]

    def build() -> dict[str, list]:
        rng = random.Random(f"tasks:classification:{cfg.label}:{cfg.seed}")
        b = _Builder(cfg.toy_config(p_negation=cfg.p_negation, p_fact=0.0), rng)
        pools: dict[int, list] = {0: [], 1: []}

        def make(label: int) -> tuple[str, ClassificationExample] | None:
            while not pools[label]:
                s = b.rand_sentence()
                if len(s) > b.cfg.max_len:
                    continue
                subj = s.meta.get("subject_index")
                if cfg.label == "negation":
                    y = int(_main_clause_negated(s.words, s.heads, s.deprels, subj))
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

        return _fill_splits(cfg, [0, 1], rng, make, cfg.label)

    return Task("toy_classification", "classification", names, {**cfg.to_dict(), "task": "toy_classification"},
                build, f"toy English: is the main clause {'negated' if cfg.label == 'negation' else 'subject plural'}?")


# ---------------------------------------------------------------------------------
# Toy NLI
# ---------------------------------------------------------------------------------

_ENT, _NEU, _CON = 0, 1, 2


class _NLIMaker:
    def __init__(self, cfg: NLIConfig, rng: random.Random) -> None:
        self.cfg, self.rng = cfg, rng
        self.b = _Builder(cfg.toy_config(), rng)
        self.kb_world = _World.of(knowledge_base(cfg.world_seed))
        self.say = _Speaker(self.b, rng)

    def world(self) -> _World:
        return self.kb_world if self.cfg.world == "kb" else self.kb_world.shuffled(self.rng)

    def other(self, pool: Sequence[str], *exclude: str) -> str:
        return self.rng.choice([x for x in pool if x not in exclude])

    # a "person fact": lives_in or occupation of X
    def person_fact(self, w: _World, person: str, relation: str) -> Fact:
        if relation == "lives_in":
            return Fact("lives_in", person, w.lives_in[person])
        return Fact("occupation", person, w.occupation[person])

    def conflicting(self, w: _World, f: Fact) -> Fact:
        """Same subject and relation, another object (false by the world rules)."""
        if f.relation == "lives_in":
            return Fact("lives_in", f.subject, self.other(w.cities, f.object))
        if f.relation == "occupation":
            return Fact("occupation", f.subject, self.other(OCCUPATIONS, f.object))
        raise ValueError(f.relation)  # pragma: no cover

    def make(self, label: int) -> tuple[str, ClassificationExample]:
        kind = self.rng.choice(self.cfg.kinds)
        w = self.world()
        premise, hyp = getattr(self, f"_{kind}")(w, label)
        p_text, h_text = " ".join(premise), " ".join(hyp)
        pw = set(premise)
        content = [x for x in hyp if x != "."]
        overlap = sum(x in pw for x in content) / len(content)
        ex = ClassificationExample("", p_text, label, h_text, {"kind": kind, "overlap": round(overlap, 4)})
        return f"{p_text} | {h_text}", ex

    def _paraphrase(self, w: _World, label: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
        rng = self.rng
        if rng.random() < 0.3:  # sizes
            a, c = rng.sample(w.size_order, 2)
            small, big = (a, c) if w.smaller(a, c) else (c, a)
            f = Fact("smaller_than", small, big)
            t = rng.randrange(4)
            premise = self.say.say(f, t)
            if label == _ENT:
                hyp = self.say.say(f, rng.choice([u for u in range(4) if u != t]))
            elif label == _CON:
                hyp = self.say.say(Fact("smaller_than", big, small), rng.randrange(4))
            else:
                third = self.other(w.size_order, small, big)
                hyp = self.say.say(Fact("smaller_than", *rng.sample((rng.choice((small, big)), third), 2)))
            return premise, hyp
        person = rng.choice(w.people)
        rel = rng.choice(("lives_in", "occupation"))
        f = self.person_fact(w, person, rel)
        t = self.say.template(f)
        premise = self.say.say(f, t)
        if label == _ENT:
            alts = [u for u in range(N_TEMPLATES[rel]) if u != t]
            hyp = self.say.say(f, rng.choice(alts))
        elif label == _CON:
            hyp = self.say.say(self.conflicting(w, f))
        else:
            other_rel = "occupation" if rel == "lives_in" else "lives_in"
            hyp = self.say.say(self.person_fact(w, person, other_rel))
        return premise, hyp

    def _negation(self, w: _World, label: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
        rng = self.rng
        if rng.random() < 0.3:
            a, c = rng.sample(w.size_order, 2)
            small, big = (a, c) if w.smaller(a, c) else (c, a)
            premise = self.say.say(Fact("smaller_than", small, big))
            if label == _ENT:
                hyp = self.say.negated(Fact("smaller_than", big, small))
            elif label == _CON:
                hyp = self.say.negated(Fact("smaller_than", small, big))
            else:
                third = self.other(w.size_order, small, big)
                hyp = self.say.negated(Fact("smaller_than", *rng.sample((rng.choice((small, big)), third), 2)))
            return premise, hyp
        person = rng.choice(w.people)
        rel = rng.choice(("lives_in", "occupation"))
        f = self.person_fact(w, person, rel)
        premise = self.say.say(f)
        if label == _CON:
            hyp = self.say.negated(f)
        elif label == _ENT:
            hyp = self.say.negated(self.conflicting(w, f))
        else:
            other_rel = "occupation" if rel == "lives_in" else "lives_in"
            g = self.person_fact(w, person, other_rel)
            hyp = self.say.negated(g if rng.random() < 0.5 else self.conflicting(w, g))
        return premise, hyp

    def _chain(self, w: _World, label: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
        rng = self.rng
        if rng.random() < 0.4:  # size transitivity
            a, m, c = sorted(rng.sample(w.size_order, 3), key=w.size_order.index)
            if label == _NEU:  # both below (or both above) the middle one: their order is open
                if rng.random() < 0.5:
                    x, y, top = a, m, c  # x < top, y < top
                    p1, p2 = Fact("smaller_than", x, top), Fact("smaller_than", y, top)
                else:
                    x, y, bottom = m, c, a  # bottom < x, bottom < y
                    p1, p2 = Fact("smaller_than", bottom, x), Fact("smaller_than", bottom, y)
                hyp = self.say.say(Fact("smaller_than", *rng.sample((x, y), 2)))
            else:
                p1, p2 = Fact("smaller_than", a, m), Fact("smaller_than", m, c)
                hyp = self.say.say(Fact("smaller_than", a, c) if label == _ENT else Fact("smaller_than", c, a))
            premise = self.say.say(p1) + self.say.say(p2)
            return premise, hyp
        person = rng.choice(w.people)
        city = w.lives_in[person]
        country = w.city_country[city]
        first = self.say.say(Fact("lives_in", person, city))
        if label == _NEU:  # a different city's country: the person's country stays open
            city2 = self.other(w.cities, city)
            country = w.city_country[city2]
            second = self._city_sentence(w, city2)
            hyp_country = country if rng.random() < 0.7 else self.other(w.countries, country)
        else:
            second = self._city_sentence(w, city)
            hyp_country = country if label == _ENT else self.other(w.countries, country)
        premise = first + second if rng.random() < 0.7 else second + first
        return premise, self.say.say(Fact("lives_in_country", person, hyp_country))

    def _city_sentence(self, w: _World, city: str) -> tuple[str, ...]:
        k = w.city_country[city]
        rel = "capital_of" if w.capital[k] == city else "city_in_country"
        return self.say.say(Fact(rel, city, k))

    def _conjunction(self, w: _World, label: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
        rng = self.rng
        x, y = rng.sample(w.people, 2)
        rel_x, rel_y = rng.choice(("lives_in", "occupation")), rng.choice(("lives_in", "occupation"))
        if label == _CON:
            rel_x = rel_y
        fx, fy = self.person_fact(w, x, rel_x), self.person_fact(w, y, rel_y)
        if label == _CON:  # y must differ from x in that relation
            ys = [z for z in w.people if z != x and self.person_fact(w, z, rel_x).object != fx.object]
            y = rng.choice(ys)
            fy = self.person_fact(w, y, rel_y)
        sx, sy = self.say.say(fx, 0), self.say.say(fy, 0)
        premise = sx[:-1] + ("and",) + sy
        if label == _ENT:
            hyp = rng.choice((sx, sy))
        elif label == _CON:  # x with y's object: all words are in the premise
            hyp = self.say.say(Fact(rel_x, x, fy.object), 0)
        else:  # x with y's fact of the other relation (or y with x's): open
            if rel_x != rel_y:
                hyp = self.say.say(Fact(rel_y, x, fy.object), 0)
            else:  # same relation: "X lives in C1 and Y lives in C2" -> neutral needs another relation
                other_rel = "occupation" if rel_x == "lives_in" else "lives_in"
                z = self.person_fact(w, y, other_rel)
                premise = sx[:-1] + ("and",) + self.say.say(z, 0)
                hyp = self.say.say(Fact(other_rel, x, z.object), 0)
        return premise, hyp


def toy_nli(config: NLIConfig | None = None, **overrides: Any) -> Task:
    """Premise/hypothesis pairs from the knowledge base and the grammar (labels: :data:`NLI_LABELS`)."""
    cfg = _configure(NLIConfig, config, overrides)

    def build() -> dict[str, list]:
        rng = random.Random(f"tasks:nli:{cfg.seed}")
        m = _NLIMaker(cfg, rng)
        return _fill_splits(cfg, [_ENT, _NEU, _CON], rng, m.make, "nli")

    return Task("toy_nli", "classification", NLI_LABELS, {**cfg.to_dict(), "task": "toy_nli"}, build,
                "toy NLI: premise -> hypothesis entailment / neutral / contradiction")


def lexical_overlap_subset(examples: Sequence[ClassificationExample], threshold: float = 1.0
                           ) -> list[ClassificationExample]:
    """NLI examples whose hypothesis words (not ".") are all (``threshold``) found in the premise.

    The McCoy et al. (2019) diagnostic: a model that predicts "entailment" whenever the
    words overlap is right on the entailed part of this subset and wrong on the rest.
    """
    return [e for e in examples if e.meta.get("overlap", 0.0) >= threshold]


# ---------------------------------------------------------------------------------
# Toy QA (SQuAD 2.0 style)
# ---------------------------------------------------------------------------------


class _QAMaker:
    def __init__(self, cfg: QAConfig, rng: random.Random) -> None:
        self.cfg, self.rng = cfg, rng
        self.b = _Builder(cfg.toy_config(), rng)
        self.kb_world = _World.of(knowledge_base(cfg.world_seed))
        self.kb_facts = self.kb_world.facts()
        self.say = _Speaker(self.b, rng)
        self.lex = self.b.lex

    def _noun_form(self, animal: str, n: int) -> str:
        noun = self.lex.noun_by_sg[animal]
        return noun.sg if n == 1 else noun.pl

    def question(self, w: _World, qtype: str) -> tuple[tuple[str, ...], Fact, str, Callable[[Fact], bool], list[Fact]]:
        """(question words, answering fact, answer slot, answers(fact) predicate, near-miss facts)."""
        rng = self.rng
        if qtype in ("city_of_person", "person_in_city"):
            p = rng.choice(w.people)
            f = Fact("lives_in", p, w.lives_in[p])
            if qtype == "city_of_person":
                q = ("which", "city", "does", p, "live", "in")
                near = [Fact("lives_in_country", p, w.country_of(p)), Fact("occupation", p, w.occupation[p]),
                        Fact("owns", p, w.owns[p][1], w.owns[p][0])]
                return q, f, "object", lambda g: g.relation == "lives_in" and g.subject == p, near
            c = f.object
            q = ("who", "lives", "in", c)
            k = w.city_country[c]
            near = [Fact("capital_of", c, k) if w.capital[k] == c else Fact("city_in_country", c, k)]
            return q, f, "subject", lambda g: g.relation == "lives_in" and g.object == c, near
        if qtype == "capital":
            k = rng.choice(w.countries)
            f = Fact("capital_of", w.capital[k], k)
            q = ("which", "city", "is", "the", "capital", "of", k)
            near = [Fact("city_in_country", c, k) for c in w.cities
                    if w.city_country[c] == k and c != w.capital[k]]
            return q, f, "subject", lambda g: g.relation == "capital_of" and g.object == k, near
        if qtype == "person_with_job":
            p = rng.choice(w.people)
            o = w.occupation[p]
            f = Fact("occupation", p, o)
            q = ("who", "is", _article(o), o) if rng.random() < 0.5 else ("who", "works", "as", _article(o), o)
            near = [Fact("occupation", x, w.occupation[x]) for x in rng.sample(w.people, 6)
                    if w.occupation[x] != o]
            return q, f, "subject", lambda g: g.relation == "occupation" and g.object == o, near
        if qtype == "owner":
            p = rng.choice(w.people)
            n, a = w.owns[p]
            f = Fact("owns", p, a, n)
            q = ("who", rng.choice(("owns", "has")), NUMERALS[n - 1], self._noun_form(a, n))
            near = [Fact("owns", x, w.owns[x][1], w.owns[x][0]) for x in w.people
                    if w.owns[x][1] == a and w.owns[x][0] != n]
            return q, f, "subject", lambda g: g.relation == "owns" and g.object == a and g.count == n, near
        # bigger / smaller: one size fact per context, so transitivity cannot add answers
        o = w.size_order
        if qtype == "bigger":
            i = rng.randrange(len(o) - 1)
            small = o[i]
            big = o[rng.randrange(i + 1, len(o))]
            f = Fact("smaller_than", small, big)
            q = ("which", "is", rng.choice(("bigger", "larger")), "than", "the", small)
            near = [Fact("smaller_than", x, small) for x in o[:i]]
            return q, f, "object", lambda g: g.relation == "smaller_than" and g.subject == small, near
        i = rng.randrange(1, len(o))
        big = o[i]
        small = o[rng.randrange(0, i)]
        f = Fact("smaller_than", small, big)
        q = ("which", "is", "smaller", "than", "the", big)
        near = [Fact("smaller_than", big, x) for x in o[i + 1:]]
        return q, f, "subject", lambda g: g.relation == "smaller_than" and g.object == big, near

    def make(self, answerable: bool) -> tuple[str, QAExample] | None:
        rng, cfg = self.rng, self.cfg
        w = self.kb_world if cfg.world == "kb" else self.kb_world.shuffled(rng)
        facts = self.kb_facts if cfg.world == "kb" else w.facts()
        qtype = rng.choice(cfg.qtypes)
        q, target, slot, answers, near = self.question(w, qtype)
        size_q = qtype in ("bigger", "smaller")
        chosen: list[Fact] = []
        near_miss = False
        if answerable:
            chosen.append(target)
        else:
            near = [g for g in near if not answers(g)]
            if near and rng.random() < 0.75:
                chosen.append(rng.choice(near))
                near_miss = True
        while len(chosen) < cfg.n_facts:
            g = rng.choice(facts)
            if (g in chosen or answers(g) or (size_q and g.relation == "smaller_than")
                    or (g.relation == "smaller_than" and any(c.relation == "smaller_than" for c in chosen))):
                continue
            chosen.append(g)
        rng.shuffle(chosen)
        context: list[str] = []
        span = None
        for g in chosen:
            words = self.say.say(g)
            if g is target and answerable:
                key = target.object if slot == "object" else target.subject
                i = words.index(key)
                start = i - 1 if target.relation == "smaller_than" else i  # keep "the"/"a"
                span = (len(context) + start, len(context) + i + 1)
            context.extend(words)
        ex = QAExample("", tuple(q), tuple(context), span,
                       {"qtype": qtype, "near_miss": near_miss})
        return _words_key(q, context), ex


def toy_qa(config: QAConfig | None = None, **overrides: Any) -> Task:
    """SQuAD 2.0-style extractive QA over short paragraphs of knowledge-base facts."""
    cfg = _configure(QAConfig, config, overrides)

    def build() -> dict[str, list]:
        rng = random.Random(f"tasks:qa:{cfg.seed}")
        m = _QAMaker(cfg, rng)
        out: dict[str, list] = {}
        seen: set[str] = set()
        for split, n in cfg.sizes().items():
            n_un = round(cfg.p_unanswerable * n)
            flags = [False] * n_un + [True] * (n - n_un)
            rng.shuffle(flags)
            exs = []
            for i, answerable in enumerate(flags):
                for _ in range(200):
                    key, ex = m.make(answerable)  # type: ignore[misc]
                    if key not in seen:
                        break
                else:  # pragma: no cover - the world has far more combinations
                    raise ParameterError(f"could not draw {n} distinct {split} QA examples; allowed: fewer")
                seen.add(key)
                exs.append(dataclasses.replace(ex, id=f"qa-{split}-{i}"))
            out[split] = exs
        return out

    return Task("toy_qa", "qa", (), {**cfg.to_dict(), "task": "toy_qa"}, build,
                "toy extractive QA with unanswerable questions (SQuAD 2.0 style)")


# ---------------------------------------------------------------------------------
# SST-2
# ---------------------------------------------------------------------------------

SST2_LABELS: tuple[str, ...] = ("negative", "positive")


@functools.lru_cache(maxsize=4)
def _sst2_file(split: str, path: str | None) -> tuple[tuple[str, ...], tuple[int, ...]]:
    from bertology_lib.data.real import load_sst2

    texts, labels = load_sst2(split, path=path)
    return tuple(texts), tuple(labels)


def _sst2_rows(split: str, seed: int, n_dev: int, path: str | None) -> list[tuple[str, int]]:
    if split == "test":
        return list(zip(*_sst2_file("dev", path)))
    texts, labels = _sst2_file("train", path)
    order = list(range(len(texts)))
    random.Random(f"tasks:sst2:{seed}").shuffle(order)
    idx = order[:n_dev] if split == "dev" else order[n_dev:]
    return [(texts[i], labels[i]) for i in idx]


def sst2(split: str = "train", limit: int | None = None, *, seed: int = 0, n_dev: int = 872,
         path: str | None = None) -> list[ClassificationExample]:
    """GLUE SST-2 examples of ``split`` (see :class:`SST2Config` for how splits are made).

    Train and dev rows come in a seeded shuffled order, so ``limit`` takes a random subset.
    """
    if split not in SPLITS:
        raise ParameterError(f"split={split!r} is not a split; allowed: {', '.join(SPLITS)}")
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise ParameterError(f"limit={limit!r} is out of range; allowed: an int >= 1 or None")
    rows = _sst2_rows(split, seed, n_dev, None if path is None else str(path))[:limit]
    return [ClassificationExample(f"sst2-{split}-{i}", t, y) for i, (t, y) in enumerate(rows)]


def sst2_task(config: SST2Config | None = None, **overrides: Any) -> Task:
    """SST-2 as a :class:`Task` (binary sentiment; labels :data:`SST2_LABELS`)."""
    cfg = _configure(SST2Config, config, overrides)

    def build() -> dict[str, list]:
        kw = dict(seed=cfg.seed, n_dev=cfg.n_dev, path=cfg.path)
        return {"train": sst2("train", cfg.n_train, **kw), "dev": sst2("dev", None, **kw),
                "test": sst2("test", cfg.n_test, **kw)}

    return Task("sst2", "classification", SST2_LABELS, {**cfg.to_dict(), "task": "sst2"}, build,
                "GLUE SST-2 sentiment (test = GLUE dev)")


def get_task(name: str, **config: Any) -> Task:
    """A task by name (:data:`TASK_NAMES`) with config overrides, e.g. ``get_task("toy_qa", n_train=500)``."""
    makers: dict[str, Callable[..., Task]] = {"toy_classification": toy_classification, "toy_nli": toy_nli,
                                              "toy_qa": toy_qa, "sst2": sst2_task}
    if name not in makers:
        raise ParameterError(f"task={name!r} is unknown; allowed: {', '.join(TASK_NAMES)}")
    return makers[name](**config)


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
    c = task.config
    return set(vocabulary(ToyEnglishConfig(n_sentences=1, seed=c["world_seed"], vocab_size=c["vocab_size"])))


# ---------------------------------------------------------------------------------
# Metrics
# ---------------------------------------------------------------------------------

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCT = set(string.punctuation)


def normalize_answer(s: str) -> str:
    """SQuAD normalisation: lower case, drop punctuation and articles, collapse whitespace."""
    s = "".join(ch for ch in s.lower() if ch not in _PUNCT)
    return " ".join(_ARTICLES.sub(" ", s).split())


def squad_exact(prediction: str, gold: str) -> float:
    """1.0 when the normalised strings are equal ("" = no answer, so "" vs "" is a match)."""
    return float(normalize_answer(prediction) == normalize_answer(gold))


def squad_f1(prediction: str, gold: str) -> float:
    """Token-overlap F1 of the normalised answers; with no answer on either side, 1.0 iff both are empty."""
    p, g = normalize_answer(prediction).split(), normalize_answer(gold).split()
    if not p or not g:
        return float(p == g)
    common = sum((Counter(p) & Counter(g)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(p), common / len(g)
    return 2 * precision * recall / (precision + recall)


def qa_metrics(predictions: Sequence[str], golds: Sequence[str]) -> dict[str, float]:
    """SQuAD 2.0 metrics over (prediction, gold) answer strings ("" = no answer), as fractions.

    ``exact``/``f1`` over all; ``has_ans_*`` over answerable, ``no_ans_*`` over unanswerable
    questions (``no_ans_exact`` = share of those correctly left unanswered), and
    ``no_answer_rate`` = share of predictions that abstain.
    """
    if len(predictions) != len(golds):
        raise ParameterError(f"{len(predictions)} predictions for {len(golds)} golds; allowed: equal lengths")
    if not golds:
        raise ParameterError("no examples to score; allowed: at least one")
    ex = [squad_exact(p, g) for p, g in zip(predictions, golds)]
    f1 = [squad_f1(p, g) for p, g in zip(predictions, golds)]
    has = [i for i, g in enumerate(golds) if normalize_answer(g)]
    no = [i for i, g in enumerate(golds) if not normalize_answer(g)]

    def mean(xs: Sequence[float], idx: Sequence[int] | None = None) -> float:
        vals = xs if idx is None else [xs[i] for i in idx]
        return sum(vals) / len(vals) if vals else float("nan")

    return {"exact": mean(ex), "f1": mean(f1), "has_ans_exact": mean(ex, has), "has_ans_f1": mean(f1, has),
            "no_ans_exact": mean(ex, no), "no_answer_rate": mean([float(not normalize_answer(p)) for p in predictions]),
            "n": float(len(golds)), "n_has_ans": float(len(has)), "n_no_ans": float(len(no))}


def classification_metrics(predicted: Sequence[int], labels: Sequence[int], n_labels: int) -> dict[str, float]:
    """Accuracy and macro-F1 (per-class F1 averaged; a class never predicted nor gold is skipped)."""
    if len(predicted) != len(labels) or not labels:
        raise ParameterError(f"{len(predicted)} predictions for {len(labels)} labels; allowed: equal, non-zero")
    acc = sum(int(p == y) for p, y in zip(predicted, labels)) / len(labels)
    f1s = []
    for c in range(n_labels):
        tp = sum(1 for p, y in zip(predicted, labels) if p == c and y == c)
        fp = sum(1 for p, y in zip(predicted, labels) if p == c and y != c)
        fn = sum(1 for p, y in zip(predicted, labels) if p != c and y == c)
        if tp + fp + fn:
            f1s.append(2 * tp / (2 * tp + fp + fn))
    return {"accuracy": acc, "macro_f1": sum(f1s) / len(f1s) if f1s else 0.0, "n": float(len(labels))}
