"""The physics figures draw what they are given (synthetic tables; no training): titles, labels, ticks,
legends and the plotted values are checked against the input."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import numpy as np
import pandas as pd
import pytest

from bertology_lib import plots
from figure_helpers import texts

# the six bioS attributes (bertology_lib.data.bios ATTRIBUTES) and the two summary rows
BIO = ["birth_date", "birth_city", "university", "major", "company_name", "company_city"]
ATTRS = [*BIO, "mean", "mean_without_birth_date"]


def _long(settings, column="augmentation", seeds=(0, 1)):
    rng = np.random.default_rng(0)
    return pd.DataFrame(
        [
            {column: s, "seed": k, "method": m, "attribute": a, "accuracy": rng.uniform(), "majority": 0.02}
            for s in settings
            for k in seeds
            for m in ("full", "lora")
            for a in ATTRS
        ]
    )


def test_majority_baselines_shares_and_baseline_bars():
    shares = pd.DataFrame([{"attribute": a, "rank": r, "share": 0.5 / r} for a in BIO[:2] for r in (1, 2, 4)])
    stats = pd.DataFrame(
        {"majority share": [0.5, 0.02], "uniform share": [0.1, 0.01], "majority on QA-test": [0.4, 0.0]}, index=BIO[:2]
    )
    fig = plots.majority_baselines(shares, stats)
    a, b = fig.axes
    assert (a.get_xscale(), a.get_yscale(), a.get_xlabel(), a.get_ylabel()) == (
        "log",
        "log",
        "value rank (most common first)",
        "share of people",
    )
    assert [list(ln.get_ydata()) for ln in a.lines] == [[0.5, 0.25, 0.125]] * 2
    assert texts(a.get_legend().get_texts()) == BIO[:2]
    assert texts(b.get_xticklabels()) == BIO[:2] and b.get_ylabel() == "accuracy of always guessing it"
    assert [p.get_height() for p in b.patches] == [0.5, 0.02]
    assert b.collections[0].get_offsets()[:, 1].tolist() == [0.1, 0.01]  # uniform ticks
    held = b.collections[1].get_offsets()[:, 1]
    assert held[0] == 0.4 and np.ma.is_masked(held[1])  # a majority of 0 is not drawn on a log axis
    assert texts(b.texts) == ["0.500", "0.020"]
    assert sorted(texts(b.get_legend().get_texts())) == [
        "QA-train majority, on QA-test",
        "majority share (all people)",
        "uniform 1 / #values",
    ]


def test_seed_bars_one_bar_per_setting_and_method():
    df = _long(["single", "multi5+permute"])
    fig = plots.physics_seed_bars(df, x="augmentation", hue="method", title="mixed training")
    axes = fig.axes
    assert fig.texts[0].get_text() == "mixed training"
    assert [ax.get_title() for ax in axes] == ["mean", "mean without birth date"]
    assert texts(axes[0].get_xticklabels()) == ["single", "multi5+permute"]
    assert axes[0].get_ylabel() == "QA-test accuracy"
    means = df[df.attribute == "mean"].groupby(["method", "augmentation"])["accuracy"].mean()
    expected = [means[(m, a)] for m in ("full", "lora") for a in ("single", "multi5+permute")]
    assert [p.get_height() for p in axes[0].patches] == pytest.approx(expected)  # per method, per setting
    seeds = df[(df.attribute == "mean") & (df.method == "full") & (df.augmentation == "single")]["accuracy"]
    assert sorted(axes[0].collections[0].get_offsets()[:, 1]) == pytest.approx(sorted(seeds))
    assert all(tuple(ln.get_ydata()) == (0.02, 0.02) for ln in axes[0].lines)  # majority ticks
    assert axes[1].get_legend().get_title().get_text() == "method"
    assert texts(axes[1].get_legend().get_texts()) == ["full", "lora"]


def test_seed_bars_label_a_hue_missing_from_the_first_setting():
    df = _long(["single", "multi5"])
    df = df[~((df.method == "lora") & (df.augmentation == "single"))]
    fig = plots.physics_seed_bars(df, x="augmentation", hue="method")
    assert texts(fig.axes[-1].get_legend().get_texts()) == ["full", "lora"]


def test_attribute_heatmap_values_and_labels():
    table = pd.DataFrame(np.arange(12).reshape(2, 6) / 12, index=[("full", "single"), ("lora", "multi5")], columns=BIO)
    fig = plots.physics_attribute_heatmap(table, title="QA-test accuracy")
    ax = fig.axes[0]
    assert ax.get_title() == "QA-test accuracy"
    assert np.allclose(ax.collections[0].get_array().reshape(2, 6), table.to_numpy())
    assert texts(ax.get_xticklabels()) == [c.replace("_", " ") for c in BIO]
    assert texts(ax.get_yticklabels()) == ["full / single", "lora / multi5"]
    assert texts(ax.texts)[:3] == ["0.00", "0.08", "0.17"]
    assert fig.axes[1].get_ylabel() == "accuracy"  # the colour bar


def test_learning_curves_three_metrics_per_seed():
    curves = pd.DataFrame(
        [
            {"augmentation": a, "seed": s, "step": st, "bio": 0.5 + s / 10, "qa_train": 0.4, "qa_test": st / 100}
            for a in ("single", "multi5+permute")
            for s in (0, 1)
            for st in (10, 20)
        ]
    )
    fig = plots.physics_learning_curves(curves, title="curves")
    assert [ax.get_title() for ax in fig.axes] == ["single", "multi5+permute"]
    ax = fig.axes[0]
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("training step", "accuracy")
    assert [list(ln.get_ydata()) for ln in ax.lines] == [
        [0.5, 0.5],
        [0.4, 0.4],
        [0.1, 0.2],
        [0.6, 0.6],
        [0.4, 0.4],
        [0.1, 0.2],
    ]
    assert [ln.get_linestyle() for ln in ax.lines] == ["-"] * 3 + ["--"] * 3  # first seed solid
    assert texts(fig.axes[-1].get_legend().get_texts()) == [
        "BIO (memorised)",
        "QA-train people",
        "QA-test people (OOD)",
    ]


def test_sweep_accuracy_and_majority_against_people():
    sweep = pd.DataFrame(
        [
            {"n_people": n, "attribute": a, "seed": s, "accuracy": 0.01 * s + n / 10_000, "majority": 0.02}
            for n in (150, 300)
            for a in ("mean", "mean_without_birth_date")
            for s in (0, 2)
        ]
    )
    fig = plots.physics_sweep(sweep, title="people")
    ax = fig.axes[0]
    assert (ax.get_title(), ax.get_xscale(), ax.get_xlabel()) == ("people", "log", "people N (log scale)")
    assert list(ax.lines[0].get_xdata()) == [150, 300]
    assert list(ax.lines[0].get_ydata()) == pytest.approx([0.025, 0.04])  # mean over seeds
    assert list(ax.lines[1].get_ydata()) == [0.02, 0.02] and ax.lines[1].get_linestyle() == "--"
    assert ax.get_ylim()[1] == pytest.approx(0.1)
    assert texts(ax.get_legend().get_texts()) == ["mean", "mean without birth date"]
    fig = plots.physics_sweep(sweep.rename(columns={"n_people": "bio_per_person"}), x="bio_per_person")
    assert fig.axes[0].get_xlabel() == "bio per person" and fig.axes[0].get_xscale() == "linear"


def test_probe_tables_side_by_side():
    first = pd.DataFrame(np.full((2, 6), 0.5), index=["name", "birth_city"], columns=BIO)
    fig = plots.physics_probe_tables({"single": first, "multi5": first + 0.25}, title="P-probing")
    assert [ax.get_title() for ax in fig.axes] == ["single", "multi5"] and fig.texts[0].get_text() == "P-probing"
    assert (fig.axes[0].get_ylabel(), fig.axes[0].get_xlabel()) == ("probed position", "attribute predicted")
    assert np.allclose(fig.axes[1].collections[0].get_array(), 0.75)
    assert texts(fig.axes[0].get_yticklabels()) == ["name", "birth_city"]


def test_probe_curves_one_line_per_attribute_over_positions():
    first = pd.DataFrame([[0.1] * 6, [0.9] * 6], index=["name", "before 1st"], columns=BIO)
    fig = plots.physics_probe_curves({"single": first, "multi5+permute": first + 0.05})
    assert [ax.get_title() for ax in fig.axes] == ["single", "multi5+permute"]
    ax = fig.axes[1]
    assert len(ax.lines) == len(BIO) and list(ax.lines[0].get_ydata()) == pytest.approx([0.15, 0.95])
    assert texts(ax.get_xticklabels()) == ["name", "before 1st"] and ax.get_xlabel() == "probed position"
    assert fig.axes[0].get_ylabel() == "P-probe accuracy (best layer)"
    assert texts(fig.axes[0].get_legend().get_texts()) == list(BIO)
    assert not fig.axes[1].collections  # no paper marks unless asked


def test_probe_curves_mark_the_papers_level_in_its_panel_only():
    first = pd.DataFrame([[0.1] * 6, [0.9] * 6], index=["name", "before 1st"], columns=BIO)
    paper = {"multi5+permute": {"name": 1.0, "not a position": 0.5}}
    fig = plots.physics_probe_curves({"single": first, "multi5+permute": first}, paper=paper, paper_label="paper §5")
    assert not fig.axes[0].collections
    (marks,) = fig.axes[1].collections
    assert marks.get_offsets().tolist() == [[0.0, 1.0]]  # at the name; an unknown position is not drawn
    assert texts(fig.axes[1].get_legend().get_texts()) == ["paper §5"]


def test_extraction_scatter_points_and_title():
    m = pd.DataFrame(
        {
            "augmentation": ["single", "multi5", "single"],
            "seed": [0, 0, 1],
            "qa_accuracy": [0.1, 0.5, 0.3],
            "q_probe_accuracy": [0.2, 0.6, 0.4],
        }
    )
    fig = plots.physics_extraction_scatter(m, rho=1.0)
    ax = fig.axes[0]
    assert ax.get_title() == "Spearman rho = 1.00"
    assert ax.collections[0].get_offsets().tolist() == [[0.2, 0.1], [0.4, 0.3]]  # single: both seeds
    assert texts(ax.get_legend().get_texts()) == ["single", "multi5"]
    assert ax.get_xlabel() == "Q-probe accuracy (mean over attributes, best layer)"
    assert plots.physics_extraction_scatter(m, title="given").axes[0].get_title() == "given"
