"""Checked exercises of the survey's real-encoder notebooks (§6 II ``survey_06b_real_encoder``, §7 II
``survey_07b_real_encoder``; checkers in ``bertology_lib.book.exercises.survey_real``): for every exercise,
the checker's truth agrees with an independent computation, the notebook's solution cell passes its check,
and typical wrong answers fail with their specific hint.

``SOLUTIONS`` holds the solution cells exactly as the notebooks carry them. They run here on the notebook's
variables rebuilt small (a tiny random BERT standing in for MiniLM, a toy task standing in for SST-2, smoke
sizes); :func:`test_notebook_solution_cells_are_the_tested_ones` keeps the notebooks' cells identical.
"""

from __future__ import annotations

import math
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest
import torch
import exercise_cells as cells

from bertology_lib.book import exercises as ex
from bertology_lib.book.exercises import survey_real as sr

torch.set_num_threads(1)
ROOT = Path(__file__).resolve().parents[1]

# -------------------------------------------------------------------------------- the solution cells

SOLUTIONS: dict[str, str] = {}

SOLUTIONS["ex-s6r-importance"] = '''\
# Exercise: ex-s6r-importance
# Write importance(model, batches): Michel et al.'s importance of every head of a fine-tuned classifier, in
# eval mode. With gates of ones, shape heads.head_shape(model), that require grad, run each batch under
# heads.gate_heads(model, gates); add up |d loss / d gates| over the batches (loss = model(**batch).loss, the
# batch's mean loss), then divide each layer's row by its L2 norm.
# Check it with check("ex-s6r-importance", importance).
import torch

from bertology_lib.book.exercises import check
from bertology_lib.interventions import heads
from bertology_lib.training.encoding import collate


def importance(model, batches):
    model.eval()  # dropout off: the importance of one fixed model
    gates = torch.ones(heads.head_shape(model), requires_grad=True)
    total = torch.zeros(gates.shape)
    with heads.gate_heads(model, gates):
        for batch in batches:
            total += torch.autograd.grad(model(**batch).loss, gates)[0].abs()
    return total / total.norm(dim=-1, keepdim=True)  # each layer's row by its L2 norm


cfg = ft.FinetuneConfig.for_profile(params.profile)
first = ft.finetune(sst2, real, cfg, real_seeds[0], keep_model=True)  # the first seed's model (weights cached)
dev = cp.features(sst2, first.tokenizer, first.fine_tuned, cfg, ["dev"])["dev"]  # held-out training sentences
b, pad = sizes.importance_batch, first.tokenizer.pad_token_id
imp = importance(first.fine_tuned, [collate(dev.rows[i:i + b], pad) for i in range(0, len(dev.rows), b)])
assert torch.allclose(imp, heads.head_importance(first.fine_tuned, dev, pad, batch_size=b), atol=1e-5)
least = torch.zeros(imp.numel(), dtype=torch.bool)
least[imp.flatten().argsort()[:rk40]] = True  # the 40% least important heads, before any is removed
print(f"seed {real_seeds[0]}: the {rk40} least important of {imp.numel()} heads sit in the layers as "
      f"{least.view(imp.shape).sum(-1).tolist()} ({imp.shape[1]} heads per layer)")
print(check("ex-s6r-importance", importance))'''

