"""Survey §7 (directions) figures draw what they are given: small synthetic frames shaped like the
notebook's, values and labels checked against them."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import pandas as pd
import pytest

from bertology_lib import plots
from figure_helpers import texts


def test_failure_rates_bars_whiskers_and_iid_line():
    summary = pd.DataFrame(
        {
            "test": ["negation", "typos"],
            "kind": ["MFT", "INV"],
            "mean": [0.6, 0.1],
            "pooled_ci_low": [0.5, 0.05],
            "pooled_ci_high": [0.7, 0.2],
        }
    )
    fig = plots.failure_rates(summary, iid_error=0.15, title="CheckList")
    ax = fig.axes[0]
    assert (ax.get_title(), ax.get_xlabel(), ax.get_xlim()) == ("CheckList", "failure rate", (0, 1))
    assert texts(ax.get_yticklabels()) == ["MFT: negation", "INV: typos"]
    assert [p.get_width() for p in ax.patches] == pytest.approx([0.6, 0.1])
    segs = ax.containers[-1].lines[2][0].get_segments()
    assert [(s[0][0], s[1][0]) for s in segs] == pytest.approx([(0.5, 0.7), (0.05, 0.2)])
    assert tuple(ax.lines[-1].get_xdata()) == (0.15, 0.15) and " i.i.d. error" in texts(ax.texts)


def test_hans_accuracy_bars_per_condition_and_iid_lines():
    table = pd.DataFrame(
        [
            {"category": c, "condition": k, "accuracy": a, "ci_low": a - 0.05, "ci_high": a + 0.05}
            for k, accs in (("plain", (0.2, 0.9)), ("augmented", (0.6, 0.9)))
            for c, a in zip(("lexical overlap", "control"), accs)
        ]
    )
    fig = plots.hans_accuracy(table, iid={"plain": 0.85}, title="HANS")
    ax = fig.axes[0]
    assert (ax.get_title(), ax.get_ylabel()) == ("HANS", "accuracy (entailment vs not)")
    assert texts(ax.get_xticklabels()) == ["lexical\noverlap", "control"]
    assert [p.get_height() for p in ax.patches] == pytest.approx([0.2, 0.9, 0.6, 0.9])
    assert texts(ax.get_legend().get_texts()) == ["plain", "augmented"]
    assert [tuple(ln.get_ydata()) for ln in ax.lines if ln.get_linestyle() == "--"] == [(0.85, 0.85)]
