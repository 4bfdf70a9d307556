"""Toy extractive QA in the SQuAD 2.0 style, over short paragraphs of knowledge-base facts.

Question types (``meta["qtype"]``): ``city_of_person`` ("which city does X live in"),
``person_in_city`` ("who lives in C"), ``capital`` ("which city is the capital of K"),
``person_with_job`` ("who is a baker"), ``owner`` ("who owns three cats"),
``bigger``/``smaller`` ("which is bigger than the cat"). Answers are word spans
``[start, end)`` in the context. An unanswerable question (SQuAD 2.0) is made by removing
the answering fact; when possible a *near miss* takes its place (a fact about the same
entity or relation that does not answer it, e.g. "X lives in <country>" for "which city
does X live in"), ``meta["near_miss"]``. The world rules are those of :mod:`.nli`.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Sequence
from typing import Any

from bertology_lib.data.tasks.configs import QAConfig, configure
from bertology_lib.data.tasks.task import QAExample, Task
from bertology_lib.data.tasks.world import Speaker, World, article
from bertology_lib.data.toy_english import NUMERALS, Builder, Fact, knowledge_base
from bertology_lib.errors import ParameterError


def _words_key(*parts: Sequence[str]) -> str:
    return " | ".join(" ".join(p) for p in parts)


class _QAMaker:
    """Draws one QA example, answerable or not (``make``), of a type drawn from ``cfg.qtypes``."""

    def __init__(self, cfg: QAConfig, rng: random.Random) -> None:
        self.cfg, self.rng = cfg, rng
        self.b = Builder(cfg.toy_config(), rng)
        self.kb_world = World.of(knowledge_base(cfg.world_seed))
        self.kb_facts = self.kb_world.facts()
        self.say = Speaker(self.b, rng)
        self.lex = self.b.lex

    def _noun_form(self, animal: str, n: int) -> str:
        noun = self.lex.noun_by_sg[animal]
        return noun.sg if n == 1 else noun.pl

    def question(self, w: World, qtype: str) -> tuple[tuple[str, ...], Fact, str, Callable[[Fact], bool], list[Fact]]:
        """(question words, answering fact, answer slot, answers(fact) predicate, near-miss facts)."""
        rng = self.rng
        if qtype in ("city_of_person", "person_in_city"):
            p = rng.choice(w.people)
            f = Fact("lives_in", p, w.lives_in[p])
            if qtype == "city_of_person":
                q = ("which", "city", "does", p, "live", "in")
                near = [
                    Fact("lives_in_country", p, w.country_of(p)),
                    Fact("occupation", p, w.occupation[p]),
                    Fact("owns", p, w.owns[p][1], w.owns[p][0]),
                ]
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
            near = [Fact("city_in_country", c, k) for c in w.cities if w.city_country[c] == k and c != w.capital[k]]
            return q, f, "subject", lambda g: g.relation == "capital_of" and g.object == k, near
        if qtype == "person_with_job":
            p = rng.choice(w.people)
            o = w.occupation[p]
            f = Fact("occupation", p, o)
            q = ("who", "is", article(o), o) if rng.random() < 0.5 else ("who", "works", "as", article(o), o)
            near = [Fact("occupation", x, w.occupation[x]) for x in rng.sample(w.people, 6) if w.occupation[x] != o]
            return q, f, "subject", lambda g: g.relation == "occupation" and g.object == o, near
        if qtype == "owner":
            p = rng.choice(w.people)
            n, a = w.owns[p]
            f = Fact("owns", p, a, n)
            q = ("who", rng.choice(("owns", "has")), NUMERALS[n - 1], self._noun_form(a, n))
            near = [
                Fact("owns", x, w.owns[x][1], w.owns[x][0]) for x in w.people if w.owns[x][1] == a and w.owns[x][0] != n
            ]
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
        near = [Fact("smaller_than", big, x) for x in o[i + 1 :]]
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
            if (
                g in chosen
                or answers(g)
                or (size_q and g.relation == "smaller_than")
                or (g.relation == "smaller_than" and any(c.relation == "smaller_than" for c in chosen))
            ):
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
        ex = QAExample("", tuple(q), tuple(context), span, {"qtype": qtype, "near_miss": near_miss})
        return _words_key(q, context), ex


def toy_qa(config: QAConfig | None = None, **overrides: Any) -> Task:
    """SQuAD 2.0-style extractive QA over short paragraphs of knowledge-base facts."""
    cfg = configure(QAConfig, config, overrides)

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

    return Task(
        "toy_qa",
        "qa",
        (),
        {**cfg.to_dict(), "task": "toy_qa"},
        build,
        "toy extractive QA with unanswerable questions (SQuAD 2.0 style)",
    )
