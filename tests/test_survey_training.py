"""Tests for bertology_lib.experiments.survey.training (survey §5 fine-tuning): tiny models, private cache."""

from __future__ import annotations

import pytest
import torch

from bertology_lib import stats
from bertology_lib.analysis.similarity import linear_cka
from bertology_lib.errors import ParameterError
from bertology_lib.experiments.survey import pretraining as pre
from bertology_lib.experiments.survey import training as tv
from bertology_lib.models.task_heads import SequenceClassifier
from bertology_lib.training import finetune as ft


@pytest.fixture
def tiny_classifier(tiny_bert_dir):
    from transformers import AutoModel

    enc = AutoModel.from_pretrained(tiny_bert_dir)
    return SequenceClassifier(enc, 2, seed=0)


def _batch(n: int = 4, t: int = 6):
    g = torch.Generator().manual_seed(0)
    return {
        "input_ids": torch.randint(5, 18, (n, t), generator=g),
        "attention_mask": torch.ones(n, t, dtype=torch.long),
        "labels": torch.tensor([0, 1] * (n // 2)),
    }


def _step(model, lr: float = 1e-1) -> None:
    opt = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=lr)
    model.train()
    model(**_batch()).loss.backward()
    opt.step()


def _snapshot(module):
    return {k: v.detach().clone() for k, v in module.state_dict().items()}


def test_scalar_mix_weights_sum_to_one_and_gradients_flow():
    mix = tv.ScalarMix(4)
    with torch.no_grad():
        mix.w.copy_(torch.tensor([0.3, -1.0, 2.0, 0.0]))
    assert float(mix.weights().detach().sum()) == pytest.approx(1.0)
    states = torch.randn(5, 4, 8)
    mix(states).pow(2).sum().backward()
    assert mix.w.grad is not None and mix.w.grad.abs().sum() > 0
    assert mix.gamma.grad is not None and float(mix.gamma.grad) != 0
    # uniform weights -> gamma times the mean over layers
    mix2 = tv.ScalarMix(4)
    assert torch.allclose(mix2(states), states.mean(1), atol=1e-6)
    with pytest.raises(ParameterError, match="states of shape"):
        mix2(torch.randn(5, 3, 8))


def test_frozen_strategy_leaves_encoder_unchanged(tiny_classifier):
    m = ft.prepare(tiny_classifier, "frozen")
    enc_before, head_before = _snapshot(m.encoder), m.out.weight.detach().clone()
    _step(m)
    for k, v in m.encoder.state_dict().items():
        assert torch.equal(v, enc_before[k]), k
    assert not torch.equal(m.out.weight, head_before)
    assert all(not n.startswith("encoder.") for n in ft.trainable_names(m))


def test_lora_trains_only_adapters_and_head(tiny_classifier):
    base_before = _snapshot(tiny_classifier.encoder)
    m = ft.prepare(tiny_classifier, "lora", lora_rank=2)
    names = ft.trainable_names(m)
    assert names and all("lora_" in n or n.startswith(("dense.", "out.")) for n in names)
    assert any("query" in n and "lora_" in n for n in names) and any("value" in n and "lora_" in n for n in names)
    assert not any("key" in n for n in names)
    for _ in range(3):
        _step(m)
    plain = {k.replace(".base_layer.", "."): v for k, v in m.encoder.state_dict().items() if "lora_" not in k}
    for k, v in base_before.items():
        assert torch.equal(plain[k], v), k
    # ... but the effective (merged) weights moved
    change = tv.relative_weight_change(SequenceClassifier(_fresh_encoder(tiny_classifier), 2), m)
    assert (change.rel_change > 0).any()


def _fresh_encoder(model):
    from transformers import BertModel

    enc = BertModel(model.encoder.config)
    enc.load_state_dict(
        {k.replace(".base_layer.", "."): v for k, v in model.encoder.state_dict().items() if "lora_" not in k}
    )
    return enc


def test_restore_layers_restores_exactly(tiny_classifier):
    pre = _snapshot(tiny_classifier.encoder)
    import copy

    pretrained = copy.deepcopy(tiny_classifier)
    _step(tiny_classifier)
    tuned = _snapshot(tiny_classifier.encoder)
    r = tv.restore_layers(tiny_classifier, pretrained, [0])
    sd = r.encoder.state_dict()
    for k in sd:
        if k.startswith("encoder.layer.0."):
            assert torch.equal(sd[k], pre[k]), k
        else:
            assert torch.equal(sd[k], tuned[k]), k
    none = tv.restore_layers(tiny_classifier, pretrained, [])
    assert all(torch.equal(v, tuned[k]) for k, v in none.encoder.state_dict().items())
    with pytest.raises(ParameterError, match="layers="):
        tv.restore_layers(tiny_classifier, pretrained, [5])


def test_change_metrics_zero_for_identical_models(tiny_classifier, tiny_bert_dir):
    from transformers import AutoTokenizer

    change = tv.relative_weight_change(tiny_classifier, tiny_classifier)
    assert list(change.layer) == [0, 1] and (change.rel_change == 0).all()
    tok = AutoTokenizer.from_pretrained(tiny_bert_dir)
    rows = [
        {"input_ids": tok(s)["input_ids"], "labels": 0}
        for s in ("the chef tipped a waiter .", "a robin is a bird .", "the waiter is unbelievably a chef .")
    ]
    feats = ft.Features("classification", ["a", "b", "c"], rows, [0, 0, 0])
    rc = tv.representation_change(tiny_classifier, tiny_classifier, feats, tok.pad_token_id)
    assert rc.one_minus_cka.abs().max() < 1e-9


def test_linear_cka_parity_with_centering_matrix_formula():
    g = torch.Generator().manual_seed(0)
    X, Y = torch.randn(30, 5, generator=g), torch.randn(30, 7, generator=g)
    n = X.shape[0]
    H = torch.eye(n, dtype=torch.float64) - 1.0 / n
    K, L = X.double() @ X.double().T, Y.double() @ Y.double().T

    def hsic(a, b):
        return torch.trace(a @ H @ b @ H)

    ref = float(hsic(K, L) / torch.sqrt(hsic(K, K) * hsic(L, L)))
    assert linear_cka(X, Y) == pytest.approx(ref, rel=1e-9)
    Q, _ = torch.linalg.qr(torch.randn(5, 5, generator=g))
    assert linear_cka(X, 3.0 * X @ Q + 1.0) == pytest.approx(1.0, abs=1e-9)  # rotation, scale, shift invariant


def test_feature_head_learns_separable_data():
    g = torch.Generator().manual_seed(0)
    y = torch.randint(0, 2, (200,), generator=g)
    X = torch.randn(200, 3, 4, generator=g)
    X[:, 1, 0] += 3.0 * (2 * y - 1)  # only layer 1 carries the label
    data = {"train": X[:150], "test": X[150:]}
    labels = {"train": y[:150], "test": y[150:]}
    head, acc = tv.train_feature_head(data, labels, 2, mix=True, seed=0, epochs=40)
    assert acc["test"] > 0.9
    assert int(head.mix.weights().argmax()) == 1


def test_tracked_finetune_caches_and_frozen_keeps_encoder(tmp_cache, tiny_bert_dir):
    from bertology_lib.data import tasks

    task = tasks.toy_classification(n_train=16, n_dev=8, n_test=8)
    src = ft.ModelSource(str(tiny_bert_dir))
    cfg = ft.FinetuneConfig.for_profile("smoke", max_steps=4)
    r = ft.finetune(task, src, cfg, 0, strategy="frozen", track=(0.5, 1.0), keep_model=True)
    assert [c["step"] for c in r.curve] == [2, 4] and set(r.metrics) == {"dev", "test"}
    assert r.curve[-1]["dev"] == r.score("dev")  # the last tracked point is the final dev score
    pre = src.load_model()
    assert (tv.relative_weight_change(pre, r.fine_tuned).rel_change == 0).all()
    again = ft.finetune(task, src, cfg, 0, strategy="frozen", track=(0.5, 1.0), keep_model=True)
    assert again.cached and again.curve == r.curve and again.metrics == r.metrics
    assert (tv.relative_weight_change(r.fine_tuned, again.fine_tuned).rel_change == 0).all()
    early = tv.early_ranking([r, again, r], 0.5)
    assert set(early) >= {"rho_final_dev", "p_final_dev", "best_kept_minus_best"}


def test_separated_seeds_vary_one_seed_at_a_time(tmp_cache, tiny_bert_dir):
    from bertology_lib.data import tasks

    task = tasks.toy_classification(n_train=16, n_dev=8, n_test=8)
    src = ft.ModelSource(str(tiny_bert_dir))
    cfg = ft.FinetuneConfig.for_profile("smoke", max_steps=4)
    out = tv.separated_seeds(task, src, cfg, [0, 1, 2], progress=False)
    assert set(out) == {"weight init", "data order"} and out["weight init"].shape == (3, 8)
    assert (out["weight init"][0] == out["data order"][0]).all()  # both rows 0: seed 0 with data seed 0
    again = ft.finetune(task, src, cfg, 1, data_seed=0)  # weight init 1, batches of seed 0: cached above
    assert again.cached and (again.predictions["test"].scores() == out["weight init"][1]).all()
    with pytest.raises(ParameterError, match="too few"):
        tv.separated_seeds(task, src, cfg, [0])


def test_checkpoint_pair_and_predictions_of_the_smoke_mini_bert():
    from bertology_lib.models import minibert

    cfg = minibert.MiniBertConfig.for_profile("smoke")
    folder, earlier, final = pre.checkpoint_pair(cfg)
    assert (earlier, final) == (10, 30) and folder.name == "checkpoints"  # kept: 3, 10, 30; a third of 30 is 10
    assert pre.checkpoint_pair(cfg, fraction=0.05)[1] == 3
    preds = pre.checkpoint_predictions(cfg, [s.text for s in minibert.corpus(cfg)[1]][:20])
    assert list(preds.columns) == ["text", "gold", "step 3", "step 10", "step 30"] and len(preds) >= 20
    with pytest.raises(ParameterError, match="fraction=1"):
        pre.checkpoint_pair(cfg, fraction=1)


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: ft.prepare(None, "adapters"), "strategy='adapters'"),
        (lambda: pre.LabConfig(masking="span"), "masking='span'"),
        (lambda: pre.LabConfig(n_layers=3, stack_at=10), "cannot be stacked"),
        (lambda: pre.LabConfig(steps=10, stack_at=10), "stack_at=10"),
        (lambda: pre.LabConfig(n_heads=3, d_model=64), "not divisible"),
        (lambda: pre.LabConfig(seed=-1), "seed=-1"),
        (lambda: ft.finetune(None, "x", track=[0.5, 0.25]), "track="),
        (lambda: ft.finetune(None, "x", track=[0.0, 1.0]), "track="),
        (lambda: tv.ScalarMix(0), "n_layers=0"),
        (lambda: tv.early_ranking([], 0.25), "too few"),
        (lambda: linear_cka(torch.randn(3, 2), torch.randn(4, 2)), "same number"),
        (lambda: stats.paired_points({0: 1.0, 1: 0.5}, {0: 1.0}), "paired seeds"),
        (lambda: tv.TrainingSizes.for_profile("huge"), "huge"),
    ],
)
def test_bad_inputs_raise_parameter_error(call, match):
    with pytest.raises((ParameterError, ValueError), match=match):
        call()


def test_prepare_rejects_bad_rank(tiny_classifier):
    with pytest.raises(ParameterError, match="lora_rank=0"):
        ft.prepare(tiny_classifier, "lora", lora_rank=0)


def test_sizes_and_estimate():
    s = tv.TrainingSizes.for_profile("quick")
    assert s.n_seeds >= 10 and s.n_strategy_seeds >= 3
    assert s.finetune_config("quick", "lora").lr == s.lora_lr
    grid = pre.variant_grid(s, [0, 1])
    assert set(grid) == {"80/10/10", "[MASK]-only", "stacked"} and all(len(v) == 2 for v in grid.values())
    assert grid["stacked"][0].block_steps() == pytest.approx(0.75 * grid["80/10/10"][0].block_steps())
    assert sum(tv.TrainingSizes.for_profile("smoke").estimate_seconds().values()) < 120
