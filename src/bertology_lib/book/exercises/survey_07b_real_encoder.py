"""Checkers of the exercises of ``survey_07b_real_encoder`` (§7 II: a behavioural suite for a real encoder, Rogers et
al. 2020):

* ``ex-s7r-wilson``: the 95% Wilson interval of a failure rate (the figure's whiskers);
* ``ex-s7r-typo-variants``: every sentence the INV typo test can make of a test sentence.

Every answer is a function, run on hidden cases; the truths come from the library (``stats.wilson_interval``, the
typo test of ``data.checklist.sst2_suite``) on inputs built here, so none depends on the profile the notebook runs
at or needs a fine-tuned model. Models are built inside ``torch.random.fork_rng`` (``quiet_build``) and a student's
function runs inside one too, so checking never moves a notebook's random state. Used by that notebook's exercise
cells.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from bertology_lib.book.exercises.cases import judge_function, numbers, within
from bertology_lib.book.exercises.checks import checker


S7R_WILSON_CASES: tuple[tuple[int, int], ...] = (
    (0, 8),
    (8, 8),
    (3, 50),
    (25, 50),
    (12, 150),
    (1, 3),
    (140, 150),
    (57, 400),
)
"""(failures, items) of hidden tests: none and all failed, small and large n."""


def s7r_wilson_truth(k: int, n: int) -> tuple[float, float]:
    """The 95% Wilson score interval of ``k`` failures out of ``n`` items: ``stats.wilson_interval`` (scipy's
    ``binomtest(k, n).proportion_ci(method="wilson")``), what ``bh.failure_table`` and ``bh.summarise_seeds``
    report."""
    from bertology_lib.stats import wilson_interval

    return wilson_interval(k, n)


def _wilson_z(k: int, n: int, z: float) -> tuple[float, float]:
    import math

    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return centre - half, centre + half


def _wilson_mistakes(k: int, n: int) -> dict[str, tuple[float, float]]:
    import math

    from scipy.stats import binomtest

    p = k / n
    wald = 1.959964 * math.sqrt(p * (1 - p) / n)
    exact, cc = (binomtest(k, n).proportion_ci(0.95, method=m) for m in ("exact", "wilsoncc"))
    lo, hi = s7r_wilson_truth(k, n)
    return {
        "wald": (p - wald, p + wald),
        "wald clipped": (max(0.0, p - wald), min(1.0, p + wald)),
        "z=2": _wilson_z(k, n, 2.0),
        "90%": _wilson_z(k, n, 1.644854),
        "cc": (float(cc.low), float(cc.high)),
        "exact": (float(exact.low), float(exact.high)),
        "swapped": (hi, lo),
    }


_WILSON_HINTS = {
    "wald": "that is the normal (Wald) interval p -+ 1.96 sqrt(p(1 - p)/n): it collapses to a point at 0 or n "
    "failures. Wilson's interval is centred on (p + z^2/2n) / (1 + z^2/n).",
    "wald clipped": "that is the normal (Wald) interval, clipped to [0, 1]: it collapses to a point at 0 or n "
    "failures. Wilson's interval is centred on (p + z^2/2n) / (1 + z^2/n).",
    "z=2": "use z = 1.96, the 97.5% quantile of the standard normal (z = 2 is a rounding that widens every interval).",
    "90%": "a 95% two-sided interval leaves 2.5% on each side: z = 1.96, not 1.645 (that gives 90%).",
    "cc": "the figure uses Wilson's interval without the continuity correction.",
    "exact": "that is the exact (Clopper-Pearson) interval, from beta quantiles; the figure uses Wilson's score "
    "interval.",
    "swapped": "return (low, high), the lower bound first.",
}


@checker("ex-s7r-wilson")
def _check_s7r_wilson(answer):
    """``answer``: a function ``wilson(k, n)`` returning the 95% Wilson score interval (low, high) of k
    failures out of n items (z = 1.96, no continuity correction), as ``stats.wilson_interval``; run on hidden
    counts, +-1e-4."""
    return judge_function(
        answer,
        "wilson",
        S7R_WILSON_CASES,
        read=lambda g: numbers(g, 2),
        refuse="wilson should return two numbers (low, high), got {first!r}.",
        screen=lambda v: (
            "give the bounds as shares in [0, 1], as the failure rates are, not in percent."
            if any(x > 1 + 1e-9 for pair in v for x in pair)
            else None
        ),
        truth=s7r_wilson_truth,
        match=within(1e-4),
        mistakes=_wilson_mistakes,
        hints=_WILSON_HINTS,
        ok=(
            "correct: the interval is asymmetric near 0 and 1, never leaves [0, 1] and keeps a width at 0 failures; "
            "it narrows only with the square root of the items pooled."
        ),
        not_yet=lambda i, v, t: (
            f"not yet: wilson{S7R_WILSON_CASES[i]} = ({v[i][0]:.4f}, {v[i][1]:.4f}) is off; with "
            "p = k / n and z = 1.96, Wilson's interval is centred on (p + z^2/2n) / (1 + z^2/n), "
            "not on p, and its half-width has z^2/4n^2 under the square root beside p(1 - p)/n."
        ),
    )


S7R_TYPO_CASES: tuple[str, ...] = (
    "a gorgeous , witty , seductive movie .",
    "the film is n't as good as it should have been .",
    "it 's a well-made , 1990s-style thriller that never lets up .",
    "too bad .",
    "i loved all of it",
)
"""Hidden sentences (lower-cased and tokenised like SST-2's): words with doubled letters (a swap that changes
nothing), tokens of four or more characters that are not all letters, words of three letters, and a sentence
with no word to misspell."""


S7R_TYPO_DRAWS = 3000
"""Items of the typo test drawn per hidden sentence: every word and position has a chance of at least one in
fifty per draw there, so 3000 draws leave none out (tested against an enumeration of the rule)."""


@lru_cache(maxsize=None)
def s7r_typo_truth(text: str) -> frozenset[str]:
    """Every sentence the SST-2 suite's INV typo test can make of ``text``: the perturbed texts of the typo
    test of ``checklist.sst2_suite([text], S7R_TYPO_DRAWS, seed=0)``, the suite's own perturbation drawn
    until every word and position has come up."""
    from bertology_lib.data import checklist

    typo = next(t for t in checklist.sst2_suite([text], S7R_TYPO_DRAWS, seed=0) if t.name == "typo")
    return frozenset(it.perturbed for it in typo.items)


def _typo_variants(text: str, keep=lambda w: len(w) >= 4 and w.isalpha(), adjacent: bool = True) -> set[str]:
    words = text.split()
    out = set()
    for i, w in enumerate(words):
        if not keep(w):
            continue
        pairs = (
            [(j, j + 1) for j in range(len(w) - 1)]
            if adjacent
            else [(a, b) for a in range(len(w)) for b in range(a + 1, len(w))]
        )
        for a, b in pairs:
            c = list(w)
            c[a], c[b] = c[b], c[a]
            out.add(" ".join(words[:i] + ["".join(c)] + words[i + 1 :]))
    return out


def _typo_mistakes(text: str) -> dict[str, set[str]]:
    truth = set(s7r_typo_truth(text))
    same = " ".join(text.split())
    return {
        "no-op": truth - {same} if truth != {text} else truth,
        "empty": truth if truth != {text} else set(),
        "short": _typo_variants(text, lambda w: len(w) >= 3 and w.isalpha()) or {text},
        "long": _typo_variants(text, lambda w: len(w) > 4 and w.isalpha()) or {text},
        "non-alpha": _typo_variants(text, lambda w: len(w) >= 4) or {text},
        "any pair": _typo_variants(text, adjacent=False) or {text},
    }


_TYPO_HINTS = {
    "no-op": "a swap of two equal letters (as in 'good') leaves the sentence as it was, and the test still makes "
    "that item: include the unchanged sentence when a swap produces it.",
    "empty": "when no word qualifies, the test keeps the sentence as it is: return {text}, not an empty set.",
    "short": "only words of at least 4 characters are misspelt; 3-letter words are left alone.",
    "long": "words of exactly 4 characters count too: at least 4.",
    "non-alpha": "only words made of letters alone are misspelt (str.isalpha): tokens such as n't, well-made or "
    "1990s-style are left alone.",
    "any pair": "the typo swaps two *adjacent* characters (j and j + 1), not any two.",
}


def _as_sentences(x: Any) -> set[str] | None:
    """``x`` (a set, list or tuple of strings) as a set, or None."""
    ok = not isinstance(x, str) and isinstance(x, (set, frozenset, list, tuple))
    return set(x) if ok and all(isinstance(s, str) for s in x) else None


@checker("ex-s7r-typo-variants")
def _check_s7r_typo(answer):
    """``answer``: a function ``typo_variants(text)`` returning the set of every sentence the SST-2 suite's INV
    typo test can make of ``text`` (one word of at least 4 characters, all letters, with two adjacent characters
    swapped; the words re-joined with single spaces; the sentence unchanged when no word qualifies), as
    ``checklist.sst2_suite`` draws them; run on hidden sentences, exact (as a set)."""
    import torch

    def not_yet(i, v, t):
        extra, missing = sorted(v[i] - t[i]), sorted(t[i] - v[i])
        example = f"includes {extra[0]!r}, which the test never makes" if extra else f"misses {missing[0]!r}"
        return (
            f"not yet: typo_variants({S7R_TYPO_CASES[i]!r}) {example}; pick one word of at least 4 characters, "
            "all letters, swap two adjacent characters, and re-join the words with spaces."
        )

    with torch.random.fork_rng(devices=[]):  # a student's function may draw random numbers
        return judge_function(
            answer,
            "typo_variants",
            [(t,) for t in S7R_TYPO_CASES],
            show=lambda c: f"typo_variants({c[0]!r})",
            read=_as_sentences,
            refuse=(
                "typo_variants should return a set of sentences (every perturbed text the test "
                "can make), got {first!r:.80}."
            ),
            truth=lambda text: set(s7r_typo_truth(text)),
            mistakes=_typo_mistakes,
            hints=_TYPO_HINTS,
            ok=(
                "correct: a sentence gives a few dozen possible typos, the test draws one; a few of them change "
                "nothing at all, and such an item cannot fail the INV test."
            ),
            not_yet=not_yet,
        )
