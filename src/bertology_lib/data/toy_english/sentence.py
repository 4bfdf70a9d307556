"""Annotated sentences and masked minimal pairs, the two things the toy-English generator hands out.

:class:`Sentence` is built by :meth:`bertology_lib.data.toy_english.grammar.Grammar.finalize`
(corpus, suites, tasks, CheckList items); :class:`ClozeItem` by the suites
(:mod:`bertology_lib.data.suites`) and :func:`~bertology_lib.data.toy_english.transforms.apply_transform`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Sentence:
    """One generated sentence with gold annotations (all tuples have one entry per word).

    ``heads`` are 1-based (0 = root); ``number`` is "Sing"/"Plur"/"_";
    ``meta`` holds 0-based indices (see the package docstring), e.g. ``meta["agreement"]``
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
            lines.append(
                "\t".join(
                    [
                        str(i + 1),
                        w,
                        self.lemmas[i],
                        self.upos[i],
                        "_",
                        feats,
                        str(self.heads[i]),
                        self.deprels[i],
                        "_",
                        misc,
                    ]
                )
            )
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
