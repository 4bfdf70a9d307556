"""Figures of the layer-duplication part (Kao et al. 2020): reconstruction of the input through the
MLM head, the logit-lens contrast, CKA between layers, fine-tuning scores of duplicated variants.

Notebooks: ``duplication_01_reconstruction``, ``duplication_02_boost``. :func:`seed_scores` only
reshapes fine-tuning results for :func:`variant_seed_scores`.
"""

from __future__ import annotations

from collections.abc import Mapping

import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns

from bertology_lib.errors import ParameterError
from bertology_lib.plots.common import finish, panel_grid, style

CONTRAST_LINES = {
    "reconstruction": "input token recovered (reconstruction)",
    "agrees_with_final": "final layer's token predicted (logit lens)",
}


def reconstruction_curves(df: pd.DataFrame, chance: float, title: str = ""):
    """Per-layer reconstruction of the input through the MLM head, one line per model variant."""
    style()
    fig, ax = plt.subplots(figsize=(6.5, 3.2))
    sns.lineplot(data=df, x="layer", y="reconstruction", hue="variant", marker="o", ax=ax)
    ax.axhline(chance, ls="--", c="grey", lw=1)
    ax.text(0, chance + 0.02, "chance (1 / vocabulary)", fontsize=7, color="grey")
    ax.set_ylim(0, 1.02)
    ax.set_ylabel("input tokens recovered")
    return finish(fig, title, ax)


def logit_lens_contrast(recon: pd.DataFrame, title: str = "reconstructing the input is not predicting"):
    """Per layer, the share of positions where the MLM head's top token is the input token
    (reconstruction) and where it is the final layer's top token (logit lens), one line each.

    ``recon``: :func:`bertology_lib.analysis.reconstruction.reconstruction_by_layer` rows (``layer``,
    ``reconstruction``, ``agrees_with_final``). Used by ``duplication_01_reconstruction``.
    """
    missing = [c for c in ("layer", *CONTRAST_LINES) if c not in recon]
    if missing:
        raise ParameterError(
            f"recon has columns {list(recon.columns)}; allowed: a frame with "
            f"layer, {', '.join(CONTRAST_LINES)} (missing {', '.join(missing)})"
        )
    style()
    d = recon.sort_values("layer")
    fig, ax = plt.subplots(figsize=(6, 3))
    for col, label in CONTRAST_LINES.items():
        ax.plot(d["layer"], d[col], marker="o", label=label)
    ax.set_xticks(d["layer"])
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("layer (0 = embeddings)")
    ax.set_ylabel("share of tokens")
    ax.legend(fontsize=8)
    return finish(fig, title, ax, fontsize=10)


def seed_scores(frames: Mapping[str, Mapping[str, pd.DataFrame]], split: str = "test") -> pd.DataFrame:
    """One row per (task, variant, seed): the fine-tuned model's score on ``split``.

    ``frames``: task -> variant -> :func:`bertology_lib.training.finetune.results_frame` of that
    variant's seeds (columns ``seed``, ``split`` and the metrics). The score is ``f1`` where a row has
    one (extractive QA), else ``accuracy`` (classification); ``metric`` says which. Columns: ``task``,
    ``variant``, ``seed``, ``split``, ``metric``, ``score``; tasks and variants keep their order.
    """
    parts = [
        f.assign(task=task, variant=variant) for task, by_variant in frames.items() for variant, f in by_variant.items()
    ]
    if not parts:
        raise ParameterError("frames is empty; allowed: task -> variant -> results frame, at least one")
    rows = pd.concat(parts, ignore_index=True)
    splits = list(dict.fromkeys(rows["split"]))
    if split not in splits:
        raise ParameterError(f"split={split!r} was not evaluated; allowed: {', '.join(map(repr, splits))}")
    rows = rows[rows["split"] == split]
    f1 = rows["f1"] if "f1" in rows else pd.Series(float("nan"), index=rows.index)
    acc = rows["accuracy"] if "accuracy" in rows else pd.Series(float("nan"), index=rows.index)
    out = rows[["task", "variant", "seed", "split"]].assign(
        metric=f1.notna().map({True: "f1", False: "accuracy"}), score=f1.fillna(acc)
    )
    if out["score"].isna().any():
        raise ParameterError(
            "some rows have neither f1 nor accuracy; allowed: results frames of QA or classification runs"
        )
    return out.reset_index(drop=True)


def variant_seed_scores(
    scores: pd.DataFrame, title: str = "fine-tuning score per seed (dots) and its mean (bar), per variant"
):
    """One panel per task: for each model variant, its score with every seed (dots) and their mean
    (black bar). Duplicated variants' names are shortened (``duplicated`` -> ``dup.``) on the x axis.

    ``scores``: :func:`seed_scores` rows. Used by ``duplication_02_boost``.
    """
    style()
    tasks = list(dict.fromkeys(scores["task"]))
    fig, axes = panel_grid(len(tasks), 4, 3.4)
    for ax, task in zip(axes, tasks):
        d = scores[scores["task"] == task]
        variants = list(dict.fromkeys(d["variant"]))
        for i, v in enumerate(variants):
            s = d.loc[d["variant"] == v, "score"]
            ax.scatter([i] * len(s), s, alpha=0.7)
            ax.plot([i - 0.2, i + 0.2], [s.mean()] * 2, c="k")
        ax.set_xticks(range(len(variants)), [v.replace(" duplicated", "\ndup.") for v in variants], fontsize=8)
        metric = "F1" if d["metric"].iloc[0] == "f1" else d["metric"].iloc[0]
        ax.set_ylabel(f"{d['split'].iloc[0]} {metric}")
        ax.set_title(task, fontsize=10)
    return finish(fig, title, fontsize=10)


def similarity_heatmap(M, title: str = "linear CKA between layers"):
    """Heatmap of a (L, L) similarity matrix (layer 0 = embeddings), annotated up to 8 layers."""
    style()
    fig, ax = plt.subplots(figsize=(6.0, 5.0))  # 0.6 in a cell at 8 layers: two-decimal numbers stay apart
    sns.heatmap(
        pd.DataFrame(M.numpy() if hasattr(M, "numpy") else M),
        vmin=0,
        vmax=1,
        cmap="viridis",
        annot=len(M) <= 8,
        fmt=".2f",
        annot_kws={"fontsize": 9},
        ax=ax,
        square=True,
    )
    ax.set_xlabel("layer")
    ax.set_ylabel("layer")
    return finish(fig, title, ax)
