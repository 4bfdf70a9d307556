"""Toy English: a probabilistic grammar whose every sentence carries gold annotations.

The survey's findings are about pretrained BERT; the lab's answer is a controlled
world.  This module generates an English-like corpus (lower-cased words, capitalised
names) with gold UPOS tags, dependency trees (CoNLL-U style 1-based heads, 0 = root),
tree depth, BIO chunks (NP/VP/PP), semantic roles, grammatical number and per-sentence
metadata (agreement controllers and attractors, negation, NPIs, stated facts).  A small
world knowledge base (who lives where, capitals, occupations, pets, sizes of things) is
stated in varied templates, so cloze probes can test stated facts and held-out
inferences.  Evaluation suites live in :mod:`bertology_lib.data.suites` and are
re-exported here (:func:`make_suite`, :data:`SUITES`).

Used by the survey_03_* notebooks (syntax, semantics, world knowledge) and by the
toy-BERT training code.

Conventions (documented once, relied on everywhere):

* Negation: "not" is ``PART`` with deprel ``advmod`` (UD v2 style, no ``neg`` label);
  "never" is ``ADV``/``advmod``.  Licensors of NPIs are :data:`LICENSORS`: "not" and
  "never" in the same clause, or "no" as determiner of that clause's subject.
* NPIs (:data:`NPIS`: any, ever, yet) occur in the corpus only in licensed clauses;
  positive-polarity items (:data:`PPIS`: some, already) never occur in the scope of a
  licensor ("some" may still head a subject of a negated clause, which is out of scope).
* ``depth``: 0 for the root word, ``depth[head] + 1`` otherwise.
* ``roles``: "agent" on the head of the subject of an active lexical verb (and of the
  passive by-phrase), "patient" on the head of an object (and of a passive subject);
  "none" elsewhere.  Relative pronouns carry the role of their gap.
* Chunks are CoNLL-2000-like base chunks: NP = det/num/adj/noun (or a pronoun/name),
  VP = auxiliaries + "not" + pre-verbal adverbs + verb (or the copula), PP = preposition.
* Trees are projective (every constituent is contiguous).
* Metadata indices (``meta``) are 0-based word positions; ``heads`` are 1-based.
* Sizes in the knowledge base are ordinal (a strict total order); the corpus states only
  some pairwise comparisons.

Everything is deterministic from the seed; only private ``random.Random`` instances are
used (global RNG state is never touched).
"""

from __future__ import annotations

import dataclasses
import functools
import random
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any, Callable, Collection, Iterable, Sequence

from bertology_lib.errors import ParameterError

__all__ = [
    "MASK",
    "UPOS_TAGS",
    "DEPRELS",
    "NEGATION_DEPREL",
    "LICENSORS",
    "NPIS",
    "PPIS",
    "SUITES",
    "TRANSFORMS",
    "ToyEnglishConfig",
    "Sentence",
    "ClozeItem",
    "Noun",
    "Verb",
    "Lexicon",
    "Fact",
    "KnowledgeBase",
    "lexicon",
    "knowledge_base",
    "generate_corpus",
    "vocabulary",
    "make_suite",
    "per_word_majority_baseline",
    "ambiguous_words",
    "shuffle_words",
    "truncate",
    "remove_subject",
    "remove_object",
    "apply_transform",
    "verb_form_number",
]

MASK = "[MASK]"
UPOS_TAGS = (
    "DET", "NOUN", "VERB", "AUX", "ADJ", "ADP", "PRON", "PROPN", "NUM",
    "CCONJ", "SCONJ", "ADV", "PART", "PUNCT",
)
DEPRELS = (
    "root", "nsubj", "nsubj:pass", "obj", "iobj", "det", "amod", "nummod", "case", "nmod",
    "obl", "obl:agent", "acl:relcl", "mark", "cc", "conj", "advmod", "advcl", "ccomp",
    "aux", "aux:pass", "cop", "punct",
)
NEGATION_DEPREL = "advmod"
LICENSORS = ("not", "never", "no")
NPIS = ("any", "ever", "yet")
PPIS = ("some", "already")
SUITES = (
    "agreement", "npi", "role_reversal", "selectional", "numbers",
    "entity_swap", "knowledge", "inference",
)

# ---------------------------------------------------------------------------------
# Configuration
# ---------------------------------------------------------------------------------


