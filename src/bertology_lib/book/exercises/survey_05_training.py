"""Checkers of the exercises of ``survey_05_training`` (§5 Training BERT, Rogers et al. 2020):

* ``ex-survey5-lora-params``: the weights LoRA trains;
* ``ex-survey5-paired``: the paired 95% t interval behind every claim of the chapter.

The answers are functions, run on hidden cases. Every truth is computed here from the library (models built on the
fly, :mod:`bertology_lib.stats`), never typed in, and none depends on the profile the notebook runs at. Models are
built inside ``torch.random.fork_rng``, so checking an answer never moves a notebook's random state. Used by that
notebook's exercise cells.
"""

from __future__ import annotations

import math

from bertology_lib.book.exercises.cases import judge_function, numbers, quiet_build, within
from bertology_lib.book.exercises.checks import as_whole_number, checker


SURVEY5_LORA_CASES: tuple[tuple[int, int, int, int], ...] = (
    (2, 32, 1, 2),
    (3, 48, 4, 3),
    (6, 128, 8, 2),
    (4, 64, 2, 5),
    (1, 16, 16, 2),
)


def survey5_lora_truth(n_layers: int, d_model: int, rank: int, n_labels: int) -> int:
    """Weights that train under LoRA as the §5 notebook runs it, counted on a built model: a BERT of
    ``n_layers`` blocks of width ``d_model`` under the sequence classifier, prepared by
    ``training.finetune.prepare(model, "lora", rank)`` (adapters on every query and value projection)."""
    from transformers import BertConfig, BertModel

    from bertology_lib.models.task_heads import SequenceClassifier
    from bertology_lib.training import finetune as ft

    cfg = BertConfig(
        vocab_size=16,
        hidden_size=d_model,
        num_hidden_layers=n_layers,
        num_attention_heads=2 if d_model % 2 == 0 else 1,
        intermediate_size=4 * d_model,
        max_position_embeddings=16,
    )
    model = quiet_build(lambda: ft.prepare(SequenceClassifier(BertModel(cfg), n_labels), "lora", rank))
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


def _lora_mistakes(n_layers: int, d: int, r: int, c: int) -> dict[str, int]:
    head = d * d + d + d * c + c
    adapters = n_layers * 2 * r * 2 * d
    return {
        "adapters": adapters,
        "qkv": 3 * adapters // 2 + head,
        "one factor": adapters // 2 + head,
        "out only": adapters + d * c + c,
        "frozen": n_layers * 2 * (d * d + d) + head,
    }


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
    return judge_function(
        answer,
        "lora_trainable",
        SURVEY5_LORA_CASES,
        read=as_whole_number,
        refuse="lora_trainable should return a whole number of weights, got {first!r}.",
        truth=survey5_lora_truth,
        mistakes=_lora_mistakes,
        hints=_LORA_HINTS,
        ok=(
            "correct: the adapters grow with depth x rank x width, the head does not, so at rank 1 the head holds "
            "most of what trains."
        ),
        not_yet=lambda i, v, t: (
            f"not yet: lora_trainable{SURVEY5_LORA_CASES[i]} = {v[i]:,} is too "
            f"{'many' if v[i] > t[i] else 'few'}. Check yourself on a small model: "
            '`ft.prepare(model, "lora", rank)` and sum the parameters that require grad.'
        ),
    )


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
    df_w = se_w**4 / ((va / n) ** 2 / (n - 1) + (vb / n) ** 2 / (n - 1)) if se_w > 0 else 2 * n - 2
    se_p = math.sqrt(((n - 1) * va + (n - 1) * vb) / (2 * n - 2) * 2 / n)
    tw, tp = float(st.t.ppf(0.975, df_w)), float(st.t.ppf(0.975, 2 * n - 2))
    pos = [u - v for u, v in zip(list(a.values()), list(b.values()))]
    mp = sum(pos) / len(pos)
    sdp = math.sqrt(sum((v - mp) ** 2 for v in pos) / (len(pos) - 1))
    hp = float(st.t.ppf(0.975, len(pos) - 1)) * sdp / math.sqrt(len(pos))
    truth = survey5_paired_truth(a, b)
    return {
        "fractions": tuple(v / 100 for v in truth),
        "sign": (-truth[0], -truth[2], -truth[1]),
        "position": (100 * mp, 100 * (mp - hp), 100 * (mp + hp)),
        "welch": (100 * m, 100 * (m - tw * se_w), 100 * (m + tw * se_w)),
        "pooled": (100 * m, 100 * (m - tp * se_p), 100 * (m + tp * se_p)),
        "z": (100 * m, 100 * (m - 1.959964 * sd1 / math.sqrt(n)), 100 * (m + 1.959964 * sd1 / math.sqrt(n))),
        "ddof0": (100 * m, 100 * (m - t * sd0 / math.sqrt(n)), 100 * (m + t * sd0 / math.sqrt(n))),
    }


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

    def not_yet(i, v, t):
        if all(abs(x[0] - y[0]) <= 0.05 for x, y in zip(v, t)):
            return (
                "the mean difference is right but the interval is not: a 95% t interval of the per-seed "
                "differences, mean +- t(0.975, n-1) x sd / sqrt(n)."
            )
        return (
            "not yet: the centre of the interval is the mean over seeds of a[s] - b[s] (in points); check "
            "your function against stats.paired_points on the notebook's own sweeps."
        )

    return judge_function(
        answer,
        "paired_interval",
        SURVEY5_PAIRED_CASES,
        inputs=lambda c: (dict(c[0]), dict(c[1])),
        show=_show_paired,
        read=lambda g: numbers(g, 3),
        refuse="paired_interval should return three numbers (mean, low, high), got {first!r}.",
        truth=survey5_paired_truth,
        match=within(0.05),
        mistakes=_paired_mistakes,
        hints=_PAIRED_HINTS,
        ok=(
            "correct: this is what stats.paired_points computes (rounded to 0.1); a claim is reproduced when the "
            "low end clears its threshold."
        ),
        not_yet=not_yet,
    )
