"""Checkers of the survey notebooks' exercises (Rogers et al. 2020): training (§5).

Two checked exercises per notebook:

* ``survey_05_training``: ``ex-survey5-lora-params`` (the weights LoRA trains) and ``ex-survey5-paired``
  (the paired 95% t interval behind every claim of the chapter);
* ``survey_05b_architecture``: ``ex-survey52-block-params`` (the parameters of a lab BERT's blocks) and
  ``ex-survey52-width`` (the width that keeps them equal at another depth);
* ``survey_05c_objectives``: ``ex-survey53-partial`` (how often token masking hides only part of a
  word) and ``ex-survey53-span`` (the mean span length of span masking);

The §6 and §7 checkers are in :mod:`bertology_lib.book.exercises.survey_size`.

An answer that is a function is run on hidden cases. Every truth is computed here from the library
(models built on the fly, the data generators, :mod:`bertology_lib.stats`), never typed in, and none
depends on the profile a notebook runs at. Models are built inside ``torch.random.fork_rng``, so checking
an answer never moves a notebook's random state. Used by the three notebooks' exercise cells.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache

from bertology_lib.book.exercises.cases import close_all, numbers, quiet_build, run_cases
from bertology_lib.book.exercises.checks import as_number, as_whole_number, checker

# =========================================================================== survey_05_training

SURVEY5_LORA_CASES: tuple[tuple[int, int, int, int], ...] = (
    (2, 32, 1, 2), (3, 48, 4, 3), (6, 128, 8, 2), (4, 64, 2, 5), (1, 16, 16, 2))


def survey5_lora_truth(n_layers: int, d_model: int, rank: int, n_labels: int) -> int:
    """Weights that train under LoRA as the §5 notebook runs it, counted on a built model: a BERT of
    ``n_layers`` blocks of width ``d_model`` under the sequence classifier, prepared by
    ``training.finetune.prepare(model, "lora", rank)`` (adapters on every query and value projection)."""
    from transformers import BertConfig, BertModel

    from bertology_lib.models.task_heads import SequenceClassifier
    from bertology_lib.training import finetune as ft

    cfg = BertConfig(vocab_size=16, hidden_size=d_model, num_hidden_layers=n_layers,
                     num_attention_heads=2 if d_model % 2 == 0 else 1, intermediate_size=4 * d_model,
                     max_position_embeddings=16)
    model = quiet_build(lambda: ft.prepare(SequenceClassifier(BertModel(cfg), n_labels), "lora", rank))
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


def _lora_mistakes(n_layers: int, d: int, r: int, c: int) -> dict[str, int]:
    head = d * d + d + d * c + c
    adapters = n_layers * 2 * r * 2 * d
    return {"adapters": adapters, "qkv": 3 * adapters // 2 + head, "one factor": adapters // 2 + head,
            "out only": adapters + d * c + c, "frozen": n_layers * 2 * (d * d + d) + head}


_LORA_HINTS = {
    "adapters": "you counted the adapters only: the task head ([CLS] -> dense + tanh -> output layer) is new and "
                "trains as well.",
    "qkv": "LoRA here adapts the query and value projections only; the key projection keeps no adapter.",
    "one factor": "each adapted projection gets two low-rank factors, A (rank x d) and B (d x rank).",
    "out only": "the task head has two layers that train: the dense layer before tanh and the output layer.",
    "frozen": "those are the query and value weights themselves, which LoRA freezes; count the low-rank factors "
              "that are added to them.",
}


@checker("ex-survey5-lora-params")
def _check_survey5_lora(answer):
    """``answer``: a function ``lora_trainable(n_layers, d_model, rank, n_labels)`` returning the number of
    weights that train under LoRA (adapters and task head); run on hidden shapes, exact whole numbers."""
    got, err = run_cases(answer, "lora_trainable", SURVEY5_LORA_CASES)
    if err:
        return False, err
    nums = [as_whole_number(g) for g in got]
    if any(n is None for n in nums):
        return False, f"lora_trainable should return a whole number of weights, got {got[0]!r}."
    truth = [survey5_lora_truth(*c) for c in SURVEY5_LORA_CASES]
    if nums == truth:
        return True, ("correct: the adapters grow with depth x rank x width, the head does not, so at rank 1 the "
                      "head holds most of what trains.")
    for key, hint in _LORA_HINTS.items():
        if nums == [_lora_mistakes(*c)[key] for c in SURVEY5_LORA_CASES]:
            return False, hint
    i = next(i for i, (n, t) in enumerate(zip(nums, truth)) if n != t)
    return False, (f"not yet: lora_trainable{SURVEY5_LORA_CASES[i]} = {nums[i]:,} is too "
                   f"{'many' if nums[i] > truth[i] else 'few'}. Check yourself on a small model: "
                   "`ft.prepare(model, \"lora\", rank)` and sum the parameters that require grad.")


def _survey5_paired_cases() -> list[tuple[dict[int, float], dict[int, float]]]:
    """Seed sweeps {seed: accuracy} with correlated a and b; b's order differs from a's, and b may hold more
    seeds than a (as ``full`` does against the strategy seeds)."""
    import numpy as np

    rng = np.random.default_rng(5)
    cases = []
    for n, extra, gain in ((5, 0, 0.03), (3, 0, -0.02), (10, 2, 0.01), (6, 3, 0.05)):
        base = rng.uniform(0.6, 0.9, n + extra)
        b = {s: round(float(base[s]), 4) for s in reversed(range(n + extra))}
        a = {s: round(float(min(1.0, base[s] + gain + rng.normal(0, 0.02))), 4) for s in range(n)}
        cases.append((a, b))
    return cases


SURVEY5_PAIRED_CASES = _survey5_paired_cases()


def survey5_paired_truth(a: dict[int, float], b: dict[int, float]) -> tuple[float, float, float]:
    """(mean, 95% low, 95% high) of a - b in points over the seeds of ``a``, paired by seed: the unrounded
    :func:`bertology_lib.stats.paired_points` (:func:`bertology_lib.stats.paired_test`, t interval)."""
    from bertology_lib.stats import paired_test

    seeds = sorted(a)
    t = paired_test([a[s] for s in seeds], [b[s] for s in seeds])
    return tuple(100 * x for x in t.interval())  # type: ignore[return-value]


def _paired_mistakes(a: dict[int, float], b: dict[int, float]) -> dict[str, tuple[float, ...]]:
    from scipy import stats as st

    seeds = sorted(a)
    x, y = [a[s] for s in seeds], [b[s] for s in seeds]
    n = len(x)
    d = [u - v for u, v in zip(x, y)]
    m = sum(d) / n
    sd1 = math.sqrt(sum((v - m) ** 2 for v in d) / (n - 1))
    sd0 = math.sqrt(sum((v - m) ** 2 for v in d) / n)
    t = float(st.t.ppf(0.975, n - 1))
    va = sum((v - sum(x) / n) ** 2 for v in x) / (n - 1)
    vb = sum((v - sum(y) / n) ** 2 for v in y) / (n - 1)
    se_w = math.sqrt(va / n + vb / n)
    df_w = se_w ** 4 / ((va / n) ** 2 / (n - 1) + (vb / n) ** 2 / (n - 1)) if se_w > 0 else 2 * n - 2
    se_p = math.sqrt(((n - 1) * va + (n - 1) * vb) / (2 * n - 2) * 2 / n)
    tw, tp = float(st.t.ppf(0.975, df_w)), float(st.t.ppf(0.975, 2 * n - 2))
    pos = [u - v for u, v in zip(list(a.values()), list(b.values()))]
    mp = sum(pos) / len(pos)
    sdp = math.sqrt(sum((v - mp) ** 2 for v in pos) / (len(pos) - 1))
    hp = float(st.t.ppf(0.975, len(pos) - 1)) * sdp / math.sqrt(len(pos))
    truth = survey5_paired_truth(a, b)
    return {"fractions": tuple(v / 100 for v in truth), "sign": (-truth[0], -truth[2], -truth[1]),
            "position": (100 * mp, 100 * (mp - hp), 100 * (mp + hp)),
            "welch": (100 * m, 100 * (m - tw * se_w), 100 * (m + tw * se_w)),
            "pooled": (100 * m, 100 * (m - tp * se_p), 100 * (m + tp * se_p)),
            "z": (100 * m, 100 * (m - 1.959964 * sd1 / math.sqrt(n)), 100 * (m + 1.959964 * sd1 / math.sqrt(n))),
            "ddof0": (100 * m, 100 * (m - t * sd0 / math.sqrt(n)), 100 * (m + t * sd0 / math.sqrt(n)))}


_PAIRED_HINTS = {
    "fractions": "the claims report points: multiply the accuracy differences by 100.",
    "sign": "the interval is of a - b (the first sweep minus the second), not b - a.",
    "position": "pair the runs by seed, not by position: the two dicts need not list their seeds in the same "
                "order, and b may hold seeds that a does not.",
    "welch": "that interval treats the two sweeps as independent samples; pairing by seed removes what the seeds "
             "share: take the t interval of the per-seed differences.",
    "pooled": "that interval treats the two sweeps as independent samples; pairing by seed removes what the seeds "
              "share: take the t interval of the per-seed differences.",
    "z": "with a handful of seeds the 95% interval uses Student's t quantile with n - 1 degrees of freedom, not "
         "the normal 1.96.",
    "ddof0": "use the sample standard deviation of the differences (divide by n - 1).",
}


def _show_paired(case: tuple) -> str:
    a, b = case
    return f"paired_interval(a, b) with {len(a)} seeds in a and {len(b)} in b"


@checker("ex-survey5-paired")
def _check_survey5_paired(answer):
    """``answer``: a function ``paired_interval(a, b)`` of two {seed: accuracy} dicts returning (mean, 95% low,
    95% high) of a - b in accuracy points, paired by the seeds of ``a``; run on hidden sweeps, +-0.05 points
    (so values rounded to 0.1 point, as the claims print them, pass)."""
    got, err = run_cases(answer, "paired_interval", [(dict(a), dict(b)) for a, b in SURVEY5_PAIRED_CASES], _show_paired)
    if err:
        return False, err
    vals = [numbers(g, 3) for g in got]
    if any(v is None for v in vals):
        return False, f"paired_interval should return three numbers (mean, low, high), got {got[0]!r}."
    truth = [survey5_paired_truth(*c) for c in SURVEY5_PAIRED_CASES]
    if all(close_all(v, t, 0.05) for v, t in zip(vals, truth)):
        return True, ("correct: this is what stats.paired_points computes (rounded to 0.1); a claim is reproduced "
                      "when the low end clears its threshold.")
    mistakes = [_paired_mistakes(*c) for c in SURVEY5_PAIRED_CASES]
    for key, hint in _PAIRED_HINTS.items():
        if all(close_all(v, m[key], 0.05) for v, m in zip(vals, mistakes)):
            return False, hint
    if all(abs(v[0] - t[0]) <= 0.05 for v, t in zip(vals, truth)):
        return False, ("the mean difference is right but the interval is not: a 95% t interval of the per-seed "
                       "differences, mean +- t(0.975, n-1) x sd / sqrt(n).")
    return False, ("not yet: the centre of the interval is the mean over seeds of a[s] - b[s] (in points); check "
                   "your function against stats.paired_points on the notebook's own sweeps.")


# =========================================================================== survey_05b_architecture

SURVEY52_BLOCK_CASES: tuple[tuple[int, int, int], ...] = (
    (4, 64, 4), (4, 64, 1), (4, 64, 16), (2, 92, 4), (8, 44, 4), (1, 8, 2), (12, 768, 12), (3, 30, 5))


@lru_cache(maxsize=256)
def survey52_block_truth(n_layers: int, d_model: int, n_heads: int) -> int:
    """Parameters of the blocks of a lab BERT (the table's ``block_params``: ``mlm.bert.encoder``, no
    embeddings or MLM head), counted on ``models.minibert.new_bert`` built on the meta device."""
    import torch

    from bertology_lib.models import minibert

    def build():
        with torch.device("meta"):
            return minibert.new_bert(8, n_layers, n_heads, d_model)

    return sum(p.numel() for p in quiet_build(build).bert.encoder.parameters())


def _block_mistakes(n_layers: int, d: int) -> dict[str, int]:
    return {"approx": 12 * n_layers * d * d, "no LN": n_layers * (12 * d * d + 9 * d),
            "no bias": n_layers * (12 * d * d + 4 * d), "ffn d": n_layers * (8 * d * d + 9 * d)}


_BLOCK_HINTS = {
    "approx": "12 L d^2 is the text's approximation: count the biases and the LayerNorms as well.",
    "no LN": "each block also has two LayerNorms (after attention and after the feed-forward layer), each with a "
             "weight and a bias of width d.",
    "no bias": "every Linear layer has a bias too: the four attention projections and the two feed-forward layers.",
    "ffn d": "the feed-forward layer is 4 x d wide (intermediate_size = 4 * d_model in models.minibert.new_bert).",
}


@checker("ex-survey52-block-params")
def _check_survey52_block(answer):
    """``answer``: a function ``block_params(n_layers, d_model, n_heads)`` returning the parameters of a lab
    BERT's blocks (no embeddings, no MLM head; feed-forward width 4 d); run on hidden shapes, exact."""
    got, err = run_cases(answer, "block_params", SURVEY52_BLOCK_CASES)
    if err:
        return False, err
    nums = [as_whole_number(g) for g in got]
    if any(n is None for n in nums):
        return False, f"block_params should return a whole number of parameters, got {got[0]!r}."
    truth = [survey52_block_truth(*c) for c in SURVEY52_BLOCK_CASES]
    if nums == truth:
        return True, ("correct: the head count does not appear in it — heads only split the d-wide projections "
                      "into slices; what they change is how many attention patterns a block computes.")
    if len({nums[0], nums[1], nums[2]}) > 1:
        return False, ("your count changes with n_heads: the query, key, value and output projections are d x d "
                       "whatever the split, so the heads do not change the number of parameters.")
    for key, hint in _BLOCK_HINTS.items():
        if nums == [_block_mistakes(c[0], c[1])[key] for c in SURVEY52_BLOCK_CASES]:
            return False, hint
    i = next(i for i, (n, t) in enumerate(zip(nums, truth)) if n != t)
    return False, (f"not yet: block_params{SURVEY52_BLOCK_CASES[i]} = {nums[i]:,} is too "
                   f"{'many' if nums[i] > truth[i] else 'few'}; compare with the table's block_params column, and "
                   "list a block's Linear layers and LayerNorms one by one.")


