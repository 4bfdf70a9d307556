"""Cloze minimal pairs in real English words, for the survey's claims on a masked language model of English.

* :func:`negation_items`: Ettinger's (2020) negation test (NEG-136 in plural form): *robins are [MASK]* and
  *robins are not [MASK]*, the true category (*birds*) against another category of the lexicon (*trees*). The
  design is balanced: every category has the same number of members and is paired with every other one, so each
  category is the right answer exactly as often as the wrong one and a model that ignores the subject (a taste
  for *birds* over *trees*) scores exactly 0.5 on the affirmative items.
* :func:`npi_items`: Warstadt et al.'s (2019) negative-polarity items in three conditions of one frame:
  *no boy that the girl likes has [MASK] been to paris* (licensed), *the boy that no girl likes has [MASK] been
  to paris* (a licensor outside the NPI's scope) and *the boy that the girl likes has [MASK] been to paris*
  (unlicensed); the NPI (*ever*, *any*) against a plain word that fits every condition (*already*, *some*).
  The licensor stands at least four words from the masked slot, outside a two-sided n-gram's window, so
  statistics of adjacent words score the three conditions alike.
* :func:`role_items`: Ettinger's (2020) role-reversal test (ROLE-88, after Chow et al. 2016) in our own words:
  *the man forgot which customer the waiter had [MASK]* (canonical: *served*) against *the man forgot which waiter
  the customer had [MASK]* (roles reversed): the same words in both, only the roles swap, so a model that reads a
  bag of words gives the verb the same probability in both.

Items are written from small hand-picked lexicons, all lower case (the English lab BERT's tokenizer is uncased);
both fillers of every item are common words that WordPiece keeps whole. Each item is an :class:`EnglishCloze`,
the shape :func:`bertology_lib.analysis.cloze.score_items` scores. Deterministic: a seed only chooses which
frames a sample keeps.

Used by :mod:`bertology_lib.experiments.survey.english` (notebook ``survey_03b_english_bert``).
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass, field
from typing import Any

from bertology_lib.errors import ParameterError
from bertology_lib.validation import check_int

MASK = "[MASK]"

# four members per category (balance: each category is the right answer as often as the wrong one)
CATEGORIES: dict[str, tuple[str, ...]] = {
    "birds": ("robins", "sparrows", "eagles", "owls"),
    "fish": ("salmon", "trout", "sharks", "herring"),
    "trees": ("oaks", "pines", "maples", "willows"),
    "flowers": ("roses", "tulips", "daisies", "lilies"),
    "insects": ("ants", "bees", "wasps", "beetles"),
    "vegetables": ("carrots", "potatoes", "onions", "cabbages"),
    "fruits": ("apples", "bananas", "pears", "cherries"),
    "tools": ("hammers", "saws", "drills", "wrenches"),
    "weapons": ("swords", "rifles", "pistols", "daggers"),
    "vehicles": ("cars", "trucks", "buses", "bicycles"),
    "instruments": ("pianos", "violins", "guitars", "flutes"),
    "animals": ("dogs", "horses", "cows", "lions"),
}
CONDITIONS = ("affirmative", "negated")

NPI_CONDITIONS = ("licensed", "scope", "unlicensed")
PEOPLE = ("boy", "girl", "man", "woman", "teacher", "student", "doctor", "farmer")
RELATIVE_VERBS = ("likes", "knows", "met", "trusts", "hired", "called")
# (words before the slot, words after it, NPI, plain word): every frame is a verb phrase of the main clause
NPI_PHRASES: tuple[tuple[tuple[str, ...], tuple[str, ...], str, str], ...] = (
    (("has",), ("been", "to", "paris"), "ever", "already"),
    (("has",), ("seen", "a", "whale"), "ever", "already"),
    (("has",), ("visited", "the", "museum"), "ever", "already"),
    (("has",), ("read", "this", "book"), "ever", "already"),
    (("has",), ("won", "a", "prize"), "ever", "already"),
    (("bought",), ("books",), "any", "some"),
    (("found",), ("gold",), "any", "some"),
    (("wrote",), ("letters",), "any", "some"),
    (("sold",), ("cars",), "any", "some"),
    (("ate",), ("bread",), "any", "some"),
)


# (agent, patient, verb): the agent typically does the verb to the patient, the reverse is odd; every verb a past
# participle after "had", every word common in edited English (the English lab BERT's tokenizer keeps most whole)
ROLE_EVENTS: tuple[tuple[str, str, str], ...] = (
    ("police", "thief", "caught"),
    ("cat", "mouse", "caught"),
    ("doctor", "patient", "treated"),
    ("nurse", "patient", "helped"),
    ("teacher", "student", "taught"),
    ("hunter", "deer", "shot"),
    ("waiter", "customer", "served"),
    ("judge", "prisoner", "sentenced"),
    ("jury", "prisoner", "convicted"),
    ("lawyer", "client", "defended"),
    ("mother", "baby", "fed"),
    ("general", "soldier", "ordered"),
    ("captain", "crew", "commanded"),
    ("boss", "worker", "fired"),
    ("company", "worker", "hired"),
    ("wolf", "sheep", "killed"),
    ("dog", "boy", "bitten"),
    ("priest", "couple", "married"),
    ("voters", "senator", "elected"),
    ("coach", "player", "trained"),
    ("parents", "child", "raised"),
    ("reporter", "senator", "interviewed"),
    ("guard", "prisoner", "searched"),
    ("shark", "swimmer", "attacked"),
    ("officer", "suspect", "arrested"),
    ("lion", "zebra", "eaten"),
)
ROLE_FRAMES: tuple[tuple[str, ...], ...] = (
    ("the", "man", "forgot", "which"),
    ("the", "woman", "knew", "which"),
    ("the", "neighbor", "asked", "which"),
    ("the", "witness", "saw", "which"),
)
ROLE_CONDITIONS = ("canonical", "reversed")


@dataclass(frozen=True)
class EnglishCloze:
    """One masked minimal pair: ``words`` with ``[MASK]`` at ``mask_index``; the model passes when it gives
    ``correct`` the higher logit there than ``incorrect``. ``meta`` carries the item's condition and frame."""

    suite: str
    words: tuple[str, ...]
    mask_index: int
    correct: str
    incorrect: str
    meta: dict[str, Any] = field(default_factory=dict)


