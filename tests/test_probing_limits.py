"""§3.4 limits of probing: selectivity by probe, MDL tables, amnesic probing with controls."""

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd
import pytest
import torch

from bertology_lib import plots
from bertology_lib.analysis import probing
from bertology_lib.experiments.survey import probing_limits as survey


def _lexical_table(n_words=40, n_tokens=1200, layers=3, d=16, seed=0):
    """Word types with a fixed tag; layer 1 encodes the tag linearly, layers 0 and 2 are noise."""
    g = torch.Generator().manual_seed(seed)
    rng = np.random.default_rng(seed)
    types = [f"w{i}" for i in range(n_words)]
    tag_of = {w: ["A", "B", "C"][i % 3] for i, w in enumerate(types)}
    words = [types[i] for i in rng.integers(n_words, size=n_tokens)]
    table = pd.DataFrame({"word": words, "upos": [tag_of[w] for w in words]})
    X = torch.randn(layers, n_tokens, d, generator=g)
    y = torch.tensor([["A", "B", "C"].index(t) for t in table.upos])
    X[1, :, :3] += 3 * torch.nn.functional.one_hot(y, 3).float()
    return X, table


def test_sizes_and_probe_configs_for_every_profile():
    for name in ("smoke", "quick", "full"):
        s = survey.ProbingLimitsSizes.for_profile(name)
        cfgs = s.probe_configs(probe_iter=20, seed=3)
        assert cfgs["linear"].kind == "linear" and cfgs["mlp"].kind == "mlp"
        assert cfgs["mlp"].max_iter == s.mlp_epochs and cfgs["mlp"].seed == 3


def test_selectivity_by_probe_and_gap():
    X, table = _lexical_table()
    cfgs = {
        "linear": probing.ProbeConfig(max_iter=50),
        "mlp": probing.ProbeConfig(kind="mlp", max_iter=20, hidden=16, lr=1e-2, batch_size=256),
    }
    sel = survey.selectivity_by_probe(X, table, "upos", range(900), range(900, 1200), cfgs)
    assert set(sel.probe) == {"linear", "mlp"} and len(sel) == 2 * X.shape[0]
    assert np.allclose(sel.selectivity, sel.task_acc - sel.control_acc)
    lin = sel[sel.probe == "linear"].set_index("layer")
    assert lin.task_acc[1] > 0.95 and lin.task_acc[0] < 0.6  # the informative layer is found
    assert sel.majority.iloc[0] == pytest.approx(1.0)  # every type has one tag here
    summary = survey.selectivity_summary(sel)
    assert int(summary.loc["linear", "best_layer"]) == 1
    # the gap, computed independently layer by layer
    by = {p: d.sort_values("layer").selectivity.to_numpy() for p, d in sel.groupby("probe")}
    assert survey.selectivity_gap(sel) == pytest.approx(float(np.mean(by["linear"] - by["mlp"])))
    with pytest.raises(KeyError, match="probe 'rbf'"):
        survey.selectivity_gap(sel, "linear", "rbf")


def test_codelength_table_prefers_the_informative_layer():
    X, table = _lexical_table(n_words=300, n_tokens=1200)
    mdl = survey.codelength_table({"m": X}, table, "upos", range(1000), probing.ProbeConfig(max_iter=30))
    assert set(mdl.task) == {"upos", "control"} and set(mdl.model) == {"m"}
    assert len(mdl) == 2 * X.shape[0]
    best = survey.best_codelength(mdl, "m", "upos")
    assert int(best.layer) == 1
    task = mdl[(mdl.task == "upos") & (mdl.layer == 1)].codelength_bits.iloc[0]
    ctrl = mdl[(mdl.task == "control") & (mdl.layer == 1)].codelength_bits.iloc[0]
    assert task < ctrl  # the task's labels compress; per-type random labels barely do
    with pytest.raises(KeyError):
        survey.best_codelength(mdl, "other", "upos")


def test_inlp_iterations_caps_the_removed_share():
    assert survey.inlp_iterations(128, 14, at_most=10) == 4  # 4 x 14 = 56 <= 64
    assert survey.inlp_iterations(32, 14, at_most=10) == 1
    assert survey.inlp_iterations(16, 40, at_most=3) == 1  # always at least one
    with pytest.raises(ValueError):
        survey.inlp_iterations(0, 3, 1)


def _tiny_mlm(tiny_bert_dir):
    from transformers import AutoModelForMaskedLM, AutoTokenizer

    return AutoModelForMaskedLM.from_pretrained(tiny_bert_dir).eval(), AutoTokenizer.from_pretrained(tiny_bert_dir)


TEXTS = ["the chef tipped the waiter .", "a robin is a bird .", "the waiter tipped a chef ."] * 20