SURVEY52_WIDTH_CASES: tuple[tuple[int, int, int, int], ...] = (
    (2, 4, 64, 4), (8, 4, 64, 4), (3, 4, 32, 2), (12, 1, 32, 2), (1, 4, 16, 1))


def survey52_width_truth(n_layers: int, base_layers: int, base_d: int, n_heads: int) -> int:
    """The width (a multiple of ``n_heads``) whose ``n_layers`` blocks hold the number of parameters closest to
    ``base_layers`` blocks of width ``base_d`` (counted with :func:`survey52_block_truth`; on a tie the
    narrower)."""
    target = survey52_block_truth(base_layers, base_d, n_heads)
    best: tuple[int, int] | None = None
    d = n_heads
    while True:
        p = survey52_block_truth(n_layers, d, n_heads)
        best = min(best or (abs(p - target), d), (abs(p - target), d))
        if p > target:
            return best[1]
        d += n_heads


def _width_rule_of_thumb(n_layers: int, base_layers: int, base_d: int, n_heads: int) -> int:
    """The notebook's grid rule (equal 12 L d^2, rounded to a multiple of the heads)."""
    return max(n_heads, round(base_d * math.sqrt(base_layers / n_layers) / n_heads) * n_heads)


@checker("ex-survey52-width")
def _check_survey52_width(answer):
    """``answer``: a function ``equal_width(n_layers, base_layers, base_d, n_heads)`` returning the width d, a
    multiple of ``n_heads``, whose ``n_layers`` blocks come closest in parameters to ``base_layers`` blocks of
    width ``base_d`` (on a tie the narrower); run on hidden shapes, exact."""
    got, err = run_cases(answer, "equal_width", SURVEY52_WIDTH_CASES)
    if err:
        return False, err
    nums = [as_whole_number(g) for g in got]
    if any(n is None for n in nums):
        return False, f"equal_width should return a whole number (a width), got {got[0]!r}."
    cases = SURVEY52_WIDTH_CASES
    if any(n % c[3] for n, c in zip(nums, cases)):
        return False, "the width must be a multiple of n_heads, so that every head gets a slice of the same size."
    truth = [survey52_width_truth(*c) for c in cases]
    if nums == truth:
        return True, ("correct: at the notebook's sizes it matches the grid's widths; where it does not, 12 L d^2 "
                      "was too rough for narrow blocks.")
    if nums == [_width_rule_of_thumb(*c) for c in cases]:
        return False, ("that balances 12 L d^2 only, the notebook's rule of thumb; for narrow blocks the biases "
                       "and LayerNorms (13 d per block) tip the balance: compare real counts (your block_params).")
    i = next(i for i, (n, t) in enumerate(zip(nums, truth)) if n != t)
    return False, (f"not yet: equal_width{cases[i]} = {nums[i]} is too {'wide' if nums[i] > truth[i] else 'narrow'}; "
                   "try the multiples of n_heads around your answer and compare their parameter counts with the "
                   "base model's.")


