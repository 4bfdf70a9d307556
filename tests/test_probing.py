import numpy as np
import pytest
import torch
import torch.nn.functional as F

from bertology_lib.analysis import probing
from bertology_lib.errors import ParameterError


def _toy(n=600, d=8, layers=3, seed=0):
    """Layer 0: noise; layer 1: label linearly readable; layer 2: readable only non-linearly (XOR)."""
    g = torch.Generator().manual_seed(seed)
    y = torch.randint(0, 2, (n,), generator=g)
    X = torch.randn(layers, n, d, generator=g)
    X[1, :, 0] += 3 * (2 * y - 1)
    a = torch.randint(0, 2, (n,), generator=g)
    b = a ^ y
    X[2, :, 1] = 2 * a - 1 + 0.1 * torch.randn(n, generator=g)
    X[2, :, 2] = 2 * b - 1 + 0.1 * torch.randn(n, generator=g)
    return X, y.tolist()


def test_sweep_finds_the_informative_layer():
    X, y = _toy()
    df = probing.probe_sweep(X, y, range(400), range(400, 600))
    acc = df.test_acc.tolist()
    assert acc[1] > 0.95 and acc[0] < 0.65 and acc[2] < 0.65  # linear probe cannot do XOR
    mlp = probing.probe_sweep(
        X, y, range(400), range(400, 600), probing.ProbeConfig(kind="mlp", max_iter=150, hidden=32, lr=1e-2)
    )
    assert mlp.test_acc[2] > 0.9


