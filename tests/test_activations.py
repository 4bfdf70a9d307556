import pytest
import torch

from bertology_lib.activations import run_with_cache
from bertology_lib.models import load_model, load_tokenizer

SENTS = [["the", "chef", "tipped", "the", "waiter", "."], ["unbelievably", "a", "robin", "is", "a", "bird"]]


@pytest.fixture(scope="module")
def tiny(tiny_bert_dir):
    return load_model(str(tiny_bert_dir)), load_tokenizer(str(tiny_bert_dir))


def test_one_forward_pass_per_batch_covers_every_layer(tiny):
    model, tok = tiny
    calls = []
    handle = model.register_forward_hook(lambda *a: calls.append(1))
    cache = run_with_cache(model, tok, SENTS, batch_size=8, with_attention=True)
    handle.remove()
    assert len(calls) == 1 == cache.n_forward_calls
    assert cache.resid.shape == (model.config.num_hidden_layers + 1, 12, model.config.hidden_size)
    assert cache.offsets == [0, 6, 12]
    assert cache["pattern", 1][1].shape == (model.config.num_attention_heads, 6, 6)
    assert torch.equal(cache["blocks.0.hook_resid_post"], cache["resid_post", 0])
    assert torch.equal(cache["hook_embed"], cache.resid[0])


def test_first_subword_pooling_matches_the_model(tiny):
    model, tok = tiny
    cache = run_with_cache(model, tok, SENTS[1:], pooling="first")
    enc = tok(SENTS[1], is_split_into_words=True, return_tensors="pt")
    hs = model(**enc, output_hidden_states=True).hidden_states
    # "unbelievably" = un ##believ ##ably: its first subword is token 1 (after [CLS])
    assert torch.allclose(cache["resid_post", 1][0], hs[2][0, 1], atol=1e-5)
    assert torch.allclose(cache["resid_post", 1][1], hs[2][0, 4], atol=1e-5)  # "a"
    mean = run_with_cache(model, tok, SENTS[1:], pooling="mean")
    assert torch.allclose(mean["resid_post", 1][0], hs[2][0, 1:4].mean(0), atol=1e-5)


def test_word_attention_rows_sum_to_attention_on_words(tiny):
    model, tok = tiny
    cache = run_with_cache(model, tok, SENTS, with_attention=True, keep_subword_attention=True)
    w = cache["pattern", 0][1]  # (n_heads, 6, 6)
    assert (w.sum(-1) <= 1 + 1e-5).all() and (w >= 0).all()
    assert cache.subword_patterns[0][1].shape[-1] == len(cache.tokens[1])


def test_bad_arguments(tiny):
    model, tok = tiny
    with pytest.raises(ValueError, match="pooling='max'"):
        run_with_cache(model, tok, SENTS, pooling="max")
    with pytest.raises(ValueError, match="sentences is empty"):
        run_with_cache(model, tok, [])
