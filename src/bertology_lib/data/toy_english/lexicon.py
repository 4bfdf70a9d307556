"""The seeded lexicon of toy English: noun and verb lexemes with Zipf weights and selectional
preferences, made-up words from syllables, and the samplers the grammar draws from.

:func:`lexicon` is the entry point (cached per seed, vocabulary size, Zipf exponent and
ambiguity); used by the grammar (:mod:`.grammar`, :mod:`.sampling`), the suites, the toy
tasks and the tests.
"""

from __future__ import annotations

import dataclasses
import functools
import random
from collections import defaultdict
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Sequence

from bertology_lib.data.toy_english.config import ToyEnglishConfig
from bertology_lib.data.toy_english.words import (
    ADJ_SUFFIXES,
    ANIMATE,
    AUX_NUMBER,
    CLASSES,
    CODAS,
    COMP_VERBS,
    HUMAN,
    IRREGULAR_VERBS,
    NUMERALS,
    ONSETS,
    REAL_ADJS,
    REAL_ADVS,
    REAL_AMBIGUOUS,
    REAL_CONVERSES,
    REAL_NOUNS,
    REAL_VERBS,
    SIZE_WORDS,
    SPECIAL_NOUNS,
    VOWELS,
    function_words,
    plural,
    regular_forms,
)


def _parse_prefs(spec: str) -> tuple[tuple[str, float], ...]:
    out = []
    for part in spec.split():
        c, w = part.split(":")
        if c in CLASSES and float(w) > 0:
            out.append((c, float(w)))
    return tuple(out)


@dataclass(frozen=True)
class Noun:
    """A noun lexeme: singular/plural forms, semantic class, Zipf weight."""

    sg: str
    pl: str
    cls: str
    weight: float
    also_verb: bool = False

    @property
    def invariant(self) -> bool:
        return self.sg == self.pl


@dataclass(frozen=True)
class Verb:
    """A verb lexeme with forms and selectional preferences (class -> weight).

    Preferences are a gradient: the top class has weight 1, typical secondary classes
    less, every other class a small floor weight (see ``pref``).
    """

    base: str
    s3: str
    past: str
    part: str
    ing: str
    transitive: bool
    agent: tuple[tuple[str, float], ...]
    patient: tuple[tuple[str, float], ...]
    weight: float
    also_noun: bool = False

    def pref(self, role: str, cls: str) -> float:
        prefs = dict(self.agent if role == "agent" else self.patient)
        floor = 0.004 if role == "patient" or CLASSES[cls][0] else 0.0005
        return prefs.get(cls, floor)


