"""Behavioural testing (CheckList) and the lexical-overlap heuristic (HANS), survey §7.

Used by ``notebooks/survey_07_directions.ipynb``.

* **CheckList** (Ribeiro et al. 2020): a :class:`BehaviourTest` is a list of
  :class:`TestItem` with one of three expectations. ``MFT`` (minimum functionality):
  the prediction on ``text`` must be ``label``. ``INV`` (invariance): a label-preserving
  perturbation must not change the predicted label. ``DIR`` (directional expectation):
  the probability of class ``target`` must move in ``direction`` (+1 up, -1 down); it
  fails when it moves the other way by more than ``tolerance`` (CheckList's
  ``Expect.monotonic``; its sentiment suite uses 0.1). :func:`negation_suite` builds
  one for the toy negation classifier from the toy-English grammar primitives, so
  every item's gold label is known by construction *and* re-derived with the task's
  own rule (:func:`item_gold`); :func:`sst2_suite` builds a small one for SST-2
  from templates and real test sentences.
* **HANS-like items** (McCoy et al. 2019): :func:`hans_like` builds toy-NLI pairs
  whose hypothesis words are all in the premise, in five non-entailed categories
  (lexical overlap, subsequence, constituent heuristics) and three entailed
  controls, scored binary (entailment vs not) as HANS is. :func:`overlap_table`
  says how predictive full overlap is of entailment in a training set, and
  :func:`overlap_biased_nli` makes a training set where it is perfectly predictive.
* :func:`finetuned` fine-tunes once per (task, model, config, seed) and caches the
  *weights* (not only predictions), so a rerun can evaluate new items without
  retraining. :func:`run_tests` and :func:`failure_table` turn a model and a suite
  into per-item outcomes and per-test failure rates with Wilson intervals.

The grammar primitives (``_Builder``) are the same ones the toy tasks and the §3
suites use; items are deterministic from ``seed``.
"""

from __future__ import annotations

import dataclasses
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch

from bertology_lib.training import finetune as ft
from bertology_lib.cache import ArtifactCache, load_tensors, save_tensors
from bertology_lib.data.tasks import NLI_LABELS, ClassificationExample, Task, _main_clause_negated
from bertology_lib.data.toy_english import (
    CLASSES,
    LICENSORS,
    Fact,
    Noun,
    Sentence,
    ToyEnglishConfig,
    _Builder,
    _Chunk,
    _Phrase,
    _special_verbs,
    _Tok,
    knowledge_base,
)
from bertology_lib.errors import ParameterError

__all__ = [
    "KINDS", "NEGATION_TESTS", "SST2_TESTS", "HANS_CATEGORIES", "BehaviourSizes", "TestItem", "BehaviourTest",
    "negation_suite", "item_gold", "sst2_suite", "hans_like", "hans_table", "overlap_table",
    "overlap_biased_nli", "nli_split", "finetuned", "predict_probs", "run_tests", "failure_table",
    "summarise_seeds", "wilson_interval", "full_overlap", "checklist_sweep", "hans_sweep", "hans_summary",
]

KINDS: tuple[str, ...] = ("MFT", "INV", "DIR")
BEHAVIOUR_VERSION = 1
CACHE_KIND = "finetuned-model"


# ---------------------------------------------------------------------------------
# Sizes
# ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class BehaviourSizes:
    """Sizes of the §7 notebook per profile."""

    n_seeds: int  # fine-tuning seeds per configuration
    cls_train: int  # toy negation classifier: training sentences
    cls_test: int  # ... dev and test sentences (each)
    n_per_test: int  # CheckList items per test
    nli_train: int  # toy NLI training pairs
    nli_test: int  # toy NLI dev and test pairs (each)
    n_per_heuristic: int  # HANS-like items per category
    sst2_train: int  # SST-2 training sentences (MiniLM)
    sst2_test: int | None  # SST-2 test sentences (None = all 872)
    sst2_per_test: int  # SST-2 CheckList items per test

    @classmethod
    def for_profile(cls, profile: Any) -> "BehaviourSizes":
        name = getattr(profile, "name", profile)
        table = {
            "smoke": cls(2, 48, 32, 8, 48, 32, 8, 32, 32, 8),
            "quick": cls(3, 1000, 300, 50, 2000, 300, 50, 1000, None, 50),
            "full": cls(5, 5000, 1000, 200, 10000, 1000, 200, 20000, None, 200),
        }
        if name not in table:
            raise ParameterError(f"profile={name!r} is unknown; allowed: {', '.join(table)}")
        return table[name]


