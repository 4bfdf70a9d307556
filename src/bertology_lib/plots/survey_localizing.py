"""Figures of the survey's §4, localizing linguistic knowledge: embeddings (§4.1), attention heads
(§4.2) and layers (§4.3).

Notebooks: ``survey_04_1_embeddings``, ``survey_04_2_attention_heads``, ``survey_04_3_layers``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.axes import Axes

from bertology_lib.plots.common import PANELS_PER_ROW, finish, panel_grid, style

_GEOMETRY_COLUMNS = {
    "anisotropy": ("anisotropy", "raw"),
    "self_similarity": ("self-similarity", "raw"),
    "self_similarity_adj": ("self-similarity", "corrected"),
    "intra_similarity": ("intra-sentence", "raw"),
    "intra_similarity_adj": ("intra-sentence", "corrected"),
    "mev": ("MEV", "raw"),
    "mev_adj": ("MEV", "corrected"),
}


def embedding_geometry(geometry: pd.DataFrame):
    """Ethayarajh's measures by layer, one panel per measure (two per row), one colour per model; dashed: corrected.

    ``geometry``: :func:`bertology_lib.analysis.embeddings.contextuality` rows with a
    ``model`` column (one frame per model, concatenated). Used by survey §4.1.
    """
    style()
    long = geometry.melt(["model", "layer"], list(_GEOMETRY_COLUMNS), var_name="column")
    long[["measure", "version"]] = long.column.map(_GEOMETRY_COLUMNS).tolist()
    g = sns.relplot(
        data=long,
        x="layer",
        y="value",
        hue="model",
        style="version",
        col="measure",
        col_wrap=PANELS_PER_ROW,  # at most two panels per row at the book's column width
        kind="line",
        marker="o",
        height=2.8,
        aspect=1.3,
        facet_kws={"sharey": False, "sharex": False},
    )
    return g.figure


def sense_clusters(senses: pd.DataFrame, examples: dict[str, tuple]):
    """Left: each ambiguous word's accuracy over the majority sense by layer (one line per word);
    then one panel per example: its occurrences on their first two principal components, coloured by sense.

    ``senses``: :func:`bertology_lib.analysis.embeddings.sense_report` rows with a
    ``model`` column; ``examples``: panel title -> (``xy`` (n, 2) coordinates,
    ``hue`` n sense labels). Used by survey §4.1.
    """
    style()
    fig, axes = panel_grid(1 + len(examples), 4.4, 3.3)
    sns.lineplot(data=senses, x="layer", y="gain", hue="model", units="word", estimator=None, alpha=0.5, ax=axes[0])
    axes[0].axhline(0, c="grey", lw=1, ls="--")
    axes[0].set_ylabel("accuracy - majority")
    axes[0].set_xticks(sorted(senses.layer.unique()))
    for ax, (title, (xy, hue)) in zip(axes[1:], examples.items()):
        xy = np.asarray(xy)
        sns.scatterplot(x=xy[:, 0], y=xy[:, 1], hue=np.asarray(hue), ax=ax, s=18)
        ax.set_title(title, fontsize=9)
    return finish(fig)


def pooling_curves(pooling: pd.DataFrame, chance: float = 0.5):
    """Held-out probe accuracy of [CLS] and mean pooling by layer, one panel per model; star: concatenation.

    ``pooling``: :func:`bertology_lib.analysis.embeddings.pooling_comparison` rows with a
    ``model`` column; rows whose ``pooling`` is neither ``cls`` nor ``mean`` are
    drawn as black stars. Used by survey §4.1.
    """
    style()
    groups = list(pooling.groupby("model", sort=False))
    fig, axes = panel_grid(len(groups), 5, 3.2)
    for ax, (name, d) in zip(axes, groups):
        sns.lineplot(data=d[d.pooling.isin(["cls", "mean"])], x="layer", y="test_acc", hue="pooling", marker="o", ax=ax)
        cat = d[~d.pooling.isin(["cls", "mean"])]
        if len(cat):
            ax.scatter(cat.layer, cat.test_acc, marker="*", s=150, c="black", label=cat.pooling.iloc[0], zorder=3)
        ax.axhline(chance, ls="--", c="grey", lw=1)
        ax.set_title(name)
        ax.set_xticks(sorted(d.layer.unique()))
        ax.set_ylabel("held-out accuracy")
        ax.legend(fontsize=8)
    return finish(fig)


_ATTENTION_TARGETS = {
    "cls": "[CLS]",
    "sep": "[SEP]",
    "punct": "punctuation",
    "self": "self",
    "prev": "previous",
    "next": "next",
}


def attention_targets(stats: pd.DataFrame, paper: Mapping[str, Any] | None = None):
    """Each head's mean attention to [CLS], [SEP], punctuation, itself and its neighbours, by layer
    (one dot per head, one panel per model).

    ``stats``: :func:`bertology_lib.analysis.attention.head_stats` rows with a
    ``model`` column. ``paper``: a paper's statement to draw beside ours, e.g.
    :data:`bertology_lib.analysis.attention.CLARK_2019_SEP` (``layers`` (first, last) of ``of`` layers, 1-based,
    at least ``level`` on ``target``): each panel shades its layers at the same relative depth (a layer's centre
    within the paper's span) and draws the level there, labelled with the ``source``. Used by survey §4.2.
    """
    style()
    long = stats.melt(["model", "layer", "head"], list(_ATTENTION_TARGETS), var_name="to", value_name="attention")
    long["to"] = long["to"].map(_ATTENTION_TARGETS)
    g = sns.catplot(
        data=long,
        x="layer",
        y="attention",
        hue="to",
        col="model",
        col_wrap=PANELS_PER_ROW,
        kind="strip",
        dodge=True,
        s=4,
        height=3,
        aspect=1.6,
        sharex=False,
    )
    if paper is not None:
        for ax in g.axes.flat:
            _paper_span(ax, len(ax.get_xticks()), paper)
    return g.figure


def _paper_span(ax: Axes, n_layers: int, paper: Mapping[str, Any]) -> None:
    """Shade the layers of an ``n_layers`` model at the relative depth of the paper's 1-based ``layers`` of
    ``of`` and draw its ``level`` over them (nothing when no layer's centre falls in the span)."""
    first, last = paper["layers"]
    lo, hi = (first - 1) / paper["of"], last / paper["of"]
    inside = [L for L in range(n_layers) if lo - 1e-9 <= (L + 0.5) / n_layers <= hi + 1e-9]
    if not inside:
        return
    a, b = inside[0] - 0.5, inside[-1] + 0.5
    ax.axvspan(a, b, color="0.85", alpha=0.5, zorder=0)
    line = ax.hlines(paper["level"], a, b, colors="k", linestyles="--", lw=1.2)
    label = f"{paper['source']}: {paper['target']} > {paper['level']:g} in layers {first}–{last} of {paper['of']}"
    ax.legend([line], [label], loc="upper left", fontsize=8, frameon=False)


def attention_entropy(stats: pd.DataFrame):
    """Entropy of each head's attention rows by layer, one panel per model; dashed: uniform attention.

    ``stats``: :func:`bertology_lib.analysis.attention.head_stats` rows (``entropy``,
    ``uniform_entropy``) with a ``model`` column. Used by survey §4.2.
    """
    style()
    groups = list(stats.groupby("model", sort=False))
    fig, axes = panel_grid(len(groups), 5, 3)
    for ax, (name, d) in zip(axes, groups):
        sns.stripplot(data=d, x="layer", y="entropy", ax=ax, color="C0", size=4)
        ax.plot(range(d.layer.nunique()), d.groupby("layer").uniform_entropy.first(), "k--", lw=1, label="uniform")
        ax.set_title(name)
        ax.set_ylabel("attention entropy (nats)")
        ax.set_ylim(bottom=0)
        ax.legend(fontsize=8)
    return finish(fig)


def attention_type_shares(shares: pd.DataFrame):
    """Stacked bars: share of attention maps of each pattern type per layer, one panel per model.

    ``shares``: rows indexed by (``model``, layer), one column per type, e.g.
    :func:`bertology_lib.analysis.attention.type_shares` frames concatenated with
    ``names=["model"]``. Used by survey §4.2.
    """
    style()
    groups = list(shares.groupby(level="model", sort=False))
    fig, axes = panel_grid(len(groups), 5.2, 3.2)
    for ax, (name, d) in zip(axes, groups):
        d.droplevel("model").plot.bar(
            stacked=True,
            ax=ax,
            width=0.8,
            legend=ax is axes[-1],
            rot=0,
            color=sns.color_palette("Set2", max(5, shares.shape[1])),
        )
        ax.set_title(name)
        ax.set_ylabel("share of maps")
    axes[-1].legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False)
    return finish(fig)


def attention_examples(examples: pd.DataFrame, weights):
    """One attention map per row of ``examples`` (rows: queries, columns: keys), titled by its type.

    ``examples``: :func:`bertology_lib.analysis.attention.typical_maps` rows (``type``,
    ``layer``, ``head``, ``sentence``); ``weights[layer][sentence]``: (heads, T, T)
    attention weights (:class:`bertology_lib.analysis.attention.AttentionMaps`). Used by survey §4.2.
    """
    style()
    fig, axes = panel_grid(len(examples), 3.2, 3.0)
    for ax, r in zip(axes, examples.itertuples()):
        ax.imshow(weights[r.layer][r.sentence][r.head], cmap="viridis")
        ax.set_title(f"{r.type}\nlayer {r.layer}, head {r.head}", fontsize=9)
        ax.set_xticks([])
        ax.set_yticks([])
    return finish(fig)


def syntactic_heads(syntax: pd.DataFrame, head_matrix: pd.DataFrame, title: str = "", n_relations: int = 10):
    """Best single head vs best fixed offset per relation (one bar panel per model), and a heatmap of every
    head's accuracy for one relation (right).

    ``syntax``: :func:`bertology_lib.analysis.attention.syntactic_heads` rows indexed by
    ``model`` (``relation``, ``accuracy``, ``baseline_accuracy``); the first
    ``n_relations`` of each model are drawn. ``head_matrix``: (layers x heads)
    :func:`bertology_lib.analysis.attention.relation_head_matrix`. Used by survey §4.2.
    """
    style()
    groups = list(syntax.groupby(level="model", sort=False))
    fig, axes = panel_grid(len(groups) + 1, 5.2, 3.8)
    for ax, (name, d) in zip(axes, groups):
        d.head(n_relations).set_index("relation")[["accuracy", "baseline_accuracy"]].plot.barh(
            ax=ax, legend=ax is axes[0]
        )
        ax.invert_yaxis()
        ax.set_title(name)
        ax.set_xlabel("held-out accuracy")
    sns.heatmap(head_matrix, ax=axes[-1], cmap="viridis", vmin=0, vmax=1)
    axes[-1].set_title(title, fontsize=9)
    return finish(fig)


def attention_norms(focus: pd.DataFrame, roles: pd.DataFrame, title: str = ""):
    """Left: share of attention on [CLS] + [SEP] by layer, by weight and by norm, per model; right: the mean
    norm of the transformed value vectors per token role and layer (one model).

    ``focus``: :func:`bertology_lib.analysis.attention.special_focus` rows with a ``model``
    column; ``roles``: :func:`bertology_lib.analysis.attention.value_norms_by_role` rows of
    the model to show. Used by survey §4.2.
    """
    style()
    fig, axes = plt.subplots(1, 2, figsize=(10.4, 3.6))
    fl = focus.melt(["model", "layer"], ["weight_share", "norm_share"], var_name="measure", value_name="share")
    sns.lineplot(data=fl, x="layer", y="share", hue="model", style="measure", marker="o", ax=axes[0])
    axes[0].set_ylabel("attention on [CLS] + [SEP]")
    axes[0].set_xticks(sorted(focus.layer.unique()))
    axes[0].legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False)
    sns.barplot(data=roles, x="layer", y="value_norm", hue="token", ax=axes[1])
    axes[1].set_ylabel("mean ‖f(x)‖")
    axes[1].set_title(title, fontsize=10)
    axes[1].legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False)
    return finish(fig)


