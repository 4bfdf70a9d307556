"""Toy NLI: premise/hypothesis pairs from the knowledge base and the grammar.

World rules that the labels rely on (the premise is the only evidence, plus these): a
person lives in exactly one city and has exactly one occupation, a city lies in exactly
one country, a country has one capital, and sizes are a strict total order. A hypothesis
is *entailed* when the premise and the rules make it true, a *contradiction* when they
make it false, else *neutral*.

Kinds (``meta["kind"]``): ``paraphrase`` (one fact, restated/conflicting/unrelated),
``negation`` ("X is not a baker"), ``chain`` (two premise facts: city -> country, size
transitivity) and ``conjunction`` ("X lives in C and Y is a baker" -> "X is a baker"?).
``meta["overlap"]`` is the share of hypothesis words found in the premise;
:func:`lexical_overlap_subset` keeps the examples whose every hypothesis word is in the
premise. That subset mixes entailments with neutral and contradiction pairs, so a model
that follows the lexical-overlap heuristic (McCoy et al. 2019, HANS) fails on its
non-entailed half.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from bertology_lib.data.tasks.configs import NLIConfig, configure
from bertology_lib.data.tasks.task import (
    CONTRADICTION,
    ENTAILMENT,
    NEUTRAL,
    NLI_LABELS,
    ClassificationExample,
    Task,
    fill_splits,
)
from bertology_lib.data.tasks.world import Speaker, World
from bertology_lib.data.toy_english import N_TEMPLATES, OCCUPATIONS, Builder, Fact, knowledge_base
from bertology_lib.errors import ParameterError


class _NLIMaker:
    """Draws one NLI pair of a requested label (``make``), of a kind drawn from ``cfg.kinds``."""

    def __init__(self, cfg: NLIConfig, rng: random.Random) -> None:
        self.cfg, self.rng = cfg, rng
        self.b = Builder(cfg.toy_config(), rng)
        self.kb_world = World.of(knowledge_base(cfg.world_seed))
        self.say = Speaker(self.b, rng)

    def world(self) -> World:
        return self.kb_world if self.cfg.world == "kb" else self.kb_world.shuffled(self.rng)

    def other(self, pool: Sequence[str], *exclude: str) -> str:
        return self.rng.choice([x for x in pool if x not in exclude])

    # a "person fact": lives_in or occupation of X
    def person_fact(self, w: World, person: str, relation: str) -> Fact:
        if relation == "lives_in":
            return Fact("lives_in", person, w.lives_in[person])
        return Fact("occupation", person, w.occupation[person])

    def conflicting(self, w: World, f: Fact) -> Fact:
        """Same subject and relation, another object (false by the world rules)."""
        if f.relation == "lives_in":
            return Fact("lives_in", f.subject, self.other(w.cities, f.object))
        if f.relation == "occupation":
            return Fact("occupation", f.subject, self.other(OCCUPATIONS, f.object))
        raise ParameterError(  # pragma: no cover
            f"relation={f.relation!r} has no conflicting fact; allowed: lives_in, occupation"
        )

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

    def _paraphrase(self, w: World, label: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
        rng = self.rng
        if rng.random() < 0.3:  # sizes
            a, c = rng.sample(w.size_order, 2)
            small, big = (a, c) if w.smaller(a, c) else (c, a)
            f = Fact("smaller_than", small, big)
            t = rng.randrange(4)
            premise = self.say.say(f, t)
            if label == ENTAILMENT:
                hyp = self.say.say(f, rng.choice([u for u in range(4) if u != t]))
            elif label == CONTRADICTION:
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
        if label == ENTAILMENT:
            alts = [u for u in range(N_TEMPLATES[rel]) if u != t]
            hyp = self.say.say(f, rng.choice(alts))
        elif label == CONTRADICTION:
            hyp = self.say.say(self.conflicting(w, f))
        else:
            other_rel = "occupation" if rel == "lives_in" else "lives_in"
            hyp = self.say.say(self.person_fact(w, person, other_rel))
        return premise, hyp

    def _negation(self, w: World, label: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
        rng = self.rng
        if rng.random() < 0.3:
            a, c = rng.sample(w.size_order, 2)
            small, big = (a, c) if w.smaller(a, c) else (c, a)
            premise = self.say.say(Fact("smaller_than", small, big))
            if label == ENTAILMENT:
                hyp = self.say.negated(Fact("smaller_than", big, small))
            elif label == CONTRADICTION:
                hyp = self.say.negated(Fact("smaller_than", small, big))
            else:
                third = self.other(w.size_order, small, big)
                hyp = self.say.negated(Fact("smaller_than", *rng.sample((rng.choice((small, big)), third), 2)))
            return premise, hyp
        person = rng.choice(w.people)
        rel = rng.choice(("lives_in", "occupation"))
        f = self.person_fact(w, person, rel)
        premise = self.say.say(f)
        if label == CONTRADICTION:
            hyp = self.say.negated(f)
        elif label == ENTAILMENT:
            hyp = self.say.negated(self.conflicting(w, f))
        else:
            other_rel = "occupation" if rel == "lives_in" else "lives_in"
            g = self.person_fact(w, person, other_rel)
            hyp = self.say.negated(g if rng.random() < 0.5 else self.conflicting(w, g))
        return premise, hyp

    def _chain(self, w: World, label: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
        rng = self.rng
        if rng.random() < 0.4:  # size transitivity
            a, m, c = sorted(rng.sample(w.size_order, 3), key=w.size_order.index)
            if label == NEUTRAL:  # both below (or both above) the middle one: their order is open
                if rng.random() < 0.5:
                    x, y, top = a, m, c  # x < top, y < top
                    p1, p2 = Fact("smaller_than", x, top), Fact("smaller_than", y, top)
                else:
                    x, y, bottom = m, c, a  # bottom < x, bottom < y
                    p1, p2 = Fact("smaller_than", bottom, x), Fact("smaller_than", bottom, y)
                hyp = self.say.say(Fact("smaller_than", *rng.sample((x, y), 2)))
            else:
                p1, p2 = Fact("smaller_than", a, m), Fact("smaller_than", m, c)
                hyp = self.say.say(Fact("smaller_than", a, c) if label == ENTAILMENT else Fact("smaller_than", c, a))
            premise = self.say.say(p1) + self.say.say(p2)
            return premise, hyp
        person = rng.choice(w.people)
        city = w.lives_in[person]
        country = w.city_country[city]
        first = self.say.say(Fact("lives_in", person, city))
        if label == NEUTRAL:  # a different city's country: the person's country stays open
            city2 = self.other(w.cities, city)
            country = w.city_country[city2]
            second = self._city_sentence(w, city2)
            hyp_country = country if rng.random() < 0.7 else self.other(w.countries, country)
        else:
            second = self._city_sentence(w, city)
            hyp_country = country if label == ENTAILMENT else self.other(w.countries, country)
        premise = first + second if rng.random() < 0.7 else second + first
        return premise, self.say.say(Fact("lives_in_country", person, hyp_country))

    def _city_sentence(self, w: World, city: str) -> tuple[str, ...]:
        k = w.city_country[city]
        rel = "capital_of" if w.capital[k] == city else "city_in_country"
        return self.say.say(Fact(rel, city, k))

    def _conjunction(self, w: World, label: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
        rng = self.rng
        x, y = rng.sample(w.people, 2)
        rel_x, rel_y = rng.choice(("lives_in", "occupation")), rng.choice(("lives_in", "occupation"))
        if label == CONTRADICTION:
            rel_x = rel_y
        fx, fy = self.person_fact(w, x, rel_x), self.person_fact(w, y, rel_y)
        if label == CONTRADICTION:  # y must differ from x in that relation
            ys = [z for z in w.people if z != x and self.person_fact(w, z, rel_x).object != fx.object]
            y = rng.choice(ys)
            fy = self.person_fact(w, y, rel_y)
        sx, sy = self.say.say(fx, 0), self.say.say(fy, 0)
        premise = sx[:-1] + ("and",) + sy
        if label == ENTAILMENT:
            hyp = rng.choice((sx, sy))
        elif label == CONTRADICTION:  # x with y's object: all words are in the premise
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
    cfg = configure(NLIConfig, config, overrides)

    def build() -> dict[str, list]:
        rng = random.Random(f"tasks:nli:{cfg.seed}")
        m = _NLIMaker(cfg, rng)
        return fill_splits(cfg.sizes(), [ENTAILMENT, NEUTRAL, CONTRADICTION], rng, m.make, "nli")

    return Task(
        "toy_nli",
        "classification",
        NLI_LABELS,
        {**cfg.to_dict(), "task": "toy_nli"},
        build,
        "toy NLI: premise -> hypothesis entailment / neutral / contradiction",
    )


def lexical_overlap_subset(
    examples: Sequence[ClassificationExample], threshold: float = 1.0
) -> list[ClassificationExample]:
    """NLI examples whose hypothesis words (not ".") are all (``threshold``) found in the premise.

    The McCoy et al. (2019) diagnostic: a model that predicts "entailment" whenever the
    words overlap is right on the entailed part of this subset and wrong on the rest.
    """
    return [e for e in examples if e.meta.get("overlap", 0.0) >= threshold]