def _check_int(name: str, value: Any, lo: int, hi: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise ParameterError(f"{name}={value!r} is invalid: expected an int in [{lo}, {hi}]")


def _check_prob(name: str, value: Any, hi: float = 1.0) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value <= hi:
        raise ParameterError(f"{name}={value!r} is invalid: expected a number in [0, {hi}]")


@dataclass(frozen=True)
class ToyEnglishConfig:
    """Settings of the toy-English generator; ``to_dict()`` is the cache key.

    ``vocab_size`` counts content lemmas (nouns, verbs, adjectives, adverbs); each
    noun has 2 forms and each verb 4, so :func:`vocabulary` is about twice as large.
    Probabilities are per opportunity (per clause / per noun phrase).
    Used by :func:`generate_corpus`, :func:`make_suite` and the survey_03_* notebooks.
    """

    n_sentences: int
    seed: int = 0
    vocab_size: int = 3000
    max_len: int = 40
    zipf_exponent: float = 1.0
    ambiguous_fraction: float = 0.12
    p_plural: float = 0.4
    p_negation: float = 0.15
    p_pp: float = 0.22
    p_relative: float = 0.18
    p_coordination: float = 0.1
    p_subordinate: float = 0.12
    p_fact: float = 0.08

    def __post_init__(self) -> None:
        _check_int("n_sentences", self.n_sentences, 0, 100_000_000)
        _check_int("seed", self.seed, 0, 2**63 - 1)
        _check_int("vocab_size", self.vocab_size, 500, 200_000)
        _check_int("max_len", self.max_len, 16, 1000)
        if (isinstance(self.zipf_exponent, bool) or not isinstance(self.zipf_exponent, (int, float))
                or not 0.0 < self.zipf_exponent <= 3.0):
            raise ParameterError(
                f"zipf_exponent={self.zipf_exponent!r} is invalid: expected a number in (0, 3]")
        _check_prob("ambiguous_fraction", self.ambiguous_fraction, 0.5)
        for name in ("p_plural", "p_negation", "p_pp", "p_relative", "p_coordination",
                     "p_subordinate", "p_fact"):
            _check_prob(name, getattr(self, name))
        _check_prob("p_pp", self.p_pp, 0.6)
        _check_prob("p_relative", self.p_relative, 0.6)

    def to_dict(self) -> dict[str, Any]:
        """Plain dict of all settings (stable key order), e.g. for cache keys."""
        return dataclasses.asdict(self)


# ---------------------------------------------------------------------------------
# Annotated sentences and cloze items
# ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Sentence:
    """One generated sentence with gold annotations (all tuples have one entry per word).

    ``heads`` are 1-based (0 = root); ``number`` is "Sing"/"Plur"/"_";
    ``meta`` holds 0-based indices (see module docstring), e.g. ``meta["agreement"]``
    is a tuple of ``{"subject", "verb", "number", "clause"}`` dicts, one per finite
    verb form that marks number, and ``meta["subject_index"]``, ``meta["verb_index"]``,
    ``meta["attractors"]``, ``meta["attractor_types"]`` describe the main clause.
    """

    words: tuple[str, ...]
    lemmas: tuple[str, ...]
    upos: tuple[str, ...]
    heads: tuple[int, ...]
    deprels: tuple[str, ...]
    depth: tuple[int, ...]
    chunks: tuple[str, ...]
    roles: tuple[str, ...]
    number: tuple[str, ...]
    meta: dict[str, Any] = field(default_factory=dict, hash=False)

    def __len__(self) -> int:
        return len(self.words)

    @property
    def text(self) -> str:
        """Words joined by single spaces."""
        return " ".join(self.words)

    def to_conllu(self, sent_id: str | None = None) -> str:
        """CoNLL-U block; chunk, role and depth go to MISC, number to FEATS."""
        lines = []
        if sent_id is not None:
            lines.append(f"# sent_id = {sent_id}")
        lines.append(f"# text = {self.text}")
        for i, w in enumerate(self.words):
            feats = f"Number={self.number[i]}" if self.number[i] != "_" else "_"
            misc = f"Chunk={self.chunks[i]}|Depth={self.depth[i]}|Role={self.roles[i]}"
            lines.append("\t".join([
                str(i + 1), w, self.lemmas[i], self.upos[i], "_", feats,
                str(self.heads[i]), self.deprels[i], "_", misc,
            ]))
        return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class ClozeItem:
    """A masked minimal pair: ``words[mask_index] == MASK``; ``correct`` beats ``incorrect``.

    ``sentence`` is the annotated sentence with the correct word filled in (for the
    insensitivity transforms, see :func:`apply_transform`); ``meta`` holds the suite's
    metadata (e.g. ``n_attractors``, ``licensed``, ``relation``).
    Used by the survey_03_* notebooks' cloze evaluations.
    """

    suite: str
    words: tuple[str, ...]
    mask_index: int
    correct: str
    incorrect: str
    meta: dict[str, Any] = field(default_factory=dict, hash=False)
    sentence: Sentence | None = field(default=None, compare=False, hash=False, repr=False)

    @property
    def text(self) -> str:
        return " ".join(self.words)

    def filled(self, word: str) -> tuple[str, ...]:
        """The item's words with ``word`` in the masked slot."""
        w = list(self.words)
        w[self.mask_index] = word
        return tuple(w)


# ---------------------------------------------------------------------------------
# Lexicon
# ---------------------------------------------------------------------------------

# Semantic classes of nouns: name -> (animate, human).
CLASSES: dict[str, tuple[bool, bool]] = {
    "server": (True, True), "patron": (True, True), "worker": (True, True),
    "official": (True, True), "criminal": (True, True), "teacher": (True, True),
    "student": (True, True), "person": (True, True),
    "pet": (True, False), "bird": (True, False), "farm": (True, False),
    "wild": (True, False), "small": (True, False),
    "food": (False, False), "vehicle": (False, False), "document": (False, False),
    "tool": (False, False), "plant": (False, False), "place": (False, False),
    "abstract": (False, False),
}
ANIMATE = tuple(c for c, (a, _) in CLASSES.items() if a)
HUMAN = tuple(c for c, (_, h) in CLASSES.items() if h)

# Real nouns: "sg" or "sg/pl" (irregular) or "sg/=" (invariant), by class.
_REAL_NOUNS: dict[str, str] = {
    "server": "waiter waitress/waitresses bartender porter courier",
    "patron": "customer guest diner client visitor",
    "worker": "chef baker farmer miner builder cook guard judge pilot painter",
    "official": "officer mayor soldier sheriff",
    "criminal": "thief/thieves robber burglar pirate",
    "teacher": "teacher professor tutor coach",
    "student": "student pupil child/children",
    "person": "man/men woman/women boy girl doctor nurse singer",
    "pet": "dog cat rabbit puppy/puppies",
    "bird": "robin sparrow hawk owl duck",
    "farm": "cow sheep/= horse goat pig",
    "wild": "wolf/wolves fox/foxes bear deer/= elephant whale",
    "small": "mouse/mice ant bee fish/= snake",
    "food": "bread soup apple cake cheese pie egg carrot sandwich/sandwiches cookie",
    "vehicle": "car truck bus/buses bike ship train boat wagon",
    "document": "book letter note map report poem card",
    "tool": "hammer key cup knife/knives rope box/boxes lamp chair table watch/watches coin",
    "plant": "tree flower plant bush/bushes rose",
    "place": "house park garden school market river bridge hill forest village kitchen tower mountain",
    "abstract": "idea plan story/stories dream game song joke question walk play",
}
# Nouns that are also verbs (real ones); their verb entries are in _REAL_VERBS.
_REAL_AMBIGUOUS = ("cook", "guard", "judge", "pilot", "plant", "watch", "fish", "train",
                   "ship", "paint", "walk", "play", "book", "park", "coach")
_IRREGULAR_VERBS = {
    # base: (past, participle)
    "eat": ("ate", "eaten"), "drive": ("drove", "driven"), "write": ("wrote", "written"),
    "teach": ("taught", "taught"), "flee": ("fled", "fled"), "buy": ("bought", "bought"),
    "sell": ("sold", "sold"), "steal": ("stole", "stolen"), "catch": ("caught", "caught"),
    "bite": ("bit", "bitten"), "build": ("built", "built"), "see": ("saw", "seen"),
    "find": ("found", "found"), "run": ("ran", "run"), "sleep": ("slept", "slept"),
    "sing": ("sang", "sung"), "swim": ("swam", "swum"), "fall": ("fell", "fallen"),
    "say": ("said", "said"), "think": ("thought", "thought"), "know": ("knew", "known"),
    "feed": ("fed", "fed"), "meet": ("met", "met"),
}
# Real verbs: base -> (transitive, agent prefs, patient prefs).  Prefs are "cls:w" lists.
_REAL_VERBS: dict[str, tuple[bool, str, str]] = {
    "tip": (True, "patron:1 person:0.3", "server:1 worker:0.25 bird:0.01"),
    "serve": (True, "server:1 worker:0.3", "patron:1 food:0.5 person:0.2"),
    "arrest": (True, "official:1", "criminal:1 person:0.15 patron:0.05"),
    "flee": (True, "criminal:1 small:0.3", "official:1 wild:0.3"),
    "teach": (True, "teacher:1 person:0.2", "student:1 person:0.2 pet:0.05"),
    "admire": (True, "student:1 person:0.3", "teacher:1 singer:0 person:0.2"),
    "hunt": (True, "wild:1 bird:0.4", "farm:1 small:0.6 bird:0.2"),
    "fear": (True, "farm:1 small:0.6", "wild:1 criminal:0.2"),
    "chase": (True, "pet:1 wild:0.6", "small:1 bird:0.5 pet:0.3 vehicle:0.1"),
    "feed": (True, "person:1 worker:0.5 student:0.3", "pet:1 farm:1 bird:0.4"),
    "eat": (True, "person:1 pet:0.6 wild:0.4 student:0.4", "food:1 plant:0.15"),
    "drive": (True, "worker:1 person:0.6", "vehicle:1 farm:0.05"),
    "write": (True, "person:1 student:0.6 teacher:0.6", "document:1 abstract:0.3"),
    "repair": (True, "worker:1", "vehicle:1 tool:1 place:0.2"),
    "hire": (True, "official:1 patron:0.5", "worker:1 server:0.8"),
    "cook": (True, "worker:1 person:0.4", "food:1 small:0.1"),
    "guard": (True, "official:1 worker:0.5 pet:0.3", "place:1 tool:0.2"),
    "judge": (True, "official:1 teacher:0.5", "criminal:1 student:0.4 abstract:0.2"),
    "plant": (True, "worker:1 person:0.3", "plant:1 food:0.1"),
    "watch": (True, "person:1 student:0.5 pet:0.2", "bird:1 pet:0.5 abstract:0.2"),
    "train": (True, "teacher:1 worker:0.5", "pet:1 student:0.6 farm:0.3"),
    "ship": (True, "worker:1", "tool:1 food:0.6 vehicle:0.2"),
    "paint": (True, "worker:1 student:0.4", "place:1 tool:0.4"),
    "book": (True, "patron:1 person:0.4", "place:1 vehicle:0.4"),
    "pilot": (True, "worker:1", "vehicle:1"),
    "park": (True, "person:1 worker:0.5", "vehicle:1"),
    "coach": (True, "teacher:1", "student:1 pet:0.2"),
    "steal": (True, "criminal:1", "tool:1 food:0.4 vehicle:0.4"),
    "catch": (True, "pet:1 official:0.6", "small:1 criminal:0.6 bird:0.3"),
    "bite": (True, "pet:1 wild:1 small:0.3", "person:1 student:0.3"),
    "build": (True, "worker:1", "place:1 tool:0.3"),
    "buy": (True, "patron:1 person:0.5", "food:1 tool:0.6 vehicle:0.4"),
    "sell": (True, "worker:1 server:0.4", "food:1 tool:0.6 vehicle:0.3"),
    "see": (True, "person:1 pet:0.4 bird:0.3", "place:0.4 person:0.4 pet:0.4 vehicle:0.3"),
    "find": (True, "person:1 pet:0.3", "tool:1 document:0.5 pet:0.3"),
    "carry": (True, "worker:1 person:0.5", "tool:1 food:0.5 pet:0.2"),
    "help": (True, "person:1 teacher:0.5", "student:1 person:0.5"),
    "visit": (True, "person:1 patron:0.5", "place:1 person:0.5"),
    "follow": (True, "pet:1 person:0.5", "person:1 vehicle:0.3"),
    "wash": (True, "person:1 server:0.5", "vehicle:1 tool:0.6 pet:0.4"),
    "like": (True, "person:1 student:0.5 pet:0.3", "food:1 pet:0.5 abstract:0.4"),
    "hold": (True, "person:1 worker:0.5", "tool:1 document:0.5 pet:0.3"),
    "meet": (True, "person:1 patron:0.5", "person:1 teacher:0.3"),
    "run": (False, "pet:1 wild:0.6 person:0.5", ""),
    "sleep": (False, "pet:1 student:0.6 farm:0.4", ""),
    "laugh": (False, "person:1 student:1", ""),
    "smile": (False, "person:1 server:0.5", ""),
    "wait": (False, "patron:1 person:0.5", ""),
    "jump": (False, "pet:1 small:0.6", ""),
    "sing": (False, "bird:1 person:0.5", ""),
    "swim": (False, "small:1 wild:0.3", ""),
    "arrive": (False, "patron:1 official:0.5", ""),
    "fall": (False, "student:1 person:0.5", ""),
    "fish": (False, "worker:1 person:0.5 bird:0.3", ""),
    "walk": (False, "person:1 pet:0.5", ""),
    "play": (False, "student:1 pet:0.5", ""),
    "work": (False, "worker:1 server:0.5", ""),
}
# Verbs taking a clausal complement ("says that ...").
_COMP_VERBS = ("say", "think", "know", "believe", "hope", "claim")
# Converse verb pairs for role-reversal items: (verb_ab, verb_ba, class_a, class_b),
# i.e. "the A <verb_ab> the B" and "the B <verb_ba> the A" are the typical events.
_REAL_CONVERSES = (
    ("tip", "serve", "patron", "server"),
    ("arrest", "flee", "official", "criminal"),
    ("teach", "admire", "teacher", "student"),
    ("hunt", "fear", "wild", "farm"),
)
_REAL_ADJS = ("old young red green happy sad quiet loud clever lazy brave strange "
              "wooden golden famous hungry busy dark bright heavy").split()
_REAL_ADVS = "often quickly slowly usually again today also carefully".split()
_PLACE_PREPS = ("in", "near", "behind", "under", "beside", "at")
_NMOD_PREPS = ("of", "with", "near", "behind", "from", "beside", "under", "on")
NUMERALS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
            "ten", "twelve", "twenty")