def expected_layers(cog: pd.DataFrame, labels: dict[str, str] | None = None):
    """The expected layer of each probing target, one colour per data set (Tenney et al.'s summary).

    ``cog``: :func:`bertology_lib.analysis.embeddings.centre_of_gravity` rows with a
    ``data`` column; ``labels`` maps each ``data`` value to its legend label. Used by survey §4.3.
    """
    style()
    fig, ax = plt.subplots(figsize=(7, 3))
    d = cog.assign(model=cog.data.map(labels) if labels is not None else cog.data)
    d = d.sort_values("expected_layer")
    sns.scatterplot(data=d, x="expected_layer", y="target", hue="model", s=70, ax=ax)
    ax.set_xlabel("expected layer (Tenney et al.)")
    ax.set_ylabel("")
    return finish(fig)


def structural_probe_curves(
    structural: pd.DataFrame, right_branching: dict[str, float], names: dict[str, str] | None = None
):
    """Held-out UUAS of the distance probe (left) and root accuracy of the depth probe (right) by layer,
    one row per data set, one line per model; dashed: the right-branching baseline's UUAS.

    ``structural``: :func:`bertology_lib.analysis.structural_probe.probe_report` rows with a ``data``
    column; ``right_branching``: data -> baseline UUAS (its keys set the row order);
    ``names``: data -> the name in the panel titles. Used by survey §4.3.
    """
    style()
    keys = list(right_branching)
    names = names or {}
    fig, axes = plt.subplots(len(keys), 2, figsize=(10, 3 * len(keys)), squeeze=False)
    for row, key in zip(axes, keys):
        for ax, (probe, metric) in zip(row, [("distance", "uuas"), ("depth", "root_acc")]):
            d = structural[(structural.data == key) & (structural.probe == probe)]
            sns.lineplot(data=d, x="layer", y=metric, hue="model", marker="o", ax=ax)
            if metric == "uuas":
                ax.axhline(right_branching[key], ls="--", c="grey", lw=1, label="right-branching")
            ax.set_title(f"{names.get(key, key)}: {probe} probe", fontsize=10)
            ax.set_xticks(sorted(d.layer.unique()))
            ax.legend(fontsize=7)
    return finish(fig)


def rank_sweep(sweep: pd.DataFrame, baseline: float | None = None):
    """Held-out UUAS of the distance probe by probe rank (log2 scale), one line per layer; dashed: ``baseline``.

    ``sweep``: :func:`bertology_lib.analysis.structural_probe.probe_report` rows (``rank``, ``layer``,
    ``uuas``) of one model. Used by survey §4.3.
    """
    style()
    fig, ax = plt.subplots(figsize=(6, 3.2))
    sns.lineplot(data=sweep, x="rank", y="uuas", hue="layer", marker="o", palette="viridis", ax=ax)
    if baseline is not None:
        ax.axhline(baseline, ls="--", c="grey", lw=1)
    ax.set_xscale("log", base=2)
    ax.set_ylabel("held-out UUAS")
    ax.legend(title="layer", fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False)
    return finish(fig)
