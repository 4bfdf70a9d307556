"""CheckList behavioural tests with gold labels (Ribeiro et al. 2020): the toy negation suite
and a small SST-2 suite.

A :class:`BehaviourTest` is a list of :class:`TestItem` with one of three expectations
(:data:`KINDS`). ``MFT`` (minimum functionality): the prediction on ``text`` must be
``label``. ``INV`` (invariance): a label-preserving perturbation must not change the
predicted label. ``DIR`` (directional expectation): the probability of class ``target``
must move in ``direction`` (+1 up, -1 down); it fails when it moves the other way by more
than ``tolerance`` (CheckList's ``Expect.monotonic``; its sentiment suite uses 0.1).

:func:`negation_suite` builds one for the toy negation classifier from the toy-English
grammar primitives, so every item's gold label is known by construction *and* re-derived
with the task's own rule (:func:`item_gold`); :func:`sst2_suite` builds a small one for
SST-2 from templates and real test sentences. Items are deterministic from ``seed``.
The HANS-like NLI items are in :mod:`bertology_lib.data.hans`; running a model on the
tests is :mod:`bertology_lib.experiments.survey.behaviour`. Used by the survey §7 notebook.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from bertology_lib.data.tasks import main_clause_negated, toy_world
from bertology_lib.data.toy_english import (
    CLASSES,
    Builder,
    Noun,
    Phrase,
    Sentence,
    Token,
    ToyEnglishConfig,
    knowledge_base,
)
from bertology_lib.errors import ParameterError
from bertology_lib.validation import check_choice, check_float, check_int, check_seed

__all__ = [
    "KINDS",
    "NEGATION_TESTS",
    "SST2_TESTS",
    "TestItem",
    "BehaviourTest",
    "negation_suite",
    "item_gold",
    "sst2_suite",
]

KINDS: tuple[str, ...] = ("MFT", "INV", "DIR")
MAX_ITEMS = 100_000  # items per test


@dataclass(frozen=True)
class TestItem:
    """One test case: ``text`` (MFT) or ``text`` -> ``perturbed`` (INV, DIR).

    ``label``/``perturbed_label``: gold labels when known (MFT needs ``label``).
    ``pair``/``perturbed_pair``: the second sentence of a pair task (unused here).
    """

    text: str
    label: int | None = None
    perturbed: str | None = None
    perturbed_label: int | None = None
    meta: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)


@dataclass(frozen=True)
class BehaviourTest:
    """A named CheckList test: its kind, the capability it probes and its items.

    ``target``/``direction``/``tolerance`` are used by DIR tests only.
    """

    name: str
    kind: str
    capability: str
    description: str
    items: tuple[TestItem, ...]
    target: int = 0
    direction: int = 0
    tolerance: float = 0.0

    def __post_init__(self) -> None:
        check_choice("kind", self.kind, KINDS)
        if self.kind == "MFT" and any(i.label is None for i in self.items):
            raise ParameterError(f"MFT test {self.name!r} has items without a label; allowed: every item labelled")
        if self.kind in ("INV", "DIR") and any(i.perturbed is None for i in self.items):
            raise ParameterError(
                f"{self.kind} test {self.name!r} has items without a perturbed text; "
                "allowed: every item with `perturbed`"
            )
        if self.kind == "DIR":
            check_choice("direction", self.direction, (-1, 1))
        check_float("tolerance", self.tolerance, 0.0, 1.0, open_max=True)


# ---------------------------------------------------------------------------------
# The toy negation suite
# ---------------------------------------------------------------------------------

NEGATION_TESTS: tuple[tuple[str, str, str, str], ...] = (
    # (name, kind, capability, description)
    ("not in the main clause", "MFT", "negation", "main clause negated with 'not' -> negated"),
    ("never in the main clause", "MFT", "negation", "main clause negated with 'never' -> negated"),
    ("no on the subject", "MFT", "negation", "'no' as the subject's determiner -> negated"),
    ("affirmative", "MFT", "negation", "a plain affirmative clause -> affirmative"),
    ("negated relative clause only", "MFT", "scope", "'not' only in a relative clause on the object -> affirmative"),
    ("negated subordinate clause only", "MFT", "scope", "'not' only in a subordinate clause -> affirmative"),
    ("negated main, affirmative relative", "MFT", "scope", "main clause negated, relative clause not -> negated"),
    ("swap the subject noun", "INV", "vocabulary", "another noun of the same class and number"),
    ("swap the subject's name", "INV", "vocabulary", "another person's name"),
    ("add a place PP", "INV", "robustness", "an adjunct such as 'in the garden'"),
    ("add an adverb", "INV", "robustness", "an adverb after the object"),
    ("change the subject's number", "INV", "robustness", "singular <-> plural (the verb agrees)"),
    ("add a negated relative clause", "INV", "scope", "'that is not X' on the object: the main clause is unchanged"),
    ("add a negated subordinate clause", "INV", "scope", "'because the N does not V': the main clause is unchanged"),
    ("negate the main clause", "DIR", "negation", "affirmative -> 'not': P(negated) must not fall"),
    ("remove the main-clause negation", "DIR", "negation", "'not' -> affirmative: P(negated) must not rise"),
)

_SCONJS = ("because", "when", "although", "while")
_PLACE_PREPS = ("in", "near", "behind", "beside")
_OTHER = {"Sing": "Plur", "Plur": "Sing"}


@dataclass(frozen=True)
class _Frame:
    """The lexical choices of one negation-suite item; rendered with or without variations."""

    seed: int
    name: str | None
    alt_name: str | None
    noun: Noun | None
    alt_noun: Noun | None
    number: str
    verb: Any
    obj: Noun
    obj_number: str
    tense: str
    rel_adj: str
    sub_noun: Noun
    sub_number: str
    sub_verb: Any
    sconj: str
    place: Noun
    prep: str
    adverb: str


class _NegationSuite:
    """Draws item frames and renders them with the grammar primitives (one ``Builder``, reset per item)."""

    def __init__(self, config: ToyEnglishConfig, seed: int) -> None:
        self.rng = random.Random(f"behaviour:negation:{seed}")
        self.b = Builder(config, random.Random(0))
        self.lex = self.b.lex
        self.people = tuple(knowledge_base(config.seed).people)
        self.adverbs = tuple(a for a in self.lex.adverbs if a not in ("already", "yet", "ever"))

    def _noun(self, cls: str | None, exclude: Sequence[str] = (), animate: bool = False) -> Noun:
        rng = self.rng
        for _ in range(500):
            n = self.lex.noun(rng, cls)
            if n.invariant or n.sg in exclude or n.also_verb or (animate and not CLASSES[n.cls][0]):
                continue
            return n
        raise ParameterError(f"no noun of class {cls!r} found; allowed: a larger vocabulary")  # pragma: no cover

    def frame(self, with_name: bool = False) -> _Frame:
        rng, lex = self.rng, self.lex
        noun = alt = None
        name = alt_name = None
        if with_name:
            name, alt_name = rng.sample(self.people, 2)
            cls, number = "person", "Sing"
        else:
            cls = rng.choice([c for c in CLASSES if CLASSES[c][0]])
            noun = self._noun(cls)
            alt = self._noun(cls, exclude=(noun.sg,))
            number = rng.choice(("Sing", "Plur"))
        verb = lex.verb_for(rng, "agent", cls, True)
        obj = self._noun(lex.arg_class(rng, verb, "patient"), exclude=tuple(x.sg for x in (noun, alt) if x))
        sub_cls = rng.choice([c for c in CLASSES if CLASSES[c][0]])
        sub_noun = self._noun(sub_cls, exclude=(obj.sg,))
        return _Frame(
            rng.randrange(2**31),
            name,
            alt_name,
            noun,
            alt,
            number,
            verb,
            obj,
            rng.choice(("Sing", "Plur")),
            rng.choice(("pres", "past", "perf")),
            lex.adjective(rng),
            sub_noun,
            rng.choice(("Sing", "Plur")),
            lex.verb_for(rng, "agent", sub_cls, False),
            rng.choice(_SCONJS),
            self._noun("place"),
            rng.choice(_PLACE_PREPS),
            rng.choice(self.adverbs),
        )

    def render(
        self,
        f: _Frame,
        *,
        neg: str | None = None,
        rel: str | None = None,
        sub: str | None = None,
        pp: bool = False,
        adv: bool = False,
        flip_number: bool = False,
        swap: bool = False,
    ) -> Sentence:
        """The frame as a sentence; ``neg``: None | not | never | no; ``rel``/``sub``: None | aff | neg."""
        b = self.b
        b.reset()
        b.rng = random.Random(f.seed)  # the relative pronoun is the only random choice left
        if f.name is not None:
            subj = b.propn(f.alt_name if swap else f.name)  # type: ignore[arg-type]
        else:
            number = _OTHER[f.number] if flip_number else f.number
            subj = b.np(f.alt_noun if swap else f.noun, number, "no" if neg == "no" else "the")  # type: ignore[arg-type]
        obj = b.np(f.obj, f.obj_number, "the")
        if rel is not None:
            b.add_relative(
                obj,
                lambda r: b.clause(
                    None,
                    "cop_adj",
                    adj=f.rel_adj,
                    tense="pres",
                    neg="not" if rel == "neg" else None,
                    gap="subj",
                    rel=r,
                    controller=obj,
                    kind="rel",
                ),
            )
        adjunct = (f.prep, b.np(f.place, "Sing", "the")) if pp else None
        cl = b.clause(
            subj,
            "trans",
            verb=f.verb,
            obj=obj,
            tense=f.tense,
            neg=neg if neg in ("not", "never") else None,
            adjunct=adjunct,
            post_adv=f.adverb if adv else None,
            kind="main",
        )
        if sub is not None:
            s_subj = b.np(f.sub_noun, f.sub_number, "the")
            sc = b.clause(
                s_subj, "intr", verb=f.sub_verb, tense="pres", neg="not" if sub == "neg" else None, kind="sub"
            )
            mark = Token(f.sconj, "SCONJ").attach(sc.head, "mark")
            sc.head.attach(cl.head, "advcl")
            cl = Phrase(cl.toks + [mark] + sc.toks, cl.head, kind="clause")
        return b.finalize(b.sentence(cl), {"kind": "behaviour"}, subj.head, None)


def item_gold(sentence: Sentence) -> int:
    """The toy negation task's label of a sentence: 1 when its main clause is negated."""
    return int(
        main_clause_negated(sentence.words, sentence.heads, sentence.deprels, sentence.meta.get("subject_index"))
    )


