import pytest
import torch

from bertology_lib.analysis.activations import run_with_cache
from bertology_lib.models.registry import load_model, load_tokenizer

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


def test_cached_pass_is_keyed_by_model_and_data(tiny, tiny_bert_dir, tmp_cache):
    """cache=True: the second identical pass runs no forward call; other weights or data recompute."""
    from bertology_lib.analysis.activations import fingerprint_model
    from bertology_lib.models.baselines import random_init_like

    model, tok = tiny
    calls = []
    handle = model.register_forward_hook(lambda *a: calls.append(1))
    first = run_with_cache(model, tok, SENTS, batch_size=1, with_attention=True, cache=True)
    again = run_with_cache(model, tok, SENTS, batch_size=1, with_attention=True, cache=True)
    assert len(calls) == 2 and not first.from_cache and again.from_cache  # 2 batches, then none
    assert torch.equal(first.resid, again.resid) and first.offsets == again.offsets
    assert first.tokens == again.tokens and again.n_forward_calls == 2
    for L in range(model.config.num_hidden_layers):
        for s in range(len(SENTS)):
            assert torch.equal(first["pattern", L][s], again["pattern", L][s])
    run_with_cache(model, tok, SENTS[:1], cache=True)  # other data
    assert len(calls) == 3
    handle.remove()
    # the bare encoder of the same checkpoint shares the key (same hidden states); a re-init does not
    encoder = load_model(str(tiny_bert_dir), head="base")
    assert fingerprint_model(load_model(str(tiny_bert_dir), head="mlm")) == fingerprint_model(encoder)
    assert fingerprint_model(random_init_like(model)) != fingerprint_model(model)
    no_attn = run_with_cache(encoder, tok, SENTS, cache=True)
    assert not no_attn.from_cache and no_attn.patterns is None  # options are part of the key
    assert torch.allclose(no_attn.resid, first.resid, atol=1e-6)
