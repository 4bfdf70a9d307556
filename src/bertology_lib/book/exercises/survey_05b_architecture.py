"""Checkers of the exercises of ``survey_05b_architecture`` (§5 Pre-training choices I: depth vs heads, Rogers et al.
2020):

* ``ex-survey52-block-params``: the parameters of a lab BERT's blocks;
* ``ex-survey52-width``: the width that keeps them equal at another depth.

The answers are functions, run on hidden cases. Every truth is computed here from the library (lab BERTs built on
the meta device), never typed in, and none depends on the profile the notebook runs at. Models are built inside
``torch.random.fork_rng``, so checking an answer never moves a notebook's random state. Used by that notebook's
exercise cells.
"""

from __future__ import annotations

import math
from functools import lru_cache

from bertology_lib.book.exercises.cases import judge_function, quiet_build
from bertology_lib.book.exercises.checks import as_whole_number, checker


SURVEY52_BLOCK_CASES: tuple[tuple[int, int, int], ...] = (
    (4, 64, 4),
    (4, 64, 1),
    (4, 64, 16),
    (2, 92, 4),
    (8, 44, 4),
    (1, 8, 2),
    (12, 768, 12),
    (3, 30, 5),
)


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


def _block_mistakes(n_layers: int, d: int, n_heads: int) -> dict[str, int]:
    return {
        "approx": 12 * n_layers * d * d,
        "no LN": n_layers * (12 * d * d + 9 * d),
        "no bias": n_layers * (12 * d * d + 4 * d),
        "ffn d": n_layers * (8 * d * d + 9 * d),
    }


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

    def same_for_all_heads(v):  # the first three cases differ in n_heads only
        if len({v[0], v[1], v[2]}) > 1:
            return (
                "your count changes with n_heads: the query, key, value and output projections are d x d "
                "whatever the split, so the heads do not change the number of parameters."
            )
        return None

    return judge_function(
        answer,
        "block_params",
        SURVEY52_BLOCK_CASES,
        read=as_whole_number,
        refuse="block_params should return a whole number of parameters, got {first!r}.",
        screen=same_for_all_heads,
        truth=survey52_block_truth,
        mistakes=_block_mistakes,
        hints=_BLOCK_HINTS,
        ok=(
            "correct: the head count does not appear in it — heads only split the d-wide projections into slices; "
            "what they change is how many attention patterns a block computes."
        ),
        not_yet=lambda i, v, t: (
            f"not yet: block_params{SURVEY52_BLOCK_CASES[i]} = {v[i]:,} is too "
            f"{'many' if v[i] > t[i] else 'few'}; compare with the table's block_params column, "
            "and list a block's Linear layers and LayerNorms one by one."
        ),
    )


SURVEY52_WIDTH_CASES: tuple[tuple[int, int, int, int], ...] = (
    (2, 4, 64, 4),
    (8, 4, 64, 4),
    (3, 4, 32, 2),
    (12, 1, 32, 2),
    (1, 4, 16, 1),
)


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
    cases = SURVEY52_WIDTH_CASES

    def multiples_of_the_heads(v):
        if any(n % c[3] for n, c in zip(v, cases)):
            return "the width must be a multiple of n_heads, so that every head gets a slice of the same size."
        return None

    return judge_function(
        answer,
        "equal_width",
        cases,
        read=as_whole_number,
        refuse="equal_width should return a whole number (a width), got {first!r}.",
        screen=multiples_of_the_heads,
        truth=survey52_width_truth,
        mistakes=lambda *c: {"rule": _width_rule_of_thumb(*c)},
        hints={
            "rule": "that balances 12 L d^2 only, the notebook's rule of thumb; for narrow blocks the biases and "
            "LayerNorms (13 d per block) tip the balance: compare real counts (your block_params)."
        },
        ok=(
            "correct: at the notebook's sizes it matches the grid's widths; where it does not, 12 L d^2 was too "
            "rough for narrow blocks."
        ),
        not_yet=lambda i, v, t: (
            f"not yet: equal_width{cases[i]} = {v[i]} is too "
            f"{'wide' if v[i] > t[i] else 'narrow'}; try the multiples of n_heads around your "
            "answer and compare their parameter counts with the base model's."
        ),
    )
