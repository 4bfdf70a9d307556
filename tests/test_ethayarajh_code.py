"""The MEV of Ethayarajh's released code, checked against scikit-learn's PCA and TruncatedSVD as his code calls them."""

import numpy as np
import pytest
import torch

from bertology_lib.analysis.ethayarajh_code import code_mev
from bertology_lib.errors import ParameterError


def test_code_mev_matches_the_scikit_learn_calls_of_the_released_code():
    from sklearn.decomposition import PCA, TruncatedSVD

    rng = np.random.default_rng(0)
    X = torch.tensor(rng.normal(size=(2, 60, 8)) + 3.0)  # (layers, rows, d), far from the origin
    words = ["a"] * 20 + ["b"] * 20 + ["c"] * 20
    sentences = list(range(60))  # one word per sentence: the random rows are all rows
    out = code_mev(X, words, sentences, min_count=5, max_occurrences=None, n_random=60)
    for layer in range(2):
        per_word = [
            PCA(n_components=1).fit(X[layer, i : i + 20].numpy()).explained_variance_ratio_[0] for i in (0, 20, 40)
        ]
        assert out.code_mev[layer] == pytest.approx(np.mean(per_word), rel=1e-6)
        base = TruncatedSVD(n_components=7, algorithm="arpack").fit(X[layer].numpy()).explained_variance_ratio_[0]
        assert out.code_random[layer] == pytest.approx(base, rel=1e-4)
    assert np.allclose(out.code_corrected, out.code_mev - out.code_random)


def test_code_mev_names_bad_input():
    X = torch.zeros(2, 4, 3)
    with pytest.raises(ParameterError, match="one word and one sentence id per row"):
        code_mev(X, ["a"] * 3, [0] * 3)
    with pytest.raises(ParameterError, match="no word type occurs 5 times"):
        code_mev(X, ["a", "b", "c", "d"], [0, 1, 2, 3])


def test_the_papers_anisotropy_sits_at_the_same_relative_depth():
    from bertology_lib.analysis.ethayarajh_code import BERT_BASE_ANISOTROPY, paper_anisotropy

    p = paper_anisotropy(6)
    assert p.layer.tolist()[:3] == [0.0, 0.5, 1.0] and p.layer.iloc[-1] == 6.0
    assert p.value.tolist() == list(BERT_BASE_ANISOTROPY) and len(p) == 13
    assert max(BERT_BASE_ANISOTROPY) == BERT_BASE_ANISOTROPY[11]  # the paper: rises with depth, highest at layer 11
    assert "Ethayarajh 2019" in p.attrs["label"]
    with pytest.raises(ValueError, match="n_layers"):
        paper_anisotropy(0)