NUMERAL_VALUE = {w: v for w, v in zip(NUMERALS, (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 20))}
DETS_SG = ("a", "this", "that", "every", "each")
DETS_PL = ("these", "those", "many", "several")
DETS_FREE = ("the", "some", "no", "any", "my", "his", "her", "their", "our")
_POSSESSIVES = ("my", "his", "her", "their", "our")
_SUBJ_PRON = {"Sing": ("he", "she", "it"), "Plur": ("they",)}
_OBJ_PRON = {"Sing": ("him", "her", "it"), "Plur": ("them",)}
_MODALS = ("will", "can", "must", "should")
_SCONJS = ("because", "when", "if", "although", "while")
_AUX_NUMBER = {"is": "Sing", "are": "Plur", "was": "Sing", "were": "Plur", "has": "Sing",
               "have": "Plur", "does": "Sing", "do": "Plur"}
_BE = {"Sing": "is", "Plur": "are"}
_BE_PAST = {"Sing": "was", "Plur": "were"}
_HAVE = {"Sing": "has", "Plur": "have"}
_DO = {"Sing": "does", "Plur": "do"}
_SPECIAL_NOUNS = (("year", "years"), ("home", "homes"), ("capital", "capitals"),
                  ("city", "cities"))
_SIZE_WORDS = ("bigger", "smaller", "larger")
# Size order of the knowledge base (smallest first): nouns of the lexicon.
SIZE_ORDER = ("ant", "bee", "mouse", "rabbit", "cat", "dog", "goat", "horse", "car",
              "elephant", "truck", "tower", "mountain")
OCCUPATIONS = ("baker", "farmer", "miner", "builder", "pilot", "doctor", "nurse",
               "teacher", "chef", "judge", "guard", "cook", "painter", "singer")
PET_ANIMALS = ("cat", "dog", "rabbit", "goat", "horse", "pig", "duck", "cow")

_ONSETS = ("b d f g k l m n p r s t v z br dr gr kl pl st tr sn sk bl fl sp ch sh th w h j "
           "cr fr gl pr sl sm sw").split()
_VOWELS = "a e i o u a e i o u ai ea oo ou ie".split()
_CODAS = ["", "", "", "n", "m", "l", "r", "t", "k", "p", "d", "g", "nd", "nt", "rk", "lt",
          "mp", "ng"]
_ADJ_SUFFIXES = ("ish", "ful", "ous", "y", "al", "ic", "ent", "ive")


def _regular_forms(base: str) -> tuple[str, str, str]:
    """(third-singular, past, -ing) of a regular verb."""
    if base.endswith(("s", "sh", "ch", "x", "z")):
        s3 = base + "es"
    elif base.endswith("y") and base[-2:-1] not in tuple("aeiou"):
        s3 = base[:-1] + "ies"
    else:
        s3 = base + "s"
    if base.endswith("e"):
        past, ing = base + "d", (base[:-1] + "ing" if not base.endswith("ee") else base + "ing")
    elif base.endswith("y") and base[-2:-1] not in tuple("aeiou"):
        past, ing = base[:-1] + "ied", base + "ing"
    elif (len(base) <= 4 and len(base) >= 3 and base[-1] in "bdgmnpt" and base[-2] in "aeiou"
          and base[-3] not in "aeiou"):
        past, ing = base + base[-1] + "ed", base + base[-1] + "ing"
    else:
        past, ing = base + "ed", base + "ing"
    return s3, past, ing


@functools.lru_cache(maxsize=None)
def _special_verbs() -> dict[str, "Verb"]:
    """Closed-class lexical verbs used only in fixed frames (facts, complement clauses)."""
    out = {}
    for base in ("live", "own", "have") + _COMP_VERBS:
        s3, past, ing = _regular_forms(base)
        part = past
        if base in _IRREGULAR_VERBS:
            past, part = _IRREGULAR_VERBS[base]
        if base == "have":
            s3, past, part = "has", "had", "had"
        out[base] = Verb(base, s3, past, part, ing, base in ("own", "have"),
                         (("person", 1.0),), (), 1.0)
    return out


