"""Checked exercises of the survey's §4 notebooks, where BERT's knowledge lives (``survey_04_1_embeddings``,
``survey_04_2_attention_heads``, ``survey_04_3_layers``; checkers in the modules of the same names under
``bertology_lib.book.exercises``).

For each exercise the truth agrees with the library's own implementation, the notebook's solution cell passes its
check, and typical wrong answers fail with their hint. The teacher solution of each exercise is read from its
notebook (``exercise_cells.solution``) and run here on the notebook's variables rebuilt small (the smoke mini-BERT's
shape with random weights, MiniLM).
"""

from __future__ import annotations

import re
import types

import numpy as np
import pandas as pd
import pytest
import torch

import exercise_cells as cells
from bertology_lib.book import exercises as ex
from bertology_lib.book.exercises import survey_04_1_embeddings as s41
from bertology_lib.book.exercises import survey_04_2_attention_heads as s42
from bertology_lib.book.exercises import survey_04_3_layers as s43

NOTEBOOKS = {
    "survey_04_1_embeddings": ("ex-survey41-selfsim", "ex-survey41-mev"),
    "survey_04_2_attention_heads": ("ex-survey42-uniform", "ex-survey42-normshare"),
    "survey_04_3_layers": ("ex-survey43-expected", "ex-survey43-distance"),
}
LABELS = [label for labels in NOTEBOOKS.values() for label in labels]


# -------------------------------------------------------------------------------- conventions


def test_labels_all_registered_with_docstrings():
    assert LABELS and len(LABELS) == len(set(LABELS))  # each label once
    for label in LABELS:
        assert label in ex.CHECKERS and ex.CHECKERS[label].__doc__, label


@pytest.mark.parametrize("label", LABELS)
def test_solution_starts_with_its_label_and_ends_with_the_check(label):
    code = cells.solution(label)
    first, last = code.splitlines()[0], code.strip().splitlines()[-1]
    assert first == f"# Exercise: {label}"
    assert re.fullmatch(rf'print\(check\("{label}", \w+\)\)', last), last


@pytest.mark.parametrize("label", LABELS)
def test_wrong_types_are_refused_politely(label):
    for answer in ("many", None, float("nan"), -1):
        fb = ex.check(label, answer)
        assert not fb.ok and fb.message, (label, answer)


# ================================================================================ survey_04_1_embeddings


def smoke_minibert():
    """The smoke mini-BERT's shape with random weights (the code paths, not the numbers), its tokenizer and config."""
    from bertology_lib.models import minibert

    cfg = minibert.MiniBertConfig.for_profile("smoke")
    tok = minibert.tokenizer_for(cfg)
    model = minibert.build_model(cfg, len(tok)).bert.eval()
    model.config._attn_implementation = "eager"
    return model, tok, cfg


@pytest.fixture(scope="module")
def toy_states():
    """The 4.1 notebook's toy_table and toy_cache at smoke, from the smoke mini-BERT's shape (random weights)."""
    from bertology_lib.analysis.activations import run_with_cache
    from bertology_lib.data import word_labels
    from bertology_lib.models import minibert

    model, tok, cfg = smoke_minibert()
    toy = minibert.fresh_sentences(cfg, 120)
    return word_labels.word_table(toy), run_with_cache(model, tok, [s.words for s in toy], batch_size=64), toy


def test_survey41_truths_agree_with_the_library():
    from bertology_lib.analysis import embeddings as emb

    for V in s41._occurrence_matrices():
        X = V[None].float()  # one layer, one word type of k occurrences
        words = ["w"] * V.shape[0]
        assert s41.self_similarity_truth(V) == pytest.approx(
            float(emb.self_similarity(X, words, min_count=2)[0]), abs=1e-5
        )
        assert s41.mev_truth(V) == pytest.approx(float(emb.mev(X, words, min_count=2)[0][0]), abs=1e-5)


def test_survey41_solutions(toy_states):
    toy_table, toy_cache, _ = toy_states
    ns = {"toy_table": toy_table, "toy_cache": toy_cache, "np": np}
    cells.solve("ex-survey41-selfsim", **dict(ns))
    cells.solve("ex-survey41-mev", **dict(ns))