# ---------------------------------------------------------------------------------
# Items and tests
# ---------------------------------------------------------------------------------


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
        if self.kind not in KINDS:
            raise ParameterError(f"kind={self.kind!r} is not a CheckList test kind; allowed: {', '.join(KINDS)}")
        if self.kind == "MFT" and any(i.label is None for i in self.items):
            raise ParameterError(f"MFT test {self.name!r} has items without a label; allowed: every item labelled")
        if self.kind in ("INV", "DIR") and any(i.perturbed is None for i in self.items):
            raise ParameterError(f"{self.kind} test {self.name!r} has items without a perturbed text; "
                                 "allowed: every item with `perturbed`")
        if self.kind == "DIR" and self.direction not in (-1, 1):
            raise ParameterError(f"direction={self.direction!r} is not allowed for a DIR test; allowed: -1, 1")
        if not (isinstance(self.tolerance, (int, float)) and 0 <= self.tolerance < 1):
            raise ParameterError(f"tolerance={self.tolerance!r} is out of range; allowed: a number in [0, 1)")


def _check_n(name: str, value: Any, lo: int = 1, hi: int = 100_000) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise ParameterError(f"{name}={value!r} is out of range; allowed: an int in [{lo}, {hi}]")


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
    def __init__(self, config: ToyEnglishConfig, seed: int) -> None:
        self.rng = random.Random(f"behaviour:negation:{seed}")
        self.b = _Builder(config, random.Random(0))
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
        return _Frame(rng.randrange(2**31), name, alt_name, noun, alt, number, verb, obj,
                      rng.choice(("Sing", "Plur")), rng.choice(("pres", "past", "perf")), lex.adjective(rng),
                      sub_noun, rng.choice(("Sing", "Plur")), lex.verb_for(rng, "agent", sub_cls, False),
                      rng.choice(_SCONJS), self._noun("place"), rng.choice(_PLACE_PREPS), rng.choice(self.adverbs))

    def render(self, f: _Frame, *, neg: str | None = None, rel: str | None = None, sub: str | None = None,
               pp: bool = False, adv: bool = False, flip_number: bool = False, swap: bool = False) -> Sentence:
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
            b.add_relative(obj, lambda r: b.clause(None, "cop_adj", adj=f.rel_adj, tense="pres",
                                                   neg="not" if rel == "neg" else None, gap="subj", rel=r,
                                                   controller=obj, kind="rel"))
        adjunct = (f.prep, b.np(f.place, "Sing", "the")) if pp else None
        cl = b.clause(subj, "trans", verb=f.verb, obj=obj, tense=f.tense,
                      neg=neg if neg in ("not", "never") else None, adjunct=adjunct,
                      post_adv=f.adverb if adv else None, kind="main")
        if sub is not None:
            s_subj = b.np(f.sub_noun, f.sub_number, "the")
            sc = b.clause(s_subj, "intr", verb=f.sub_verb, tense="pres", neg="not" if sub == "neg" else None,
                          kind="sub")
            mark = _Tok(f.sconj, "SCONJ").attach(sc.head, "mark")
            sc.head.attach(cl.head, "advcl")
            cl = _Phrase(cl.toks + [mark] + sc.toks, cl.head, kind="clause")
        return b.finalize(b.sentence(cl), {"kind": "behaviour"}, subj.head, None)


