"""Random sampling from the toy grammar: determiners, noun phrases with PPs and relative
clauses, tenses and negation, clauses and whole sentences.

:class:`Builder` is the full generator (grammar primitives, fact templates and these
samplers); :func:`~bertology_lib.data.toy_english.corpus.generate_corpus`, the suites, the
toy tasks and the CheckList items make one with a private ``random.Random``. The order of
the ``rng`` calls fixes the corpus: keep it when editing.
"""

from __future__ import annotations

from bertology_lib.data.toy_english.config import NPIS, PPIS
from bertology_lib.data.toy_english.facts import FactGrammar
from bertology_lib.data.toy_english.grammar import Phrase, Token, force_det
from bertology_lib.data.toy_english.lexicon import Verb, special_verbs
from bertology_lib.data.toy_english.sentence import Sentence
from bertology_lib.data.toy_english.words import (
    CLASSES,
    COMP_VERBS,
    HUMAN,
    NMOD_PREPS,
    NUMERALS,
    PLACE_PREPS,
    POSSESSIVES,
    SCONJS,
)


class Builder(FactGrammar):
    """The toy-English generator: grammar primitives, fact sentences and random samplers.

    ``Builder(config, rng)``; every random choice comes from ``rng``. Used by the corpus,
    the suites (:mod:`bertology_lib.data.suites`), the toy tasks and the CheckList items.
    """

    def rand_number(self) -> str:
        return "Plur" if self.rng.random() < self.cfg.p_plural else "Sing"

    def rand_det(
        self, number: str, *, npi_ok: bool = False, ppi_ok: bool = True, no_ok: bool = False
    ) -> tuple[str | None, str | None]:
        """(determiner, numeral) for a noun phrase."""
        r = self.rng.random()
        if npi_ok and r < 0.35:
            return "any", None
        r = self.rng.random()
        if number == "Sing":
            if r < 0.50:
                return "the", None
            if r < 0.70:
                return "a", None
            if r < 0.78:
                return self.rng.choice(("this", "that")), None
            if r < 0.82:
                return self.rng.choice(("every", "each")), None
            if r < 0.85 and ppi_ok:
                return "some", None
            if r < 0.87 and no_ok:
                return "no", None
            if r < 0.97:
                return self.rng.choice(POSSESSIVES), None
            return None, "one"
        if r < 0.45:
            return "the", None
        if r < 0.55 and ppi_ok:
            return "some", None
        if r < 0.62:
            return self.rng.choice(("these", "those")), None
        if r < 0.67:
            return self.rng.choice(("many", "several")), None
        if r < 0.70 and no_ok:
            return "no", None
        if r < 0.78:
            return self.rng.choice(POSSESSIVES), None
        if r < 0.88:
            return None, self.rng.choice(NUMERALS[1:])
        return None, None  # bare plural

    def rand_adjs(self) -> list[str]:
        r = self.rng.random()
        k = 0 if r < 0.72 else 1 if r < 0.95 else 2
        out: list[str] = []
        while len(out) < k:
            a = self.lex.adjective(self.rng)
            if a not in out:
                out.append(a)
        return out

    def rand_np(
        self,
        cls: str | None,
        depth: int,
        *,
        role: str = "any",
        npi_ok: bool = False,
        ppi_ok: bool = True,
        no_ok: bool = False,
        allow_pron: bool = True,
        allow_mods: bool = True,
        number: str | None = None,
    ) -> Phrase:
        """A random noun phrase of class ``cls`` with optional PP / relative clause."""
        rng = self.rng
        if cls is None:
            cls = self.lex.noun(rng).cls
        number = number or self.rand_number()
        r = rng.random()
        if allow_pron and r < 0.06 and not npi_ok:
            human = CLASSES[cls][1]
            if role == "subj":
                pool = (("he", "she") if human else ("it",)) if number == "Sing" else ("they",)
            else:
                pool = (("him", "her") if human else ("it",)) if number == "Sing" else ("them",)
            return self.pron(rng.choice(pool), number, cls)
        if allow_pron and r < 0.10 and CLASSES[cls][1] and not npi_ok:
            return self.propn(rng.choice(self.kb.people), cls)
        noun = self.lex.noun(rng, cls)
        det, num = self.rand_det(number, npi_ok=npi_ok, ppi_ok=ppi_ok, no_ok=no_ok)
        if det is None and num is None and number == "Sing":
            det = "the"
        np = self.np(noun, number, det, num, self.rand_adjs())
        if allow_mods and depth < 3:
            decay = 0.55**depth
            if rng.random() < self.cfg.p_pp * decay:
                inner = self.rand_np(None, depth + 1, role="obl", allow_pron=False, ppi_ok=ppi_ok)
                self.add_pp(np, rng.choice(NMOD_PREPS), inner)
            if rng.random() < self.cfg.p_relative * decay:
                self.rand_relative(np, depth + 1)
        return np

    def rand_relative(self, np: Phrase, depth: int) -> Phrase:
        rng, lex = self.rng, self.lex
        cls = np.cls or "person"
        r = rng.random()
        tense, neg = self.rand_tense(allow_neg=True)
        if r < 0.5 and CLASSES[cls][0]:  # subject gap
            if rng.random() < 0.75:
                v = lex.verb_for(rng, "agent", cls, True)
                obj = self.rand_np(
                    lex.arg_class(rng, v, "patient"), depth, role="obj", ppi_ok=neg is None, allow_mods=depth < 2
                )
                return self.add_relative(
                    np,
                    lambda rel: self.clause(
                        None,
                        "trans",
                        verb=v,
                        obj=obj,
                        tense=tense,
                        neg=neg,
                        gap="subj",
                        rel=rel,
                        controller=np,
                        kind="rel",
                    ),
                )
            v = lex.verb_for(rng, "agent", cls, False)
            return self.add_relative(
                np,
                lambda rel: self.clause(
                    None,
                    "intr",
                    verb=v,
                    tense=tense,
                    neg=neg,
                    gap="subj",
                    rel=rel,
                    controller=np,
                    kind="rel",
                    adjunct=self.rand_adjunct(depth, ppi_ok=neg is None),
                ),
            )
        if r < 0.62:
            adj = lex.adjective(rng)
            return self.add_relative(
                np,
                lambda rel: self.clause(
                    None,
                    "cop_adj",
                    adj=adj,
                    tense="past" if tense == "past" else "pres",
                    neg=neg,
                    gap="subj",
                    rel=rel,
                    controller=np,
                    kind="rel",
                ),
            )
        # object gap: "the dog that the cats chase"
        v = lex.verb_for(rng, "patient", cls, True)
        subj = self.rand_np(lex.arg_class(rng, v, "agent"), depth, role="subj", allow_mods=depth < 2)
        return self.add_relative(
            np, lambda rel: self.clause(subj, "trans", verb=v, tense=tense, neg=neg, gap="obj", rel=rel, kind="rel")
        )

    def rand_tense(self, allow_neg: bool = True) -> tuple[str, str | None]:
        r = self.rng.random()
        tense = "pres" if r < 0.45 else "past" if r < 0.65 else "perf" if r < 0.8 else "modal" if r < 0.9 else "prog"
        neg = None
        if allow_neg and self.rng.random() < self.cfg.p_negation:
            neg = "never" if self.rng.random() < 0.25 and tense in ("pres", "past", "perf") else "not"
        return tense, neg

    def rand_adjunct(self, depth: int, ppi_ok: bool = True) -> tuple[str, Phrase] | None:
        if self.rng.random() < 0.15:
            inner = self.rand_np("place", depth + 1, role="obl", allow_pron=False, allow_mods=False, ppi_ok=ppi_ok)
            return self.rng.choice(PLACE_PREPS), inner
        return None

    def rand_clause(self, depth: int, kind: str = "main") -> tuple[Phrase, Token | None, Token | None]:
        """A random finite clause; returns (clause, subject head, agreeing verb or None)."""
        rng, lex = self.rng, self.lex
        r = rng.random()
        tense, neg = self.rand_tense()
        n_agree = len(self.agreement)
        no_subj = neg is None and rng.random() < 0.05
        licensed = neg is not None or no_subj
        pre_adv = post_adv = None
        if licensed and tense != "prog":
            # "no dog ever chases ...", "the dog has not ever ...", "... has not X-ed it yet"
            if (neg == "not" or no_subj) and rng.random() < 0.25:
                pre_adv = "ever"
            elif tense == "perf" and rng.random() < 0.4:
                post_adv = "yet"
        elif tense == "perf" and not licensed:
            if rng.random() < 0.2:
                if rng.random() < 0.5:
                    pre_adv = "already"
                else:
                    post_adv = "already"
        if pre_adv is None and neg is None and rng.random() < 0.06:
            pre_adv = "often"
        if post_adv is None and rng.random() < 0.08:
            post_adv = lex.adverb(rng)
            if post_adv == "often":
                post_adv = None
        adjunct = self.rand_adjunct(depth, ppi_ok=not licensed)

        def subject(cls: str) -> Phrase:
            s = self.rand_np(cls, depth, role="subj", allow_pron=not no_subj)
            if no_subj and s.head.upos == "NOUN":
                force_det(s, "no", self)
            elif not no_subj and rng.random() < 0.04 and s.head.upos == "NOUN":
                other = self.rand_np(cls, depth + 1, role="subj", allow_pron=False, allow_mods=False)
                s = self.coordinate(s, other)
            return s

        if r < 0.5:
            v = lex.verb(rng, True)
            subj = subject(lex.arg_class(rng, v, "agent"))
            obj = self.rand_np(
                lex.arg_class(rng, v, "patient"), depth, role="obj", npi_ok=licensed, ppi_ok=not licensed
            )
            cl = self.clause(
                subj,
                "trans",
                verb=v,
                obj=obj,
                tense=tense,
                neg=neg,
                pre_adv=pre_adv,
                post_adv=post_adv,
                adjunct=adjunct,
                kind=kind,
            )
        elif r < 0.68:
            v = lex.verb(rng, False)
            subj = subject(lex.arg_class(rng, v, "agent"))
            cl = self.clause(
                subj,
                "intr",
                verb=v,
                tense=tense,
                neg=neg,
                pre_adv=pre_adv,
                post_adv=post_adv,
                adjunct=adjunct,
                kind=kind,
            )
        elif r < 0.75:
            v = lex.verb(rng, True)
            subj = subject(lex.arg_class(rng, v, "patient"))
            by = None
            if rng.random() < 0.6:
                by = self.rand_np(
                    lex.arg_class(rng, v, "agent"), depth + 1, role="obl", allow_mods=False, ppi_ok=not licensed
                )
            cl = self.clause(
                subj,
                "pass",
                verb=v,
                by_agent=by,
                tense="past" if tense == "past" else "pres",
                neg=None if neg == "never" else neg,
                kind=kind,
                post_adv=None if post_adv in NPIS + PPIS else post_adv,
            )
        elif r < 0.86:
            subj = subject(lex.noun(rng).cls)
            adj = lex.adjective(rng)
            cl = self.clause(
                subj,
                "cop_adj",
                adj=adj,
                tense="past" if tense == "past" else "pres",
                neg=None if neg == "never" else neg,
                kind=kind,
            )
        elif r < 0.91:
            cls = lex.noun(rng).cls
            subj = subject(cls)
            noun = lex.noun(rng, cls)
            pnum = subj.number
            pred_np = self.np(noun, pnum, "a" if pnum == "Sing" else None, None, self.rand_adjs())
            cl = self.clause(
                subj,
                "cop_noun",
                pred_np=pred_np,
                tense="past" if tense == "past" else "pres",
                neg=None if neg == "never" else neg,
                kind=kind,
            )
        else:
            if depth >= 1:
                return self.rand_clause(depth, kind)
            v = self.comp_verb()
            subj = subject(rng.choice(HUMAN))
            inner, _, _ = self.rand_clause(depth + 1, "comp")
            cl = self.clause(
                subj,
                "comp",
                verb=v,
                comp=inner,
                tense=tense,
                neg=None if neg == "never" else neg,
                kind=kind,
                complementizer=rng.random() < 0.7,
            )
        agree = None
        for ctrl, vtok, _, k in self.agreement[n_agree:]:
            if k == kind and ctrl is subj.head:
                agree = vtok
        return cl, subj.head, agree

    def comp_verb(self) -> Verb:
        return special_verbs()[self.rng.choice(COMP_VERBS)]

    def rand_sentence(self) -> Sentence:
        rng, cfg = self.rng, self.cfg
        main, subj, verb = self.rand_clause(0, "main")
        r = rng.random()
        toks_clause = main
        if r < cfg.p_coordination:
            second, _, _ = self.rand_clause(1, "conj")
            cc = Token(rng.choice(("and", "and", "but", "or")), "CCONJ").attach(second.head, "cc")
            second.head.attach(main.head, "conj")
            toks_clause = Phrase(main.toks + [cc] + second.toks, main.head, kind="clause")
        elif r < cfg.p_coordination + cfg.p_subordinate:
            sub, _, _ = self.rand_clause(1, "sub")
            mark = Token(rng.choice(SCONJS), "SCONJ").attach(sub.head, "mark")
            sub.head.attach(main.head, "advcl")
            if rng.random() < 0.5:
                comma = Token(",", "PUNCT").attach(sub.head, "punct")
                toks_clause = Phrase([mark] + sub.toks + [comma] + main.toks, main.head, kind="clause")
            else:
                toks_clause = Phrase(main.toks + [mark] + sub.toks, main.head, kind="clause")
        toks = self.sentence(toks_clause)
        return self.finalize(toks, {"kind": "clause"}, subj, verb)