def test_amnesic_mlm_drop_identity_is_zero_and_hook_is_removed(tiny_bert_dir):
    from bertology_lib.training.pretrain import masked_accuracy

    model, tok = _tiny_mlm(tiny_bert_dir)
    d = model.config.hidden_size
    same = survey.amnesic_mlm_drop(model, tok, TEXTS, layer=1, P=torch.eye(d))
    assert same["drop"] == pytest.approx(0.0, abs=1e-9)
    gone = survey.amnesic_mlm_drop(model, tok, TEXTS, layer=1, P=torch.zeros(d, d))
    assert gone["before"] == same["before"]
    assert masked_accuracy(model, tok, TEXTS, corruption="80/10/10", bucket=0) == pytest.approx(
        gone["before"]
    )  # no hook left behind


def test_amnesic_probe_removes_the_property_with_matched_controls(tiny_bert_dir):
    model, tok = _tiny_mlm(tiny_bert_dir)
    d = model.config.hidden_size
    g = torch.Generator().manual_seed(0)
    n = 600
    y = torch.randint(0, 3, (n,), generator=g)
    X = torch.randn(n, d, generator=g)
    X[:, :3] += 3 * torch.nn.functional.one_hot(y, 3).float()
    labels = ["ABC"[i] for i in y.tolist()]
    amn, accs = survey.amnesic_probe(
        model,
        tok,
        X,
        labels,
        range(450),
        range(450, 600),
        layer=1,
        texts=TEXTS,
        n_iter=2,
        n_controls=3,
        probe_cfg=probing.ProbeConfig(max_iter=50),
    )
    assert list(amn.condition) == ["none", "INLP", "random", "random", "random"]
    ranks = amn.set_index("condition")["rank"]
    assert ranks["none"] == 0 and (amn[amn.condition == "random"]["rank"] == ranks["INLP"]).all()
    assert int(ranks["INLP"]) == 2 * 3  # one direction per class per iteration
    probe = amn.groupby("condition").probe_acc.mean()
    assert probe["none"] > 0.95 and probe["INLP"] < 0.6 and probe["random"] > 0.9
    assert amn[amn.condition == "none"].mlm_drop.iloc[0] == 0
    assert len(accs) == 2
    margin = survey.amnesic_margin(amn)
    assert margin == pytest.approx(
        float(amn[amn.condition == "INLP"].mlm_drop.iloc[0] - amn[amn.condition == "random"].mlm_drop.max())
    )
    fig = plots.amnesic_bars(amn)
    assert len(fig.axes) == 2


def test_figures_are_returned():
    X, table = _lexical_table(n_tokens=300)
    cfgs = {"linear": probing.ProbeConfig(max_iter=10)}
    sel = survey.selectivity_by_probe(X, table, "upos", range(200), range(200, 300), cfgs)
    assert len(plots.selectivity_curves(sel, title="t").axes) == 2
    mdl = survey.codelength_table({"a": X, "b": X}, table, "upos", range(200), probing.ProbeConfig(max_iter=5))
    assert len(plots.codelength_curves(mdl).axes) == 2


def test_selectivity_study_interval_matches_the_table_and_resamples_items():
    X, table = _lexical_table()
    cfgs = {
        "linear": probing.ProbeConfig(max_iter=50),
        "mlp": probing.ProbeConfig(kind="mlp", max_iter=20, hidden=16, lr=1e-2, batch_size=256),
    }
    study = survey.selectivity_study(X, table, "upos", range(900), range(900, 1200), cfgs)
    gap, low, high = study.gap("linear", "mlp", groups=np.arange(300) // 3)
    assert gap == pytest.approx(survey.selectivity_gap(study.frame)) and low <= gap <= high
    same = study.gap("linear", "linear")
    assert same == (0.0, 0.0, 0.0)  # a probe against itself: no gap, whatever the model
    with pytest.raises(ValueError, match="probe='rbf'"):
        study.gap("linear", "rbf")


def test_codelength_study_gap_and_a_null_model():
    X, table = _lexical_table(n_words=300, n_tokens=1200)
    noise = torch.randn_like(X)
    cfg = probing.ProbeConfig(max_iter=30)
    study = survey.codelength_study({"m": X, "null": noise}, table, "upos", range(1000), cfg)
    totals = study.frame.groupby(["model", "task"]).codelength_bits.min()
    g = study.gap("m", "null", "upos")
    assert (
        g["layer"] == 1 and g["low"] > 0 and g["ratio"] == pytest.approx(totals["null", "upos"] / totals["m", "upos"])
    )
    n = study.gap("null", "null", "upos")
    assert n["gap"] == 0 and n["low"] <= 0 <= n["high"]
    with pytest.raises(ValueError, match="no codelength for model='x'"):
        study.gap("x", "m", "upos")


def test_amnesic_interval_over_random_draws():
    t = pd.DataFrame(
        {"condition": ["none", "INLP", "random", "random", "random"], "mlm_drop": [0, 0.2, 0.01, 0.03, 0.02]}
    )
    m, low, high = survey.amnesic_interval(t)
    assert m == pytest.approx(0.18) and low > 0.1 and high < 0.25
    with pytest.raises(ValueError, match="at least two random rows"):
        survey.amnesic_interval(t.iloc[:3])