def _plural(sg: str) -> str:
    if sg.endswith(("s", "sh", "ch", "x", "z")):
        return sg + "es"
    if sg.endswith("y") and sg[-2:-1] not in tuple("aeiou"):
        return sg[:-1] + "ies"
    return sg + "s"


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

    def __init__(self, nouns: list[Noun], verbs: list[Verb], adjectives: list[tuple[str, float]],
                 adverbs: list[tuple[str, float]], converses: list[tuple[str, str, str, str]]):
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
        for v in list(verbs) + list(_special_verbs().values()):
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
        return r.choice(_ONSETS) + r.choice(_VOWELS) + r.choice(_CODAS)

    def make(self, n_syll: int | None = None, suffix: str = "",
             check: Callable[[str], Iterable[str]] | None = None) -> str:
        for _ in range(1000):
            k = n_syll or self.rng.choice((1, 2, 2, 2, 3))
            stem = "".join(self.syllable() for _ in range(k))
            if "ii" in stem or (not suffix and (len(stem) < 3 or stem[-1] in "sxzyeh"
                                                or stem.endswith(("ng", "ed")))):
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
    reserved = set(_function_words()) | set(NUMERALS) | {a for pair in _SPECIAL_NOUNS for a in pair}
    reserved |= set(_SIZE_WORDS) | set(_REAL_ADJS) | set(_REAL_ADVS)
    # --- real nouns
    real_nouns: list[tuple[str, str, str]] = []
    for cls, spec in _REAL_NOUNS.items():
        for item in spec.split():
            sg, _, pl = item.partition("/")
            pl = sg if pl == "=" else (pl or _plural(sg))
            real_nouns.append((sg, pl, cls))
    # --- real verbs
    real_verbs = []
    for base, (tr, ag, pa) in _REAL_VERBS.items():
        s3, past, ing = _regular_forms(base)
        part = past
        if base in _IRREGULAR_VERBS:
            past, part = _IRREGULAR_VERBS[base]
        real_verbs.append([base, s3, past, part, ing, tr, _parse_prefs(ag), _parse_prefs(pa)])
    for v in _special_verbs().values():
        reserved.update((v.base, v.s3, v.past, v.part, v.ing))
    for sg, pl, _ in real_nouns:
        reserved.update((sg, pl))
    for v in real_verbs:
        reserved.update(v[:5])
    names = _NameMaker(rng, reserved)

    n_real = len(real_nouns) + len(real_verbs) + len(_REAL_ADJS) + len(_REAL_ADVS)
    n_gen = max(0, vocab_size - n_real)
    n_gen_nouns = int(0.45 * n_gen)
    n_gen_verbs = int(0.25 * n_gen)
    n_gen_adjs = int(0.20 * n_gen)
    n_gen_advs = n_gen - n_gen_nouns - n_gen_verbs - n_gen_adjs
    n_amb = int(round(ambiguous_fraction * (n_gen_verbs + len(real_verbs))))
    classes = list(CLASSES)
    class_w = [3 if c in ("tool", "abstract", "food", "person", "place") else 1.5 if c in HUMAN else 1
               for c in classes]

    def verb_forms(w: str) -> list[str]:
        s3, past, ing = _regular_forms(w)
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
    converses = list(_REAL_CONVERSES)
    for i in range(n_gen_verbs):
        transitive = i < n_gen_verbs * 0.7
        w = names.make(check=lambda x: verb_forms(x) + [_plural(x)])
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
                gen_verbs.append([w, True, random_prefs(rng.choice(animate), animate),
                                  random_prefs(rng.choice(classes), classes)])
        else:
            gen_verbs.append([w, False, random_prefs(rng.choice(animate), animate), ()])
    # ambiguous stems: the verb's base doubles as a noun (and s3 == plural)
    amb_idx = set(rng.sample(range(len(gen_verbs)), min(n_amb, len(gen_verbs))))
    for i in sorted(amb_idx):
        w = gen_verbs[i][0]
        gen_nouns.append((w, _plural(w), rng.choices(classes, weights=class_w)[0], True))
    while len(gen_nouns) < n_gen_nouns:
        if rng.random() < 0.03:  # number-invariant, like "sheep"
            w = names.make()
            gen_nouns.append((w, w, rng.choices(classes, weights=class_w)[0], False))
            continue
        w = names.make(check=lambda x: [_plural(x)])
        gen_nouns.append((w, _plural(w), rng.choices(classes, weights=class_w)[0], False))
    adjs = [names.make(n_syll=rng.choice((1, 1, 2)), suffix=rng.choice(_ADJ_SUFFIXES))
            for _ in range(n_gen_adjs)]
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

    real_amb = set(_REAL_AMBIGUOUS)
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
        s3, past, ing = _regular_forms(w)
        verb_items.append([w, s3, past, past, ing, tr, ag, pa, False])
    vw = ranked(verb_items, lambda it: it[0] in amb_bases or it[8], 30)
    verbs = [Verb(it[0], it[1], it[2], it[3], it[4], it[5], it[6], it[7], vw[i] * 2.0,
                  it[0] in amb_bases) for i, it in enumerate(verb_items)]
    # ambiguous stems: make their noun weight comparable to their verb weight so that
    # context must decide (otherwise one reading would dominate).
    vweight = {v.base: v.weight for v in verbs}
    nouns = [dataclasses.replace(n, weight=max(n.weight, 0.6 * vweight[n.sg])) if n.also_verb else n
             for n in nouns]
    adj_items = list(_REAL_ADJS) + adjs
    aw = ranked(adj_items, lambda a: a in _REAL_ADJS, 10)
    adj_list = [(a, aw[i]) for i, a in enumerate(adj_items)]
    adv_items = list(_REAL_ADVS) + advs
    avw = ranked(adv_items, lambda a: a in _REAL_ADVS, 4)
    adv_list = [(a, avw[i]) for i, a in enumerate(adv_items)]
    return Lexicon(nouns, verbs, adj_list, adv_list, converses)


def lexicon(config: ToyEnglishConfig) -> Lexicon:
    """The (cached) lexicon of ``config``; depends on seed, vocab_size, zipf, ambiguity."""
    return _build_lexicon(config.seed, config.vocab_size, float(config.zipf_exponent),
                          float(config.ambiguous_fraction))


def _function_words() -> list[str]:
    words = set(DETS_SG + DETS_PL + DETS_FREE) | {"an"}
    words |= {"he", "she", "it", "they", "him", "her", "them", "who", "which", "that"}
    words |= set(_AUX_NUMBER) | {"did", "been"} | set(_MODALS)
    words |= set(_PLACE_PREPS) | set(_NMOD_PREPS) | {"by", "for", "as", "than"}
    words |= {"and", "but", "or"} | set(_SCONJS) | {"not", "never", "ever", "yet", "already",
                                                    "very"}
    words |= {".", ","}
    return sorted(words)


def verb_form_number(word: str, lex: Lexicon) -> str | None:
    """"Sing"/"Plur" if ``word`` is a finite form marking number (aux or present verb)."""
    if word in _AUX_NUMBER:
        return _AUX_NUMBER[word]
    info = lex.verb_form_info.get(word, set())
    if "Sing" in info:
        return "Sing"
    if "Plur" in info:
        return "Plur"
    return None


# ---------------------------------------------------------------------------------
# Knowledge base
# ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Fact:
    """One world fact: ``relation(subject, object)``; ``count`` for "owns"."""

    relation: str
    subject: str
    object: str
    count: int | None = None


@dataclass(frozen=True)
class KnowledgeBase:
    """The toy world: people, cities, countries and sizes (see :func:`knowledge_base`).

    ``stated_*`` parts are said in the corpus; the ``heldout_*`` parts follow from the
    stated ones (person -> city -> country, capital -> country, size transitivity) and
    are never stated: they feed the "inference" suite.
    """

    seed: int
    people: tuple[str, ...]
    cities: tuple[str, ...]
    countries: tuple[str, ...]
    lives_in: dict[str, str] = field(hash=False)
    city_country: dict[str, str] = field(hash=False)
    capital: dict[str, str] = field(hash=False)
    occupation: dict[str, str] = field(hash=False)
    owns: dict[str, tuple[int, str]] = field(hash=False)
    size_order: tuple[str, ...] = SIZE_ORDER
    stated_size_pairs: frozenset[tuple[str, str]] = frozenset()
    heldout_size_pairs: frozenset[tuple[str, str]] = frozenset()
    stated_country_people: frozenset[str] = frozenset()

    def country_of(self, person: str) -> str:
        return self.city_country[self.lives_in[person]]

    @property
    def names(self) -> tuple[str, ...]:
        return self.people + self.cities + self.countries

    def stated_facts(self) -> list[Fact]:
        """Facts the corpus states (each at least once when the corpus is large enough)."""
        f = [Fact("lives_in", p, c) for p, c in self.lives_in.items()]
        f += [Fact("lives_in_country", p, self.country_of(p)) for p in self.people
              if p in self.stated_country_people]
        caps = set(self.capital.values())
        f += [Fact("city_in_country", c, k) for c, k in self.city_country.items() if c not in caps]
        f += [Fact("capital_of", c, k) for k, c in self.capital.items()]
        f += [Fact("occupation", p, o) for p, o in self.occupation.items()]
        f += [Fact("owns", p, a, n) for p, (n, a) in self.owns.items()]
        f += [Fact("smaller_than", a, b) for a, b in sorted(self.stated_size_pairs)]
        return f

    def heldout_facts(self) -> list[Fact]:
        """Facts that follow from stated ones but are never stated."""
        f = [Fact("lives_in_country", p, self.country_of(p)) for p in self.people
             if p not in self.stated_country_people]
        f += [Fact("city_in_country", c, k) for k, c in self.capital.items()]
        f += [Fact("smaller_than", a, b) for a, b in sorted(self.heldout_size_pairs)]
        return f


def _proper_names(rng: random.Random, n: int, endings: Sequence[str], used: set[str]) -> list[str]:
    out = []
    while len(out) < n:
        stem = rng.choice(_ONSETS) + rng.choice(_VOWELS)
        if rng.random() < 0.6:
            stem += rng.choice(_CODAS[3:]) + rng.choice(_VOWELS)
        w = (stem + rng.choice(endings)).capitalize()
        if w not in used and not any(sum(ch in "aeiou" for ch in w[k:k + 3]) == 3
                                     for k in range(len(w) - 2)):
            used.add(w)
            out.append(w)
    return out


