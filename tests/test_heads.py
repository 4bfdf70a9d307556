import pytest
import torch

from bertology_lib.training import finetune as ft
from bertology_lib.interventions import heads
from bertology_lib.data.tasks import toy_classification
from bertology_lib.errors import ParameterError


@pytest.fixture(scope="module")
def setup(tiny_bert_dir):
    task = toy_classification(n_train=24, n_dev=8, n_test=16, vocab_size=500)
    src = ft.as_source(str(tiny_bert_dir))
    tok = src.load_tokenizer()
    model = ft.build_model(task, src.load_model(), seed=0).eval()
    torch.manual_seed(0)
    with torch.no_grad():  # make every head matter (random weights, not the zero-init of a fresh head)
        for p in model.parameters():
            p.add_(0.05 * torch.randn_like(p))
    cfg = ft.FinetuneConfig.for_profile("smoke")
    feats = {s: ft.encode(task, s, tok, 32) for s in ("dev", "test")}
    return task, tok, model, cfg, feats


def _logits(model, feats, pad_id):
    batch = ft.collate(feats.rows, pad_id)
    batch.pop("labels")
    with torch.no_grad():
        return model(**batch).logits


def test_gates_at_one_equal_ungated_model(setup):
    task, tok, model, cfg, feats = setup
    ref = _logits(model, feats["test"], tok.pad_token_id)
    with heads.gate_heads(model, torch.ones(heads.head_shape(model))):
        gated = _logits(model, feats["test"], tok.pad_token_id)
    torch.testing.assert_close(gated, ref)
    # hooks are removed after the block
    torch.testing.assert_close(_logits(model, feats["test"], tok.pad_token_id), ref)


def test_zero_gate_equals_physically_removed_head(setup):
    task, tok, model, cfg, feats = setup
    mask = torch.ones(heads.head_shape(model))
    mask[0, 1] = 0
    mask[1, :] = 0  # a layer with no head left
    with heads.gate_heads(model, mask):
        gated = _logits(model, feats["test"], tok.pad_token_id)
    pruned = heads.prune_heads(model, mask)
    assert heads.heads_per_layer(pruned) == [1, 0]
    torch.testing.assert_close(_logits(pruned, feats["test"], tok.pad_token_id), gated, atol=1e-5, rtol=1e-5)
    assert heads.count_parameters(pruned) < heads.count_parameters(model)
    assert not torch.allclose(gated, _logits(model, feats["test"], tok.pad_token_id))
    assert heads.gated_vs_pruned_gap(model, pruned, feats["test"], tok.pad_token_id, mask) < 1e-5


def test_importance_one_value_per_head_and_parity_with_finite_difference(setup):
    task, tok, model, cfg, feats = setup
    imp = heads.head_importance(model, feats["dev"], tok.pad_token_id, normalize=False, batch_size=64)
    assert imp.shape == heads.head_shape(model) and (imp >= 0).all()
    # independent check: d loss / d gate by a central finite difference on one batch
    batch = ft.collate(feats["dev"].rows, tok.pad_token_id)
    eps = 1e-3

    def loss_at(g):
        with heads.gate_heads(model, g), torch.no_grad():
            return float(model(**batch).loss.double())

    g = torch.ones(heads.head_shape(model))
    g_plus, g_minus = g.clone(), g.clone()
    g_plus[1, 0] += eps
    g_minus[1, 0] -= eps
    fd = abs(loss_at(g_plus) - loss_at(g_minus)) / (2 * eps)
    assert imp[1, 0].item() == pytest.approx(fd, rel=0.05, abs=1e-4)
    masked = torch.ones(heads.head_shape(model))
    masked[0, 0] = 0
    imp2 = heads.head_importance(model, feats["dev"], tok.pad_token_id, mask=masked, batch_size=3)  # 3 batches
    assert imp2[0, 0] == 0


def test_pruning_curve_and_ablation(setup):
    task, tok, model, cfg, feats = setup
    ks = heads.pruning_grid(4, 3)
    assert ks == [0, 2, 4]
    for order in ("importance", "random"):
        c = heads.pruning_curve(model, feats["dev"], feats["test"], tok.pad_token_id, cfg, ks, order=order)
        assert list(c.removed) == ks and c.score.between(0, 1).all()
    c, masks = heads.pruning_curve(model, feats["dev"], feats["test"], tok.pad_token_id, cfg, ks, return_masks=True)
    assert [int((m == 0).sum()) for m in masks.values()] == ks
    ab = heads.single_head_ablation(model, feats, tok.pad_token_id, cfg, task.n_labels)
    assert len(ab) == 4 and {"dev_removed", "test_only", "test_full"} <= set(ab.columns)
    best = heads.best_on_dev(ab, "removed")
    assert list(best.layer) == [0, 1] and "delta" in best


def test_bad_inputs_raise_parameter_error(setup):
    task, tok, model, cfg, feats = setup
    with pytest.raises(ParameterError, match=r"mask has shape \(3, 2\); allowed: \(2, 2\)"):
        with heads.gate_heads(model, torch.ones(3, 2)):
            pass
    with pytest.raises(ParameterError, match="order='magnitude'"):
        heads.pruning_curve(model, feats["dev"], feats["test"], tok.pad_token_id, cfg, [0], order="magnitude")
    with pytest.raises(ParameterError, match="ks="):
        heads.pruning_curve(model, feats["dev"], feats["test"], tok.pad_token_id, cfg, [0, 9])
    with pytest.raises(ParameterError, match="batch_size=0"):
        heads.head_importance(model, feats["dev"], tok.pad_token_id, batch_size=0)
    with pytest.raises(ParameterError, match="no BERT blocks"):
        heads.head_shape(torch.nn.Linear(2, 2))
    with pytest.raises(ParameterError, match="kind='x'"):
        heads.best_on_dev(None, "x")


def test_item_correct_agrees_with_the_score_and_follows_the_mask(setup):
    from bertology_lib.experiments.survey.model_size import item_correct

    task, tok, model, cfg, feats = setup
    right = item_correct(model, feats["test"], tok.pad_token_id, cfg, task.n_labels)
    assert right.shape == (len(feats["test"].rows),) and set(right.tolist()) <= {0.0, 1.0}
    full = heads.score_with_mask(model, feats["test"], tok.pad_token_id, None, cfg, task.n_labels)
    assert right.mean() == pytest.approx(full)
    mask = torch.zeros(heads.head_shape(model))
    gated = item_correct(model, feats["test"], tok.pad_token_id, cfg, task.n_labels, mask=mask)
    assert gated.mean() == pytest.approx(
        heads.score_with_mask(model, feats["test"], tok.pad_token_id, mask, cfg, task.n_labels)
    )


def test_accuracy_ratio_interval_covers_seeds_and_items():
    import numpy as np

    from bertology_lib.experiments.survey import model_size as cp

    rng = np.random.default_rng(0)
    b = (rng.random((3, 200)) < 0.8).astype(float)
    a = b * (rng.random((3, 200)) < 0.9)  # a keeps about 90% of b's hits
    est, lo, hi = cp.accuracy_ratio_interval(a, b)
    assert lo < est < hi and 0.8 < est < 1.0
    assert est == pytest.approx(np.mean(a.sum(1) / b.sum(1)))
    with pytest.raises(ParameterError, match="same \\(seeds, items\\) shape"):
        cp.accuracy_ratio_interval(a, b[:, :10])
    with pytest.raises(ParameterError, match="non-zero denominator"):
        cp.accuracy_ratio_interval(a, np.zeros_like(b))
