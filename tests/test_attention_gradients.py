"""Clark et al.'s no-op: attention share vs gradient share to [SEP] (analysis.attention_gradients)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from bertology_lib.analysis import attention_gradients as ag
from bertology_lib.errors import ParameterError
from bertology_lib.models.registry import load_model, load_tokenizer

WORDS = ["the", "chef", "waiter", "tipped", "a", "robin", "is", "bird", "."]


def _texts(n: int, seed: int = 1) -> list[list[str]]:
    rng = np.random.default_rng(seed)
    return [[str(w) for w in rng.choice(WORDS, size=rng.integers(4, 10))] for _ in range(n)]


@pytest.fixture(scope="module")
def tiny(tiny_bert_dir):
    return load_model(str(tiny_bert_dir), head="mlm"), load_tokenizer(str(tiny_bert_dir))


def _random_mlm(vocab_size: int, seed: int):
    from transformers import BertConfig, BertForMaskedLM

    torch.manual_seed(seed)
    cfg = BertConfig(
        vocab_size=vocab_size,
        hidden_size=16,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=32,
        attn_implementation="eager",
    )
    return BertForMaskedLM(cfg).eval()


def test_shapes_ranges_determinism_and_model_left_as_it_was(tiny):
    model, tok = tiny
    texts = _texts(10)
    model.train()
    arr = ag.sep_attention_and_gradient(model, tok, texts, seed=3, batch_size=4)
    assert model.training and all(p.grad is None and p.requires_grad for p in model.parameters())
    model.eval()
    assert arr.shape == (10, model.config.num_hidden_layers, 2)
    assert np.isfinite(arr).all() and (arr >= 0).all() and (arr <= 1).all()
    assert (arr[..., 1] > 1e-3).all()  # the returned attention tensors carry the gradient
    same = ag.sep_attention_and_gradient(model, tok, texts, seed=3, batch_size=32)
    assert np.allclose(arr, same, atol=1e-6)  # masks drawn per sentence: the batching does not matter
    other = ag.sep_attention_and_gradient(model, tok, texts, seed=4, batch_size=4)
    assert np.allclose(arr[..., 0], other[..., 0], atol=0.02) and not np.allclose(arr[..., 1], other[..., 1])
    # frozen weights and a caller's no_grad still give the same gradient
    for p in model.parameters():
        p.requires_grad_(False)
    try:
        with torch.no_grad():
            frozen = ag.sep_attention_and_gradient(model, tok, texts, seed=3)
    finally:
        for p in model.parameters():
            p.requires_grad_(True)
    assert np.allclose(arr, frozen, atol=1e-6)


def test_gradient_share_matches_an_independent_computation(tiny):
    """dL/dα[h,q,k] = <dL/dc[h,q], v[h,k]> with c the attention output (input of the output projection) and
    v the value vectors, both from hooks. mask_prob 0.99 masks every word, so the masks are known."""
    model, tok = tiny
    words = ["the", "chef", "tipped", "the", "waiter"]
    arr = ag.sep_attention_and_gradient(model, tok, [words], mask_prob=0.99)
    enc = tok([words], is_split_into_words=True, return_tensors="pt")
    ids = enc["input_ids"]
    T, sep = ids.shape[1], (ids[0] == tok.sep_token_id)
    labels = torch.full_like(ids, -100)
    labels[0, 1:-1] = ids[0, 1:-1]
    masked = ids.clone()
    masked[0, 1:-1] = tok.mask_token_id
    values, contexts, handles = {}, {}, []
    for L, block in enumerate(model.bert.encoder.layer):
        handles.append(block.attention.self.value.register_forward_hook(lambda m, i, o, L=L: values.__setitem__(L, o)))
        handles.append(
            block.attention.output.dense.register_forward_pre_hook(lambda m, i, L=L: contexts.__setitem__(L, i[0]))
        )
    try:
        out = model(input_ids=masked, attention_mask=enc["attention_mask"], output_attentions=True)
    finally:
        for h in handles:
            h.remove()
    loss = torch.nn.functional.cross_entropy(out.logits[0], labels[0], ignore_index=-100)
    grads = torch.autograd.grad(loss, [contexts[L] for L in sorted(contexts)])
    H = model.config.num_attention_heads
    for L, g in enumerate(grads):
        v = values[L][0].detach().reshape(T, H, -1)
        d_alpha = torch.einsum("qhd,khd->hqk", g[0].reshape(T, H, -1), v).abs()
        assert arr[0, L, 1] == pytest.approx(float(d_alpha[..., sep].sum() / d_alpha.sum()), rel=1e-4)
        assert arr[0, L, 0] == pytest.approx(float(out.attentions[L][0].detach()[..., sep].sum(-1).mean()), rel=1e-5)


def test_random_init_models_show_no_noop_gap(tiny):
    """Null: random-init models attend about uniformly and spread the gradient about evenly, so the gap
    pooled over four initialisations is small next to the uniform share 1/T (a gradient share off by a
    third already breaks this; one initialisation alone can sit at 0.27/T)."""
    _, tok = tiny
    texts = _texts(48)
    inv_t = float(np.mean([1 / (len(t) + 2) for t in texts]))
    gaps = []
    for seed in range(4):
        arr = ag.sep_attention_and_gradient(_random_mlm(len(tok), seed), tok, texts, seed=0)
        assert np.allclose(arr[..., 0].mean(0), inv_t, rtol=0.1)
        gaps.append(ag.noop_gap(arr, n_resamples=200)[0])
    assert abs(np.mean(gaps)) < 0.25 * inv_t


def test_zeroed_sep_values_make_attention_to_sep_a_noop(tiny):
    """Positive case: with the value vector of [SEP] zeroed in every layer (a forward hook on the value
    projection), the attention to [SEP] cannot change the output: its gradient is exactly 0 while layer 0's
    attention (computed before any value is used) is unchanged."""
    model, tok = tiny
    texts = _texts(24, seed=2)
    plain = ag.sep_attention_and_gradient(model, tok, texts)
    seen: dict[str, torch.Tensor] = {}

    def zero_sep(mod, inp, out):
        return out.masked_fill((seen["ids"] == tok.sep_token_id)[..., None], 0.0)

    handles = [
        model.register_forward_pre_hook(lambda m, a, kw: seen.__setitem__("ids", kw["input_ids"]), with_kwargs=True)
    ]
    handles += [b.attention.self.value.register_forward_hook(zero_sep) for b in model.bert.encoder.layer]
    try:
        noop = ag.sep_attention_and_gradient(model, tok, texts)
    finally:
        for h in handles:
            h.remove()
    assert np.allclose(noop[:, 0, 0], plain[:, 0, 0], atol=1e-6)
    assert np.abs(noop[..., 1]).max() < 1e-6 and plain[..., 1].min() > 1e-3
    gap, lo, _ = ag.noop_gap(noop, layer=0, n_resamples=200)
    assert lo > 0.05 and gap == pytest.approx(noop[:, 0, 0].mean())
    assert abs(ag.noop_gap(plain, layer=0, n_resamples=200)[0]) < gap / 2


def test_profile_peak_layer_and_gap_on_known_arrays():
    rng = np.random.default_rng(0)
    arr = np.zeros((30, 3, 2))
    arr[..., 0] = [0.1, 0.5, 0.2]
    arr[..., 1] = [0.1, 0.1, 0.2]
    arr += rng.normal(0, 0.01, arr.shape)
    prof = ag.sep_layer_profile(arr)
    assert list(prof.layer) == [0, 1, 2] and prof.attention_share.round(1).tolist() == [0.1, 0.5, 0.2]
    assert prof.gradient_share.round(1).tolist() == [0.1, 0.1, 0.2] and prof.ratio[1] == pytest.approx(0.2, 0.1)
    assert ag.peak_layer(arr) == 1
    gap, lo, hi = ag.noop_gap(arr, n_resamples=500)
    assert lo < gap < hi and gap == pytest.approx(0.4, abs=0.01) and hi - lo < 0.02
    _, lo0, hi0 = ag.noop_gap(arr, layer=0, n_resamples=500)
    assert lo0 < 0 < hi0
    with pytest.raises(ParameterError, match="layer=3"):
        ag.noop_gap(arr, layer=3)
    with pytest.raises(ParameterError, match=r"shape \(30, 3\)"):
        ag.sep_layer_profile(arr[..., 0])


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"texts": []}, "texts=\\[\\] is not allowed"),
        ({"texts": "the chef"}, "texts='the chef'"),
        ({"texts": [["the"], []]}, "texts\\[1\\]=\\[\\]"),
        ({"texts": [["the"], "the chef"]}, "texts\\[1\\]='the chef'"),
        ({"mask_prob": 0.0}, "mask_prob"),
        ({"mask_prob": 1.0}, "mask_prob"),
        ({"mask_prob": 1.5}, "mask_prob"),
        ({"batch_size": 0}, "batch_size"),
        ({"seed": -1}, "seed"),
    ],
)
def test_bad_inputs_are_refused_before_any_work(tiny, kwargs, match):
    model, tok = tiny
    calls = []
    hook = model.register_forward_hook(lambda *a: calls.append(1))
    try:
        with pytest.raises(ParameterError, match=match):
            ag.sep_attention_and_gradient(model, tok, **{"texts": [["the", "chef"]], **kwargs})
    finally:
        hook.remove()
    assert not calls