class Lexicon:
    """All lexemes of one configuration plus precomputed samplers.

    Built by :func:`lexicon`; used by the generator, the suites and the tests.
    """

    def __init__(
        self,
        nouns: list[Noun],
        verbs: list[Verb],
        adjectives: list[tuple[str, float]],
        adverbs: list[tuple[str, float]],
        converses: list[tuple[str, str, str, str]],
    ):
        self.nouns = tuple(nouns)
        self.verbs = tuple(verbs)
        self.adjectives = tuple(a for a, _ in adjectives)
        self.adverbs = tuple(a for a, _ in adverbs)
        self.converses = tuple(converses)
        self.noun_by_sg = {n.sg: n for n in nouns}
        self.verb_by_base = {v.base: v for v in verbs}
        self.by_class: dict[str, list[Noun]] = defaultdict(list)
        for n in nouns:
            self.by_class[n.cls].append(n)
        self._noun_cw = {c: _cum([n.weight for n in ns]) for c, ns in self.by_class.items()}
        self.class_mass = {c: sum(n.weight for n in ns) for c, ns in self.by_class.items()}
        self._all_noun_cw = _cum([n.weight for n in nouns])
        self._adj_cw = _cum([w for _, w in adjectives])
        self._adv_cw = _cum([w for _, w in adverbs])
        self.transitive = [v for v in verbs if v.transitive]
        self.intransitive = [v for v in verbs if not v.transitive]
        self._tr_cw = _cum([v.weight for v in self.transitive])
        self._in_cw = _cum([v.weight for v in self.intransitive])
        self._role_samplers: dict[tuple[str, str, bool], tuple[list[Verb], list[float]]] = {}
        self._class_cw: dict[tuple[str, str], tuple[list[str], list[float]]] = {}
        # form -> feature lookups (used by the tests and verb_form_number)
        self.verb_form_info: dict[str, set[str]] = defaultdict(set)
        for v in list(verbs) + list(special_verbs().values()):
            self.verb_form_info[v.s3].add("Sing")
            self.verb_form_info[v.base].add("Plur")
            self.verb_form_info[v.past].add("Past")
            self.verb_form_info[v.part].add("Part")
            self.verb_form_info[v.ing].add("Ger")
        self.noun_form_number: dict[str, set[str]] = defaultdict(set)
        for n in nouns:
            self.noun_form_number[n.sg].add("Sing")
            self.noun_form_number[n.pl].add("Plur")

    # -- samplers ------------------------------------------------------------------
    def noun(self, rng: random.Random, cls: str | None = None) -> Noun:
        if cls is None:
            return rng.choices(self.nouns, cum_weights=self._all_noun_cw)[0]
        return rng.choices(self.by_class[cls], cum_weights=self._noun_cw[cls])[0]

    def adjective(self, rng: random.Random) -> str:
        return rng.choices(self.adjectives, cum_weights=self._adj_cw)[0]

    def adverb(self, rng: random.Random) -> str:
        return rng.choices(self.adverbs, cum_weights=self._adv_cw)[0]

    def verb(self, rng: random.Random, transitive: bool) -> Verb:
        if transitive:
            return rng.choices(self.transitive, cum_weights=self._tr_cw)[0]
        return rng.choices(self.intransitive, cum_weights=self._in_cw)[0]

    def verb_for(self, rng: random.Random, role: str, cls: str, transitive: bool) -> Verb:
        """A verb whose ``role`` argument fits class ``cls`` (weight x preference)."""
        key = (role, cls, transitive)
        if key not in self._role_samplers:
            vs = self.transitive if transitive else self.intransitive
            self._role_samplers[key] = (vs, _cum([v.weight * v.pref(role, cls) for v in vs]))
        vs, cw = self._role_samplers[key]
        return rng.choices(vs, cum_weights=cw)[0]

    def arg_class(self, rng: random.Random, verb: Verb, role: str) -> str:
        """A noun class for ``verb``'s ``role`` argument, by preference x class mass."""
        key = (verb.base, role)
        if key not in self._class_cw:
            cs = sorted(self.by_class)
            ws = [verb.pref(role, c) * (0.5 + self.class_mass[c]) for c in cs]
            if role == "agent":
                ws = [w if CLASSES[c][0] else 0.0 for w, c in zip(ws, cs)]
            self._class_cw[key] = (cs, _cum(ws))
        cs, cw = self._class_cw[key]
        return rng.choices(cs, cum_weights=cw)[0]


@functools.lru_cache(maxsize=None)
def special_verbs() -> dict[str, "Verb"]:
    """Closed-class lexical verbs used only in fixed frames: "live", "own", "have" and the
    complement-taking :data:`COMP_VERBS` (facts, complement clauses, CheckList/HANS items)."""
    out = {}
    for base in ("live", "own", "have") + COMP_VERBS:
        s3, past, ing = regular_forms(base)
        part = past
        if base in IRREGULAR_VERBS:
            past, part = IRREGULAR_VERBS[base]
        if base == "have":
            s3, past, part = "has", "had", "had"
        out[base] = Verb(base, s3, past, part, ing, base in ("own", "have"), (("person", 1.0),), (), 1.0)
    return out


def _cum(ws: Sequence[float]) -> list[float]:
    out, s = [], 0.0
    for w in ws:
        s += w
        out.append(s)
    return out


def _zipf_weights(n: int, s: float) -> list[float]:
    return [1.0 / (r + 2.0) ** s for r in range(n)]


class _NameMaker:
    """Programmatic word forms from syllables, never colliding with reserved forms."""

    def __init__(self, rng: random.Random, reserved: set[str]):
        self.rng = rng
        self.used = set(reserved)

    def syllable(self) -> str:
        r = self.rng
        return r.choice(ONSETS) + r.choice(VOWELS) + r.choice(CODAS)

    def make(
        self, n_syll: int | None = None, suffix: str = "", check: Callable[[str], Iterable[str]] | None = None
    ) -> str:
        for _ in range(1000):
            k = n_syll or self.rng.choice((1, 2, 2, 2, 3))
            stem = "".join(self.syllable() for _ in range(k))
            if "ii" in stem or (not suffix and (len(stem) < 3 or stem[-1] in "sxzyeh" or stem.endswith(("ng", "ed")))):
                continue
            w = stem + suffix
            forms = {w} | set(check(w) if check else ())
            if forms & self.used:
                continue
            self.used.update(forms)
            return w
        raise RuntimeError("could not make a fresh word form")  # pragma: no cover


