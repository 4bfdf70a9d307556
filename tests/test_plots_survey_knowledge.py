"""Survey §2-§3 figures draw what they are given: labels, ticks, legends and plotted values checked against
small synthetic inputs shaped like the notebooks' (no model, no training)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd
import pytest

from bertology_lib import plots
from figure_helpers import texts


def test_param_breakdown_stacks_components_per_size():
    sizes = {
        "bert-base": {"token embeddings": 23_440_896, "self-attention (all layers)": 28_366_848},
        "bert-large": {"token embeddings": 31_254_528, "self-attention (all layers)": 100_859_904},
    }
    fig = plots.param_breakdown(sizes)
    ax = fig.axes[0]
    assert ax.get_xlabel() == "parameters (millions)"
    assert texts(ax.get_yticklabels()) == ["bert-base", "bert-large"]
    assert texts(ax.get_legend().get_texts()) == ["token embeddings", "self-attention (all layers)"]
    widths = [p.get_width() for p in ax.patches]  # components in order, one bar per size each
    assert widths == pytest.approx([23.440896, 31.254528, 28.366848, 100.859904])
    assert [t.get_text() for t in ax.texts] == ["51.8M", "132.1M"]  # totals written beside the bars


def test_embedding_norms_one_line_per_component_tokens_as_ticks():
    tokens = ["[CLS]", "the", "chef", "[SEP]"]
    norms = pd.DataFrame(
        [
            {"position": i, "token": t, "component": c, "norm": (i + 1) * k}
            for k, c in enumerate(["token", "position"], start=1)
            for i, t in enumerate(tokens)
        ]
    )
    fig = plots.embedding_norms(norms)
    ax = fig.axes[0]
    assert texts(ax.get_xticklabels()) == tokens
    assert ax.get_ylabel() == "L2 norm"
    assert texts(ax.get_legend().get_texts()) == ["token", "position"]
    assert list(ax.lines[0].get_ydata()) == [1, 2, 3, 4] and list(ax.lines[1].get_ydata()) == [2, 4, 6, 8]


def test_learning_curve_smooths_loss_and_plots_kept_evals():
    history = {"losses": [4.0, 2.0, 3.0], "evals": [{"step": 10, "mlm_acc": 0.2}, {"step": 100, "mlm_acc": 0.5}]}
    fig = plots.learning_curve(history)
    a, b = fig.axes
    assert (a.get_xlabel(), a.get_ylabel()) == ("step", "MLM loss (50-step mean)")
    assert list(a.lines[0].get_xdata()) == [1, 2, 3] and list(a.lines[0].get_ydata()) == [4.0, 3.0, 3.0]
    assert (b.get_xlabel(), b.get_ylabel(), b.get_xscale()) == ("step (log)", "held-out MLM accuracy", "log")
    assert list(b.lines[0].get_xdata()) == [10, 100] and list(b.lines[0].get_ydata()) == [0.2, 0.5]


def test_layer_curves_one_panel_per_target_with_majority_line():
    report = pd.DataFrame(
        [
            {
                "target": t,
                "subset": "all",
                "layer": L,
                "model": m,
                "majority": maj,
                "accuracy": 0.5 + 0.1 * L + (0.05 if m == "trained" else 0),
            }
            for t, maj in (("upos", 0.8), ("dep", 0.6))
            for m in ("trained", "random init")
            for L in range(3)
        ]
    )
    report = pd.concat([report, report.assign(subset="ambiguous", accuracy=0.0)])
    fig = plots.layer_curves(report)
    assert [ax.get_title() for ax in fig.axes] == ["upos", "dep"]
    ax = fig.axes[0]
    assert texts(ax.get_legend().get_texts()) == ["trained", "random init"]
    assert fig.axes[1].get_legend() is None  # one legend for the figure
    assert list(ax.lines[0].get_ydata()) == pytest.approx([0.55, 0.65, 0.75])  # 'all' subset only
    assert list(ax.get_xticks()) == [0, 1, 2]
    assert [tuple(ln.get_ydata()) for ln in ax.lines if ln.get_linestyle() == "--"] == [(0.8, 0.8)]
    assert "dashed: per-word majority" in texts(ax.texts)


def test_accuracy_over_steps_one_line_per_group_and_chance():
    df = pd.DataFrame(
        [{"step": s, "attractors": k, "accuracy": 0.5 + 0.1 * k + s / 10_000} for k in (0, 1) for s in (10, 100, 1000)]
    )
    fig = plots.accuracy_over_steps(df, "attractors", chance=0.5, title="agreement")
    ax = fig.axes[0]
    assert ax.get_title() == "agreement" and ax.get_xscale() == "log" and ax.get_ylim() == (0, 1.02)
    assert ax.get_legend().get_title().get_text() == "attractors"
    assert texts(ax.get_legend().get_texts()) == ["0", "1", "chance"]
    assert list(ax.lines[1].get_ydata()) == pytest.approx([0.601, 0.61, 0.7])
    assert tuple(ax.lines[-1].get_ydata()) == (0.5, 0.5)


def test_grouped_accuracy_bars_with_binomial_error_bars():
    df = pd.DataFrame({"attractors": [0, 1, 2], "accuracy": [0.9, 0.7, 0.6], "stderr": [0.01, 0.02, 0.05]})
    fig = plots.grouped_accuracy(df, "attractors", chance=0.5, title="by attractors")
    ax = fig.axes[0]
    assert (ax.get_title(), ax.get_xlabel()) == ("by attractors", "attractors")
    assert texts(ax.get_xticklabels()) == ["0", "1", "2"]
    assert [p.get_height() for p in ax.patches] == pytest.approx([0.9, 0.7, 0.6])
    segs = ax.containers[0].lines[2][0].get_segments()  # whiskers: accuracy ± 1.96 stderr
    assert [s[1][1] - s[0][1] for s in segs] == pytest.approx([2 * 1.96 * e for e in (0.01, 0.02, 0.05)])
    fig = plots.grouped_accuracy(df.assign(model=["a", "b", "a"]), "attractors", hue="model")
    assert texts(fig.axes[0].get_legend().get_texts()) == ["a", "b"]


def test_accuracy_bars_groups_hues_and_intervals():
    df = pd.DataFrame(
        {
            "relation": ["IsA", "IsA", "AtLocation", "AtLocation"],
            "model": ["mini", "minilm"] * 2,
            "accuracy": [0.6, 0.8, 0.3, 0.5],
            "ci_low": [0.5, 0.7, 0.2, 0.4],
            "ci_high": [0.7, 0.9, 0.4, 0.6],
        }
    )
    fig = plots.accuracy_bars(df, "relation", hue="model", chance=0.25, title="cloze", xlabel="relation type")
    ax = fig.axes[0]
    assert (ax.get_title(), ax.get_xlabel(), ax.get_ylabel()) == ("cloze", "relation type", "accuracy")
    assert texts(ax.get_xticklabels()) == ["IsA", "AtLocation"]  # order of appearance
    assert ax.get_legend().get_title().get_text() == "model"
    assert texts(ax.get_legend().get_texts()) == ["mini", "minilm"]
    assert [p.get_height() for p in ax.patches] == pytest.approx([0.6, 0.3, 0.8, 0.5])
    assert tuple(ax.lines[-1].get_ydata()) == (0.25, 0.25) and "chance" in texts(ax.texts)
    fig = plots.accuracy_bars(df[df.model == "mini"], "relation")
    assert fig.axes[0].get_legend() is None and fig.axes[0].get_xlabel() == "relation"


def test_selectivity_curves_task_control_and_difference():
    sel = pd.DataFrame(
        [
            {
                "probe": p,
                "layer": L,
                "task_acc": 0.8 + 0.05 * L,
                "control_acc": 0.6 + 0.01 * L,
                "selectivity": 0.2 + 0.04 * L,
                "majority": 0.7,
            }
            for p in ("linear", "mlp")
            for L in range(3)
        ]
    )
    fig = plots.selectivity_curves(sel, title="POS")
    a, b = fig.axes
    assert fig.texts[0].get_text() == "POS"
    assert (a.get_ylabel(), b.get_ylabel(), a.get_xlabel()) == (
        "held-out accuracy",
        "selectivity (task - control)",
        "layer",
    )
    assert texts(a.get_legend().get_texts()) == [
        "linear: task",
        "linear: control",
        "mlp: task",
        "mlp: control",
        "per-word majority",
    ]
    assert list(a.lines[0].get_ydata()) == pytest.approx([0.8, 0.85, 0.9])
    assert list(a.lines[1].get_ydata()) == pytest.approx([0.6, 0.61, 0.62])
    assert list(b.lines[0].get_ydata()) == pytest.approx([0.2, 0.24, 0.28])
    assert texts(b.get_legend().get_texts()) == ["linear", "mlp"]


def test_codelength_curves_in_kbits_per_task():
    mdl = pd.DataFrame(
        [
            {"task": t, "model": m, "layer": L, "codelength_bits": 1000.0 * (L + 1), "uniform_bits": 5000.0}
            for t in ("POS", "control")
            for m in ("trained", "random")
            for L in range(3)
        ]
    )
    fig = plots.codelength_curves(mdl)
    assert [ax.get_title() for ax in fig.axes] == ["task: POS", "task: control"]
    ax = fig.axes[0]
    assert ax.get_ylabel() == "online codelength (kbits)"
    assert list(ax.lines[0].get_ydata()) == pytest.approx([1.0, 2.0, 3.0])
    assert any(tuple(ln.get_ydata()) == (5.0, 5.0) for ln in ax.lines)
    assert texts(ax.get_legend().get_texts()) == ["trained", "random", "uniform code"]


def test_amnesic_bars_means_and_random_controls():
    amnesic = pd.DataFrame(
        {
            "condition": ["none", "INLP", "random", "random"],
            "probe_acc": [0.9, 0.3, 0.85, 0.8],
            "mlm_drop": [0.0, 0.2, 0.01, 0.03],
        }
    )
    fig = plots.amnesic_bars(amnesic, property_name="POS")
    a, b = fig.axes
    assert texts(a.get_xticklabels()) == ["no projection", "remove POS (INLP)", "remove random"]
    assert a.get_ylabel() == "POS probe accuracy (held-out)" and b.get_ylabel() == "MLM accuracy drop"
    assert [p.get_height() for p in a.patches] == pytest.approx([0.9, 0.3, 0.825])
    assert [p.get_height() for p in b.patches] == pytest.approx([0.0, 0.2, 0.02])
    dots = np.concatenate([c.get_offsets() for c in a.collections])
    assert sorted(map(tuple, dots)) == [(0, 0.9), (1, 0.3), (2, 0.8), (2, 0.85)]