SOLUTIONS["ex-s6r-int8-weights"] = '''\
# Exercise: ex-s6r-int8-weights
# comp.quantize_int8 stores each Linear weight matrix w as int8 numbers q times one scale for the whole matrix
# (zero point 0): the scale spreads [-max|w|, max|w|] evenly over the 255 steps from -128 to 127, and q is
# w / scale rounded to the nearest integer and clipped to [-128, 127]. Write int8_weight(w): the float matrix
# q x scale that the quantised model computes with. Check it with check("ex-s6r-int8-weights", int8_weight).
import torch

from bertology_lib.book.exercises import check
from bertology_lib.interventions import compression as comp


def int8_weight(w):
    scale = w.abs().max() / 127.5  # 2 max|w| over 255 steps
    return torch.clamp(torch.round(w / scale), -128, 127) * scale


encoder = real.load_model()  # the pretrained encoder: the Linear layers that int8 quantises
quantised = comp.quantize_int8(encoder)
same = moved = size = n = 0
for name, linear in comp.prunable_weights(encoder).items():  # the blocks' Linear layers
    w = linear.weight.detach()
    mine = int8_weight(w)
    same += int(torch.isclose(mine, quantised.get_submodule(name).weight().dequantize(), rtol=0, atol=1e-6).sum())
    moved, size, n = moved + float((mine - w).abs().sum()), size + float(w.abs().sum()), n + w.numel()
assert same / n > 0.9999  # a weight exactly between two steps may round either way
print(f"int8 moves the {n:,} block weights by {moved / size:.2%} of their mean |w| on average; the Linear "
      f"layers take {real_check.int8_ratio:.2f}x fewer bytes (the biases stay in fp32)")
print(check("ex-s6r-int8-weights", int8_weight))'''

SOLUTIONS["ex-s7r-wilson"] = '''\
# Exercise: ex-s7r-wilson
# The figure's whiskers are 95% Wilson score intervals of a failure rate, all seeds' items pooled. Write
# wilson(k, n): the interval (low, high) for k failures out of n items, from the formula (z = 1.96, no
# continuity correction). Check it with check("ex-s7r-wilson", wilson).
import math

from bertology_lib.book.exercises import check


def wilson(k, n, z=1.959964):
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)  # pulled towards 1/2
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return centre - half, centre + half


per_seed = bh.failure_table(sst2_results)  # failures and items per seed and test
iid_error = float(sst2_iid.error.mean())
print(f"i.i.d. error {iid_error:.3f}; failure rate (mean over seeds) and its whisker per test:")
for _, row in sst2_summary.iterrows():
    g = per_seed[per_seed.test == row.test]
    low, high = wilson(int(g.failures.sum()), int(g.n.sum()))
    assert abs(low - row.pooled_ci_low) < 1e-6 and abs(high - row.pooled_ci_high) < 1e-6
    where = "above" if low > iid_error else "below" if high < iid_error else "across"
    print(f"{row.test:>22}: {row['mean']:.2f}, whisker {low:.2f} to {high:.2f}, {where} the i.i.d. error")
print(check("ex-s7r-wilson", wilson))'''

SOLUTIONS["ex-s7r-typo-variants"] = '''\
# Exercise: ex-s7r-typo-variants
# The INV typo test of checklist.sst2_suite misspells one word of a test sentence: among the words (split on
# spaces) of at least 4 characters, all letters, it picks one and swaps two adjacent characters of it. Write
# typo_variants(text): the set of every sentence it can make of `text`, words re-joined with single spaces
# (the sentence as it is when no word qualifies). Check it with check("ex-s7r-typo-variants", typo_variants).
from bertology_lib.book.exercises import check


def typo_variants(text):
    words = text.split()
    out = set()
    for i, w in enumerate(words):
        if len(w) >= 4 and w.isalpha():
            for j in range(len(w) - 1):  # swap characters j and j + 1
                out.add(" ".join(words[:i] + [w[:j] + w[j + 1] + w[j] + w[j + 2:]] + words[i + 1:]))
    return out or {text}


typo = next(t for t in sst2_suite if t.name == "typo")
assert all(it.perturbed in typo_variants(it.text) for it in typo.items)
n_same = sum(it.perturbed == it.text for it in typo.items)
per_sentence = sum(len(typo_variants(it.text)) for it in typo.items) / len(typo.items)
print(f"{n_same} of {len(typo.items)} typo items change nothing; {per_sentence:.0f} possible typos per sentence")
rows = sst2_results[sst2_results.test == "typo"]  # all seeds
print(f"typo failure rate {rows.failed.mean():.3f} over all items, "
      f"{rows[rows.perturbed != rows.text].failed.mean():.3f} over those with a typo")
print(check("ex-s7r-typo-variants", typo_variants))'''

