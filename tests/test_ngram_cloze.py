"""The two-sided n-gram chooser for cloze items."""

from types import SimpleNamespace

import pytest

from bertology_lib.analysis.ngram_cloze import NGramCloze
from bertology_lib.errors import ParameterError


def test_ngram_cloze_backs_off_from_triples_to_bigrams_to_frequency():
    corpus = [["nobody", "has", "ever", "left"], ["he", "has", "already", "left"], ["he", "has", "already", "gone"]]
    ng = NGramCloze(corpus)
    assert (
        ng.prefers(["nobody", "has", "[MASK]", "left"], 2, "ever", "already") == 0.0
    )  # triples tie: the bigrams decide
    assert ng.prefers(["he", "has", "[MASK]", "gone"], 2, "already", "ever") == 1.0  # the triple decides
    assert ng.prefers(["x", "[MASK]", "y"], 1, "ever", "gone") == 0.5  # unseen context, equal counts: a tie
    assert ng.prefers(["x", "[MASK]", "y"], 1, "already", "ever") == 1.0  # frequency decides last
    items = [SimpleNamespace(words=("he", "has", "[MASK]", "gone"), mask_index=2, correct="already", incorrect="ever")]
    assert ng.choose(items).tolist() == [1.0]
    with pytest.raises(ParameterError, match="sentences is empty"):
        NGramCloze([])


def test_effect_beyond_subtracts_the_baselines_effect_item_by_item():
    from bertology_lib.analysis.ngram_cloze import effect_beyond

    est, lo, hi = effect_beyond([1, 1, 1, 0], [1, 0, 1, 0], [0, 0, 1, 0], [0, 0, 0, 0])
    assert est == pytest.approx((0.75 - 0.5) - (0.25 - 0.0)) and lo < est < hi
    same = effect_beyond([1, 0, 1, 1], [1, 0, 1, 1], [0, 1, 0, 0], [0, 1, 0, 0])
    assert same == (0.0, 0.0, 0.0)  # a model that is the baseline
    with pytest.raises(ParameterError, match="at least 2 in each set"):
        effect_beyond([1], [1], [0, 1], [0, 1])
