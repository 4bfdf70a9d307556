"""The facts a toy NLI or QA task draws from (:class:`World`: the knowledge base or a
shuffled copy of it) and how they are said (:class:`Speaker`, in the toy generator's
templates).

Used by :mod:`.nli` and :mod:`.qa`.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from bertology_lib.data.toy_english import (
    N_TEMPLATES,
    OCCUPATIONS,
    PET_ANIMALS,
    Builder,
    Fact,
    KnowledgeBase,
)
from bertology_lib.errors import ParameterError


def article(word: str) -> str:
    """The indefinite article before ``word``."""
    return "an" if word[:1] in "aeiou" else "a"


@dataclass
class World:
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
    def of(cls, kb: KnowledgeBase) -> "World":
        return cls(
            kb.people,
            kb.cities,
            kb.countries,
            dict(kb.lives_in),
            dict(kb.city_country),
            dict(kb.capital),
            dict(kb.occupation),
            dict(kb.owns),
            tuple(kb.size_order),
        )

    def shuffled(self, rng: random.Random) -> "World":
        """Same names, freshly drawn relations (cities spread over countries as in the KB)."""
        countries = list(self.countries)
        rng.shuffle(countries)
        cities = list(self.cities)
        rng.shuffle(cities)
        city_country = {c: countries[i % len(countries)] for i, c in enumerate(cities)}
        capital = {k: next(c for c in cities if city_country[c] == k) for k in countries}
        order = list(self.size_order)
        rng.shuffle(order)
        return World(
            self.people,
            self.cities,
            self.countries,
            {p: rng.choice(self.cities) for p in self.people},
            city_country,
            capital,
            {p: rng.choice(OCCUPATIONS) for p in self.people},
            {p: (rng.randint(1, 9), rng.choice(PET_ANIMALS)) for p in self.people},
            tuple(order),
        )

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


class Speaker:
    """Says facts in the toy generator's templates (and a few negated forms)."""

    def __init__(self, b: Builder, rng: random.Random) -> None:
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
            return (s, "is", "not", article(o), o, ".")
        if fact.relation in ("lives_in", "lives_in_country"):
            return (s, "does", "not", "live", "in", o, ".")
        if fact.relation == "smaller_than":
            return ("the", s, "is", "not", "smaller", "than", "the", o, ".")
        raise ParameterError(
            f"relation={fact.relation!r} has no negated form; allowed: occupation, lives_in, "
            "lives_in_country, smaller_than"
        )  # pragma: no cover
