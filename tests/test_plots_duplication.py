"""The duplication figures draw what they are given, and :func:`plots.seed_scores` reshapes fine-tuning
results exactly as the notebook's former inline code did (synthetic frames; no model, no fine-tuning)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd
import pytest
import torch

from bertology_lib import plots
from figure_helpers import texts
from bertology_lib.errors import ParameterError

QA, NLI = "toy QA (SQuAD 2.0 style)", "toy NLI"
VARIANTS = ["baseline", "first 2 duplicated", "last 2 duplicated"]


def recon() -> pd.DataFrame:
    """:func:`analysis.reconstruction.reconstruction_by_layer`-shaped rows, layers out of order on purpose."""
    return pd.DataFrame(
        {"layer": [2, 0, 1], "reconstruction": [0.7, 0.99, 0.9], "agrees_with_final": [0.6, 0.1, 0.3], "n_tokens": 100}
    )


def results_frame(task: str, variant: int, seeds=(0, 1, 2)) -> pd.DataFrame:
    """What :func:`training.finetune.results_frame` returns: one row per (seed, split), the task's metrics."""
    rows = []
    for s in seeds:
        for split in ("dev", "test"):
            score = 0.5 + 0.1 * variant + 0.01 * s + (0.2 if split == "dev" else 0)
            metrics = (
                {"exact": score - 0.1, "f1": score, "has_ans_f1": score, "n": 50.0}
                if "QA" in task
                else {"accuracy": score, "macro_f1": score - 0.05, "n": 50.0}
            )
            rows.append(
                {
                    "task": task.split()[1].lower(),
                    "model": "mini-bert",
                    "seed": s,
                    "split": split,
                    **metrics,
                    "steps": 10,
                    "seconds": 1.0,
                    "cached": True,
                }
            )
    return pd.DataFrame(rows)


def frames() -> dict[str, dict[str, pd.DataFrame]]:
    return {task: {v: results_frame(task, i) for i, v in enumerate(VARIANTS)} for task in (QA, NLI)}


def test_reconstruction_curves_one_line_per_variant_and_chance():
    curves = pd.concat(
        [
            recon().assign(variant="original (2 blocks)"),
            recon().assign(variant="first 1 duplicated (3 blocks)", reconstruction=0.5),
        ]
    )
    fig = plots.reconstruction_curves(curves, chance=0.01, title="reconstruction of the input, per layer")
    ax = fig.axes[0]
    assert (ax.get_title(), ax.get_ylabel(), ax.get_ylim()) == (
        "reconstruction of the input, per layer",
        "input tokens recovered",
        (0, 1.02),
    )
    assert list(ax.lines[0].get_ydata()) == [0.99, 0.9, 0.7] and list(ax.lines[1].get_ydata()) == [0.5] * 3
    assert texts(ax.get_legend().get_texts()) == ["original (2 blocks)", "first 1 duplicated (3 blocks)"]
    assert any(tuple(ln.get_ydata()) == (0.01, 0.01) for ln in ax.lines)
    assert "chance (1 / vocabulary)" in texts(ax.texts)


def test_similarity_heatmap_values_annotated_for_small_matrices():
    M = torch.tensor([[1.0, 0.5], [0.5, 1.0]])
    fig = plots.similarity_heatmap(M)
    ax = fig.axes[0]
    assert (ax.get_title(), ax.get_xlabel(), ax.get_ylabel()) == ("linear CKA between layers", "layer", "layer")
    assert np.allclose(ax.collections[0].get_array().reshape(2, 2), M.numpy())
    assert texts(ax.texts) == ["1.00", "0.50", "0.50", "1.00"]
    assert len(plots.similarity_heatmap(np.eye(9)).axes[0].texts) == 0  # no annotation past 8 layers


def test_logit_lens_contrast_two_lines_by_layer():
    fig = plots.logit_lens_contrast(recon())
    ax = fig.axes[0]
    assert ax.get_title() == "reconstructing the input is not predicting"
    assert (ax.get_xlabel(), ax.get_ylabel(), ax.get_ylim()) == ("layer (0 = embeddings)", "share of tokens", (0, 1.02))
    assert [list(ln.get_xdata()) for ln in ax.lines] == [[0, 1, 2]] * 2  # sorted by layer
    assert list(ax.lines[0].get_ydata()) == [0.99, 0.9, 0.7] and list(ax.lines[1].get_ydata()) == [0.1, 0.3, 0.6]
    assert texts(ax.get_legend().get_texts()) == [
        "input token recovered (reconstruction)",
        "final layer's token predicted (logit lens)",
    ]
    assert texts(ax.get_xticklabels()) == ["0", "1", "2"]
    with pytest.raises(ParameterError, match="missing agrees_with_final"):
        plots.logit_lens_contrast(recon().drop(columns="agrees_with_final"))


def test_seed_scores_matches_the_notebooks_former_wrangling():
    f = frames()
    ours = plots.seed_scores(f)
    # duplication_02_boost, cell 6, before the figure moved into the library
    scores = pd.concat(
        [rf.assign(task=name, variant=v) for name, r in f.items() for v, rf in r.items()], ignore_index=True
    )
    scores = scores[scores.split == "test"]
    scores["score"] = scores.apply(lambda row: row["f1"] if "QA" in row["task"] else row["accuracy"], axis=1)
    assert list(ours.columns) == ["task", "variant", "seed", "split", "metric", "score"]
    assert ours[["task", "variant", "seed"]].to_dict("list") == scores[["task", "variant", "seed"]].reset_index(
        drop=True
    ).to_dict("list")
    assert ours.score.tolist() == pytest.approx(scores.score.tolist())
    assert ours.groupby("task", sort=False).metric.first().to_dict() == {QA: "f1", NLI: "accuracy"}
    assert set(ours.split) == {"test"}
    assert plots.seed_scores(f, split="dev").score.iloc[0] == pytest.approx(0.7)


def test_seed_scores_rejects_bad_input():
    with pytest.raises(ParameterError, match="split='train' was not evaluated; allowed: 'dev', 'test'"):
        plots.seed_scores(frames(), split="train")
    with pytest.raises(ParameterError, match="frames is empty"):
        plots.seed_scores({})
    bad = {NLI: {"baseline": results_frame(NLI, 0).drop(columns="accuracy")}}
    with pytest.raises(ParameterError, match="neither f1 nor accuracy"):
        plots.seed_scores(bad)


def test_variant_seed_scores_dots_per_seed_and_mean_bars():
    scores = plots.seed_scores(frames())
    fig = plots.variant_seed_scores(scores)
    assert fig.texts[0].get_text() == "fine-tuning score per seed (dots) and its mean (bar), per variant"
    assert [ax.get_title() for ax in fig.axes] == [QA, NLI]
    qa, nli = fig.axes
    assert (qa.get_ylabel(), nli.get_ylabel()) == ("test F1", "test accuracy")
    assert texts(qa.get_xticklabels()) == ["baseline", "first 2\ndup.", "last 2\ndup."]
    for i, (dots, bar) in enumerate(zip(qa.collections, qa.lines)):
        seeds = [0.5 + 0.1 * i + 0.01 * s for s in range(3)]
        assert np.allclose(dots.get_offsets(), [[i, y] for y in seeds])
        assert list(bar.get_xdata()) == pytest.approx([i - 0.2, i + 0.2])
        assert list(bar.get_ydata()) == pytest.approx([np.mean(seeds)] * 2)
