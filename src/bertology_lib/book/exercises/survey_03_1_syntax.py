"""Checkers of the exercises of ``survey_03_1_syntax`` (§3.1 Syntactic knowledge, Rogers et al. 2020):

* ``ex-survey31-ceiling``: the best UPOS accuracy any word-type classifier reaches on the ambiguous test tokens;
* ``ex-survey31-npi``: the accuracy by condition of a licensing rule with no notion of structure.

Every truth is computed here from the library and its generators at a configuration the exercise fixes (the quick
profile's probe sentences and NPI suite: :mod:`bertology_lib.book.exercises.quick_survey`), so the notebook passes
its checks at any profile. Used by that notebook's exercise cells.
"""

from __future__ import annotations

import functools

from bertology_lib.book.exercises.cases import Mistake, judge_value, within
from bertology_lib.book.exercises.checks import as_share, as_shares, checker
from bertology_lib.book.exercises.quick_survey import probe_table, suite_items


def _type_ceiling(table, rows) -> float:
    d = table.iloc[rows]
    return float(d.groupby(["word", "upos"]).size().groupby(level="word").max().sum() / len(d))


def survey31_ceiling_truth() -> float:
    """Best UPOS accuracy of any word-type classifier on the ambiguous test tokens of the quick probe sentences.

    Ambiguous words as the probes mark them (:func:`~bertology_lib.data.word_labels.ambiguous_mask` on the
    training rows); each type's tag is its most frequent one *among its test tokens* (an oracle), so no
    representation that ignores context can do better.
    """
    from bertology_lib.data import word_labels

    table, tr, te = probe_table()
    amb = word_labels.ambiguous_mask(table, tr, "upos")
    return _type_ceiling(table, te[amb[te]])


@functools.lru_cache(maxsize=1)
def _survey31_ceiling_mistakes() -> dict[str, float]:
    from bertology_lib.analysis import probing
    from bertology_lib.data import word_labels

    table, tr, te = probe_table()
    words, tags = table.word.tolist(), table.upos.tolist()
    amb = word_labels.ambiguous_mask(table, tr, "upos")
    amb_test = word_labels.ambiguous_mask(table, te, "upos")
    return {
        "majority": probing.majority_baseline(words, tags, tr, te[amb[te]]),
        "all": _type_ceiling(table, te),
        "all majority": probing.majority_baseline(words, tags, tr, te),
        "test-marked": _type_ceiling(table, te[amb_test[te]]),
    }


@checker("ex-survey31-ceiling")
def _check_survey31_ceiling(answer):
    """``answer``: a share in [0, 1] (+-0.005 accepted); the quick probe sentences, first 1,125 for training."""
    all_words = "that is over all test words; keep only the ambiguous ones (ambiguous_mask, then the test rows)."
    return judge_value(
        answer,
        read=as_share,
        refuse="expected an accuracy between 0 and 1, got {answer!r}.",
        truth=survey31_ceiling_truth,
        match=within(0.005),
        ok=(
            "correct: no representation of the word alone can do better on these tokens; a probe above this line "
            "reads context."
        ),
        mistakes=[
            Mistake(hint, lambda t, key=key: _survey31_ceiling_mistakes()[key], within(0.002))
            for key, hint in (
                (
                    "majority",
                    "that is the per-word-majority baseline (each type's most frequent *training* tag, the "
                    "notebook's `majority`). The ceiling may pick each type's tag on its test tokens.",
                ),
                ("all", all_words),
                ("all majority", all_words),
                (
                    "test-marked",
                    "mark the ambiguous words on the training rows, as the probes do (ambiguous_mask(table, "
                    "train_rows)).",
                ),
            )
        ],
        not_yet=lambda v, t: (
            "too low: for each ambiguous word type, count its test tokens per tag and keep the largest count; the "
            "ceiling is the sum of those over the number of ambiguous test tokens."
            if v < t
            else "too high: a type-level classifier gives every occurrence of a word the same tag."
        ),
    )


SURVEY31_CONDITIONS = ("licensed", "unlicensed", "scope")


def survey31_npi_truth() -> dict[str, float]:
    """Accuracy per condition of "prefer the NPI iff a licensor word occurs anywhere in the sentence" on the
    quick NPI suite (240 items): a licensing rule with no notion of structure."""
    from bertology_lib.data.toy_english import LICENSORS, NPIS

    hits: dict[str, list[bool]] = {}
    for it in suite_items("npi"):
        prefers_npi = any(w in LICENSORS for w in it.words)
        hits.setdefault(it.meta["condition"], []).append(prefers_npi == (it.correct in NPIS))
    return {c: sum(h) / len(h) for c, h in hits.items()}


@checker("ex-survey31-npi")
def _check_survey31_npi(answer):
    """``answer``: ``{condition: accuracy}`` for licensed, unlicensed and scope (+-0.005 each)."""
    values, err = as_shares(answer, SURVEY31_CONDITIONS)
    if values is None:
        return False, err
    truth = survey31_npi_truth()
    wrong = [c for c in SURVEY31_CONDITIONS if not within(0.005)(values[c], truth[c])]
    if not wrong:
        return True, (
            "correct: the linear rule fails exactly where structure decides; compare the model's "
            "accuracy by condition above."
        )
    if all(within(0.005)(values[c], 1 - truth[c]) for c in SURVEY31_CONDITIONS):
        return False, "those are the shares of items the rule gets wrong; the question asks for its accuracy."
    if wrong == ["scope"]:
        return False, (
            "scope is off: there a licensor sits in a relative clause on the subject. It is in the "
            "sentence, so what does a rule that only looks for the word choose, and is that right?"
        )
    return False, (
        f"not quite for {', '.join(wrong)}: the rule prefers the NPI when a word of "
        "toy_english.LICENSORS occurs in item.words and the other filler otherwise; it is right when "
        "that choice is item.correct."
    )
