"""Checkers of the exercises of ``survey_03_4_probing_limits`` (§3.4 Limitations of probing, Rogers et al.
2020):

* ``ex-survey34-memorise``: the control-task accuracy of a perfect memoriser;
* ``ex-survey34-prior-code``: the compression of a code that knows only the tag frequencies.

Every truth is computed here from the library and its generators at a configuration the exercise fixes (the
quick profile's probe sentences: :mod:`bertology_lib.book.exercises.quick`), so the notebook passes its checks at any
profile. Used by that notebook's exercise cells.
"""

from __future__ import annotations

import math
from collections import Counter

from bertology_lib.book.exercises.checks import as_number, as_share, checker
from bertology_lib.book.exercises.cases import near
from bertology_lib.book.exercises.quick import probe_table


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
    from bertology_lib.analysis import probing

    v = as_share(answer)
    if v is None:
        return False, f"expected an accuracy between 0 and 1, got {answer!r}."
    truth = survey34_memorise_truth()
    if near(v, truth, 0.005):
        return True, ("correct: compare it with the probes' control accuracy above; the gap is what they did not "
                      "memorise.")
    table, tr, te = probe_table()
    words = table.word.tolist()
    seen = set(table.word.iloc[tr])
    if near(v, probing.majority_baseline(words, table.upos.tolist(), tr, te), 0.001):
        return False, "that is the per-word majority of the real POS tags; the question is about the control labels."
    if near(v, sum(table.word.iloc[i] in seen for i in te) / len(te), 0.001):
        return False, ("that is the share of test words whose type was seen in training; the memoriser also "
                       "guesses the unseen ones, and is sometimes right.")
    return False, ("not quite: use probing.control_labels(words, upos, seed=0), remember each training word's "
                   "control label, and answer unseen test words with the most frequent training control label.")


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
    from bertology_lib.analysis import probing

    v = as_number(answer)
    if v is None or v <= 0:
        return False, f"expected a positive compression ratio, got {answer!r}."
    truth = survey34_prior_code_truth()
    if near(v, truth, 0.005):
        return True, ("correct: any compression beyond this comes from the features, not from knowing how common "
                      "each tag is.")
    table, tr, _ = probe_table()
    if near(v, truth / math.log(2), 0.005):
        return False, "the entropy is in nats; the codelengths are in bits (use log2)."
    if near(v, 1 / truth, 0.005):
        return False, "that is the code's length over the uniform one; compression is uniform bits over the code's bits."
    control = probing.control_labels(table.word.tolist(), table.upos.tolist(), 0)
    if near(v, math.log2(table.upos.nunique()) / _entropy_bits([control[i] for i in tr]), 0.005):
        return False, "those are the control labels; the question is about the POS tags."
    return False, ("not quite: from the training words' UPOS frequencies p, H = -sum(p log2 p) bits per tag; the "
                   "uniform code spends log2(C) with C the number of tags; compression is their ratio.")