def item_gold(sentence: Sentence) -> int:
    """The toy negation task's label of a sentence: 1 when its main clause is negated."""
    return int(_main_clause_negated(sentence.words, sentence.heads, sentence.deprels,
                                    sentence.meta.get("subject_index")))


def _world_config(task_or_config: Any) -> ToyEnglishConfig:
    if isinstance(task_or_config, ToyEnglishConfig):
        return task_or_config
    if isinstance(task_or_config, Task) and "world_seed" in task_or_config.config:
        c = task_or_config.config
        return ToyEnglishConfig(n_sentences=1, seed=c["world_seed"], vocab_size=c["vocab_size"])
    raise ParameterError(f"world={task_or_config!r} is not usable; allowed: a toy task (its world_seed and "
                         "vocab_size) or a ToyEnglishConfig")


def negation_suite(world: Any, n_per_test: int = 50, seed: int = 0) -> list[BehaviourTest]:
    """The CheckList suite for the toy negation classifier (:data:`NEGATION_TESTS`).

    ``world``: the toy classification task (or its ToyEnglishConfig), so every word is in the
    model's vocabulary. Labels: 0 = affirmative, 1 = negated. Each item's gold label is
    re-derived with the task's rule and must agree with the construction.
    """
    _check_n("n_per_test", n_per_test)
    _check_n("seed", seed, 0, 2**62)
    s = _NegationSuite(_world_config(world), seed)
    out = []
    for name, kind, capability, description in NEGATION_TESTS:
        items = []
        for i in range(n_per_test):
            f = s.frame(with_name=name == "swap the subject's name")
            base_neg = s.rng.choice((None, "not"))  # INV bases of both labels
            if kind == "MFT":
                variant = {"not in the main clause": dict(neg="not"), "never in the main clause": dict(neg="never"),
                           "no on the subject": dict(neg="no"), "affirmative": {},
                           "negated relative clause only": dict(rel="neg"),
                           "negated subordinate clause only": dict(sub="neg"),
                           "negated main, affirmative relative": dict(neg="not", rel="aff")}[name]
                sent = s.render(f, **variant)
                expected = int(variant.get("neg") is not None)
                pair = (sent, None)
            elif kind == "INV":
                change = {"swap the subject noun": dict(swap=True), "swap the subject's name": dict(swap=True),
                          "add a place PP": dict(pp=True), "add an adverb": dict(adv=True),
                          "change the subject's number": dict(flip_number=True),
                          "add a negated relative clause": dict(rel="neg"),
                          "add a negated subordinate clause": dict(sub="neg")}[name]
                pair = (s.render(f, neg=base_neg), s.render(f, neg=base_neg, **change))
                expected = int(base_neg is not None)
            else:
                up = name == "negate the main clause"
                pair = (s.render(f, neg=None if up else "not"), s.render(f, neg="not" if up else None))
                expected = 0 if up else 1
            golds = [None if x is None else item_gold(x) for x in pair]
            if golds[0] != expected or (kind == "INV" and golds[1] != expected) or \
                    (kind == "DIR" and golds[1] != 1 - expected):  # pragma: no cover - a grammar bug
                raise AssertionError(f"{name}: constructed label {expected} disagrees with the rule: {pair}")
            a, bb = pair
            items.append(TestItem(a.text, golds[0], None if bb is None else bb.text, golds[1],
                                  {"test": name, "i": i, "tense": f.tense}))
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
)
_SST2_NOUNS = ("movie", "film", "story", "acting", "script", "plot", "cast", "director")
_SST2_POS = ("good", "great", "excellent", "wonderful", "enjoyable", "beautiful", "funny", "brilliant")
_SST2_NEG = ("bad", "awful", "terrible", "boring", "dull", "poor", "ugly", "weak")
_SST2_NEUTRAL = ("i saw it on a tuesday .", "it was shown in the evening .", "my friend came with me .",
                 "the theater was on main street .")
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
    words[i] = w[:j] + w[j + 1] + w[j] + w[j + 2:]
    return " ".join(words)


