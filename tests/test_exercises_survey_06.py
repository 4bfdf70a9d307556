"""Checked exercises of the survey's §6 notebooks, how big BERT should be (``survey_06_model_size``,
``survey_06b_real_encoder``, ``survey_06c_english_bert``; checkers in the modules of the same names under
``bertology_lib.book.exercises``).

For every exercise the checker's truth agrees with an independent computation, the notebook's solution cell passes
its check, and typical wrong answers fail with their specific hint. The teacher solution of each exercise is read
from its notebook (``exercise_cells.solution``) and run here on the notebook's variables rebuilt small (tiny random
BERTs; a tiny random BERT standing in for MiniLM or the English lab BERT, and a toy task for SST-2).
"""

from __future__ import annotations

import warnings
from types import SimpleNamespace

import pandas as pd
import pytest
import torch

import exercise_cells as cells
from bertology_lib.book import exercises as ex
from bertology_lib.book.exercises import survey_06_model_size as s6
from bertology_lib.book.exercises import survey_06b_real_encoder as s6b
from bertology_lib.book.exercises import survey_06c_english_bert as s6c

torch.set_num_threads(1)

NOTEBOOKS = {
    "survey_06_model_size": ("ex-survey6-head-params", "ex-survey6-magnitude"),
    "survey_06b_real_encoder": ("ex-s6r-importance", "ex-s6r-int8-weights"),
    "survey_06c_english_bert": ("ex-s6e-int8-bytes", "ex-s6e-gain-kept"),
}
LABELS = [label for labels in NOTEBOOKS.values() for label in labels]


# -------------------------------------------------------------------------------- conventions


def test_every_exercise_has_a_checker_and_a_solution_cell_that_follows_the_conventions():
    cells.assert_conventions(LABELS, 6)


@pytest.mark.parametrize("label", LABELS)
def test_function_answers_need_a_function_and_survive_its_errors(label):
    cells.assert_function_answer_needed(label)


def test_checking_never_moves_the_global_random_state():
    state = torch.random.get_rng_state()
    for label in LABELS:
        ex.check(label, lambda *a: 0)

    def train_mode_importance(model, batches):  # dropout on: draws random numbers
        return _importance(model, batches, eval_mode=False)

    ex.check("ex-s6r-importance", train_mode_importance)
    ex.check("ex-s6e-int8-bytes", lambda model: int(torch.randint(0, 10, (1,))))  # draws random numbers
    ex.check("ex-s6e-int8-bytes", _int8_linear_bytes)
    ex.check("ex-s6e-gain-kept", _gain_kept)
    assert torch.equal(state, torch.random.get_rng_state())


# ================================================================================ survey_06_model_size


def test_survey6_head_truth_counts_the_rows_and_columns_of_a_head():
    for d, h, n in s6.SURVEY6_HEAD_CASES:
        w = d // h
        assert s6.survey6_head_truth(d, h, n) == n * (3 * (w * d + w) + w * d)
    assert s6.survey6_head_truth(128, 4, 10) == 2_080_130 - 1_915_330  # the quick teacher, printed in the notebook


def test_survey6_magnitude_truth_keeps_the_largest_weights_globally():
    for weights, s, masks in s6._magnitude_cases():
        flat = torch.cat([w.abs().flatten() for w in weights.values()])
        kept = torch.cat([masks[n].flatten() for n in weights])
        assert int(kept.sum()) == flat.numel() - round(s * flat.numel())
        assert float(flat[kept].min()) > float(flat[~kept].max())  # every kept weight outweighs every pruned one
        per_matrix = s6._per_matrix(weights, s)
        assert s6._mask_disagreement(per_matrix, masks) > 0.01  # the cases tell global from per-matrix


