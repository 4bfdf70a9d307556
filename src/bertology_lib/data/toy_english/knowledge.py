"""The toy world's knowledge base: people, cities, countries, occupations, pets and sizes.

:func:`knowledge_base` (cached per seed) is independent of corpus size and vocabulary; the
corpus states its ``stated_*`` facts (:mod:`.facts` says them in templates), the
"inference" suite and the toy NLI/QA tasks use the rest.
"""

from __future__ import annotations

import functools
import random
from dataclasses import dataclass, field
from typing import Sequence

from bertology_lib.data.toy_english.words import CODAS, OCCUPATIONS, ONSETS, PET_ANIMALS, SIZE_ORDER, VOWELS
from bertology_lib.validation import check_seed


@dataclass(frozen=True)
class Fact:
    """One world fact: ``relation(subject, object)``; ``count`` for "owns"."""

    relation: str
    subject: str
    object: str
    count: int | None = None


@dataclass(frozen=True)
class KnowledgeBase:
    """The toy world: people, cities, countries and sizes (see :func:`knowledge_base`).

    ``stated_*`` parts are said in the corpus; the ``heldout_*`` parts follow from the
    stated ones (person -> city -> country, capital -> country, size transitivity) and
    are never stated: they feed the "inference" suite.
    """

    seed: int
    people: tuple[str, ...]
    cities: tuple[str, ...]
    countries: tuple[str, ...]
    lives_in: dict[str, str] = field(hash=False)
    city_country: dict[str, str] = field(hash=False)
    capital: dict[str, str] = field(hash=False)
    occupation: dict[str, str] = field(hash=False)
    owns: dict[str, tuple[int, str]] = field(hash=False)
    size_order: tuple[str, ...] = SIZE_ORDER
    stated_size_pairs: frozenset[tuple[str, str]] = frozenset()
    heldout_size_pairs: frozenset[tuple[str, str]] = frozenset()
    stated_country_people: frozenset[str] = frozenset()

    def country_of(self, person: str) -> str:
        return self.city_country[self.lives_in[person]]

    @property
    def names(self) -> tuple[str, ...]:
        return self.people + self.cities + self.countries

    def stated_facts(self) -> list[Fact]:
        """Facts the corpus states (each at least once when the corpus is large enough)."""
        f = [Fact("lives_in", p, c) for p, c in self.lives_in.items()]
        f += [Fact("lives_in_country", p, self.country_of(p)) for p in self.people if p in self.stated_country_people]
        caps = set(self.capital.values())
        f += [Fact("city_in_country", c, k) for c, k in self.city_country.items() if c not in caps]
        f += [Fact("capital_of", c, k) for k, c in self.capital.items()]
        f += [Fact("occupation", p, o) for p, o in self.occupation.items()]
        f += [Fact("owns", p, a, n) for p, (n, a) in self.owns.items()]
        f += [Fact("smaller_than", a, b) for a, b in sorted(self.stated_size_pairs)]
        return f

    def heldout_facts(self) -> list[Fact]:
        """Facts that follow from stated ones but are never stated."""
        f = [
            Fact("lives_in_country", p, self.country_of(p)) for p in self.people if p not in self.stated_country_people
        ]
        f += [Fact("city_in_country", c, k) for k, c in self.capital.items()]
        f += [Fact("smaller_than", a, b) for a, b in sorted(self.heldout_size_pairs)]
        return f


def _proper_names(rng: random.Random, n: int, endings: Sequence[str], used: set[str]) -> list[str]:
    out = []
    while len(out) < n:
        stem = rng.choice(ONSETS) + rng.choice(VOWELS)
        if rng.random() < 0.6:
            stem += rng.choice(CODAS[3:]) + rng.choice(VOWELS)
        w = (stem + rng.choice(endings)).capitalize()
        if w not in used and not any(sum(ch in "aeiou" for ch in w[k : k + 3]) == 3 for k in range(len(w) - 2)):
            used.add(w)
            out.append(w)
    return out


@functools.lru_cache(maxsize=16)
def knowledge_base(seed: int) -> KnowledgeBase:
    """The world facts for ``seed`` (independent of corpus size and vocabulary).

    60 people, 24 cities, 8 countries (one capital each), occupations, pets with
    counts, and a size order of 13 things of which adjacent and some distance-2
    pairs are stated.  Used by the corpus generator and the knowledge/inference suites.
    """
    check_seed(seed)
    rng = random.Random(f"toy-english-kb:{seed}")
    used: set[str] = set()
    people = _proper_names(rng, 60, ("a", "o", "in", "el", "an", "et", "ia", "is"), used)
    cities = _proper_names(rng, 24, ("ton", "burg", "ford", "ville", "mar", "dor", "wick"), used)
    countries = _proper_names(rng, 8, ("ia", "land", "stan", "ary", "onia"), used)
    city_country = {c: countries[i % len(countries)] for i, c in enumerate(cities)}
    capital = {k: next(c for c in cities if city_country[c] == k) for k in countries}
    lives_in = {p: rng.choice(cities) for p in people}
    occupation = {p: rng.choice(OCCUPATIONS) for p in people}
    owns = {p: (rng.choice((1, 2, 3, 4, 5, 6, 7, 8, 9)), rng.choice(PET_ANIMALS)) for p in people}
    stated_country = frozenset(rng.sample(people, len(people) // 2))
    order = SIZE_ORDER
    stated, heldout = set(), set()
    for i in range(len(order)):
        for j in range(i + 1, len(order)):
            d = j - i
            if d == 1 or (d == 2 and rng.random() < 0.5):
                stated.add((order[i], order[j]))
            else:
                heldout.add((order[i], order[j]))
    return KnowledgeBase(
        seed,
        tuple(people),
        tuple(cities),
        tuple(countries),
        lives_in,
        city_country,
        capital,
        occupation,
        owns,
        order,
        frozenset(stated),
        frozenset(heldout),
        stated_country,
    )