def sst2_suite(sentences: Sequence[str], n_per_test: int = 50, seed: int = 0) -> list[BehaviourTest]:
    """A small CheckList suite for SST-2 (labels 0 = negative, 1 = positive; :data:`SST2_TESTS`).

    Templates for the MFTs and the negation DIR; the INV and phrase DIR tests perturb
    ``sentences`` (e.g. SST-2 test sentences), as CheckList does with real data.
    """
    _check_n("n_per_test", n_per_test)
    _check_n("seed", seed, 0, 2**62)
    sentences = [s for s in sentences if isinstance(s, str) and s.strip()]
    if not sentences:
        raise ParameterError("sentences=[] is empty; allowed: a non-empty list of sentences to perturb")
    rng = random.Random(f"behaviour:sst2:{seed}")

    def template(neg: bool, positive: bool) -> str:
        adj = rng.choice(_SST2_POS if positive else _SST2_NEG)
        return f"{rng.choice(('the', 'this'))} {rng.choice(_SST2_NOUNS)} {rng.choice(('is', 'was'))} " \
               f"{'not ' if neg else ''}{adj} ."

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
            else:
                t = template(False, True)
                items.append(TestItem(t, 1, t.replace(" is ", " is not ").replace(" was ", " was not "), 0))
        kw: dict[str, Any] = {}
        if kind == "DIR":
            kw = dict(target=1, direction=1 if name == "add a positive phrase" else -1, tolerance=0.1)
        out.append(BehaviourTest(name, kind, capability, description, tuple(items), **kw))
    return out


# ---------------------------------------------------------------------------------
# HANS-like items for the toy NLI
# ---------------------------------------------------------------------------------

_ENT, _NEU, _CON = 0, 1, 2
HANS_CATEGORIES: tuple[tuple[str, str, bool], ...] = (
    # (category, heuristic, entailed)
    ("swapped conjunction", "lexical overlap", False),
    ("reversed comparison", "lexical overlap", False),
    ("negated premise", "subsequence", False),
    ("embedded under 'think'", "constituent", False),
    ("conditional", "constituent", False),
    ("conjunct", "control", True),
    ("one of two sentences", "control", True),
    ("identical sentence", "control", True),
)
_NONFACTIVE = ("think", "believe", "hope", "claim")


def full_overlap(premise: str, hypothesis: str) -> bool:
    """True when every hypothesis word (not ".") occurs in the premise."""
    pw = set(premise.split())
    return all(w in pw for w in hypothesis.split() if w != ".")


