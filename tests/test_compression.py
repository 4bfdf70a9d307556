import pytest
import torch

from bertology_lib.analysis.latency import measure_latency
from bertology_lib.experiments.survey import model_size as cp
from bertology_lib.interventions import compression as comp
from bertology_lib.interventions import distill as distill_mod
from bertology_lib.training import finetune as ft
from bertology_lib.data.tasks import toy_classification, toy_qa
from bertology_lib.errors import ParameterError


@pytest.fixture(scope="module")
def task():
    return toy_classification(n_train=24, n_dev=8, n_test=16, vocab_size=500)


@pytest.fixture
def teacher(task, tiny_bert_dir, tmp_cache):
    src = ft.as_source(str(tiny_bert_dir))
    cfg = ft.FinetuneConfig.for_profile("smoke", max_steps=3)
    result = ft.finetune(task, src, cfg, seed=0, keep_model=True)
    return src, cfg, result.fine_tuned, result.tokenizer, result


def test_finetuned_weights_are_cached(task, teacher):
    src, cfg, model, tok, result = teacher
    r2 = ft.finetune(task, src, cfg, seed=0, keep_model=True)
    again = r2.fine_tuned
    assert r2.cached and r2.metrics == result.metrics
    for (n, a), (_, b) in zip(model.state_dict().items(), again.state_dict().items()):
        torch.testing.assert_close(a, b, msg=n)
    feats = cp.features(task, tok, again, cfg)
    assert cp.score(again, feats["test"], tok.pad_token_id, cfg, 2) == pytest.approx(result.score("test"))


def test_quantized_model_runs_and_shrinks_linear_weights(task, teacher):
    src, cfg, model, tok, _ = teacher
    q = comp.quantize_int8(model)
    feats = cp.features(task, tok, model, cfg)["test"]
    acc = cp.score(q, feats, tok.pad_token_id, cfg, 2)
    assert 0 <= acc <= 1
    ratio = comp.linear_weight_bytes(model) / comp.linear_weight_bytes(q)
    assert 1.5 < ratio < 4.0  # tiny layers: the fp32 biases and scales weigh more than at BERT size
    assert comp.serialized_bytes(q) < comp.serialized_bytes(model)
    lat = measure_latency({"fp32": model, "int8": q}, feats, tok.pad_token_id, repeats=2)
    assert list(lat.model) == ["fp32", "int8"] and (lat.ms_per_batch > 0).all()
    assert all(len(r) == 2 for r in lat.rounds)
    from bertology_lib.analysis.latency import speedup_interval

    same = speedup_interval(lat, "fp32", "fp32")
    assert same == (1.0, 1.0, 1.0)  # a model against itself, round by round
    m, low, high = speedup_interval(lat, "int8", "fp32")
    assert low <= m <= high and m > 0
    with pytest.raises(ValueError, match="model='fp16' was not timed"):
        speedup_interval(lat, "fp16", "fp32")


def test_layer_dropping(task, teacher):
    src, cfg, model, tok, _ = teacher
    one = comp.drop_layers(model, [1])
    assert len(one.encoder.encoder.layer) == 1 and len(model.encoder.encoder.layer) == 2
    feats = cp.features(task, tok, model, cfg)["test"]
    t = cp.layer_drop_table(model, feats, tok.pad_token_id, cfg, 2)
    assert list(t.kind) == ["full", "one removed", "one removed", "top dropped"]
    with pytest.raises(ParameterError, match=r"keep=\[\]"):
        comp.drop_layers(model, [])


def test_magnitude_masks_and_lottery_source(task, teacher):
    src, cfg, model, tok, _ = teacher
    masks = comp.magnitude_masks(model, 0.5)
    assert comp.mask_sparsity(masks) == pytest.approx(0.5, abs=0.01)
    rand = comp.random_masks_like(masks, seed=1)
    assert {n: int(m.sum()) for n, m in rand.items()} == {n: int(m.sum()) for n, m in masks.items()}
    pruned = comp.apply_masks(model, masks)
    w, orig = comp.prunable_weights(pruned), comp.prunable_weights(model)
    for n, mk in masks.items():  # zero exactly where the mask drops a weight, untouched where it keeps one
        assert (w[n].weight[~mk] == 0).all() and torch.equal(w[n].weight[mk], orig[n].weight[mk])
    zero_share = sum(int((m.weight == 0).sum()) for m in w.values()) / sum(m.weight.numel() for m in w.values())
    assert zero_share == pytest.approx(0.5, abs=0.01)
    nonzero = sum(int((m.weight != 0).sum()) for m in w.values())
    assert nonzero == sum(int(m.sum()) for m in masks.values())
    curve = cp.sparsity_curve(model, cp.features(task, tok, model, cfg)["test"], tok.pad_token_id, cfg, 2, [0.0, 0.9])
    assert list(curve.sparsity) == [0.0, 0.9]
    ticket = comp.masked_source(src, masks, "ticket")
    r = ft.finetune(task, ticket, cfg, seed=0)
    assert not r.cached and ft.finetune(task, ticket, cfg, seed=0).cached
    # the mask survives fine-tuning, and surviving weights start from the pre-trained values
    m = ft.finetune_model(task, ticket, cfg, seed=0).fine_tuned
    layers = comp.prunable_weights(m)
    for n, mk in masks.items():
        assert (layers[n].weight[~mk] == 0).all()
    fresh = comp.prunable_weights(ticket.load_model())
    pre = comp.prunable_weights(src.load_model())
    n0 = next(iter(masks))
    torch.testing.assert_close(fresh[n0].weight, pre[n0].weight * masks[n0])
    with pytest.raises(ParameterError, match="sparsity=1.0"):
        comp.magnitude_masks(model, 1.0)


def test_distillation(task, teacher):
    src, cfg, model, tok, result = teacher
    assert distill_mod.student_layers(6, 3) == [0, 2, 4]
    student, metrics = distill_mod.distill(task, model, tok, src, [0], cfg, seed=0, teacher_key={"t": 1})
    assert len(student.encoder.encoder.layer) == 1 and set(metrics) == {"dev", "test"}
    again, m2 = distill_mod.distill(task, model, tok, src, [0], cfg, seed=0, teacher_key={"t": 1})
    assert m2["test"] == pytest.approx(metrics["test"])
    torch.testing.assert_close(again.out.weight, student.out.weight)
    with pytest.raises(ParameterError, match="alpha=2"):
        distill_mod.DistillConfig(alpha=2)
    with pytest.raises(ParameterError, match="layers=\\[5\\]"):
        distill_mod.distill(task, model, tok, src, [5], cfg)
    qa = toy_qa(n_train=4, n_dev=2, n_test=2, vocab_size=500)
    with pytest.raises(ParameterError, match="allowed: a classification task"):
        distill_mod.distill(qa, model, tok, src, [0], cfg)


def test_sizes_and_summaries():
    s = cp.ModelSizeSizes.for_profile("quick")
    assert s.n_seeds >= 5 and s.n_train_seeds >= 3
    assert cp.ModelSizeSizes.for_profile("smoke").n_train < s.n_train
    row = cp.paired_summary([0.9, 0.8, 0.85], [0.9, 0.85, 0.85])
    assert row["delta"] == pytest.approx(-0.0166667, abs=1e-5) and row["ci_low"] < row["delta"]
    with pytest.raises(ParameterError, match="seed=-1"):
        comp.random_masks_like({}, seed=-1)
