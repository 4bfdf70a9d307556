"""Survey §4.1-§4.2 verdicts (issue 16): held-out choices of heads and layers, baselines measured in the same run,
and rules that a model with nothing learned does not pass. Each measure is checked once against an independent
computation (the pooled attention statistics, a pairwise cosine loop) and on a null model: a model compared with
itself as its twin, or a head that attends uniformly."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import torch

from bertology_lib.analysis import attention as att
from bertology_lib.analysis import attention_heldout as held
from bertology_lib.analysis import attention_norms as norms
from bertology_lib.analysis import embeddings as emb
from bertology_lib.book.claims import Verdict, load_all, make_claim
from bertology_lib.experiments.survey import location

NOTEBOOKS = ("survey_04_1_embeddings", "survey_04_2_attention_heads")


def _sentence(n_words: int) -> list[str]:
    return ["[CLS]", *[f"w{i}" for i in range(n_words)], ".", "[SEP]"]


def _random_maps(tokens, n_layers=3, n_heads=2, seed=0):
    g = torch.Generator().manual_seed(seed)
    return [
        [torch.softmax(torch.randn(n_heads, len(t), len(t), generator=g) * 2, -1) for t in tokens]
        for _ in range(n_layers)
    ]


def _uniform_maps(tokens, n_layers=3, n_heads=2):
    return [[torch.full((n_heads, len(t), len(t)), 1 / len(t)) for t in tokens] for _ in range(n_layers)]


# -- §4.2: attention shares by sentence -----------------------------------------------------------------
def test_head_sums_pool_to_head_stats():
    tokens = [_sentence(n) for n in (3, 5, 8, 4)]
    maps = _random_maps(tokens)
    sums = held.head_sums(maps, tokens)
    stats = att.head_stats(maps, tokens).set_index(["layer", "head"])
    for col in held.SUM_COLUMNS:
        share = sums.share(col)
        for (L, h), v in stats[col].items():
            assert share[L, h] == pytest.approx(v)
    uniform = att.head_stats(_uniform_maps(tokens), tokens)
    for col in held.SUM_COLUMNS:
        assert sums.uniform_share(col) == pytest.approx(float(uniform[col].iloc[0]))
    assert sums.uniform_share("sep") == pytest.approx(len(tokens) / sum(len(t) for t in tokens))  # the exercise's 1/T


def test_chosen_share_picks_on_validation_and_scores_held_out():
    tokens = [_sentence(4) for _ in range(20)]
    maps = _uniform_maps(tokens, n_layers=3, n_heads=2)
    for s in range(10):  # on the validation sentences layer 2 looks at [SEP]; on the held-out ones it does not
        maps[2][s] = torch.zeros_like(maps[2][s])
        maps[2][s][..., -1] = 1.0
    for s in range(10, 20):  # layer 1 does, but only on the held-out ones
        maps[1][s] = torch.zeros_like(maps[1][s])
        maps[1][s][..., -1] = 1.0
    r = held.chosen_share(held.head_sums(maps, tokens), "sep", range(10), range(10, 20))
    assert r["layer"] == 2 and r["selection_share"] == pytest.approx(1.0) and r["head"] is None
    assert r["share"] == pytest.approx(1 / 7) == r["uniform"]  # scored where the choice was not made
    assert r["low"] <= r["share"] <= r["high"]
    pos = held.chosen_share(held.head_sums(maps, tokens), ("prev", "next"), range(10), range(10, 20), by="head")
    assert pos["column"] in ("prev", "next") and pos["head"] in (0, 1)


def test_a_uniform_head_does_not_reproduce_sep_attention():
    tokens = [_sentence(n) for n in range(3, 23)]
    r = held.chosen_share(held.head_sums(_uniform_maps(tokens), tokens), "sep", range(10), range(10, 20))
    for cid in ("survey4.2.sep_attention", "survey4.2.sep_attention_minilm"):
        c = make_claim(cid, ours=(r["share"], r["low"], r["high"]), checks={"null_below_half": r["uniform"]})
        assert c.verdict == "not reproduced" and c.instrument == "ok"
    short = [["[CLS]", "w", "[SEP]"]] * 4  # 3 tokens: a uniform head already gives [SEP] a third, not half
    assert held.head_sums(_uniform_maps(short), short).uniform_share("sep") == pytest.approx(1 / 3)


def test_type_share_counts_maps_and_resamples_sentences():
    df = pd.DataFrame(
        {
            "sentence": [0, 0, 1, 1, 2, 2],
            "type": ["vertical", "heterogeneous", "block", "diagonal", "heterogeneous", "heterogeneous"],
        }
    )
    est, low, high = held.type_share(df, ["vertical", "diagonal", "block"])
    assert est == pytest.approx(0.5) and 0 <= low <= est <= high <= 1


def _trees(n_sent=30, n=6):
    # a chain: every word's head is the next word (1-based), the last word is the root; relations alternate
    heads = [[i + 2 for i in range(n - 1)] + [0] for _ in range(n_sent)]
    rels = [["det" if i % 2 == 0 else "amod" for i in range(n - 1)] + ["root"] for _ in range(n_sent)]
    return heads, rels


def _pointer_maps(n_sent, n, targets_by_head, n_layers=2):
    """Word-level maps: head h of every layer puts all attention on targets_by_head[h](i) from word i."""
    out = []
    for _ in range(n_layers):
        per = []
        for _ in range(n_sent):
            a = torch.full((len(targets_by_head), n, n), 1e-3)
            for h, f in enumerate(targets_by_head):
                for i in range(n):
                    a[h, i, f(i, n)] = 1.0
            per.append(a / a.sum(-1, keepdim=True))
        out.append(per)
    return out


def test_syntactic_gain_against_the_stronger_baseline_and_a_null_model():
    heads, rels = _trees()
    n = 6
    # head 0 points at the next word (the gold head of every non-root word), head 1 at the word before
    good = _pointer_maps(30, n, [lambda i, n: min(i + 1, n - 1) if i < n - 1 else n - 2, lambda i, n: max(i - 1, 0)])
    table, g = held.syntactic_gain(good, heads, rels, range(15), range(15, 30), min_arcs=5)
    assert set(table.relation) == {"det", "amod"} and (table.accuracy == 1.0).all()
    assert table.baseline.str.startswith("offset").all() and g["gain"] == pytest.approx(0.0)  # offset +1 is as good
    _, same = held.syntactic_gain(good, heads, rels, range(15), range(15, 30), twin_patterns=good, min_arcs=5)
    assert same["gain"] == pytest.approx(0.0) and same["low"] == pytest.approx(0.0)
    c = make_claim(
        "survey4.2.syntactic_heads",
        ours=(same["gain"], same["low"], same["high"]),
        checks={"relations_scored": same["n_relations"]},
    )
    assert c.verdict != "reproduced"


def test_specialists_beat_a_single_head_only_when_relations_need_different_heads():
    heads, rels = _trees()
    n = 6
    # head 0 is right for det arcs (even positions), head 1 for amod arcs (odd positions), neither for both
    maps = _pointer_maps(
        30,
        n,
        [lambda i, n: i + 1 if i % 2 == 0 and i < n - 1 else 0, lambda i, n: i + 1 if i % 2 == 1 and i < n - 1 else 0],
    )
    r = held.specialists_vs_single(maps, heads, rels, range(15), range(15, 30), min_arcs=5)
    assert r["specialists"] == pytest.approx(1.0) and r["gap"] > 0.3 and r["n_relations"] == 2
    one = _pointer_maps(30, n, [lambda i, n: min(i + 1, n - 1) if i < n - 1 else 0, lambda i, n: 0])
    r1 = held.specialists_vs_single(one, heads, rels, range(15), range(15, 30), min_arcs=5)
    assert r1["gap"] == pytest.approx(0.0) and r1["single"] == pytest.approx(1.0)


def test_focus_lost_pools_special_focus():
    tokens = [_sentence(n) for n in (3, 5, 6)]
    maps = _random_maps(tokens, n_layers=2, n_heads=3)
    g = torch.Generator().manual_seed(1)
    vnorms = [[torch.rand(3, len(t), generator=g) + 0.1 for t in tokens] for _ in range(2)]
    m = norms.AttentionMaps(weights=maps, value_norms=vnorms, tokens=tokens)
    f = norms.special_focus(m)
    est, low, high = norms.focus_lost(m)
    assert est == pytest.approx(1 - f.norm_share.sum() / f.weight_share.sum())
    assert low <= est <= high
    same = norms.AttentionMaps(weights=maps, value_norms=[[torch.ones(3, len(t)) for t in tokens]] * 2, tokens=tokens)
    assert norms.focus_lost(same)[0] == pytest.approx(0.0, abs=1e-6)  # equal norms: nothing is lost


def test_collect_head_sums_matches_one_pass(tiny_bert_dir):
    from bertology_lib.models.registry import load_model, load_tokenizer

    model, tok = load_model(str(tiny_bert_dir)), load_tokenizer(str(tiny_bert_dir))
    texts = [["the", "chef", "tipped"], ["a", "robin", "is", "a", "bird"], ["the", "waiter"]]
    m = norms.attention_maps(model, tok, texts, with_norms=False)
    whole = held.head_sums(m.weights, m.tokens)
    chunked = norms.collect_head_sums(model, tok, texts, chunk=2)
    assert np.allclose(whole.sums, chunked.sums, atol=1e-6) and (whole.n_tokens == chunked.n_tokens).all()


# -- §4.1: embeddings against the twin -------------------------------------------------------------------
def _states(seed=0, n_layers=4, n_sent=40, n=6, d=16):
    g = torch.Generator().manual_seed(seed)
    vocab = [f"w{i}" for i in range(12)]
    words = [vocab[(s * 7 + i * 3) % 12] for s in range(n_sent) for i in range(n)]
    sid = [s for s in range(n_sent) for _ in range(n)]
    emb_ = torch.randn(12, d, generator=g)
    base = torch.stack([emb_[vocab.index(w)] for w in words])
    X = torch.stack([base + 0.3 * L * torch.randn(len(words), d, generator=g) for L in range(n_layers)])
    return X, words, sid


def test_pair_cosines_and_per_type_self_similarity_parity():
    X, words, sid = _states()
    assert np.allclose(emb.pair_cosines(X, sid).mean(-1), emb.anisotropy(X, sid))
    per, names = emb.self_similarity_by_type(X, words, max_occurrences=None)
    assert np.allclose(per.mean(-1), emb.self_similarity(X, words, max_occurrences=None))
    rows = [i for i, w in enumerate(words) if w == names[0]]
    U = X[2, rows].double() / X[2, rows].double().norm(dim=-1, keepdim=True)
    pairs = [float(U[i] @ U[j]) for i in range(len(rows)) for j in range(len(rows)) if i != j]
    assert per[2, 0] == pytest.approx(np.mean(pairs))
    ours, base = emb.mev_by_type(X, words)
    assert np.allclose(ours.mean(-1), emb.mev(X, words)[0]) and np.allclose(base.mean(-1), emb.mev(X, words)[1])


def test_geometry_claims_of_a_model_against_itself_are_zero_and_not_reproduced():
    X, words, sid = _states()
    g = location.geometry_claims(X, X, words, sid, n_resamples=50)
    for claim in ("anisotropy", "anisotropy_grows", "context_specific"):
        assert g[claim] == pytest.approx((0.0, 0.0, 0.0), abs=1e-12)
        assert make_claim(f"survey4.1.{claim}", ours=g[claim]).verdict == "inconclusive"
    shifted = X + torch.arange(X.shape[0])[:, None, None] * 2.0 * torch.ones(X.shape[-1])  # a growing shared offset
    up = location.geometry_claims(shifted, X, words, sid, n_resamples=50)
    assert up["anisotropy"][1] > 0 and up["anisotropy_grows"][1] > 0
    assert make_claim("survey4.1.anisotropy", ours=up["anisotropy"]).verdict == "reproduced"
    assert g["layer0_mev"][0] > 0.05 and list(g["by_layer"].layer) == list(range(X.shape[0]))


def test_static_mev_rule_fails_the_registered_null_and_needs_the_positive_control():
    s = load_all()["survey4.1.static_mev"]
    assert s.rule.verdict(None, s.null) is Verdict.NOT_REPRODUCED
    noise = make_claim("survey4.1.static_mev", ours=(0.0, -0.01, 0.01), checks={"mev_sees_layer0": 0.0})
    assert noise.verdict == "inconclusive" and noise.instrument.startswith("failed")


def test_sense_heldout_beats_a_twin_that_cannot_see_senses():
    g = torch.Generator().manual_seed(0)
    n_sent, d = 60, 8
    words = ["that"] * n_sent + ["x"] * n_sent
    senses = ["DET" if s % 2 else "PRON" for s in range(n_sent)] + ["NOUN"] * n_sent
    sid = list(range(n_sent)) * 2
    y = torch.tensor([1.0 if s == "DET" else 0.0 for s in senses])
    X = torch.randn(3, len(words), d, generator=g) * 0.1
    X[1:, :, 0] += 3 * y  # layers 1-2 separate the senses
    twin = torch.randn(3, len(words), d, generator=g)
    table, r = location.sense_heldout(X, twin, words, senses, sid, n_words=1, min_per_sense=5)
    assert list(table.word) == ["that"] and table.layer.iloc[0] in (1, 2)
    assert r["accuracy"] == pytest.approx(1.0) and r["low"] > 0
    _, same = location.sense_heldout(X, X, words, senses, sid, n_words=1, min_per_sense=5)
    assert same["gap"] <= 1e-12  # the model against itself as twin, or the majority if that is stronger


def test_pooling_heldout_pairs_test_sentences_and_checks_the_twin():
    g = torch.Generator().manual_seed(0)
    n, d = 200, 6
    y = [i % 2 for i in range(n)]
    lab = torch.tensor(y, dtype=torch.float)
    mean = torch.randn(3, n, d, generator=g)
    mean[2, :, 0] += 3 * lab  # the label is in the mean vector of layer 2, not in [CLS]
    states = {"cls": torch.randn(3, n, d, generator=g), "mean": mean}
    twin = {"cls": torch.randn(3, n, d, generator=g), "mean": torch.randn(3, n, d, generator=g)}
    table, r = location.pooling_heldout(states, twin, y, range(100), range(100, 150), range(150, 200))
    assert r["mean_layer"] == 2 and r["low"] > 0 and r["vs_twin"][1] > 0 and r["n_test"] == 50
    assert table.chosen.sum() == 6 and set(table.model) == {"model", "twin"}
    _, null = location.pooling_heldout(twin, twin, y, range(100), range(100, 150), range(150, 200))
    assert null["vs_twin"][1] <= 0  # a twin against itself: the instrument check fails


# -- the registry ----------------------------------------------------------------------------------------
def test_every_location_claim_is_null_safe_and_names_its_model_in_the_statement():
    reg = {k: s for k, s in load_all().items() if s.notebook in NOTEBOOKS}
    assert {"survey4.2.sep_attention_minilm", "survey4.1.anisotropy_minilm", "survey4.1.mean_pooling_minilm"} <= set(
        reg
    )
    for s in reg.values():
        assert type(s.rule).__name__ in ("BeatsBaseline", "IntervalAbove", "Equivalent"), s.id
        assert s.note, s.id
        null = s.null if s.null is not None else (0.0, -0.05, 0.05)
        assert s.rule.verdict(None, null) is not Verdict.REPRODUCED or s.checks, s.id
        assert any(w in s.statement for w in ("MiniLM", "lab BERT", "mini-BERT", "The same")), s.id
