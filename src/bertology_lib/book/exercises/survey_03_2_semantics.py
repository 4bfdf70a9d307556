"""Checkers of the exercises of ``survey_03_2_semantics`` (§3.2 Semantic knowledge, Rogers et al. 2020):

* ``ex-survey32-clear``: the fewest right answers out of 80 whose 95% Wilson interval clears chance;
* ``ex-survey32-objprior``: the accuracy of an object-frequency prior on the selectional suite.

Every truth is computed here from the library and its generators at a configuration the exercise fixes (the quick
profile's corpus and selectional suite: :mod:`bertology_lib.book.exercises.quick_survey`), so the notebook passes
its checks at any profile. Used by that notebook's exercise cells.
"""

from __future__ import annotations

import functools
from collections import Counter

from bertology_lib.book.exercises.cases import Mistake, judge_value, within
from bertology_lib.book.exercises.checks import as_number, as_share, as_whole_number, checker
from bertology_lib.book.exercises.quick_survey import minibert_config, prefer_more_frequent, suite_items


def survey32_clear_truth(n: int = 80) -> int:
    """The fewest right answers out of ``n`` whose 95% Wilson interval lies above 0.5 (the selectional rule)."""
    from bertology_lib.stats import wilson_interval

    return next(k for k in range(n + 1) if wilson_interval(k, n)[0] > 0.5)


@checker("ex-survey32-clear")
def _check_survey32_clear(answer):
    """``answer``: a whole number of items out of 80 (exact; an accuracy or a fraction is refused with a hint)."""
    v = as_number(answer)
    if v is not None and 0 < v < 1:
        return False, "give a number of items out of 80, not an accuracy."

    def not_yet(k, truth):
        if k <= 40:
            return f"{k} of 80 is not even above chance; the interval must lie entirely above 0.5."
        if k < truth:
            return (
                f"too few: with {k} of 80 right the accuracy is above 0.5, but its 95% interval still reaches "
                "0.5; the rule needs the interval's low end above it."
            )
        return f"too many: {k} of 80 clears chance, but fewer already do; the question asks for the smallest."

    return judge_value(
        answer,
        read=lambda a: k if (k := as_whole_number(a)) is not None and 0 <= k <= 80 else None,
        refuse="expected a whole number of items between 0 and 80, got {answer!r}.",
        truth=survey32_clear_truth,
        ok="correct: compare it with the weakest contrast above, and read its verdict again.",
        not_yet=not_yet,
    )


@functools.lru_cache(maxsize=1)
def _quick_word_counts() -> tuple[Counter, Counter]:
    """(object counts, all counts) of words in the quick mini-BERT's training split."""
    from bertology_lib.models import minibert

    as_object, anywhere = Counter(), Counter()
    for s in minibert.corpus(minibert_config())[0]:
        anywhere.update(s.words)
        as_object.update(w for w, rel in zip(s.words, s.deprels) if rel == "obj")
    return as_object, anywhere


def survey32_objprior_truth() -> float:
    """Accuracy on the quick selectional suite (240 items) of preferring the candidate that is more often an
    object (deprel ``obj``) in the quick mini-BERT's training split; ties count as wrong."""
    return prefer_more_frequent(suite_items("selectional"), _quick_word_counts()[0])


@checker("ex-survey32-objprior")
def _check_survey32_objprior(answer):
    """``answer``: a share in [0, 1] (+-0.002, half an item of 240)."""
    anywhere = "you counted every occurrence of the word; count only its occurrences as an object (deprel 'obj')."
    ties = "a tie is not a preference: count it as wrong, as score_items does."
    return judge_value(
        answer,
        read=as_share,
        refuse="expected an accuracy between 0 and 1, got {answer!r}.",
        truth=survey32_objprior_truth,
        match=within(0.002),
        ok="correct: this baseline never looks at the verb; compare it with the model's selectional accuracy above.",
        mistakes=[
            *(Mistake(anywhere, lambda t, tie=tie: _object_prior(True, tie)) for tie in (0.0, 0.5, 1.0)),
            Mistake("that is the share of items the baseline gets wrong.", lambda t: 1 - t),
            *(Mistake(ties, lambda t, tie=tie: _object_prior(False, tie)) for tie in (0.5, 1.0)),
        ],
        not_yet=(
            "not quite: count, over the quick training split, how often each word has deprel 'obj', then score an "
            "item right when item.correct has the larger count."
        ),
    )


def _object_prior(anywhere: bool, tie: float) -> float:
    """The object prior's accuracy on the quick selectional suite, counting every occurrence of a word or only its
    occurrences as an object; a tie scores ``tie``."""
    as_object, every = _quick_word_counts()
    return prefer_more_frequent(suite_items("selectional"), every if anywhere else as_object, tie)
