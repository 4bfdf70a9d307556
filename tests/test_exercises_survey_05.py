"""Checked exercises of the survey's §5 notebooks, training BERT (``survey_05_training``, ``survey_05b_architecture``,
``survey_05c_objectives``, ``survey_05d_nsp``; checkers in the modules of the same names under
``bertology_lib.book.exercises``).

For every exercise the checker's truth agrees with an independent computation, the notebook's solution cell passes
its check, and typical wrong answers fail with their specific hint. The teacher solution of each exercise is read
from its notebook (``exercise_cells.solution``) and run here on the notebook's variables rebuilt small (tiny random
BERTs, smoke sizes, or the exercise's fixed configuration).
"""

from __future__ import annotations

import math
from types import SimpleNamespace

import pandas as pd
import pytest
import torch

import exercise_cells as cells
from bertology_lib.book import exercises as ex
from bertology_lib.book.exercises import survey_05_training as s5
from bertology_lib.book.exercises import survey_05b_architecture as s5b
from bertology_lib.book.exercises import survey_05c_objectives as s5c
from bertology_lib.book.exercises import survey_05d_nsp as s5d

torch.set_num_threads(1)

NOTEBOOKS = {
    "survey_05_training": ("ex-survey5-lora-params", "ex-survey5-paired"),
    "survey_05b_architecture": ("ex-survey52-block-params", "ex-survey52-width"),
    "survey_05c_objectives": ("ex-survey53-partial", "ex-survey53-span"),
    "survey_05d_nsp": ("ex-survey54-nsp-params", "ex-survey54-overlap"),
}
LABELS = [label for labels in NOTEBOOKS.values() for label in labels]


# -------------------------------------------------------------------------------- conventions


def test_every_exercise_has_a_checker_and_a_solution_cell_that_follows_the_conventions():
    cells.assert_conventions(LABELS, 8)


@pytest.mark.parametrize("label", LABELS)
def test_function_answers_need_a_function_and_survive_its_errors(label):
    cells.assert_function_answer_needed(label)


def test_checking_never_moves_the_global_random_state():
    state = torch.random.get_rng_state()
    for label in ("ex-survey5-lora-params", "ex-survey52-block-params"):
        ex.check(label, lambda *a: 0)
    assert torch.equal(state, torch.random.get_rng_state())


# ================================================================================ survey_05_training


def test_survey5_lora_truth_is_the_adapters_plus_the_head():
    for n_layers, d, r, c in s5.SURVEY5_LORA_CASES:
        assert s5.survey5_lora_truth(n_layers, d, r, c) == n_layers * 2 * 2 * r * d + d * d + d + d * c + c


def test_survey5_lora_wrong_answers():
    cells.fails("ex-survey5-lora-params", lambda L, d, r, c: L * 4 * r * d, "task head")
    cells.fails("ex-survey5-lora-params", lambda L, d, r, c: L * 6 * r * d + d * d + d + d * c + c, "key")
    cells.fails("ex-survey5-lora-params", lambda L, d, r, c: L * 2 * r * d + d * d + d + d * c + c, "two low-rank")
    cells.fails("ex-survey5-lora-params", lambda L, d, r, c: L * 4 * r * d + d * c + c, "dense layer")
    cells.fails("ex-survey5-lora-params", lambda L, d, r, c: 2 * L * (d * d + d) + d * d + d + d * c + c, "freezes")
    cells.fails("ex-survey5-lora-params", lambda L, d, r, c: L * 4 * r * d + d * d + d * c + c + 1, "too few")
    cells.fails("ex-survey5-lora-params", lambda L, d, r, c: 0.5, "whole number")


def test_survey5_paired_truth_is_the_paired_t_interval():
    from scipy import stats as sst

    from bertology_lib import stats

    for a, b in s5.SURVEY5_PAIRED_CASES:
        seeds = sorted(a)
        res = sst.ttest_rel([a[s] for s in seeds], [b[s] for s in seeds])
        ci = res.confidence_interval(0.95)
        mean, lo, hi = s5.survey5_paired_truth(a, b)
        assert (lo, hi) == pytest.approx((100 * ci.low, 100 * ci.high), abs=1e-9)
        assert mean == pytest.approx(100 * sum(a[s] - b[s] for s in seeds) / len(seeds))
        assert stats.paired_points(a, b) == tuple(round(x, 1) for x in (mean, lo, hi))
    # the cases catch every typical mistake: b is in another order, sometimes with more seeds
    assert any(list(b) != list(a) for a, b in s5.SURVEY5_PAIRED_CASES)
    assert any(len(b) > len(a) for a, b in s5.SURVEY5_PAIRED_CASES)


