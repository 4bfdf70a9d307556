"""Figures of the Physics of Language Models 3.1 part (Allen-Zhu & Li, arXiv 2309.14316): the bioS
data, mixed training and pre-train + fine-tune accuracies, sweeps, P-/Q-probing.

Notebooks: ``physics_01_biographies`` ... ``physics_06_bert``.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

from bertology_lib.plots.common import accuracy_heatmap, finish, panel_grid, style


def majority_baselines(shares: pd.DataFrame, stats: pd.DataFrame):
    """bioS attribute values: share of people per value by rank (left, log-log), and a bar per attribute
    of the majority share, with the uniform share 1 / #values (black tick) and the QA-train majority's
    accuracy on QA-test (dot) beside it (right, log y).

    ``shares``: :func:`bertology_lib.experiments.physics.biographies.value_shares`; ``stats``:
    :func:`bertology_lib.experiments.physics.biographies.attribute_statistics`. Used by physics_01_biographies.
    """
    style()
    attrs = list(stats.index)
    palette = dict(zip(attrs, sns.color_palette("tab10", len(attrs))))
    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 3.6), gridspec_kw={"width_ratios": [1, 1.2]})
    for attr in attrs:
        d = shares[shares.attribute == attr]
        a.plot(d["rank"], d["share"], color=palette[attr], label=attr, lw=1.5)
    a.set_xscale("log")
    a.set_yscale("log")
    a.set_xlabel("value rank (most common first)")
    a.set_ylabel("share of people")
    a.legend(fontsize=7, frameon=False)
    x = range(len(attrs))
    b.bar(x, stats["majority share"], color=[palette[t] for t in attrs], label="majority share (all people)")
    b.scatter(x, stats["uniform share"], marker="_", s=400, color="black", zorder=3, label="uniform 1 / #values")
    held = stats["majority on QA-test"].where(stats["majority on QA-test"] > 0)
    b.scatter(
        x, held, marker="o", s=25, facecolor="white", edgecolor="black", zorder=4, label="QA-train majority, on QA-test"
    )
    for i, v in enumerate(stats["majority share"]):
        b.text(i, v * 1.15, f"{v:.3f}", ha="center", fontsize=7)
    b.set_yscale("log")
    b.set_ylim(top=float(stats["majority share"].max()) * 3)
    b.set_xticks(list(x), attrs, rotation=25, ha="right", fontsize=8)
    b.set_ylabel("accuracy of always guessing it")
    b.legend(fontsize=7, frameon=False, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return finish(fig)


def _paper_marks(ax, shown: list[tuple[float, float]], label: str, size: float):
    """The paper's values as red diamonds at ``shown`` (x, y) on ``ax``, named ``label``; returns the handle."""
    return ax.scatter(
        [x for x, _ in shown],
        [y for _, y in shown],
        marker="D",
        s=size,
        color="#d62728",
        edgecolor="white",
        zorder=4,
        label=label,
    )


