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