def hans_like(world: Any, n_per_category: int = 50, seed: int = 0) -> list[ClassificationExample]:
    """HANS-like toy-NLI pairs (:data:`HANS_CATEGORIES`), all with full lexical overlap.

    Labels follow the toy NLI's rules (:data:`~bertology_lib.data.tasks.NLI_LABELS`):
    contradiction or neutral for the five non-entailed categories, entailment for the
    controls. Facts in entailed premises are true in the knowledge base, and every
    non-entailed hypothesis is false in it, so neither the premise nor memorised world
    knowledge makes a non-entailed pair entailed. ``meta``: category, heuristic, entailed.
    """
    _check_n("n_per_category", n_per_category)
    _check_n("seed", seed, 0, 2**62)
    cfg = _world_config(world)
    rng = random.Random(f"behaviour:hans:{seed}")
    b = _Builder(cfg, random.Random(0))
    kb = knowledge_base(cfg.seed)
    people, cities, occupations = list(kb.people), list(kb.cities), sorted(set(kb.occupation.values()))
    order = list(kb.size_order)
    comp = {v: _special_verbs()[v] for v in _NONFACTIVE}

    def say(fact: Fact, template: int = 0) -> str:
        return b.fact_sentence(fact, template).text

    def body(s: str) -> str:  # without the final " ."
        return s[:-2] if s.endswith(" .") else s

    def other(pool: Sequence[str], *exclude: str) -> str:
        return rng.choice([x for x in pool if x not in exclude])

    def lives(p: str, c: str | None = None) -> str:
        return say(Fact("lives_in", p, c or kb.lives_in[p]))

    def job(p: str, o: str | None = None) -> str:
        return say(Fact("occupation", p, o or kb.occupation[p]))

    out: list[ClassificationExample] = []
    seen: set[str] = set()
    for category, heuristic, entailed in HANS_CATEGORIES:
        made = 0
        for _ in range(200 * n_per_category):
            if made == n_per_category:
                break
            x, y, z = rng.sample(people, 3)
            if category == "swapped conjunction":
                cy = kb.lives_in[y]
                if cy == kb.lives_in[x]:
                    continue
                p, h, label = f"{body(lives(x))} and {lives(y)}", lives(x, cy), _CON
            elif category == "reversed comparison":
                i, j = sorted(rng.sample(range(len(order)), 2))
                p = say(Fact("smaller_than", order[i], order[j]), 1)  # the SMALL is smaller than the BIG
                h, label = f"the {order[j]} is smaller than the {order[i]} .", _CON
            elif category == "negated premise":
                o = other(occupations, kb.occupation[x])
                h = job(x, o)
                p, label = h.replace(" is ", " is not ", 1), _CON
            elif category == "embedded under 'think'":
                v = comp[rng.choice(_NONFACTIVE)]
                h = lives(x, other(cities, kb.lives_in[x]))
                p, label = f"{z} {v.s3} that {h}", _NEU
            elif category == "conditional":
                h = job(y, other(occupations, kb.occupation[y]))
                p, label = f"if {body(lives(x, other(cities, kb.lives_in[x])))} , {h}", _NEU
            elif category == "conjunct":
                a, c = lives(x), job(y)
                p, h, label = f"{body(a)} and {c}", rng.choice((a, c)), _ENT
            elif category == "one of two sentences":
                a, c = lives(x), job(y)
                p, h, label = f"{a} {c}", rng.choice((a, c)), _ENT
            else:
                h = rng.choice((lives(x), job(x)))
                p, label = h, _ENT
            if not full_overlap(p, h) or f"{p} | {h}" in seen:
                continue
            seen.add(f"{p} | {h}")
            out.append(ClassificationExample(f"hans-{len(out)}", p, label, h,
                                             {"category": category, "heuristic": heuristic, "entailed": entailed,
                                              "overlap": 1.0}))
            made += 1
        if made < n_per_category:
            raise ParameterError(f"could only draw {made} distinct {category!r} items; allowed: "
                                 f"n_per_category <= {made}")
    return out


def overlap_table(examples: Sequence[ClassificationExample], label_names: Sequence[str] = NLI_LABELS):
    """How predictive full lexical overlap is of each label: one row per overlap group with label shares."""
    import pandas as pd

    if not examples:
        raise ParameterError("examples=[] is empty; allowed: NLI examples with meta['overlap']")
    rows = [{"full overlap": e.meta.get("overlap", 0.0) >= 1.0, "label": label_names[e.label]} for e in examples]
    df = pd.DataFrame(rows)
    t = pd.crosstab(df["full overlap"], df["label"], normalize="index")
    t["n"] = df.groupby("full overlap").size()
    return t


def nli_split(pool: Task, n_train: int, biased: bool = False) -> Task:
    """The first ``n_train`` training pairs of ``pool`` (a toy NLI task) and its dev/test splits.

    ``biased=True`` first drops every training pair with full overlap whose label is not
    entailment, so in training full overlap always means entailment (the correlation
    McCoy et al. found in MNLI, made perfect); dev and test stay the i.i.d. ones.
    """
    _check_n("n_train", n_train, 1, 10_000_000)
    train = pool.examples("train")
    if biased:
        train = [e for e in train if not (e.meta.get("overlap", 0.0) >= 1.0 and e.label != _ENT)]
    if len(train) < n_train:
        raise ParameterError(f"n_train={n_train} is more than the {len(train)} training pairs available; "
                             "allowed: a larger pool or a smaller n_train")
    name = "toy_nli_overlap_biased" if biased else "toy_nli"
    return Task.from_examples(name, {"train": train[:n_train], "dev": pool.examples("dev"),
                                     "test": pool.examples("test")}, pool.label_names)