def physics_seed_bars(
    df: pd.DataFrame,
    x: str,
    hue: str | None = None,
    attributes=("mean", "mean_without_birth_date"),
    order=None,
    title: str = "",
    paper=None,
    paper_label: str = "paper",
):
    """Mean QA-test accuracy per ``x`` (bars, one colour per ``hue``), each seed a black dot, the majority
    baseline a grey tick; one panel per summary row in ``attributes`` (long table from physics_experiments).
    ``paper``: the paper's value per ``x`` (a mapping), drawn as a red diamond over each group in the first panel
    and named ``paper_label`` in its legend, so ours and the paper's read side by side."""
    style()
    order = list(order) if order is not None else list(dict.fromkeys(df[x]))
    hues = list(dict.fromkeys(df[hue])) if hue else [None]
    fig, axes = panel_grid(len(attributes), 5.2, 3.6, sharey=True)
    width = 0.8 / len(hues)
    palette = sns.color_palette("tab10", len(hues))
    for ax, attr in zip(axes, attributes):
        sub = df[df["attribute"] == attr]
        for j, (h, color) in enumerate(zip(hues, palette)):
            part = sub if h is None else sub[sub[hue] == h]
            label = h  # on the first bar drawn of each hue
            for i, v in enumerate(order):
                cell = part[part[x] == v]
                if cell.empty:
                    continue
                xpos = i - 0.4 + width * (j + 0.5)
                ax.bar(xpos, cell["accuracy"].mean(), width * 0.9, color=color, label=label)
                label = None
                ax.scatter(np.full(len(cell), xpos), cell["accuracy"], color="black", s=12, zorder=3)
                ax.plot([xpos - width * 0.45, xpos + width * 0.45], [cell["majority"].mean()] * 2, color="0.4", lw=2)
        ax.set_xticks(range(len(order)), order, rotation=30, ha="right")
        ax.set_ylim(0, 1.02)
        ax.set_title(attr.replace("_", " "))
    if paper:
        shown = [(i, float(paper[v])) for i, v in enumerate(order) if v in paper]
        marks = _paper_marks(axes[0], shown, paper_label, size=36)
        axes[0].legend(handles=[marks], fontsize=9, frameon=False, loc="upper left")
    for ax in axes[::2]:  # the first panel of each row
        ax.set_ylabel("QA-test accuracy")
    if hue:
        axes[-1].legend(title=hue, fontsize=9, frameon=False)
    return finish(fig, title)


def physics_attribute_heatmap(table: pd.DataFrame, title: str = "", vmax: float = 1.0, fmt: str = ".2f"):
    """Rows (settings) x columns (attributes) of accuracies, annotated."""
    style()
    fig, ax = plt.subplots(figsize=(1.1 * table.shape[1] + 2.5, 0.45 * table.shape[0] + 1.6))
    labels = [" / ".join(map(str, i)) if isinstance(i, tuple) else str(i) for i in table.index]
    accuracy_heatmap(ax, table, vmax, fmt, yticklabels=labels, cbar_kws={"label": "accuracy"})
    ax.set_ylabel("")
    ax.set_xlabel("")
    return finish(fig, title, ax)


def physics_learning_curves(curves: pd.DataFrame, title: str = ""):
    """BIO / QA-train / QA-test accuracy over training steps, one panel per augmentation, one line per seed."""
    style()
    augs = list(dict.fromkeys(curves["augmentation"]))
    fig, axes = panel_grid(len(augs), 5.2, 3.4, sharey=True)
    metrics = {"bio": "BIO (memorised)", "qa_train": "QA-train people", "qa_test": "QA-test people (OOD)"}
    palette = dict(zip(metrics, sns.color_palette("tab10", 3)))
    for ax, a in zip(axes, augs):
        sub = curves[curves["augmentation"] == a]
        for k, (seed, run) in enumerate(sub.groupby("seed")):
            for m, label in metrics.items():
                ax.plot(
                    run["step"],
                    run[m],
                    color=palette[m],
                    marker="o",
                    ms=3,
                    alpha=1.0 if k == 0 else 0.5,
                    ls="-" if k == 0 else "--",
                    label=label if k == 0 else None,
                )
        ax.set_title(a)
        ax.set_xlabel("training step")
        ax.set_ylim(0, 1.02)
    for ax in axes[::2]:
        ax.set_ylabel("accuracy")
    axes[-1].legend(fontsize=9, frameon=False, loc="lower right")
    return finish(fig, title)


