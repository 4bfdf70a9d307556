"""Checkers of the exercises of ``duplication_04_english_bert`` (Duplicating the layers of the English lab BERT, Kao et
al. 2020):

* ``ex-dup4-added-params``: the parameters of one BERT encoder block, what each duplicated copy adds;
* ``ex-dup4-needed-data``: how many times its data an inconclusive claim of no effect would need for a verdict.

Every answer is a function, run on hidden cases; the truths come from the library on inputs built here (the blocks of
a ``transformers.BertModel`` built from each hidden config, whose copies ``interventions.duplication`` adds; the
data scale of ``book.conclusions``, written out here and tested against it, under the rule ``Equivalent``), so none
depends on the profile the notebook runs at. Models are built inside ``torch.random.fork_rng``, so checking never
moves a notebook's random state. Used by that notebook's exercise cells.
"""

from __future__ import annotations

import math
from statistics import NormalDist

from bertology_lib.book.exercises.cases import judge_function, quiet_build, within
from bertology_lib.book.exercises.checks import as_number, checker


DUP4_BLOCK_CASES: tuple[tuple[int, int, int, int, int], ...] = (
    (32, 128, 4, 100, 2),  # f = 4d, as in BERT-base
    (48, 80, 4, 60, 3),  # f != 4d: a narrower feed-forward
    (64, 256, 8, 500, 4),
    (24, 200, 2, 30, 2),  # f != 4d: a wider one
)
"""(hidden size d, intermediate size f, heads, vocabulary, blocks) of the hidden BERT configs."""


def _bert_config(d: int, f: int, heads: int, vocab: int, n_layers: int):
    from transformers import BertConfig

    return BertConfig(
        vocab_size=vocab,
        hidden_size=d,
        num_hidden_layers=n_layers,
        num_attention_heads=heads,
        intermediate_size=f,
        max_position_embeddings=64,
    )


def dup4_block_truth(d: int, f: int, heads: int, vocab: int, n_layers: int) -> int:
    """The parameters of one encoder block: those of ``BertModel(config).encoder.layer[0]``, the model built from
    the config without moving the global random state (what ``duplicate_layers`` adds per duplicated block)."""
    from transformers import BertModel

    model = quiet_build(lambda: BertModel(_bert_config(d, f, heads, vocab, n_layers)))
    return sum(p.numel() for p in model.encoder.layer[0].parameters())


def _block_mistakes(d: int, f: int, heads: int, vocab: int, n_layers: int) -> dict[str, float]:
    def block(f=f, biases=True, norms=2):
        return 4 * d * d + 2 * d * f + (5 * d + f if biases else 0) + norms * 2 * d

    cfg = _bert_config(d, f, heads, vocab, n_layers)
    embeddings = (cfg.vocab_size + cfg.max_position_embeddings + cfg.type_vocab_size) * d + 2 * d
    pooler = d * d + d
    return {
        "weights only": 4 * d * d + 2 * d * f,
        "no biases": block(biases=False),
        "no LayerNorm": block(norms=0),
        "one LayerNorm": block(norms=1),
        "f = 4d": block(f=4 * d),
        "embeddings": block() + embeddings,
        "whole model": (embeddings + n_layers * block() + pooler) / n_layers,
    }


_BLOCK_HINTS = {
    "weights only": "the weight matrices are not all: every linear layer has a bias (d for Q, K, V, the attention "
    "output and the feed-forward's second layer, f for its first), and each LayerNorm a scale and a shift.",
    "no biases": "every linear layer has a bias vector too: d for each of Q, K, V, the attention output and the "
    "feed-forward's second layer, f for its first.",
    "no LayerNorm": "a block has two LayerNorms (after the attention and after the feed-forward), each with a scale "
    "and a shift of d parameters.",
    "one LayerNorm": "a block has two LayerNorms, each with a scale and a shift (2d each): one after the attention, "
    "one after the feed-forward.",
    "f = 4d": "the feed-forward's inner width is config.intermediate_size, not always 4 x hidden_size: read f from the "
    "config (some hidden configs have f != 4d).",
    "embeddings": "the embeddings belong to the whole model and are not copied: duplicating a block adds only the "
    "block's own parameters (attention, feed-forward and their two LayerNorms).",
    "whole model": "count one block, not the whole model shared out over its blocks: the embeddings and the pooler "
    "are not copied when a block is duplicated.",
}


