"""Survey §6 (model size) figures draw what they are given: small synthetic frames shaped like the
notebook's, values and labels checked against them."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd
import pytest

from bertology_lib import plots
from figure_helpers import texts


def test_head_pruning_curves_mean_over_seeds_per_order():
    curves = pd.DataFrame(
        [
            {"order": o, "seed": s, "share": sh, "score": 0.9 - sh * (0.1 if o == "importance" else 0.3) + s / 100}
            for o in ("importance", "random")
            for s in (0, 2)
            for sh in (0.0, 0.4, 0.8)
        ]
    )
    fig = plots.head_pruning_curves(curves, full_score=0.91, title="SST-2")
    ax = fig.axes[0]
    assert (ax.get_title(), ax.get_xlabel(), ax.get_ylabel()) == ("SST-2", "share of heads removed", "test accuracy")
    assert list(ax.lines[0].get_ydata()) == pytest.approx([0.91, 0.87, 0.83])
    assert list(ax.lines[1].get_ydata()) == pytest.approx([0.91, 0.79, 0.67])
    assert any(tuple(ln.get_ydata()) == pytest.approx((0.9, 0.9)) for ln in ax.lines)
    assert texts(ax.get_legend().get_texts()) == ["importance", "random", "1 point below unpruned"]


def test_head_ablation_maps_change_in_points():
    ablation = pd.DataFrame(
        [
            {
                "layer": L,
                "head": h,
                "seed": s,
                "test_full": 0.8,
                "test_removed": 0.8 - 0.01 * h,
                "test_only": 0.7 + 0.01 * L,
            }
            for L in range(2)
            for h in range(3)
            for s in (0, 1)
        ]
    )
    fig = plots.head_ablation_maps(ablation)
    removed, only, _, _ = fig.axes  # two heatmaps, then their colour bars
    assert (removed.get_title(), only.get_title()) == ("this head removed", "only this head kept in its layer")
    assert np.allclose(removed.collections[0].get_array().reshape(2, 3), [[0, -1, -2], [0, -1, -2]])
    assert np.allclose(only.collections[0].get_array().reshape(2, 3), [[-10] * 3, [-9] * 3])
    assert texts(removed.texts)[:3] == ["0.0", "-1.0", "-2.0"]
    assert fig.axes[2].get_ylabel() == "Δ accuracy (points)"


def test_compression_curves_sparsity_and_dropped_blocks():
    sparsity = pd.DataFrame(
        [{"sparsity": sp, "seed": s, "accuracy": 0.9 - sp / 2 + s / 100} for sp in (0.0, 0.5) for s in (0, 2)]
    )
    layers = pd.DataFrame(
        [
            {"variant": v, "kind": k, "seed": s, "accuracy": a + s / 100}
            for v, k, a in (("all", "full", 0.9), ("drop top 2", "top", 0.85), ("drop bottom 2", "bottom", 0.7))
            for s in (0, 2)
        ]
    )
    fig = plots.compression_curves(sparsity, layers)
    a, b = fig.axes
    assert a.get_xlabel() == "share of block weights pruned (global magnitude)"
    assert list(a.lines[0].get_ydata()) == pytest.approx([0.91, 0.66])
    assert texts(b.get_xticklabels()) == ["drop top 2", "drop bottom 2"]
    points = [ln for ln in b.lines if ln.get_marker() == "o" and len(ln.get_xdata())]  # one per kind
    assert [np.nanmax(ln.get_ydata()) for ln in points] == pytest.approx([0.86, 0.71])  # top, bottom
    assert any(tuple(ln.get_ydata()) == pytest.approx((0.91, 0.91)) for ln in b.lines)
    assert "all blocks" in texts(b.get_legend().get_texts())


def test_compression_tradeoff_one_labelled_point_per_method():
    table = pd.DataFrame(
        {"method": ["full", "distilled"], "latency_ms": [10.0, 4.0], "accuracy": [0.9, 0.85], "std": [0.01, np.nan]}
    )
    fig = plots.compression_tradeoff(table)
    ax = fig.axes[0]
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("latency ms", "test accuracy")
    points = [(ln.get_xdata()[0], ln.get_ydata()[0]) for ln in ax.lines if ln.get_marker() == "o"]
    assert points == [(10.0, 0.9), (4.0, 0.85)]
    assert texts(ax.texts) == ["full", "distilled"]
