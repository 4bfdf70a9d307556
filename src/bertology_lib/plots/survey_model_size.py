"""Figures of the survey's §6, how big BERT should be: head pruning and ablation, compression.

Notebook: ``survey_06_model_size``.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

from bertology_lib.plots.common import finish, style


def head_pruning_curves(curves: pd.DataFrame, full_score: float | None = None, title: str = ""):
    """Test score vs share of heads removed, mean ± std over seeds, one line per order (importance, random).

    ``curves``: rows of :func:`bertology_lib.interventions.heads.pruning_curve` with a ``seed`` column. Used by survey §6.
    """
    style()
    fig, ax = plt.subplots(figsize=(6, 3.4))
    sns.lineplot(data=curves, x="share", y="score", hue="order", marker="o", errorbar="sd", ax=ax)
    if full_score is not None:
        ax.axhline(full_score - 0.01, ls=":", c="grey", lw=1, label="1 point below unpruned")
    ax.axvline(0.4, ls="--", c="grey", lw=0.8)
    ax.set_xlabel("share of heads removed")
    ax.set_ylabel("test accuracy")
    ax.legend(fontsize=8)
    return finish(fig, title, ax, fontsize=10)


def head_ablation_maps(ablation: pd.DataFrame, split: str = "test"):
    """Two heatmaps (layer x head) of the mean change in score: that head removed; only that head kept in its layer.

    ``ablation``: :func:`bertology_lib.interventions.heads.single_head_ablation` rows with a ``seed`` column. Used by survey §6.
    """
    style()
    d = ablation.assign(
        removed=ablation[f"{split}_removed"] - ablation[f"{split}_full"],
        only=ablation[f"{split}_only"] - ablation[f"{split}_full"],
    )
    fig, axes = plt.subplots(1, 2, figsize=(9, 0.5 * d.layer.nunique() + 1.8))
    for ax, col, name in zip(axes, ("removed", "only"), ("this head removed", "only this head kept in its layer")):
        m = d.pivot_table(index="layer", columns="head", values=col, aggfunc="mean") * 100
        lim = max(1.0, float(np.nanmax(np.abs(m.values))))
        sns.heatmap(
            m,
            ax=ax,
            cmap="RdBu",
            center=0,
            vmin=-lim,
            vmax=lim,
            annot=True,
            fmt=".1f",
            annot_kws={"fontsize": 7},
            cbar_kws={"label": "Δ accuracy (points)"},
        )
        ax.set_title(name, fontsize=10)
    return finish(fig)


def compression_curves(sparsity: pd.DataFrame, layers: pd.DataFrame):
    """Left: accuracy vs unstructured sparsity (mean ± std over seeds); right: accuracy with blocks dropped.

    ``sparsity``: :func:`bertology_lib.experiments.survey.model_size.sparsity_curve` rows with ``seed``;
    ``layers``: :func:`bertology_lib.experiments.survey.model_size.layer_drop_table` rows with ``seed``. Used by survey §6.
    """
    style()
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.4))
    sns.lineplot(data=sparsity, x="sparsity", y="accuracy", marker="o", errorbar="sd", ax=axes[0])
    axes[0].set_xlabel("share of block weights pruned (global magnitude)")
    axes[0].set_ylabel("test accuracy")
    d = layers[layers.kind != "full"]
    sns.pointplot(data=d, x="variant", y="accuracy", hue="kind", errorbar="sd", linestyle="none", ax=axes[1])
    full = layers[layers.kind == "full"].accuracy.mean()
    axes[1].axhline(full, ls="--", c="grey", lw=1, label="all blocks")
    axes[1].tick_params(axis="x", rotation=60, labelsize=7)
    axes[1].set_xlabel("")
    axes[1].legend(fontsize=7)
    return finish(fig)


def compression_tradeoff(table: pd.DataFrame, x: str = "latency_ms", y: str = "accuracy"):
    """One point per compression method: ``y`` (mean ± std over seeds) against ``x``.

    ``table``: one row per method with ``method``, ``x``, ``y`` and ``std``. Used by survey §6.
    """
    style()
    fig, ax = plt.subplots(figsize=(6.5, 3.6))
    for _, r in table.iterrows():
        ax.errorbar(r[x], r[y], yerr=r.get("std", 0) if pd.notna(r.get("std", np.nan)) else 0, fmt="o", capsize=3)
        ax.annotate(r["method"], (r[x], r[y]), fontsize=7, xytext=(4, 3), textcoords="offset points")
    ax.set_xlabel(x.replace("_", " "))
    ax.set_ylabel(f"test {y}")
    return finish(fig)
