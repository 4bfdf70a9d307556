"""Checkers of the survey notebooks' exercises (Rogers et al. 2020)."""

from __future__ import annotations

from bertology_lib.book.exercises.checks import as_whole_number, checker


def _encoder_params(n_layers: int, hidden_size: int = 768) -> int:
    """Self-attention + feed-forward parameters of ``n_layers`` BERT layers (no embeddings, no pooler)."""
    from bertology_lib.experiments.survey.architecture import (
        bert_config,
        param_breakdown,
    )

    cfg = bert_config("bert-base")
    cfg.num_hidden_layers = n_layers
    assert cfg.hidden_size == hidden_size
    parts = param_breakdown(cfg)
    return parts["self-attention (all layers)"] + parts["feed-forward (all layers)"]


def survey2_params_truth() -> int:
    """The smallest number of 768-wide BERT layers whose encoder parameters exceed
    BERT-large's token-embedding matrix (computed, not typed in)."""
    from bertology_lib.experiments.survey.architecture import (
        bert_config,
        param_breakdown,
    )

    target = param_breakdown(bert_config("bert-large"))["token embeddings"]
    n = 1
    while _encoder_params(n) <= target:
        n += 1
    return n


@checker("ex-survey2-params")
def _check_survey2_params(answer):
    """``answer``: a whole number of layers."""
    n = as_whole_number(answer)
    if n is None:
        return False, (
            f"expected a whole number of layers, got {answer!r}. If you divided two parameter "
            "counts, decide which way to round: the layers must hold *more* parameters than the "
            "embedding matrix."
        )
    if n < 1:
        return False, f"{n} is not a number of layers; a BERT has at least one."
    truth = survey2_params_truth()
    if n == truth:
        return True, "correct: that is the smallest number of layers that outweighs the embedding matrix."
    if n < truth:
        return False, (
            f"too few: {n} layer(s) of width 768 hold fewer parameters than BERT-large's "
            "token-embedding matrix (vocab_size x 1024). Count one layer's self-attention and "
            "feed-forward parameters with param_breakdown, then compare."
        )
    return False, (
        f"too many: {n} layers do exceed BERT-large's token-embedding matrix, but fewer layers "
        "already do; the exercise asks for the smallest number."
    )


# --------------------------------------------------------------------------- physics exercises