def test_linear_probe_parity_with_sklearn():
    """Independent check: same features, sklearn's multinomial logistic regression."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler

    g = torch.Generator().manual_seed(1)
    n, d, C = 900, 12, 4
    centers = torch.randn(C, d, generator=g)
    y = torch.randint(0, C, (n,), generator=g)
    X = (centers[y] + 1.5 * torch.randn(n, d, generator=g)).unsqueeze(0)
    ours = probing.probe_sweep(X, y.tolist(), range(600), range(600, 900), probing.ProbeConfig(l2=1e-4))
    sc = StandardScaler().fit(X[0, :600].numpy())
    clf = LogisticRegression(C=1e4 / 600, max_iter=2000).fit(sc.transform(X[0, :600].numpy()), y[:600].numpy())
    ref = clf.score(sc.transform(X[0, 600:].numpy()), y[600:].numpy())
    assert abs(float(ours.test_acc[0]) - ref) <= 0.02


def test_control_task_is_type_consistent_and_selectivity():
    words = ["a", "b", "a", "c", "b", "a"] * 50
    labels = ["X", "Y", "X", "Y", "Y", "X"] * 50
    ctrl = probing.control_labels(words, labels, seed=0)
    by_word = {}
    for w, c in zip(words, ctrl):
        assert by_word.setdefault(w, c) == c
    assert probing.control_labels(words, labels, seed=0) == ctrl
    X = torch.randn(2, len(words), 4)
    sel = probing.selectivity(X, words, labels, range(200), range(200, 300))
    assert set(sel.columns) >= {"task_acc", "control_acc", "selectivity"}


def test_online_codelength_prefers_the_informative_layer():
    X, y = _toy(n=1000)
    df = probing.online_codelength(X, y, range(1000))
    assert df.compression[1] > 2 and df.compression[1] > df.compression[0] + 1
    assert df.uniform_bits[0] == pytest.approx(1000.0)


def test_inlp_removes_linear_information():
    X, y = _toy(n=800)
    P, accs = probing.inlp_projection(X[1], y, n_iter=4)
    assert accs[0] > 0.95 and accs[-1] < 0.7
    assert torch.allclose(P @ P, P, atol=1e-4)  # a projection
    R = probing.random_projection(8, 4)
    assert torch.allclose(R @ R, R, atol=1e-5) and round(float(torch.trace(R))) == 4
    with pytest.raises(ParameterError, match="rank=9.*allowed"):
        probing.random_projection(8, 9)


def test_majority_baseline_and_validation():
    words = ["run", "run", "run", "cat", "dog"]
    labels = ["VERB", "VERB", "NOUN", "NOUN", "NOUN"]
    # run->VERB (wrong for item 2), cat->NOUN (right), unseen dog->overall majority VERB (wrong)
    assert probing.majority_baseline(words, labels, [0, 1, 3], [2, 3, 4]) == pytest.approx(1 / 3)
    with pytest.raises(ParameterError, match="kind='svm'.*allowed: 'linear', 'mlp'"):
        probing.ProbeConfig(kind="svm")
    with pytest.raises(ParameterError, match="l2=-1.*allowed"):
        probing.ProbeConfig(l2=-1.0)
    with pytest.raises(ParameterError, match="max_iter=0.*allowed"):
        probing.ProbeConfig(max_iter=0)
    with pytest.raises(ParameterError, match=r"shape \(2, 3, 4\); allowed"):
        probing.probe_sweep(torch.zeros(2, 3, 4), [0, 1], [0], [1])
    with pytest.raises(ParameterError, match="must align"):
        probing.control_labels(["a"], [1, 2])
    assert np.isfinite(probing.probe_sweep(torch.randn(1, 20, 3), [0, 1] * 10, range(10), range(10, 20)).test_acc[0])


@pytest.mark.parametrize("kind", ["linear", "mlp"])
def test_classes_in_the_middle_layout_is_the_same_problem(kind):
    """Logits (P, C, n) give the loss and gradients of the textbook (P, n, C) layout, and forward keeps (P, n, C)."""
    g = torch.Generator().manual_seed(0)
    P, n, d, C = 3, 50, 6, 4
    X, y = torch.randn(P, n, d, generator=g), torch.randint(0, C, (n,), generator=g)
    cfg = probing.ProbeConfig(kind=kind, hidden=5)
    probes = probing.LayerProbes(P, d, C, cfg)
    with torch.no_grad():
        for p in probes.parameters():
            p.copy_(torch.randn(p.shape, generator=g))
    assert probes.W.shape == (P, C, 5 if kind == "mlp" else d) and probes.b.shape == (P, C, 1)
    Z = probes.scores(X)
    assert Z.shape == (P, C, n) and torch.equal(probes(X), Z.transpose(1, 2))
    # reference: every probe on its own, rows x classes, written out by hand
    h = [torch.relu(X[p] @ probes.W1[p].T + probes.b1[p].T) if kind == "mlp" else X[p] for p in range(P)]
    ref = torch.stack([h[p] @ probes.W[p].T + probes.b[p].T for p in range(P)])  # (P, n, C)
    assert torch.allclose(probes(X), ref, atol=1e-5)
    new = F.cross_entropy(Z, y.expand(P, n), reduction="sum") / n
    old = F.cross_entropy(ref.reshape(-1, C), y.repeat(P), reduction="sum") / n
    g_new = torch.autograd.grad(new, probes.W, retain_graph=True)[0]
    g_old = torch.autograd.grad(old, probes.W)[0]
    assert torch.allclose(new, old, atol=1e-5) and torch.allclose(g_new, g_old, atol=1e-5)


def test_fit_probes_are_independent_per_layer():
    """The joint fit of two layers gives each layer the probe it gets alone (the losses only add up)."""
    X, y = _toy(n=300)
    X, y = X[:2], torch.tensor(y)
    cfg = probing.ProbeConfig(max_iter=300)
    Xs = probing.standardize(X, torch.arange(200))
    both = probing.fit_probes(Xs, y, torch.arange(200), 2, cfg)
    alone = probing.fit_probes(Xs[1:], y, torch.arange(200), 2, cfg)
    assert torch.allclose(both.W[1], alone.W[0], atol=2e-3)
    assert torch.equal(probing.probe_accuracy(both, Xs, y)[1:], probing.probe_accuracy(alone, Xs[1:], y))
