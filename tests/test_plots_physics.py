"""The physics figures draw what they are given (synthetic tables; no training)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from bertology_lib import plots
from bertology_lib.data import bios

ATTRS = [*bios.ATTRIBUTES, "mean", "mean_without_birth_date"]


def _long(settings, column="augmentation", seeds=(0, 1)):
    rng = np.random.default_rng(0)
    return pd.DataFrame([{column: s, "seed": k, "method": m, "attribute": a, "accuracy": rng.uniform(),
                          "majority": 0.02} for s in settings for k in seeds for m in ("full", "lora") for a in ATTRS])


def test_seed_bars_one_bar_per_setting_and_method():
    df = _long(["single", "multi5+permute"])
    fig = plots.physics_seed_bars(df, x="augmentation", hue="method")
    axes = fig.axes
    assert len(axes) == 2 and [t.get_text() for t in axes[0].get_xticklabels()] == ["single", "multi5+permute"]
    assert len(axes[0].patches) == 4  # 2 settings x 2 methods
    mean = df[(df.attribute == "mean") & (df.method == "full") & (df.augmentation == "single")]["accuracy"].mean()
    assert any(np.isclose(p.get_height(), mean) for p in axes[0].patches)
    plt.close(fig)


def test_heatmap_curves_sweep_tables_scatter():
    table = pd.DataFrame(np.full((2, 6), 0.5), index=["single", "multi5"], columns=list(bios.ATTRIBUTES))
    fig = plots.physics_attribute_heatmap(table, title="t")
    assert len(fig.axes[0].texts) == 12
    plt.close(fig)
    curves = pd.DataFrame([{"augmentation": a, "seed": s, "step": st, "bio": 0.5, "qa_train": 0.4, "qa_test": 0.1}
                           for a in ("single", "multi5+permute") for s in (0, 1) for st in (10, 20)])
    fig = plots.physics_learning_curves(curves)
    assert len(fig.axes) == 2 and len(fig.axes[0].lines) == 6  # 3 metrics x 2 seeds
    plt.close(fig)
    sweep = pd.DataFrame([{"n_people": n, "attribute": a, "accuracy": 0.03, "majority": 0.02}
                          for n in (150, 300) for a in ("mean", "mean_without_birth_date")])
    fig = plots.physics_sweep(sweep)
    assert fig.axes[0].get_ylim()[1] >= 0.1 and fig.axes[0].get_xscale() == "log"
    plt.close(fig)
    fig = plots.physics_probe_tables({"single": table, "multi5": table})
    assert [ax.get_title() for ax in fig.axes] == ["single", "multi5"]
    plt.close(fig)
    m = pd.DataFrame({"augmentation": ["single", "multi5", "x"], "seed": 0, "qa_accuracy": [0.1, 0.5, 0.3],
                      "q_probe_accuracy": [0.2, 0.6, 0.4]})
    fig = plots.physics_extraction_scatter(m, rho=1.0)
    assert "1.00" in fig.axes[0].get_title()
    plt.close(fig)
