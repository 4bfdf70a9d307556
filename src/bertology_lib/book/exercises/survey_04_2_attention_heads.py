"""Checkers of the exercises of ``survey_04_2_attention_heads`` (§4.2 Self-attention heads, Rogers et al. 2020):

* ``ex-survey42-uniform``: the mean attention to [SEP] of a head attending uniformly, on the quick held-out
  sentences (:mod:`bertology_lib.book.exercises.quick_survey`);
* ``ex-survey42-normshare``: the [CLS]/[SEP] focus by norm (Kobayashi et al. 2020), a function run on hidden
  attention maps.

Used by that notebook's exercise cells.
"""

from __future__ import annotations

from bertology_lib.book.exercises.cases import Mistake, judge_each_case, judge_value, within
from bertology_lib.book.exercises.checks import as_share, checker
from bertology_lib.book.exercises.quick_survey import probe_table


def _quick_held_out_lengths() -> list[int]:
    """Token counts (words + [CLS] + [SEP]) of the quick profile's held-out toy sentences (the last 375 of 1,500)."""
    table, _, te = probe_table()
    return (table.iloc[te].groupby("sentence").size() + 2).tolist()


def survey42_uniform_truth() -> float:
    """``head_stats``' mean attention to [SEP] of a head attending uniformly (1/T per token) on the quick held-out
    toy sentences read by the word-level mini-BERT tokenizer (T = words + 2): sentences / query tokens."""
    T = _quick_held_out_lengths()
    return len(T) / sum(T)  # each sentence's T rows give 1/T each: one unit of [SEP] attention per sentence


@checker("ex-survey42-uniform")
def _check_survey42_uniform(answer):
    """``answer``: a share in [0, 1] (+-0.001)."""
    lengths = _quick_held_out_lengths
    return judge_value(
        answer,
        read=as_share,
        refuse="expected a mean attention between 0 and 1, got {answer!r}.",
        truth=survey42_uniform_truth,
        match=within(0.001),
        ok="correct: a head's attention to [SEP] says something only where it stands well above this line.",
        mistakes=[
            Mistake(
                "you averaged per sentence; head_stats averages over query tokens, so a long sentence counts once "
                "per token.",
                lambda t: sum(1 / n for n in lengths()) / len(lengths()),
            ),
            Mistake("that is [CLS] and [SEP] together; the question asks about [SEP] alone.", lambda t: 2 * t),
            Mistake(
                "count [CLS] and [SEP] among the T tokens a uniform head attends to (and among the query rows).",
                lambda t: len(lengths()) / sum(n - 2 for n in lengths()),
            ),
        ],
        not_yet=(
            "not quite: each of a sentence's T query rows gives 1/T to [SEP]; sum that over every query row of "
            "every held-out sentence and divide by the number of rows."
        ),
    )


def _attention_cases():
    """Hidden single-head maps: (weights (T, T), value norms (T,), special mask (T,)), specials with short vectors."""
    import torch

    g = torch.Generator().manual_seed(4200)
    out = []
    for T, extra_sep in ((5, None), (9, 4), (14, None), (7, 3)):
        w = torch.softmax(2 * torch.randn(T, T, generator=g, dtype=torch.float64), -1)
        special = torch.zeros(T, dtype=torch.bool)
        special[[0, T - 1]] = True
        if extra_sep is not None:
            special[extra_sep] = True  # a sentence pair: [CLS] a [SEP] b [SEP]
        norms = 0.5 + 3 * torch.rand(T, generator=g, dtype=torch.float64)
        norms[special] *= 0.2
        out.append((w, norms, special))
    return out


def norm_share_truth(weights, value_norms, special) -> float:
    """Share of ‖α f(x)‖ on special keys, each query row renormalised to 1, averaged over every query row."""
    rows = []
    for i in range(weights.shape[0]):
        m = [float(weights[i, j] * value_norms[j]) for j in range(weights.shape[1])]
        rows.append(sum(x for x, s in zip(m, special.tolist()) if s) / sum(m))
    return sum(rows) / len(rows)


@checker("ex-survey42-normshare")
def _check_survey42_normshare(answer):
    """``answer``: a function ``(weights (T, T), value_norms (T,), special (T,) bool) -> float`` equal (1e-6) to
    the row-normalised norm share that ``norms.special_focus`` reports, on four hidden maps."""
    mistakes = {
        "that is the share by weight; weight each attention α_ij by the norm of the vector it moves, ‖f(x_j)‖.": lambda w, n, s: (
            float(w[:, s].sum(-1).mean())
        ),
        "rows of α‖f(x)‖ no longer sum to 1: divide each row by its sum before taking the share.": lambda w, n, s: (
            float((w * n)[:, s].sum(-1).mean())
        ),
        "share per query row first, then average the rows: a row whose vectors are long must not weigh more.": lambda w, n, s: (
            float((w * n)[:, s].sum() / (w * n).sum())
        ),
        "average over every query row, the special tokens' own rows included, as head_stats does.": lambda w, n, s: (
            float(((w * n) / (w * n).sum(-1, keepdim=True))[~s][:, s].sum(-1).mean())
        ),
    }
    return judge_each_case(
        answer,
        _attention_cases(),
        inputs=lambda c: tuple(x.clone() for x in c),
        truth=norm_share_truth,
        mistakes=mistakes,
        ok="correct: the [CLS]/[SEP] focus by norm, as Kobayashi et al. (2020) measure it.",
        not_yet=(
            "not quite: multiply each column j of the map by ‖f(x_j)‖, renormalise each row, sum the special "
            "columns and average over the rows."
        ),
    )
