"""Reading a matplotlib figure back in tests: labels, texts and plotted data."""

from __future__ import annotations

import numpy as np


def texts(items) -> list[str]:
    """The strings of tick labels, legend texts or other Text artists."""
    return [t.get_text() for t in items]


def ydata(ax) -> list[list[float]]:
    """y values of the lines that carry data (legend proxies and reference lines have fewer than 2 points
    or are constant), rounded to 6 decimals."""
    return [list(np.round(ln.get_ydata(), 6)) for ln in ax.lines if len(ln.get_ydata()) > 2]
