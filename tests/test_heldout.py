"""Held-out layer choice: the layer is chosen on validation rows and scored once on test rows."""

import numpy as np
import pandas as pd
import pytest
import torch

from bertology_lib import stats
from bertology_lib.analysis import heldout
from bertology_lib.analysis.probing import ProbeConfig
from bertology_lib.analysis.word_probes import MAJORITY, HeldOutProbes


def _table(n_sent=40, per=5, seed=0):
    rng = np.random.default_rng(seed)
    rows = [
        {"sentence": s, "word": f"w{rng.integers(0, 6)}", "tag": int(rng.integers(0, 3))}
        for s in range(n_sent)
        for _ in range(per)
    ]
    return pd.DataFrame(rows)


def test_split_by_sentence_in_order_and_bad_fractions():
    t = _table()
    sp = heldout.sentence_split3(t, (0.5, 0.25, 0.25))
    assert set(t.sentence[sp.train]) == set(range(20)) and set(t.sentence[sp.val]) == set(range(20, 30))
    assert set(t.sentence[sp.test]) == set(range(30, 40)) and len(sp.groups) == len(t)
    with pytest.raises(ValueError, match="sum to 1"):
        heldout.sentence_split3(t, (0.5, 0.5, 0.5))
    with pytest.raises(ValueError, match="too few"):
        heldout.sentence_split3(t.head(10), (0.6, 0.15, 0.25))


def test_layer_chosen_on_validation_and_gap_against_baselines():
    t = _table(n_sent=80)
    sp = heldout.sentence_split3(t)
    y = torch.tensor(t.tag.to_numpy())
    g = torch.Generator().manual_seed(0)
    noise = torch.randn(3, len(t), 4, generator=g)
    X = noise.clone()
    X[2, :, 0] += 4.0 * y  # only layer 2 encodes the tag
    pred = heldout.probe_predictions(X, t.tag.tolist(), sp, ProbeConfig(max_iter=50))
    assert pred.val.shape == (3, len(sp.val)) and pred.test.shape == (3, len(sp.test))
    assert pred.chosen_layer() == 2 and pred.val_accuracy() > 0.9
    null = heldout.probe_predictions(noise, t.tag.tolist(), sp, ProbeConfig(max_iter=50))
    maj = heldout.majority_predictions(t.word.tolist(), t.tag.tolist(), sp)
    probes = HeldOutProbes(
        t, sp, {"all": np.ones(len(t), bool)}, {("model", "tag"): pred, ("twin", "tag"): null}, {"tag": maj}
    )
    r = probes.gap("model", "tag", ["twin", MAJORITY])
    assert r["layer"] == 2 and r["low"] > 0.3 and r["baseline"] in ("twin", MAJORITY)
    n = probes.gap("twin", "tag", [MAJORITY])
    assert n["low"] < 0.15  # a null model does not clear the word-identity baseline by much, if at all
    rep = probes.report()
    assert rep[rep.chosen & (rep.model == "model")].layer.tolist() == [2]
    depth = probes.chosen_depth("model", "tag")
    assert depth["layer"] == 2 and depth["depth"] == 1.0 and depth["low"] == depth["high"] == 1.0
    assert set(rep.columns) >= {"accuracy", "val_accuracy", "majority", "chosen", "n_test"}
    with pytest.raises(ValueError, match="no probes for model='x'"):
        probes.gap("x", "tag", [MAJORITY])
    with pytest.raises(ValueError, match="subset='amb'"):
        probes.gap("model", "tag", [MAJORITY], subset="amb")


def test_chosen_depth_is_a_location_with_an_interval():
    from bertology_lib.book.claims import IntervalWithin, Verdict

    rng = np.random.default_rng(0)
    groups = np.repeat(np.arange(60), 5)  # 60 validation sentences of 5 rows
    acc = np.array([0.6, 0.7, 0.8, 0.95, 0.85, 0.8, 0.75])  # 6 layers, best at layer 3 of 6
    val = rng.random((7, len(groups))) < acc[:, None]
    p = heldout.LayerPredictions(val, val[:, :10])
    d = heldout.chosen_depth(p, groups)
    assert d["layer"] == 3 and d["depth"] == 0.5 and d["n_layers"] == 6 and d["n_val_sentences"] == 60
    assert d["low"] <= d["depth"] <= d["high"] and d["low"] * 6 == round(d["low"] * 6)  # on the layer grid
    assert IntervalWithin(0.4, 0.9).verdict(None, (d["depth"], d["low"], d["high"])) is Verdict.REPRODUCED
    # a null model: a flat curve, every layer at chance; the chosen layer wanders and the interval says so
    flat = heldout.LayerPredictions(rng.random((7, len(groups))) < 0.5, val[:, :10])
    n = heldout.chosen_depth(flat, groups)
    assert n["high"] - n["low"] >= 0.5
    assert IntervalWithin(0.5, 0.9).verdict(None, (n["depth"], n["low"], n["high"])) is not Verdict.REPRODUCED
    mask = groups < 30  # a subset of the validation rows
    assert heldout.chosen_depth(p, groups, mask)["n_val_sentences"] == 30
    with pytest.raises(ValueError, match="at least 2 layers"):
        heldout.chosen_depth(heldout.LayerPredictions(val[:1], val[:1]), groups)


def test_paired_gap_resamples_groups():
    a = np.array([1, 1, 1, 1, 0, 0] * 20, float)
    b = np.array([0, 0, 1, 1, 0, 0] * 20, float)
    est, low, high = stats.paired_gap(a, b, groups=np.repeat(np.arange(40), 3))
    assert est == pytest.approx(1 / 3) and low < est < high
    assert stats.paired_gap(a, a) == (0.0, 0.0, 0.0)
    with pytest.raises(ValueError, match="one group label per item"):
        stats.paired_gap(a, b, groups=[0, 1])


def test_transfer_gap_finds_a_middle_layer_and_not_an_end():
    t = _table(n_sent=80)
    sp = heldout.sentence_split3(t)
    y = torch.tensor(t.tag.to_numpy())
    noise = torch.randn(4, len(t), 4, generator=torch.Generator().manual_seed(1))
    middle, last = noise.clone(), noise.clone()
    middle[2, :, 0] += 4.0 * y  # only the inner layer 2 of 0..3 encodes the tag
    last[3, :, 0] += 4.0 * y  # only the last layer encodes it: no inner layer beats an end
    preds = {
        (m, "tag"): heldout.probe_predictions(X, t.tag.tolist(), sp, ProbeConfig(max_iter=50))
        for m, X in (("middle", middle), ("last", last))
    }
    probes = HeldOutProbes(t, sp, {"all": np.ones(len(t), bool)}, preds, {})
    r = probes.transfer_gap("middle", ["tag"])
    assert r["layer"] == 2 and r["low"] > 0.3 and r["n_layers"] == 3 and len(r["by_layer"]) == 4
    n = probes.transfer_gap("last", ["tag"])
    assert n["end_layer"] == 3 and n["high"] < 0  # the null: the last layer is the best one
    with pytest.raises(ValueError, match="targets is empty"):
        probes.transfer_gap("middle", [])