def test_survey5_solutions_pass(toy_dir, tmp_cache):
    from bertology_lib import stats
    from bertology_lib.data import tasks
    from bertology_lib.experiments.survey import training as tv
    from bertology_lib.training import finetune as ft

    task = tasks.toy_classification(n_train=16, n_dev=8, n_test=8)
    sizes = tv.TrainingSizes.for_profile("smoke")
    lora_runs = {
        0: ft.finetune(
            task, toy_dir, sizes.finetune_config("smoke", "lora"), 0, strategy="lora", lora_rank=sizes.lora_rank
        )
    }
    names = {
        "strategies": SimpleNamespace(pretrained=ft.as_source(toy_dir).load_model()),
        "sizes": sizes,
        "task": task,
        "lora_runs": lora_runs,
        "strategy_seeds": [0, 1],
        "n_params": lora_runs[0].train["n_params"],
    }
    out = cells.solve("ex-survey5-lora-params", **names)
    counted = lora_runs[0].train["n_trainable"]
    assert f"{counted:,} trainable weights (the fine-tuning counted {counted:,})" in out
    full_s, frozen_last = {0: 0.905, 1: 0.88, 2: 0.9}, {2: 0.85, 0: 0.84, 1: 0.845, 3: 0.83}
    out = cells.solve("ex-survey5-paired", stats=stats, full_s=full_s, frozen_last=frozen_last)
    assert out.count(str(stats.paired_points(full_s, frozen_last))) == 2  # the solution's interval is the library's


def test_survey5_paired_wrong_answers():
    import numpy as np
    from scipy import stats as sst

    def interval(d, q):
        m, sd = float(np.mean(d)), float(np.std(d, ddof=1))
        return m, m - q * sd / math.sqrt(len(d)), m + q * sd / math.sqrt(len(d))

    def by_seed(a, b):
        return [100 * (a[s] - b[s]) for s in sorted(a)]

    cells.fails(
        "ex-survey5-paired",
        lambda a, b: interval([a[s] - b[s] for s in sorted(a)], sst.t.ppf(0.975, len(a) - 1)),
        "points",
    )
    cells.fails(
        "ex-survey5-paired",
        lambda a, b: interval([100 * (b[s] - a[s]) for s in sorted(a)], sst.t.ppf(0.975, len(a) - 1)),
        "a - b",
    )
    cells.fails(
        "ex-survey5-paired",
        lambda a, b: interval([100 * (x - y) for x, y in zip(a.values(), b.values())], sst.t.ppf(0.975, len(a) - 1)),
        "by seed",
    )
    cells.fails("ex-survey5-paired", lambda a, b: interval(by_seed(a, b), 1.959964), "Student")

    def ddof0(a, b):
        d = by_seed(a, b)
        half = sst.t.ppf(0.975, len(d) - 1) * np.std(d) / math.sqrt(len(d))
        return np.mean(d), np.mean(d) - half, np.mean(d) + half

    cells.fails("ex-survey5-paired", ddof0, "n - 1")

    def welch(a, b):
        seeds = sorted(a)
        x, y = np.array([a[s] for s in seeds]), np.array([b[s] for s in seeds])
        ci = sst.ttest_ind(x, y, equal_var=False).confidence_interval(0.95)
        return 100 * (x.mean() - y.mean()), 100 * ci.low, 100 * ci.high

    cells.fails("ex-survey5-paired", welch, "independent")
    cells.fails("ex-survey5-paired", lambda a, b: (1.0, 2.0), "three numbers")


# ================================================================================ survey_05b_architecture


def test_survey52_block_truth_is_12d2_plus_13d_per_block_and_the_real_model():
    from transformers import BertConfig, BertForMaskedLM

    for n_layers, d, h in s5b.SURVEY52_BLOCK_CASES:
        assert s5b.survey52_block_truth(n_layers, d, h) == n_layers * (12 * d * d + 13 * d)
    cfg = BertConfig(vocab_size=30, hidden_size=64, num_hidden_layers=4, num_attention_heads=4, intermediate_size=256)
    assert s5b.survey52_block_truth(4, 64, 4) == sum(p.numel() for p in BertForMaskedLM(cfg).bert.encoder.parameters())
    assert s5b.survey52_block_truth(4, 64, 4) == 199_936  # the quick table's block_params


