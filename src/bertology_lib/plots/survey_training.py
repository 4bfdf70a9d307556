"""Figures of the survey's §5, training BERT: fine-tuning strategies, what fine-tuning changes,
seed variance, pre-training variants.

Notebooks: ``survey_05_training``, ``survey_05b_architecture``, ``survey_05c_objectives``, ``survey_05d_nsp``.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns

from bertology_lib.plots.common import finish, mean_bars_with_seeds, panel_grid, style


def finetuning_strategies(scores: pd.DataFrame, title: str = ""):
    """Test accuracy per fine-tuning strategy: one dot per seed, the mean as a bar.

    ``scores``: rows with ``strategy`` (display order), ``seed``, ``accuracy``. Used by survey §5.
    """
    style()
    order = list(dict.fromkeys(scores["strategy"]))
    fig, ax = plt.subplots(figsize=(7, 3.2))
    mean_bars_with_seeds(ax, scores, "strategy", "accuracy", order, horizontal=True)
    lo = max(0.0, float(scores["accuracy"].min()) - 0.05)
    ax.set_xlim(lo, 1.0)
    ax.set_xlabel("test accuracy")
    ax.set_ylabel("")
    return finish(fig, title, ax, fontsize=10)


def layer_change_profile(change: pd.DataFrame, mix_weights: pd.DataFrame | None = None):
    """Per block, what fine-tuning changed: relative weight change and 1 - CKA (mean ± std over seeds).

    ``change``: rows with ``layer``, ``seed``, ``rel_change``, ``one_minus_cka``. ``mix_weights``:
    rows with ``layer`` (0 = embeddings), ``seed``, ``weight`` of the learned scalar mix. Used by survey §5.
    """
    style()
    n = 3 if mix_weights is not None else 2
    fig, axes = panel_grid(n, 4.4, 3.2)
    _mean_std_bars(axes[0], change, "rel_change", "C0", "block", "relative weight change")
    _mean_std_bars(axes[1], change, "one_minus_cka", "C0", "block", "1 - CKA (pre vs fine-tuned)")
    if mix_weights is not None:
        _mean_std_bars(axes[2], mix_weights, "weight", "C2", "layer (0 = embeddings)", "scalar-mix weight")
    return finish(fig)


def _mean_std_bars(ax, frame: pd.DataFrame, col: str, color: str, xlabel: str, ylabel: str) -> None:
    """Mean of ``col`` per layer as bars, the std over seeds as error bars."""
    g = frame.groupby("layer")[col].agg(["mean", "std"]).fillna(0)
    ax.bar(g.index, g["mean"], yerr=g["std"], color=color, capsize=3)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_xticks(g.index)


def restore_curves(curve: pd.DataFrame, title: str = ""):
    """Accuracy as the bottom or top k blocks are restored to pre-trained values (mean ± std over seeds).

    ``curve``: rows with ``kind`` (none | bottom | top), ``restored``, ``seed``, ``accuracy``. Used by survey §5.
    """
    style()
    fig, ax = plt.subplots(figsize=(5.5, 3.2))
    base = curve[curve["kind"] == "none"]
    for kind, color in (("bottom", "C0"), ("top", "C3")):
        d = pd.concat([base.assign(kind=kind), curve[curve["kind"] == kind]])
        g = d.groupby("restored")["accuracy"].agg(["mean", "std"]).fillna(0)
        ax.errorbar(
            g.index, g["mean"], yerr=g["std"], marker="o", capsize=3, color=color, label=f"{kind} k blocks restored"
        )
    ax.set_xlabel("blocks restored to pre-trained values (k)")
    ax.set_ylabel("test accuracy")
    ax.legend(fontsize=8)
    return finish(fig, title, ax, fontsize=10)


def seed_curves(curves: pd.DataFrame, early_frac: float | None = None):
    """Dev accuracy through fine-tuning, one line per seed, coloured by the seed's final test rank.

    ``curves``: rows with ``seed``, ``frac``, ``dev``, ``final_test``. Used by survey §5 (Dodge et al. 2020).
    """
    style()
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
    return finish(fig)


def pretraining_variants(table: pd.DataFrame, metrics: tuple[str, ...] = ("mlm_acc", "pos_probe")):
    """One panel per metric: the value per pre-training variant, one dot per seed, mean as a bar.

    ``table``: rows with ``variant`` (display order), ``seed`` and the metric columns. Used by survey §5.
    """
    style()
    order = list(dict.fromkeys(table["variant"]))
    fig, axes = panel_grid(len(metrics), 4.4, 3.2)
    for ax, m in zip(axes, metrics):
        mean_bars_with_seeds(ax, table, "variant", m, order)
        lo, hi = float(table[m].min()), float(table[m].max())
        pad = max(0.02, (hi - lo) * 0.5)
        ax.set_ylim(max(0.0, lo - pad), min(1.0, hi + pad))
        ax.set_xlabel("")
        ax.set_ylabel(m.replace("_", " "))
        ax.tick_params(axis="x", labelsize=8)
    return finish(fig)