def negation_suite(world: Any, n_per_test: int = 50, seed: int = 0) -> list[BehaviourTest]:
    """The CheckList suite for the toy negation classifier (:data:`NEGATION_TESTS`).

    ``world``: the toy classification task (or its ToyEnglishConfig), so every word is in the
    model's vocabulary. Labels: 0 = affirmative, 1 = negated. Each item's gold label is
    re-derived with the task's rule and must agree with the construction.
    """
    check_int("n_per_test", n_per_test, 1, MAX_ITEMS)
    check_seed(seed)
    s = _NegationSuite(toy_world(world), seed)
    out = []
    for name, kind, capability, description in NEGATION_TESTS:
        items = []
        for i in range(n_per_test):
            f = s.frame(with_name=name == "swap the subject's name")
            base_neg = s.rng.choice((None, "not"))  # INV bases of both labels
            if kind == "MFT":
                variant = {
                    "not in the main clause": dict(neg="not"),
                    "never in the main clause": dict(neg="never"),
                    "no on the subject": dict(neg="no"),
                    "affirmative": {},
                    "negated relative clause only": dict(rel="neg"),
                    "negated subordinate clause only": dict(sub="neg"),
                    "negated main, affirmative relative": dict(neg="not", rel="aff"),
                }[name]
                sent = s.render(f, **variant)
                expected = int(variant.get("neg") is not None)
                pair = (sent, None)
            elif kind == "INV":
                change = {
                    "swap the subject noun": dict(swap=True),
                    "swap the subject's name": dict(swap=True),
                    "add a place PP": dict(pp=True),
                    "add an adverb": dict(adv=True),
                    "change the subject's number": dict(flip_number=True),
                    "add a negated relative clause": dict(rel="neg"),
                    "add a negated subordinate clause": dict(sub="neg"),
                }[name]
                pair = (s.render(f, neg=base_neg), s.render(f, neg=base_neg, **change))
                expected = int(base_neg is not None)
            else:
                up = name == "negate the main clause"
                pair = (s.render(f, neg=None if up else "not"), s.render(f, neg="not" if up else None))
                expected = 0 if up else 1
            golds = [None if x is None else item_gold(x) for x in pair]
            if (
                golds[0] != expected
                or (kind == "INV" and golds[1] != expected)
                or (kind == "DIR" and golds[1] != 1 - expected)
            ):  # pragma: no cover - a grammar bug
                raise AssertionError(f"{name}: constructed label {expected} disagrees with the rule: {pair}")
            a, bb = pair
            items.append(
                TestItem(
                    a.text,
                    golds[0],
                    None if bb is None else bb.text,
                    golds[1],
                    {"test": name, "i": i, "tense": f.tense},
                )
            )
        kw: dict[str, Any] = {}
        if kind == "DIR":
            kw = dict(target=1, direction=1 if name == "negate the main clause" else -1, tolerance=0.1)
        out.append(BehaviourTest(name, kind, capability, description, tuple(items), **kw))
    return out