def test_survey52_width_truth_is_the_closest_multiple_of_the_heads():
    def params(n_layers, d):
        return n_layers * (12 * d * d + 13 * d)

    for n_layers, base_layers, base_d, h in s5b.SURVEY52_WIDTH_CASES:
        target = params(base_layers, base_d)
        widths = range(h, 8 * base_d + 1, h)
        best = min(widths, key=lambda d: (abs(params(n_layers, d) - target), d))
        assert s5b.survey52_width_truth(n_layers, base_layers, base_d, h) == best
    assert s5b.survey52_width_truth(2, 4, 64, 4) == 92 and s5b.survey52_width_truth(8, 4, 64, 4) == 44  # the quick grid
    # the cases include shapes where the grid's rule of thumb (equal 12 L d^2) misses
    assert any(s5b.survey52_width_truth(*c) != s5b._width_rule_of_thumb(*c) for c in s5b.SURVEY52_WIDTH_CASES)


def test_survey52_solutions_pass():
    from bertology_lib.experiments.survey import pretraining as pre
    from bertology_lib.experiments.survey import training as tv
    from bertology_lib.models import minibert

    grid = pre.architecture_grid(tv.TrainingSizes.for_profile("smoke"), [0, 1])
    names = list(grid)
    lab = pd.DataFrame(
        [
            {
                "variant": name,
                "seed": c.seed,
                "block_params": sum(
                    p.numel() for p in minibert.new_bert(50, c.n_layers, c.n_heads, c.d_model).bert.encoder.parameters()
                ),
            }
            for name, cs in grid.items()
            for c in cs
        ]
    )  # what evaluate_labs counts on the trained lab BERTs
    ns = {"grid": grid, "lab": lab, "base": names[0], "depths": [names[3], names[0], names[4]], "pre": pre}
    cells.solve("ex-survey52-block-params", **ns)
    ns_width = {**ns, "block_params": lambda n, d, h: n * (12 * d * d + 13 * d)}  # the first cell's function
    out = cells.solve("ex-survey52-width", **ns_width)
    assert "1 block, d=46: grid width 46, closest in parameters 46" in out


def test_survey52_wrong_answers():
    cells.fails("ex-survey52-block-params", lambda n, d, h: 12 * n * d * d, "approximation")
    cells.fails("ex-survey52-block-params", lambda n, d, h: n * (12 * d * d + 9 * d), "LayerNorms")
    cells.fails("ex-survey52-block-params", lambda n, d, h: n * (12 * d * d + 4 * d), "bias")
    cells.fails("ex-survey52-block-params", lambda n, d, h: n * (8 * d * d + 9 * d), "4 x d")
    cells.fails("ex-survey52-block-params", lambda n, d, h: n * (12 * d * d + 13 * d + h), "n_heads")
    cells.fails("ex-survey52-width", s5b._width_rule_of_thumb, "rule of thumb")
    cells.fails("ex-survey52-width", lambda n, bn, bd, h: round(bd * math.sqrt(bn / n)) * h + 1, "multiple of n_heads")
    cells.fails("ex-survey52-width", lambda n, bn, bd, h: s5b.survey52_width_truth(n, bn, bd, h) + h, "too wide")


# ================================================================================ survey_05c_objectives


def test_survey53_partial_truth_matches_token_masking_by_simulation():
    from bertology_lib.training.masking import mask_tokens

    g = torch.Generator().manual_seed(0)
    for pieces, p in (((1, 1, 2, 3), 0.15), ((2, 2, 2, 5, 1, 1, 3), 0.5)):
        word_of = torch.tensor([w for w, k in enumerate(pieces) for _ in range(k)])
        ids = torch.arange(10, 10 + len(word_of)).repeat(40_000, 1)
        _, labels = mask_tokens(ids, mask_id=1, candidate_ids=torch.arange(5, 9), mask_prob=p, generator=g)
        picked = labels != -100  # token masking: every piece is its own unit
        per_word = torch.zeros(len(ids), len(pieces)).index_add_(1, word_of, picked.float())
        whole = per_word == torch.tensor(pieces, dtype=torch.float)
        partial_pieces = (picked & ~whole[:, word_of]).sum()
        sim = float(partial_pieces / picked.sum())
        assert sim == pytest.approx(s5c.survey53_partial_truth(pieces, p), abs=0.004)
    assert s5c.survey53_partial_truth([1] * 10, 0.15) == pytest.approx(0.0, abs=1e-12)