def hans_table(probs: torch.Tensor, examples: Sequence[ClassificationExample]):
    """Per-item HANS outcomes: predicted label and binary correctness (entailment vs not)."""
    import pandas as pd

    if probs.shape[0] != len(examples):
        raise ParameterError(f"{probs.shape[0]} predictions for {len(examples)} items; allowed: one per item")
    pred = probs.argmax(-1).tolist()
    rows = []
    for e, p in zip(examples, pred):
        rows.append({"category": e.meta["category"], "heuristic": e.meta["heuristic"],
                     "entailed": e.meta["entailed"], "label": e.label, "pred": p,
                     "pred_entailment": p == _ENT, "correct": (p == _ENT) == bool(e.meta["entailed"])})
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------------
# Fine-tuning with cached weights; prediction
# ---------------------------------------------------------------------------------


def finetuned(task: Task, model_source: Any, cfg: ft.FinetuneConfig | None = None, seed: int = 0,
              cache: ArtifactCache | None = None, use_cache: bool = True):
    """(model, tokenizer, :class:`~bertology_lib.training.finetune.FinetuneResult`) of one fine-tuning run.

    Like :func:`bertology_lib.training.finetune.finetune`, but the fine-tuned weights are cached too
    (safetensors, kind ``finetuned-model``), so new test items can be scored on a rerun
    without training again. Uncacheable sources are fine-tuned every time.
    """
    cfg = cfg or ft.FinetuneConfig()
    src = ft.as_source(model_source)
    key = src.cache_key() if use_cache else None
    if key is None:
        return ft.finetune_model(task, src, cfg, seed)
    cache = cache or ArtifactCache()
    config = {"task": task.key(), "model": key, "finetune": cfg.to_dict(), "seed": seed,
              "version": BEHAVIOUR_VERSION}
    built: list[tuple] = []

    def build(folder: Path) -> None:
        model, tok, r = ft.finetune_model(task, src, cfg, seed)
        ft._save_result(folder, r)
        save_tensors(folder / "model.safetensors", {k: v.clone() for k, v in model.state_dict().items()})
        built.append((model, tok, r))

    folder = cache.get_or_create(CACHE_KIND, config, build)
    if built:
        return built[0]
    r = ft._load_result(folder)
    r.model = src.name
    model = ft.build_model(task, src.load_model(cfg.attn_implementation), seed, cfg.head_dropout)
    model.load_state_dict(load_tensors(folder / "model.safetensors"))
    model.eval()
    return model, src.load_tokenizer(), r


def predict_probs(model: torch.nn.Module, tokenizer, texts: Sequence[str], label_names: Sequence[str],
                  pairs: Sequence[str | None] | None = None, cfg: ft.FinetuneConfig | None = None) -> torch.Tensor:
    """(N, C) class probabilities of a fine-tuned head model on ``texts`` (and ``pairs``)."""
    if not texts:
        raise ParameterError("texts=[] is empty; allowed: at least one text")
    if pairs is not None and len(pairs) != len(texts):
        raise ParameterError(f"{len(pairs)} pairs for {len(texts)} texts; allowed: equal lengths")
    exs = [ClassificationExample(f"x{i}", t, 0, None if pairs is None else pairs[i]) for i, t in enumerate(texts)]
    task = Task.from_examples("behaviour", {"test": exs}, label_names)
    return ft.evaluate(model, tokenizer, task, "test", cfg).probs["probs"].float()


