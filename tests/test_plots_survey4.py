"""The survey §4 figures build from small synthetic frames with the columns the notebooks pass."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from bertology_lib import plots

MODELS = ["mini-bert (toy)", "minilm (UD EWT)"]
LAYERS = range(4)
RNG = np.random.default_rng(0)


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _check(fig, n_axes: int) -> None:
    assert isinstance(fig, Figure)
    assert len(fig.axes) == n_axes


def geometry() -> pd.DataFrame:
    cols = ["anisotropy", "self_similarity", "self_similarity_adj", "intra_similarity", "intra_similarity_adj",
            "mev", "mev_adj"]
    return pd.DataFrame([{"model": m, "layer": L, **{c: RNG.random() for c in cols}, "n_types": 5}
                         for m in MODELS for L in LAYERS])


def senses() -> pd.DataFrame:
    return pd.DataFrame([{"model": m, "word": w, "senses": "NOUN/VERB", "layer": L, "accuracy": 0.8,
                          "majority": 0.6, "gain": RNG.random() - 0.3, "n": 20}
                         for m in MODELS for w in ("run", "set") for L in LAYERS])


def pooling() -> pd.DataFrame:
    rows = [{"model": m, "pooling": p, "layer": L, "train_acc": 0.9, "test_acc": RNG.random()}
            for m in MODELS for p in ("cls", "mean") for L in LAYERS]
    rows += [{"model": m, "pooling": "concat last 3 (mean)", "layer": 3, "train_acc": 0.9, "test_acc": 0.7}
             for m in MODELS]
    return pd.DataFrame(rows)


def head_stats() -> pd.DataFrame:
    cols = ["cls", "sep", "punct", "self", "prev", "next"]
    return pd.DataFrame([{"model": m, "layer": L, "head": h, **{c: RNG.random() for c in cols},
                          "entropy": RNG.random() * 2, "uniform_entropy": 2.3}
                         for m in MODELS for L in LAYERS for h in range(3)])


def type_shares() -> pd.DataFrame:
    types = ["vertical", "diagonal", "vertical+diagonal", "block", "heterogeneous"]
    frames = {m: pd.DataFrame(RNG.dirichlet(np.ones(len(types)), len(LAYERS)), columns=types,
                              index=pd.Index(list(LAYERS), name="layer")) for m in MODELS}
    return pd.concat(frames, names=["model"])


def syntax() -> pd.DataFrame:
    frames = {m: pd.DataFrame({"relation": ["all", "det", "nsubj", "obj"], "direction": "dep->head",
                               "layer": 1, "head": 2, "accuracy": RNG.random(4),
                               "baseline_accuracy": RNG.random(4), "n": 30}) for m in MODELS}
    return pd.concat(frames, names=["model"]).droplevel(1)


def structural() -> pd.DataFrame:
    return pd.DataFrame([{"data": k, "model": m, "probe": p, "rank": 8, "layer": L,
                          "uuas": RNG.random() if p == "distance" else np.nan,
                          "root_acc": RNG.random() if p == "depth" else np.nan, "spearman": RNG.random()}
                         for k in ("toy", "ud") for m in ("trained", "random init")
                         for p in ("distance", "depth") for L in LAYERS])


def test_embedding_geometry():
    _check(plots.embedding_geometry(geometry()), 4)  # anisotropy, self-similarity, intra-sentence, MEV


def test_sense_clusters():
    examples = {f"{m}: 'run', layer 2": (RNG.normal(size=(12, 2)), ["NOUN", "VERB"] * 6) for m in MODELS}
    _check(plots.sense_clusters(senses(), examples), 3)


def test_pooling_curves():
    _check(plots.pooling_curves(pooling()), 2)


def test_attention_targets():
    _check(plots.attention_targets(head_stats()), 2)


def test_attention_entropy():
    _check(plots.attention_entropy(head_stats()), 2)


def test_attention_type_shares():
    _check(plots.attention_type_shares(type_shares()), 2)


def test_attention_examples():
    examples = pd.DataFrame({"type": ["vertical", "diagonal", "block"], "layer": [0, 1, 3], "head": [0, 2, 1],
                             "sentence": [0, 1, 0]})
    weights = [[RNG.dirichlet(np.ones(6), (3, 6)) for _ in range(2)] for _ in LAYERS]  # [L][s]: (heads, T, T)
    _check(plots.attention_examples(examples, weights), 3)


def test_syntactic_heads():
    M = pd.DataFrame(RNG.random((4, 3)), index=pd.Index(list(LAYERS), name="layer"),
                     columns=pd.Index(range(3), name="head"))
    _check(plots.syntactic_heads(syntax(), M, title="minilm: det (dep->head)"), 4)  # 2 bars + heatmap + colorbar


def test_attention_norms():
    focus = pd.DataFrame([{"model": m, "layer": L, "weight_share": RNG.random(), "norm_share": RNG.random()}
                          for m in MODELS for L in LAYERS])
    roles = pd.DataFrame([{"model": MODELS[1], "layer": L, "token": t, "value_norm": RNG.random()}
                          for L in LAYERS for t in ("[CLS]", "[SEP]", "punctuation", "other")])
    _check(plots.attention_norms(focus, roles, title=MODELS[1]), 2)


def test_expected_layers():
    cog = pd.DataFrame([{"data": k, "target": t, "model": "trained", "expected_layer": RNG.random() * 3}
                        for k in ("toy", "ud") for t in ("upos", "deprel", "depth")])
    _check(plots.expected_layers(cog, labels={"toy": MODELS[0], "ud": MODELS[1]}), 1)


def test_structural_probe_curves():
    _check(plots.structural_probe_curves(structural(), {"toy": 0.4, "ud": 0.3}, names={"ud": "UD EWT"}), 4)


def test_rank_sweep():
    sweep = pd.DataFrame([{"model": "minilm", "probe": "distance", "rank": r, "layer": L, "uuas": RNG.random()}
                          for r in (2, 8, 32) for L in LAYERS])
    _check(plots.rank_sweep(sweep, baseline=0.3), 1)