NOTEBOOKS = {
    "survey_06b_real_encoder": ("ex-s6r-importance", "ex-s6r-int8-weights"),
    "survey_07b_real_encoder": ("ex-s7r-wilson", "ex-s7r-typo-variants"),
}
LABELS = [label for pair in NOTEBOOKS.values() for label in pair]


# -------------------------------------------------------------------------------- conventions


def test_every_exercise_has_a_checker_and_a_solution_cell_that_follows_the_conventions():
    cells.assert_conventions(SOLUTIONS, LABELS, 4)


def test_notebook_solution_cells_are_the_tested_ones():
    cells.assert_notebook_cells(NOTEBOOKS, SOLUTIONS)


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
    for i, (n_layers, n_heads, d, _, sizes) in enumerate(sr.S6R_IMPORTANCE_CASES):
        model, feats, pad = sr._importance_case(i)
        model = model.double().eval()
        batches = sr._batches(feats, pad, sizes)
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
                        losses.append(torch.stack([ce(model(**{k: v for k, v in b.items() if k != "labels"}).logits,
                                                      b["labels"]) for b in batches]))  # in float64
                    value.weight[rows], value.bias[rows] = w0, b0
                    total[layer, h] = ((losses[0] - losses[1]) / (2 * eps)).abs().sum()
        fd = total / total.norm(dim=-1, keepdim=True)
        assert torch.allclose(fd.float(), sr.s6r_importance_truth(i), atol=1e-4), (fd, sr.s6r_importance_truth(i))
    # the hidden cases tell every typical mistake from the truth
    for i in range(len(sr.S6R_IMPORTANCE_CASES)):
        truth = sr.s6r_importance_truth(i)
        for key, wrong in sr._importance_mistakes(i).items():
            assert float((wrong - truth).abs().max()) > 0.05, key


def test_s6r_importance_solution_passes(toy_dir, tmp_cache, capsys):
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
    ns = {"sst2": task, "real": real, "real_seeds": [0, 1], "params": SimpleNamespace(profile="smoke"),
          "sizes": SimpleNamespace(importance_batch=5), "rk40": round(0.4 * n_layers * n_heads), "ft": ft, "cp": cp,
          "real_check": SimpleNamespace(shape=(n_layers, n_heads), int8_ratio=ratio)}
    out = cells.solve(SOLUTIONS, "ex-s6r-importance", capsys, **ns)
    assert f"the {ns['rk40']} least important of {n_layers * n_heads} heads" in out
    out = cells.solve(SOLUTIONS, "ex-s6r-int8-weights", capsys, **ns)
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
                single.append({k: (v[j:j + 1, keep] if v.dim() == 2 else v[j:j + 1]) for k, v in batch.items()})
        return _importance(model, single)

    cells.fails("ex-s6r-importance", per_sentence, "one gradient per batch")
    cells.fails("ex-s6r-importance", lambda m, b: _importance(m, b).T, "(n_layers, n_heads)")
    cells.fails("ex-s6r-importance", lambda m, b: torch.full(heads.head_shape(m), 0.5), "not yet")
    cells.fails("ex-s6r-importance", lambda m, b: torch.zeros(heads.head_shape(m)), "not yet")
    cells.fails("ex-s6r-importance", lambda m, b: torch.zeros(2, 4), "(n_layers, n_heads)")


def test_s6r_int8_truth_is_the_symmetric_per_tensor_grid():
    for w in sr.s6r_int8_cases():
        truth = sr.s6r_int8_truth(w)
        step = float(w.abs().max()) / 127.5
        q = truth.double() / step
        assert torch.allclose(q, q.round(), atol=1e-3)  # whole steps: zero point 0
        assert q.round().min() >= -128 and q.round().max() <= 127  # int8
        err = (truth.double() - w.double()).abs()
        clipped = q.round() == 127
        assert float(err[~clipped].max()) <= step / 2 + 1e-6  # the nearest step
        assert float(w.max()) <= 127.5 * step + 1e-6
    w = sr.s6r_int8_cases()[0]  # the clipped case: many weights at +max|w|, which int8 must clip to 127 steps
    assert int((sr.s6r_int8_truth(w).double() / (float(w.abs().max()) / 127.5)).round().eq(127).sum()) > 50
    # the hidden cases tell every typical mistake from the truth
    cases = sr.s6r_int8_cases()
    for key in sr._int8_mistakes(cases[0]):
        assert any(sr._int8_disagreement(sr._as_tensor(sr._int8_mistakes(w)[key]), sr.s6r_int8_truth(w)) > 0.01
                   for w in cases), key


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
    cells.fails("ex-s6r-int8-weights", lambda w: torch.clamp(torch.round(w / (w.abs().max() / 127.5)), -128, 127),
           "q x scale")
    cells.fails("ex-s6r-int8-weights", lambda w: w, "w itself")
    cells.fails("ex-s6r-int8-weights", lambda w: torch.zeros_like(w), "not yet")
    cells.fails("ex-s6r-int8-weights", lambda w: grid(w, w.abs().max() / 127.5).T, "w's shape")
    cells.fails("ex-s6r-int8-weights", lambda w: 0.5, "w's shape")