# ---------------------------------------------------------------------------------
# A small SST-2 suite
# ---------------------------------------------------------------------------------

SST2_TESTS: tuple[tuple[str, str, str, str], ...] = (
    ("simple sentiment", "MFT", "vocabulary", "'the movie is good .' -> positive; '... bad .' -> negative"),
    ("negated positive", "MFT", "negation", "'the movie is not good .' -> negative"),
    ("typo", "INV", "robustness", "two adjacent letters of one word swapped"),
    ("irrelevant suffix", "INV", "robustness", "a neutral sentence appended ('i saw it on a tuesday .')"),
    ("add a negative phrase", "DIR", "vocabulary", "'... but it was awful .' appended: P(positive) must not rise"),
    ("add a positive phrase", "DIR", "vocabulary", "'... and it was great .' appended: P(positive) must not fall"),
    ("negate the sentiment", "DIR", "negation", "'is good' -> 'is not good': P(positive) must not rise"),
    (
        "negated positive, neutral words between",
        "MFT",
        "negation",
        "'i would not say , given that it was a tuesday , that the movie was good .' -> negative",
    ),
    ("negated negative", "MFT", "negation", "'the movie was not bad .' -> positive (no longer negative)"),
)
_SST2_NOUNS = ("movie", "film", "story", "acting", "script", "plot", "cast", "director")
_SST2_POS = ("good", "great", "excellent", "wonderful", "enjoyable", "beautiful", "funny", "brilliant")
_SST2_NEG = ("bad", "awful", "terrible", "boring", "dull", "poor", "ugly", "weak")
_SST2_NEUTRAL = (
    "i saw it on a tuesday .",
    "it was shown in the evening .",
    "my friend came with me .",
    "the theater was on main street .",
)
_SST2_NEUTRAL_CLAUSE = ("it was a tuesday", "i saw it at night", "the theater was full", "my friend came along")
_SST2_NEG_PHRASE = ("but it was awful .", "but i hated it .", "but it was a waste of time .")
_SST2_POS_PHRASE = ("and it was great .", "and i loved it .", "and it was worth seeing .")