@functools.lru_cache(maxsize=16)
def knowledge_base(seed: int) -> KnowledgeBase:
    """The world facts for ``seed`` (independent of corpus size and vocabulary).

    60 people, 24 cities, 8 countries (one capital each), occupations, pets with
    counts, and a size order of 13 things of which adjacent and some distance-2
    pairs are stated.  Used by the corpus generator and the knowledge/inference suites.
    """
    _check_int("seed", seed, 0, 2**63 - 1)
    rng = random.Random(f"toy-english-kb:{seed}")
    used: set[str] = set()
    people = _proper_names(rng, 60, ("a", "o", "in", "el", "an", "et", "ia", "is"), used)
    cities = _proper_names(rng, 24, ("ton", "burg", "ford", "ville", "mar", "dor", "wick"), used)
    countries = _proper_names(rng, 8, ("ia", "land", "stan", "ary", "onia"), used)
    city_country = {c: countries[i % len(countries)] for i, c in enumerate(cities)}
    capital = {k: next(c for c in cities if city_country[c] == k) for k in countries}
    lives_in = {p: rng.choice(cities) for p in people}
    occupation = {p: rng.choice(OCCUPATIONS) for p in people}
    owns = {p: (rng.choice((1, 2, 3, 4, 5, 6, 7, 8, 9)), rng.choice(PET_ANIMALS)) for p in people}
    stated_country = frozenset(rng.sample(people, len(people) // 2))
    order = SIZE_ORDER
    stated, heldout = set(), set()
    for i in range(len(order)):
        for j in range(i + 1, len(order)):
            d = j - i
            if d == 1 or (d == 2 and rng.random() < 0.5):
                stated.add((order[i], order[j]))
            else:
                heldout.add((order[i], order[j]))
    return KnowledgeBase(seed, tuple(people), tuple(cities), tuple(countries), lives_in,
                         city_country, capital, occupation, owns, order, frozenset(stated),
                         frozenset(heldout), stated_country)


# ---------------------------------------------------------------------------------
# Tree building
# ---------------------------------------------------------------------------------


class _Tok:
    __slots__ = ("word", "lemma", "upos", "head", "deprel", "chunk", "role", "number")

    def __init__(self, word: str, upos: str, lemma: str | None = None, number: str = "_",
                 chunk: object | None = None):
        self.word = word
        self.lemma = lemma if lemma is not None else word
        self.upos = upos
        self.head: _Tok | None = None
        self.deprel = "root"
        self.chunk = chunk
        self.role = "none"
        self.number = number

    def attach(self, head: _Tok, deprel: str) -> _Tok:
        self.head, self.deprel = head, deprel
        return self


class _Chunk:
    __slots__ = ("kind",)

    def __init__(self, kind: str):
        self.kind = kind


class _Phrase:
    """A contiguous run of tokens with a head token (an NP or a clause)."""

    __slots__ = ("toks", "head", "number", "cls", "kind")

    def __init__(self, toks: list[_Tok], head: _Tok, number: str = "_", cls: str | None = None,
                 kind: str = "np"):
        self.toks, self.head, self.number, self.cls, self.kind = toks, head, number, cls, kind


class _Builder:
    """Grammar primitives (deterministic given their arguments) plus random samplers.

    The primitives are shared by the corpus generator and the evaluation suites.
    """

    def __init__(self, config: ToyEnglishConfig, rng: random.Random):
        self.cfg = config
        self.rng = rng
        self.lex = lexicon(config)
        self.kb = knowledge_base(config.seed)
        self.agreement: list[tuple[_Tok, _Tok, str, str]] = []  # controller, verb, number, clause
        self.licensors: list[_Tok] = []
        self.npis: list[_Tok] = []

    def reset(self) -> None:
        self.agreement, self.licensors, self.npis = [], [], []

    # ---- noun phrases -------------------------------------------------------------
    def np(self, noun: Noun, number: str, det: str | None = "the", num: str | None = None,
           adjs: Sequence[str] = ()) -> _Phrase:
        ch = _Chunk("NP")
        toks: list[_Tok] = []
        word = noun.sg if number == "Sing" else noun.pl
        head = _Tok(word, "NOUN", noun.sg, number, ch)
        if det is not None:
            dnum = "Sing" if det in DETS_SG else "Plur" if det in DETS_PL else "_"
            t = _Tok(det, "DET", "a" if det == "an" else det, dnum, ch).attach(head, "det")
            toks.append(t)
            if det == "no":
                self.licensors.append(t)
            if det == "any":
                self.npis.append(t)
        if num is not None:
            toks.append(_Tok(num, "NUM", num, "Sing" if num == "one" else "Plur", ch).attach(head, "nummod"))
        for a in adjs:
            toks.append(_Tok(a, "ADJ", a, "_", ch).attach(head, "amod"))
        toks.append(head)
        return _Phrase(toks, head, number, noun.cls)

    def propn(self, name: str, cls: str = "person") -> _Phrase:
        t = _Tok(name, "PROPN", name, "Sing", _Chunk("NP"))
        return _Phrase([t], t, "Sing", cls)

    def pron(self, word: str, number: str, cls: str | None = None) -> _Phrase:
        t = _Tok(word, "PRON", word, number, _Chunk("NP"))
        return _Phrase([t], t, number, cls)

    def add_pp(self, phrase: _Phrase, prep: str, inner: _Phrase, deprel: str = "nmod",
               attach_to: _Tok | None = None) -> _Phrase:
        case = _Tok(prep, "ADP", prep, "_", _Chunk("PP")).attach(inner.head, "case")
        inner.head.attach(attach_to or phrase.head, deprel)
        phrase.toks.extend([case] + inner.toks)
        return phrase

    def coordinate(self, first: _Phrase, second: _Phrase, conj: str = "and") -> _Phrase:
        cc = _Tok(conj, "CCONJ").attach(second.head, "cc")
        second.head.attach(first.head, "conj")
        return _Phrase(first.toks + [cc] + second.toks, first.head, "Plur", first.cls)

    def rel_pron(self, antecedent: _Phrase) -> str:
        cls = antecedent.cls
        r = self.rng.random()
        if r < 0.6 or cls is None:
            return "that"
        return "who" if CLASSES.get(cls, (False, False))[1] else "which"

    def add_relative(self, phrase: _Phrase, clause_fn: Callable[[_Tok], _Phrase]) -> _Phrase:
        """Append a relative clause built by ``clause_fn(rel_pronoun_token)``."""
        word = self.rel_pron(phrase)
        rel = _Tok(word, "PRON", word, phrase.number, _Chunk("NP"))
        cl = clause_fn(rel)
        cl.head.attach(phrase.head, "acl:relcl")
        phrase.toks.extend(cl.toks)
        return phrase

    # ---- clauses --------------------------------------------------------------------
    def clause(self, subj: _Phrase | None, pred: str, *, verb: Verb | None = None,
               obj: _Phrase | None = None, adj: str | None = None, pred_np: _Phrase | None = None,
               comp: _Phrase | None = None, tense: str = "pres", neg: str | None = None,
               gap: str | None = None, rel: _Tok | None = None, controller: _Phrase | None = None,
               by_agent: _Phrase | None = None, pre_adv: str | None = None,
               post_adv: str | None = None, adjunct: tuple[str, _Phrase] | None = None,
               kind: str = "main", complementizer: bool = True) -> _Phrase:
        """Assemble a clause; ``pred`` in {"trans", "intr", "pass", "cop_adj", "cop_noun", "comp"}.

        ``gap`` ("subj"/"obj") makes a relative clause with pronoun token ``rel`` whose
        number is ``controller``'s.  ``neg`` is None, "not" or "never".  ``pre_adv``
        goes before the verb (e.g. "ever", "already", "often"), ``post_adv`` after the
        object (e.g. "yet").  Records agreement and licensors on the builder.
        """
        number = controller.number if gap == "subj" and controller else (subj.number if subj else "Sing")
        ctrl = controller.head if gap == "subj" and controller else (subj.head if subj else None)
        vp = _Chunk("VP")
        toks: list[_Tok] = []
        if gap is not None:
            assert rel is not None
            toks.append(rel)
        if gap != "subj":
            assert subj is not None
            toks.extend(subj.toks)
        subj_tok = rel if gap == "subj" else subj.head  # type: ignore[union-attr]
        aux: list[_Tok] = []
        agree: _Tok | None = None
        if pred in ("cop_adj", "cop_noun"):
            if pred == "cop_adj":
                assert adj is not None
                head = _Tok(adj, "ADJ", adj, "_")
                rest: list[_Tok] = [head]
            else:
                assert pred_np is not None
                head = pred_np.head
                rest = list(pred_np.toks)
            be = (_BE if tense != "past" else _BE_PAST)[number]
            cop = _Tok(be, "AUX", "be", number, vp).attach(head, "cop")
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
            head = _Tok("", "VERB", v.base, "_", vp)  # type: ignore[union-attr]
            if pred == "pass":
                be = (_BE if tense != "past" else _BE_PAST)[number]
                a = _Tok(be, "AUX", "be", number, vp).attach(head, "aux:pass")
                aux.append(a)
                agree = a
                head.word = v.part  # type: ignore[union-attr]
            elif tense == "pres":
                if neg == "not":
                    a = _Tok(_DO[number], "AUX", "do", number, vp).attach(head, "aux")
                    aux.append(a)
                    agree = a
                    head.word = v.base  # type: ignore[union-attr]
                else:
                    head.word = v.s3 if number == "Sing" else v.base  # type: ignore[union-attr]
                    head.number = number
                    agree = head
            elif tense == "past":
                if neg == "not":
                    aux.append(_Tok("did", "AUX", "do", "_", vp).attach(head, "aux"))
                    head.word = v.base  # type: ignore[union-attr]
                else:
                    head.word = v.past  # type: ignore[union-attr]
            elif tense == "perf":
                a = _Tok(_HAVE[number], "AUX", "have", number, vp).attach(head, "aux")
                aux.append(a)
                agree = a
                head.word = v.part  # type: ignore[union-attr]
            elif tense == "prog":
                a = _Tok(_BE[number], "AUX", "be", number, vp).attach(head, "aux")
                aux.append(a)
                agree = a
                head.word = v.ing  # type: ignore[union-attr]
            elif tense == "modal":
                aux.append(_Tok(self.rng.choice(_MODALS), "AUX", None, "_", vp).attach(head, "aux"))
                head.word = v.base  # type: ignore[union-attr]
            else:  # pragma: no cover
                raise ValueError(f"tense={tense!r}")
            toks.extend(aux)
            if neg:
                toks.append(self._neg(neg, head, vp))
            if pre_adv:
                t = _Tok(pre_adv, "ADV", pre_adv, "_", vp).attach(head, "advmod")
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
                by = _Tok("by", "ADP", "by", "_", _Chunk("PP")).attach(by_agent.head, "case")
                by_agent.head.attach(head, "obl:agent")
                by_agent.head.role = "agent"
                toks.append(by)
                toks.extend(by_agent.toks)
            if pred == "comp":
                assert comp is not None
                if complementizer:
                    toks.append(_Tok("that", "SCONJ").attach(comp.head, "mark"))
                comp.head.attach(head, "ccomp")
                toks.extend(comp.toks)
            rest = []
        if pred in ("trans", "intr") and gap != "subj" and subj is not None:
            for t in subj.toks:  # coordinated subjects: every conjunct is an agent
                if t.deprel == "conj" and t.head is subj.head:
                    t.role = "agent"
        if adjunct is not None:
            prep, inner = adjunct
            case = _Tok(prep, "ADP", prep, "_", _Chunk("PP")).attach(inner.head, "case")
            inner.head.attach(head, "obl")
            toks.append(case)
            toks.extend(inner.toks)
        if post_adv:
            t = _Tok(post_adv, "ADV", post_adv, "_").attach(head, "advmod")
            toks.append(t)
            if post_adv in NPIS:
                self.npis.append(t)
        if agree is not None and ctrl is not None:
            self.agreement.append((ctrl, agree, number, kind))
        return _Phrase(toks, head, number, None, "clause")

    def _neg(self, neg: str, head: _Tok, vp: _Chunk) -> _Tok:
        t = _Tok(neg, "PART" if neg == "not" else "ADV", neg, "_", vp).attach(head, NEGATION_DEPREL)
        self.licensors.append(t)
        return t

    def sentence(self, clause: _Phrase, end: str = ".") -> list[_Tok]:
        p = _Tok(end, "PUNCT").attach(clause.head, "punct")
        clause.head.head, clause.head.deprel = None, "root"
        return clause.toks + [p]

    # ---- finalisation -----------------------------------------------------------------
    def finalize(self, toks: list[_Tok], meta: dict[str, Any] | None = None,
                 main_subject: _Tok | None = None, main_verb: _Tok | None = None) -> Sentence:
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
                agr.append({"subject": index[id(ctrl)], "verb": index[id(verb)],
                            "number": number, "clause": kind})
        meta["agreement"] = tuple(agr)
        meta["licensors"] = tuple(index[id(t)] for t in self.licensors if id(t) in index)
        meta["npis"] = tuple(index[id(t)] for t in self.npis if id(t) in index)
        sent = Sentence(tuple(words), tuple(t.lemma for t in toks), tuple(t.upos for t in toks),
                        heads, tuple(t.deprel for t in toks), tuple(depth), tuple(chunks),
                        tuple(t.role for t in toks), tuple(t.number for t in toks), meta)
        if main_subject is not None and id(main_subject) in index:
            s = index[id(main_subject)]
            v = index[id(main_verb)] if main_verb is not None and id(main_verb) in index else None
            meta["subject_index"] = s
            meta["verb_index"] = v
            att, types = _attractors(sent, s, v) if v is not None else ((), ())
            meta["attractors"] = att
            meta["attractor_types"] = types
        self.reset()
        return sent

    # ---- random sampling ----------------------------------------------------------------
    def rand_number(self) -> str:
        return "Plur" if self.rng.random() < self.cfg.p_plural else "Sing"

    def rand_det(self, number: str, *, npi_ok: bool = False, ppi_ok: bool = True,
                 no_ok: bool = False) -> tuple[str | None, str | None]:
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
                return self.rng.choice(_POSSESSIVES), None
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
            return self.rng.choice(_POSSESSIVES), None
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

    def rand_np(self, cls: str | None, depth: int, *, role: str = "any", npi_ok: bool = False,
                ppi_ok: bool = True, no_ok: bool = False, allow_pron: bool = True,
                allow_mods: bool = True, number: str | None = None) -> _Phrase:
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
            decay = 0.55 ** depth
            if rng.random() < self.cfg.p_pp * decay:
                inner = self.rand_np(None, depth + 1, role="obl", allow_pron=False, ppi_ok=ppi_ok)
                self.add_pp(np, rng.choice(_NMOD_PREPS), inner)
            if rng.random() < self.cfg.p_relative * decay:
                self.rand_relative(np, depth + 1)
        return np

    def rand_relative(self, np: _Phrase, depth: int) -> _Phrase:
        rng, lex = self.rng, self.lex
        cls = np.cls or "person"
        r = rng.random()
        tense, neg = self.rand_tense(allow_neg=True)
        if r < 0.5 and CLASSES[cls][0]:  # subject gap
            if rng.random() < 0.75:
                v = lex.verb_for(rng, "agent", cls, True)
                obj = self.rand_np(lex.arg_class(rng, v, "patient"), depth, role="obj",
                                   ppi_ok=neg is None, allow_mods=depth < 2)
                return self.add_relative(np, lambda rel: self.clause(
                    None, "trans", verb=v, obj=obj, tense=tense, neg=neg, gap="subj", rel=rel,
                    controller=np, kind="rel"))
            v = lex.verb_for(rng, "agent", cls, False)
            return self.add_relative(np, lambda rel: self.clause(
                None, "intr", verb=v, tense=tense, neg=neg, gap="subj", rel=rel,
                controller=np, kind="rel", adjunct=self.rand_adjunct(depth, ppi_ok=neg is None)))
        if r < 0.62:
            adj = lex.adjective(rng)
            return self.add_relative(np, lambda rel: self.clause(
                None, "cop_adj", adj=adj, tense="past" if tense == "past" else "pres", neg=neg,
                gap="subj", rel=rel, controller=np, kind="rel"))
        # object gap: "the dog that the cats chase"
        v = lex.verb_for(rng, "patient", cls, True)
        subj = self.rand_np(lex.arg_class(rng, v, "agent"), depth, role="subj",
                            allow_mods=depth < 2)
        return self.add_relative(np, lambda rel: self.clause(
            subj, "trans", verb=v, tense=tense, neg=neg, gap="obj", rel=rel, kind="rel"))

    def rand_tense(self, allow_neg: bool = True) -> tuple[str, str | None]:
        r = self.rng.random()
        tense = ("pres" if r < 0.45 else "past" if r < 0.65 else "perf" if r < 0.8
                 else "modal" if r < 0.9 else "prog")
        neg = None
        if allow_neg and self.rng.random() < self.cfg.p_negation:
            neg = "never" if self.rng.random() < 0.25 and tense in ("pres", "past", "perf") else "not"
        return tense, neg

    def rand_adjunct(self, depth: int, ppi_ok: bool = True) -> tuple[str, _Phrase] | None:
        if self.rng.random() < 0.15:
            inner = self.rand_np("place", depth + 1, role="obl", allow_pron=False,
                                 allow_mods=False, ppi_ok=ppi_ok)
            return self.rng.choice(_PLACE_PREPS), inner
        return None

    def rand_clause(self, depth: int, kind: str = "main") -> tuple[_Phrase, _Tok | None, _Tok | None]:
        """A random finite clause; returns (clause, subject head, agreeing verb or None)."""
        rng, lex, cfg = self.rng, self.lex, self.cfg
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

        def subject(cls: str) -> _Phrase:
            s = self.rand_np(cls, depth, role="subj", allow_pron=not no_subj)
            if no_subj and s.head.upos == "NOUN":
                _force_det(s, "no", self)
            elif not no_subj and rng.random() < 0.04 and s.head.upos == "NOUN":
                other = self.rand_np(cls, depth + 1, role="subj", allow_pron=False,
                                     allow_mods=False)
                s = self.coordinate(s, other)
            return s

        if r < 0.5:
            v = lex.verb(rng, True)
            subj = subject(lex.arg_class(rng, v, "agent"))
            obj = self.rand_np(lex.arg_class(rng, v, "patient"), depth, role="obj",
                               npi_ok=licensed, ppi_ok=not licensed)
            cl = self.clause(subj, "trans", verb=v, obj=obj, tense=tense, neg=neg,
                             pre_adv=pre_adv, post_adv=post_adv, adjunct=adjunct, kind=kind)
        elif r < 0.68:
            v = lex.verb(rng, False)
            subj = subject(lex.arg_class(rng, v, "agent"))
            cl = self.clause(subj, "intr", verb=v, tense=tense, neg=neg, pre_adv=pre_adv,
                             post_adv=post_adv, adjunct=adjunct, kind=kind)
        elif r < 0.75:
            v = lex.verb(rng, True)
            subj = subject(lex.arg_class(rng, v, "patient"))
            by = None
            if rng.random() < 0.6:
                by = self.rand_np(lex.arg_class(rng, v, "agent"), depth + 1, role="obl",
                                  allow_mods=False, ppi_ok=not licensed)
            cl = self.clause(subj, "pass", verb=v, by_agent=by, tense="past" if tense == "past" else "pres",
                             neg=None if neg == "never" else neg, kind=kind,
                             post_adv=None if post_adv in NPIS + PPIS else post_adv)
        elif r < 0.86:
            subj = subject(lex.noun(rng).cls)
            adj = lex.adjective(rng)
            cl = self.clause(subj, "cop_adj", adj=adj, tense="past" if tense == "past" else "pres",
                             neg=None if neg == "never" else neg, kind=kind)
        elif r < 0.91:
            cls = lex.noun(rng).cls
            subj = subject(cls)
            noun = lex.noun(rng, cls)
            pnum = subj.number
            pred_np = self.np(noun, pnum, "a" if pnum == "Sing" else None, None, self.rand_adjs())
            cl = self.clause(subj, "cop_noun", pred_np=pred_np,
                             tense="past" if tense == "past" else "pres",
                             neg=None if neg == "never" else neg, kind=kind)
        else:
            if depth >= 1:
                return self.rand_clause(depth, kind)
            v = self.comp_verb()
            subj = subject(rng.choice(HUMAN))
            inner, _, _ = self.rand_clause(depth + 1, "comp")
            cl = self.clause(subj, "comp", verb=v, comp=inner, tense=tense,
                             neg=None if neg == "never" else neg, kind=kind,
                             complementizer=rng.random() < 0.7)
        agree = None
        for ctrl, vtok, _, k in self.agreement[n_agree:]:
            if k == kind and ctrl is subj.head:
                agree = vtok
        return cl, subj.head, agree

    def comp_verb(self) -> Verb:
        return _special_verbs()[self.rng.choice(_COMP_VERBS)]

    def rand_sentence(self) -> Sentence:
        rng, cfg = self.rng, self.cfg
        main, subj, verb = self.rand_clause(0, "main")
        r = rng.random()
        toks_clause = main
        if r < cfg.p_coordination:
            second, _, _ = self.rand_clause(1, "conj")
            cc = _Tok(rng.choice(("and", "and", "but", "or")), "CCONJ").attach(second.head, "cc")
            second.head.attach(main.head, "conj")
            toks_clause = _Phrase(main.toks + [cc] + second.toks, main.head, kind="clause")
        elif r < cfg.p_coordination + cfg.p_subordinate:
            sub, _, _ = self.rand_clause(1, "sub")
            mark = _Tok(rng.choice(_SCONJS), "SCONJ").attach(sub.head, "mark")
            sub.head.attach(main.head, "advcl")
            if rng.random() < 0.5:
                comma = _Tok(",", "PUNCT").attach(sub.head, "punct")
                toks_clause = _Phrase([mark] + sub.toks + [comma] + main.toks, main.head, kind="clause")
            else:
                toks_clause = _Phrase(main.toks + [mark] + sub.toks, main.head, kind="clause")
        toks = self.sentence(toks_clause)
        return self.finalize(toks, {"kind": "clause"}, subj, verb)

    # ---- facts ------------------------------------------------------------------------
    def fact_tokens(self, fact: Fact, template: int) -> tuple[list[_Tok], dict[str, _Tok], _Tok, _Tok | None]:
        """Tokens of ``fact`` in one of its templates.

        Returns (tokens, slots, subject head, agreeing verb); ``slots`` maps "subject",
        "object", "count", "relation" to the tokens that realise them.
        """
        rel, s, o = fact.relation, fact.subject, fact.object
        slots: dict[str, _Tok] = {}
        place = "city" if rel == "lives_in" else "country"
        if rel in ("lives_in", "lives_in_country"):
            live = _special_verbs()["live"]
            subj = self.propn(s)
            obj = self.propn(o, place)
            t = template % 3
            if t == 0:  # X lives in C .
                cl = self.clause(subj, "intr", verb=live, adjunct=("in", obj), tense="pres")
            elif t == 1:  # X has lived in C for N years .
                n = self.rng.choice(NUMERALS[1:])
                years = self.np(Noun("year", "years", "abstract", 1.0), "Plur", None, n)
                cl = self.clause(subj, "intr", verb=live, adjunct=("in", obj), tense="perf")
                case = _Tok("for", "ADP", "for", "_", _Chunk("PP")).attach(years.head, "case")
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
                case = _Tok("in", "ADP", "in", "_", _Chunk("PP")).attach(obj.head, "case")
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
            own, have = _special_verbs()["own"], _special_verbs()["have"]
            cl = self.clause(subj, "trans", verb=own if template % 2 == 0 else have, obj=pets,
                             tense="pres")
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
            case = _Tok("than", "ADP", "than", "_", _Chunk("PP")).attach(other.head, "case")
            other.head.attach(cl.head, "obl")
            cl.toks.extend([case] + other.toks)
            slots.update(subject=subj.head, object=other.head, relation=cl.head)
            return self.sentence(cl), slots, subj.head, self.agreement[-1][1]
        raise ValueError(f"unknown relation {rel!r}")  # pragma: no cover

    def fact_sentence(self, fact: Fact, template: int) -> Sentence:
        toks, _, s, v = self.fact_tokens(fact, template)
        meta = {"kind": "fact", "facts": ((fact.relation, fact.subject, fact.object),),
                "template": template}
        return self.finalize(toks, meta, s, v)


N_TEMPLATES = {"lives_in": 3, "lives_in_country": 2, "city_in_country": 2, "capital_of": 2,
               "occupation": 2, "owns": 2, "smaller_than": 4}


def _force_det(np: _Phrase, det: str, b: _Builder) -> None:
    """Replace/insert the determiner of a plain noun phrase (drops a numeral)."""
    head = np.head
    keep = [t for t in np.toks if not (t.head is head and t.deprel in ("det", "nummod"))]
    ch = head.chunk
    t = _Tok(det, "DET", det, "Sing" if det in DETS_SG else "Plur" if det in DETS_PL else "_", ch)
    t.attach(head, "det")
    start = keep.index(head)
    # insert before the adjectives of the head
    while start > 0 and keep[start - 1].head is head and keep[start - 1].deprel == "amod":
        start -= 1
    keep.insert(start, t)
    np.toks[:] = keep
    if det == "no":
        b.licensors.append(t)


def _attractors(sent: Sentence, s: int, v: int) -> tuple[tuple[int, ...], tuple[str, ...]]:
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


# ---------------------------------------------------------------------------------
# Corpus and vocabulary
# ---------------------------------------------------------------------------------


def generate_corpus(config: ToyEnglishConfig) -> list[Sentence]:
    """``config.n_sentences`` annotated sentences, deterministic from ``config``.

    A fraction ``p_fact`` states knowledge-base facts round-robin over the stated facts
    (so every fact is stated once the corpus has enough fact sentences), cycling
    through each relation's templates.  Used by the toy-BERT training data pipeline and
    the survey_03_* notebooks.
    """
    rng = random.Random(f"toy-english-corpus:{config.seed}")
    b = _Builder(config, rng)
    facts = b.kb.stated_facts()
    order_rng = random.Random(f"toy-english-facts:{config.seed}")
    order_rng.shuffle(facts)
    fact_i = 0
    out: list[Sentence] = []
    while len(out) < config.n_sentences:
        if rng.random() < config.p_fact:
            f = facts[fact_i % len(facts)]
            template = (fact_i // len(facts)) % N_TEMPLATES[f.relation]
            fact_i += 1
            out.append(b.fact_sentence(f, template))
            continue
        for _ in range(30):
            s = b.rand_sentence()
            if len(s) <= config.max_len:
                break
        else:  # pragma: no cover - extremely unlikely with max_len >= 16
            continue
        out.append(s)
    return out


def vocabulary(config: ToyEnglishConfig) -> list[str]:
    """Every word form that can appear in the corpus or the suites, sorted."""
    lex = lexicon(config)
    kb = knowledge_base(config.seed)
    words = set(_function_words()) | set(NUMERALS) | set(_SIZE_WORDS)
    words |= {w for pair in _SPECIAL_NOUNS for w in pair}
    for n in lex.nouns:
        words.update((n.sg, n.pl))
    for v in lex.verbs:
        words.update((v.base, v.s3, v.past, v.part, v.ing))
    for v in _special_verbs().values():
        words.update((v.base, v.s3, v.past, v.part, v.ing))
    words |= set(lex.adjectives) | set(lex.adverbs) | set(kb.names)
    return sorted(words)


# ---------------------------------------------------------------------------------
# Baselines
# ---------------------------------------------------------------------------------


def ambiguous_words(sentences: Iterable[Sentence], min_count: int = 5,
                    min_share: float = 0.05) -> dict[str, Counter]:
    """Words seen with >= 2 UPOS tags, the minority tags covering >= ``min_share``.

    Returns word -> Counter of tags.  Used by the POS-probing notebooks to report
    accuracy on tokens whose tag context must decide.
    """
    counts: dict[str, Counter] = defaultdict(Counter)
    for s in sentences:
        for w, t in zip(s.words, s.upos):
            counts[w][t] += 1
    out = {}
    for w, c in counts.items():
        total = sum(c.values())
        if len(c) >= 2 and total >= min_count and 1 - c.most_common(1)[0][1] / total >= min_share:
            out[w] = c
    return out


def per_word_majority_baseline(train: Sequence[Sentence], test: Sequence[Sentence],
                               ambiguous: Collection[str] | None = None) -> dict[str, float]:
    """POS tagging by each word's most frequent training tag (unknown words: overall mode).

    Returns accuracy overall, on ``ambiguous`` words (default: :func:`ambiguous_words`
    of ``train``), on the rest, plus the OOV rate and token counts.  The reference
    point for the survey_03 POS probes.
    """
    counts: dict[str, Counter] = defaultdict(Counter)
    overall: Counter = Counter()
    for s in train:
        for w, t in zip(s.words, s.upos):
            counts[w][t] += 1
            overall[t] += 1
    default = overall.most_common(1)[0][0] if overall else "NOUN"
    best = {w: c.most_common(1)[0][0] for w, c in counts.items()}
    amb = set(ambiguous) if ambiguous is not None else set(ambiguous_words(train))
    n = ok = n_amb = ok_amb = oov = 0
    for s in test:
        for w, t in zip(s.words, s.upos):
            pred = best.get(w)
            if pred is None:
                oov += 1
                pred = default
            hit = pred == t
            n += 1
            ok += hit
            if w in amb:
                n_amb += 1
                ok_amb += hit
    return {
        "accuracy": ok / n if n else float("nan"),
        "ambiguous_accuracy": ok_amb / n_amb if n_amb else float("nan"),
        "unambiguous_accuracy": (ok - ok_amb) / (n - n_amb) if n > n_amb else float("nan"),
        "oov_rate": oov / n if n else float("nan"),
        "n_tokens": float(n),
        "n_ambiguous_tokens": float(n_amb),
        "n_ambiguous_types": float(len(amb)),
    }


# ---------------------------------------------------------------------------------
# Insensitivity transforms (Sinha et al. 2021; Ettinger 2020; O'Connor & Andreas 2021)
# ---------------------------------------------------------------------------------


def _subset(sent: Sentence, keep: Sequence[int], transform: str) -> Sentence:
    """Sentence made of positions ``keep`` (in that order); heads re-indexed.

    Heads pointing at dropped words become 0 (label kept), so the result may have
    several roots; ``depth`` is recomputed from the new heads.
    """
    new_pos = {old: new for new, old in enumerate(keep)}
    heads = []
    for old in keep:
        h = sent.heads[old]
        heads.append(new_pos[h - 1] + 1 if h and (h - 1) in new_pos else 0)
    depth = []
    for i in range(len(keep)):
        d, j, seen = 0, i, 0
        while heads[j] != 0 and seen <= len(keep):
            j = heads[j] - 1
            d += 1
            seen += 1
        depth.append(d)

    def pick(xs: Sequence[Any]) -> tuple[Any, ...]:
        return tuple(xs[i] for i in keep)

    meta = {"kind": sent.meta.get("kind"), "transform": transform, "source_positions": tuple(keep)}
    return Sentence(pick(sent.words), pick(sent.lemmas), pick(sent.upos), tuple(heads),
                    pick(sent.deprels), tuple(depth), pick(sent.chunks), pick(sent.roles),
                    pick(sent.number), meta)


def shuffle_words(sent: Sentence, seed: int = 0, keep_punct: bool = True) -> Sentence:
    """Words in random order (final punctuation kept last); annotations follow the words."""
    rng = random.Random(f"shuffle:{seed}:{sent.text}")
    idx = list(range(len(sent)))
    tail = []
    if keep_punct and idx and sent.upos[-1] == "PUNCT":
        tail = [idx.pop()]
    rng.shuffle(idx)
    return _subset(sent, idx + tail, "shuffle")


def truncate(sent: Sentence, keep: int | float = 0.5) -> Sentence:
    """The first ``keep`` words (an int, or a fraction of the length, at least one)."""
    n = keep if isinstance(keep, int) else max(1, int(round(len(sent) * keep)))
    if n < 1:
        raise ParameterError(f"keep={keep!r} is invalid: expected >= 1 word or a fraction in (0, 1]")
    return _subset(sent, list(range(min(n, len(sent)))), "truncate")


def _subtree(sent: Sentence, i: int) -> set[int]:
    children: dict[int, list[int]] = defaultdict(list)
    for j, h in enumerate(sent.heads):
        if h:
            children[h - 1].append(j)
    out, stack = set(), [i]
    while stack:
        k = stack.pop()
        out.add(k)
        stack.extend(children[k])
    return out


def _main_dependent(sent: Sentence, labels: tuple[str, ...]) -> int | None:
    root = sent.heads.index(0)
    for j, (h, d) in enumerate(zip(sent.heads, sent.deprels)):
        if h == root + 1 and d in labels:
            return j
    return None


def remove_subject(sent: Sentence) -> Sentence:
    """The sentence without the main clause's subject (its whole subtree)."""
    j = _main_dependent(sent, ("nsubj", "nsubj:pass"))
    drop = _subtree(sent, j) if j is not None else set()
    return _subset(sent, [i for i in range(len(sent)) if i not in drop], "remove_subject")


def remove_object(sent: Sentence) -> Sentence:
    """The sentence without the main clause's object (its whole subtree)."""
    j = _main_dependent(sent, ("obj",))
    drop = _subtree(sent, j) if j is not None else set()
    return _subset(sent, [i for i in range(len(sent)) if i not in drop], "remove_object")


TRANSFORMS: dict[str, Callable[[Sentence], Sentence]] = {
    "shuffle": shuffle_words,
    "truncate": truncate,
    "remove_subject": remove_subject,
    "remove_object": remove_object,
}


def apply_transform(item: ClozeItem, name: str) -> ClozeItem | None:
    """Apply insensitivity transform ``name`` to a cloze item (the mask follows its word).

    Returns None when the transform removes the masked word (e.g. truncation before it).
    Used by the insensitivity experiments of the survey_03_* notebooks.
    """
    if name not in TRANSFORMS:
        raise ParameterError(f"transform={name!r} is unknown: expected one of {sorted(TRANSFORMS)}")
    if item.sentence is None:
        raise ParameterError("item.sentence is None: the item has no annotated sentence")
    if name == "truncate":
        # keep the masked word: cut half of the words before it plus everything after it
        new = _subset(item.sentence, list(range(item.mask_index // 2, item.mask_index + 1)), "truncate")
    else:
        new = TRANSFORMS[name](item.sentence)
    pos = new.meta["source_positions"]
    if item.mask_index not in pos:
        return None
    m = pos.index(item.mask_index)
    words = list(new.words)
    words[m] = MASK
    meta = dict(item.meta, transform=name)
    return ClozeItem(item.suite, tuple(words), m, item.correct, item.incorrect, meta, new)


def make_suite(name: str, config: ToyEnglishConfig, n_items: int = 240) -> list[ClozeItem]:
    """Cloze/minimal-pair evaluation suite ``name`` (see :data:`SUITES`).

    Implemented in :mod:`bertology_lib.data.suites`; re-exported here.
    """
    from bertology_lib.data.suites import make_suite as _make

    return _make(name, config, n_items)
