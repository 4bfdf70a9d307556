"""The structural probe held out (layer chosen on validation sentences) and the expected-layer gap."""

import numpy as np
import pytest
import torch

from bertology_lib.analysis import heldout
from bertology_lib.analysis import structural_probe as sp
from bertology_lib.analysis.structural_heldout import RIGHT_BRANCHING, distance_study
from test_structural_probe import _corpus


def test_distance_study_chooses_on_validation_and_beats_a_null_model():
    X, offsets, sents = _corpus(n_sent=160)
    torch.randn_like(X)  # an unused draw, kept so that the draws below stay what the test was written with
    X3 = torch.cat([X, X[:1]])  # three layers: noise, the tree, noise again
    null3 = torch.randn_like(X3)
    study = distance_study(
        {"model": X3, "null": null3},
        offsets,
        sents,
        range(100),
        range(100, 130),
        range(130, 160),
        sp.StructuralProbeConfig(rank=16, epochs=30, lr=1e-2, batch_size=20),
    )
    assert study.chosen_layer("model") == 1 and study.uuas("model") > 0.8
    g = study.gap("model", ["null", RIGHT_BRANCHING])
    assert g["low"] > 0.3 and g["baseline"] in ("null", RIGHT_BRANCHING)
    m = study.middle("model")
    assert m["layer"] == 1 and m["low"] > 0.3  # the tree layer beats both ends
    n = study.gap("null", ["null"])
    assert n["gap"] == 0 and n["low"] == 0 == n["high"]
    with pytest.raises(ValueError, match="model='x'"):
        study.gap("x", ["null"])
    with pytest.raises(ValueError, match="non-empty"):
        distance_study({"model": X3}, offsets, sents, range(100), [], range(130, 160))


def test_expected_layer_gap():
    rng = np.random.default_rng(0)
    n = 600
    groups = np.repeat(np.arange(100), 6)
    late = np.stack([rng.random(n) < p for p in (0.5, 0.5, 0.6, 0.9)])  # gains at layers 2-3
    early = np.stack([rng.random(n) < p for p in (0.5, 0.9, 0.9, 0.9)])  # gain at layer 1
    gap, low, high = heldout.expected_layer_gap(late, early, groups)
    assert gap > 1 and low > 0.5 and low < gap < high
    same = heldout.expected_layer_gap(late, late, groups)
    assert same == (0.0, 0.0, 0.0)
    with pytest.raises(ValueError, match="one group per item"):
        heldout.expected_layer_gap(late, early, groups[:10])
