"""Tree building: tokens, chunks and phrases, and the deterministic grammar primitives.

:class:`Grammar` assembles noun phrases, prepositional phrases, coordination, relative
clauses and clauses from lexemes the caller chooses, records agreement, licensors and NPIs
as it goes, and :meth:`Grammar.finalize` turns the token tree into an annotated
:class:`~bertology_lib.data.toy_english.sentence.Sentence`. Its only random choices are the
relative pronoun and the modal (from ``rng``). The samplers (:mod:`.sampling`) and the fact
templates (:mod:`.facts`) build on it; the suites, the toy tasks and the CheckList items
(:mod:`bertology_lib.data.checklist`) use the primitives directly.
"""

from __future__ import annotations

import random
from typing import Any, Callable, Sequence

from bertology_lib.data.toy_english.config import NEGATION_DEPREL, NPIS, ToyEnglishConfig
from bertology_lib.data.toy_english.knowledge import knowledge_base
from bertology_lib.data.toy_english.lexicon import Noun, Verb, lexicon
from bertology_lib.data.toy_english.sentence import Sentence
from bertology_lib.data.toy_english.words import BE, BE_PAST, CLASSES, DETS_PL, DETS_SG, DO, HAVE, MODALS
from bertology_lib.errors import ParameterError


class Token:
    """One word of a tree under construction: its annotations and its head (None = root)."""

    __slots__ = ("word", "lemma", "upos", "head", "deprel", "chunk", "role", "number")

    def __init__(self, word: str, upos: str, lemma: str | None = None, number: str = "_", chunk: object | None = None):
        self.word = word
        self.lemma = lemma if lemma is not None else word
        self.upos = upos
        self.head: Token | None = None
        self.deprel = "root"
        self.chunk = chunk
        self.role = "none"
        self.number = number

    def attach(self, head: Token, deprel: str) -> Token:
        self.head, self.deprel = head, deprel
        return self


class Chunk:
    """A base chunk (NP, VP or PP); tokens sharing one object form one BIO chunk."""

    __slots__ = ("kind",)

    def __init__(self, kind: str):
        self.kind = kind


class Phrase:
    """A contiguous run of tokens with a head token (an NP or a clause)."""

    __slots__ = ("toks", "head", "number", "cls", "kind")

    def __init__(self, toks: list[Token], head: Token, number: str = "_", cls: str | None = None, kind: str = "np"):
        self.toks, self.head, self.number, self.cls, self.kind = toks, head, number, cls, kind


