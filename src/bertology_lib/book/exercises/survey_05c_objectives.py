"""Checkers of the exercises of ``survey_05c_objectives`` (§5 Pre-training choices II: what to mask, Rogers et al.
2020):

* ``ex-survey53-partial``: how often token masking hides only part of a word;
* ``ex-survey53-span``: the mean span length of span masking (the rule read from ``training.masking.span_groups``
  itself).

The answers are functions, run on hidden cases. Every truth is computed here from the library (closed forms checked
against ``training.masking``), never typed in, and none depends on the profile the notebook runs at. Used by that
notebook's exercise cells.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from bertology_lib.book.exercises.cases import judge_function, within
from bertology_lib.book.exercises.checks import as_number, checker


SURVEY53_PARTIAL_CASES: tuple[tuple[tuple[int, ...], float], ...] = (
    ((1, 1, 2, 3), 0.15),
    ((4,), 0.15),
    ((1,) * 10, 0.15),
    ((2, 2, 2, 5, 1, 1, 3), 0.5),
    ((1, 2, 1, 1, 2, 1, 4, 1), 0.3),
)


def survey53_partial_truth(pieces_per_word: Sequence[int], p: float) -> float:
    """Expected share of the masked pieces whose word is only partly masked, when token masking picks each
    piece independently with probability ``p``: a word of k pieces has k p masked pieces on average, k p^k
    of them in fully masked words, so the share is 1 - sum k p^k / (p sum k)."""
    ks = [int(k) for k in pieces_per_word]
    return 1.0 - sum(k * p**k for k in ks) / (p * sum(ks))


def _partial_mistakes(ks: Sequence[int], p: float) -> dict[str, float]:
    q = 1 - p
    part = [1 - q**k - p**k for k in ks]
    multi = [k for k in ks if k > 1]
    return {
        "per word": sum(part) / len(ks),
        "per masked word": sum(part) / sum(1 - q**k for k in ks),
        "all pieces": sum(k * (p - p**k) for k in ks) / sum(ks),
        "multi only": (sum(k * (p - p**k) for k in multi) / (p * sum(multi))) if multi else 0.0,
    }


_PARTIAL_HINTS = {
    "per word": "that is the share of words that are partly masked; the question counts masked pieces: weight a "
    "word by how many of its pieces are masked.",
    "per masked word": "that is the share of partly masked words among the words with any masked piece; the "
    "question counts masked pieces, not words.",
    "all pieces": "divide by the number of masked pieces, not by all pieces.",
    "multi only": "single-piece words are masked too: their masked pieces belong in the denominator.",
}


def _show_partial(case: tuple) -> str:
    ks, p = case
    return f"partly_masked_share({list(ks)}, {p})"


@checker("ex-survey53-partial")
def _check_survey53_partial(answer):
    """``answer``: a function ``partly_masked_share(pieces_per_word, p)`` returning the expected share of the
    masked pieces whose word is only partly masked when every piece is picked independently with probability
    ``p``; run on hidden words, +-0.002."""
    return judge_function(
        answer,
        "partly_masked_share",
        SURVEY53_PARTIAL_CASES,
        show=_show_partial,
        read=as_number,
        refuse="partly_masked_share should return a number, got {first!r}.",
        truth=survey53_partial_truth,
        match=within(0.002),
        mistakes=_partial_mistakes,
        hints=_PARTIAL_HINTS,
        ok=(
            "correct: whole-word masking sets this share to zero — the visible pieces of a word can no longer give "
            "its hidden ones away."
        ),
        not_yet=lambda i, v, t: (
            f"not yet: {_show_partial(SURVEY53_PARTIAL_CASES[i])} = {v[i]:.3f} is too "
            f"{'high' if v[i] > t[i] else 'low'}. For a word of k pieces, how many masked pieces "
            "do you expect, and how many of them in words whose every piece is masked?"
        ),
    )


SURVEY53_SPAN_CASES: tuple[tuple[float, int], ...] = ((0.2, 10), (0.5, 3), (0.1, 5), (0.3, 1), (0.35, 20))


def _span_mean_clamped(p: float, max_len: int) -> float:
    """E[min(L, max_len)] for L ~ Geometric(p) on 1, 2, ...: the sum of P(L > l) for l < max_len."""
    return sum((1 - p) ** l for l in range(max_len))  # noqa: E741 - l: a length, as in the formula


def _span_mean_redrawn(p: float, max_len: int) -> float:
    """E[L | L <= max_len] for L ~ Geometric(p): lengths above ``max_len`` redrawn (SpanBERT's 3.8 at 0.2, 10)."""
    q = 1 - p
    return sum(l * p * q ** (l - 1) for l in range(1, max_len + 1)) / (1 - q**max_len)  # noqa: E741


@lru_cache(maxsize=1)
def _span_rule() -> str:
    """How ``training.masking.span_groups`` treats lengths above ``max_len`` — ``clamped`` or ``redrawn`` —
    read from the function itself (200,000 words at p = 0.2, max_len = 10: the two means are 4.46 and 3.80)."""
    import torch

    from bertology_lib.training.masking import span_groups

    g = torch.Generator().manual_seed(0)
    groups = span_groups(torch.arange(200_000)[None], 0.2, 10, g)[0]
    mean = float(torch.bincount(groups)[:-1].float().mean())  # the last span is cut by the row's end
    for rule, fn in (("clamped", _span_mean_clamped), ("redrawn", _span_mean_redrawn)):
        if abs(mean - fn(0.2, 10)) < 0.05:
            return rule
    raise AssertionError(
        f"span_groups draws spans of mean length {mean:.3f} at p=0.2, max_len=10; "
        "the ex-survey53-span checker knows clamped (4.46) and redrawn (3.80) lengths only"
    )


def survey53_span_truth(p: float, max_len: int) -> float:
    """Mean length (in words) of the spans ``training.masking.span_groups`` draws with ``p`` and ``max_len``,
    before the end of a sentence cuts the last one (the closed form of the rule the library follows)."""
    return (_span_mean_clamped if _span_rule() == "clamped" else _span_mean_redrawn)(p, max_len)


@checker("ex-survey53-span")
def _check_survey53_span(answer):
    """``answer``: a function ``mean_span_length(p, max_len)`` returning the mean number of words in a span that
    ``span_groups`` draws (before a sentence end cuts it); run on hidden (p, max_len), +-0.02 words."""
    other, how = (_span_mean_redrawn, "redrawn") if _span_rule() == "clamped" else (_span_mean_clamped, "clamped")
    at_least_one = "a span holds at least one word: the geometric lengths start at 1, not 0."
    return judge_function(
        answer,
        "mean_span_length",
        SURVEY53_SPAN_CASES,
        read=as_number,
        refuse="mean_span_length should return a number, got {first!r}.",
        truth=survey53_span_truth,
        match=within(0.02),
        mistakes=lambda p, max_len: {
            "other rule": other(p, max_len),
            "unclipped": 1 / p,
            "from 0": _span_mean_clamped(p, max_len) - 1,
            "from 0, unclipped": (1 - p) / p,
        },
        hints={
            "other rule": (
                f"that is the mean if lengths above max_len were {how}; read how span_groups treats a "
                "draw longer than max_len."
            ),
            "unclipped": "1/p is the mean of the unclipped geometric distribution; no span is longer than max_len.",
            "from 0": at_least_one,
            "from 0, unclipped": at_least_one,
        },
        ok=(
            "correct: that is the length of a masked run under span masking (word masking: 1), with the share of "
            "masked words still 15%."
        ),
        not_yet=lambda i, v, t: (
            f"not yet: mean_span_length{SURVEY53_SPAN_CASES[i]} = {v[i]:.3f} is too "
            f"{'long' if v[i] > t[i] else 'short'}; write down P(length = l) for l = 1 .. max_len "
            "as span_groups draws it, then average."
        ),
    )
