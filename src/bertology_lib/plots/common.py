"""Shared pieces of the figures: the house style, finishing a figure, an annotated accuracy heatmap and
mean bars with one dot per seed.

Every plot module builds on these; nothing here draws a whole figure. Like the rest of
:mod:`bertology_lib.plots`, it takes results and returns matplotlib objects and imports nothing
from the rest of the library.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import seaborn as sns
from matplotlib.axes import Axes
from matplotlib.figure import Figure


def style() -> None:
    """The book's seaborn theme (notebook context, white grid); every plot function calls it first."""
    sns.set_theme(context="notebook", style="whitegrid")


def finish(fig: Figure, title: str = "", ax: Axes | None = None, **title_kw) -> Figure:
    """Give ``fig`` its ``title`` if there is one (on ``ax``; without ``ax``, as the figure's suptitle),
    tighten the layout and return the figure."""
    if title:
        (ax.set_title if ax is not None else fig.suptitle)(title, **title_kw)
    fig.tight_layout()
    return fig


def accuracy_heatmap(ax: Axes, table: pd.DataFrame, vmax: float = 1.0, fmt: str = ".2f", **kw) -> None:
    """Annotated 0..``vmax`` heatmap of an accuracy table on ``ax``, its column names as x labels
    (underscores as spaces); ``kw`` goes to :func:`seaborn.heatmap`."""
    sns.heatmap(table.astype(float), annot=True, fmt=fmt, vmin=0, vmax=vmax, cmap="viridis", ax=ax, **kw)
    ax.set_xticklabels([str(c).replace("_", " ") for c in table.columns], rotation=30, ha="right")


def mean_bars_with_seeds(
    ax: Axes, table: pd.DataFrame, group: str, value: str, order: Sequence[str], horizontal: bool = False
) -> None:
    """One pale bar per ``group`` value (in ``order``) at the mean of ``value``, and one black dot per row
    (a seed) over it; ``horizontal`` puts the groups on the y axis."""
    means = table.groupby(group, sort=False)[value].mean().reindex(order)
    colors = sns.color_palette("deep", len(order))
    if horizontal:
        ax.barh(order, means, color=colors, alpha=0.5)
        sns.stripplot(data=table, y=group, x=value, order=order, color="k", size=4, ax=ax)
    else:
        ax.bar(order, means, color=colors, alpha=0.5)
        sns.stripplot(data=table, x=group, y=value, order=order, color="k", size=4, ax=ax)
