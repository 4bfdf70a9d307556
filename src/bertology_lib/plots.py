"""Figures: pure functions, results in, matplotlib Figure out.

Notebooks call these and add a caption that says what to see.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns


def _style() -> None:
    sns.set_theme(context="notebook", style="whitegrid")


def param_breakdown(breakdowns: dict[str, dict[str, int]]):
    """Stacked horizontal bars: parameters per component for each model size."""
    _style()
    df = pd.DataFrame(breakdowns).fillna(0) / 1e6  # rows: components, cols: sizes
    fig, ax = plt.subplots(figsize=(8, 3.6))
    left = pd.Series(0.0, index=df.columns)
    palette = sns.color_palette("tab10", len(df.index))
    for color, (component, row) in zip(palette, df.iterrows()):
        ax.barh(df.columns, row, left=left, label=component, color=color)
        left += row
    for i, total in enumerate(left):
        ax.text(total + 3, i, f"{total:.1f}M", va="center")
    ax.set_xlabel("parameters (millions)")
    ax.set_xlim(0, left.max() * 1.15)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.32), ncol=3, fontsize=8, frameon=False)
    fig.tight_layout()
    return fig


def embedding_norms(norms: pd.DataFrame):
    """Per-position norms of the token, position and segment embeddings and their sum."""
    _style()
    fig, ax = plt.subplots(figsize=(9, 3.2))
    sns.lineplot(data=norms, x="position", y="norm", hue="component", marker="o", ax=ax)
    ticks = norms.drop_duplicates("position").sort_values("position")
    ax.set_xticks(ticks["position"], ticks["token"], rotation=60, ha="right", fontsize=8)
    ax.set_xlabel("")
    ax.set_ylabel("L2 norm")
    ax.legend(fontsize=8, ncol=5, loc="upper center", bbox_to_anchor=(0.5, 1.2), frameon=False)
    fig.tight_layout()
    return fig


def learning_curve(history: dict):
    """Training loss (left) and held-out MLM accuracy at the kept checkpoints (right)."""
    _style()
    fig, (a, b) = plt.subplots(1, 2, figsize=(9, 3))
    losses = pd.Series(history["losses"])
    a.plot(losses.index + 1, losses.rolling(50, min_periods=1).mean())
    a.set_xlabel("step")
    a.set_ylabel("MLM loss (50-step mean)")
    ev = pd.DataFrame(history["evals"])
    b.plot(ev.step, ev.mlm_acc, marker="o")
    b.set_xscale("log")
    b.set_xlabel("step (log)")
    b.set_ylabel("held-out MLM accuracy")
    fig.tight_layout()
    return fig


def layer_curves(report: pd.DataFrame, subset: str = "all"):
    """Probe accuracy by layer, one panel per target; trained vs baseline models; majority dashed."""
    _style()
    r = report[report.subset == subset]
    targets = list(dict.fromkeys(r.target))
    fig, axes = plt.subplots(1, len(targets), figsize=(3.2 * len(targets), 3), sharey=False, squeeze=False)
    for ax, t in zip(axes[0], targets):
        d = r[r.target == t]
        sns.lineplot(data=d, x="layer", y="accuracy", hue="model", marker="o", ax=ax, legend=ax is axes[0][0])
        ax.axhline(d.majority.iloc[0], ls="--", c="grey", lw=1)
        ax.set_title(t)
        ax.set_xticks(sorted(d.layer.unique()))
    axes[0][0].text(0.02, 0.02, "dashed: per-word majority", transform=axes[0][0].transAxes, fontsize=7, color="grey")
    fig.tight_layout()
    return fig


def accuracy_over_steps(df: pd.DataFrame, group: str, chance: float = 0.5, title: str = ""):
    """Accuracy per group (e.g. number of attractors) at each checkpoint, log-scaled steps."""
    _style()
    fig, ax = plt.subplots(figsize=(6, 3.2))
    sns.lineplot(data=df, x="step", y="accuracy", hue=group, marker="o", ax=ax, palette="viridis")
    ax.axhline(chance, ls="--", c="grey", lw=1, label="chance")
    ax.set_xscale("log")
    ax.set_ylim(0, 1.02)
    ax.set_title(title)
    ax.legend(title=group, fontsize=8)
    fig.tight_layout()
    return fig


def grouped_accuracy(df: pd.DataFrame, x: str, chance: float = 0.5, title: str = "", hue: str | None = None):
    """Bar chart of accuracy per group with binomial error bars and a chance line."""
    _style()
    fig, ax = plt.subplots(figsize=(5, 3))
    if hue is None:
        ax.bar(df[x].astype(str), df.accuracy, yerr=1.96 * df.stderr, capsize=3, color=sns.color_palette()[0])
    else:
        sns.barplot(data=df, x=x, y="accuracy", hue=hue, ax=ax)
    ax.axhline(chance, ls="--", c="grey", lw=1)
    ax.set_ylim(0, 1.05)
    ax.set_xlabel(x)
    ax.set_title(title)
    fig.tight_layout()
    return fig
