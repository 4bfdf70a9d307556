"""Helpers shared by the suite builders: the masked item, count nouns and agent verbs.

Used by :mod:`bertology_lib.data.suites.syntax`, :mod:`bertology_lib.data.suites.semantics` and :mod:`bertology_lib.data.suites.knowledge`.
"""

from __future__ import annotations

from typing import Any

from bertology_lib.data.toy_english import MASK, Builder, ClozeItem, Noun, Token, Verb

OTHER_NUMBER = {"Sing": "Plur", "Plur": "Sing"}  # attractors take the other number


def cloze_item(
    b: Builder,
    suite: str,
    toks: list[Token],
    slot: Token,
    correct: str,
    incorrect: str,
    meta: dict[str, Any],
    subj: Token | None = None,
    verb: Token | None = None,
) -> ClozeItem:
    """The item of sentence ``toks`` with ``slot`` masked (the sentence keeps ``correct`` there)."""
    if correct == incorrect:  # pragma: no cover - guarded by the builders
        raise AssertionError(f"identical candidates {correct!r}")
    slot.word = correct
    i = next(k for k, t in enumerate(toks) if t is slot)
    sent = b.finalize(toks, {"kind": "suite", "suite": suite}, subj, verb)
    words = list(sent.words)
    words[i] = MASK
    return ClozeItem(suite, tuple(words), i, correct, incorrect, meta, sent)


def count_noun(b: Builder, cls: str | None = None, *, exclude: frozenset[str] = frozenset()) -> Noun:
    """A noun with distinct singular and plural forms (number visible on the noun)."""
    for _ in range(200):
        n = b.lex.noun(b.rng, cls)
        if not n.invariant and n.sg not in exclude:
            return n
    return next(n for n in b.lex.nouns if not n.invariant and n.sg not in exclude)


def agent_verb(b: Builder, cls: str, transitive: bool = True) -> Verb:
    """A verb whose agent fits noun class ``cls``."""
    return b.lex.verb_for(b.rng, "agent", cls, transitive)
