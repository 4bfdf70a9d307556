"""Decoders trained from scratch (Llama-style: rotary positions, SwiGLU, tied embeddings), and a BERT of the
same width and depth for comparisons.

Used by the Physics of Language Models 3.1 chapter (:mod:`bertology_lib.experiments.physics`); the sizes
(:data:`DECODER_SIZES`) go from a test-sized ``tiny`` to ``full`` (GPT-2-small shape, as in the paper).
"""

from __future__ import annotations

from typing import Any

import torch

from bertology_lib.validation import check_choice, check_int

DECODER_SIZES: dict[str, dict[str, int]] = {
    "tiny": dict(hidden_size=64, num_hidden_layers=2, num_attention_heads=2, intermediate_size=176),
    "small": dict(hidden_size=128, num_hidden_layers=2, num_attention_heads=4, intermediate_size=344),
    "base": dict(hidden_size=256, num_hidden_layers=4, num_attention_heads=8, intermediate_size=688),
    "full": dict(hidden_size=768, num_hidden_layers=12, num_attention_heads=12, intermediate_size=2048),
}


MAX_CONTEXT = 512


def decoder_spec(size: str) -> dict[str, Any]:
    """The architecture of the decoder of ``size`` as we set it: its dimensions (:data:`DECODER_SIZES`),
    context, tied embeddings, dropout and init; the vocabulary and special-token ids come from the tokenizer.

    What a cached decoder is keyed by (with its tokenizer's identity): a size's *dimensions*, never its name,
    so that changing a size in :data:`DECODER_SIZES` gives its models new keys.
    """
    check_choice("size", size, tuple(DECODER_SIZES))
    return dict(
        max_position_embeddings=MAX_CONTEXT,
        tie_word_embeddings=True,
        attention_dropout=0.0,
        initializer_range=0.02,
        **DECODER_SIZES[size],
    )


def decoder_config(size: str, vocab_size: int, **overrides: Any):
    """A ``transformers.LlamaConfig`` (rotary positions, tied embeddings) for one of :data:`DECODER_SIZES`.

    tiny: d_model 64 x 2 layers (tests); small: 128 x 2 (~0.8M parameters with the bioS vocabulary);
    base: 256 x 4; full: 768 x 12 layers x 12 heads, context 512 (GPT-2-small size, as in the paper).
    Special-token ids follow :func:`bertology_lib.models.tokenization.build_word_tokenizer` (kind "gpt").
    """
    spec = decoder_spec(size)
    check_int("vocab_size", vocab_size, minimum=1)
    from transformers import LlamaConfig

    kw: dict[str, Any] = dict(vocab_size=vocab_size, pad_token_id=0, bos_token_id=2, eos_token_id=3, **spec)
    kw.update(overrides)
    return LlamaConfig(**kw)


def new_decoder(size: str, tokenizer, seed: int = 0):
    """A freshly initialised decoder of ``size`` for ``tokenizer`` (its pad/eos/bos ids), from ``seed``."""
    from transformers import LlamaForCausalLM

    torch.manual_seed(seed)  # model init; training reseeds via set_seed
    eos = tokenizer.eos_token_id
    ids = dict(
        pad_token_id=tokenizer.pad_token_id,
        eos_token_id=eos,
        bos_token_id=tokenizer.bos_token_id if tokenizer.bos_token_id is not None else eos,
    )
    return LlamaForCausalLM(decoder_config(size, len(tokenizer), **ids))


def matching_bert_spec(size: str) -> dict[str, Any]:
    """The architecture of the BERT matching the decoder of ``size`` (:func:`matching_bert_config`), less its
    vocabulary: what a cached physics BERT is keyed by (dimensions, not the size's name)."""
    check_choice("size", size, tuple(DECODER_SIZES))
    s = DECODER_SIZES[size]
    return dict(
        hidden_size=s["hidden_size"],
        num_hidden_layers=s["num_hidden_layers"],
        num_attention_heads=s["num_attention_heads"],
        intermediate_size=4 * s["hidden_size"],
        max_position_embeddings=MAX_CONTEXT,
        hidden_dropout_prob=0.0,
        attention_probs_dropout_prob=0.0,
        type_vocab_size=2,
        pad_token_id=0,
    )


def matching_bert_config(size: str, vocab_size: int, **overrides: Any):
    """A ``BertConfig`` of the width/depth/heads of :data:`DECODER_SIZES` [``size``].

    GELU MLP of width 4 x d_model (two matrices: the same parameter count as the decoder's SwiGLU of
    8/3 x d_model), learned positions up to 512, no dropout (a memorisation task).
    """
    spec = matching_bert_spec(size)
    from transformers import BertConfig

    kw: dict[str, Any] = dict(vocab_size=vocab_size, **spec)
    kw.update(overrides)
    return BertConfig(**kw)