class Grammar:
    """Grammar primitives, deterministic given their arguments (and ``rng`` for the relative
    pronoun and the modal).

    Shared by the corpus generator (:class:`~bertology_lib.data.toy_english.sampling.Builder`),
    the evaluation suites, the toy tasks and the CheckList/HANS items.
    """

    def __init__(self, config: ToyEnglishConfig, rng: random.Random):
        self.cfg = config
        self.rng = rng
        self.lex = lexicon(config)
        self.kb = knowledge_base(config.seed)
        self.agreement: list[tuple[Token, Token, str, str]] = []  # controller, verb, number, clause
        self.licensors: list[Token] = []
        self.npis: list[Token] = []

    def reset(self) -> None:
        self.agreement, self.licensors, self.npis = [], [], []

    # ---- noun phrases -------------------------------------------------------------
    def np(
        self, noun: Noun, number: str, det: str | None = "the", num: str | None = None, adjs: Sequence[str] = ()
    ) -> Phrase:
        ch = Chunk("NP")
        toks: list[Token] = []
        word = noun.sg if number == "Sing" else noun.pl
        head = Token(word, "NOUN", noun.sg, number, ch)
        if det is not None:
            dnum = "Sing" if det in DETS_SG else "Plur" if det in DETS_PL else "_"
            t = Token(det, "DET", "a" if det == "an" else det, dnum, ch).attach(head, "det")
            toks.append(t)
            if det == "no":
                self.licensors.append(t)
            if det == "any":
                self.npis.append(t)
        if num is not None:
            toks.append(Token(num, "NUM", num, "Sing" if num == "one" else "Plur", ch).attach(head, "nummod"))
        for a in adjs:
            toks.append(Token(a, "ADJ", a, "_", ch).attach(head, "amod"))
        toks.append(head)
        return Phrase(toks, head, number, noun.cls)

    def propn(self, name: str, cls: str = "person") -> Phrase:
        t = Token(name, "PROPN", name, "Sing", Chunk("NP"))
        return Phrase([t], t, "Sing", cls)

    def pron(self, word: str, number: str, cls: str | None = None) -> Phrase:
        t = Token(word, "PRON", word, number, Chunk("NP"))
        return Phrase([t], t, number, cls)

    def add_pp(
        self, phrase: Phrase, prep: str, inner: Phrase, deprel: str = "nmod", attach_to: Token | None = None
    ) -> Phrase:
        case = Token(prep, "ADP", prep, "_", Chunk("PP")).attach(inner.head, "case")
        inner.head.attach(attach_to or phrase.head, deprel)
        phrase.toks.extend([case] + inner.toks)
        return phrase

    def coordinate(self, first: Phrase, second: Phrase, conj: str = "and") -> Phrase:
        cc = Token(conj, "CCONJ").attach(second.head, "cc")
        second.head.attach(first.head, "conj")
        return Phrase(first.toks + [cc] + second.toks, first.head, "Plur", first.cls)

    def rel_pron(self, antecedent: Phrase) -> str:
        cls = antecedent.cls
        r = self.rng.random()
        if r < 0.6 or cls is None:
            return "that"
        return "who" if CLASSES.get(cls, (False, False))[1] else "which"

    def add_relative(self, phrase: Phrase, clause_fn: Callable[[Token], Phrase]) -> Phrase:
        """Append a relative clause built by ``clause_fn(rel_pronoun_token)``."""
        word = self.rel_pron(phrase)
        rel = Token(word, "PRON", word, phrase.number, Chunk("NP"))
        cl = clause_fn(rel)
        cl.head.attach(phrase.head, "acl:relcl")
        phrase.toks.extend(cl.toks)
        return phrase

    # ---- clauses --------------------------------------------------------------------
    def clause(
        self,
        subj: Phrase | None,
        pred: str,
        *,
        verb: Verb | None = None,
        obj: Phrase | None = None,
        adj: str | None = None,
        pred_np: Phrase | None = None,
        comp: Phrase | None = None,
        tense: str = "pres",
        neg: str | None = None,
        gap: str | None = None,
        rel: Token | None = None,
        controller: Phrase | None = None,
        by_agent: Phrase | None = None,
        pre_adv: str | None = None,
        post_adv: str | None = None,
        adjunct: tuple[str, Phrase] | None = None,
        kind: str = "main",
        complementizer: bool = True,
    ) -> Phrase:
        """Assemble a clause; ``pred`` in {"trans", "intr", "pass", "cop_adj", "cop_noun", "comp"}.

        ``gap`` ("subj"/"obj") makes a relative clause with pronoun token ``rel`` whose
        number is ``controller``'s.  ``neg`` is None, "not" or "never".  ``pre_adv``
        goes before the verb (e.g. "ever", "already", "often"), ``post_adv`` after the
        object (e.g. "yet").  Records agreement and licensors on the builder.
        """
        number = controller.number if gap == "subj" and controller else (subj.number if subj else "Sing")
        ctrl = controller.head if gap == "subj" and controller else (subj.head if subj else None)
        vp = Chunk("VP")
        toks: list[Token] = []
        if gap is not None:
            assert rel is not None
            toks.append(rel)
        if gap != "subj":
            assert subj is not None
            toks.extend(subj.toks)
        subj_tok = rel if gap == "subj" else subj.head  # type: ignore[union-attr]
        aux: list[Token] = []
        agree: Token | None = None
        if pred in ("cop_adj", "cop_noun"):
            if pred == "cop_adj":
                assert adj is not None
                head = Token(adj, "ADJ", adj, "_")
                rest: list[Token] = [head]
            else:
                assert pred_np is not None
                head = pred_np.head
                rest = list(pred_np.toks)
            be = (BE if tense != "past" else BE_PAST)[number]
            cop = Token(be, "AUX", "be", number, vp).attach(head, "cop")
            agree = cop
            toks.append(cop)
            if neg:
                toks.append(self._neg(neg, head, vp))
            toks.extend(rest)
            subj_tok.attach(head, "nsubj")
        else:
            assert verb is not None or pred == "comp"
            v = verb
            if pred == "comp":
                assert v is not None
            head = Token("", "VERB", v.base, "_", vp)  # type: ignore[union-attr]
            if pred == "pass":
                be = (BE if tense != "past" else BE_PAST)[number]
                a = Token(be, "AUX", "be", number, vp).attach(head, "aux:pass")
                aux.append(a)
                agree = a
                head.word = v.part  # type: ignore[union-attr]
            elif tense == "pres":
                if neg == "not":
                    a = Token(DO[number], "AUX", "do", number, vp).attach(head, "aux")
                    aux.append(a)
                    agree = a
                    head.word = v.base  # type: ignore[union-attr]
                else:
                    head.word = v.s3 if number == "Sing" else v.base  # type: ignore[union-attr]
                    head.number = number
                    agree = head
            elif tense == "past":
                if neg == "not":
                    aux.append(Token("did", "AUX", "do", "_", vp).attach(head, "aux"))
                    head.word = v.base  # type: ignore[union-attr]
                else:
                    head.word = v.past  # type: ignore[union-attr]
            elif tense == "perf":
                a = Token(HAVE[number], "AUX", "have", number, vp).attach(head, "aux")
                aux.append(a)
                agree = a
                head.word = v.part  # type: ignore[union-attr]
            elif tense == "prog":
                a = Token(BE[number], "AUX", "be", number, vp).attach(head, "aux")
                aux.append(a)
                agree = a
                head.word = v.ing  # type: ignore[union-attr]
            elif tense == "modal":
                aux.append(Token(self.rng.choice(MODALS), "AUX", None, "_", vp).attach(head, "aux"))
                head.word = v.base  # type: ignore[union-attr]
            else:  # pragma: no cover
                raise ParameterError(f"tense={tense!r} is unknown; allowed: pres, past, perf, prog, modal")
            toks.extend(aux)
            if neg:
                toks.append(self._neg(neg, head, vp))
            if pre_adv:
                t = Token(pre_adv, "ADV", pre_adv, "_", vp).attach(head, "advmod")
                toks.append(t)
                if pre_adv in NPIS:
                    self.npis.append(t)
            toks.append(head)
            if pred == "pass":
                subj_tok.attach(head, "nsubj:pass")
                subj_tok.role = "patient"
            else:
                subj_tok.attach(head, "nsubj")
                if pred in ("trans", "intr"):
                    subj_tok.role = "agent"
            if pred == "trans":
                if gap == "obj":
                    rel.attach(head, "obj")  # type: ignore[union-attr]
                    rel.role = "patient"  # type: ignore[union-attr]
                else:
                    assert obj is not None
                    obj.head.attach(head, "obj")
                    obj.head.role = "patient"
                    for t in obj.toks:
                        if t.deprel == "conj" and t.head is obj.head:
                            t.role = "patient"
                    toks.extend(obj.toks)
            if pred == "pass" and by_agent is not None:
                by = Token("by", "ADP", "by", "_", Chunk("PP")).attach(by_agent.head, "case")
                by_agent.head.attach(head, "obl:agent")
                by_agent.head.role = "agent"
                toks.append(by)
                toks.extend(by_agent.toks)
            if pred == "comp":
                assert comp is not None
                if complementizer:
                    toks.append(Token("that", "SCONJ").attach(comp.head, "mark"))
                comp.head.attach(head, "ccomp")
                toks.extend(comp.toks)
            rest = []
        if pred in ("trans", "intr") and gap != "subj" and subj is not None:
            for t in subj.toks:  # coordinated subjects: every conjunct is an agent
                if t.deprel == "conj" and t.head is subj.head:
                    t.role = "agent"
        if adjunct is not None:
            prep, inner = adjunct
            case = Token(prep, "ADP", prep, "_", Chunk("PP")).attach(inner.head, "case")
            inner.head.attach(head, "obl")
            toks.append(case)
            toks.extend(inner.toks)
        if post_adv:
            t = Token(post_adv, "ADV", post_adv, "_").attach(head, "advmod")
            toks.append(t)
            if post_adv in NPIS:
                self.npis.append(t)
        if agree is not None and ctrl is not None:
            self.agreement.append((ctrl, agree, number, kind))
        return Phrase(toks, head, number, None, "clause")

    def _neg(self, neg: str, head: Token, vp: Chunk) -> Token:
        t = Token(neg, "PART" if neg == "not" else "ADV", neg, "_", vp).attach(head, NEGATION_DEPREL)
        self.licensors.append(t)
        return t

    def sentence(self, clause: Phrase, end: str = ".") -> list[Token]:
        p = Token(end, "PUNCT").attach(clause.head, "punct")
        clause.head.head, clause.head.deprel = None, "root"
        return clause.toks + [p]

    # ---- finalisation -----------------------------------------------------------------
    def finalize(
        self,
        toks: list[Token],
        meta: dict[str, Any] | None = None,
        main_subject: Token | None = None,
        main_verb: Token | None = None,
    ) -> Sentence:
        index = {id(t): i for i, t in enumerate(toks)}
        n = len(toks)
        words = []
        for i, t in enumerate(toks):
            w = t.word
            if w in ("a", "an") and t.upos == "DET" and i + 1 < n:
                w = "an" if toks[i + 1].word[:1] in "aeiouAEIOU" else "a"
            words.append(w)
        heads = tuple(0 if t.head is None else index[id(t.head)] + 1 for t in toks)
        depth = [-1] * n
        for i in range(n):
            path = []
            j = i
            while depth[j] < 0 and heads[j] != 0:
                path.append(j)
                j = heads[j] - 1
            if depth[j] < 0:
                depth[j] = 0
            d = depth[j]
            for k in reversed(path):
                d += 1
                depth[k] = d
        chunks = []
        prev = None
        for t in toks:
            if t.chunk is None:
                chunks.append("O")
            else:
                chunks.append(("I-" if t.chunk is prev else "B-") + t.chunk.kind)
            prev = t.chunk
        meta = dict(meta or {})
        agr = []
        for ctrl, verb, number, kind in self.agreement:
            if id(ctrl) in index and id(verb) in index:
                agr.append({"subject": index[id(ctrl)], "verb": index[id(verb)], "number": number, "clause": kind})
        meta["agreement"] = tuple(agr)
        meta["licensors"] = tuple(index[id(t)] for t in self.licensors if id(t) in index)
        meta["npis"] = tuple(index[id(t)] for t in self.npis if id(t) in index)
        sent = Sentence(
            tuple(words),
            tuple(t.lemma for t in toks),
            tuple(t.upos for t in toks),
            heads,
            tuple(t.deprel for t in toks),
            tuple(depth),
            tuple(chunks),
            tuple(t.role for t in toks),
            tuple(t.number for t in toks),
            meta,
        )
        if main_subject is not None and id(main_subject) in index:
            s = index[id(main_subject)]
            v = index[id(main_verb)] if main_verb is not None and id(main_verb) in index else None
            meta["subject_index"] = s
            meta["verb_index"] = v
            att, types = attractors(sent, s, v) if v is not None else ((), ())
            meta["attractors"] = att
            meta["attractor_types"] = types
        self.reset()
        return sent


