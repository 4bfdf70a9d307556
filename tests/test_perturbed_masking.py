"""Perturbed masking (Wu et al. 2020): impact matrices and the distance-matched arc gap."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from bertology_lib.analysis import perturbed_masking as pm
from bertology_lib.errors import ParameterError
from bertology_lib.models import minibert
from bertology_lib.models.tokenization import build_word_tokenizer

torch.set_num_threads(1)


def test_impact_matrix_masks_pairs_of_words():
    tok = build_word_tokenizer(["the", "dog", "runs", "fast", "."], kind="bert")
    model = minibert.new_bert(len(tok), n_layers=1, n_heads=2, d_model=16, seed=0)
    m = pm.impact_matrix(model, tok, ["the", "dog", "runs", "."], batch_size=3)
    assert m.shape == (4, 4) and np.all(np.diag(m) == 0) and np.all(m[~np.eye(4, dtype=bool)] > 0)
    again = pm.impact_matrix(model, tok, ["the", "dog", "runs", "."])
    assert np.allclose(m, again, atol=1e-5)  # batching does not change it
    with pytest.raises(ParameterError, match="at least 2 words"):
        pm.impact_matrix(model, tok, ["dog"])


def test_arc_gap_is_distance_matched():
    heads = [2, 0, 2, 3]  # w0 <- w1 (root) -> w2 -> w3
    assert pm.arc_pairs(heads) == {(0, 1), (1, 0), (2, 1), (1, 2), (3, 2), (2, 3)}
    # every pair at distance 1 is linked and none further away: nothing to compare at matched distance
    assert pm.arc_gap_terms(np.ones((4, 4)), heads) == [] and np.isnan(pm.arc_gap([[]]))
    # impact falls with distance only: no arc effect once distance is matched
    heads5 = [2, 0, 2, 5, 3]  # arcs (0,1) (1,2) (3,4) (2,4): pair (2,3) is unlinked at distance 1
    dist_only = np.array([[0 if i == j else 1.0 / abs(i - j) for j in range(5)] for i in range(5)])
    assert pm.arc_gap([pm.arc_gap_terms(dist_only, heads5)]) == pytest.approx(0.0)
    # linked pairs stronger than unlinked ones at the same distance
    imp = np.ones((5, 5)) - np.eye(5)
    for i, j in pm.arc_pairs(heads5):
        imp[i, j] = 3.0
    terms5 = pm.arc_gap_terms(imp, heads5)
    d1 = [t for t in terms5 if t[0] == 1][0]
    assert d1[1] > d1[2]
    assert pm.arc_gap([terms5]) > 0
    with pytest.raises(ParameterError, match="shape"):
        pm.arc_gap_terms(imp, heads)


def test_arc_gap_interval_of_a_model_against_itself_straddles_zero():
    rng = np.random.default_rng(0)
    heads5 = [2, 0, 2, 5, 3]
    terms = [pm.arc_gap_terms(rng.random((5, 5)) * (1 - np.eye(5)), heads5) for _ in range(30)]
    est, lo, hi = pm.arc_gap_interval(terms, terms)
    assert est == 0 and lo == 0 and hi == 0  # identical models: no gap at all, so IntervalAbove(0) fails
    other = [pm.arc_gap_terms(rng.random((5, 5)) * (1 - np.eye(5)), heads5) for _ in range(30)]
    est, lo, hi = pm.arc_gap_interval(terms, other)
    assert lo < est < hi and lo < 0 < hi  # two null models: the interval straddles 0
    with pytest.raises(ParameterError, match="the same sentences"):
        pm.arc_gap_interval(terms, other[:5])
