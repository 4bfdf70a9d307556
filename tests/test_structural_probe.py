from types import SimpleNamespace

import numpy as np
import pytest
import torch

from bertology_lib.analysis import structural_probe as sp
from bertology_lib.models.registry import load_model, load_tokenizer


def _random_tree(n, rng):
    """Random recursive tree over positions 0..n-1 as 1-based heads (0 = root)."""
    order = rng.permutation(n)
    heads = [0] * n
    for k in range(1, n):
        heads[order[k]] = int(order[rng.integers(0, k)]) + 1
    return heads


def _corpus(n_sent=200, n_max=12, d=32, seed=0):
    """Layer 0: noise. Layer 1: a Pythagorean tree embedding (each word = the sum of one orthogonal
    direction per edge on its path to the root, so ‖h_i − h_j‖² is the tree distance and ‖h_i‖² the
    depth) rotated into d dimensions, plus noise in the other dimensions."""
    rng = np.random.default_rng(seed)
    Q = np.linalg.qr(rng.normal(size=(d, d)))[0]
    sents, rows0, rows1, offsets = [], [], [], [0]
    for _ in range(n_sent):
        n = int(rng.integers(5, n_max + 1))
        heads = _random_tree(n, rng)
        z = np.zeros((n, d))
        for i in range(n):
            c = i
            while heads[c] != 0:
                z[i, c] = 1.0  # the edge from c to its head
                c = heads[c] - 1
        z[:, n_max:] = rng.normal(size=(n, d - n_max))  # nuisance dimensions
        rows1.append(z @ Q.T)
        rows0.append(rng.normal(size=(n, d)))
        sents.append(SimpleNamespace(heads=heads, upos=["X"] * n, words=[f"w{i}" for i in range(n)]))
        offsets.append(offsets[-1] + n)
    X = torch.tensor(np.stack([np.concatenate(rows0), np.concatenate(rows1)]), dtype=torch.float32)
    return X, offsets, sents


def test_tree_distances_and_depths():
    heads = [2, 0, 2, 3]  # 1 <- 2 -> 3 -> 4
    D = sp.tree_distances(heads)
    assert D[0, 3] == 3 and D[0, 2] == 2 and (np.diag(D) == 0).all()
    assert sp.tree_depths(heads).tolist() == [1, 0, 1, 2]
    with pytest.raises(ValueError, match="roots"):
        sp.tree_depths([0, 0, 1])


def _prim(D, keep):
    """Independent MST: Prim's algorithm in plain Python."""
    idx = [i for i in range(len(D)) if keep[i]]
    inside, edges = {idx[0]}, set()
    while len(inside) < len(idx):
        w, a, b = min((D[a][b], a, b) for a in inside for b in idx if b not in inside)
        inside.add(b)
        edges.add(frozenset((a, b)))
    return edges


def test_mst_and_uuas_parity_with_an_independent_computation():
    rng = np.random.default_rng(0)
    preds, golds, ref_hits, ref_total = [], [], 0, 0
    for _ in range(30):
        n = int(rng.integers(3, 15))
        A = rng.random((n, n))
        D = A + A.T
        keep = rng.random(n) > 0.2
        keep[:2] = True
        heads = _random_tree(n, rng)
        assert sp.mst_edges(D, keep) == _prim(D, keep)
        preds.append(sp.mst_edges(D, keep))
        golds.append(sp.gold_edges(heads, keep))
        # gold edges by hand: (i, head) with both ends kept
        g = {frozenset((i, h - 1)) for i, h in enumerate(heads) if h and keep[i] and keep[h - 1]}
        ref_hits += len(_prim(D, keep) & g)
        ref_total += len(g)
    assert sp.uuas(preds, golds) == pytest.approx(ref_hits / ref_total)
    # an exact zero distance is still an edge
    assert sp.mst_edges(np.zeros((3, 3))) and len(sp.mst_edges(np.zeros((3, 3)))) == 2


def test_right_branching_baseline():
    chain = SimpleNamespace(heads=[2, 3, 4, 0], upos=["X"] * 4)
    assert sp.right_branching_uuas([chain]) == 1.0
    star = SimpleNamespace(heads=[0, 1, 1, 1, 1], upos=["X", "X", "PUNCT", "X", "X"])
    # kept words 0,1,3,4: chain edges {0,1},{1,3},{3,4}; gold {0,1},{0,3},{0,4}
    assert sp.right_branching_uuas([star]) == pytest.approx(1 / 3)