def force_det(np: Phrase, det: str, b: Grammar) -> None:
    """Replace/insert the determiner of a plain noun phrase (drops a numeral)."""
    head = np.head
    keep = [t for t in np.toks if not (t.head is head and t.deprel in ("det", "nummod"))]
    ch = head.chunk
    t = Token(det, "DET", det, "Sing" if det in DETS_SG else "Plur" if det in DETS_PL else "_", ch)
    t.attach(head, "det")
    start = keep.index(head)
    # insert before the adjectives of the head
    while start > 0 and keep[start - 1].head is head and keep[start - 1].deprel == "amod":
        start -= 1
    keep.insert(start, t)
    np.toks[:] = keep
    if det == "no":
        b.licensors.append(t)


def attractors(sent: Sentence, s: int, v: int) -> tuple[tuple[int, ...], tuple[str, ...]]:
    """Nouns strictly between subject ``s`` and verb ``v`` whose number differs from ``s``'s.

    The type is read from the tree: the dependent of the subject on the path up from the
    attractor ("pp" for nmod, "rc" for acl:relcl, "conj" for coordination).
    """
    num = sent.number[s]
    out, types = [], []
    for i in range(s + 1, v):
        if sent.upos[i] in ("NOUN", "PROPN") and sent.number[i] in ("Sing", "Plur") and sent.number[i] != num:
            j = i
            typ = "other"
            while sent.heads[j] != 0:
                h = sent.heads[j] - 1
                if h == s:
                    typ = {"nmod": "pp", "acl:relcl": "rc", "conj": "conj"}.get(sent.deprels[j], "other")
                    break
                j = h
            out.append(i)
            types.append(typ)
    return tuple(out), tuple(types)
