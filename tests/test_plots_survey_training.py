"""Survey §5 figures draw what they are given: seeds, means and spreads checked against small synthetic
frames shaped like the notebooks' (no fine-tuning here)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd
import pytest

from bertology_lib import plots
from figure_helpers import texts


def whiskers(ax) -> list[float]:
    """Half-lengths of the error bars of the first error-bar container."""
    err = next(c for c in ax.containers if hasattr(c, "has_yerr"))
    return [(s[1][1] - s[0][1]) / 2 for s in err.lines[2][0].get_segments()]


def test_finetuning_strategies_mean_bars_and_seed_dots():
    scores = pd.DataFrame(
        {"strategy": ["full", "full", "frozen", "frozen"], "seed": [0, 1, 0, 1], "accuracy": [0.9, 0.8, 0.6, 0.7]}
    )
    fig = plots.finetuning_strategies(scores, title="SST-2")
    ax = fig.axes[0]
    assert (ax.get_title(), ax.get_xlabel()) == ("SST-2", "test accuracy")
    assert texts(ax.get_yticklabels()) == ["full", "frozen"]
    assert [p.get_width() for p in ax.patches] == pytest.approx([0.85, 0.65])
    assert [sorted(c.get_offsets()[:, 0]) for c in ax.collections] == [[0.8, 0.9], [0.6, 0.7]]
    assert ax.get_xlim() == pytest.approx((0.55, 1.0))


def test_layer_change_profile_mean_and_std_per_block():
    change = pd.DataFrame(
        {
            "layer": [1, 1, 2, 2],
            "seed": [0, 1, 0, 1],
            "rel_change": [0.1, 0.3, 0.2, 0.2],
            "one_minus_cka": [0.0, 0.1, 0.4, 0.6],
        }
    )
    mix = pd.DataFrame({"layer": [0, 1, 2], "seed": 0, "weight": [0.2, 0.3, 0.5]})
    fig = plots.layer_change_profile(change, mix)
    a, b, c = fig.axes
    assert [ax.get_ylabel() for ax in fig.axes] == [
        "relative weight change",
        "1 - CKA (pre vs fine-tuned)",
        "scalar-mix weight",
    ]
    assert (a.get_xlabel(), c.get_xlabel()) == ("block", "layer (0 = embeddings)")
    assert [p.get_height() for p in a.patches] == pytest.approx([0.2, 0.2])
    assert whiskers(a) == pytest.approx([np.std([0.1, 0.3], ddof=1), 0.0])
    assert [p.get_height() for p in b.patches] == pytest.approx([0.05, 0.5])
    assert [p.get_height() for p in c.patches] == pytest.approx([0.2, 0.3, 0.5])
    assert list(c.get_xticks()) == [0, 1, 2]
    assert len(plots.layer_change_profile(change).axes) == 2


def test_restore_curves_bottom_and_top_start_from_the_fine_tuned_model():
    rows = [{"kind": "none", "restored": 0, "seed": s, "accuracy": 0.9} for s in (0, 1)]
    rows += [
        {"kind": k, "restored": r, "seed": s, "accuracy": 0.9 - r * (0.2 if k == "top" else 0.05) - s / 100}
        for k in ("bottom", "top")
        for r in (1, 2)
        for s in (0, 1)
    ]
    fig = plots.restore_curves(pd.DataFrame(rows), title="restoring blocks")
    ax = fig.axes[0]
    assert (ax.get_title(), ax.get_xlabel(), ax.get_ylabel()) == (
        "restoring blocks",
        "blocks restored to pre-trained values (k)",
        "test accuracy",
    )
    bottom, top = ax.lines[0], ax.lines[3]  # each errorbar: the data line, then its two caps
    assert list(bottom.get_xdata()) == [0, 1, 2] and list(bottom.get_ydata()) == pytest.approx([0.9, 0.845, 0.795])
    assert list(top.get_ydata()) == pytest.approx([0.9, 0.695, 0.495])
    assert texts(ax.get_legend().get_texts()) == ["bottom k blocks restored", "top k blocks restored"]


def test_seed_curves_lines_coloured_by_final_rank_and_histogram():
    curves = pd.DataFrame(
        [
            {"seed": s, "frac": f, "dev": 0.5 + f * s / 10, "final_test": 0.6 + s / 100}
            for s in (2, 0, 1)
            for f in (0.5, 0.25, 1.0)
        ]
    )
    fig = plots.seed_curves(curves, early_frac=0.25)
    a, b = fig.axes
    assert (a.get_xlabel(), a.get_ylabel()) == ("share of fine-tuning done", "dev accuracy")
    lines = [ln for ln in a.lines if len(ln.get_xdata()) == 3]
    assert [list(ln.get_xdata()) for ln in lines] == [[0.25, 0.5, 1.0]] * 3  # sorted by frac
    assert [ln.get_ydata()[-1] for ln in lines] == pytest.approx([0.5, 0.6, 0.7])  # seeds by final test accuracy
    assert any(list(ln.get_xdata()) == [0.25, 0.25] for ln in a.lines)  # the early-stopping point
    assert (b.get_xlabel(), b.get_ylabel()) == ("final test accuracy", "seeds")
    assert sum(p.get_height() for p in b.patches) == 3


def test_pretraining_variants_one_panel_per_metric():
    table = pd.DataFrame(
        {
            "variant": ["MLM", "MLM", "MLM+NSP", "MLM+NSP"],
            "seed": [0, 1, 0, 1],
            "mlm_acc": [0.40, 0.42, 0.30, 0.34],
            "pos_probe": [0.9, 0.92, 0.8, 0.84],
        }
    )
    fig = plots.pretraining_variants(table)
    a, b = fig.axes
    assert (a.get_ylabel(), b.get_ylabel()) == ("mlm acc", "pos probe")
    assert texts(a.get_xticklabels()) == ["MLM", "MLM+NSP"]
    assert [p.get_height() for p in a.patches] == pytest.approx([0.41, 0.32])
    assert [sorted(c.get_offsets()[:, 1]) for c in b.collections] == [[0.9, 0.92], [0.8, 0.84]]
    assert a.get_ylim() == pytest.approx((0.24, 0.48))  # zoomed to the values, padded by half their range
