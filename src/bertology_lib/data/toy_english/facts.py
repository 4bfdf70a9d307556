"""Knowledge-base facts said as sentences, in a few templates per relation.

:class:`FactGrammar` adds :meth:`~FactGrammar.fact_tokens` (tokens plus the slots that
realise subject, object, count and relation, for cloze items) and
:meth:`~FactGrammar.fact_sentence` to the grammar primitives. Used by the corpus (fact
sentences), the knowledge/inference/numbers/entity-swap suites, the toy NLI and QA tasks
and the HANS-like items.
"""

from __future__ import annotations

from bertology_lib.data.toy_english.grammar import Chunk, Grammar, Token
from bertology_lib.data.toy_english.knowledge import Fact
from bertology_lib.data.toy_english.lexicon import Noun, special_verbs
from bertology_lib.data.toy_english.sentence import Sentence
from bertology_lib.data.toy_english.words import NUMERALS
from bertology_lib.errors import ParameterError

N_TEMPLATES = {
    "lives_in": 3,
    "lives_in_country": 2,
    "city_in_country": 2,
    "capital_of": 2,
    "occupation": 2,
    "owns": 2,
    "smaller_than": 4,
}


class FactGrammar(Grammar):
    """The grammar primitives plus fact sentences (templates per relation: :data:`N_TEMPLATES`)."""

    def fact_tokens(self, fact: Fact, template: int) -> tuple[list[Token], dict[str, Token], Token, Token | None]:
        """Tokens of ``fact`` in one of its templates.

        Returns (tokens, slots, subject head, agreeing verb); ``slots`` maps "subject",
        "object", "count", "relation" to the tokens that realise them.
        """
        rel, s, o = fact.relation, fact.subject, fact.object
        slots: dict[str, Token] = {}
        place = "city" if rel == "lives_in" else "country"
        if rel in ("lives_in", "lives_in_country"):
            live = special_verbs()["live"]
            subj = self.propn(s)
            obj = self.propn(o, place)
            t = template % 3
            if t == 0:  # X lives in C .
                cl = self.clause(subj, "intr", verb=live, adjunct=("in", obj), tense="pres")
            elif t == 1:  # X has lived in C for N years .
                n = self.rng.choice(NUMERALS[1:])
                years = self.np(Noun("year", "years", "abstract", 1.0), "Plur", None, n)
                cl = self.clause(subj, "intr", verb=live, adjunct=("in", obj), tense="perf")
                case = Token("for", "ADP", "for", "_", Chunk("PP")).attach(years.head, "case")
                years.head.attach(cl.head, "obl")
                cl.toks.extend([case] + years.toks)
            else:  # C is the home of X .
                home = self.np(Noun("home", "homes", "place", 1.0), "Sing", "the")
                self.add_pp(home, "of", subj)
                cl = self.clause(obj, "cop_noun", pred_np=home, tense="pres")
                slots.update(subject=subj.head, object=obj.head)
                return self.sentence(cl), slots, obj.head, self.agreement[-1][1]
            slots.update(subject=subj.head, object=obj.head)
            return self.sentence(cl), slots, subj.head, self.agreement[-1][1]
        if rel == "city_in_country":
            subj = self.propn(s, "place")
            obj = self.propn(o, "place")
            if template % 2 == 0:  # C is in K .
                cl = self.clause(subj, "cop_noun", pred_np=obj, tense="pres")
                case = Token("in", "ADP", "in", "_", Chunk("PP")).attach(obj.head, "case")
                i = cl.toks.index(obj.head)
                cl.toks.insert(i, case)
            else:  # C is a city in K .
                city = self.np(Noun("city", "cities", "place", 1.0), "Sing", "a")
                self.add_pp(city, "in", obj)
                cl = self.clause(subj, "cop_noun", pred_np=city, tense="pres")
            slots.update(subject=subj.head, object=obj.head)
            return self.sentence(cl), slots, subj.head, self.agreement[-1][1]
        if rel == "capital_of":
            city = self.propn(s, "place")
            country = self.propn(o, "place")
            cap = self.np(Noun("capital", "capitals", "place", 1.0), "Sing", "the")
            self.add_pp(cap, "of", country)
            if template % 2 == 0:  # C is the capital of K .
                cl = self.clause(city, "cop_noun", pred_np=cap, tense="pres")
                subj_head = city.head
            else:  # the capital of K is C .
                cl = self.clause(cap, "cop_noun", pred_np=city, tense="pres")
                subj_head = cap.head
            slots.update(subject=city.head, object=country.head, relation=cap.head)
            return self.sentence(cl), slots, subj_head, self.agreement[-1][1]
        if rel == "occupation":
            subj = self.propn(s)
            occ = self.np(self.lex.noun_by_sg[o], "Sing", "a")
            if template % 2 == 0:  # X is a OCC .
                cl = self.clause(subj, "cop_noun", pred_np=occ, tense="pres")
            else:  # X works as a OCC .
                work = self.lex.verb_by_base["work"]
                cl = self.clause(subj, "intr", verb=work, adjunct=("as", occ), tense="pres")
            slots.update(subject=subj.head, object=occ.head)
            return self.sentence(cl), slots, subj.head, self.agreement[-1][1]
        if rel == "owns":
            assert fact.count is not None
            subj = self.propn(s)
            num = NUMERALS[fact.count - 1]
            number = "Sing" if fact.count == 1 else "Plur"
            pets = self.np(self.lex.noun_by_sg[o], number, None, num)
            own, have = special_verbs()["own"], special_verbs()["have"]
            cl = self.clause(subj, "trans", verb=own if template % 2 == 0 else have, obj=pets, tense="pres")
            slots.update(subject=subj.head, object=pets.head, count=pets.toks[0])
            return self.sentence(cl), slots, subj.head, self.agreement[-1][1]
        if rel == "smaller_than":
            small, big = self.lex.noun_by_sg[s], self.lex.noun_by_sg[o]
            t = template % 4
            det = "a" if t == 2 else "the"
            # t0: the BIG is bigger than the SMALL .   t1: the SMALL is smaller than the BIG .
            # t2: a BIG is larger than a SMALL .      t3: the SMALL is not bigger than the BIG .
            first, second = (big, small) if t in (0, 2) else (small, big)
            word = ("bigger", "smaller", "larger", "bigger")[t]
            subj = self.np(first, "Sing", det)
            other = self.np(second, "Sing", det)
            cl = self.clause(subj, "cop_adj", adj=word, tense="pres", neg="not" if t == 3 else None)
            case = Token("than", "ADP", "than", "_", Chunk("PP")).attach(other.head, "case")
            other.head.attach(cl.head, "obl")
            cl.toks.extend([case] + other.toks)
            slots.update(subject=subj.head, object=other.head, relation=cl.head)
            return self.sentence(cl), slots, subj.head, self.agreement[-1][1]
        raise ParameterError(f"relation={rel!r} is unknown; allowed: {', '.join(N_TEMPLATES)}")  # pragma: no cover

    def fact_sentence(self, fact: Fact, template: int) -> Sentence:
        toks, _, s, v = self.fact_tokens(fact, template)
        meta = {"kind": "fact", "facts": ((fact.relation, fact.subject, fact.object),), "template": template}
        return self.finalize(toks, meta, s, v)
