"""Figures: pure functions, results in, matplotlib Figure out.

Notebooks call these and add a caption that says what to see.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
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


def selectivity_curves(sel: pd.DataFrame, title: str = ""):
    """Left: task (solid) and control-task (dashed) accuracy by layer per probe; right: selectivity."""
    _style()
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
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


def codelength_curves(mdl: pd.DataFrame):
    """Online codelength (kbits) by layer, one panel per task, one line per model; dashed: uniform code."""
    _style()
    tasks = list(dict.fromkeys(mdl.task))
    fig, axes = plt.subplots(1, len(tasks), figsize=(4.2 * len(tasks), 3.2), sharey=True, squeeze=False)
    for ax, t in zip(axes[0], tasks):
        d = mdl[mdl.task == t].assign(kbits=lambda x: x.codelength_bits / 1000)
        sns.lineplot(data=d, x="layer", y="kbits", hue="model", marker="o", ax=ax, legend=ax is axes[0][0])
        ax.axhline(d.uniform_bits.iloc[0] / 1000, ls="--", c="grey", lw=1, label="uniform code")
        ax.set_title(f"task: {t}")
        ax.set_ylabel("online codelength (kbits)")
        ax.set_xticks(sorted(d.layer.unique()))
    axes[0][0].legend(fontsize=8)
    fig.tight_layout()
    return fig


def amnesic_bars(amnesic: pd.DataFrame, property_name: str = "POS"):
    """Amnesic probing: held-out probe accuracy (left) and MLM-accuracy drop (right) per condition.

    Random controls are drawn as individual points over their mean bar.
    """
    _style()
    order = [c for c in ("none", "INLP", "random") if c in set(amnesic.condition)]
    labels = {"none": "no projection", "INLP": f"remove {property_name} (INLP)", "random": "remove random"}
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.2))
    for ax, col, ylab in ((axes[0], "probe_acc", f"{property_name} probe accuracy (held-out)"),
                          (axes[1], "mlm_drop", "MLM accuracy drop")):
        means = amnesic.groupby("condition")[col].mean().reindex(order)
        ax.bar([labels[c] for c in order], means, color=sns.color_palette("tab10", len(order)), alpha=0.7)
        for i, c in enumerate(order):
            v = amnesic[amnesic.condition == c][col]
            ax.scatter([i] * len(v), v, color="black", s=12, zorder=3)
        ax.set_ylabel(ylab)
        ax.axhline(0, c="grey", lw=0.8)
        ax.tick_params(axis="x", labelsize=8)
    fig.tight_layout()
    return fig


def reconstruction_curves(df: pd.DataFrame, chance: float, title: str = ""):
    """Per-layer reconstruction of the input through the MLM head, one line per model variant."""
    _style()
    fig, ax = plt.subplots(figsize=(6.5, 3.2))
    sns.lineplot(data=df, x="layer", y="reconstruction", hue="variant", marker="o", ax=ax)
    ax.axhline(chance, ls="--", c="grey", lw=1)
    ax.text(0, chance + 0.02, "chance (1 / vocabulary)", fontsize=7, color="grey")
    ax.set_ylim(0, 1.02)
    ax.set_ylabel("input tokens recovered")
    ax.set_title(title)
    fig.tight_layout()
    return fig


def similarity_heatmap(M, title: str = "linear CKA between layers"):
    """Heatmap of a (L, L) similarity matrix (layer 0 = embeddings)."""
    _style()
    fig, ax = plt.subplots(figsize=(4.2, 3.6))
    sns.heatmap(pd.DataFrame(M.numpy() if hasattr(M, "numpy") else M), vmin=0, vmax=1, cmap="viridis",
                annot=len(M) <= 8, fmt=".2f", ax=ax, square=True)
    ax.set_xlabel("layer")
    ax.set_ylabel("layer")
    ax.set_title(title)
    fig.tight_layout()
    return fig


def accuracy_bars(df: pd.DataFrame, x: str, hue: str | None = None, chance: float = 0.5, title: str = "",
                  xlabel: str | None = None):
    """Bars of accuracy per group (optionally split by ``hue``) with 95% intervals and a chance line.

    ``df``: :func:`bertology_lib.experiments.survey.knowledge.suite_accuracy` rows (``accuracy``,
    ``ci_low``, ``ci_high``); groups keep the order they have in ``df``.
    Used by the survey §3.2–§3.3 notebooks.
    """
    _style()
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
        ax.bar(pos, d.accuracy.fillna(0), width=width * 0.95, yerr=err, capsize=3, color=color,
               label=h if h is not None else None)
    ax.axhline(chance, ls="--", c="grey", lw=1)
    ax.text(-0.45, chance + 0.02, "chance", ha="left", fontsize=8, color="grey")
    ax.set_xticks(range(len(xs)), xs, rotation=30 if max(len(s) for s in xs) > 8 else 0,
                  ha="right" if max(len(s) for s in xs) > 8 else "center")
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("accuracy")
    ax.set_xlabel(x if xlabel is None else xlabel)
    ax.set_title(title)
    if hue is not None:
        ax.legend(title=hue, fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    fig.tight_layout()
    return fig


def majority_baselines(shares: pd.DataFrame, stats: pd.DataFrame):
    """bioS attribute values: share of people per value by rank (left, log-log), and a bar per attribute
    of the majority share, with the uniform share 1 / #values (black tick) and the QA-train majority's
    accuracy on QA-test (dot) beside it (right, log y).

    ``shares``: :func:`bertology_lib.experiments.physics.biographies.value_shares`; ``stats``:
    :func:`bertology_lib.experiments.physics.biographies.attribute_statistics`. Used by physics_01_biographies.
    """
    _style()
    attrs = list(stats.index)
    palette = dict(zip(attrs, sns.color_palette("tab10", len(attrs))))
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 3.6), gridspec_kw={"width_ratios": [1, 1.2]})
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
    b.scatter(x, held, marker="o", s=25, facecolor="white", edgecolor="black", zorder=4,
              label="QA-train majority, on QA-test")
    for i, v in enumerate(stats["majority share"]):
        b.text(i, v * 1.15, f"{v:.3f}", ha="center", fontsize=7)
    b.set_yscale("log")
    b.set_ylim(top=float(stats["majority share"].max()) * 3)
    b.set_xticks(list(x), attrs, rotation=25, ha="right", fontsize=8)
    b.set_ylabel("accuracy of always guessing it")
    b.legend(fontsize=7, frameon=False, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.tight_layout()
    return fig


# -- survey §4: embeddings, attention heads, layers ---------------------------------------------------
_GEOMETRY_COLUMNS = {
    "anisotropy": ("anisotropy", "raw"), "self_similarity": ("self-similarity", "raw"),
    "self_similarity_adj": ("self-similarity", "corrected"), "intra_similarity": ("intra-sentence", "raw"),
    "intra_similarity_adj": ("intra-sentence", "corrected"), "mev": ("MEV", "raw"), "mev_adj": ("MEV", "corrected"),
}


def embedding_geometry(geometry: pd.DataFrame):
    """Ethayarajh's measures by layer, one panel per measure, one colour per model; dashed: corrected.

    ``geometry``: :func:`bertology_lib.analysis.embeddings.contextuality` rows with a
    ``model`` column (one frame per model, concatenated). Used by survey §4.1.
    """
    _style()
    long = geometry.melt(["model", "layer"], list(_GEOMETRY_COLUMNS), var_name="column")
    long[["measure", "version"]] = long.column.map(_GEOMETRY_COLUMNS).tolist()
    g = sns.relplot(data=long, x="layer", y="value", hue="model", style="version", col="measure", kind="line",
                    marker="o", height=2.6, aspect=1.05, facet_kws={"sharey": False, "sharex": False})
    return g.figure


def sense_clusters(senses: pd.DataFrame, examples: dict[str, tuple]):
    """Left: each ambiguous word's accuracy over the majority sense by layer (one line per word);
    then one panel per example: its occurrences on their first two principal components, coloured by sense.

    ``senses``: :func:`bertology_lib.analysis.embeddings.sense_report` rows with a
    ``model`` column; ``examples``: panel title -> (``xy`` (n, 2) coordinates,
    ``hue`` n sense labels). Used by survey §4.1.
    """
    _style()
    fig, axes = plt.subplots(1, 1 + len(examples), figsize=(4 * (1 + len(examples)), 3.3))
    axes = list(np.atleast_1d(axes))
    sns.lineplot(data=senses, x="layer", y="gain", hue="model", units="word", estimator=None, alpha=0.5, ax=axes[0])
    axes[0].axhline(0, c="grey", lw=1, ls="--")
    axes[0].set_ylabel("accuracy - majority")
    axes[0].set_xticks(sorted(senses.layer.unique()))
    for ax, (title, (xy, hue)) in zip(axes[1:], examples.items()):
        xy = np.asarray(xy)
        sns.scatterplot(x=xy[:, 0], y=xy[:, 1], hue=np.asarray(hue), ax=ax, s=18)
        ax.set_title(title, fontsize=9)
    fig.tight_layout()
    return fig


def pooling_curves(pooling: pd.DataFrame, chance: float = 0.5):
    """Held-out probe accuracy of [CLS] and mean pooling by layer, one panel per model; star: concatenation.

    ``pooling``: :func:`bertology_lib.analysis.embeddings.pooling_comparison` rows with a
    ``model`` column; rows whose ``pooling`` is neither ``cls`` nor ``mean`` are
    drawn as black stars. Used by survey §4.1.
    """
    _style()
    groups = list(pooling.groupby("model", sort=False))
    fig, axes = plt.subplots(1, len(groups), figsize=(5 * len(groups), 3.2), squeeze=False)
    for ax, (name, d) in zip(axes[0], groups):
        sns.lineplot(data=d[d.pooling.isin(["cls", "mean"])], x="layer", y="test_acc", hue="pooling", marker="o", ax=ax)
        cat = d[~d.pooling.isin(["cls", "mean"])]
        if len(cat):
            ax.scatter(cat.layer, cat.test_acc, marker="*", s=150, c="black", label=cat.pooling.iloc[0], zorder=3)
        ax.axhline(chance, ls="--", c="grey", lw=1)
        ax.set_title(name)
        ax.set_xticks(sorted(d.layer.unique()))
        ax.set_ylabel("held-out accuracy")
        ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


_ATTENTION_TARGETS = {"cls": "[CLS]", "sep": "[SEP]", "punct": "punctuation", "self": "self", "prev": "previous",
                      "next": "next"}


def attention_targets(stats: pd.DataFrame):
    """Each head's mean attention to [CLS], [SEP], punctuation, itself and its neighbours, by layer
    (one dot per head, one panel per model).

    ``stats``: :func:`bertology_lib.analysis.attention.head_stats` rows with a
    ``model`` column. Used by survey §4.2.
    """
    _style()
    long = stats.melt(["model", "layer", "head"], list(_ATTENTION_TARGETS), var_name="to", value_name="attention")
    long["to"] = long["to"].map(_ATTENTION_TARGETS)
    g = sns.catplot(data=long, x="layer", y="attention", hue="to", col="model", kind="strip", dodge=True, s=4,
                    height=3, aspect=1.6, sharex=False)
    return g.figure


def attention_entropy(stats: pd.DataFrame):
    """Entropy of each head's attention rows by layer, one panel per model; dashed: uniform attention.

    ``stats``: :func:`bertology_lib.analysis.attention.head_stats` rows (``entropy``,
    ``uniform_entropy``) with a ``model`` column. Used by survey §4.2.
    """
    _style()
    groups = list(stats.groupby("model", sort=False))
    fig, axes = plt.subplots(1, len(groups), figsize=(5 * len(groups), 3), sharey=False, squeeze=False)
    for ax, (name, d) in zip(axes[0], groups):
        sns.stripplot(data=d, x="layer", y="entropy", ax=ax, color="C0", size=4)
        ax.plot(range(d.layer.nunique()), d.groupby("layer").uniform_entropy.first(), "k--", lw=1, label="uniform")
        ax.set_title(name)
        ax.set_ylabel("attention entropy (nats)")
        ax.set_ylim(bottom=0)
        ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def attention_type_shares(shares: pd.DataFrame):
    """Stacked bars: share of attention maps of each pattern type per layer, one panel per model.

    ``shares``: rows indexed by (``model``, layer), one column per type, e.g.
    :func:`bertology_lib.analysis.attention.type_shares` frames concatenated with
    ``names=["model"]``. Used by survey §4.2.
    """
    _style()
    groups = list(shares.groupby(level="model", sort=False))
    fig, axes = plt.subplots(1, len(groups), figsize=(5.5 * len(groups), 3.2), squeeze=False)
    axes = list(axes[0])
    for ax, (name, d) in zip(axes, groups):
        d.droplevel("model").plot.bar(stacked=True, ax=ax, width=0.8, legend=ax is axes[-1], rot=0,
                                      color=sns.color_palette("Set2", max(5, shares.shape[1])))
        ax.set_title(name)
        ax.set_ylabel("share of maps")
    axes[-1].legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False)
    fig.tight_layout()
    return fig


def attention_examples(examples: pd.DataFrame, weights):
    """One attention map per row of ``examples`` (rows: queries, columns: keys), titled by its type.

    ``examples``: :func:`bertology_lib.analysis.attention.typical_maps` rows (``type``,
    ``layer``, ``head``, ``sentence``); ``weights[layer][sentence]``: (heads, T, T)
    attention weights (:class:`bertology_lib.analysis.attention.AttentionMaps`). Used by survey §4.2.
    """
    _style()
    fig, axes = plt.subplots(1, len(examples), figsize=(2.6 * len(examples), 2.8), squeeze=False)
    for ax, r in zip(axes[0], examples.itertuples()):
        ax.imshow(weights[r.layer][r.sentence][r.head], cmap="viridis")
        ax.set_title(f"{r.type}\nlayer {r.layer}, head {r.head}", fontsize=9)
        ax.set_xticks([])
        ax.set_yticks([])
    fig.tight_layout()
    return fig


def syntactic_heads(syntax: pd.DataFrame, head_matrix: pd.DataFrame, title: str = "", n_relations: int = 10):
    """Best single head vs best fixed offset per relation (one bar panel per model), and a heatmap of every
    head's accuracy for one relation (right).

    ``syntax``: :func:`bertology_lib.analysis.attention.syntactic_heads` rows indexed by
    ``model`` (``relation``, ``accuracy``, ``baseline_accuracy``); the first
    ``n_relations`` of each model are drawn. ``head_matrix``: (layers x heads)
    :func:`bertology_lib.analysis.attention.relation_head_matrix`. Used by survey §4.2.
    """
    _style()
    groups = list(syntax.groupby(level="model", sort=False))
    fig, axes = plt.subplots(1, len(groups) + 1, figsize=(13 / 2.8 * (len(groups) + 0.8), 3.6),
                             gridspec_kw={"width_ratios": [1] * len(groups) + [0.8]})
    for ax, (name, d) in zip(axes, groups):
        d.head(n_relations).set_index("relation")[["accuracy", "baseline_accuracy"]].plot.barh(
            ax=ax, legend=ax is axes[0])
        ax.invert_yaxis()
        ax.set_title(name)
        ax.set_xlabel("held-out accuracy")
    sns.heatmap(head_matrix, ax=axes[-1], cmap="viridis", vmin=0, vmax=1)
    axes[-1].set_title(title, fontsize=9)
    fig.tight_layout()
    return fig


def attention_norms(focus: pd.DataFrame, roles: pd.DataFrame, title: str = ""):
    """Left: share of attention on [CLS] + [SEP] by layer, by weight and by norm, per model; right: the mean
    norm of the transformed value vectors per token role and layer (one model).

    ``focus``: :func:`bertology_lib.analysis.attention.special_focus` rows with a ``model``
    column; ``roles``: :func:`bertology_lib.analysis.attention.value_norms_by_role` rows of
    the model to show. Used by survey §4.2.
    """
    _style()
    fig, axes = plt.subplots(1, 2, figsize=(12, 3.3))
    fl = focus.melt(["model", "layer"], ["weight_share", "norm_share"], var_name="measure", value_name="share")
    sns.lineplot(data=fl, x="layer", y="share", hue="model", style="measure", marker="o", ax=axes[0])
    axes[0].set_ylabel("attention on [CLS] + [SEP]")
    axes[0].set_xticks(sorted(focus.layer.unique()))
    axes[0].legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False)
    sns.barplot(data=roles, x="layer", y="value_norm", hue="token", ax=axes[1])
    axes[1].set_ylabel("mean ‖f(x)‖")
    axes[1].set_title(title, fontsize=10)
    axes[1].legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False)
    fig.tight_layout()
    return fig


def expected_layers(cog: pd.DataFrame, labels: dict[str, str] | None = None):
    """The expected layer of each probing target, one colour per data set (Tenney et al.'s summary).

    ``cog``: :func:`bertology_lib.analysis.embeddings.centre_of_gravity` rows with a
    ``data`` column; ``labels`` maps each ``data`` value to its legend label. Used by survey §4.3.
    """
    _style()
    fig, ax = plt.subplots(figsize=(7, 3))
    d = cog.assign(model=cog.data.map(labels) if labels is not None else cog.data)
    d = d.sort_values("expected_layer")
    sns.scatterplot(data=d, x="expected_layer", y="target", hue="model", s=70, ax=ax)
    ax.set_xlabel("expected layer (Tenney et al.)")
    ax.set_ylabel("")
    fig.tight_layout()
    return fig


def structural_probe_curves(structural: pd.DataFrame, right_branching: dict[str, float],
                            names: dict[str, str] | None = None):
    """Held-out UUAS of the distance probe (left) and root accuracy of the depth probe (right) by layer,
    one row per data set, one line per model; dashed: the right-branching baseline's UUAS.

    ``structural``: :func:`bertology_lib.analysis.structural_probe.probe_report` rows with a ``data``
    column; ``right_branching``: data -> baseline UUAS (its keys set the row order);
    ``names``: data -> the name in the panel titles. Used by survey §4.3.
    """
    _style()
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
    fig.tight_layout()
    return fig


def rank_sweep(sweep: pd.DataFrame, baseline: float | None = None):
    """Held-out UUAS of the distance probe by probe rank (log2 scale), one line per layer; dashed: ``baseline``.

    ``sweep``: :func:`bertology_lib.analysis.structural_probe.probe_report` rows (``rank``, ``layer``,
    ``uuas``) of one model. Used by survey §4.3.
    """
    _style()
    fig, ax = plt.subplots(figsize=(6, 3.2))
    sns.lineplot(data=sweep, x="rank", y="uuas", hue="layer", marker="o", palette="viridis", ax=ax)
    if baseline is not None:
        ax.axhline(baseline, ls="--", c="grey", lw=1)
    ax.set_xscale("log", base=2)
    ax.set_ylabel("held-out UUAS")
    ax.legend(title="layer", fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False)
    fig.tight_layout()
    return fig


# -- survey §6: how big should BERT be (model size and compression) ---------------------------------


def head_pruning_curves(curves: pd.DataFrame, full_score: float | None = None, title: str = ""):
    """Test score vs share of heads removed, mean ± std over seeds, one line per order (importance, random).

    ``curves``: rows of :func:`bertology_lib.interventions.heads.pruning_curve` with a ``seed`` column. Used by survey §6.
    """
    _style()
    fig, ax = plt.subplots(figsize=(6, 3.4))
    sns.lineplot(data=curves, x="share", y="score", hue="order", marker="o", errorbar="sd", ax=ax)
    if full_score is not None:
        ax.axhline(full_score - 0.01, ls=":", c="grey", lw=1, label="1 point below unpruned")
    ax.axvline(0.4, ls="--", c="grey", lw=0.8)
    ax.set_xlabel("share of heads removed")
    ax.set_ylabel("test accuracy")
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def head_ablation_maps(ablation: pd.DataFrame, split: str = "test"):
    """Two heatmaps (layer x head) of the mean change in score: that head removed; only that head kept in its layer.

    ``ablation``: :func:`bertology_lib.interventions.heads.single_head_ablation` rows with a ``seed`` column. Used by survey §6.
    """
    _style()
    d = ablation.assign(removed=ablation[f"{split}_removed"] - ablation[f"{split}_full"],
                        only=ablation[f"{split}_only"] - ablation[f"{split}_full"])
    fig, axes = plt.subplots(1, 2, figsize=(9, 0.5 * d.layer.nunique() + 1.8))
    for ax, col, name in zip(axes, ("removed", "only"), ("this head removed", "only this head kept in its layer")):
        m = d.pivot_table(index="layer", columns="head", values=col, aggfunc="mean") * 100
        lim = max(1.0, float(np.nanmax(np.abs(m.values))))
        sns.heatmap(m, ax=ax, cmap="RdBu", center=0, vmin=-lim, vmax=lim, annot=True, fmt=".1f",
                    annot_kws={"fontsize": 7}, cbar_kws={"label": "Δ accuracy (points)"})
        ax.set_title(name, fontsize=10)
    fig.tight_layout()
    return fig


def compression_curves(sparsity: pd.DataFrame, layers: pd.DataFrame):
    """Left: accuracy vs unstructured sparsity (mean ± std over seeds); right: accuracy with blocks dropped.

    ``sparsity``: :func:`bertology_lib.experiments.survey.model_size.sparsity_curve` rows with ``seed``;
    ``layers``: :func:`bertology_lib.experiments.survey.model_size.layer_drop_table` rows with ``seed``. Used by survey §6.
    """
    _style()
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.4))
    sns.lineplot(data=sparsity, x="sparsity", y="accuracy", marker="o", errorbar="sd", ax=axes[0])
    axes[0].set_xlabel("share of block weights pruned (global magnitude)")
    axes[0].set_ylabel("test accuracy")
    d = layers[layers.kind != "full"]
    sns.pointplot(data=d, x="variant", y="accuracy", hue="kind", errorbar="sd", linestyle="none", ax=axes[1])
    full = layers[layers.kind == "full"].accuracy.mean()
    axes[1].axhline(full, ls="--", c="grey", lw=1, label="all blocks")
    axes[1].tick_params(axis="x", rotation=60, labelsize=7)
    axes[1].set_xlabel("")
    axes[1].legend(fontsize=7)
    fig.tight_layout()
    return fig


def compression_tradeoff(table: pd.DataFrame, x: str = "latency_ms", y: str = "accuracy"):
    """One point per compression method: ``y`` (mean ± std over seeds) against ``x``.

    ``table``: one row per method with ``method``, ``x``, ``y`` and ``std``. Used by survey §6.
    """
    _style()
    fig, ax = plt.subplots(figsize=(6.5, 3.6))
    for _, r in table.iterrows():
        ax.errorbar(r[x], r[y], yerr=r.get("std", 0) if pd.notna(r.get("std", np.nan)) else 0, fmt="o", capsize=3)
        ax.annotate(r["method"], (r[x], r[y]), fontsize=7, xytext=(4, 3), textcoords="offset points")
    ax.set_xlabel(x.replace("_", " "))
    ax.set_ylabel(f"test {y}")
    fig.tight_layout()
    return fig


def failure_rates(summary: pd.DataFrame, iid_error: float | None = None, title: str = ""):
    """CheckList failure rate per test (mean over seeds, bar; pooled 95% Wilson interval, whisker).

    ``summary``: :func:`bertology_lib.experiments.survey.behaviour.summarise_seeds` rows (``test``, ``kind``,
    ``mean``, ``pooled_ci_low``, ``pooled_ci_high``); bars coloured by test kind
    (MFT / INV / DIR). ``iid_error``: the i.i.d. test error, drawn as a dashed line.
    Used by survey §7.
    """
    _style()
    d = summary.reset_index(drop=True)
    colours = {"MFT": "tab:blue", "INV": "tab:orange", "DIR": "tab:green"}
    fig, ax = plt.subplots(figsize=(7.5, 0.28 * len(d) + 1.2))
    y = np.arange(len(d))
    ax.barh(y, d["mean"], color=[colours.get(k, "grey") for k in d["kind"]], alpha=0.85)
    ax.errorbar(d["mean"], y, xerr=[(d["mean"] - d["pooled_ci_low"]).clip(lower=0),
                                    (d["pooled_ci_high"] - d["mean"]).clip(lower=0)],
                fmt="none", ecolor="k", lw=1, capsize=2)
    if iid_error is not None:
        ax.axvline(iid_error, ls="--", c="grey", lw=1)
        ax.text(iid_error, -0.9, " i.i.d. error", fontsize=7, color="grey", va="bottom")
    ax.set_yticks(y, [f"{k}: {t}" for k, t in zip(d["kind"], d["test"])], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("failure rate")
    if title:
        ax.set_title(title, fontsize=10)
    fig.tight_layout()
    return fig


def hans_accuracy(table: pd.DataFrame, iid: dict[str, float] | None = None, title: str = ""):
    """HANS-style accuracy (entailment vs not) per category, one bar colour per training condition.

    ``table``: rows with ``category``, ``condition``, ``accuracy``, ``ci_low``, ``ci_high``
    (categories in display order, controls last). ``iid``: i.i.d. accuracy per condition,
    drawn as dashed lines. Used by survey §7.
    """
    _style()
    cats = list(dict.fromkeys(table["category"]))
    conds = list(dict.fromkeys(table["condition"]))
    fig, ax = plt.subplots(figsize=(max(6.0, 1.0 * len(cats) + 2), 3.4))
    w = 0.8 / len(conds)
    palette = sns.color_palette("deep", len(conds))
    for j, c in enumerate(conds):
        d = table[table["condition"] == c].set_index("category").reindex(cats)
        x = np.arange(len(cats)) + (j - (len(conds) - 1) / 2) * w
        ax.bar(x, d["accuracy"], w, color=palette[j], label=c)
        ax.errorbar(x, d["accuracy"], yerr=[(d["accuracy"] - d["ci_low"]).clip(lower=0),
                                            (d["ci_high"] - d["accuracy"]).clip(lower=0)],
                    fmt="none", ecolor="k", lw=1, capsize=2)
        if iid and c in iid:
            ax.axhline(iid[c], ls="--", lw=1, color=palette[j])
    ax.set_xticks(np.arange(len(cats)), [c.replace(" ", "\n", 1) for c in cats], fontsize=7)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("accuracy (entailment vs not)")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False)
    if title:
        ax.set_title(title, fontsize=10)
    fig.tight_layout()
    return fig


def finetuning_strategies(scores: pd.DataFrame, title: str = ""):
    """Test accuracy per fine-tuning strategy: one dot per seed, the mean as a bar.

    ``scores``: rows with ``strategy`` (display order), ``seed``, ``accuracy``. Used by survey §5.
    """
    _style()
    order = list(dict.fromkeys(scores["strategy"]))
    fig, ax = plt.subplots(figsize=(7, 3.2))
    means = scores.groupby("strategy", sort=False)["accuracy"].mean().reindex(order)
    ax.barh(order, means, color=sns.color_palette("deep", len(order)), alpha=0.5)
    sns.stripplot(data=scores, y="strategy", x="accuracy", order=order, color="k", size=4, ax=ax)
    lo = max(0.0, float(scores["accuracy"].min()) - 0.05)
    ax.set_xlim(lo, 1.0)
    ax.set_xlabel("test accuracy")
    ax.set_ylabel("")
    if title:
        ax.set_title(title, fontsize=10)
    fig.tight_layout()
    return fig


def layer_change_profile(change: pd.DataFrame, mix_weights: pd.DataFrame | None = None):
    """Per block, what fine-tuning changed: relative weight change and 1 - CKA (mean ± std over seeds).

    ``change``: rows with ``layer``, ``seed``, ``rel_change``, ``one_minus_cka``. ``mix_weights``:
    rows with ``layer`` (0 = embeddings), ``seed``, ``weight`` of the learned scalar mix. Used by survey §5.
    """
    _style()
    n = 3 if mix_weights is not None else 2
    fig, axes = plt.subplots(1, n, figsize=(3.3 * n, 3.0))
    for ax, col, label in zip(axes, ("rel_change", "one_minus_cka"),
                              ("relative weight change", "1 - CKA (pre vs fine-tuned)")):
        g = change.groupby("layer")[col].agg(["mean", "std"]).fillna(0)
        ax.bar(g.index, g["mean"], yerr=g["std"], color="C0", capsize=3)
        ax.set_xlabel("block")
        ax.set_ylabel(label)
        ax.set_xticks(g.index)
    if mix_weights is not None:
        g = mix_weights.groupby("layer")["weight"].agg(["mean", "std"]).fillna(0)
        axes[2].bar(g.index, g["mean"], yerr=g["std"], color="C2", capsize=3)
        axes[2].set_xlabel("layer (0 = embeddings)")
        axes[2].set_ylabel("scalar-mix weight")
        axes[2].set_xticks(g.index)
    fig.tight_layout()
    return fig


def restore_curves(curve: pd.DataFrame, title: str = ""):
    """Accuracy as the bottom or top k blocks are restored to pre-trained values (mean ± std over seeds).

    ``curve``: rows with ``kind`` (none | bottom | top), ``restored``, ``seed``, ``accuracy``. Used by survey §5.
    """
    _style()
    fig, ax = plt.subplots(figsize=(5.5, 3.2))
    base = curve[curve["kind"] == "none"]
    for kind, color in (("bottom", "C0"), ("top", "C3")):
        d = pd.concat([base.assign(kind=kind), curve[curve["kind"] == kind]])
        g = d.groupby("restored")["accuracy"].agg(["mean", "std"]).fillna(0)
        ax.errorbar(g.index, g["mean"], yerr=g["std"], marker="o", capsize=3, color=color,
                    label=f"{kind} k blocks restored")
    ax.set_xlabel("blocks restored to pre-trained values (k)")
    ax.set_ylabel("test accuracy")
    ax.legend(fontsize=8)
    if title:
        ax.set_title(title, fontsize=10)
    fig.tight_layout()
    return fig


def seed_curves(curves: pd.DataFrame, early_frac: float | None = None):
    """Dev accuracy through fine-tuning, one line per seed, coloured by the seed's final test rank.

    ``curves``: rows with ``seed``, ``frac``, ``dev``, ``final_test``. Used by survey §5 (Dodge et al. 2020).
    """
    _style()
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.2))
    final = curves.groupby("seed")["final_test"].first().sort_values()
    palette = sns.color_palette("viridis", len(final))
    for color, seed in zip(palette, final.index):
        d = curves[curves["seed"] == seed].sort_values("frac")
        axes[0].plot(d["frac"], d["dev"], marker=".", color=color, lw=1)
    if early_frac is not None:
        axes[0].axvline(early_frac, ls="--", color="grey", lw=1)
    axes[0].set_xlabel("share of fine-tuning done")
    axes[0].set_ylabel("dev accuracy")
    axes[1].hist(final.to_numpy(), bins=min(10, max(3, len(final))), color="C0")
    axes[1].set_xlabel("final test accuracy")
    axes[1].set_ylabel("seeds")
    fig.tight_layout()
    return fig


def pretraining_variants(table: pd.DataFrame, metrics: tuple[str, ...] = ("mlm_acc", "pos_probe")):
    """One panel per metric: the value per pre-training variant, one dot per seed, mean as a bar.

    ``table``: rows with ``variant`` (display order), ``seed`` and the metric columns. Used by survey §5.
    """
    _style()
    order = list(dict.fromkeys(table["variant"]))
    fig, axes = plt.subplots(1, len(metrics), figsize=(3.6 * len(metrics), 3.0))
    axes = np.atleast_1d(axes)
    for ax, m in zip(axes, metrics):
        means = table.groupby("variant", sort=False)[m].mean().reindex(order)
        ax.bar(order, means, color=sns.color_palette("deep", len(order)), alpha=0.5)
        sns.stripplot(data=table, x="variant", y=m, order=order, color="k", size=4, ax=ax)
        lo, hi = float(table[m].min()), float(table[m].max())
        pad = max(0.02, (hi - lo) * 0.5)
        ax.set_ylim(max(0.0, lo - pad), min(1.0, hi + pad))
        ax.set_xlabel("")
        ax.set_ylabel(m.replace("_", " "))
        ax.tick_params(axis="x", labelsize=8)
    fig.tight_layout()
    return fig


# -- Physics of Language Models 3.1 (notebooks physics_02 ... physics_06) -------------------------

def physics_seed_bars(df: pd.DataFrame, x: str, hue: str | None = None, attributes=("mean", "mean_without_birth_date"),
                      order=None, title: str = ""):
    """Mean QA-test accuracy per ``x`` (bars, one colour per ``hue``), each seed a black dot, the majority
    baseline a grey tick; one panel per summary row in ``attributes`` (long table from physics_experiments)."""
    _style()
    order = list(order) if order is not None else list(dict.fromkeys(df[x]))
    hues = list(dict.fromkeys(df[hue])) if hue else [None]
    fig, axes = plt.subplots(1, len(attributes), figsize=(5.2 * len(attributes), 3.6), sharey=True, squeeze=False)
    width = 0.8 / len(hues)
    palette = sns.color_palette("tab10", len(hues))
    for ax, attr in zip(axes[0], attributes):
        sub = df[df["attribute"] == attr]
        for j, (h, color) in enumerate(zip(hues, palette)):
            part = sub if h is None else sub[sub[hue] == h]
            for i, v in enumerate(order):
                cell = part[part[x] == v]
                if cell.empty:
                    continue
                xpos = i - 0.4 + width * (j + 0.5)
                ax.bar(xpos, cell["accuracy"].mean(), width * 0.9, color=color, label=h if i == 0 else None)
                ax.scatter(np.full(len(cell), xpos), cell["accuracy"], color="black", s=12, zorder=3)
                ax.plot([xpos - width * 0.45, xpos + width * 0.45], [cell["majority"].mean()] * 2, color="0.4", lw=2)
        ax.set_xticks(range(len(order)), order, rotation=30, ha="right")
        ax.set_ylim(0, 1.02)
        ax.set_title(attr.replace("_", " "))
    axes[0][0].set_ylabel("QA-test accuracy")
    if hue:
        axes[0][-1].legend(title=hue, fontsize=8, frameon=False)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


def _accuracy_heatmap(ax, table: pd.DataFrame, vmax: float = 1.0, fmt: str = ".2f", **kw) -> None:
    """Annotated 0..vmax heatmap of an accuracy table, attribute names as x labels (underscores as spaces)."""
    sns.heatmap(table.astype(float), annot=True, fmt=fmt, vmin=0, vmax=vmax, cmap="viridis", ax=ax, **kw)
    ax.set_xticklabels([str(c).replace("_", " ") for c in table.columns], rotation=30, ha="right")


def physics_attribute_heatmap(table: pd.DataFrame, title: str = "", vmax: float = 1.0, fmt: str = ".2f"):
    """Rows (settings) x columns (attributes) of accuracies, annotated."""
    _style()
    fig, ax = plt.subplots(figsize=(1.1 * table.shape[1] + 2.5, 0.45 * table.shape[0] + 1.6))
    labels = [" / ".join(map(str, i)) if isinstance(i, tuple) else str(i) for i in table.index]
    _accuracy_heatmap(ax, table, vmax, fmt, yticklabels=labels, cbar_kws={"label": "accuracy"})
    ax.set_ylabel("")
    ax.set_xlabel("")
    if title:
        ax.set_title(title)
    fig.tight_layout()
    return fig


def physics_learning_curves(curves: pd.DataFrame, title: str = ""):
    """BIO / QA-train / QA-test accuracy over training steps, one panel per augmentation, one line per seed."""
    _style()
    augs = list(dict.fromkeys(curves["augmentation"]))
    fig, axes = plt.subplots(1, len(augs), figsize=(5.2 * len(augs), 3.4), sharey=True, squeeze=False)
    metrics = {"bio": "BIO (memorised)", "qa_train": "QA-train people", "qa_test": "QA-test people (OOD)"}
    palette = dict(zip(metrics, sns.color_palette("tab10", 3)))
    for ax, a in zip(axes[0], augs):
        sub = curves[curves["augmentation"] == a]
        for k, (seed, run) in enumerate(sub.groupby("seed")):
            for m, label in metrics.items():
                ax.plot(run["step"], run[m], color=palette[m], marker="o", ms=3, alpha=1.0 if k == 0 else 0.5,
                        ls="-" if k == 0 else "--", label=label if k == 0 else None)
        ax.set_title(a)
        ax.set_xlabel("training step")
        ax.set_ylim(0, 1.02)
    axes[0][0].set_ylabel("accuracy")
    axes[0][-1].legend(fontsize=8, frameon=False, loc="lower right")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


def physics_sweep(df: pd.DataFrame, x: str = "n_people", title: str = ""):
    """Mean QA-test accuracy (with and without birth date) against ``x``, majority baseline dashed."""
    _style()
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
    if title:
        ax.set_title(title)
    fig.tight_layout()
    return fig


def physics_probe_tables(tables: dict, title: str = ""):
    """P-probing tables side by side: positions (rows) x attributes (columns), best-layer accuracy."""
    _style()
    fig, axes = plt.subplots(1, len(tables), figsize=(6.0 * len(tables), 4.0), squeeze=False)
    for ax, (name, t) in zip(axes[0], tables.items()):
        _accuracy_heatmap(ax, t, cbar=False)
        ax.set_yticklabels(ax.get_yticklabels(), rotation=0)
        ax.set_title(name)
        ax.set_ylabel("probed position")
        ax.set_xlabel("attribute predicted")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


def physics_extraction_scatter(m: pd.DataFrame, rho: float | None = None, title: str = ""):
    """Q-probe accuracy (x) against fine-tuned QA-test accuracy (y), one point per (augmentation, seed)."""
    _style()
    fig, ax = plt.subplots(figsize=(5.6, 4.2))
    augs = list(dict.fromkeys(m["augmentation"]))
    palette = dict(zip(augs, sns.color_palette("tab10", len(augs))))
    for a in augs:
        sub = m[m["augmentation"] == a]
        ax.scatter(sub["q_probe_accuracy"], sub["qa_accuracy"], color=palette[a], label=a, s=40)
    ax.set_xlabel("Q-probe accuracy (mean over attributes, best layer)")
    ax.set_ylabel("fine-tuned QA-test accuracy (mean)")
    ax.legend(fontsize=8, frameon=False)
    ax.set_title(title or (f"Spearman rho = {rho:.2f}" if rho is not None else ""))
    fig.tight_layout()
    return fig