def test_survey41_hints():
    def with_diagonal(V):
        U = V / V.norm(dim=-1, keepdim=True)
        return float((U @ U.T).mean())

    def dots(V):
        G = V @ V.T
        k = len(V)
        return float((G.sum() - G.trace()) / (k * (k - 1)))

    def centred(V):
        return s41.self_similarity_truth(V - V.mean(0))

    cells.fails("ex-survey41-selfsim", with_diagonal, "with itself")
    cells.fails("ex-survey41-selfsim", dots, "not dot products")
    cells.fails("ex-survey41-selfsim", centred, "do not centre")
    cells.fails("ex-survey41-selfsim", lambda V: 0.5, "normalise the rows")
    cells.fails("ex-survey41-selfsim", lambda V: V, "return a number")
    cells.fails("ex-survey41-mev", lambda V: s41.mev_truth(V - V.mean(0)), "uncentred")
    cells.fails(
        "ex-survey41-mev",
        lambda V: float(torch.linalg.svdvals(V)[0] / torch.linalg.svdvals(V).sum()),
        "square of the singular values",
    )
    cells.fails("ex-survey41-mev", lambda V: 1 - s41.mev_truth(V), "does *not* explain")
    cells.fails("ex-survey41-mev", lambda V: V.shape[0] / 0, "ZeroDivisionError")


# ================================================================================ survey_04_2_attention_heads


def test_survey42_uniform_truth_is_head_stats_of_a_uniform_head():
    from bertology_lib.analysis import attention as att

    _, test = cells.quick_probe_rows()
    patterns = [[torch.full((1, len(s) + 2, len(s) + 2), 1.0 / (len(s) + 2)) for s in test]]
    tokens = [["[CLS]", *s.words, "[SEP]"] for s in test]
    stats = att.head_stats(patterns, tokens)
    assert s42.survey42_uniform_truth() == pytest.approx(float(stats.sep.iloc[0]))


def test_survey42_uniform_solution_and_hints():
    from bertology_lib.models import minibert

    cells.solve("ex-survey42-uniform", **{"minibert": minibert})
    truth = s42.survey42_uniform_truth()
    T = s42._quick_held_out_lengths()
    secret = f"{truth:.3f}"
    cells.fails("ex-survey42-uniform", np.mean([1 / t for t in T]), "per sentence", secret=secret)
    cells.fails("ex-survey42-uniform", 2 * truth, "together", secret=secret)
    cells.fails("ex-survey42-uniform", len(T) / sum(t - 2 for t in T), "among the T tokens", secret=secret)
    cells.fails("ex-survey42-uniform", truth + 0.01, "each of a sentence's T query rows", secret=secret)


def test_survey42_normshare_truth_agrees_with_special_focus():
    from bertology_lib.analysis import attention_norms as norms

    for w, n, s in s42._attention_cases():
        T = len(s)
        toks = ["[CLS]" if i == 0 else "[SEP]" if s[i] else f"w{i}" for i in range(T)]
        maps = norms.AttentionMaps(weights=[[w[None].float()]], value_norms=[[n[None].float()]], tokens=[toks])
        focus = norms.special_focus(maps)
        assert s42.norm_share_truth(w, n, s) == pytest.approx(float(focus.norm_share.iloc[0]), abs=1e-5)
        assert float(w[:, s].sum(-1).mean()) == pytest.approx(float(focus.weight_share.iloc[0]), abs=1e-5)


def test_survey42_normshare_solution_and_hints():
    from bertology_lib.analysis import attention as att
    from bertology_lib.analysis import attention_norms as norms

    real, real_tok = cells.minilm()
    held_out = [["The", "chef", "tipped", "the", "waiter", "."], ["Nobody", "has", "ever", "found", "them", "."]]
    ns = {
        "maps": {"ud": norms.attention_maps(real, real_tok, held_out)},
        "att": att,
        "params": types.SimpleNamespace(real_model="minilm"),
    }
    cells.solve("ex-survey42-normshare", **ns)

    def rownorm(w, n):
        m = w * n[None, :]
        return m / m.sum(-1, keepdim=True)

    cells.fails("ex-survey42-normshare", lambda w, n, s: float(w[:, s].sum(-1).mean()), "share by weight")
    cells.fails("ex-survey42-normshare", lambda w, n, s: float((w * n)[:, s].sum(-1).mean()), "divide each row")
    cells.fails("ex-survey42-normshare", lambda w, n, s: float((w * n)[:, s].sum() / (w * n).sum()), "per query row")
    cells.fails(
        "ex-survey42-normshare", lambda w, n, s: float(rownorm(w, n)[~s][:, s].sum(-1).mean()), "own rows included"
    )
    cells.fails(
        "ex-survey42-normshare", lambda w, n, s: float(rownorm(w, n)[:, s].sum(-1).mean()) + 0.1, "renormalise each row"
    )


