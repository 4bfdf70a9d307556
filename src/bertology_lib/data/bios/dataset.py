"""bioS data structures: :class:`Person`, :class:`BioEntry` (one biography with its spans),
:class:`QAPair` and :class:`BioDataset` (people, shuffled biographies and the QA people split).

Built by :func:`bertology_lib.data.bios.generate.generate_dataset`; read by the physics
experiments (training texts, QA pairs, probe labels).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from bertology_lib.data.bios.config import BioConfig
from bertology_lib.data.bios.pools import ATTRIBUTES, MONTHS
from bertology_lib.data.bios.templates import QA_TEMPLATES
from bertology_lib.validation import check_choice, check_fraction

# Sub-seed streams: np.random.default_rng([seed, stream]). People never depend on augmentation.
STREAM_PEOPLE, STREAM_TEMPLATES, STREAM_QA, STREAM_SHUFFLE, STREAM_PERMUTE, STREAM_VAL = range(6)
PEOPLE_SPLITS: tuple[str, ...] = ("train", "test", "all", "fit", "val")


@dataclass(frozen=True, slots=True)
class Person:
    """One synthetic individual with the six bioS attributes (+ gender for pronouns)."""

    first: str
    middle: str
    last: str
    gender: str  # "male" | "female"
    birth_year: int
    birth_month: int  # 1..12
    birth_day: int  # 1..28
    birth_city: str
    university: str
    major: str
    company_name: str
    company_city: str

    @property
    def full_name(self) -> str:
        return f"{self.first} {self.middle} {self.last}"

    @property
    def birth_date(self) -> str:
        return f"{MONTHS[self.birth_month - 1]} {self.birth_day}, {self.birth_year}"

    def value(self, attribute: str) -> str:
        """Answer string for an attribute (as written in bios and QA)."""
        if attribute not in ATTRIBUTES:  # hot path (called per person): the helper only builds the error
            check_choice("attribute", attribute, ATTRIBUTES)
        return getattr(self, attribute)


Span = tuple[str, int, int]  # (attribute | "name", word_start, word_end) into words(text), end exclusive


@dataclass(frozen=True, slots=True)
class BioEntry:
    """One biography. spans/sentence_starts are in text order and index into ``words(text)``."""

    person: int  # index into BioDataset.people
    copy: int  # 0 .. multi*max(permute,1)-1 for this person
    text: str
    spans: tuple[Span, ...]
    sentence_starts: tuple[tuple[str, int], ...]  # (attribute, first word index of its sentence)

    def span(self, label: str) -> tuple[int, int]:
        """First (start, end) word span for an attribute or "name"."""
        for lab, s, e in self.spans:
            if lab == label:
                return s, e
        raise KeyError(label)


@dataclass(frozen=True, slots=True)
class QAPair:
    person: int
    attribute: str
    question: str  # ends with "Answer:"
    answer: str  # bare value, e.g. "October 2, 1996"

    @property
    def text(self) -> str:
        """Training text: 'What is ...? Answer: October 2, 1996.'"""
        return f"{self.question} {self.answer}."


@dataclass(frozen=True, eq=False)
class BioDataset:
    """People, their (globally shuffled) biographies and the QA people split. Built by :func:`generate_dataset`."""

    config: BioConfig
    people: tuple[Person, ...]
    bios: tuple[BioEntry, ...]
    qa_train: tuple[int, ...]  # person indices, sorted
    qa_test: tuple[int, ...]
    groups: Mapping[str, tuple[int, ...]] = field(default_factory=dict)  # celebrity: majority / minority

    def qa(self, person: int | Person, attribute: str) -> tuple[str, str]:
        """(question, answer) for one person and attribute."""
        p = self.people[person] if isinstance(person, (int, np.integer)) else person
        if attribute not in QA_TEMPLATES:  # hot path (called per QA pair)
            check_choice("attribute", attribute, tuple(QA_TEMPLATES))
        return QA_TEMPLATES[attribute].format(name=p.full_name), p.value(attribute)

    def split_validation(self, fraction: float = 0.1) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """Carve (fit, val) out of QA-train people only (never QA-test); deterministic from the seed."""
        check_fraction("fraction", fraction)
        rng = np.random.default_rng([self.config.seed, STREAM_VAL])
        train = np.asarray(self.qa_train, dtype=np.int64)
        n_val = int(round(fraction * len(train)))
        val_mask = np.zeros(len(train), dtype=bool)
        val_mask[rng.permutation(len(train))[:n_val]] = True
        return tuple(train[~val_mask].tolist()), tuple(train[val_mask].tolist())

    def split_people(self, split: str, val_fraction: float = 0.1) -> tuple[int, ...]:
        """Person indices of 'train' | 'test' | 'all' | 'fit' (train minus val) | 'val'."""
        check_choice("split", split, PEOPLE_SPLITS)
        if split == "train":
            return self.qa_train
        if split == "test":
            return self.qa_test
        if split == "all":
            return tuple(range(len(self.people)))
        return self.split_validation(val_fraction)[split == "val"]  # fit | val

    def qa_pairs(
        self, split: str = "train", val_fraction: float = 0.1, attributes: Sequence[str] = ATTRIBUTES
    ) -> list[QAPair]:
        """All QA pairs (person-major, attribute-minor) for a split (see :meth:`split_people`)."""
        out = []
        for i in self.split_people(split, val_fraction):
            for a in attributes:
                q, ans = self.qa(i, a)
                out.append(QAPair(i, a, q, ans))
        return out

    def texts(self) -> list[str]:
        """Biography texts in (shuffled) training order."""
        return [b.text for b in self.bios]

    def bios_of(self, person: int) -> list[BioEntry]:
        """All entries of one person, ordered by copy index (linear scan; for inspection/tests)."""
        return sorted((b for b in self.bios if b.person == person), key=lambda b: b.copy)