@checker("ex-dup4-added-params")
def _check_dup4_added_params(answer):
    """``answer``: a function ``block_parameters(config)`` taking a ``transformers.BertConfig`` (hidden size d,
    intermediate size f) and returning the number of parameters of one BERT encoder block: Q, K, V and the
    attention output (weights and biases), the attention LayerNorm, the feed-forward's two layers (weights and
    biases) and the output LayerNorm; run on hidden configs, exact (within 1e-6)."""

    def not_yet(i, v, t):
        d, f = DUP4_BLOCK_CASES[i][:2]
        where = f"block_parameters(BertConfig(hidden_size={d}, intermediate_size={f}))"
        if not float(v[i]).is_integer():
            return f"not yet: {where} = {v[i]!r}; a number of parameters is a whole number."
        return (
            f"not yet: {where} = {int(v[i])} is too {'large' if v[i] > t[i] else 'small'}; add up Q, K, V and the "
            "attention output, the feed-forward's two layers (weights and biases) and the block's LayerNorms."
        )

    return judge_function(
        answer,
        "block_parameters",
        DUP4_BLOCK_CASES,
        show=lambda c: (  # c: the inputs, (config,)
            f"block_parameters(BertConfig(hidden_size={c[0].hidden_size}, intermediate_size={c[0].intermediate_size}))"
        ),
        inputs=lambda c: (_bert_config(*c),),  # a fresh config per call: the answer cannot change the next case
        read=as_number,
        refuse="block_parameters should return a number of parameters, got {first!r}.",
        truth=dup4_block_truth,
        match=within(tol=1e-6),  # exact for whole numbers; a mistake shared out over the blocks is a fraction
        mistakes=_block_mistakes,
        hints=_BLOCK_HINTS,
        ok=(
            "correct: each duplicated block adds this many parameters (about 7.1M for BERT-base, d 768, f 3072), so "
            "a deeper copy is also a bigger model: a gain could come from its size alone."
        ),
        not_yet=not_yet,
    )


Z95 = NormalDist().inv_cdf(0.975)
Z80 = NormalDist().inv_cdf(0.80)

DUP4_NEEDED_CASES: tuple[tuple[float, float, float, float, float], ...] = (
    (-1.5, -3.2, -0.4, 1.0, 0.3),  # below -margin's bar, the interval containing it
    (1.6, 0.7, 2.9, 1.0, -0.2),  # above +margin's bar
    (0.4, -0.3, 1.5, 1.0, 0.0),  # between the bars, nearer +margin
    (-2.0, -3.0, -0.5, 2.0, 0.5),  # exactly on -margin's bar
    (-0.2, -2.1, 2.5, 1.0, 0.0),  # an interval containing both bars
    (2.1, 1.9, 2.4, 2.0, 0.0),  # a narrow interval: already the power, at least 1
)
"""(estimate, low, high, margin, paper) of the hidden claims of no effect: asymmetric intervals (as bootstrap
intervals can be), each containing a bar of the rule, so each is inconclusive."""


def dup4_needed_truth(estimate: float, low: float, high: float, margin: float, paper: float) -> float:
    """How many times its data (seeds and test items together) a run needs for 80% power at the paper's value, as
    the book's findings say it (``book.conclusions``: ``needed_scale`` of ``mde`` over ``paper_margin`` under an
    ``Equivalent(margin)`` rule; the tests check the two agree). Written out here rather than imported, so that a
    notebook's stamp never depends on ``book.conclusions`` (the findings' renderer). 1 when no bar lies inside."""
    bars = [b for b in (-margin, margin) if low <= b <= high]
    if not bars:
        return 1.0
    bar = min(bars, key=lambda b: abs(estimate - b))
    on = abs(estimate - bar) < 1e-12
    half = (high - low) / 2 if on else (estimate - low if estimate > bar else high - estimate)
    return max(1.0, ((Z95 + Z80) / Z95 * half / (margin - abs(paper))) ** 2)


