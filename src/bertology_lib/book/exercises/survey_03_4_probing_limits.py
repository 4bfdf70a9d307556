"""Checkers of the exercises of ``survey_03_4_probing_limits`` (§3.4 Limitations of probing, Rogers et al. 2020):

* ``ex-survey34-memorise``: the control-task accuracy of a perfect memoriser;
* ``ex-survey34-prior-code``: the compression of a code that knows only the tag frequencies.

Every truth is computed here from the library and its generators at a configuration the exercise fixes (the quick
profile's probe sentences: :mod:`bertology_lib.book.exercises.quick_survey`), so the notebook passes its checks at
any profile. Used by that notebook's exercise cells.
"""

from __future__ import annotations

import math
from collections import Counter

from bertology_lib.book.exercises.cases import Mistake, judge_value, within
from bertology_lib.book.exercises.checks import as_positive, as_share, checker
from bertology_lib.book.exercises.quick_survey import probe_table


def survey34_memorise_truth(seed: int = 0) -> float:
    """Test accuracy on the control task (``probing.control_labels``, seed ``seed``) of the quick probe sentences
    of a perfect memoriser: each test word gets its type's training control label, an unseen type the most
    frequent training control label (``probing.majority_baseline`` on the control labels)."""
    from bertology_lib.analysis import probing

    table, tr, te = probe_table()
    words = table.word.tolist()
    return probing.majority_baseline(words, probing.control_labels(words, table.upos.tolist(), seed), tr, te)


@checker("ex-survey34-memorise")
def _check_survey34_memorise(answer):
    """``answer``: a share in [0, 1] (+-0.005)."""

    def real_tags(truth):
        from bertology_lib.analysis import probing

        table, tr, te = probe_table()
        return probing.majority_baseline(table.word.tolist(), table.upos.tolist(), tr, te)

    def seen_share(truth):
        table, tr, te = probe_table()
        seen = set(table.word.iloc[tr])
        return sum(table.word.iloc[i] in seen for i in te) / len(te)

    return judge_value(
        answer,
        read=as_share,
        refuse="expected an accuracy between 0 and 1, got {answer!r}.",
        truth=survey34_memorise_truth,
        match=within(0.005),
        ok="correct: compare it with the probes' control accuracy above; the gap is what they did not memorise.",
        mistakes=[
            Mistake(
                "that is the per-word majority of the real POS tags; the question is about the control labels.",
                real_tags,
                within(0.001),
            ),
            Mistake(
                "that is the share of test words whose type was seen in training; the memoriser also "
                "guesses the unseen ones, and is sometimes right.",
                seen_share,
                within(0.001),
            ),
        ],
        not_yet=(
            "not quite: use probing.control_labels(words, upos, seed=0), remember each training word's control "
            "label, and answer unseen test words with the most frequent training control label."
        ),
    )


def _entropy_bits(labels) -> float:
    counts = Counter(labels)
    n = sum(counts.values())
    return -sum(c / n * math.log2(c / n) for c in counts.values())


def survey34_prior_code_truth() -> float:
    """Compression (uniform bits / entropy bits) of a feature-free code that knows only the UPOS frequencies of
    the training words of the quick probe sentences; C = the number of tags in the table."""
    table, tr, _ = probe_table()
    return math.log2(table.upos.nunique()) / _entropy_bits(table.upos.iloc[tr])


@checker("ex-survey34-prior-code")
def _check_survey34_prior_code(answer):
    """``answer``: a compression ratio (+-0.005)."""

    def control_labels(truth):
        from bertology_lib.analysis import probing

        table, tr, _ = probe_table()
        control = probing.control_labels(table.word.tolist(), table.upos.tolist(), 0)
        return math.log2(table.upos.nunique()) / _entropy_bits([control[i] for i in tr])

    return judge_value(
        answer,
        read=as_positive,
        refuse="expected a positive compression ratio, got {answer!r}.",
        truth=survey34_prior_code_truth,
        match=within(0.005),
        ok=("correct: any compression beyond this comes from the features, not from knowing how common each tag is."),
        mistakes=[
            Mistake("the entropy is in nats; the codelengths are in bits (use log2).", lambda t: t / math.log(2)),
            Mistake(
                "that is the code's length over the uniform one; compression is uniform bits over the code's bits.",
                lambda t: 1 / t,
            ),
            Mistake("those are the control labels; the question is about the POS tags.", control_labels),
        ],
        not_yet=(
            "not quite: from the training words' UPOS frequencies p, H = -sum(p log2 p) bits per tag; the "
            "uniform code spends log2(C) with C the number of tags; compression is their ratio."
        ),
    )
