"""Evaluation suites on toy English: masked minimal pairs with gold answers.

Each :class:`~bertology_lib.data.toy_english.ClozeItem` is a sentence with one masked
position and two candidates (correct, incorrect) plus metadata, built with the same
grammar primitives as the corpus (so every item also carries an annotated sentence).

Suites (:data:`~bertology_lib.data.toy_english.SUITES`):

* ``agreement``: subject-verb agreement across 0-3 attractors, all intervening nouns of
  the opposite number, attractors in PPs and/or (centre-embedded) relative clauses
  (Linzen et al. 2016; Goldberg 2019).  Meta: ``n_attractors``, ``attractor_type``.
* ``npi``: NPI licensing (Warstadt et al. 2019): any/ever/yet vs some/already in
  licensed, unlicensed and scope-distractor contexts.  Meta: ``licensed``, ``condition``.
* ``role_reversal``: converse verb pairs with swapped arguments (Ettinger 2020).
* ``selectional``: preferred vs dispreferred objects on a gradient (Ettinger 2020).
* ``numbers``: numeral-noun and numeral-verb agreement, counts stated in the corpus.
* ``entity_swap``: the true entity vs a same-type or cross-type swapped name.
* ``knowledge``: LAMA-style cloze of facts stated in the corpus (Petroni et al. 2019).
* ``inference``: facts the corpus never states but that follow from stated ones
  (transitive size comparisons, person -> city -> country; Forbes et al. 2019).

Used by the survey_03_* notebooks.
"""

from __future__ import annotations

import random
from typing import Any, Callable

from bertology_lib.errors import ParameterError
from bertology_lib.data.toy_english import (
    CLASSES,
    MASK,
    N_TEMPLATES,
    NPIS,
    NUMERALS,
    OCCUPATIONS,
    PET_ANIMALS,
    SUITES,
    ClozeItem,
    Fact,
    Noun,
    ToyEnglishConfig,
    Verb,
    _attractors,
    _Builder,
    _force_det,
    _Phrase,
    _Tok,
)

__all__ = ["make_suite", "AGREEMENT_STRUCTURES"]

_OTHER = {"Sing": "Plur", "Plur": "Sing"}

# Modifier sequences on the subject, by number of attractors.  "pp" adds a PP with one
# noun, "rc_subj" a subject-gap relative clause with one object noun, "rc_obj" an
# object-gap relative clause with one subject noun; each modifier attaches to the
# previously introduced noun, so "rc_obj rc_obj" is centre embedding.
AGREEMENT_STRUCTURES: dict[int, tuple[tuple[str, ...], ...]] = {
    0: ((),),
    1: (("pp",), ("rc_subj",), ("rc_obj",)),
    2: (("pp", "pp"), ("rc_subj", "pp"), ("rc_obj", "pp"), ("pp", "rc_subj"), ("rc_obj", "rc_obj")),
    3: (("pp", "pp", "pp"), ("rc_subj", "pp", "pp"), ("rc_obj", "pp", "pp"), ("pp", "rc_subj", "pp"),
        ("rc_obj", "rc_obj", "pp")),
}


def make_suite(name: str, config: ToyEnglishConfig, n_items: int = 240) -> list[ClozeItem]:
    """``n_items`` items of suite ``name``, deterministic from ``config.seed``."""
    if name not in SUITES:
        raise ParameterError(f"suite name={name!r} is unknown: expected one of {list(SUITES)}")
    if not isinstance(config, ToyEnglishConfig):
        raise ParameterError(f"config={config!r} is invalid: expected a ToyEnglishConfig")
    if isinstance(n_items, bool) or not isinstance(n_items, int) or n_items < 1:
        raise ParameterError(f"n_items={n_items!r} is invalid: expected an int >= 1")
    rng = random.Random(f"toy-english-suite:{name}:{config.seed}")
    b = _Builder(config, rng)
    return _SUITE_BUILDERS[name](b, n_items)


# ---------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------