def run_tests(model: torch.nn.Module, tokenizer, tests: Sequence[BehaviourTest], label_names: Sequence[str],
              cfg: ft.FinetuneConfig | None = None):
    """One row per test item: predictions, the probability of each test's target class, and ``failed``."""
    import pandas as pd

    if not tests:
        raise ParameterError("tests=[] is empty; allowed: at least one BehaviourTest")
    texts: list[str] = []
    for t in tests:
        for it in t.items:
            texts.append(it.text)
            if it.perturbed is not None:
                texts.append(it.perturbed)
    uniq = list(dict.fromkeys(texts))
    probs = predict_probs(model, tokenizer, uniq, label_names, cfg=cfg)
    at = {s: i for i, s in enumerate(uniq)}
    rows = []
    for t in tests:
        for j, it in enumerate(t.items):
            p0 = probs[at[it.text]]
            row = {"test": t.name, "kind": t.kind, "capability": t.capability, "item": j, "text": it.text,
                   "label": it.label, "pred": int(p0.argmax())}
            if it.perturbed is not None:
                p1 = probs[at[it.perturbed]]
                row.update(perturbed=it.perturbed, pred_perturbed=int(p1.argmax()),
                           p_before=float(p0[t.target]), p_after=float(p1[t.target]))
            row["failed"] = _failed(t, row)
            rows.append(row)
    return pd.DataFrame(rows)


def _failed(t: BehaviourTest, row: dict[str, Any]) -> bool:
    if t.kind == "MFT":
        return row["pred"] != row["label"]
    if t.kind == "INV":
        return row["pred"] != row["pred_perturbed"]
    return t.direction * (row["p_after"] - row["p_before"]) < -t.tolerance


