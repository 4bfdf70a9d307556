"""Syntactic suites: subject-verb agreement across attractors, and NPI licensing.

* ``agreement``: subject-verb agreement across 0-3 attractors, all intervening nouns of
  the opposite number, attractors in PPs and/or (centre-embedded) relative clauses
  (Linzen et al. 2016; Goldberg 2019).  Meta: ``n_attractors``, ``attractor_type``.
* ``npi``: NPI licensing (Warstadt et al. 2019): any/ever/yet vs some/already in
  licensed, unlicensed and scope-distractor contexts.  Meta: ``licensed``, ``condition``.

Registered in :func:`bertology_lib.data.suites.make_suite`.
"""

from __future__ import annotations

from bertology_lib.data.suites.common import OTHER_NUMBER, agent_verb, cloze_item, count_noun
from bertology_lib.data.toy_english import CLASSES, NPIS, Builder, ClozeItem, Noun, Phrase, attractors, force_det
from bertology_lib.errors import ParameterError

# Modifier sequences on the subject, by number of attractors.  "pp" adds a PP with one
# noun, "rc_subj" a subject-gap relative clause with one object noun, "rc_obj" an
# object-gap relative clause with one subject noun; each modifier attaches to the
# previously introduced noun, so "rc_obj rc_obj" is centre embedding.
AGREEMENT_STRUCTURES: dict[int, tuple[tuple[str, ...], ...]] = {
    0: ((),),
    1: (("pp",), ("rc_subj",), ("rc_obj",)),
    2: (("pp", "pp"), ("rc_subj", "pp"), ("rc_obj", "pp"), ("pp", "rc_subj"), ("rc_obj", "rc_obj")),
    3: (
        ("pp", "pp", "pp"),
        ("rc_subj", "pp", "pp"),
        ("rc_obj", "pp", "pp"),
        ("pp", "rc_subj", "pp"),
        ("rc_obj", "rc_obj", "pp"),
    ),
}


def _modified_np(b: Builder, noun: Noun, number: str, mods: tuple[str, ...], att_num: str) -> Phrase:
    """NP of ``noun`` with modifier chain ``mods``; every added noun has ``att_num``."""
    rng = b.rng
    np = b.np(noun, number, "the")
    if not mods:
        return np
    first, rest = mods[0], mods[1:]
    if first == "pp":
        inner = _modified_np(b, count_noun(b), att_num, rest, att_num)
        b.add_pp(np, rng.choice(("of", "near", "behind", "with", "beside")), inner)
    elif first == "rc_subj":
        v = agent_verb(b, noun.cls) if CLASSES[noun.cls][0] else b.lex.verb(rng, True)
        obj = _modified_np(b, count_noun(b, b.lex.arg_class(rng, v, "patient")), att_num, rest, att_num)
        b.add_relative(
            np,
            lambda rel: b.clause(
                None, "trans", verb=v, obj=obj, tense="pres", gap="subj", rel=rel, controller=np, kind="rel"
            ),
        )
    elif first == "rc_obj":
        v = b.lex.verb_for(rng, "patient", noun.cls, True)
        subj = _modified_np(b, count_noun(b, b.lex.arg_class(rng, v, "agent")), att_num, rest, att_num)
        b.add_relative(np, lambda rel: b.clause(subj, "trans", verb=v, tense="pres", gap="obj", rel=rel, kind="rel"))
    else:  # pragma: no cover
        raise ParameterError(f"modifier={first!r} is unknown; allowed: pp, rc_subj, rc_obj")
    return np


def agreement_items(b: Builder, n_items: int) -> list[ClozeItem]:
    """The ``agreement`` suite: attractor counts cycle 0-3 over :data:`AGREEMENT_STRUCTURES`."""
    rng, lex = b.rng, b.lex
    items = []
    i = 0
    while len(items) < n_items:
        n_att = i % 4
        mods = AGREEMENT_STRUCTURES[n_att][(i // 4) % len(AGREEMENT_STRUCTURES[n_att])]
        i += 1
        number = "Sing" if rng.random() < 0.5 else "Plur"
        cls = rng.choice(("person", "student", "worker", "pet", "patron", "teacher", "farm", "wild"))
        noun = count_noun(b, cls)
        subj = _modified_np(b, noun, number, mods, OTHER_NUMBER[number])
        form = rng.choice(("lexical", "lexical", "be", "have"))
        if form == "be":
            cl = b.clause(subj, "cop_adj", adj=lex.adjective(rng), tense="pres")
        else:
            v = agent_verb(b, cls)
            obj = b.np(count_noun(b, lex.arg_class(rng, v, "patient")), b.rand_number(), "the")
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
        meta = {
            "n_attractors": n_att,
            "attractor_type": "+".join(mods) or "none",
            "attractor_kind": _kind(mods),
            "number": number,
            "verb_form": form,
        }
        it = cloze_item(b, "agreement", toks, verb_tok, correct, incorrect, meta, subj.head, verb_tok)
        assert it.sentence is not None
        s, v_i = it.sentence.meta["subject_index"], it.sentence.meta["verb_index"]
        att, _ = attractors(it.sentence, s, v_i)
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


def npi_items(b: Builder, n_items: int) -> list[ClozeItem]:
    """The ``npi`` suite: each NPI in licensed (twice), unlicensed and scope-distractor contexts."""
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
        subj = b.np(count_noun(b, cls), number, "the", adjs=b.rand_adjs())
        licensor = None
        neg = None
        if condition == "licensed":
            options = ["not", "no"] + (["never"] if npi in ("any", "yet") else [])
            licensor = rng.choice(options)
            if licensor == "no":
                force_det(subj, "no", b)
            else:
                neg = licensor
        elif condition == "scope":
            # a licensor inside a relative clause on the subject does not c-command the slot
            licensor = rng.choice(("not", "no"))
            if licensor == "not":
                iv = agent_verb(b, cls, False)
                b.add_relative(
                    subj,
                    lambda rel: b.clause(
                        None,
                        "intr",
                        verb=iv,
                        tense=rng.choice(("pres", "perf")),
                        neg="not",
                        gap="subj",
                        rel=rel,
                        controller=subj,
                        kind="rel",
                    ),
                )
            else:
                rv = b.lex.verb_for(rng, "patient", cls, True)
                inner = b.np(count_noun(b, b.lex.arg_class(rng, rv, "agent")), b.rand_number(), "no")
                b.add_relative(
                    subj, lambda rel: b.clause(inner, "trans", verb=rv, tense="pres", gap="obj", rel=rel, kind="rel")
                )
        licensed = condition == "licensed"
        correct, incorrect = (npi, _NPI_PAIR[npi]) if licensed else (_NPI_PAIR[npi], npi)
        obj_number = b.rand_number()
        obj_noun = count_noun(b, lex.arg_class(rng, v, "patient"))
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
        meta = {
            "npi": npi,
            "condition": condition,
            "licensed": licensed,
            "licensor": licensor,
            "licensor_in_sentence": licensor is not None,
        }
        it = cloze_item(b, "npi", toks, slot, correct, incorrect, meta)
        assert it.sentence is not None
        meta["licensor_indices"] = tuple(it.sentence.meta["licensors"])
        items.append(it)
    return items