# =========================================================================== survey_05c_objectives

SURVEY53_PARTIAL_CASES: tuple[tuple[tuple[int, ...], float], ...] = (
    ((1, 1, 2, 3), 0.15), ((4,), 0.15), ((1,) * 10, 0.15), ((2, 2, 2, 5, 1, 1, 3), 0.5),
    ((1, 2, 1, 1, 2, 1, 4, 1), 0.3))


def survey53_partial_truth(pieces_per_word: Sequence[int], p: float) -> float:
    """Expected share of the masked pieces whose word is only partly masked, when token masking picks each
    piece independently with probability ``p``: a word of k pieces has k p masked pieces on average, k p^k
    of them in fully masked words, so the share is 1 - sum k p^k / (p sum k)."""
    ks = [int(k) for k in pieces_per_word]
    return 1.0 - sum(k * p ** k for k in ks) / (p * sum(ks))


def _partial_mistakes(ks: Sequence[int], p: float) -> dict[str, float]:
    q = 1 - p
    part = [1 - q ** k - p ** k for k in ks]
    multi = [k for k in ks if k > 1]
    return {"per word": sum(part) / len(ks),
            "per masked word": sum(part) / sum(1 - q ** k for k in ks),
            "all pieces": sum(k * (p - p ** k) for k in ks) / sum(ks),
            "multi only": (sum(k * (p - p ** k) for k in multi) / (p * sum(multi))) if multi else 0.0}


