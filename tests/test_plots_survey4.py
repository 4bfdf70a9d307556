"""The survey §4 figures draw what they are given: small synthetic frames with the columns the notebooks
pass, and checks of the titles, labels, ticks, legends and plotted values against them."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure

from bertology_lib import plots
from figure_helpers import texts, ydata

MODELS = ["mini-bert (toy)", "minilm (UD EWT)"]
LAYERS = range(4)
GEOMETRY = [
    "anisotropy",
    "self_similarity",
    "self_similarity_adj",
    "intra_similarity",
    "intra_similarity_adj",
    "mev",
    "mev_adj",
]
TARGETS = ["cls", "sep", "punct", "self", "prev", "next"]


def geometry() -> pd.DataFrame:
    # value = column index / 10 + layer / 100 + model index: every line is identifiable
    return pd.DataFrame(
        [
            {"model": m, "layer": L, **{c: i / 10 + L / 100 + j for i, c in enumerate(GEOMETRY)}, "n_types": 5}
            for j, m in enumerate(MODELS)
            for L in LAYERS
        ]
    )


def head_stats() -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "model": m,
                "layer": L,
                "head": h,
                **{c: (i + 1) / 10 for i, c in enumerate(TARGETS)},
                "entropy": L + h / 10,
                "uniform_entropy": 2.3,
            }
            for m in MODELS
            for L in LAYERS
            for h in range(3)
        ]
    )


def structural() -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "data": k,
                "model": m,
                "probe": p,
                "rank": 8,
                "layer": L,
                "uuas": 0.1 * L + j / 100 if p == "distance" else np.nan,
                "root_acc": 0.2 * L + j / 100 if p == "depth" else np.nan,
                "spearman": 0.5,
            }
            for k in ("toy", "ud")
            for j, m in enumerate(("trained", "random init"))
            for p in ("distance", "depth")
            for L in LAYERS
        ]
    )


def test_embedding_geometry_one_panel_per_measure_dashed_corrected():
    fig = plots.embedding_geometry(geometry())
    assert isinstance(fig, Figure)
    assert [ax.get_title() for ax in fig.axes] == [
        "measure = anisotropy",
        "measure = self-similarity",
        "measure = intra-sentence",
        "measure = MEV",
    ]
    assert texts(fig.legends[0].get_texts()) == ["model", *MODELS, "version", "raw", "corrected"]
    ax = fig.axes[1]  # self-similarity: raw and corrected per model
    assert ydata(ax)[:2] == [[0.1, 0.11, 0.12, 0.13], [0.2, 0.21, 0.22, 0.23]]
    assert [ln.get_linestyle() for ln in ax.lines[:2]] == ["-", "--"]
    assert ydata(fig.axes[0]) == [[0.0, 0.01, 0.02, 0.03], [1.0, 1.01, 1.02, 1.03]]  # anisotropy per model


def test_sense_clusters_gain_lines_and_pca_panels():
    senses = pd.DataFrame(
        [
            {"model": m, "word": w, "layer": L, "gain": 0.1 * L + (0.05 if w == "set" else 0)}
            for m in MODELS[:1]
            for w in ("run", "set")
            for L in LAYERS
        ]
    )
    xy = np.arange(24, dtype=float).reshape(12, 2)
    examples = {f"{m}: 'run', layer 2": (xy, ["NOUN", "VERB"] * 6) for m in MODELS}
    fig = plots.sense_clusters(senses, examples)
    left, *right = fig.axes
    assert left.get_ylabel() == "accuracy - majority" and list(left.get_xticks()) == [0, 1, 2, 3]
    assert ydata(left) == [[0.0, 0.1, 0.2, 0.3], [0.05, 0.15, 0.25, 0.35]]  # one line per word
    assert [ax.get_title() for ax in right] == list(examples)
    assert right[0].collections[0].get_offsets().tolist() == xy.tolist()
    assert texts(right[0].get_legend().get_texts()) == ["NOUN", "VERB"]


def test_pooling_curves_cls_mean_lines_and_concatenation_star():
    rows = [
        {"model": m, "pooling": p, "layer": L, "test_acc": 0.5 + 0.1 * L + (0.02 if p == "mean" else 0)}
        for m in MODELS
        for p in ("cls", "mean")
        for L in LAYERS
    ]
    rows += [{"model": m, "pooling": "concat last 3 (mean)", "layer": 3, "test_acc": 0.95} for m in MODELS]
    fig = plots.pooling_curves(pd.DataFrame(rows), chance=0.5)
    assert [ax.get_title() for ax in fig.axes] == MODELS
    ax = fig.axes[0]
    assert ax.get_ylabel() == "held-out accuracy"
    assert ydata(ax) == [[0.5, 0.6, 0.7, 0.8], [0.52, 0.62, 0.72, 0.82]]
    assert ax.collections[-1].get_offsets().tolist() == [[3, 0.95]]
    assert texts(ax.get_legend().get_texts()) == ["cls", "mean", "concat last 3 (mean)"]
    assert any(tuple(ln.get_ydata()) == (0.5, 0.5) for ln in ax.lines)


def test_attention_targets_one_strip_per_target_and_layer():
    fig = plots.attention_targets(head_stats())
    assert [ax.get_title() for ax in fig.axes] == [f"model = {m}" for m in MODELS]
    ax = fig.axes[0]
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("layer", "attention")
    assert texts(ax.get_xticklabels()) == ["0", "1", "2", "3"]
    assert texts(fig.legends[0].get_texts()) == ["[CLS]", "[SEP]", "punctuation", "self", "previous", "next"]
    # one strip of 3 heads per (layer, target); attention to [CLS] is 0.1 for every head
    assert len(ax.collections) == len(LAYERS) * len(TARGETS)
    assert sorted(np.round(ax.collections[0].get_offsets()[:, 1], 6)) == [0.1, 0.1, 0.1]


def test_attention_targets_draw_the_paper_at_the_same_relative_depth():
    from bertology_lib.analysis.attention import CLARK_2019_SEP

    fig = plots.attention_targets(head_stats(), paper=CLARK_2019_SEP)
    ax = fig.axes[0]  # four layers: only layer 2's centre (0.625) lies in BERT-base's layers 6-10 of 12
    [span] = [p for p in ax.patches if p.get_alpha() == 0.5]
    assert span.get_x() == pytest.approx(1.5) and span.get_width() == pytest.approx(1.0)
    assert texts(ax.get_legend().get_texts()) == ["Clark et al. 2019 §3: [SEP] > 0.5 in layers 6–10 of 12"]
    assert len(plots.attention_targets(head_stats()).axes[0].patches) == len(ax.patches) - 1  # nothing drawn without


def test_attention_entropy_dots_per_head_and_uniform_line():
    fig = plots.attention_entropy(head_stats())
    assert [ax.get_title() for ax in fig.axes] == MODELS
    ax = fig.axes[0]
    assert ax.get_ylabel() == "attention entropy (nats)" and ax.get_ylim()[0] == 0
    assert [sorted(np.round(c.get_offsets()[:, 1], 6)) for c in ax.collections] == [
        [L, L + 0.1, L + 0.2] for L in LAYERS
    ]
    assert list(ax.lines[0].get_ydata()) == [2.3] * 4 and texts(ax.get_legend().get_texts()) == ["uniform"]


def test_attention_type_shares_stacked_bars_per_layer():
    types = ["vertical", "diagonal", "block"]
    frames = {
        m: pd.DataFrame([[0.5, 0.3, 0.2]] * 2, columns=types, index=pd.Index([0, 1], name="layer")) for m in MODELS
    }
    fig = plots.attention_type_shares(pd.concat(frames, names=["model"]))
    assert [ax.get_title() for ax in fig.axes] == MODELS
    ax = fig.axes[0]
    assert ax.get_ylabel() == "share of maps" and texts(ax.get_xticklabels()) == ["0", "1"]
    assert [round(p.get_height(), 6) for p in ax.patches] == [0.5, 0.5, 0.3, 0.3, 0.2, 0.2]
    assert [round(p.get_y(), 6) for p in ax.patches] == [0, 0, 0.5, 0.5, 0.8, 0.8]  # stacked
    assert fig.axes[0].get_legend() is None and texts(fig.axes[1].get_legend().get_texts()) == types


def test_attention_examples_show_the_chosen_maps():
    examples = pd.DataFrame(
        {"type": ["vertical", "diagonal", "block"], "layer": [0, 1, 3], "head": [0, 2, 1], "sentence": [0, 1, 0]}
    )
    rng = np.random.default_rng(0)
    weights = [[rng.dirichlet(np.ones(6), (3, 6)) for _ in range(2)] for _ in LAYERS]  # [L][s]: (heads, T, T)
    fig = plots.attention_examples(examples, weights)
    assert [ax.get_title() for ax in fig.axes] == [
        "vertical\nlayer 0, head 0",
        "diagonal\nlayer 1, head 2",
        "block\nlayer 3, head 1",
    ]
    for ax, r in zip(fig.axes, examples.itertuples()):
        assert np.array_equal(ax.images[0].get_array(), weights[r.layer][r.sentence][r.head])


def test_syntactic_heads_bars_per_model_and_head_heatmap():
    frames = {
        m: pd.DataFrame(
            {"relation": ["all", "det", "nsubj"], "accuracy": [0.5, 0.9, 0.6], "baseline_accuracy": [0.3, 0.4, 0.2]}
        )
        for m in MODELS
    }
    syntax = pd.concat(frames, names=["model"]).droplevel(1)
    M = pd.DataFrame(
        np.arange(12).reshape(4, 3) / 12,
        index=pd.Index(list(LAYERS), name="layer"),
        columns=pd.Index(range(3), name="head"),
    )
    fig = plots.syntactic_heads(syntax, M, title="minilm: det (dep->head)", n_relations=2)
    bars, _, heat, _ = fig.axes  # two bar panels, the heatmap and its colour bar
    assert bars.get_title() == MODELS[0] and bars.get_xlabel() == "held-out accuracy"
    assert texts(bars.get_yticklabels()) == ["all", "det"]  # the first n_relations, top to bottom
    assert [p.get_width() for p in bars.patches] == [0.5, 0.9, 0.3, 0.4]
    assert texts(bars.get_legend().get_texts()) == ["accuracy", "baseline_accuracy"]
    assert heat.get_title() == "minilm: det (dep->head)"
    assert np.allclose(heat.collections[0].get_array().reshape(4, 3), M.to_numpy())


def test_attention_norms_focus_lines_and_value_norm_bars():
    focus = pd.DataFrame(
        [
            {"model": m, "layer": L, "weight_share": 0.1 * L + j, "norm_share": 0.05 * L + j}
            for j, m in enumerate(MODELS)
            for L in LAYERS
        ]
    )
    tokens = ["[CLS]", "[SEP]", "other"]
    roles = pd.DataFrame(
        [{"layer": L, "token": t, "value_norm": L + i / 10} for L in LAYERS for i, t in enumerate(tokens)]
    )
    fig = plots.attention_norms(focus, roles, title=MODELS[1])
    a, b = fig.axes
    assert a.get_ylabel() == "attention on [CLS] + [SEP]" and list(a.get_xticks()) == [0, 1, 2, 3]
    assert ydata(a)[0] == [0.0, 0.1, 0.2, 0.3]
    assert texts(a.get_legend().get_texts()) == ["model", *MODELS, "measure", "weight_share", "norm_share"]
    assert (b.get_title(), b.get_ylabel()) == (MODELS[1], "mean ‖f(x)‖")
    assert [round(p.get_height(), 6) for p in b.patches[:4]] == [0, 1, 2, 3]  # [CLS] in each layer
    assert texts(b.get_legend().get_texts()) == tokens


def test_expected_layers_one_dot_per_target_and_data_set():
    cog = pd.DataFrame(
        [
            {"data": k, "target": t, "expected_layer": x + (0.5 if k == "ud" else 0)}
            for k in ("toy", "ud")
            for t, x in (("upos", 1.0), ("deprel", 2.0))
        ]
    )
    fig = plots.expected_layers(cog, labels={"toy": MODELS[0], "ud": MODELS[1]})
    ax = fig.axes[0]
    assert ax.get_xlabel() == "expected layer (Tenney et al.)"
    assert texts(ax.get_legend().get_texts()) == MODELS
    assert sorted(ax.collections[0].get_offsets()[:, 0].tolist()) == [1.0, 1.5, 2.0, 2.5]
    assert texts(ax.get_yticklabels()) == ["upos", "deprel"]


def test_structural_probe_curves_rows_per_data_set():
    fig = plots.structural_probe_curves(structural(), {"toy": 0.4, "ud": 0.3}, names={"ud": "UD EWT"})
    assert [ax.get_title() for ax in fig.axes] == [
        "toy: distance probe",
        "toy: depth probe",
        "UD EWT: distance probe",
        "UD EWT: depth probe",
    ]
    dist, depth = fig.axes[:2]
    assert ydata(dist) == [[0.0, 0.1, 0.2, 0.3], [0.01, 0.11, 0.21, 0.31]]
    assert ydata(depth) == [[0.0, 0.2, 0.4, 0.6], [0.01, 0.21, 0.41, 0.61]]
    assert any(tuple(ln.get_ydata()) == (0.4, 0.4) for ln in dist.lines)
    assert texts(dist.get_legend().get_texts()) == ["trained", "random init", "right-branching"]
    assert texts(depth.get_legend().get_texts()) == ["trained", "random init"]


def test_rank_sweep_one_line_per_layer_log2_ranks():
    sweep = pd.DataFrame([{"rank": r, "layer": L, "uuas": 0.1 * L + r / 1000} for r in (2, 8, 32) for L in (1, 2)])
    fig = plots.rank_sweep(sweep, baseline=0.3)
    ax = fig.axes[0]
    assert ax.get_xscale() == "log" and ax.get_ylabel() == "held-out UUAS"
    assert ax.get_legend().get_title().get_text() == "layer" and texts(ax.get_legend().get_texts()) == ["1", "2"]
    assert ydata(ax) == [[0.102, 0.108, 0.132], [0.202, 0.208, 0.232]]
    assert any(tuple(ln.get_ydata()) == (0.3, 0.3) for ln in ax.lines)