def test_survey6_solutions_pass(toy_dir):
    from bertology_lib.data import tasks
    from bertology_lib.interventions import compression as comp
    from bertology_lib.interventions import heads
    from bertology_lib.training import finetune as ft

    task = tasks.toy_classification(n_train=8, n_dev=4, n_test=4)
    m0 = ft.build_model(task, ft.as_source(toy_dir).load_model(), 0).eval()
    n_layers, n_heads = heads.head_shape(m0)
    k40 = round(0.4 * n_layers * n_heads)
    mask = torch.ones(n_layers, n_heads)
    mask.view(-1)[:k40] = 0  # at this size a whole layer loses its heads
    ns = {
        "m0": m0,
        "pruned0": heads.prune_heads(m0, mask),
        "k40": k40,
        "L": n_layers,
        "H": n_heads,
        "heads": heads,
        "comp": comp,
        "pd": pd,
        "torch": torch,
    }
    cells.solve("ex-survey6-head-params", **ns)
    cells.solve("ex-survey6-magnitude", **ns)


def test_survey6_wrong_answers():
    cells.fails("ex-survey6-head-params", lambda d, h, n: n * 4 * (d // h) * d, "biases")
    cells.fails("ex-survey6-head-params", lambda d, h, n: n * (4 * (d // h) * d + 4 * (d // h)), "shared")
    cells.fails("ex-survey6-head-params", lambda d, h, n: n * 3 * ((d // h) * d + d // h), "output projection")
    cells.fails("ex-survey6-head-params", lambda d, h, n: n * (4 * d * d + 3 * d), "d / n_heads")

    def global_masks(weights, s, keep_smallest=False):
        flat = torch.cat([w.abs().flatten() for w in weights.values()])
        k = round(s * flat.numel())
        thr = flat.kthvalue(k).values
        if keep_smallest:
            thr = flat.kthvalue(flat.numel() - k).values
            return {n: w.abs() <= thr for n, w in weights.items()}
        return {n: w.abs() > thr for n, w in weights.items()}

    assert ex.check("ex-survey6-magnitude", global_masks).ok
    cells.fails("ex-survey6-magnitude", s6._per_matrix, "per-matrix")
    cells.fails(
        "ex-survey6-magnitude", lambda w, s: {n: ~m for n, m in global_masks(w, s).items()}, "share set to zero"
    )
    cells.fails("ex-survey6-magnitude", lambda w, s: global_masks(w, s, keep_smallest=True), "largest magnitudes")
    cells.fails(
        "ex-survey6-magnitude", lambda w, s: {n: m.float().numpy() for n, m in global_masks(w, 0.1).items()}, "not yet"
    )
    cells.fails("ex-survey6-magnitude", lambda w, s: list(w.values()), "same names")


# ================================================================================ survey_06b_real_encoder


def _importance(model, batches, eval_mode=True, normalize="layer", signed=False):
    """Head importance with autograd through heads.gate_heads, with the typical mistakes as options."""
    from bertology_lib.interventions import heads

    if eval_mode:
        model.eval()
    gates = torch.ones(heads.head_shape(model), requires_grad=True)
    total = torch.zeros(gates.shape)
    with heads.gate_heads(model, gates):
        for batch in batches:
            grad = torch.autograd.grad(model(**batch).loss, gates)[0]
            total += grad if signed else grad.abs()
    total = total.abs()
    if normalize == "layer":
        return total / total.norm(dim=-1, keepdim=True)
    if normalize == "global":
        return total / total.norm()
    if normalize == "l1":
        return total / total.sum(-1, keepdim=True)
    return total


def test_s6r_importance_truth_is_the_gate_gradient_by_finite_differences():
    """Independent of the gate hooks: scaling a head's rows of the value projection (weights and bias) by
    1 +- eps scales its context vector exactly as its gate does; central differences in float64."""
    eps = 1e-5
    ce = torch.nn.functional.cross_entropy
    for i, (n_layers, n_heads, d, _, sizes) in enumerate(s6b.S6R_IMPORTANCE_CASES):
        model, feats, pad = s6b._importance_case(i)
        model = model.double().eval()
        batches = s6b._batches(feats, pad, sizes)
        width = d // n_heads
        total = torch.zeros(n_layers, n_heads, dtype=torch.float64)
        with torch.no_grad():
            for layer in range(n_layers):
                value = model.encoder.encoder.layer[layer].attention.self.value  # head -> BertModel -> blocks
                for h in range(n_heads):
                    rows = slice(h * width, (h + 1) * width)
                    w0, b0 = value.weight[rows].clone(), value.bias[rows].clone()
                    losses = []
                    for sign in (1, -1):
                        value.weight[rows] = w0 * (1 + sign * eps)
                        value.bias[rows] = b0 * (1 + sign * eps)
                        losses.append(
                            torch.stack(
                                [
                                    ce(model(**{k: v for k, v in b.items() if k != "labels"}).logits, b["labels"])
                                    for b in batches
                                ]
                            )
                        )  # in float64
                    value.weight[rows], value.bias[rows] = w0, b0
                    total[layer, h] = ((losses[0] - losses[1]) / (2 * eps)).abs().sum()
        fd = total / total.norm(dim=-1, keepdim=True)
        assert torch.allclose(fd.float(), s6b.s6r_importance_truth(i), atol=1e-4), (fd, s6b.s6r_importance_truth(i))
    # the hidden cases tell every typical mistake from the truth
    for i in range(len(s6b.S6R_IMPORTANCE_CASES)):
        truth = s6b.s6r_importance_truth(i)
        for key, wrong in s6b._importance_mistakes(i).items():
            assert float((wrong - truth).abs().max()) > 0.05, key


def test_s6r_importance_solution_passes(toy_dir, tmp_cache):
    from bertology_lib.data import tasks
    from bertology_lib.experiments.survey import model_size as cp
    from bertology_lib.interventions import compression as comp
    from bertology_lib.interventions import heads
    from bertology_lib.training import finetune as ft

    task = tasks.toy_classification(n_train=16, n_dev=12, n_test=8)
    real = ft.as_source(toy_dir)
    n_layers, n_heads = heads.head_shape(real.load_model())
    m = ft.build_model(task, real.load_model(), 0)
    ratio = comp.linear_weight_bytes(m) / comp.linear_weight_bytes(comp.quantize_int8(m))
    ns = {
        "sst2": task,
        "real": real,
        "real_seeds": [0, 1],
        "params": SimpleNamespace(profile="smoke"),
        "sizes": SimpleNamespace(importance_batch=5),
        "rk40": round(0.4 * n_layers * n_heads),
        "ft": ft,
        "cp": cp,
        "real_check": SimpleNamespace(shape=(n_layers, n_heads), int8_ratio=ratio),
    }
    out = cells.solve("ex-s6r-importance", **ns)
    assert f"the {ns['rk40']} least important of {n_layers * n_heads} heads" in out
    out = cells.solve("ex-s6r-int8-weights", **ns)
    assert f"{ratio:.2f}x fewer bytes" in out


def test_s6r_importance_wrong_answers():
    from bertology_lib.interventions import heads

    assert ex.check("ex-s6r-importance", _importance).ok
    cells.fails("ex-s6r-importance", lambda m, b: _importance(m, b, normalize=None), "L2 norm")
    cells.fails("ex-s6r-importance", lambda m, b: _importance(m, b, normalize="global"), "not the whole matrix")
    cells.fails("ex-s6r-importance", lambda m, b: _importance(m, b, normalize="l1"), "not by its sum")
    cells.fails("ex-s6r-importance", lambda m, b: _importance(m, b, signed=True), "opposite sign")
    cells.fails("ex-s6r-importance", lambda m, b: _importance(m, b, eval_mode=False), "eval mode")

    def per_sentence(model, batches):
        single = []
        for batch in batches:
            for j in range(len(batch["labels"])):
                keep = batch["attention_mask"][j].bool()
                single.append({k: (v[j : j + 1, keep] if v.dim() == 2 else v[j : j + 1]) for k, v in batch.items()})
        return _importance(model, single)

    cells.fails("ex-s6r-importance", per_sentence, "one gradient per batch")
    cells.fails("ex-s6r-importance", lambda m, b: _importance(m, b).T, "(n_layers, n_heads)")
    cells.fails("ex-s6r-importance", lambda m, b: torch.full(heads.head_shape(m), 0.5), "not yet")
    cells.fails("ex-s6r-importance", lambda m, b: torch.zeros(heads.head_shape(m)), "not yet")
    cells.fails("ex-s6r-importance", lambda m, b: torch.zeros(2, 4), "(n_layers, n_heads)")


def test_s6r_int8_truth_is_the_symmetric_per_tensor_grid():
    for w in s6b.s6r_int8_cases():
        truth = s6b.s6r_int8_truth(w)
        step = float(w.abs().max()) / 127.5
        q = truth.double() / step
        assert torch.allclose(q, q.round(), atol=1e-3)  # whole steps: zero point 0
        assert q.round().min() >= -128 and q.round().max() <= 127  # int8
        err = (truth.double() - w.double()).abs()
        clipped = q.round() == 127
        assert float(err[~clipped].max()) <= step / 2 + 1e-6  # the nearest step
        assert float(w.max()) <= 127.5 * step + 1e-6
    w = s6b.s6r_int8_cases()[0]  # the clipped case: many weights at +max|w|, which int8 must clip to 127 steps
    assert int((s6b.s6r_int8_truth(w).double() / (float(w.abs().max()) / 127.5)).round().eq(127).sum()) > 50
    # the hidden cases tell every typical mistake from the truth
    cases = s6b.s6r_int8_cases()
    for key in s6b._int8_mistakes(cases[0]):
        assert any(
            s6b._int8_disagreement(s6b._as_tensor(s6b._int8_mistakes(w)[key]), s6b.s6r_int8_truth(w)) > 0.01
            for w in cases
        ), key


def test_s6r_int8_wrong_answers():
    import numpy as np

    def grid(w, scale, rnd=torch.round, lo=-128, hi=127):
        q = rnd(w / scale)
        return torch.clamp(q, lo, hi) * scale if lo is not None else q * scale

    assert ex.check("ex-s6r-int8-weights", lambda w: grid(w, w.abs().max() / 127.5)).ok
    assert ex.check("ex-s6r-int8-weights", lambda w: np.asarray(grid(w.double(), w.double().abs().max() / 127.5))).ok
    cells.fails("ex-s6r-int8-weights", lambda w: grid(w, w.abs().max() / 127), "not max|w| over 127")
    cells.fails("ex-s6r-int8-weights", lambda w: grid(w, w.abs().max() / 128), "not max|w| over 128")
    cells.fails("ex-s6r-int8-weights", lambda w: grid(w, w.abs().amax(1, keepdim=True) / 127.5), "one scale")

    def affine(w):
        scale = (w.max().clamp_min(0) - w.min().clamp_max(0)) / 255
        zero = torch.round(-128 - w.min().clamp_max(0) / scale)
        return (torch.clamp(torch.round(w / scale + zero), -128, 127) - zero) * scale

    cells.fails("ex-s6r-int8-weights", affine, "symmetric")
    cells.fails("ex-s6r-int8-weights", lambda w: grid(w, w.abs().max() / 127.5, rnd=torch.trunc), "nearest integer")
    cells.fails("ex-s6r-int8-weights", lambda w: grid(w, w.abs().max() / 127.5, lo=None), "clip q")
    cells.fails(
        "ex-s6r-int8-weights", lambda w: torch.clamp(torch.round(w / (w.abs().max() / 127.5)), -128, 127), "q x scale"
    )
    cells.fails("ex-s6r-int8-weights", lambda w: w, "w itself")
    cells.fails("ex-s6r-int8-weights", lambda w: torch.zeros_like(w), "not yet")
    cells.fails("ex-s6r-int8-weights", lambda w: grid(w, w.abs().max() / 127.5).T, "w's shape")
    cells.fails("ex-s6r-int8-weights", lambda w: 0.5, "w's shape")


# ================================================================================ survey_06c_english_bert


def _int8_linear_bytes(model, weight=1, bias=4, scale=16, biasless=0):
    """Bytes of the Linear layers as int8 dynamic quantisation stores them, with the typical mistakes as options
    (``biasless``: bytes counted for a layer without bias, as if it had one of out_features entries)."""
    total = 0
    for m in model.modules():
        if isinstance(m, torch.nn.Linear):
            b = m.out_features * biasless if m.bias is None else m.bias.numel() * bias
            total += m.weight.numel() * weight + scale + b
    return total


def test_s6e_int8_truth_counts_int8_weights_their_scales_and_fp32_biases():
    """Independent of the library's byte count: torch's quantised layers themselves hold per-tensor int8 weights
    (one scale, one zero point) and fp32 biases, one for every Linear layer of the fp32 model."""
    from torch.ao.nn.quantized.dynamic import Linear as QLinear

    biasless = 0
    for i in range(len(s6c.S6E_INT8_CASES)):
        model = s6c._int8_case(i)
        linears = {n: m for n, m in model.named_modules() if isinstance(m, torch.nn.Linear)}
        biasless += sum(m.bias is None for m in linears.values())
        with warnings.catch_warnings():  # torch.ao's migration notice
            warnings.simplefilter("ignore")
            quantised = torch.ao.quantization.quantize_dynamic(model, {torch.nn.Linear}, dtype=torch.qint8)
        q = {n: m for n, m in quantised.named_modules() if isinstance(m, QLinear)}
        assert set(q) == set(linears)
        count = 0
        for name, m in q.items():
            w, b = m.weight(), m.bias()
            assert w.dtype == torch.qint8 and w.qscheme() == torch.per_tensor_affine and w.element_size() == 1
            assert tuple(w.shape) == tuple(linears[name].weight.shape)
            scale_and_zero = (
                torch.tensor(w.q_scale(), dtype=torch.float64).element_size()
                + torch.tensor(w.q_zero_point(), dtype=torch.int64).element_size()
            )
            count += w.numel() + scale_and_zero + (0 if b is None else b.numel() * 4)
            assert b is None or b.dtype == torch.float32
        assert count == s6c.s6e_int8_truth(model) == _int8_linear_bytes(model)
        assert s6c.s6e_int8_truth(model) < sum(p.numel() for p in model.parameters())  # embeddings are not counted
    assert biasless >= 1  # a hidden case has a Linear layer without bias
    # the hidden cases tell every typical mistake from the truth
    for key in s6c._int8_mistakes(s6c._int8_case(0)):
        assert any(
            s6c._int8_mistakes(s6c._int8_case(i))[key] != s6c.s6e_int8_truth(s6c._int8_case(i))
            for i in range(len(s6c.S6E_INT8_CASES))
        ), key


def test_s6e_int8_wrong_answers():
    assert ex.check("ex-s6e-int8-bytes", _int8_linear_bytes).ok
    assert ex.check("ex-s6e-int8-bytes", lambda m: torch.tensor(float(_int8_linear_bytes(m)))).ok
    cells.fails("ex-s6e-int8-bytes", lambda m: _int8_linear_bytes(m, bias=1), "4 bytes per bias entry, not 1")
    cells.fails("ex-s6e-int8-bytes", lambda m: _int8_linear_bytes(m, scale=0), "16 bytes per Linear layer")
    cells.fails("ex-s6e-int8-bytes", lambda m: _int8_linear_bytes(m, bias=0), "add the biases")
    cells.fails("ex-s6e-int8-bytes", lambda m: _int8_linear_bytes(m, bias=0, scale=0), "only the int8 weights")
    cells.fails("ex-s6e-int8-bytes", lambda m: _int8_linear_bytes(m, biasless=4), "may have no bias")
    cells.fails("ex-s6e-int8-bytes", lambda m: sum(p.numel() for p in m.parameters()), "only the nn.Linear layers")
    cells.fails(
        "ex-s6e-int8-bytes",
        lambda m: (
            sum(p.numel() for p in m.parameters()) + 16 * sum(isinstance(x, torch.nn.Linear) for x in m.modules())
        ),
        "only the nn.Linear layers",
    )
    cells.fails(
        "ex-s6e-int8-bytes",
        lambda m: 4 * sum(p.numel() for p in m.parameters()) - _int8_linear_bytes(m, 4, 4, 0) + _int8_linear_bytes(m),
        "whole model",
    )
    cells.fails("ex-s6e-int8-bytes", lambda m: _int8_linear_bytes(m, weight=4, scale=0), "size in fp32")
    cells.fails("ex-s6e-int8-bytes", lambda m: _int8_linear_bytes(m, weight=4, bias=0, scale=0), "in fp32")

    def per_row(m):
        return sum(
            x.weight.numel() + 16 * x.out_features + (0 if x.bias is None else 4 * x.bias.numel())
            for x in m.modules()
            if isinstance(x, torch.nn.Linear)
        )

    cells.fails("ex-s6e-int8-bytes", per_row, "not one per row")
    cells.fails("ex-s6e-int8-bytes", lambda m: _int8_linear_bytes(m) + 1, "not yet")
    cells.fails("ex-s6e-int8-bytes", lambda m: _int8_linear_bytes(m) + 0.5, "whole number")
    cells.fails("ex-s6e-int8-bytes", lambda m: "many", "whole number")


def _gain_kept(full, curve, floor, order="importance", per_seed=False, subtract=True):
    """The share of the gain over the floor kept at each cut, with the typical mistakes as options."""
    rows = curve if order is None else curve[curve["order"] == order]
    f = floor if subtract else 0.0
    if per_seed:
        ratio = (rows["score"] - f) / (rows["seed"].map(full) - f)
        return ratio.groupby(rows["removed"]).mean()
    return (rows.groupby("removed")["score"].mean() - f) / (pd.Series(full).mean() - f)


def test_s6e_gain_kept_truth_is_the_share_of_the_gain_over_the_floor():
    """Independent of pandas' grouping: plain sums over the rows, one seed at a time."""
    for full, curve, floor in s6c.s6e_gain_cases():
        assert floor != 0.5 and len(set(full.values())) == len(full)
        assert list(curve.columns) == ["removed", "share", "score", "order", "seed"]
        truth = s6c.s6e_gain_kept_truth(full, curve, floor)
        mean_full = sum(full.values()) / len(full)
        rows = curve.to_dict("records")
        ks = sorted({r["removed"] for r in rows if r["order"] == "importance"})
        assert list(truth.index) == ks
        for k in ks:
            scores = [r["score"] for r in rows if r["order"] == "importance" and r["removed"] == k]
            assert len(scores) == len(full)  # one per seed
            want = (sum(scores) / len(scores) - floor) / (mean_full - floor)
            assert abs(truth[k] - want) < 1e-12
        assert truth[0] == pytest.approx(1.0)  # nothing removed: all of the gain kept
        assert s6c.s6e_gain_kept_truth(list(full.values()), curve, floor).equals(truth)  # a sequence of scores too
        # the hidden cases tell every typical mistake from the truth
        for key, wrong in s6c._gain_mistakes(full, curve, floor).items():
            assert float((wrong - truth).abs().max()) > 0.01, key


def test_s6e_gain_kept_wrong_answers():
    assert ex.check("ex-s6e-gain-kept", _gain_kept).ok
    assert ex.check("ex-s6e-gain-kept", lambda *a: _gain_kept(*a).to_dict()).ok
    cells.fails("ex-s6e-gain-kept", lambda *a: _gain_kept(*a, subtract=False), "subtract the floor")
    cells.fails("ex-s6e-gain-kept", lambda *a: _gain_kept(*a, per_seed=True), "ratio of the means")
    cells.fails("ex-s6e-gain-kept", lambda *a: _gain_kept(*a, order=None), "importance order only")
    cells.fails("ex-s6e-gain-kept", lambda *a: _gain_kept(*a, order="random"), "not the random control")
    cells.fails("ex-s6e-gain-kept", lambda full, curve, floor: _gain_kept(full, curve, 0.5), "not 0.5")
    cells.fails("ex-s6e-gain-kept", lambda *a: 1 - _gain_kept(*a), "the share of the gain lost")

    def numerator_only(full, curve, floor):
        return _gain_kept(full, curve, floor) * (pd.Series(full).mean() - floor) / pd.Series(full).mean()

    cells.fails("ex-s6e-gain-kept", numerator_only, "in the denominator too")

    def by_share(full, curve, floor):
        out = _gain_kept(full, curve, floor)
        return out.set_axis(out.index / curve["removed"].max())

    cells.fails("ex-s6e-gain-kept", by_share, "not by share")
    cells.fails("ex-s6e-gain-kept", lambda *a: _gain_kept(*a).reset_index(drop=True), "indexed by removed")
    cells.fails("ex-s6e-gain-kept", lambda *a: _gain_kept(*a).to_frame(), "pandas Series")
    cells.fails("ex-s6e-gain-kept", lambda *a: 0.8, "pandas Series")
    cells.fails("ex-s6e-gain-kept", lambda *a: _gain_kept(*a) * 0.9, "not yet")


def test_s6e_solutions_pass(toy_dir, tmp_cache):
    from bertology_lib.data import tasks
    from bertology_lib.experiments.survey import model_size as cp
    from bertology_lib.training import finetune as ft

    task = tasks.toy_classification(n_train=16, n_dev=12, n_test=8)
    real = ft.as_source(toy_dir)
    cfg = ft.FinetuneConfig.for_profile("smoke")
    real_check = cp.real_encoder_check(task, real, cfg, [0, 1], 2, 5)  # the notebook's run, at toy size
    ns = {
        "sst2": task,
        "real": real,
        "real_seeds": [0, 1],
        "params": SimpleNamespace(profile="smoke"),
        "real_check": real_check,
        "rk40": real_check.k40,
        "ft": ft,
        "cp": cp,
        "tasks": tasks,
        "pd": pd,
    }
    m = ft.finetune(task, real, cfg, 0, keep_model=True).fine_tuned
    fp32 = {n: p.numel() * 4 for n, p in m.named_parameters()}
    linear32 = sum(v for n, v in fp32.items() if isinstance(m.get_submodule(n.rsplit(".", 1)[0]), torch.nn.Linear))
    linear8 = _int8_linear_bytes(m)
    whole32 = sum(fp32.values())
    out = cells.solve("ex-s6e-int8-bytes", **ns)
    assert f"({linear32 / linear8:.2f}x)" in out and f"{real_check.int8_ratio:.2f}x" in out
    assert f"({whole32 / (whole32 - linear32 + linear8):.2f}x)" in out

    # the toy classifier learns nothing in 10 steps (it sits at the floor): made-up scores above it, in the
    # notebook's shape (rows removed, share, score, order, seed of both orders)
    full = {0: 0.75, 1: 0.625}
    curves = real_check.curves.copy()
    drop = curves["share"] * (curves["order"].map({"importance": 0.1, "random": 0.2}) + 0.05 * curves["seed"])
    curves["score"] = curves["seed"].map(full) - drop
    floor = tasks.floor_scores(task)["accuracy"]
    k = real_check.k40
    at_k = curves[(curves["order"] == "importance") & (curves["removed"] == k)]["score"].mean()
    out = cells.solve("ex-s6e-gain-kept", **ns, real_full=full, real_curves=curves)
    kept = (at_k - floor) / (sum(full.values()) / 2 - floor)
    assert f"with {k} heads removed (importance order), {kept:.0%} of that gain is kept" in out
