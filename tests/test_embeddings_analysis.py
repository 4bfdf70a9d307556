import itertools

import numpy as np
import pandas as pd
import pytest
import torch

from bertology_lib.analysis import embeddings as emb
from bertology_lib.models.registry import load_model, load_tokenizer


def _cos(a, b):
    return float(np.dot(a, b) / np.linalg.norm(a) / np.linalg.norm(b))


def _data(seed=0, n_sent=30, n_words=6, d=16):
    """Layer 0: a static embedding per word type; layer 1: isotropic noise; layer 2: one shared direction."""
    g = torch.Generator().manual_seed(seed)
    vocab = [f"w{i}" for i in range(8)]
    rng = np.random.default_rng(seed)
    words = [vocab[i] for i in rng.integers(0, len(vocab), n_sent * n_words)]
    sid = np.repeat(np.arange(n_sent), n_words)
    static = torch.randn(len(vocab), d, generator=g)
    X = torch.zeros(3, len(words), d)
    X[0] = static[[vocab.index(w) for w in words]]
    X[1] = torch.randn(len(words), d, generator=g)
    X[2] = 5 + 0.1 * torch.randn(len(words), d, generator=g)
    return X, words, sid


def test_anisotropy_is_high_for_a_shared_direction_and_low_for_noise():
    X, words, sid = _data()
    a = emb.anisotropy(X, sid, n_pairs=500)
    assert a[2] > 0.99 and abs(a[1]) < 0.1


def test_self_and_intra_similarity_parity_with_brute_force():
    X, words, sid = _data(n_sent=8)
    ss = emb.self_similarity(X, words, min_count=3, max_occurrences=None)
    intra = emb.intra_similarity(X, sid)
    for L in range(3):
        x = X[L].numpy()
        per_type = []
        for w in sorted(set(words)):
            r = [i for i, v in enumerate(words) if v == w]
            if len(r) >= 3:
                per_type.append(np.mean([_cos(x[i], x[j]) for i, j in itertools.permutations(r, 2)]))
        assert ss[L] == pytest.approx(np.mean(per_type), abs=1e-6)
        per_sent = []
        for s in np.unique(sid):
            r = np.flatnonzero(sid == s)
            m = x[r].mean(0)
            per_sent.append(np.mean([_cos(x[i], m) for i in r]))
        assert intra[L] == pytest.approx(np.mean(per_sent), abs=1e-6)
    assert ss[0] == pytest.approx(1.0)  # a static embedding has self-similarity 1


def test_mev_parity_with_numpy_svd_and_baseline():
    X, words, sid = _data()
    m, base = emb.mev(X, words, min_count=5)
    assert m[0] == pytest.approx(1.0)  # a static embedding explains everything
    rows = [i for i, w in enumerate(words) if w == "w3"]
    M = X[1, rows].numpy()
    s = np.linalg.svd(M, compute_uv=False) ** 2
    one = emb.mev(X[:, rows], ["w3"] * len(rows), min_count=2)[0][1]
    assert one == pytest.approx(s[0] / s.sum())
    assert base[2] > 0.99 and m[1] < 0.5  # shared direction: random rows look static too
    df = emb.contextuality(X, words, sid, n_pairs=500)
    assert list(df.layer) == [0, 1, 2]
    assert df.self_similarity_adj.tolist() == pytest.approx((df.self_similarity - df.anisotropy).tolist())
    assert df.n_types.iloc[0] == 8
    with pytest.raises(ValueError, match="min_count"):
        emb.self_similarity(X, words, min_count=10_000)


def test_position_labels():
    assert emb.position_labels([0, 3, 9, 10, 25], cap=10) == ["0", "3", "9", "10+", "10+"]
    with pytest.raises(ValueError, match="cap=0"):
        emb.position_labels([1], cap=0)


@pytest.fixture(scope="module")
def tiny(tiny_bert_dir):
    return load_model(str(tiny_bert_dir)), load_tokenizer(str(tiny_bert_dir))


def test_sentence_states_cls_and_mean(tiny):
    model, tok = tiny
    texts = ["the chef tipped the waiter .", "a robin is a bird"]
    st = emb.sentence_states(model, tok, texts)
    L = model.config.num_hidden_layers
    assert st["cls"].shape == st["mean"].shape == (L + 1, 2, model.config.hidden_size)
    enc = tok(texts[1], return_tensors="pt")
    hs = model(**enc, output_hidden_states=True).hidden_states
    assert torch.allclose(st["cls"][2, 1], hs[2][0, 0], atol=1e-5)
    assert torch.allclose(st["mean"][1, 1], hs[1][0, 1:-1].mean(0), atol=1e-5)  # specials left out