# ================================================================================ survey_07b_real_encoder


def _wilson(k, n, z):
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return centre - half, centre + half


def test_s7r_wilson_truth_is_the_score_interval():
    from scipy.stats import norm

    z = float(norm.ppf(0.975))
    for k, n in sr.S7R_WILSON_CASES:
        lo, hi = sr.s7r_wilson_truth(k, n)
        assert (lo, hi) == pytest.approx(_wilson(k, n, z), abs=1e-9)
        # the score interval: the proportions p0 whose score test |k - n p0| / sqrt(n p0 (1 - p0)) = z
        for p0 in (lo, hi):
            if 0 < p0 < 1:
                assert abs(k - n * p0) / math.sqrt(n * p0 * (1 - p0)) == pytest.approx(z, abs=1e-6)
    assert sr.s7r_wilson_truth(0, 8)[0] == pytest.approx(0.0, abs=1e-12)
    assert sr.s7r_wilson_truth(0, 8)[1] == pytest.approx(z * z / (8 + z * z))


def test_s7r_wilson_wrong_answers():
    from scipy.stats import binomtest

    assert ex.check("ex-s7r-wilson", lambda k, n: _wilson(k, n, 1.96)).ok

    def wald(k, n, clip=False):
        p = k / n
        half = 1.96 * math.sqrt(p * (1 - p) / n)
        return (max(0.0, p - half), min(1.0, p + half)) if clip else (p - half, p + half)

    def scipy_ci(method):
        def f(k, n):
            ci = binomtest(k, n).proportion_ci(0.95, method=method)
            return ci.low, ci.high
        return f

    cells.fails("ex-s7r-wilson", wald, "normal (Wald)", "collapses")
    cells.fails("ex-s7r-wilson", lambda k, n: wald(k, n, clip=True), "clipped")
    cells.fails("ex-s7r-wilson", lambda k, n: _wilson(k, n, 2.0), "z = 1.96")
    cells.fails("ex-s7r-wilson", lambda k, n: _wilson(k, n, 1.645), "90%")
    cells.fails("ex-s7r-wilson", scipy_ci("wilsoncc"), "continuity correction")
    cells.fails("ex-s7r-wilson", scipy_ci("exact"), "Clopper-Pearson")
    cells.fails("ex-s7r-wilson", lambda k, n: _wilson(k, n, 1.96)[::-1], "lower bound first")
    cells.fails("ex-s7r-wilson", lambda k, n: tuple(100 * x for x in _wilson(k, n, 1.96)), "percent")
    cells.fails("ex-s7r-wilson", lambda k, n: (k / n, k / n), "not yet")
    cells.fails("ex-s7r-wilson", lambda k, n: k / n, "two numbers")


def _every_typo(text):
    """The typo rule as the exercise states it, enumerated: every word of 4+ letters, every adjacent swap."""
    words = text.split()
    out = {" ".join(words[:i] + [w[:j] + w[j + 1] + w[j] + w[j + 2:]] + words[i + 1:])
           for i, w in enumerate(words) if len(w) >= 4 and w.isalpha() for j in range(len(w) - 1)}
    return out or {text}


