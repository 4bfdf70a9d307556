"""Figures of the survey's §7, directions: behavioural tests (CheckList failure rates, HANS).

Notebook: ``survey_07_directions``.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

from bertology_lib.plots.common import finish, style


def failure_rates(summary: pd.DataFrame, iid_error: float | None = None, title: str = ""):
    """CheckList failure rate per test (mean over seeds, bar; pooled 95% Wilson interval, whisker).

    ``summary``: :func:`bertology_lib.experiments.survey.behaviour.summarise_seeds` rows (``test``, ``kind``,
    ``mean``, ``pooled_ci_low``, ``pooled_ci_high``); bars coloured by test kind
    (MFT / INV / DIR). ``iid_error``: the i.i.d. test error, drawn as a dashed line.
    Used by survey §7.
    """
    style()
    d = summary.reset_index(drop=True)
    colours = {"MFT": "tab:blue", "INV": "tab:orange", "DIR": "tab:green"}
    fig, ax = plt.subplots(figsize=(7.5, 0.28 * len(d) + 1.2))
    y = np.arange(len(d))
    ax.barh(y, d["mean"], color=[colours.get(k, "grey") for k in d["kind"]], alpha=0.85)
    ax.errorbar(
        d["mean"],
        y,
        xerr=[(d["mean"] - d["pooled_ci_low"]).clip(lower=0), (d["pooled_ci_high"] - d["mean"]).clip(lower=0)],
        fmt="none",
        ecolor="k",
        lw=1,
        capsize=2,
    )
    if iid_error is not None:
        ax.axvline(iid_error, ls="--", c="grey", lw=1)
        ax.text(iid_error, -0.9, " i.i.d. error", fontsize=7, color="grey", va="bottom")
    ax.set_yticks(y, [f"{k}: {t}" for k, t in zip(d["kind"], d["test"])], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("failure rate")
    return finish(fig, title, ax, fontsize=10)


def hans_accuracy(table: pd.DataFrame, iid: dict[str, float] | None = None, title: str = ""):
    """HANS-style accuracy (entailment vs not) per category, one bar colour per training condition.

    ``table``: rows with ``category``, ``condition``, ``accuracy``, ``ci_low``, ``ci_high``
    (categories in display order, controls last). ``iid``: i.i.d. accuracy per condition,
    drawn as dashed lines. Used by survey §7.
    """
    style()
    cats = list(dict.fromkeys(table["category"]))
    conds = list(dict.fromkeys(table["condition"]))
    fig, ax = plt.subplots(figsize=(max(6.0, 1.0 * len(cats) + 2), 3.4))
    w = 0.8 / len(conds)
    palette = sns.color_palette("deep", len(conds))
    for j, c in enumerate(conds):
        d = table[table["condition"] == c].set_index("category").reindex(cats)
        x = np.arange(len(cats)) + (j - (len(conds) - 1) / 2) * w
        ax.bar(x, d["accuracy"], w, color=palette[j], label=c)
        ax.errorbar(
            x,
            d["accuracy"],
            yerr=[(d["accuracy"] - d["ci_low"]).clip(lower=0), (d["ci_high"] - d["accuracy"]).clip(lower=0)],
            fmt="none",
            ecolor="k",
            lw=1,
            capsize=2,
        )
        if iid and c in iid:
            ax.axhline(iid[c], ls="--", lw=1, color=palette[j])
    ax.set_xticks(np.arange(len(cats)), [c.replace(" ", "\n", 1) for c in cats], fontsize=7)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("accuracy (entailment vs not)")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False)
    return finish(fig, title, ax, fontsize=10)