def test_probes_recover_a_planted_tree_and_not_noise():
    X, offsets, sents = _corpus()
    cfg = sp.StructuralProbeConfig(rank=16, epochs=40, lr=1e-2, batch_size=20, min_len=5)
    rep = sp.probe_report(X, offsets, sents, range(150), range(150, 200), cfg)
    dist = rep[rep.probe == "distance"].set_index("layer")
    depth = rep[rep.probe == "depth"].set_index("layer")
    assert dist.uuas[1] > 0.95 and dist.spearman[1] > 0.9
    assert depth.root_acc[1] > 0.9 and depth.spearman[1] > 0.9
    assert dist.uuas[0] < 0.5 and depth.root_acc[0] < 0.5
    assert sp.best_layer(rep, "model", "distance").layer == 1
    assert sp.right_branching_uuas([sents[s] for s in range(150, 200)]) < dist.uuas[1]


def test_rank_sweep_and_low_rank_hurts():
    X, offsets, sents = _corpus(n_sent=120)
    cfg = sp.StructuralProbeConfig(epochs=30, lr=1e-2)
    rep = sp.probe_report(X[1:], offsets, sents, range(90), range(90, 120), cfg, kinds=("distance",), ranks=[1, 16])
    u = rep.set_index("rank").uuas
    assert list(rep["rank"]) == [1, 16] and u[16] > u[1] + 0.2


def test_bad_arguments():
    X, offsets, sents = _corpus(n_sent=5)
    heads = [s.heads for s in sents]
    with pytest.raises(ValueError, match="kind='tree'"):
        sp.fit_structural_probe(X, offsets, heads, [0], "tree")
    with pytest.raises(ValueError, match="rank=0"):
        sp.StructuralProbeConfig(rank=0)
    with pytest.raises(ValueError, match="sentences in offsets"):
        sp.fit_structural_probe(X, offsets, heads[:-1], [0])


def test_all_layers_from_one_forward_pass(tiny_bert_dir):
    model, tok = load_model(str(tiny_bert_dir)), load_tokenizer(str(tiny_bert_dir))
    words = [["the", "chef", "tipped", "the", "waiter", "."], ["a", "robin", "is", "a", "bird"]] * 4
    heads = [[2, 3, 0, 5, 3, 3], [2, 5, 5, 5, 0]] * 4
    upos = [["DET", "NOUN", "VERB", "DET", "NOUN", "PUNCT"], ["DET", "NOUN", "AUX", "DET", "NOUN"]] * 4
    sents = [SimpleNamespace(words=w, heads=h, upos=u) for w, h, u in zip(words, heads, upos)]
    calls = []
    hook = model.register_forward_hook(lambda *a: calls.append(1))
    rep = sp.probe_models(
        {"tiny": (model, tok)}, sents, range(6), range(6, 8), sp.StructuralProbeConfig(rank=4, epochs=2), batch_size=64
    )
    hook.remove()
    assert len(calls) == 1  # one activation pass serves every layer and both probes
    assert sorted(rep.layer.unique()) == list(range(model.config.num_hidden_layers + 1))
    assert set(rep.probe) == {"distance", "depth"}


def test_profiles():
    assert sp.StructuralProbeConfig.for_profile("smoke").epochs < sp.StructuralProbeConfig.for_profile("quick").epochs
    assert sp.StructuralProbeConfig.for_profile("quick", rank=8).rank == 8
    assert 64 in sp.rank_sweep("quick")
    with pytest.raises(ValueError, match="profile='huge'"):
        sp.rank_sweep("huge")


def test_models_stacked_train_like_separate_ones():
    X, offsets, sents = _corpus(n_sent=120)
    cfg = sp.StructuralProbeConfig(rank=16, epochs=30, lr=1e-2)
    both = sp.probe_report({"tree": X[1:], "noise": X[:1]}, offsets, sents, range(90), range(90, 120), cfg)
    assert set(zip(both.model, both.layer)) == {("tree", 0), ("noise", 0)}
    d = both[both.probe == "distance"].set_index("model").uuas
    alone = sp.probe_report(X[1:], offsets, sents, range(90), range(90, 120), cfg, kinds=("distance",))
    assert d["tree"] > 0.9 and d["noise"] < 0.5 and abs(d["tree"] - alone.uuas[0]) < 0.05
    with pytest.raises(ValueError, match="same words"):
        sp.probe_report({"a": X, "b": X[:, :10]}, offsets, sents, range(90), range(90, 120), cfg)
