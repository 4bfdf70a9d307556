"""Shared pieces of the figures: the house style, finishing a figure, an annotated accuracy heatmap and
mean bars with one dot per seed.

Every plot module builds on these; nothing here draws a whole figure. Like the rest of
:mod:`bertology_lib.plots`, it takes results and returns matplotlib objects and imports nothing
from the rest of the library.
"""

from __future__ import annotations

from collections.abc import Sequence

import math

import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns
from matplotlib.axes import Axes
from matplotlib.figure import Figure

PANELS_PER_ROW = 2  # the book's text column (about 780 px) fits two panels whose text stays >= 9 pt
MAX_PANEL_WIDTH = 5.2  # inches: two panels and their labels fit the column at the inline backend's 72 dpi
MIN_FONT_PT = 9.0  # the smallest text a figure carries (annotations, legends, ticks)


def style() -> None:
    """The book's seaborn theme (notebook context, white grid); every plot function calls it first."""
    sns.set_theme(context="notebook", style="whitegrid")


def panel_grid(n: int, width: float, height: float, **kw) -> tuple[Figure, list[Axes]]:
    """A figure of ``n`` panels, at most :data:`PANELS_PER_ROW` to a row, each ``width`` x ``height`` inches
    (``width`` capped at :data:`MAX_PANEL_WIDTH`), and its ``n`` axes as a flat list in reading order; the
    unused cell of an odd last row is removed. ``kw`` goes to :func:`matplotlib.pyplot.subplots`."""
    cols = max(1, min(n, PANELS_PER_ROW))
    rows = max(1, math.ceil(n / cols))
    width = min(width, MAX_PANEL_WIDTH)
    fig, axes = plt.subplots(rows, cols, figsize=(width * cols, height * rows), squeeze=False, **kw)
    flat = list(axes.flat)
    for ax in flat[n:]:
        fig.delaxes(ax)
    return fig, flat[:n]


def _legible(fig: Figure) -> None:
    """Raise every text of ``fig`` below :data:`MIN_FONT_PT` (titles, labels, ticks, legends, annotations) to it."""
    from matplotlib.text import Text

    for ax in fig.axes:  # tick labels are made at draw time from the axis' tick settings
        for axis in ("x", "y"):
            ticks = getattr(ax, f"{axis}axis").get_ticklabels()
            if ticks and min(t.get_fontsize() for t in ticks) < MIN_FONT_PT:
                ax.tick_params(axis=axis, labelsize=MIN_FONT_PT)
    for text in fig.findobj(Text):
        if text.get_fontsize() < MIN_FONT_PT:
            text.set_fontsize(MIN_FONT_PT)


def finish(fig: Figure, title: str = "", ax: Axes | None = None, **title_kw) -> Figure:
    """Give ``fig`` its ``title`` if there is one (on ``ax``; without ``ax``, as the figure's suptitle), raise
    any text below :data:`MIN_FONT_PT` to it, tighten the layout and return the figure."""
    if title:
        (ax.set_title if ax is not None else fig.suptitle)(title, **title_kw)
    _legible(fig)
    fig.tight_layout()
    _legible(fig)  # what the layout's draw created
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