_PARTIAL_HINTS = {
    "per word": "that is the share of words that are partly masked; the question counts masked pieces: weight a "
                "word by how many of its pieces are masked.",
    "per masked word": "that is the share of partly masked words among the words with any masked piece; the "
                       "question counts masked pieces, not words.",
    "all pieces": "divide by the number of masked pieces, not by all pieces.",
    "multi only": "single-piece words are masked too: their masked pieces belong in the denominator.",
}


def _show_partial(case: tuple) -> str:
    ks, p = case
    return f"partly_masked_share({list(ks)}, {p})"


@checker("ex-survey53-partial")
def _check_survey53_partial(answer):
    """``answer``: a function ``partly_masked_share(pieces_per_word, p)`` returning the expected share of the
    masked pieces whose word is only partly masked when every piece is picked independently with probability
    ``p``; run on hidden words, +-0.002."""
    got, err = run_cases(answer, "partly_masked_share", SURVEY53_PARTIAL_CASES, _show_partial)
    if err:
        return False, err
    vals = [as_number(g) for g in got]
    if any(v is None for v in vals):
        return False, f"partly_masked_share should return a number, got {got[0]!r}."
    truth = [survey53_partial_truth(*c) for c in SURVEY53_PARTIAL_CASES]
    if close_all(vals, truth, 0.002):
        return True, ("correct: whole-word masking sets this share to zero — the visible pieces of a word can no "
                      "longer give its hidden ones away.")
    for key, hint in _PARTIAL_HINTS.items():
        if close_all(vals, [_partial_mistakes(*c)[key] for c in SURVEY53_PARTIAL_CASES], 0.002):
            return False, hint
    i = next(i for i, (v, t) in enumerate(zip(vals, truth)) if abs(v - t) > 0.002)
    return False, (f"not yet: {_show_partial(SURVEY53_PARTIAL_CASES[i])} = {vals[i]:.3f} is too "
                   f"{'high' if vals[i] > truth[i] else 'low'}. For a word of k pieces, how many masked pieces do "
                   "you expect, and how many of them in words whose every piece is masked?")