def _needed_mistakes(estimate: float, low: float, high: float, margin: float, paper: float) -> dict[str, float]:
    bar = min((b for b in (-margin, margin) if low <= b <= high), key=lambda b: abs(estimate - b))
    near, far = (estimate - low, high - estimate) if estimate > bar else (high - estimate, estimate - low)
    on = estimate == bar
    if on:
        near = far = (high - low) / 2

    def scale(half=near, factor=(Z95 + Z80) / Z95, d=margin - abs(paper), power=2.0, floor=1.0):
        return max(floor, (factor * half / d) ** power)

    return {
        "whole half": scale(half=(high - low) / 2),
        "far side": scale(half=far),
        "no factor": scale(factor=1.0),
        "not squared": scale(power=1.0),
        "margin": scale(d=margin),
        "no abs": scale(d=margin - paper),
        "no floor": scale(floor=-math.inf),
        "on the bar, above": scale(half=estimate - low if on else near),  # estimate >= bar: estimate - low
        "on the bar, below": scale(half=high - estimate if on else near),  # estimate > bar, else high - estimate
    }


_ON_THE_BAR = (
    "an estimate exactly on the bar lies on neither side of it: use the whole half-width, (high - low) / 2, there "
    "(as the book's conclusions do)."
)

_NEEDED_HINTS = {
    "whole half": "use the interval's half on the bar's side (estimate - low when the estimate lies above the bar, "
    "high - estimate when below): an interval need not be symmetric; the whole half-width only when the estimate "
    "sits on the bar.",
    "far side": "the interval clears the bar when its end on the bar's side moves past it: take the half between "
    "the estimate and the bar (estimate - low when the estimate lies above the bar), not the other half.",
    "no factor": "an interval whose half equals the distance to the bar clears it only half of the time; the MDE "
    "(80% power at the 95% level) is (z_0.975 + z_0.80) / z_0.975 times the half, about 1.43 times.",
    "not squared": "an interval's half-width shrinks like one over the square root of the sample, so shrinking the "
    "MDE r times takes r^2 times the data: square the ratio.",
    "margin": "size the MDE against the paper's effect beyond the bar, margin - |paper|, not the margin itself: the "
    "run must clear the bar when the true value is the paper's.",
    "no abs": "the paper's effect beyond the bar is margin - |paper|: the bars are -margin and +margin, and the "
    "paper's value can be negative.",
    "no floor": "a run that already has the power needs no more data: the scale is at least 1.",
    "on the bar, above": _ON_THE_BAR,
    "on the bar, below": _ON_THE_BAR,
}


@checker("ex-dup4-needed-data")
def _check_dup4_needed_data(answer):
    """``answer``: a function ``needed_data(estimate, low, high, margin, paper)`` taking a claim of no effect's
    estimate and 95% interval (reproduced when the whole interval lies within ±margin; the interval contains a
    bar) and the paper's value, returning how many times the data a run needs for 80% power at the paper's value:
    ((z_0.975 + z_0.80) / z_0.975 x the interval's half on the side of the bar nearest the estimate, divided by
    margin - |paper|) squared, at least 1; run on hidden intervals, within 1e-6 relative."""

    def not_yet(i, v, t):
        return (
            f"not yet: needed_data{DUP4_NEEDED_CASES[i]} = {v[i]:.4g} is too {'large' if v[i] > t[i] else 'small'}; "
            "take the bar nearest the estimate, the interval's half on its side, the MDE (z_0.975 + z_0.80) / "
            "z_0.975 times that half, then (MDE / (margin - |paper|))^2, at least 1."
        )

    return judge_function(
        answer,
        "needed_data",
        DUP4_NEEDED_CASES,
        read=as_number,
        refuse="needed_data should return a number (how many times the data), got {first!r}.",
        truth=dup4_needed_truth,
        match=within(rel=1e-6),
        mistakes=_needed_mistakes,
        hints=_NEEDED_HINTS,
        ok=(
            "correct: a claim of no effect is reproduced only when its whole interval fits inside ±margin, so the "
            "interval's half must shrink below the margin whatever the estimate, and the data grow with the square "
            "of that shrinking."
        ),
        not_yet=not_yet,
    )