def _typo(text: str, rng: random.Random) -> str:
    words = text.split()
    idx = [i for i, w in enumerate(words) if len(w) >= 4 and w.isalpha()]
    if not idx:
        return text
    i = rng.choice(idx)
    w = words[i]
    j = rng.randrange(len(w) - 1)
    words[i] = w[:j] + w[j + 1] + w[j] + w[j + 2 :]
    return " ".join(words)


def sst2_suite(sentences: Sequence[str], n_per_test: int = 50, seed: int = 0) -> list[BehaviourTest]:
    """A small CheckList suite for SST-2 (labels 0 = negative, 1 = positive; :data:`SST2_TESTS`).

    Templates for the MFTs and the negation DIR; the INV and phrase DIR tests perturb
    ``sentences`` (e.g. SST-2 test sentences), as CheckList does with real data.
    """
    check_int("n_per_test", n_per_test, 1, MAX_ITEMS)
    check_seed(seed)
    sentences = [s for s in sentences if isinstance(s, str) and s.strip()]
    if not sentences:
        raise ParameterError("sentences=[] is empty; allowed: a non-empty list of sentences to perturb")
    rng = random.Random(f"behaviour:sst2:{seed}")

    def template(neg: bool, positive: bool) -> str:
        adj = rng.choice(_SST2_POS if positive else _SST2_NEG)
        return (
            f"{rng.choice(('the', 'this'))} {rng.choice(_SST2_NOUNS)} {rng.choice(('is', 'was'))} "
            f"{'not ' if neg else ''}{adj} ."
        )

    out = []
    for name, kind, capability, description in SST2_TESTS:
        items = []
        for i in range(n_per_test):
            src = rng.choice(sentences)
            if name == "simple sentiment":
                pos = i % 2 == 0
                items.append(TestItem(template(False, pos), int(pos)))
            elif name == "negated positive":
                items.append(TestItem(template(True, True), 0))
            elif name == "typo":
                items.append(TestItem(src, None, _typo(src, rng)))
            elif name == "irrelevant suffix":
                items.append(TestItem(src, None, f"{src} {rng.choice(_SST2_NEUTRAL)}"))
            elif name == "add a negative phrase":
                items.append(TestItem(src, None, f"{src} {rng.choice(_SST2_NEG_PHRASE)}"))
            elif name == "add a positive phrase":
                items.append(TestItem(src, None, f"{src} {rng.choice(_SST2_POS_PHRASE)}"))
            elif name == "negated positive, neutral words between":
                clause = rng.choice(_SST2_NEUTRAL_CLAUSE)
                adj, noun = rng.choice(_SST2_POS), rng.choice(_SST2_NOUNS)
                items.append(TestItem(f"i would not say , given that {clause} , that the {noun} was {adj} .", 0))
            elif name == "negated negative":
                items.append(TestItem(template(True, False), 1))
            else:
                t = template(False, True)
                items.append(TestItem(t, 1, t.replace(" is ", " is not ").replace(" was ", " was not "), 0))
        kw: dict[str, Any] = {}
        if kind == "DIR":
            kw = dict(target=1, direction=1 if name == "add a positive phrase" else -1, tolerance=0.1)
        out.append(BehaviourTest(name, kind, capability, description, tuple(items), **kw))
    return out