# ================================================================================ survey_04_3_layers


def test_survey43_expected_truth_by_hand():
    assert s43.expected_layer_truth([0.5, 0.6, 0.8, 0.85, 0.86]) == pytest.approx(
        (1 * 0.1 + 2 * 0.2 + 3 * 0.05 + 4 * 0.01) / 0.36
    )
    assert s43.expected_layer_truth([0.7, 0.9, 0.95, 0.92, 0.8, 0.85, 0.97]) == pytest.approx(
        (1 * 0.2 + 2 * 0.05 + 6 * 0.02) / 0.27
    )
    assert s43.expected_layer_truth([0.9, 0.8, 0.7]) == 0.0


def test_survey43_expected_solution_and_hints():
    from bertology_lib.analysis import embeddings as emb

    rng = np.random.default_rng(0)  # a smoke-sized report: 3 layers, the notebook's columns
    report = pd.DataFrame(
        [
            {
                "data": d,
                "model": m,
                "target": t,
                "subset": "all",
                "layer": layer,
                "accuracy": float(rng.uniform(0.5, 1)),
            }
            for d, m in (("toy", "trained"), ("ud", "minilm"))
            for t in ("upos", "deprel")
            for layer in range(3)
        ]
    )
    cog = emb.centre_of_gravity(report, by=("data", "target", "model"))
    printed = cells.solve("ex-survey43-expected", **{"report": report, "cog": cog})
    ours, lib = re.search(r"expected layer (\S+); centre_of_gravity (\S+)", printed).groups()
    assert ours == lib

    def raw(s):
        gain = np.diff(s)
        return float((np.arange(1, len(s)) * gain).sum() / gain.sum()) if gain.sum() > 0 else 0.0

    cells.fails("ex-survey43-expected", raw, "running maximum")
    cells.fails("ex-survey43-expected", lambda s: s43._gain_weighted(s, shift=1), "0-based")
    cells.fails("ex-survey43-expected", lambda s: float(np.argmax(s)), "best layer")
    cells.fails(
        "ex-survey43-expected",
        lambda s: float((np.arange(len(s)) * np.asarray(s)).sum() / np.sum(s)),
        "not by the scores",
    )

    def nan_when_flat(s):
        best = np.maximum.accumulate(np.asarray(s, float))
        gain = np.diff(best)
        return float((np.arange(1, len(best)) * gain).sum() / gain.sum())

    with np.errstate(invalid="ignore"):
        cells.fails("ex-survey43-expected", nan_when_flat, "is 0")


def test_survey43_distance_truth_by_hand():
    # the, keys, to, the, cabinet, are: keys <- are (root); the <- keys; cabinet <- keys; to, the <- cabinet
    heads = (2, 6, 5, 5, 2, 0)
    D = s43.tree_distance_truth(heads)
    assert D[0, 5] == 2 and D[2, 3] == 2 and D[0, 2] == 3 and D[2, 5] == 3 and (D == D.T).all()
    for heads in s43._hidden_trees():  # every tree: distances obey the triangle rule along each arc
        D = s43.tree_distance_truth(heads)
        for i, h in enumerate(heads):
            if h:
                assert D[i, h - 1] == 1 and (np.abs(D[i] - D[h - 1]) == 1).all()


def test_survey43_distance_solution_and_hints():
    from bertology_lib.analysis import structural_probe as sp
    from bertology_lib.models import minibert

    toy = minibert.fresh_sentences(minibert.MiniBertConfig.for_profile("smoke"), 120)
    printed = cells.solve("ex-survey43-distance", **{"toy": toy, "sp": sp})
    assert "gold tree: True" in printed

    def depth_difference(heads):
        d = sp.tree_depths(heads)
        return np.abs(d[:, None] - d[None, :])

    cells.fails("ex-survey43-distance", depth_difference, "depths")
    cells.fails(
        "ex-survey43-distance", lambda h: np.abs(np.arange(len(h))[:, None] - np.arange(len(h))[None, :]), "word order"
    )
    cells.fails("ex-survey43-distance", lambda h: np.zeros((2, 2)), "shape")
    cells.fails("ex-survey43-distance", lambda h: sp.tree_distances(h) + (len(h) > 3), "breadth-first")
