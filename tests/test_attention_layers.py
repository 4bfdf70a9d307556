"""Clark et al.'s layer pattern: attention shares to [CLS], [SEP] and punctuation by layer."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from bertology_lib.analysis import attention_layers as al
from bertology_lib.errors import ParameterError

TOKENS = ["[CLS]", "the", "dog", "runs", ".", "[SEP]"]


def _onehot(target: int, heads: int = 2, t: int = 6) -> torch.Tensor:
    a = torch.zeros(heads, t, t)
    a[:, :, target] = 1.0
    return a


def test_profiles_and_centres_follow_where_attention_goes():
    # layer 0 looks at [CLS], layer 1 at [SEP], layer 2 at "."; two identical sentences
    patterns = [[_onehot(0)] * 2, [_onehot(5)] * 2, [_onehot(4)] * 2]
    prof = al.target_profiles(patterns, [TOKENS] * 2)
    assert prof.shape == (2, 3, 3)
    assert np.allclose(prof[0], np.eye(3))
    assert np.allclose(al.layer_centres(prof), [0, 1, 2])
    assert al.order_gaps(prof) == (0.5, 0.5)  # shares of the depth: layers 0, 1, 2 of 0..2
    est, lo, hi = al.order_interval(prof, n_resamples=50)
    assert est == lo == hi == 0.5


def test_uniform_attention_has_no_order():
    uniform = torch.full((2, 6, 6), 1 / 6)
    prof = al.target_profiles([[uniform] * 3 for _ in range(4)], [TOKENS] * 3)
    assert np.allclose(al.layer_centres(prof), 1.5)
    est, lo, hi = al.order_interval(prof, n_resamples=50)
    assert est == pytest.approx(0) and not lo > 0  # the rule IntervalAbove(0) cannot pass
    with pytest.raises(ParameterError, match="aligned with tokens"):
        al.target_profiles([[uniform] * 3], [TOKENS] * 2)
