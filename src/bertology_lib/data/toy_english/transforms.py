"""Insensitivity transforms (Sinha et al. 2021; Ettinger 2020; O'Connor & Andreas 2021):
shuffled words, truncation, and sentences without their subject or object, each keeping
the annotations aligned with the words that remain.

Used by the insensitivity experiments of the survey_03_* notebooks, through
:func:`apply_transform` on cloze items.
"""

from __future__ import annotations

import random
from collections import defaultdict
from typing import Any, Callable, Sequence

from bertology_lib.data.toy_english.config import MASK
from bertology_lib.data.toy_english.sentence import ClozeItem, Sentence
from bertology_lib.errors import ParameterError
from bertology_lib.validation import check_choice, check_fraction, check_int


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
    return Sentence(
        pick(sent.words),
        pick(sent.lemmas),
        pick(sent.upos),
        tuple(heads),
        pick(sent.deprels),
        tuple(depth),
        pick(sent.chunks),
        pick(sent.roles),
        pick(sent.number),
        meta,
    )


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
    if isinstance(keep, float):  # a fraction of the length; anything else must be a word count
        n = max(1, int(round(len(sent) * check_fraction("keep", keep, open_max=False))))
    else:
        n = check_int("keep", keep, minimum=1)
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
    check_choice("transform", name, tuple(TRANSFORMS))
    if item.sentence is None:
        raise ParameterError(
            "item.sentence=None: the item has no annotated sentence; allowed: an item from "
            "bertology_lib.data.suites.make_suite"
        )
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
