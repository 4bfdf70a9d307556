"""Coreference by gender: two names, one pronoun, the antecedent fixed by the pronoun's gender alone.

Clark et al. (2019, §4.2/§5) find a BERT head that, from a mention, attends most to the head word of its
antecedent (65% on CoNLL-2012 against 27% for the nearest mention). Without a coreference corpus offline,
:func:`coreference_items` builds a controlled test: a male and a female first name, then a pronoun
(he/she, him/her or his/her) that can only refer to one of them, e.g. "John called Mary because she
wanted to talk ." Both names come before the pronoun, so the nearest-mention baseline
(:func:`nearest_mention_accuracy`) always picks the second name; items alternate antecedent-first and
antecedent-second, which puts that baseline at exactly 50% on any even run of items from an even index.

Every name is one WordPiece of the uncased MiniLM vocabulary (the antecedent's head word is one token).
Scored by :mod:`bertology_lib.analysis.coref_heads`.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from collections.abc import Sequence

from bertology_lib.errors import ParameterError

MALE_NAMES: tuple[str, ...] = (
    "John",
    "James",
    "Robert",
    "Michael",
    "William",
    "David",
    "Richard",
    "Thomas",
    "Charles",
    "Daniel",
    "Paul",
    "Steven",
    "George",
    "Kevin",
    "Brian",
    "Edward",
    "Peter",
    "Henry",
    "Tom",
    "Joe",
)
FEMALE_NAMES: tuple[str, ...] = (
    "Mary",
    "Patricia",
    "Jennifer",
    "Linda",
    "Elizabeth",
    "Susan",
    "Jessica",
    "Sarah",
    "Karen",
    "Nancy",
    "Lisa",
    "Betty",
    "Sandra",
    "Emily",
    "Anna",
    "Laura",
    "Rachel",
    "Alice",
    "Helen",
    "Emma",
)
PRONOUNS: dict[str, dict[str, str]] = {  # case -> gender -> form
    "subj": {"m": "he", "f": "she"},
    "obj": {"m": "him", "f": "her"},
    "poss": {"m": "his", "f": "her"},
}
# {a}, {b}: the two names in order; {subj}/{obj}/{poss}: the pronoun and its case (words split on spaces)
TEMPLATES: tuple[str, ...] = (
    "{a} called {b} because {subj} wanted to talk .",
    "{a} thanked {b} after {subj} won the prize .",
    "{a} met {b} at the station , and {subj} was late .",
    "{a} wrote to {b} because {subj} had moved away .",
    "{a} and {b} had lunch , but only {subj} paid .",
    "{a} visited {b} before {subj} left the city .",
    "{a} told {b} that the teacher had praised {obj} .",
    "{a} lost to {b} , so the coach called {obj} .",
    "{a} showed {b} a picture of {poss} sister .",
    "{a} sent {b} a letter about {poss} new job .",
    "{a} waved at {b} while {subj} crossed the street .",
)


@dataclass(frozen=True)
class CorefItem:
    """One sentence: ``words`` (punctuation as separate words) and the word indices of the ``pronoun``, its
    ``antecedent`` (the name of the pronoun's gender) and the ``other`` name; ``template``: index into
    :data:`TEMPLATES`."""

    words: list[str]
    pronoun: int
    antecedent: int
    other: int
    template: int = -1

    @property
    def antecedent_first(self) -> bool:
        return self.antecedent < self.other

    def nearest_mention(self) -> int:
        """The word index the nearest-mention baseline picks: the closer name before the pronoun (the closer
        name after it when neither precedes)."""
        names = (self.antecedent, self.other)
        before = [i for i in names if i < self.pronoun]
        return max(before) if before else min(names)


def _fill(template: str, a: str, b: str, gender: str) -> tuple[list[str], int, int, int]:
    """Words of ``template`` with names ``a``, ``b`` and the pronoun of ``gender``; (words, i_a, i_b, i_p)."""
    words, idx = [], {}
    for w in template.split():
        if w in ("{a}", "{b}"):
            idx[w] = len(words)
            words.append(a if w == "{a}" else b)
        elif w.startswith("{") and w[1:-1] in PRONOUNS:
            idx["p"] = len(words)
            words.append(PRONOUNS[w[1:-1]][gender])
        else:
            words.append(w)
    return words, idx["{a}"], idx["{b}"], idx["p"]


def coreference_items(n: int, seed: int = 0) -> list[CorefItem]:
    """``n`` items (an even number >= 2), the same for the same ``seed``.

    Item ``k`` has its antecedent first when ``k`` is even and second when odd; its gender (the pronoun's)
    is male for ``k % 4`` in {0, 1}; items ``2j`` and ``2j + 1`` share a template, which cycles through a
    seeded shuffle of :data:`TEMPLATES`. Names are drawn with the seed (one male, one female per item).
    """
    if isinstance(n, bool) or not isinstance(n, int) or n < 2 or n % 2:
        raise ParameterError(
            f"n={n!r} is not allowed; allowed: an even int >= 2 (half the items have the antecedent first, half second)"
        )
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ParameterError(f"seed={seed!r} is not allowed; allowed: an int >= 0")
    rng = random.Random(seed)
    order: list[int] = []
    items = []
    for k in range(n):
        if k % 2 == 0:
            if not order:
                order = list(range(len(TEMPLATES)))
                rng.shuffle(order)
            t = order.pop()
            male, female = rng.choice(MALE_NAMES), rng.choice(FEMALE_NAMES)
        gender = "m" if k % 4 < 2 else "f"
        ante, other = (male, female) if gender == "m" else (female, male)
        first = k % 2 == 0
        a, b = (ante, other) if first else (other, ante)
        words, i_a, i_b, i_p = _fill(TEMPLATES[t], a, b, gender)
        items.append(CorefItem(words, i_p, i_a if first else i_b, i_b if first else i_a, t))
    return items


def nearest_mention_accuracy(items: Sequence[CorefItem]) -> float:
    """Share of ``items`` whose nearest mention (:meth:`CorefItem.nearest_mention`) is the antecedent."""
    if not items:
        raise ParameterError("items is empty; allowed: at least one CorefItem")
    return sum(it.nearest_mention() == it.antecedent for it in items) / len(items)