SURVEY53_SPAN_CASES: tuple[tuple[float, int], ...] = ((0.2, 10), (0.5, 3), (0.1, 5), (0.3, 1), (0.35, 20))


def _span_mean_clamped(p: float, max_len: int) -> float:
    """E[min(L, max_len)] for L ~ Geometric(p) on 1, 2, ...: the sum of P(L > l) for l < max_len."""
    return sum((1 - p) ** l for l in range(max_len))


def _span_mean_redrawn(p: float, max_len: int) -> float:
    """E[L | L <= max_len] for L ~ Geometric(p): lengths above ``max_len`` redrawn (SpanBERT's 3.8 at 0.2, 10)."""
    q = 1 - p
    return sum(l * p * q ** (l - 1) for l in range(1, max_len + 1)) / (1 - q ** max_len)


@lru_cache(maxsize=1)
def _span_rule() -> str:
    """How ``training.masking.span_groups`` treats lengths above ``max_len`` — ``clamped`` or ``redrawn`` —
    read from the function itself (200,000 words at p = 0.2, max_len = 10: the two means are 4.46 and 3.80)."""
    import torch

    from bertology_lib.training.masking import span_groups

    g = torch.Generator().manual_seed(0)
    groups = span_groups(torch.arange(200_000)[None], 0.2, 10, g)[0]
    mean = float(torch.bincount(groups)[:-1].float().mean())  # the last span is cut by the row's end
    for rule, fn in (("clamped", _span_mean_clamped), ("redrawn", _span_mean_redrawn)):
        if abs(mean - fn(0.2, 10)) < 0.05:
            return rule
    raise AssertionError(f"span_groups draws spans of mean length {mean:.3f} at p=0.2, max_len=10; "
                         "the ex-survey53-span checker knows clamped (4.46) and redrawn (3.80) lengths only")


