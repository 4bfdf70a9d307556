"""Checked exercises of the survey's §6 notebooks, how big BERT should be (``survey_06_model_size``,
``survey_06b_real_encoder``; checkers in the modules of the same names under ``bertology_lib.book.exercises``).

For every exercise the checker's truth agrees with an independent computation, the notebook's solution cell passes
its check, and typical wrong answers fail with their specific hint. The teacher solution of each exercise is read
from its notebook (``exercise_cells.solution``) and run here on the notebook's variables rebuilt small (tiny random
BERTs; a tiny random BERT standing in for MiniLM and a toy task for SST-2).
"""

from __future__ import annotations

from types import SimpleNamespace

import pandas as pd
import pytest
import torch

import exercise_cells as cells
from bertology_lib.book import exercises as ex
from bertology_lib.book.exercises import survey_06_model_size as s6
from bertology_lib.book.exercises import survey_06b_real_encoder as s6b

torch.set_num_threads(1)

NOTEBOOKS = {
    "survey_06_model_size": ("ex-survey6-head-params", "ex-survey6-magnitude"),
    "survey_06b_real_encoder": ("ex-s6r-importance", "ex-s6r-int8-weights"),
}
LABELS = [label for labels in NOTEBOOKS.values() for label in labels]


# -------------------------------------------------------------------------------- conventions


def test_every_exercise_has_a_checker_and_a_solution_cell_that_follows_the_conventions():
    cells.assert_conventions(LABELS, 4)


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