def _item(b: _Builder, suite: str, toks: list[_Tok], slot: _Tok, correct: str, incorrect: str,
          meta: dict[str, Any], subj: _Tok | None = None, verb: _Tok | None = None) -> ClozeItem:
    if correct == incorrect:  # pragma: no cover - guarded by the builders
        raise AssertionError(f"identical candidates {correct!r}")
    slot.word = correct
    i = next(k for k, t in enumerate(toks) if t is slot)
    sent = b.finalize(toks, {"kind": "suite", "suite": suite}, subj, verb)
    words = list(sent.words)
    words[i] = MASK
    return ClozeItem(suite, tuple(words), i, correct, incorrect, meta, sent)


def _count_noun(b: _Builder, cls: str | None = None, *,
                exclude: frozenset[str] = frozenset()) -> Noun:
    """A noun with distinct singular and plural forms (number visible on the noun)."""
    for _ in range(200):
        n = b.lex.noun(b.rng, cls)
        if not n.invariant and n.sg not in exclude:
            return n
    return next(n for n in b.lex.nouns if not n.invariant and n.sg not in exclude)


def _agent_verb(b: _Builder, cls: str, transitive: bool = True) -> Verb:
    return b.lex.verb_for(b.rng, "agent", cls, transitive)


# ---------------------------------------------------------------------------------
# agreement
# ---------------------------------------------------------------------------------


def _modified_np(b: _Builder, noun: Noun, number: str, mods: tuple[str, ...], att_num: str) -> _Phrase:
    """NP of ``noun`` with modifier chain ``mods``; every added noun has ``att_num``."""
    rng = b.rng
    np = b.np(noun, number, "the")
    if not mods:
        return np
    first, rest = mods[0], mods[1:]
    if first == "pp":
        inner = _modified_np(b, _count_noun(b), att_num, rest, att_num)
        b.add_pp(np, rng.choice(("of", "near", "behind", "with", "beside")), inner)
    elif first == "rc_subj":
        v = _agent_verb(b, noun.cls) if CLASSES[noun.cls][0] else b.lex.verb(rng, True)
        obj = _modified_np(b, _count_noun(b, b.lex.arg_class(rng, v, "patient")), att_num, rest, att_num)
        b.add_relative(np, lambda rel: b.clause(None, "trans", verb=v, obj=obj, tense="pres",
                                                gap="subj", rel=rel, controller=np, kind="rel"))
    elif first == "rc_obj":
        v = b.lex.verb_for(rng, "patient", noun.cls, True)
        subj = _modified_np(b, _count_noun(b, b.lex.arg_class(rng, v, "agent")), att_num, rest, att_num)
        b.add_relative(np, lambda rel: b.clause(subj, "trans", verb=v, tense="pres", gap="obj",
                                                rel=rel, kind="rel"))
    else:  # pragma: no cover
        raise ValueError(first)
    return np


