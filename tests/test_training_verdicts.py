"""The survey §5 verdicts' instruments: intervals over seeds *and* test items, the seed variance beyond test-item
noise, the rank-correlation interval, per-item scores of frozen heads, restored models and lab BERTs."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import torch

from bertology_lib import stats
from bertology_lib.errors import ParameterError
from bertology_lib.experiments.survey import pretraining as pre
from bertology_lib.experiments.survey import training as tv
from bertology_lib.experiments.survey.behaviour import crossed_interval


def _binary(rng, p_item, shift, k):
    return (rng.random((k, len(p_item))) < np.clip(p_item[None] + np.asarray(shift)[:, None], 0, 1)).astype(float)


def test_accuracy_gap_interval_agrees_with_the_analytic_crossed_interval():
    rng = np.random.default_rng(0)
    p = rng.uniform(0.5, 0.95, 300)
    a, b = _binary(rng, p, [0.03] * 5, 5), _binary(rng, p, [0.0] * 5, 5)
    est, low, high = stats.accuracy_gap_interval(a, b)
    ref = [100 * x for x in crossed_interval(a - b)]
    assert est == pytest.approx(100 * (a.mean() - b.mean()))
    assert (low, high) == pytest.approx((ref[1], ref[2]), abs=0.1 * (ref[2] - ref[1]))  # bootstrap vs formula


def test_accuracy_gap_interval_is_wider_than_seeds_alone_and_covers_a_null_gap():
    rng = np.random.default_rng(1)
    p = rng.uniform(0.5, 0.95, 200)
    covered = 0
    for t in range(60):
        a, b = _binary(rng, p, [0.0] * 5, 5), _binary(rng, p, [0.0] * 5, 5)
        _, low, high = stats.accuracy_gap_interval(a, b, n_resamples=200, seed=t)
        covered += low <= 0 <= high
    assert covered >= 55  # nominal 95%; the interaction counted twice errs wide
    seeds_only = stats.paired_points({s: a[s].mean() for s in range(5)}, {s: b[s].mean() for s in range(5)}, 6)
    assert high - low > seeds_only[2] - seeds_only[1]  # test items are shared, but resampling them adds width


def test_grouped_items_are_a_ratio_of_sums_and_resampled_whole():
    hits = np.array([[3.0, 0.0, 5.0, 1.0], [2.0, 1.0, 5.0, 0.0], [3.0, 1.0, 4.0, 1.0]])
    counts = np.array([4.0, 2.0, 6.0, 1.0])  # e.g. masked words per sentence
    est, low, high = stats.accuracy_gap_interval(hits, counts=counts)
    assert est == pytest.approx(100 * np.mean(hits.sum(1) / counts.sum()))
    assert low < est < high
    with pytest.raises(ParameterError, match="one non-negative count per item"):
        stats.accuracy_gap_interval(hits, counts=[1.0, 2.0])
    with pytest.raises(ParameterError, match="at least 2 seeds"):
        stats.accuracy_gap_interval(hits[:1])
    assert stats.accuracy_gap_interval(np.ones((3, 5)), np.ones((3, 5))) == (0.0, -20.0, 20.0)  # rule of three


def test_seed_variance_finds_no_seed_effect_in_item_noise_and_finds_a_real_one():
    rng = np.random.default_rng(2)
    false_pos = 0
    for _ in range(100):
        p = rng.uniform(0.3, 0.9, 200)
        r = stats.seed_variance(_binary(rng, p, np.zeros(10), 10))
        false_pos += r["low"] > 0
        assert r["low"] <= r["sd"] <= r["high"] and r["noise_sd"] > 0
    assert false_pos <= 6  # one-sided 2.5%
    p = rng.uniform(0.3, 0.9, 400)
    r = stats.seed_variance(_binary(rng, p, np.linspace(-0.08, 0.08, 10), 10))
    assert r["low"] > 0 and r["p"] < 0.001 and r["observed_sd"] > r["noise_sd"]
    same = np.tile((rng.random(50) < 0.7).astype(float), (4, 1))  # every seed makes the same predictions
    assert stats.seed_variance(same)["sd"] == 0.0 and stats.seed_variance(same)["high"] == 0.0


def test_seed_variance_interval_covers_the_seed_sd():
    rng = np.random.default_rng(3)
    covered = 0
    for _ in range(100):
        shift = rng.normal(0, 0.03, 10)
        p = rng.uniform(0.3, 0.7, 200)  # no clipping: the expected accuracy of seed s is mean(p) + shift[s]
        r = stats.seed_variance(_binary(rng, p, shift, 10))
        covered += r["low"] <= 3.0 <= r["high"]
    assert covered >= 88


def test_rank_interval_is_bonett_wright_and_undefined_for_constant_scores():
    x, y = list(range(10)), [0, 2, 1, 3, 5, 4, 6, 8, 7, 9]
    rho, low, high = stats.rank_interval(x, y)
    z, se = math.atanh(rho), math.sqrt((1 + rho**2 / 2) / 7)
    assert (low, high) == pytest.approx((math.tanh(z - 1.959964 * se), math.tanh(z + 1.959964 * se)), abs=1e-5)
    assert all(math.isnan(v) for v in stats.rank_interval(x, [1.0] * 10))
    with pytest.raises(ParameterError, match=">= 4"):
        stats.rank_interval([1, 2, 3], [1, 2, 3])


def test_feature_head_scores_items_as_in_training():
    g = torch.Generator().manual_seed(0)
    y = torch.randint(0, 2, (120,), generator=g)
    X = torch.randn(120, 3, 4, generator=g)
    X[:, 2, 0] += 2.0 * (2 * y - 1)
    data, labels = {"train": X[:80], "test": X[80:]}, {"train": y[:80], "test": y[80:]}
    head, acc = tv.train_feature_head(data, labels, 2, mix=False, seed=0, epochs=20)
    assert head.correct(data["test"], labels["test"]).mean() == pytest.approx(acc["test"])
    items = tv.frozen_head_items(data, labels, 2, [0, 1], epochs=20)
    assert set(items) == {"last layer", "scalar mix"} and items["last layer"][0].mean() == pytest.approx(acc["test"])
    assert tv.stack(items["scalar mix"], [1, 0]).shape == (2, 40)
    with pytest.raises(ParameterError, match="have no scores"):
        tv.stack(items["scalar mix"], [2])


def test_masked_hits_sum_to_masked_accuracy_and_with_rows_keeps_the_batches(tiny_bert_dir):
    from transformers import AutoModelForMaskedLM, AutoTokenizer

    from bertology_lib.training.pretrain import masked_accuracy, masked_hits
    from bertology_lib.training.masking import MLMBatches

    model, tok = AutoModelForMaskedLM.from_pretrained(tiny_bert_dir), AutoTokenizer.from_pretrained(tiny_bert_dir)
    texts = [
        "the chef tipped a waiter .",
        "a robin is a bird .",
        "the waiter is a chef .",
        "the bird tipped a chef .",
    ] * 6
    hits, counts = masked_hits(model, tok, texts, batch_size=5, bucket=2)
    assert hits.shape == counts.shape == (len(texts),) and counts.sum() > 0
    assert hits.sum() / counts.sum() == pytest.approx(masked_accuracy(model, tok, texts, batch_size=5, bucket=2))
    plain = list(MLMBatches(texts, tok, batch_size=5, seed=3, bucket=2))
    rows = list(MLMBatches(texts, tok, batch_size=5, seed=3, bucket=2).with_rows())
    assert sorted(i for r, _ in rows for i in r) == list(range(len(texts)))
    assert all(torch.equal(a["input_ids"], b["input_ids"]) for a, (_, b) in zip(plain, rows))


def _lab_table():
    rng = np.random.default_rng(4)
    counts = rng.integers(1, 5, 30).astype(float)
    rows = []
    for variant, p in (("a", 0.6), ("b", 0.5), ("c", 0.55), ("d", 0.4)):
        for s in (0, 1, 2):
            rows.append(
                {
                    "variant": variant,
                    "seed": s,
                    "mlm_hits": rng.binomial(counts.astype(int), p).astype(float),
                    "mlm_counts": counts,
                }
            )
    return pd.DataFrame(rows), counts


def test_lab_gap_and_range_gap_on_a_synthetic_table():
    table, counts = _lab_table()
    est, low, high = pre.lab_gap(table, "a", "b", "mlm", [0, 1, 2])
    h = {v: np.array(list(table[table.variant == v].mlm_hits)) for v in "ab"}
    assert est == pytest.approx(100 * np.mean((h["a"] - h["b"]).sum(1) / counts.sum())) and low < est < high
    est, low, high = pre.range_gap(table, ["a", "d"], ["b", "c"], "mlm", [0, 1, 2])
    acc = {v: 100 * np.array(list(table[table.variant == v].mlm_hits)).sum(1) / counts.sum() for v in "abcd"}
    want = np.mean(np.abs(acc["a"] - acc["d"]) - np.abs(acc["b"] - acc["c"]))
    assert est == pytest.approx(want) and low < est < high
    with pytest.raises(ParameterError, match="no per-item scores"):
        pre.lab_gap(table, "a", "b", "pos", [0, 1, 2])
    with pytest.raises(ParameterError, match="seeds \\[5\\]"):
        pre.lab_gap(table, "a", "b", "mlm", [0, 5])


def test_restored_items_with_nothing_restored_are_the_fine_tuned_model(tiny_bert_dir):
    import copy

    from transformers import AutoModel, AutoTokenizer

    from bertology_lib.models.task_heads import SequenceClassifier
    from bertology_lib.training import finetune as ft

    tok = AutoTokenizer.from_pretrained(tiny_bert_dir)
    model = SequenceClassifier(AutoModel.from_pretrained(tiny_bert_dir), 2, seed=0)
    pretrained = copy.deepcopy(model)
    rows = [
        {"input_ids": tok(s)["input_ids"], "labels": i % 2}
        for i, s in enumerate(("the chef tipped a waiter .", "a robin is a bird .", "the waiter is a chef ."))
    ]
    feats = ft.Features("classification", ["a", "b", "c"], rows, [0, 1, 0])
    cfg = ft.FinetuneConfig.for_profile("smoke")
    run = ft.FinetuneResult("t", "m", 0, {}, {}, {}, {}, fine_tuned=model)
    items = tv.restored_items({0: run}, pretrained, feats, tok.pad_token_id, cfg, 2, [])
    direct = ft.predict(model, feats, tok.pad_token_id, cfg, 2).scores()
    assert items[0].tolist() == direct and set(items) == {0}


def test_a_gap_with_no_discordant_item_gets_the_rule_of_three_not_a_zero_width_interval():
    rng = np.random.default_rng(0)
    a = (rng.random((3, 300)) < 0.8).astype(float)
    assert stats.accuracy_gap_interval(a, a.copy()) == (0.0, -100 * 3 / 900, 100 * 3 / 900)
    b = a.copy()
    b[0, 0] = 1 - b[0, 0]  # one discordant seed-item: the bootstrap's interval again
    est, low, high = stats.accuracy_gap_interval(a, b, n_resamples=200)
    assert low < est < high and est != 0.0
