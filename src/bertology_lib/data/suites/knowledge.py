"""Entity and world-knowledge suites: swapped names, stated facts and inferred facts.

* ``entity_swap``: the true entity vs a same-type or cross-type swapped name.
* ``knowledge``: LAMA-style cloze of facts stated in the corpus (Petroni et al. 2019).
* ``inference``: facts the corpus never states but that follow from stated ones
  (transitive size comparisons, person -> city -> country; Forbes et al. 2019).

Registered in :func:`bertology_lib.data.suites.make_suite`. Beside them, :func:`wording_items` asks every stated
fact in every template of its relation (the same query in each wording: Petroni et al. 2019, Jiang et al.
2020), with the false object of :func:`false_object`; it is not a sampled suite, so it is not registered.
"""

from __future__ import annotations

from typing import Any

from bertology_lib.data.suites.common import cloze_item
from bertology_lib.data.toy_english import N_TEMPLATES, OCCUPATIONS, PET_ANIMALS, Builder, ClozeItem, Fact
from bertology_lib.errors import ParameterError
from bertology_lib.validation import check_subset


def entity_swap_items(b: Builder, n_items: int) -> list[ClozeItem]:
    """The ``entity_swap`` suite: the fact's entity vs a same-type or cross-type name."""
    rng, kb = b.rng, b.kb
    items = []
    i = 0
    while len(items) < n_items:
        swap = ("same_type", "cross_type")[i % 2]
        rel = ("lives_in", "capital_of", "occupation")[(i // 2) % 3]
        i += 1
        if rel == "lives_in":
            p = rng.choice(kb.people)
            fact = Fact("lives_in", p, kb.lives_in[p])
            template = rng.choice((0, 1))
            same = [q for q in kb.people if kb.lives_in[q] != kb.lives_in[p]]
            cross = list(kb.cities) + list(kb.countries)
        elif rel == "capital_of":
            k = rng.choice(kb.countries)
            p = kb.capital[k]
            fact = Fact("capital_of", p, k)
            template = 0
            same = [c for c in kb.cities if c != p]
            cross = list(kb.people) + list(kb.countries)
        else:
            p = rng.choice(kb.people)
            fact = Fact("occupation", p, kb.occupation[p])
            template = rng.choice((0, 1))
            same = [q for q in kb.people if kb.occupation[q] != kb.occupation[p]]
            cross = list(kb.cities) + list(kb.countries)
        toks, slots, s, v = b.fact_tokens(fact, template)
        wrong = rng.choice(same if swap == "same_type" else cross)
        meta = {
            "swap": swap,
            "relation": rel,
            "template": template,
            "entity": p,
            "fact": (fact.relation, fact.subject, fact.object),
        }
        items.append(cloze_item(b, "entity_swap", toks, slots["subject"], p, wrong, meta, s, v))
    return items


def _fact_item(
    b: Builder, suite: str, fact: Fact, template: int, mask: str, wrong: str, extra: dict[str, Any]
) -> ClozeItem:
    toks, slots, s, v = b.fact_tokens(fact, template)
    slot = slots[mask]
    meta = {
        "relation": fact.relation,
        "template": template,
        "subject": fact.subject,
        "answer": slot.word,
        "fact": (fact.relation, fact.subject, fact.object),
    }
    meta.update(extra)
    return cloze_item(b, suite, toks, slot, slot.word, wrong, meta, s, v)


def _size_item(b: Builder, suite: str, fact: Fact, template: int, extra: dict[str, Any]) -> ClozeItem:
    # the masked slot is the comparative adjective; the wrong answer reverses the claim
    toks, slots, s, v = b.fact_tokens(fact, template)
    word = slots["relation"].word
    wrong = {"bigger": "smaller", "larger": "smaller", "smaller": "bigger"}[word]
    meta = {
        "relation": fact.relation,
        "template": template,
        "subject": fact.subject,
        "answer": word,
        "fact": (fact.relation, fact.subject, fact.object),
    }
    meta.update(extra)
    return cloze_item(b, suite, toks, slots["relation"], word, wrong, meta, s, v)


def knowledge_items(b: Builder, n_items: int) -> list[ClozeItem]:
    """The ``knowledge`` suite: stated facts in random templates, the object (or capital) masked."""
    rng, kb = b.rng, b.kb
    facts = kb.stated_facts()
    rng.shuffle(facts)
    items = []
    i = 0
    while len(items) < n_items:
        f = facts[i % len(facts)]
        template = rng.randrange(N_TEMPLATES[f.relation])
        i += 1
        if f.relation == "smaller_than":
            items.append(_size_item(b, "knowledge", f, template, {"stated": True}))
            continue
        if f.relation == "capital_of" and template == 1:  # the capital of K is [MASK]
            wrong = rng.choice([c for c in kb.cities if c != f.subject])
            items.append(_fact_item(b, "knowledge", f, template, "subject", wrong, {"stated": True}))
            continue
        items.append(_fact_item(b, "knowledge", f, template, "object", false_object(b, f), {"stated": True}))
    return items


def false_object(b: Builder, fact: Fact) -> str:
    """A false filler for the object of ``fact``, of the object's type, drawn with ``b.rng``: another city
    (``lives_in``), another country (``lives_in_country``, ``city_in_country``, ``capital_of``), another
    occupation, or another pet animal in the number of the fact's count (``owns``). Size comparisons have no
    object filler (their items mask the comparative)."""
    rng, kb = b.rng, b.kb
    if fact.relation == "lives_in":
        return rng.choice([c for c in kb.cities if c != fact.object])
    if fact.relation in ("lives_in_country", "city_in_country", "capital_of"):
        return rng.choice([k for k in kb.countries if k != fact.object])
    if fact.relation == "occupation":
        return b.lex.noun_by_sg[rng.choice([o for o in OCCUPATIONS if o != fact.object])].sg
    if fact.relation == "owns":
        assert fact.count is not None
        n = b.lex.noun_by_sg[rng.choice([a for a in PET_ANIMALS if a != fact.object])]
        return n.sg if fact.count == 1 else n.pl
    raise ParameterError(f"relation={fact.relation!r} has no object filler; allowed: {', '.join(WORDING_RELATIONS)}")


WORDING_RELATIONS = ("lives_in", "lives_in_country", "city_in_country", "capital_of", "occupation", "owns")


def wording_items(b: Builder, relations=WORDING_RELATIONS) -> list[ClozeItem]:
    """Every stated fact of ``relations`` in every template of its relation (:data:`N_TEMPLATES`), the object
    masked, with one false object per fact (:func:`false_object`) shared by all its templates: the same query
    in each wording, so that templates can be compared fact by fact. Meta as in the ``knowledge`` suite
    (``relation``, ``template``, ``subject``, ``fact``, ``stated``). Size comparisons are not allowed: their
    templates differ in the answer (*bigger* / *smaller*), not only in the wording."""
    check_subset("relations", relations, WORDING_RELATIONS)
    items = []
    for f in b.kb.stated_facts():
        if f.relation in relations:
            wrong = false_object(b, f)
            items.extend(
                _fact_item(b, "wording", f, t, "object", wrong, {"stated": True})
                for t in range(N_TEMPLATES[f.relation])
            )
    return items


def inference_items(b: Builder, n_items: int) -> list[ClozeItem]:
    """The ``inference`` suite: held-out facts (size transitivity, person -> country, capital -> country)."""
    rng, kb = b.rng, b.kb
    specs: list[tuple[Fact, int]] = []
    for f in kb.heldout_facts():
        specs.extend((f, t) for t in range(N_TEMPLATES[f.relation]))
    rng.shuffle(specs)
    order = {w: k for k, w in enumerate(kb.size_order)}
    items = []
    i = 0
    while len(items) < n_items:
        f, template = specs[i % len(specs)]
        i += 1
        if f.relation == "smaller_than":
            dist = order[f.object] - order[f.subject]
            items.append(
                _size_item(
                    b,
                    "inference",
                    f,
                    template,
                    {"stated": False, "inference": "size_transitivity", "rank_distance": dist},
                )
            )
        elif f.relation == "lives_in_country":
            wrong = rng.choice([k for k in kb.countries if k != f.object])
            items.append(
                _fact_item(
                    b,
                    "inference",
                    f,
                    template,
                    "object",
                    wrong,
                    {"stated": False, "inference": "person_city_country", "via": kb.lives_in[f.subject]},
                )
            )
        else:  # capital city located in its country
            wrong = rng.choice([k for k in kb.countries if k != f.object])
            items.append(
                _fact_item(
                    b, "inference", f, template, "object", wrong, {"stated": False, "inference": "capital_in_country"}
                )
            )
    return items