def test_s7r_typo_truth_is_every_draw_of_the_suites_typo():
    from bertology_lib.data import checklist

    for text in sr.S7R_TYPO_CASES:
        assert set(sr.s7r_typo_truth(text)) == _every_typo(text), text  # the draws saturate: none left out
        more = next(t for t in checklist.sst2_suite([text], 4000, seed=11) if t.name == "typo")
        assert {it.perturbed for it in more.items} == set(sr.s7r_typo_truth(text))  # and nothing else is drawn
    assert sr.s7r_typo_truth("too bad .") == {"too bad ."}
    assert "the film is n't as good as it should have been ." in sr.s7r_typo_truth(sr.S7R_TYPO_CASES[1])  # o <-> o
    # the suite draws the typos of real sentences from these sets
    texts = list(sr.S7R_TYPO_CASES)
    typo = next(t for t in checklist.sst2_suite(texts, 40, seed=3) if t.name == "typo")
    assert all(it.perturbed in _every_typo(it.text) for it in typo.items)
    # the hidden cases tell every typical mistake from the truth
    for key in sr._typo_mistakes(texts[0]):
        assert any(sr._typo_mistakes(t)[key] != set(sr.s7r_typo_truth(t)) for t in texts), key


def test_s7r_typo_wrong_answers():
    def variants(keep=lambda w: len(w) >= 4 and w.isalpha(), drop_same=False, empty=False, adjacent=True):
        def f(text):
            out = sr._typo_variants(text, keep, adjacent)
            if drop_same:
                out.discard(text)
            return out if out or empty else {text}
        return f

    assert ex.check("ex-s7r-typo-variants", variants()).ok
    assert ex.check("ex-s7r-typo-variants", lambda t: sorted(variants()(t))).ok  # any collection of sentences
    cells.fails("ex-s7r-typo-variants", variants(drop_same=True), "equal letters")
    cells.fails("ex-s7r-typo-variants", variants(empty=True), "no word qualifies")
    cells.fails("ex-s7r-typo-variants", variants(keep=lambda w: len(w) >= 3 and w.isalpha()), "at least 4 characters")
    cells.fails("ex-s7r-typo-variants", variants(keep=lambda w: len(w) > 4 and w.isalpha()), "exactly 4")
    cells.fails("ex-s7r-typo-variants", variants(keep=lambda w: len(w) >= 4), "letters alone")
    cells.fails("ex-s7r-typo-variants", variants(adjacent=False), "adjacent")
    cells.fails("ex-s7r-typo-variants", lambda t: {t}, "not yet", "misses")
    cells.fails("ex-s7r-typo-variants", lambda t: set(), "not yet")
    cells.fails("ex-s7r-typo-variants", lambda t: t, "a set of sentences")


def test_s7r_solutions_pass(toy_dir, capsys):
    from bertology_lib.data import checklist, tasks
    from bertology_lib.experiments.survey import behaviour as bh
    from bertology_lib.training import finetune as ft

    task = tasks.toy_classification(n_train=8, n_dev=4, n_test=24)  # stands in for SST-2
    src = ft.as_source(toy_dir)
    tok = src.load_tokenizer()
    suite = checklist.sst2_suite([e.text for e in task.examples("test")], 8, seed=0)
    seeds = [0, 1]
    results = pd.concat([bh.run_tests(ft.build_model(task, src.load_model(), s).eval(), tok, suite,
                                      task.label_names).assign(seed=s) for s in seeds], ignore_index=True)
    iid = pd.DataFrame({"seed": seeds, "accuracy": [0.8, 0.7], "error": [0.2, 0.3]})
    ns = {"sst2_results": results, "sst2_iid": iid, "sst2_summary": bh.summarise_seeds(bh.failure_table(results)),
          "sst2_suite": suite, "seeds": seeds, "bh": bh}
    out = cells.solve(SOLUTIONS, "ex-s7r-wilson", capsys, **ns)
    assert "i.i.d. error 0.250" in out and out.count(", whisker ") == len(suite)
    out = cells.solve(SOLUTIONS, "ex-s7r-typo-variants", capsys, **ns)
    assert "of 8 typo items change nothing" in out