def physics_sweep(df: pd.DataFrame, x: str = "n_people", title: str = ""):
    """Mean QA-test accuracy (with and without birth date) against ``x``, majority baseline dashed."""
    style()
    fig, ax = plt.subplots(figsize=(5.6, 3.4))
    for attr, color in zip(("mean", "mean_without_birth_date"), sns.color_palette("tab10", 2)):
        sub = df[df["attribute"] == attr].groupby(x, sort=True)[["accuracy", "majority"]].mean()
        ax.plot(sub.index, sub["accuracy"], marker="o", color=color, label=attr.replace("_", " "))
        ax.plot(sub.index, sub["majority"], ls="--", color=color, alpha=0.6)
    if x == "n_people":
        ax.set_xscale("log")
        ax.set_xlabel("people N (log scale)")
    else:
        ax.set_xlabel(x.replace("_", " "))
    ax.set_ylabel("QA-test accuracy")
    top = float(np.nanmax(df.loc[df["attribute"].isin(["mean", "mean_without_birth_date"]), ["accuracy", "majority"]]))
    ax.set_ylim(0, max(0.1, 1.2 * top))
    ax.legend(fontsize=8, frameon=False)
    return finish(fig, title, ax)


def physics_probe_tables(tables: dict, title: str = ""):
    """P-probing tables side by side: positions (rows) x attributes (columns), best-layer accuracy."""
    style()
    fig, axes = panel_grid(len(tables), 5.2, 4.0)
    for ax, (name, t) in zip(axes, tables.items()):
        accuracy_heatmap(ax, t, cbar=False)
        ax.set_yticklabels(ax.get_yticklabels(), rotation=0)
        ax.set_title(name)
        ax.set_ylabel("probed position")
        ax.set_xlabel("attribute predicted")
    return finish(fig, title)


def physics_probe_curves(tables: dict, title: str = "", paper: dict | None = None, paper_label: str = "paper"):
    """P-probing as the paper draws it: best-layer accuracy (y) at each probed position (x: the name's last token,
    then the token before the 1st ... 6th value in text order), one line per attribute, one panel per model.
    ``paper``: panel name -> {position: the paper's accuracy there}, drawn as red diamonds named ``paper_label``
    in that panel's legend (e.g. a level the paper states in words, so ours and the paper's read side by side)."""
    style()
    fig, axes = panel_grid(len(tables), 5.2, 3.6, sharey=True)
    for ax, (name, t) in zip(axes, tables.items()):
        x = np.arange(len(t.index))
        for col in t.columns:
            ax.plot(x, t[col].to_numpy(dtype=float), marker="o", ms=4, label=str(col))
        ax.set_xticks(x, [str(i) for i in t.index], rotation=30, ha="right")
        ax.set_ylim(0, 1.05)
        ax.set_title(name)
        ax.set_xlabel("probed position")
        marks = (paper or {}).get(name, {})
        shown = [(list(t.index).index(pos), float(v)) for pos, v in marks.items() if pos in list(t.index)]
        if shown:
            handle = _paper_marks(ax, shown, paper_label, size=44)
            ax.legend(handles=[handle], fontsize=8, frameon=False, loc="lower right")
    axes[0].set_ylabel("P-probe accuracy (best layer)")
    axes[0].legend(fontsize=8, frameon=False, title="attribute")
    return finish(fig, title)


def physics_extraction_scatter(m: pd.DataFrame, rho: float | None = None, title: str = ""):
    """Q-probe accuracy (x) against fine-tuned QA-test accuracy (y), one point per (augmentation, seed)."""
    style()
    fig, ax = plt.subplots(figsize=(5.6, 4.2))
    augs = list(dict.fromkeys(m["augmentation"]))
    palette = dict(zip(augs, sns.color_palette("tab10", len(augs))))
    for a in augs:
        sub = m[m["augmentation"] == a]
        ax.scatter(sub["q_probe_accuracy"], sub["qa_accuracy"], color=palette[a], label=a, s=40)
    ax.set_xlabel("Q-probe accuracy (mean over attributes, best layer)")
    ax.set_ylabel("fine-tuned QA-test accuracy (mean)")
    ax.legend(fontsize=8, frameon=False)
    return finish(fig, title or (f"Spearman rho = {rho:.2f}" if rho is not None else ""), ax)