def test_survey53_span_truth_matches_span_groups_by_simulation():
    from bertology_lib.training.masking import span_groups

    g = torch.Generator().manual_seed(1)
    for p, max_len in s5c.SURVEY53_SPAN_CASES:
        groups = span_groups(torch.arange(400_000).repeat(2, 1), p, max_len, g)
        lengths = torch.cat([torch.bincount(r)[:-1] for r in groups]).float()
        assert float(lengths.mean()) == pytest.approx(s5c.survey53_span_truth(p, max_len), abs=0.03)
        assert int(lengths.max()) <= max_len
    assert s5c._span_rule() in ("clamped", "redrawn")
    assert s5c._span_mean_redrawn(0.2, 10) == pytest.approx(3.8, abs=0.01)  # SpanBERT's reported mean


def test_survey53_solutions_pass(tmp_cache):
    from bertology_lib.experiments.survey import pretraining as pre
    from bertology_lib.experiments.survey import training as tv
    from bertology_lib.models import minibert

    mb_cfg = minibert.MiniBertConfig.for_profile("smoke")
    grid = pre.objective_grid(tv.TrainingSizes.for_profile("smoke"), [0])
    tok = pre.lab_tokenizer(grid["token"][0], mb_cfg)
    held_texts = [s.text for s in minibert.corpus(mb_cfg)[1]]
    cells.solve("ex-survey53-partial", tok=tok, held_texts=held_texts)
    cells.solve("ex-survey53-span", pre=pre)


def test_survey53_wrong_answers():
    cells.fails(
        "ex-survey53-partial", lambda ks, p: sum(1 - (1 - p) ** k - p**k for k in ks) / len(ks), "share of words"
    )
    cells.fails(
        "ex-survey53-partial",
        lambda ks, p: sum(1 - (1 - p) ** k - p**k for k in ks) / sum(1 - (1 - p) ** k for k in ks),
        "any masked piece",
    )
    cells.fails("ex-survey53-partial", lambda ks, p: sum(k * (p - p**k) for k in ks) / sum(ks), "masked pieces")
    cells.fails(
        "ex-survey53-partial",
        lambda ks, p: (
            (sum(k * (p - p**k) for k in ks if k > 1) / (p * sum(k for k in ks if k > 1))) if max(ks) > 1 else 0.0
        ),
        "single-piece",
    )
    other = s5c._span_mean_redrawn if s5c._span_rule() == "clamped" else s5c._span_mean_clamped
    cells.fails("ex-survey53-span", other, "longer than max_len")
    cells.fails("ex-survey53-span", lambda p, m: 1 / p, "unclipped")
    cells.fails("ex-survey53-span", lambda p, m: s5c._span_mean_clamped(p, m) - 1, "at least one word")
    cells.fails("ex-survey53-span", lambda p, m: s5c.survey53_span_truth(p, m) + 0.5, "too long")


# ================================================================================ survey_05d_nsp


def test_survey54_solutions_pass(tmp_cache):
    from bertology_lib.experiments.survey import pretraining as pre
    from bertology_lib.experiments.survey import training as tv
    from bertology_lib.models import minibert

    sizes = tv.TrainingSizes.for_profile("smoke")
    mb_cfg = minibert.MiniBertConfig.for_profile("smoke")
    grid = pre.objective_grid(sizes, [0])
    nsp = "whole word + NSP"
    lab = pd.DataFrame({"variant": [nsp], "params": [1000], "nsp_acc": [0.5]})
    out = cells.solve("ex-survey54-nsp-params", pre=pre, grid=grid, nsp=nsp, mb_cfg=mb_cfg, sizes=sizes, lab=lab)
    assert f"NSP adds {sizes.lab_d_model**2 + 3 * sizes.lab_d_model + 2:,} parameters" in out
    out = cells.solve("ex-survey54-overlap", minibert=minibert, mb_cfg=mb_cfg, lab=lab, nsp=nsp)
    assert "the shared-noun detector scores" in out


def test_survey54_wrong_answers():
    cells.fails("ex-survey54-nsp-params", lambda d: 2 * d + 2, "pooler")
    cells.fails("ex-survey54-nsp-params", lambda d: d * d + 2 * d, "biases")
    cells.fails("ex-survey54-nsp-params", lambda d: d * d + d, "not yet")
    cells.fails("ex-survey54-nsp-params", lambda d: 0.5, "whole number")
    cells.fails("ex-survey54-overlap", lambda s: s5d.survey54_overlap_truth(s) * (len(s) - 1) / len(s), "distinct")
    cells.fails("ex-survey54-overlap", lambda s: s5d.survey54_overlap_truth(s) + 0.01, "not yet")
    cells.fails("ex-survey54-overlap", lambda s: "x", "number")