def test_pooling_comparison_reads_the_informative_pooling():
    g = torch.Generator().manual_seed(0)
    n, d = 200, 6
    y = torch.randint(0, 2, (n,), generator=g)
    mean = torch.randn(3, n, d, generator=g)
    mean[2, :, 0] += 3 * (2 * y - 1)
    states = {"cls": torch.randn(3, n, d, generator=g), "mean": mean}
    df = emb.pooling_comparison(states, y.tolist(), range(150), range(150, 200), concat_last=2)
    assert set(df.pooling) == {"cls", "mean", "concat last 2 (mean)"}
    acc = df.set_index(["pooling", "layer"]).test_acc
    assert acc["mean", 2] > 0.9 and acc["cls"].max() < 0.8 and acc["concat last 2 (mean)", 2] > 0.9


def test_sense_separability_and_pca():
    g = torch.Generator().manual_seed(0)
    senses = ["noun"] * 20 + ["verb"] * 20
    X = torch.randn(2, 40, 8, generator=g)
    X[1, :20, 0] += 6
    X[1, 20:, 0] -= 6
    df = emb.sense_separability(X, senses)
    assert df.accuracy[1] == 1.0 and df.accuracy[0] < 0.8 and df.majority[0] == 0.5
    xy = emb.pca_2d(X[1])
    assert xy.shape == (40, 2) and xy[:, 0].var() > xy[:, 1].var()
    assert np.sign(xy[:20, 0]).tolist().count(np.sign(xy[0, 0])) == 20  # first PC splits the senses
    with pytest.raises(ValueError, match="one value"):
        emb.sense_separability(X, ["noun"] * 40)


def test_centre_of_gravity():
    report = pd.DataFrame(
        {
            "target": ["a"] * 4 + ["b"] * 4,
            "model": "m",
            "layer": [0, 1, 2, 3] * 2,
            "accuracy": [0.5, 0.7, 0.9, 0.8, 0.5, 0.5, 0.6, 0.9],
        }
    )
    cog = emb.centre_of_gravity(report).set_index("target")
    assert cog.loc["a", "expected_layer"] == pytest.approx(1.5)  # gains at layers 1 and 2; the drop ignored
    assert cog.loc["b", "expected_layer"] == pytest.approx((2 * 0.1 + 3 * 0.3) / 0.4)
    assert cog.loc["a", "best_layer"] == 2 and cog.loc["b", "best_layer"] == 3


def test_ambiguous_words():
    words = ["run"] * 6 + ["dog"] * 5 + ["walk"] * 9
    senses = ["NOUN"] * 3 + ["VERB"] * 3 + ["NOUN"] * 5 + ["NOUN"] * 5 + ["VERB"] * 4
    amb = emb.ambiguous_words(words, senses, min_per_sense=3)
    assert amb.word.tolist() == ["walk", "run"] and amb.senses[0] == "NOUN/VERB" and amb.minority[0] == 4
    assert emb.ambiguous_words(words, senses, min_per_sense=5).empty


def test_sense_report_uses_qualifying_senses_only():
    g = torch.Generator().manual_seed(0)
    words = ["run"] * 13 + ["dog"] * 5
    senses = ["NOUN"] * 6 + ["VERB"] * 6 + ["X"] + ["NOUN"] * 5
    X = torch.randn(2, len(words), 4, generator=g)
    X[1, :6, 0] += 5
    rep = emb.sense_report(X, words, senses, min_per_sense=3, n_folds=3)
    assert set(rep.word) == {"run"} and (rep.n == 12).all() and rep.gain[1] > 0.35 and rep.majority[0] == 0.5
    assert emb.sense_report(X, words, senses, min_per_sense=50).empty


def test_centre_of_gravity_without_gains_is_layer_zero():
    flat = pd.DataFrame({"target": "a", "model": "m", "layer": [0, 1, 2], "accuracy": [0.9, 0.8, 0.9]})
    assert emb.centre_of_gravity(flat).expected_layer[0] == 0.0