def survey53_span_truth(p: float, max_len: int) -> float:
    """Mean length (in words) of the spans ``training.masking.span_groups`` draws with ``p`` and ``max_len``,
    before the end of a sentence cuts the last one (the closed form of the rule the library follows)."""
    return (_span_mean_clamped if _span_rule() == "clamped" else _span_mean_redrawn)(p, max_len)


@checker("ex-survey53-span")
def _check_survey53_span(answer):
    """``answer``: a function ``mean_span_length(p, max_len)`` returning the mean number of words in a span that
    ``span_groups`` draws (before a sentence end cuts it); run on hidden (p, max_len), +-0.02 words."""
    got, err = run_cases(answer, "mean_span_length", SURVEY53_SPAN_CASES)
    if err:
        return False, err
    vals = [as_number(g) for g in got]
    if any(v is None for v in vals):
        return False, f"mean_span_length should return a number, got {got[0]!r}."
    cases = SURVEY53_SPAN_CASES
    truth = [survey53_span_truth(*c) for c in cases]
    if close_all(vals, truth, 0.02):
        return True, ("correct: that is the length of a masked run under span masking (word masking: 1), with the "
                      "share of masked words still 15%.")
    other, how = ((_span_mean_redrawn, "redrawn") if _span_rule() == "clamped" else (_span_mean_clamped, "clamped"))
    if close_all(vals, [other(*c) for c in cases], 0.02):
        return False, (f"that is the mean if lengths above max_len were {how}; read how span_groups treats a draw "
                       "longer than max_len.")
    if close_all(vals, [1 / c[0] for c in cases], 0.02):
        return False, "1/p is the mean of the unclipped geometric distribution; no span is longer than max_len."
    if close_all(vals, [_span_mean_clamped(*c) - 1 for c in cases], 0.02) or \
            close_all(vals, [(1 - c[0]) / c[0] for c in cases], 0.02):
        return False, "a span holds at least one word: the geometric lengths start at 1, not 0."
    i = next(i for i, (v, t) in enumerate(zip(vals, truth)) if abs(v - t) > 0.02)
    return False, (f"not yet: mean_span_length{cases[i]} = {vals[i]:.3f} is too {'long' if vals[i] > truth[i] else 'short'}"
                   "; write down P(length = l) for l = 1 .. max_len as span_groups draws it, then average.")
