"""Figures of the survey's §2 (architecture) and §3 (what knowledge BERT has: syntax, semantics,
world knowledge, the limits of probing).

Notebooks: ``survey_02_architecture``, ``survey_03_1_syntax``, ``survey_03_2_semantics``,
``survey_03_3_world_knowledge``, ``survey_03_4_probing_limits`` (and ``survey_04_3_layers`` for
:func:`layer_curves`).
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns

from bertology_lib.plots.common import finish, panel_grid, style


def param_breakdown(breakdowns: dict[str, dict[str, int]]):
    """Stacked horizontal bars: parameters per component for each model size."""
    style()
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
    return finish(fig)


def embedding_norms(norms: pd.DataFrame):
    """Per-position norms of the token, position and segment embeddings and their sum."""
    style()
    fig, ax = plt.subplots(figsize=(9, 3.2))
    sns.lineplot(data=norms, x="position", y="norm", hue="component", marker="o", ax=ax)
    ticks = norms.drop_duplicates("position").sort_values("position")
    ax.set_xticks(ticks["position"], ticks["token"], rotation=60, ha="right", fontsize=8)
    ax.set_xlabel("")
    ax.set_ylabel("L2 norm")
    ax.legend(fontsize=8, ncol=5, loc="upper center", bbox_to_anchor=(0.5, 1.2), frameon=False)
    return finish(fig)


def learning_curve(history: dict):
    """Training loss (left) and held-out MLM accuracy at the kept checkpoints (right)."""
    style()
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
    return finish(fig)


def layer_curves(report: pd.DataFrame, subset: str = "all"):
    """Probe accuracy by layer, one panel per target; trained vs baseline models; majority dashed."""
    style()
    r = report[report.subset == subset]
    targets = list(dict.fromkeys(r.target))
    fig, axes = panel_grid(len(targets), 4.4, 3.2)
    for ax, t in zip(axes, targets):
        d = r[r.target == t]
        sns.lineplot(data=d, x="layer", y="accuracy", hue="model", marker="o", ax=ax, legend=ax is axes[0])
        ax.axhline(d.majority.iloc[0], ls="--", c="grey", lw=1)
        ax.set_title(t)
        ax.set_xticks(sorted(d.layer.unique()))
    axes[0].text(0.02, 0.02, "dashed: per-word majority", transform=axes[0].transAxes, fontsize=9, color="grey")
    return finish(fig)


def accuracy_over_steps(df: pd.DataFrame, group: str, chance: float = 0.5, title: str = ""):
    """Accuracy per group (e.g. number of attractors) at each checkpoint, log-scaled steps."""
    style()
    fig, ax = plt.subplots(figsize=(6, 3.2))
    sns.lineplot(data=df, x="step", y="accuracy", hue=group, marker="o", ax=ax, palette="viridis")
    ax.axhline(chance, ls="--", c="grey", lw=1, label="chance")
    ax.set_xscale("log")
    ax.set_ylim(0, 1.02)
    ax.set_title(title)
    ax.legend(title=group, fontsize=8)
    return finish(fig)


def grouped_accuracy(
    df: pd.DataFrame, x: str, chance: float = 0.5, title: str = "", hue: str | None = None, ylabel: str = "accuracy"
):
    """Bar chart of ``df.accuracy`` per group with binomial error bars and a chance line; ``ylabel`` names what the
    column holds where it is a share of choices rather than an accuracy."""
    style()
    fig, ax = plt.subplots(figsize=(5, 3))
    if hue is None:
        ax.bar(df[x].astype(str), df.accuracy, yerr=1.96 * df.stderr, capsize=3, color=sns.color_palette()[0])
    else:
        sns.barplot(data=df, x=x, y="accuracy", hue=hue, ax=ax)
    ax.axhline(chance, ls="--", c="grey", lw=1)
    ax.set_ylim(0, 1.05)
    ax.set_xlabel(x)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    return finish(fig)


def accuracy_bars(
    df: pd.DataFrame, x: str, hue: str | None = None, chance: float = 0.5, title: str = "", xlabel: str | None = None
):
    """Bars of accuracy per group (optionally split by ``hue``) with 95% intervals and a chance line.

    ``df``: :func:`bertology_lib.experiments.survey.knowledge.suite_accuracy` rows (``accuracy``,
    ``ci_low``, ``ci_high``); groups keep the order they have in ``df``.
    Used by the survey §3.2–§3.3 notebooks.
    """
    style()
    xs = list(dict.fromkeys(df[x].astype(str)))
    hues = [None] if hue is None else list(dict.fromkeys(df[hue].astype(str)))
    width = 0.8 / len(hues)
    fig, ax = plt.subplots(figsize=(min(10.0, max(4.5, 0.9 * len(xs) * max(1, len(hues) * 0.6) + 1.5)), 3.2))
    palette = sns.color_palette("tab10", len(hues))
    for j, (h, color) in enumerate(zip(hues, palette)):
        d = df if h is None else df[df[hue].astype(str) == h]
        d = d.assign(_x=d[x].astype(str)).set_index("_x").reindex(xs)
        pos = [i + (j - (len(hues) - 1) / 2) * width for i in range(len(xs))]
        err = [(d.accuracy - d.ci_low).fillna(0).to_numpy(), (d.ci_high - d.accuracy).fillna(0).to_numpy()]
        ax.bar(
            pos,
            d.accuracy.fillna(0),
            width=width * 0.95,
            yerr=err,
            capsize=3,
            color=color,
            label=h if h is not None else None,
        )
    ax.axhline(chance, ls="--", c="grey", lw=1)
    ax.text(-0.45, chance + 0.02, "chance", ha="left", fontsize=8, color="grey")
    ax.set_xticks(
        range(len(xs)),
        xs,
        rotation=30 if max(len(s) for s in xs) > 8 else 0,
        ha="right" if max(len(s) for s in xs) > 8 else "center",
    )
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("accuracy")
    ax.set_xlabel(x if xlabel is None else xlabel)
    ax.set_title(title)
    if hue is not None:
        ax.legend(title=hue, fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    return finish(fig)


def selectivity_curves(sel: pd.DataFrame, title: str = ""):
    """Left: task (solid) and control-task (dashed) accuracy by layer per probe; right: selectivity."""
    style()
    fig, (a, b) = plt.subplots(1, 2, figsize=(9, 3.2))
    probes = list(dict.fromkeys(sel.probe))
    palette = dict(zip(probes, sns.color_palette("tab10", len(probes))))
    for p in probes:
        d = sel[sel.probe == p].sort_values("layer")
        a.plot(d.layer, d.task_acc, marker="o", color=palette[p], label=f"{p}: task")
        a.plot(d.layer, d.control_acc, marker="s", ls="--", color=palette[p], label=f"{p}: control")
        b.plot(d.layer, d.selectivity, marker="o", color=palette[p], label=p)
    if "majority" in sel:
        a.axhline(sel.majority.iloc[0], ls=":", c="grey", lw=1, label="per-word majority")
    a.set_ylabel("held-out accuracy")
    b.set_ylabel("selectivity (task - control)")
    b.axhline(0, c="grey", lw=0.8)
    for ax in (a, b):
        ax.set_xlabel("layer")
        ax.set_xticks(sorted(sel.layer.unique()))
    a.legend(fontsize=7)
    b.legend(fontsize=7)
    return finish(fig, title)


def codelength_curves(mdl: pd.DataFrame):
    """Online codelength (kbits) by layer, one panel per task, one line per model; dashed: uniform code."""
    style()
    tasks = list(dict.fromkeys(mdl.task))
    fig, axes = panel_grid(len(tasks), 4.4, 3.2, sharey=True)
    for ax, t in zip(axes, tasks):
        d = mdl[mdl.task == t].assign(kbits=lambda x: x.codelength_bits / 1000)
        sns.lineplot(data=d, x="layer", y="kbits", hue="model", marker="o", ax=ax, legend=ax is axes[0])
        ax.axhline(d.uniform_bits.iloc[0] / 1000, ls="--", c="grey", lw=1, label="uniform code")
        ax.set_title(f"task: {t}")
        ax.set_ylabel("online codelength (kbits)")
        ax.set_xticks(sorted(d.layer.unique()))
    axes[0].legend(fontsize=9)
    return finish(fig)


def amnesic_bars(amnesic: pd.DataFrame, property_name: str = "POS"):
    """Amnesic probing: held-out probe accuracy (left) and MLM-accuracy drop (right) per condition.

    Random controls are drawn as individual points over their mean bar.
    """
    style()
    order = [c for c in ("none", "INLP", "random") if c in set(amnesic.condition)]
    labels = {"none": "no projection", "INLP": f"remove {property_name} (INLP)", "random": "remove random"}
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.2))
    for ax, col, ylab in (
        (axes[0], "probe_acc", f"{property_name} probe accuracy (held-out)"),
        (axes[1], "mlm_drop", "MLM accuracy drop"),
    ):
        means = amnesic.groupby("condition")[col].mean().reindex(order)
        ax.bar([labels[c] for c in order], means, color=sns.color_palette("tab10", len(order)), alpha=0.7)
        for i, c in enumerate(order):
            v = amnesic[amnesic.condition == c][col]
            ax.scatter([i] * len(v), v, color="black", s=12, zorder=3)
        ax.set_ylabel(ylab)
        ax.axhline(0, c="grey", lw=0.8)
        ax.tick_params(axis="x", labelsize=8)
    return finish(fig)