def wilson_interval(k: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """Wilson score interval of a binomial proportion ``k / n`` (95% by default)."""
    if isinstance(k, bool) or isinstance(n, bool) or n < 1 or not 0 <= k <= n:
        raise ParameterError(f"k={k!r}, n={n!r} are not a proportion; allowed: ints with 0 <= k <= n, n >= 1")
    p = k / n
    d = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / d
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return max(0.0, centre - half), min(1.0, centre + half)


def failure_table(results):
    """Per test: kind, capability, items, failures, failure rate and its 95% Wilson interval.

    ``results``: :func:`run_tests` rows, optionally with a ``seed`` column (then counts are
    per seed and pooled rows are left to :func:`summarise_seeds`).
    """
    import pandas as pd

    if len(results) == 0:
        raise ParameterError("results are empty; allowed: the rows of run_tests")
    keys = ["seed"] if "seed" in results.columns else []
    rows = []
    for k, g in results.groupby(keys + ["test"], sort=False):
        n, f = len(g), int(g["failed"].sum())
        lo, hi = wilson_interval(f, n)
        row = dict(zip(keys + ["test"], k if isinstance(k, tuple) else (k,)))
        row.update(kind=g["kind"].iloc[0], capability=g["capability"].iloc[0], n=n, failures=f,
                   failure_rate=f / n, ci_low=lo, ci_high=hi)
        rows.append(row)
    return pd.DataFrame(rows)


def summarise_seeds(table):
    """Per test over seeds: mean and std of the failure rate and the pooled Wilson interval."""
    import pandas as pd

    if "seed" not in table.columns:
        raise ParameterError("table has no seed column; allowed: failure_table of results with a seed column")
    rows = []
    for name, g in table.groupby("test", sort=False):
        lo, hi = wilson_interval(int(g.failures.sum()), int(g.n.sum()))
        rows.append({"test": name, "kind": g.kind.iloc[0], "capability": g.capability.iloc[0],
                     "n_seeds": len(g), "mean": g.failure_rate.mean(),
                     "std": g.failure_rate.std(ddof=1) if len(g) > 1 else 0.0,
                     "pooled_ci_low": lo, "pooled_ci_high": hi})
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------------
# Seed sweeps (what the notebook calls)
# ---------------------------------------------------------------------------------


def checklist_sweep(task: Task, model_source: Any, tests: Sequence[BehaviourTest], seeds: Sequence[int],
                    cfg: ft.FinetuneConfig | None = None, cache: ArtifactCache | None = None):
    """Fine-tune ``model_source`` on ``task`` once per seed (cached) and run ``tests`` on each model.

    Returns ``(results, iid)``: :func:`run_tests` rows with a ``seed`` column, and one row
    per seed with the i.i.d. test accuracy and error.
    """
    import pandas as pd

    seeds = _check_seeds(seeds)
    frames, iid = [], []
    for s in seeds:
        model, tok, r = finetuned(task, model_source, cfg, s, cache)
        frames.append(run_tests(model, tok, tests, task.label_names, cfg).assign(seed=s))
        acc = r.score("test")
        iid.append({"seed": s, "accuracy": acc, "error": 1 - acc, "cached": r.cached})
    return pd.concat(frames, ignore_index=True), pd.DataFrame(iid)


def hans_sweep(tasks_by_condition: dict[str, Task], model_source: Any, items: Sequence[ClassificationExample],
               seeds: Sequence[int], cfg: ft.FinetuneConfig | None = None, cache: ArtifactCache | None = None):
    """Per training condition and seed: fine-tune (cached), score the HANS-like ``items``.

    Returns ``(outcomes, iid)``: :func:`hans_table` rows with ``condition`` and ``seed``,
    and per (condition, seed) the i.i.d. 3-way accuracy and the i.i.d. binary accuracy
    (entailment vs not) on the test split.
    """
    import pandas as pd

    seeds = _check_seeds(seeds)
    if not items:
        raise ParameterError("items=[] is empty; allowed: HANS-like examples from hans_like()")
    frames, iid = [], []
    for cond, task in tasks_by_condition.items():
        for s in seeds:
            model, tok, r = finetuned(task, model_source, cfg, s, cache)
            probs = predict_probs(model, tok, [e.text for e in items], task.label_names,
                                  [e.text_pair for e in items], cfg)
            frames.append(hans_table(probs, items).assign(condition=cond, seed=s))
            p = r.predictions["test"]
            pred = p.predicted()
            binary = sum((a == _ENT) == (g == _ENT) for a, g in zip(pred, p.golds)) / len(pred)
            non_ent = [(a != _ENT) for a, g in zip(pred, p.golds) if g != _ENT]
            iid.append({"condition": cond, "seed": s, "accuracy": r.score("test"), "binary_accuracy": binary,
                        "non_entailed_accuracy": sum(non_ent) / len(non_ent), "cached": r.cached})
    return pd.concat(frames, ignore_index=True), pd.DataFrame(iid)


def hans_summary(outcomes, by: Sequence[str] = ("condition", "category")):
    """Pooled accuracy with a 95% Wilson interval, mean and std over seeds, per group."""
    import pandas as pd

    rows = []
    for k, g in outcomes.groupby(list(by), sort=False):
        per_seed = g.groupby("seed").correct.mean()
        lo, hi = wilson_interval(int(g.correct.sum()), len(g))
        rows.append({**dict(zip(by, k if isinstance(k, tuple) else (k,))), "heuristic": g.heuristic.iloc[0],
                     "n": len(g), "accuracy": g.correct.mean(), "ci_low": lo, "ci_high": hi,
                     "seed_std": per_seed.std(ddof=1) if len(per_seed) > 1 else 0.0})
    return pd.DataFrame(rows)


def _check_seeds(seeds: Sequence[int]) -> list[int]:
    seeds = list(seeds)
    if not seeds or len(set(seeds)) != len(seeds) or any(
            isinstance(s, bool) or not isinstance(s, int) or s < 0 for s in seeds):
        raise ParameterError(f"seeds={seeds!r} are invalid; allowed: a non-empty list of distinct ints >= 0")
    return seeds