def _agreement(b: _Builder, n_items: int) -> list[ClozeItem]:
    rng, lex = b.rng, b.lex
    items = []
    i = 0
    while len(items) < n_items:
        n_att = i % 4
        mods = AGREEMENT_STRUCTURES[n_att][(i // 4) % len(AGREEMENT_STRUCTURES[n_att])]
        i += 1
        number = "Sing" if rng.random() < 0.5 else "Plur"
        cls = rng.choice(("person", "student", "worker", "pet", "patron", "teacher", "farm", "wild"))
        noun = _count_noun(b, cls)
        subj = _modified_np(b, noun, number, mods, _OTHER[number])
        form = rng.choice(("lexical", "lexical", "be", "have"))
        if form == "be":
            cl = b.clause(subj, "cop_adj", adj=lex.adjective(rng), tense="pres")
        else:
            v = _agent_verb(b, cls)
            obj = b.np(_count_noun(b, lex.arg_class(rng, v, "patient")), b.rand_number(), "the")
            cl = b.clause(subj, "trans", verb=v, obj=obj, tense="perf" if form == "have" else "pres")
        ctrl, verb_tok, num, _ = b.agreement[-1]
        assert ctrl is subj.head and num == number
        toks = b.sentence(cl)
        correct = verb_tok.word
        if form == "lexical":
            incorrect = v.base if number == "Sing" else v.s3
        else:
            incorrect = {"is": "are", "are": "is", "has": "have", "have": "has"}[correct]
        if incorrect == correct:
            b.reset()
            continue
        meta = {"n_attractors": n_att, "attractor_type": "+".join(mods) or "none",
                "attractor_kind": _kind(mods), "number": number, "verb_form": form}
        it = _item(b, "agreement", toks, verb_tok, correct, incorrect, meta, subj.head, verb_tok)
        assert it.sentence is not None
        s, v_i = it.sentence.meta["subject_index"], it.sentence.meta["verb_index"]
        att, _ = _attractors(it.sentence, s, v_i)
        assert len(att) == n_att, (it.text, att)
        meta.update(subject_index=s, verb_index=v_i, attractor_indices=att, distance=v_i - s)
        items.append(it)
    return items


def _kind(mods: tuple[str, ...]) -> str:
    if not mods:
        return "none"
    kinds = {"pp" if m == "pp" else "rc" for m in mods}
    return kinds.pop() if len(kinds) == 1 else "mixed"


# ---------------------------------------------------------------------------------
# NPI licensing
# ---------------------------------------------------------------------------------

_NPI_PAIR = {"any": "some", "ever": "already", "yet": "already"}


def _npi(b: _Builder, n_items: int) -> list[ClozeItem]:
    rng, lex = b.rng, b.lex
    items = []
    i = 0
    while len(items) < n_items:
        npi = ("any", "ever", "yet")[i % 3]
        condition = ("licensed", "licensed", "unlicensed", "scope")[(i // 3) % 4]
        i += 1
        v = lex.verb(rng, True)
        cls = lex.arg_class(rng, v, "agent")
        number = b.rand_number()
        subj = b.np(_count_noun(b, cls), number, "the", adjs=b.rand_adjs())
        licensor = None
        neg = None
        if condition == "licensed":
            options = ["not", "no"] + (["never"] if npi in ("any", "yet") else [])
            licensor = rng.choice(options)
            if licensor == "no":
                _force_det(subj, "no", b)
            else:
                neg = licensor
        elif condition == "scope":
            # a licensor inside a relative clause on the subject does not c-command the slot
            licensor = rng.choice(("not", "no"))
            if licensor == "not":
                iv = _agent_verb(b, cls, False)
                b.add_relative(subj, lambda rel: b.clause(
                    None, "intr", verb=iv, tense=rng.choice(("pres", "perf")), neg="not",
                    gap="subj", rel=rel, controller=subj, kind="rel"))
            else:
                rv = b.lex.verb_for(rng, "patient", cls, True)
                inner = b.np(_count_noun(b, b.lex.arg_class(rng, rv, "agent")), b.rand_number(), "no")
                b.add_relative(subj, lambda rel: b.clause(
                    inner, "trans", verb=rv, tense="pres", gap="obj", rel=rel, kind="rel"))
        licensed = condition == "licensed"
        correct, incorrect = (npi, _NPI_PAIR[npi]) if licensed else (_NPI_PAIR[npi], npi)
        obj_number = b.rand_number()
        obj_noun = _count_noun(b, lex.arg_class(rng, v, "patient"))
        if npi == "any":
            obj = b.np(obj_noun, obj_number, "any")
            slot = obj.toks[0]
            tense = rng.choice(("pres", "past", "perf", "modal"))
            cl = b.clause(subj, "trans", verb=v, obj=obj, tense=tense, neg=neg)
        else:
            obj = b.np(obj_noun, obj_number, "the")
            if npi == "ever":
                cl = b.clause(subj, "trans", verb=v, obj=obj, tense="perf", neg=neg, pre_adv=npi)
            else:
                cl = b.clause(subj, "trans", verb=v, obj=obj, tense="perf", neg=neg, post_adv=npi)
            slot = next(t for t in cl.toks if t.word == npi)
        toks = b.sentence(cl)
        if correct not in NPIS:  # the filled-in word is the PPI
            b.npis = [t for t in b.npis if t is not slot]
        meta = {"npi": npi, "condition": condition, "licensed": licensed, "licensor": licensor,
                "licensor_in_sentence": licensor is not None}
        it = _item(b, "npi", toks, slot, correct, incorrect, meta)
        assert it.sentence is not None
        meta["licensor_indices"] = tuple(it.sentence.meta["licensors"])
        items.append(it)
    return items


# ---------------------------------------------------------------------------------
# role reversal and selectional preferences
# ---------------------------------------------------------------------------------


def _role_reversal(b: _Builder, n_items: int) -> list[ClozeItem]:
    rng, lex = b.rng, b.lex
    pairs = [c for c in lex.converses if c[0] in lex.verb_by_base and c[1] in lex.verb_by_base]
    items = []
    i = 0
    while len(items) < n_items:
        v_ab, v_ba, ca, cb = pairs[(i // 2) % len(pairs)]
        reversed_ = i % 2 == 1
        if not reversed_:
            na, nb = _count_noun(b, ca), _count_noun(b, cb)
            number, tense = b.rand_number(), rng.choice(("pres", "past"))
        i += 1
        first, second = (nb, na) if reversed_ else (na, nb)
        right, wrong = (lex.verb_by_base[v_ba], lex.verb_by_base[v_ab]) if reversed_ else (
            lex.verb_by_base[v_ab], lex.verb_by_base[v_ba])
        subj = b.np(first, number, "the")
        obj = b.np(second, number, "the")  # same number: the pair has the same words
        cl = b.clause(subj, "trans", verb=right, obj=obj, tense=tense)
        vtok = cl.head

        def form(v: Verb) -> str:
            if tense == "past":
                return v.past
            return v.s3 if number == "Sing" else v.base

        toks = b.sentence(cl)
        meta = {"pair_id": (i - 1) // 2, "reversed": reversed_, "verbs": (v_ab, v_ba),
                "classes": (ca, cb), "agent": first.sg, "patient": second.sg, "tense": tense}
        items.append(_item(b, "role_reversal", toks, vtok, form(right), form(wrong), meta))
    return items


def _gradient(v: Verb, lex_classes: list[str]) -> tuple[str, str, str] | None:
    """(high, mid, low) patient classes of ``v`` or None if it has no gradient."""
    prefs = dict(v.patient)
    ranked = sorted(prefs.items(), key=lambda kv: -kv[1])
    if len(ranked) < 2 or ranked[0][1] < 0.9 or not 0.05 < ranked[1][1] < 0.6:
        return None
    low = [c for c in lex_classes if c not in prefs]
    if not low:
        return None
    return ranked[0][0], ranked[1][0], low[0]


def _selectional(b: _Builder, n_items: int) -> list[ClozeItem]:
    rng, lex = b.rng, b.lex
    classes = sorted(lex.by_class)
    cands = []
    for v in lex.transitive:
        g = _gradient(v, classes)
        if g is not None:
            cands.append((v, g))
    # real verbs first (e.g. tip: waiter > chef > robin), then the most frequent ones
    cands.sort(key=lambda vg: (vg[0].base not in {"tip", "serve", "eat", "drive", "arrest"}, -vg[0].weight))
    cands = cands[: max(20, n_items // 6)]
    items = []
    contrasts = ("high>low", "high>mid", "mid>low")
    i = 0
    while len(items) < n_items:
        v, (hi, mid, _) = cands[i % len(cands)]
        contrast = contrasts[(i // len(cands)) % 3]
        i += 1
        low_pool = [c for c in classes if c not in dict(v.patient) and lex.by_class.get(c)]
        lo = rng.choice(low_pool)
        good_c, bad_c = {"high>low": (hi, lo), "high>mid": (hi, mid), "mid>low": (mid, lo)}[contrast]
        good, bad = _count_noun(b, good_c), _count_noun(b, bad_c)
        if v.base == "tip" and contrast == "high>low":
            good, bad = lex.noun_by_sg["waiter"], lex.noun_by_sg["robin"]
        number = b.rand_number()
        agent = b.np(_count_noun(b, lex.arg_class(rng, v, "agent")), b.rand_number(), "the")
        obj = b.np(good, number, "the")
        cl = b.clause(agent, "trans", verb=v, obj=obj, tense=rng.choice(("pres", "past", "perf")))
        toks = b.sentence(cl)
        form = (lambda n: n.sg if number == "Sing" else n.pl)
        meta = {"verb": v.base, "contrast": contrast, "good_class": good_c, "bad_class": bad_c,
                "good_pref": v.pref("patient", good_c), "bad_pref": v.pref("patient", bad_c)}
        items.append(_item(b, "selectional", toks, obj.head, form(good), form(bad), meta))
    return items


# ---------------------------------------------------------------------------------
# numbers
# ---------------------------------------------------------------------------------


def _numbers(b: _Builder, n_items: int) -> list[ClozeItem]:
    rng, lex, kb = b.rng, b.lex, b.kb
    invariant = [n for n in lex.nouns if n.invariant and CLASSES[n.cls][0]]
    owners = [p for p in kb.people if kb.owns[p][0] >= 2]
    items = []
    i = 0
    while len(items) < n_items:
        kind = ("numeral_noun", "numeral_verb", "quantity_fact")[i % 3]
        i += 1
        if kind == "numeral_noun":
            num = "one" if rng.random() < 0.25 else rng.choice(NUMERALS[1:])
            number = "Sing" if num == "one" else "Plur"
            v = lex.verb(rng, True)
            agent = b.np(_count_noun(b, lex.arg_class(rng, v, "agent")), b.rand_number(), "the")
            noun = _count_noun(b, lex.arg_class(rng, v, "patient"))
            obj = b.np(noun, number, None, num)
            cl = b.clause(agent, "trans", verb=v, obj=obj, tense=rng.choice(("pres", "past")))
            good, bad = (noun.sg, noun.pl) if number == "Sing" else (noun.pl, noun.sg)
            meta = {"kind": kind, "numeral": num, "number": number, "invariant_noun": False}
            items.append(_item(b, "numbers", b.sentence(cl), obj.head, good, bad, meta))
        elif kind == "numeral_verb":
            num = "one" if rng.random() < 0.3 else rng.choice(NUMERALS[1:])
            number = "Sing" if num == "one" else "Plur"
            if invariant and rng.random() < 0.5:
                noun = rng.choice(invariant)
            else:
                noun = _count_noun(b, rng.choice(("pet", "farm", "person", "worker", "wild")))
            v = _agent_verb(b, noun.cls, rng.random() < 0.5)
            subj = b.np(noun, number, None, num)
            if v.transitive:
                obj = b.np(_count_noun(b, lex.arg_class(rng, v, "patient")), b.rand_number(), "the")
                cl = b.clause(subj, "trans", verb=v, obj=obj, tense="pres")
            else:
                cl = b.clause(subj, "intr", verb=v, tense="pres")
            good, bad = (v.s3, v.base) if number == "Sing" else (v.base, v.s3)
            meta = {"kind": kind, "numeral": num, "number": number, "invariant_noun": noun.invariant}
            items.append(_item(b, "numbers", b.sentence(cl), cl.head, good, bad, meta,
                               subj.head, cl.head))
        else:
            p = owners[(i // 3) % len(owners)]
            count, animal = kb.owns[p]
            fact = Fact("owns", p, animal, count)
            toks, slots, s, v = b.fact_tokens(fact, rng.randrange(2))
            wrong = rng.choice([n for n in range(2, 10) if n != count])
            meta = {"kind": kind, "person": p, "count": count, "relation": "owns"}
            items.append(_item(b, "numbers", toks, slots["count"], NUMERALS[count - 1],
                               NUMERALS[wrong - 1], meta, s, v))
    return items


# ---------------------------------------------------------------------------------
# named entities, knowledge, inference
# ---------------------------------------------------------------------------------


def _entity_swap(b: _Builder, n_items: int) -> list[ClozeItem]:
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
        meta = {"swap": swap, "relation": rel, "template": template, "entity": p,
                "fact": (fact.relation, fact.subject, fact.object)}
        items.append(_item(b, "entity_swap", toks, slots["subject"], p, wrong, meta, s, v))
    return items


def _fact_item(b: _Builder, suite: str, fact: Fact, template: int, mask: str,
               wrong: str, extra: dict[str, Any]) -> ClozeItem:
    toks, slots, s, v = b.fact_tokens(fact, template)
    slot = slots[mask]
    meta = {"relation": fact.relation, "template": template, "subject": fact.subject,
            "answer": slot.word, "fact": (fact.relation, fact.subject, fact.object)}
    meta.update(extra)
    return _item(b, suite, toks, slot, slot.word, wrong, meta, s, v)


def _size_item(b: _Builder, suite: str, fact: Fact, template: int, extra: dict[str, Any]) -> ClozeItem:
    # the masked slot is the comparative adjective; the wrong answer reverses the claim
    toks, slots, s, v = b.fact_tokens(fact, template)
    word = slots["relation"].word
    wrong = {"bigger": "smaller", "larger": "smaller", "smaller": "bigger"}[word]
    meta = {"relation": fact.relation, "template": template, "subject": fact.subject,
            "answer": word, "fact": (fact.relation, fact.subject, fact.object)}
    meta.update(extra)
    return _item(b, suite, toks, slots["relation"], word, wrong, meta, s, v)


def _knowledge(b: _Builder, n_items: int) -> list[ClozeItem]:
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
        if f.relation == "lives_in":
            wrong = rng.choice([c for c in kb.cities if c != f.object])
        elif f.relation in ("lives_in_country", "city_in_country"):
            wrong = rng.choice([k for k in kb.countries if k != f.object])
        elif f.relation == "capital_of":
            if template == 1:  # the capital of K is [MASK]
                wrong = rng.choice([c for c in kb.cities if c != f.subject])
                items.append(_fact_item(b, "knowledge", f, template, "subject", wrong, {"stated": True}))
                continue
            wrong = rng.choice([k for k in kb.countries if k != f.object])
        elif f.relation == "occupation":
            wrong = b.lex.noun_by_sg[rng.choice([o for o in OCCUPATIONS if o != f.object])].sg
        else:  # owns: the animal
            assert f.count is not None
            other = rng.choice([a for a in PET_ANIMALS if a != f.object])
            n = b.lex.noun_by_sg[other]
            wrong = n.sg if f.count == 1 else n.pl
        items.append(_fact_item(b, "knowledge", f, template, "object", wrong, {"stated": True}))
    return items


def _inference(b: _Builder, n_items: int) -> list[ClozeItem]:
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
            items.append(_size_item(b, "inference", f, template,
                                    {"stated": False, "inference": "size_transitivity",
                                     "rank_distance": dist}))
        elif f.relation == "lives_in_country":
            wrong = rng.choice([k for k in kb.countries if k != f.object])
            items.append(_fact_item(b, "inference", f, template, "object", wrong,
                                    {"stated": False, "inference": "person_city_country",
                                     "via": kb.lives_in[f.subject]}))
        else:  # capital city located in its country
            wrong = rng.choice([k for k in kb.countries if k != f.object])
            items.append(_fact_item(b, "inference", f, template, "object", wrong,
                                    {"stated": False, "inference": "capital_in_country"}))
    return items


_SUITE_BUILDERS: dict[str, Callable[[_Builder, int], list[ClozeItem]]] = {
    "agreement": _agreement,
    "npi": _npi,
    "role_reversal": _role_reversal,
    "selectional": _selectional,
    "numbers": _numbers,
    "entity_swap": _entity_swap,
    "knowledge": _knowledge,
    "inference": _inference,
}
assert set(_SUITE_BUILDERS) == set(SUITES)
