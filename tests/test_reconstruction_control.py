"""The residual-path control of Kao et al.'s reconstruction: a network whose blocks pass the input through
reconstructs it from every layer and fails the control; one whose blocks transform it passes."""

import math

import pytest
import torch
from transformers import BertConfig, BertForMaskedLM

from bertology_lib.analysis.reconstruction import reconstruction_counts, reconstruction_gap
from bertology_lib.book.claims import make_claim
from bertology_lib.errors import ParameterError


def _tokenizer(tmp_path=None):
    from bertology_lib.models.tokenization import build_word_tokenizer

    return build_word_tokenizer(["the", "cat", "dog", "sat", "ran", "on", "mat", "."], kind="bert")


def _model(tok, pass_through: bool):
    torch.manual_seed(0)
    cfg = BertConfig(
        vocab_size=len(tok),
        hidden_size=32,
        num_hidden_layers=3,
        num_attention_heads=2,
        intermediate_size=64,
        hidden_dropout_prob=0.0,
        attention_probs_dropout_prob=0.0,
        initializer_range=0.5,  # blocks that move the states (at BERT's 0.02 a random block barely does)
    )
    m = BertForMaskedLM(cfg).eval()
    if pass_through:  # every block adds nothing: attention and MLP outputs zeroed, only the residual path is left
        with torch.no_grad():
            for layer in m.bert.encoder.layer:
                for lin in (layer.attention.output.dense, layer.output.dense):
                    lin.weight.zero_()
                    lin.bias.zero_()
    return m


def test_a_pass_through_network_reconstructs_everywhere_and_fails_the_control(tmp_path):
    tok = _tokenizer(tmp_path)
    texts = ["the cat sat on the mat .", "the dog ran .", "the cat ran on the mat ."] * 4
    still = reconstruction_counts(_model(tok, pass_through=True), tok, texts)
    moving = reconstruction_counts(_model(tok, pass_through=False), tok, texts)
    assert still.drift()[0] == pytest.approx(0, abs=1e-6) and max(still.drift()) < 0.01
    assert still.rates()[1:] == pytest.approx(still.rates()[0], abs=1e-9)  # every layer reads as layer 0
    assert min(moving.drift()[1:]) > 0.1
    g = reconstruction_gap(still, moving, n_resamples=50)
    assert g["moved"] < 0.01
    claim = make_claim(
        "dup.reconstruction_every_layer",
        ours=(0.9, 0.85, 0.95),
        checks={"mlm_beats_unigram": (0.5, 0.1), "worst_layer_moved": g["moved"]},
    )
    assert claim.verdict == "inconclusive" and claim.instrument.startswith("failed: worst_layer_moved")


def test_counts_without_states_say_so():
    from bertology_lib.analysis.reconstruction import Reconstruction
    import numpy as np

    r = Reconstruction(np.ones((2, 3)), np.ones((2, 3)), np.array([1, 1]))
    with pytest.raises(ParameterError, match="carry no states' drift"):
        r.drift()
    assert math.isnan(reconstruction_gap(r, r, n_resamples=10)["moved"])