def negation_items() -> list[EnglishCloze]:
    """Every member of every category against every other category, affirmative (*robins are [MASK] .*) and
    negated (*robins are not [MASK] .*): ``correct`` is always the true category (under negation the *expected*
    completion is the other one; Ettinger scores how often a model still prefers the true one). ``meta``:
    ``condition``, ``member``, ``category``, ``other``, ``pair`` (the same id for an item's affirmative and negated
    forms)."""
    items = []
    pair = 0
    for cat, members in CATEGORIES.items():
        for member in members:
            for other in CATEGORIES:
                if other == cat:
                    continue
                for cond in CONDITIONS:
                    words = (member, "are", *(("not",) if cond == "negated" else ()), MASK, ".")
                    meta = dict(condition=cond, member=member, category=cat, other=other, pair=pair)
                    items.append(EnglishCloze("negation", words, len(words) - 2, cat, other, meta))
                pair += 1
    return items


def npi_frames() -> list[tuple[str, str, str, int]]:
    """Every frame of the NPI items: (subject noun, noun of the relative clause, its verb, phrase index)."""
    return [
        (n1, n2, v, k)
        for n1, n2 in itertools.permutations(PEOPLE, 2)
        for v in RELATIVE_VERBS
        for k in range(len(NPI_PHRASES))
    ]


def npi_items(n_frames: int = 0, seed: int = 0) -> list[EnglishCloze]:
    """The three conditions of ``n_frames`` frames (a seeded sample of :func:`npi_frames`; 0: all of them),
    frame by frame: ``correct`` is the NPI, ``incorrect`` the plain word, so an item's ``correct`` column says
    whether the model chose the NPI. ``meta``: ``condition``, ``frame`` (the frame's index in the sample), ``npi``."""
    check_int("n_frames", n_frames, minimum=0)
    check_int("seed", seed, minimum=0)
    frames = npi_frames()
    if n_frames > len(frames):
        raise ParameterError(
            f"n_frames={n_frames} is more than the {len(frames)} NPI frames; allowed: 0..{len(frames)}"
        )
    if n_frames:
        frames = random.Random(seed).sample(frames, n_frames)
    items = []
    for f, (n1, n2, verb, k) in enumerate(frames):
        before, after, npi, plain = NPI_PHRASES[k]
        for cond in NPI_CONDITIONS:
            head, inner = {"licensed": ("no", "the"), "scope": ("the", "no"), "unlicensed": ("the", "the")}[cond]
            words = (head, n1, "that", inner, n2, verb, *before, MASK, *after, ".")
            meta = dict(condition=cond, frame=f, npi=npi)
            items.append(EnglishCloze("npi", words, 6 + len(before), npi, plain, meta))
    return items


@dataclass(frozen=True)
class RoleItem:
    """One role-reversal pair: the same ``target`` verb masked in ``canonical`` (*… which customer the waiter had
    [MASK]*) and ``reversed`` (*… which waiter the customer had [MASK]*) word tuples, ``[MASK]`` at ``mask_index`` in
    both; ``event`` indexes :data:`ROLE_EVENTS` (the pairs of one event share their verb and nouns)."""

    canonical: tuple[str, ...]
    reversed: tuple[str, ...]
    mask_index: int
    target: str
    event: int
    frame: int


def role_items() -> list[RoleItem]:
    """Every event of :data:`ROLE_EVENTS` in every frame of :data:`ROLE_FRAMES` (26 x 4 = 104 pairs), canonical and
    reversed. In the canonical sentence the question asks for the patient and the agent is the subject (*which
    customer the waiter had served*); the reversed one swaps them and changes nothing else."""
    items = []
    for e, (agent, patient, verb) in enumerate(ROLE_EVENTS):
        for f, frame in enumerate(ROLE_FRAMES):
            canonical = (*frame, patient, "the", agent, "had", MASK, ".")
            reversed_ = (*frame, agent, "the", patient, "had", MASK, ".")
            items.append(RoleItem(canonical, reversed_, len(frame) + 4, verb, e, f))
    return items