@functools.lru_cache(maxsize=16)
def _build_lexicon(seed: int, vocab_size: int, zipf: float, ambiguous_fraction: float) -> Lexicon:
    rng = random.Random(f"toy-english-lexicon:{seed}:{vocab_size}")
    reserved = set(function_words()) | set(NUMERALS) | {a for pair in SPECIAL_NOUNS for a in pair}
    reserved |= set(SIZE_WORDS) | set(REAL_ADJS) | set(REAL_ADVS)
    # --- real nouns
    real_nouns: list[tuple[str, str, str]] = []
    for cls, spec in REAL_NOUNS.items():
        for item in spec.split():
            sg, _, pl = item.partition("/")
            pl = sg if pl == "=" else (pl or plural(sg))
            real_nouns.append((sg, pl, cls))
    # --- real verbs
    real_verbs = []
    for base, (tr, ag, pa) in REAL_VERBS.items():
        s3, past, ing = regular_forms(base)
        part = past
        if base in IRREGULAR_VERBS:
            past, part = IRREGULAR_VERBS[base]
        real_verbs.append([base, s3, past, part, ing, tr, _parse_prefs(ag), _parse_prefs(pa)])
    for v in special_verbs().values():
        reserved.update((v.base, v.s3, v.past, v.part, v.ing))
    for sg, pl, _ in real_nouns:
        reserved.update((sg, pl))
    for v in real_verbs:
        reserved.update(v[:5])
    names = _NameMaker(rng, reserved)

    n_real = len(real_nouns) + len(real_verbs) + len(REAL_ADJS) + len(REAL_ADVS)
    n_gen = max(0, vocab_size - n_real)
    n_gen_nouns = int(0.45 * n_gen)
    n_gen_verbs = int(0.25 * n_gen)
    n_gen_adjs = int(0.20 * n_gen)
    n_gen_advs = n_gen - n_gen_nouns - n_gen_verbs - n_gen_adjs
    n_amb = int(round(ambiguous_fraction * (n_gen_verbs + len(real_verbs))))
    classes = list(CLASSES)
    class_w = [3 if c in ("tool", "abstract", "food", "person", "place") else 1.5 if c in HUMAN else 1 for c in classes]

    def verb_forms(w: str) -> list[str]:
        s3, past, ing = regular_forms(w)
        return [s3, past, ing]

    # generated nouns and verbs (the first n_amb verbs double as nouns)
    gen_nouns: list[tuple[str, str, str, bool]] = []
    gen_verbs: list[list[Any]] = []
    animate = list(ANIMATE)

    def random_prefs(primary: str, pool: Sequence[str]) -> tuple[tuple[str, float], ...]:
        second = rng.choice([c for c in pool if c != primary])
        return ((primary, 1.0), (second, round(rng.uniform(0.1, 0.35), 3)))

    # converse pairs among generated transitive verbs (role-reversal material)
    n_conv = max(2, n_gen_verbs // 40)
    converses = list(REAL_CONVERSES)
    for i in range(n_gen_verbs):
        transitive = i < n_gen_verbs * 0.7
        w = names.make(check=lambda x: verb_forms(x) + [plural(x)])
        if transitive:
            if i < 2 * n_conv:
                if i % 2 == 0:
                    a, b = rng.sample(animate, 2)
                    gen_verbs.append([w, True, ((a, 1.0),), ((b, 1.0),)])
                else:
                    prev = gen_verbs[-1]
                    a, b = prev[2][0][0], prev[3][0][0]
                    gen_verbs.append([w, True, ((b, 1.0),), ((a, 1.0),)])
                    converses.append((prev[0], w, a, b))
            else:
                gen_verbs.append(
                    [w, True, random_prefs(rng.choice(animate), animate), random_prefs(rng.choice(classes), classes)]
                )
        else:
            gen_verbs.append([w, False, random_prefs(rng.choice(animate), animate), ()])
    # ambiguous stems: the verb's base doubles as a noun (and s3 == plural)
    amb_idx = set(rng.sample(range(len(gen_verbs)), min(n_amb, len(gen_verbs))))
    for i in sorted(amb_idx):
        w = gen_verbs[i][0]
        gen_nouns.append((w, plural(w), rng.choices(classes, weights=class_w)[0], True))
    while len(gen_nouns) < n_gen_nouns:
        if rng.random() < 0.03:  # number-invariant, like "sheep"
            w = names.make()
            gen_nouns.append((w, w, rng.choices(classes, weights=class_w)[0], False))
            continue
        w = names.make(check=lambda x: [plural(x)])
        gen_nouns.append((w, plural(w), rng.choices(classes, weights=class_w)[0], False))
    adjs = [names.make(n_syll=rng.choice((1, 1, 2)), suffix=rng.choice(ADJ_SUFFIXES)) for _ in range(n_gen_adjs)]
    advs = []
    for _ in range(n_gen_advs):
        a = names.make(n_syll=rng.choice((1, 2)), suffix="ly")
        advs.append(a)

    # --- Zipf weights: frequent ranks for ambiguous stems and for real words
    def ranked(items: list[Any], favoured: Callable[[Any], bool], top: int) -> dict[int, float]:
        n = len(items)
        ws = _zipf_weights(n, zipf)
        order = list(range(n))
        rng.shuffle(order)
        fav = [i for i in order if favoured(items[i])]
        rest = [i for i in order if not favoured(items[i])]
        # favoured items take random ranks among the first `top` + len(fav) ranks
        head_ranks = list(range(min(n, top + len(fav))))
        fav_ranks = sorted(rng.sample(head_ranks, len(fav)))
        taken = set(fav_ranks)
        free = [r for r in range(n) if r not in taken]
        out = {}
        for i, r in zip(fav, fav_ranks):
            out[i] = ws[r]
        for i, r in zip(rest, free):
            out[i] = ws[r]
        return out

    real_amb = set(REAL_AMBIGUOUS)
    noun_items = [(sg, pl, cls, sg in real_amb, True) for sg, pl, cls in real_nouns]
    noun_items += [(sg, pl, cls, amb, False) for sg, pl, cls, amb in gen_nouns]
    nw = ranked(noun_items, lambda it: it[3] or it[4] or it[0] == it[1], 60)
    nouns = [Noun(sg, pl, cls, nw[i], amb) for i, (sg, pl, cls, amb, _) in enumerate(noun_items)]
    # real verbs in the same list as generated ones
    amb_bases = {n.sg for n in nouns if n.also_verb}
    verb_items: list[list[Any]] = []
    for base, s3, past, part, ing, tr, ag, pa in real_verbs:
        verb_items.append([base, s3, past, part, ing, tr, ag, pa, True])
    for w, tr, ag, pa in gen_verbs:
        s3, past, ing = regular_forms(w)
        verb_items.append([w, s3, past, past, ing, tr, ag, pa, False])
    vw = ranked(verb_items, lambda it: it[0] in amb_bases or it[8], 30)
    verbs = [
        Verb(it[0], it[1], it[2], it[3], it[4], it[5], it[6], it[7], vw[i] * 2.0, it[0] in amb_bases)
        for i, it in enumerate(verb_items)
    ]
    # ambiguous stems: make their noun weight comparable to their verb weight so that
    # context must decide (otherwise one reading would dominate).
    vweight = {v.base: v.weight for v in verbs}
    nouns = [dataclasses.replace(n, weight=max(n.weight, 0.6 * vweight[n.sg])) if n.also_verb else n for n in nouns]
    adj_items = list(REAL_ADJS) + adjs
    aw = ranked(adj_items, lambda a: a in REAL_ADJS, 10)
    adj_list = [(a, aw[i]) for i, a in enumerate(adj_items)]
    adv_items = list(REAL_ADVS) + advs
    avw = ranked(adv_items, lambda a: a in REAL_ADVS, 4)
    adv_list = [(a, avw[i]) for i, a in enumerate(adv_items)]
    return Lexicon(nouns, verbs, adj_list, adv_list, converses)


def lexicon(config: ToyEnglishConfig) -> Lexicon:
    """The (cached) lexicon of ``config``; depends on seed, vocab_size, zipf, ambiguity."""
    return _build_lexicon(config.seed, config.vocab_size, float(config.zipf_exponent), float(config.ambiguous_fraction))


def verb_form_number(word: str, lex: Lexicon) -> str | None:
    """ "Sing"/"Plur" if ``word`` is a finite form marking number (aux or present verb)."""
    if word in AUX_NUMBER:
        return AUX_NUMBER[word]
    info = lex.verb_form_info.get(word, set())
    if "Sing" in info:
        return "Sing"
    if "Plur" in info:
        return "Plur"
    return None
