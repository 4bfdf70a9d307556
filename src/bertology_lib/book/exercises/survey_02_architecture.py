"""Checkers of the exercises of ``survey_02_architecture`` (§2 BERT's architecture, Rogers et al. 2020):

* ``ex-survey2-params``: how many 768-wide layers outweigh BERT-large's token-embedding matrix;
* ``ex-survey2-embed``: BERT's input, LayerNorm(token + position + segment), from an embedding module's tables
  (run on three hidden random BERTs).

The truths are computed here from the library (``experiments.survey.architecture``, built modules). Used by
that notebook's exercise cells.
"""

from __future__ import annotations

from bertology_lib.book.exercises.cases import call, judge_value
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
    return judge_value(
        answer,
        read=as_whole_number,
        refuse=(
            "expected a whole number of layers, got {answer!r}. If you divided two parameter counts, decide "
            "which way to round: the layers must hold *more* parameters than the embedding matrix."
        ),
        screen=lambda n: f"{n} is not a number of layers; a BERT has at least one." if n < 1 else None,
        truth=survey2_params_truth,
        ok="correct: that is the smallest number of layers that outweighs the embedding matrix.",
        not_yet=lambda n, t: (
            f"too few: {n} layer(s) of width 768 hold fewer parameters than BERT-large's token-embedding matrix "
            "(vocab_size x 1024). Count one layer's self-attention and feed-forward parameters with "
            "param_breakdown, then compare."
            if n < t
            else f"too many: {n} layers do exceed BERT-large's token-embedding matrix, but fewer layers already do; the "
            "exercise asks for the smallest number."
        ),
    )


def _tiny_berts():
    """Small random BERTs in eval mode, LayerNorm weights and embedding tables scaled so that every term counts."""
    import torch
    from transformers import BertConfig, BertModel

    out = []
    for seed, (d, n_pos) in enumerate(((16, 24), (24, 40), (8, 16))):
        torch.manual_seed(1000 + seed)
        m = BertModel(
            BertConfig(
                vocab_size=60,
                hidden_size=d,
                num_hidden_layers=1,
                num_attention_heads=2,
                intermediate_size=2 * d,
                max_position_embeddings=n_pos,
                type_vocab_size=2,
            )
        ).eval()
        e = m.embeddings
        with torch.no_grad():
            for table in (e.word_embeddings, e.position_embeddings, e.token_type_embeddings):
                table.weight.normal_(0, 1)
            e.LayerNorm.weight.uniform_(0.5, 1.5)
            e.LayerNorm.bias.normal_(0, 0.5)
        g = torch.Generator().manual_seed(2000 + seed)
        B, T = 3, n_pos - 5
        ids = torch.randint(0, 60, (B, T), generator=g)
        seg = (torch.arange(T)[None, :] >= torch.randint(2, T - 2, (B, 1), generator=g)).long()
        out.append((e, ids, seg))
    return out


class _CalledTheModule(Exception):
    pass


@checker("ex-survey2-embed")
def _check_survey2_embed(answer):
    """``answer``: a function ``(emb, input_ids, token_type_ids) -> (batch, seq, d_model)`` tensor equal to
    ``emb(input_ids=..., token_type_ids=...)`` within 1e-5, computed from ``emb``'s three tables and its
    LayerNorm; it runs on three hidden random BERTs and may not call ``emb`` itself."""
    import torch

    for emb, ids, seg in _tiny_berts():
        with torch.no_grad():
            truth = emb(input_ids=ids, token_type_ids=seg)
            pos = emb.position_embeddings(torch.arange(ids.shape[1]))[None]
            tok, typ = emb.word_embeddings(ids), emb.token_type_embeddings(seg)

            def forbidden(*args, **kwargs):
                raise _CalledTheModule

            emb.forward = forbidden  # an instance attribute: emb(...) now raises
            try:
                out, err = call(answer, emb, ids, seg)
            finally:
                del emb.forward
        if err and _CalledTheModule.__name__ in err:
            return False, (
                "your function calls the embedding module itself; compute the sum from "
                "emb.word_embeddings, emb.position_embeddings, emb.token_type_embeddings and emb.LayerNorm."
            )
        if err:
            return False, err
        if not isinstance(out, torch.Tensor) or tuple(out.shape) != tuple(truth.shape):
            shape = tuple(out.shape) if isinstance(out, torch.Tensor) else type(out).__name__
            return False, f"expected a tensor of shape (batch, seq, d_model) = {tuple(truth.shape)}, got {shape}."
        out = out.detach().float()
        if torch.allclose(out, truth, atol=1e-5):
            continue
        ln = emb.LayerNorm
        if torch.allclose(out, tok + pos + typ, atol=1e-5):
            return False, "that is the sum before normalisation: BERT applies emb.LayerNorm to it."
        if torch.allclose(out, ln(tok + typ), atol=1e-5):
            return False, "the position embeddings are missing: position i of every sequence adds its own row."
        if torch.allclose(out, ln(tok + pos), atol=1e-5):
            return False, "the segment embeddings are missing: each token adds the row of its token_type_id."
        if torch.allclose(out, ln(tok) + ln(pos) + ln(typ), atol=1e-5):
            return False, "LayerNorm comes once, after the three embeddings are added, not on each of them."
        return False, (
            "not the module's output: look up the three tables (positions are 0, 1, ..., seq-1 in every "
            "row of the batch), add them, then apply emb.LayerNorm."
        )
    return True, "correct: BERT's first layer reads LayerNorm(token + position + segment) at every position."
