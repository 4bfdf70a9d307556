"""Checkers of the exercises of ``survey_05d_nsp`` (§5 Pre-training choices III: next-sentence prediction, Rogers et
al. 2020):

* ``ex-survey54-nsp-params``: the parameters NSP adds to a lab BERT;
* ``ex-survey54-overlap``: how often two toy sentences share a noun, which sets what a shared-noun detector scores
  on the NSP task.

The answers are functions, run on hidden cases. Every truth is computed here from the library (a model built on the
fly, the NSP partner lists of :func:`bertology_lib.training.masking.topic_partners`), never typed in, and none
depends on the profile the notebook runs at. Models are built inside ``torch.random.fork_rng``, so checking an
answer never moves a notebook's random state. Used by that notebook's exercise cells.
"""

from __future__ import annotations

from bertology_lib.book.exercises.cases import judge_function, quiet_build, within
from bertology_lib.book.exercises.checks import as_number, as_whole_number, checker


SURVEY54_WIDTHS = (8, 16, 64, 96)


def survey54_nsp_params_truth(d_model: int) -> int:
    """Parameters next-sentence prediction adds to a lab BERT of width ``d_model``, counted on a built
    ``BertForPreTraining``: its pooler (dense d -> d on [CLS], with bias) and its two-way classifier."""
    from transformers import BertConfig, BertForPreTraining

    cfg = BertConfig(
        vocab_size=50,
        hidden_size=d_model,
        num_hidden_layers=1,
        num_attention_heads=1,
        intermediate_size=4 * d_model,
        max_position_embeddings=16,
    )
    model = quiet_build(lambda: BertForPreTraining(cfg))
    return sum(p.numel() for m in (model.bert.pooler, model.cls.seq_relationship) for p in m.parameters())


@checker("ex-survey54-nsp-params")
def _check_survey54_nsp_params(answer):
    """``answer``: a function ``nsp_head_params(d_model)``, the parameters NSP adds to a lab BERT of that width
    (pooler and classifier); run on hidden widths, exact."""
    return judge_function(
        answer,
        "nsp_head_params",
        [(d,) for d in SURVEY54_WIDTHS],
        read=as_whole_number,
        refuse="nsp_head_params should return a whole number, got {first!r}.",
        truth=survey54_nsp_params_truth,
        mistakes=lambda d: {"classifier": 2 * d + 2, "no biases": d * d + 2 * d},
        hints={
            "classifier": "that is the classifier; NSP reads [CLS] through a pooler (a dense layer with tanh) first.",
            "no biases": "count the biases too: the pooler's d and the classifier's 2.",
        },
        ok="correct: a few thousand weights on top of the encoder, all of them read from [CLS] alone.",
        not_yet="not yet: count the pooler (d x d weights, d biases) and the classifier (d x 2 weights, 2 biases).",
    )


SURVEY54_OVERLAP_SIZES = (30, 60, 120)


def _held_sentences(n: int):
    from bertology_lib.models import minibert

    return minibert.corpus(minibert.MiniBertConfig.for_profile("smoke"))[1][:n]


def survey54_overlap_truth(sentences) -> float:
    """Share of ordered pairs of distinct ``sentences`` that share a NOUN or PROPN lemma, from the library's own
    NSP partner lists (:func:`bertology_lib.training.masking.topic_partners`; no list is capped below 200)."""
    from bertology_lib.training.masking import topic_partners

    n = len(sentences)
    return sum(len(p) for p in topic_partners(sentences)) / (n * (n - 1))


@checker("ex-survey54-overlap")
def _check_survey54_overlap(answer):
    """``answer``: a function ``noun_overlap_rate(sentences)`` (toy sentences with ``lemmas`` and ``upos``), the
    share of ordered pairs of distinct sentences that share a noun lemma; run on hidden held-out sets, +-0.001."""
    return judge_function(
        answer,
        "noun_overlap_rate",
        [(_held_sentences(n),) for n in SURVEY54_OVERLAP_SIZES],
        show=lambda c: f"{len(c[0])} sentences",
        read=as_number,
        refuse="noun_overlap_rate should return a number, got {first!r}.",
        truth=survey54_overlap_truth,
        match=within(0.001),
        mistakes=lambda s: {"with itself": survey54_overlap_truth(s) * (len(s) - 1) / len(s)},
        hints={
            "with itself": "a sentence is not its own partner: divide by n (n - 1) ordered pairs of distinct sentences."
        },
        ok=(
            "correct: a detector that answers 'is next' exactly when the two sentences share a noun is right on every "
            "positive and on the negatives that share none: accuracy 1 - rate / 2."
        ),
        not_yet=(
            "not yet: collect each sentence's lemmas whose upos is NOUN or PROPN, then count the ordered pairs "
            "(i, j), i != j, whose sets intersect."
        ),
    )
