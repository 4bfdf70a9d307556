"""Semantic suites: role reversal, selectional preferences and number.

* ``role_reversal``: converse verb pairs with swapped arguments (Ettinger 2020).
* ``selectional``: preferred vs dispreferred objects on a gradient (Ettinger 2020).
* ``numbers``: numeral-noun and numeral-verb agreement, counts stated in the corpus.

Registered in :func:`bertology_lib.data.suites.make_suite`.
"""

from __future__ import annotations

from bertology_lib.data.suites.common import agent_verb, cloze_item, count_noun
from bertology_lib.data.toy_english import CLASSES, NUMERALS, Builder, ClozeItem, Fact, Verb


def role_reversal_items(b: Builder, n_items: int) -> list[ClozeItem]:
    """The ``role_reversal`` suite: pairs of items with the arguments swapped, the converse verb correct."""
    rng, lex = b.rng, b.lex
    pairs = [c for c in lex.converses if c[0] in lex.verb_by_base and c[1] in lex.verb_by_base]
    items = []
    i = 0
    while len(items) < n_items:
        v_ab, v_ba, ca, cb = pairs[(i // 2) % len(pairs)]
        reversed_ = i % 2 == 1
        if not reversed_:
            na, nb = count_noun(b, ca), count_noun(b, cb)
            number, tense = b.rand_number(), rng.choice(("pres", "past"))
        i += 1
        first, second = (nb, na) if reversed_ else (na, nb)
        right, wrong = (
            (lex.verb_by_base[v_ba], lex.verb_by_base[v_ab])
            if reversed_
            else (lex.verb_by_base[v_ab], lex.verb_by_base[v_ba])
        )
        subj = b.np(first, number, "the")
        obj = b.np(second, number, "the")  # same number: the pair has the same words
        cl = b.clause(subj, "trans", verb=right, obj=obj, tense=tense)
        vtok = cl.head

        def form(v: Verb) -> str:
            if tense == "past":
                return v.past
            return v.s3 if number == "Sing" else v.base

        toks = b.sentence(cl)
        meta = {
            "pair_id": (i - 1) // 2,
            "reversed": reversed_,
            "verbs": (v_ab, v_ba),
            "classes": (ca, cb),
            "agent": first.sg,
            "patient": second.sg,
            "tense": tense,
        }
        items.append(cloze_item(b, "role_reversal", toks, vtok, form(right), form(wrong), meta))
    return items


def patient_gradient(v: Verb, lex_classes: list[str]) -> tuple[str, str, str] | None:
    """(high, mid, low) patient classes of ``v`` or None if it has no gradient."""
    prefs = dict(v.patient)
    ranked = sorted(prefs.items(), key=lambda kv: -kv[1])
    if len(ranked) < 2 or ranked[0][1] < 0.9 or not 0.05 < ranked[1][1] < 0.6:
        return None
    low = [c for c in lex_classes if c not in prefs]
    if not low:
        return None
    return ranked[0][0], ranked[1][0], low[0]


def selectional_items(b: Builder, n_items: int) -> list[ClozeItem]:
    """The ``selectional`` suite: high>low, high>mid and mid>low patient classes of graded verbs."""
    rng, lex = b.rng, b.lex
    classes = sorted(lex.by_class)
    cands = []
    for v in lex.transitive:
        g = patient_gradient(v, classes)
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
        good, bad = count_noun(b, good_c), count_noun(b, bad_c)
        if v.base == "tip" and contrast == "high>low":
            good, bad = lex.noun_by_sg["waiter"], lex.noun_by_sg["robin"]
        number = b.rand_number()
        agent = b.np(count_noun(b, lex.arg_class(rng, v, "agent")), b.rand_number(), "the")
        obj = b.np(good, number, "the")
        cl = b.clause(agent, "trans", verb=v, obj=obj, tense=rng.choice(("pres", "past", "perf")))
        toks = b.sentence(cl)
        forms = (good.sg, bad.sg) if number == "Sing" else (good.pl, bad.pl)
        meta = {
            "verb": v.base,
            "contrast": contrast,
            "good_class": good_c,
            "bad_class": bad_c,
            "good_pref": v.pref("patient", good_c),
            "bad_pref": v.pref("patient", bad_c),
        }
        items.append(cloze_item(b, "selectional", toks, obj.head, *forms, meta))
    return items


# ---------------------------------------------------------------------------------
# numbers
# ---------------------------------------------------------------------------------


def numbers_items(b: Builder, n_items: int) -> list[ClozeItem]:
    """The ``numbers`` suite: numeral-noun, numeral-verb and stated-count ("owns") items in turn."""
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
            agent = b.np(count_noun(b, lex.arg_class(rng, v, "agent")), b.rand_number(), "the")
            noun = count_noun(b, lex.arg_class(rng, v, "patient"))
            obj = b.np(noun, number, None, num)
            cl = b.clause(agent, "trans", verb=v, obj=obj, tense=rng.choice(("pres", "past")))
            good, bad = (noun.sg, noun.pl) if number == "Sing" else (noun.pl, noun.sg)
            meta = {"kind": kind, "numeral": num, "number": number, "invariant_noun": False}
            items.append(cloze_item(b, "numbers", b.sentence(cl), obj.head, good, bad, meta))
        elif kind == "numeral_verb":
            num = "one" if rng.random() < 0.3 else rng.choice(NUMERALS[1:])
            number = "Sing" if num == "one" else "Plur"
            if invariant and rng.random() < 0.5:
                noun = rng.choice(invariant)
            else:
                noun = count_noun(b, rng.choice(("pet", "farm", "person", "worker", "wild")))
            v = agent_verb(b, noun.cls, rng.random() < 0.5)
            subj = b.np(noun, number, None, num)
            if v.transitive:
                obj = b.np(count_noun(b, lex.arg_class(rng, v, "patient")), b.rand_number(), "the")
                cl = b.clause(subj, "trans", verb=v, obj=obj, tense="pres")
            else:
                cl = b.clause(subj, "intr", verb=v, tense="pres")
            good, bad = (v.s3, v.base) if number == "Sing" else (v.base, v.s3)
            meta = {"kind": kind, "numeral": num, "number": number, "invariant_noun": noun.invariant}
            items.append(cloze_item(b, "numbers", b.sentence(cl), cl.head, good, bad, meta, subj.head, cl.head))
        else:
            p = owners[(i // 3) % len(owners)]
            count, animal = kb.owns[p]
            fact = Fact("owns", p, animal, count)
            toks, slots, s, v = b.fact_tokens(fact, rng.randrange(2))
            wrong = rng.choice([n for n in range(2, 10) if n != count])
            meta = {"kind": kind, "person": p, "count": count, "relation": "owns"}
            items.append(
                cloze_item(b, "numbers", toks, slots["count"], NUMERALS[count - 1], NUMERALS[wrong - 1], meta, s, v)
            )
    return items
