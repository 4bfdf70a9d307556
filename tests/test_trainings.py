"""The §3.1 headline rows over several trainings: intervals that cover trainings and items."""

import numpy as np
import pytest

from bertology_lib.errors import ParameterError
from bertology_lib.experiments.survey import trainings as tr


def test_training_seeds_follow_the_runs_seed():
    assert tr.training_seeds(0) == [0, 1, 2] and tr.training_seeds(5, 2) == [5, 6]
    with pytest.raises(ParameterError, match="seed"):
        tr.training_seeds(-1)


def test_spread_over_trainings_widens_the_interval():
    rng = np.random.default_rng(0)
    same = np.tile(rng.random(400) < 0.8, (3, 1)).astype(float)  # three trainings, identical answers
    spread = same.copy()
    spread[1] = rng.random(400) < 0.65  # one training much weaker
    est, low, high = tr.mean_interval(same)
    e2, l2, h2 = tr.mean_interval(spread)
    assert low < est < high and l2 < e2 < h2
    assert (h2 - l2) > 2 * (high - low)  # the spread over trainings shows in the interval
    with pytest.raises(ParameterError, match="at least 2"):
        tr.mean_interval(same[:1])


def test_two_groups_and_a_null_model_straddles_zero():
    rng = np.random.default_rng(1)
    lic, unl = (rng.random((3, 120)) < 0.9).astype(float), (rng.random((3, 60)) < 0.2).astype(float)
    est, low, high = tr.two_group_interval(lic, unl)
    assert est == pytest.approx(lic.mean() - unl.mean()) and low > 0.5
    # a model with a fixed preference: the same share in both groups
    flat = (rng.random((3, 180)) < 0.5).astype(float)
    _, low0, high0 = tr.two_group_interval(flat[:, :120], flat[:, 120:])
    assert low0 < 0 < high0
    with pytest.raises(ParameterError, match="shapes"):
        tr.two_group_interval(lic, unl[:2])


def test_probe_gap_pools_sentences_and_needs_the_same_tokens():
    rng = np.random.default_rng(2)
    groups = np.repeat(np.arange(50), 6)
    info = {"layer": 3, "accuracy": 0.9, "baseline": "random init", "baseline_accuracy": 0.6, "n_test": 300}
    terms = [((rng.random(300) < 0.9).astype(float), (rng.random(300) < 0.6).astype(float), groups, info)] * 3
    g = tr.probe_gap(terms)
    assert g["low"] < g["gap"] < g["high"] and g["low"] > 0.1 and g["layers"] == [3, 3, 3]
    other = [*terms[:2], (terms[2][0], terms[2][1], np.roll(groups, 1), info)]
    with pytest.raises(ParameterError, match="different test tokens"):
        tr.probe_gap(other)


def test_arc_gap_interval_subtracts_the_twin():
    rng = np.random.default_rng(3)
    twin = [[(1, 1.0, 1.0), (2, 1.0, 1.0)] for _ in range(30)]
    trained = [[[(1, 1.5 + rng.normal(0, 0.1), 1.0), (2, 1.3, 1.0)] for _ in range(30)] for _ in range(3)]
    est, low, high = tr.arc_gap_interval(trained, twin)
    assert 0.3 < low < est < high
    est0, low0, high0 = tr.arc_gap_interval([twin, twin], twin)  # the twin against itself: nothing
    assert est0 == 0 and low0 <= 0 <= high0


def test_gap_terms_read_the_layer_and_baseline_gap_chose():
    import pandas as pd
    import torch

    from bertology_lib.analysis import word_probes

    rng = np.random.default_rng(4)
    n_tok, n_layers = 120, 3
    upos = rng.choice(["NOUN", "VERB"], n_tok)
    table = pd.DataFrame(
        {"sentence": np.repeat(np.arange(40), 3), "word": rng.choice(list("abcdef"), n_tok), "upos": upos}
    )
    signal = torch.tensor((upos == "NOUN").astype(np.float32))[None, :, None]  # layer states that carry the tag
    states = {
        "trained": torch.randn(n_layers, n_tok, 8) + 2 * signal,
        "random init": torch.randn(n_layers, n_tok, 8),
    }
    probes = word_probes.probes_from_states(states, table, ["upos"], (0.6, 0.15, 0.25), 50, None)
    against = ["random init", word_probes.MAJORITY]
    a, b, groups, info = tr.gap_terms(probes, "trained", "upos", against)
    g = probes.gap("trained", "upos", against)
    assert a.mean() == pytest.approx(g["accuracy"]) and b.mean() == pytest.approx(g["baseline_accuracy"])
    assert len(a) == len(b) == len(groups) == g["n_test"] and info["layer"] == g["layer"]
    assert a.mean() > b.mean()  # the trained states carry the tag, the twin's do not


def test_attractor_row_one_training_keeps_wilson_and_several_pool():
    rng = np.random.default_rng(5)
    attr = np.r_[np.zeros(40, bool), np.ones(120, bool)]
    one = (rng.random((1, 160)) < 0.9).astype(float)
    twin = (rng.random(160) < 0.5).astype(float)
    ours, checks, details = tr.attractor_row(one, twin, attr, (0.1, 0.05, 0.15))
    k = int(one[0, attr].sum())
    assert ours[0] == pytest.approx(k / 120) and details is None and checks["mlm_beats_ngram"] == (0.1, 0.05, 0.15)
    three = np.vstack([one, (rng.random((2, 160)) < 0.9).astype(float)])
    three[2, ~attr] = 0.5 > rng.random(40)  # one training fails the items without attractors
    ours3, checks3, details3 = tr.attractor_row(three, twin, attr, (0.1, 0.05, 0.15))
    assert ours3[0] == pytest.approx(three[:, attr].mean()) and ours3[1] < ours3[0] < ours3[2]
    assert checks3["no_attractor_agreement"] == pytest.approx(three[2, ~attr].mean())  # the weakest training
    assert checks3["beats_twin"][1] > 0 and len(details3["per_training"]) == 3


def test_licensing_row_one_training_matches_the_two_sample_gap():
    from bertology_lib import stats

    rng = np.random.default_rng(6)
    condition = np.array(["licensed"] * 80 + ["unlicensed"] * 40 + ["scope"] * 40)
    correct = (rng.random((1, 160)) < 0.8).astype(float)
    ours, per = tr.licensing_row(correct, condition)
    assert ours == pytest.approx(list(stats.accuracy_gap(correct[0, :80], 1 - correct[0, 80:120])))
    assert per[0] == pytest.approx(correct[0, :80].mean() - (1 - correct[0, 80:120]).mean())
    three = (rng.random((3, 160)) < 0.8).astype(float)
    ours3, per3 = tr.licensing_row(three, condition)
    assert len(per3) == 3 and ours3[0] == pytest.approx(np.mean(per3), abs=1e-3) and ours3[1] > 0
