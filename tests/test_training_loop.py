"""The training loop and the batch builders (objectives)."""

from __future__ import annotations

import math

import pytest
import torch

from bertology_lib.errors import ParameterError
from bertology_lib.training import loop as T
from bertology_lib.training import masking as M
from bertology_lib.training import objectives as O
from bertology_lib.models.tokenization import build_word_tokenizer

torch.set_num_threads(1)


def tiny_llama(vocab_size: int, seed: int = 0):
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(seed)
    return LlamaForCausalLM(
        LlamaConfig(
            vocab_size=vocab_size,
            hidden_size=32,
            num_hidden_layers=1,
            num_attention_heads=2,
            intermediate_size=64,
            max_position_embeddings=64,
            tie_word_embeddings=True,
        )
    )


# -- config and schedule ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "field, value, allowed",
    [
        ("lr", 0.0, "a float > 0"),
        ("max_steps", 0, "an int >= 1"),
        ("batch_size", 1.5, "an int >= 1"),
        ("warmup_steps", -1, "an int >= 0"),
        ("schedule", "step", "'cosine', 'linear', 'constant'"),
        ("device", "tpu", "'cpu', 'cuda', 'auto'"),
        ("dtype", "float16", "'float32', 'bfloat16'"),
        ("grad_accum", True, "an int >= 1"),
        ("min_lr_ratio", 2.0, "a float in [0, 1]"),
        ("betas", (0.9,), "two floats in [0, 1)"),
    ],
)
def test_train_config_rejects_bad_values(field, value, allowed):
    with pytest.raises(ValueError) as err:
        T.TrainConfig(**{field: value})
    assert f"{field}={value!r}" in str(err.value) and f"allowed: {allowed}" in str(err.value)


def test_train_config_is_frozen_and_serialisable():
    cfg = T.TrainConfig(betas=[0.9, 0.95])
    assert cfg.betas == (0.9, 0.95)
    assert T.TrainConfig(**cfg.to_dict()) == cfg
    with pytest.raises(Exception):
        cfg.lr = 1.0  # type: ignore[misc]


def test_cosine_schedule_shape():
    cfg = T.TrainConfig(warmup_steps=10, max_steps=110, schedule="cosine", min_lr_ratio=0.1)
    f = [T.lr_factor(s, cfg) for s in range(cfg.max_steps)]
    assert f[0] == pytest.approx(0.1) and f[9] == pytest.approx(1.0)  # linear warmup to the peak
    assert all(a < b for a, b in zip(f[:10], f[1:10]))
    assert all(a >= b for a, b in zip(f[10:], f[11:]))  # then monotone decay
    assert T.lr_factor(60, cfg) == pytest.approx(0.55)  # half-way: midpoint of 1 and 0.1
    assert T.lr_factor(110, cfg) == pytest.approx(0.1)


def test_linear_and_constant_schedules():
    lin = T.TrainConfig(warmup_steps=0, max_steps=100, schedule="linear", min_lr_ratio=0.0)
    assert [T.lr_factor(s, lin) for s in (0, 50, 100)] == pytest.approx([1.0, 0.5, 0.0])
    const = T.TrainConfig(warmup_steps=4, max_steps=100, schedule="constant")
    assert [T.lr_factor(s, const) for s in (0, 3, 50, 99)] == pytest.approx([0.25, 1.0, 1.0, 1.0])


def test_no_weight_decay_on_biases_and_norms():
    model = tiny_llama(20)
    model.lm_head.weight.requires_grad_(True)
    decay, no_decay = T.param_groups(model, 0.1)
    assert decay["weight_decay"] == 0.1 and no_decay["weight_decay"] == 0.0
    names = {id(p): n for n, p in model.named_parameters()}
    assert all(names[id(p)].endswith("norm.weight") for p in no_decay["params"])
    assert any(names[id(p)].endswith("q_proj.weight") for p in decay["params"])
    model.model.embed_tokens.weight.requires_grad_(False)
    assert all(p.requires_grad for g in T.param_groups(model, 0.1) for p in g["params"])


def test_embedding_lr_puts_the_tied_embedding_matrix_in_a_group_of_its_own():
    model = tiny_llama(20)
    emb = model.get_input_embeddings().weight
    groups = T.param_groups(model, 0.1, embedding_lr=0.5)
    assert len(groups) == 3 and groups[2]["params"] == [emb] and groups[2]["lr"] == 0.5
    assert groups[2]["weight_decay"] == 0.1
    assert not any(p is emb for g in groups[:2] for p in g["params"])
    assert len(T.param_groups(model, 0.1)) == 2  # None: the embedding stays in the decay group
    with pytest.raises(ParameterError, match="embedding_lr=0"):
        T.TrainConfig(embedding_lr=0)
    assert T.TrainConfig().key()["embedding_lr"] == 1.0 and "device" not in T.TrainConfig().key()  # every field
    assert T.TrainConfig(embedding_lr=10.0).key()["embedding_lr"] == 10.0


def test_embedding_lr_follows_the_schedule_and_trains_the_embeddings_faster():
    windows = O.pack_windows([[4, 5, 6, 7, 8, 9, 10, 11]] * 20, 16, eos_id=3)
    moved = {}
    for mult in (1.0, 10.0):
        model = tiny_llama(16)
        before = model.get_input_embeddings().weight.detach().clone()
        layer = model.model.layers[0].mlp.up_proj.weight.detach().clone()
        cfg = T.TrainConfig(lr=1e-3, embedding_lr=mult, warmup_steps=2, max_steps=6, batch_size=4, weight_decay=0.0)
        T.train(model, O.LMBatches(windows, 4, seed=0), cfg, progress=False)
        moved[mult] = (
            (model.get_input_embeddings().weight - before).norm().item(),
            (model.model.layers[0].mlp.up_proj.weight - layer).norm().item(),
        )
    assert moved[10.0][0] > 5 * moved[1.0][0]  # Adam steps scale with the group's lr
    assert moved[10.0][1] < 3 * moved[1.0][1]


# -- the loop --------------------------------------------------------------------------------------


def test_loop_decreases_loss_on_a_repeated_corpus():
    stream = [[4, 5, 6, 7, 8, 9, 10, 11]] * 40
    windows = O.pack_windows(stream, 16, eos_id=3)
    model = tiny_llama(16)
    cfg = T.TrainConfig(lr=1e-2, warmup_steps=5, max_steps=60, batch_size=8, weight_decay=0.0)
    res = T.train(model, O.LMBatches(windows, cfg.batch_size), cfg, progress=False)
    assert res.steps == 60 and len(res.losses) == 60 and not res.stopped_early
    assert res.losses[0] > 2.0 and res.losses[-1] < 0.3 * res.losses[0]
    assert res.lrs == pytest.approx([cfg.lr * T.lr_factor(s, cfg) for s in range(60)])
    assert not model.training  # returned in eval mode


def test_callbacks_eval_history_and_early_stop():
    windows = O.pack_windows([[4, 5, 6, 7]] * 30, 8, eos_id=3)
    seen: list[int] = []

    class Stopper:
        def on_step_end(self, step, loss, model):
            seen.append(step)
            return step == 7

    evals = []

    class EvalSpy:
        def on_eval(self, step, metrics, model):
            evals.append((step, metrics["const"], model.training))

    cfg = T.TrainConfig(max_steps=50, eval_every=3, batch_size=4)
    res = T.train(
        tiny_llama(8),
        O.LMBatches(windows, 4),
        cfg,
        callbacks=[Stopper(), EvalSpy()],
        eval_fn=lambda m: {"const": 1.0},
        progress=False,
    )
    assert seen == list(range(1, 8)) and res.steps == 7 and res.stopped_early
    assert [e["step"] for e in res.evals] == [3, 6, 7]
    assert evals == [(3, 1.0, False), (6, 1.0, False), (7, 1.0, False)]  # evals run in eval mode


def test_plain_callable_callback_and_one_shot_iterator_ends():
    windows = O.pack_windows([[4, 5, 6, 7]] * 20, 8, eos_id=3)
    batches = iter(list(O.LMBatches(windows, 4)))  # one epoch only
    n_batches = math.ceil(len(windows) / 4)
    steps: list[int] = []
    res = T.train(
        tiny_llama(8),
        batches,
        T.TrainConfig(max_steps=100, batch_size=4),
        callbacks=[lambda step, loss, model: steps.append(step)],
        progress=False,
    )
    assert res.steps == n_batches and res.stopped_early and steps == list(range(1, n_batches + 1))


def test_grad_accum_matches_one_big_batch():
    windows = O.pack_windows([[4, 5, 6, 7, 8, 9]] * 12, 8, eos_id=3)[:8]
    big = tiny_llama(12, seed=1)
    small = tiny_llama(12, seed=1)
    kw = dict(lr=1e-2, max_steps=1, weight_decay=0.0, grad_clip=0.0)
    T.train(big, [{"input_ids": windows, "labels": windows}], T.TrainConfig(**kw), progress=False)
    halves = [{"input_ids": windows[:4], "labels": windows[:4]}, {"input_ids": windows[4:], "labels": windows[4:]}]
    T.train(small, halves, T.TrainConfig(grad_accum=2, **kw), progress=False)
    for p, q in zip(big.parameters(), small.parameters()):
        torch.testing.assert_close(p, q, atol=1e-6, rtol=1e-5)


# -- objectives ------------------------------------------------------------------------------------


def test_packing_has_no_padding():
    lists = [[10 + i] * (3 + i % 5) for i in range(40)]
    windows = O.pack_windows(lists, 16, eos_id=3)
    flat = [t for x in lists for t in (*x, 3)]
    assert windows.shape == (len(flat) // 16, 16)  # only full windows
    assert windows.flatten().tolist() == flat[: windows.numel()]  # the stream itself, no pad ids
    with pytest.raises(ValueError, match="seq_len=1000"):
        O.pack_windows([[1, 2]], 1000, eos_id=3)


def test_lm_batches_cover_every_window_each_epoch_without_global_rng():
    windows = torch.arange(50 * 4).view(50, 4)
    builder = O.LMBatches(windows, 8, seed=3)
    state = torch.get_rng_state()
    for _ in range(2):
        rows = torch.cat([b["input_ids"] for b in builder])
        assert sorted(rows[:, 0].tolist()) == windows[:, 0].tolist()
    assert torch.equal(state, torch.get_rng_state())
    first = [b["input_ids"] for b in O.LMBatches(windows, 8, seed=3)]
    again = [b["input_ids"] for b in O.LMBatches(windows, 8, seed=3)]
    assert all(torch.equal(a, b) for a, b in zip(first, again))


def test_qa_labels_only_on_answer_tokens():
    tok = build_word_tokenizer(["What", "is", "it", "?", "Answer", ":", "May", "1", ",", "1900", "."])
    ids, labels = O.encode_qa(tok, "What is it? Answer:", "May 1, 1900.")
    words = tok.convert_ids_to_tokens(ids)
    assert words == ["What", "is", "it", "?", "Answer", ":", "May", "1", ",", "1900", ".", "<eos>"]
    assert labels[:6] == [-100] * 6 and labels[6:] == ids[6:]
    short = O.encode_qa(tok, "What is it? Answer:", "May.")
    batch = O.pad_batch([(ids, labels), short], tok.pad_token_id)
    assert batch["input_ids"].shape == (2, len(ids))
    n_short = len(short[0])
    assert batch["attention_mask"][1].tolist() == [1] * n_short + [0] * (len(ids) - n_short)
    assert batch["labels"][1, n_short:].eq(-100).all()  # padding never counts
    assert batch["input_ids"][1, n_short:].eq(tok.pad_token_id).all()
    qb = list(O.QABatches([(ids, labels), short] * 3, 4, tok.pad_token_id))
    assert sum(len(b["input_ids"]) for b in qb) == 6
    masked = torch.cat([b["labels"].flatten() for b in qb])
    assert (masked != -100).sum() == 3 * (6 + 3)  # answer tokens: 6 and 3 (incl. "." and eos)


def test_pack_labeled_keeps_label_alignment():
    ex = [([1, 2, 3], [-100, 2, 3]), ([4, 5], [-100, 5])] * 5
    ids, labels = O.pack_labeled(ex, 5)
    assert ids.shape == labels.shape == (5, 5)
    assert ids.flatten().tolist() == [1, 2, 3, 4, 5] * 5
    assert labels.flatten().tolist() == [-100, 2, 3, -100, 5] * 5


def test_mlm_masking_rates_and_80_10_10():
    g = torch.Generator().manual_seed(0)
    ids = torch.randint(10, 1000, (200, 128), generator=g)
    special = torch.zeros_like(ids, dtype=torch.bool)
    special[:, 0] = special[:, -1] = True
    cands = torch.arange(5, 1000)
    state = torch.get_rng_state()
    out, labels = M.mask_tokens(
        ids, mask_id=4, candidate_ids=cands, special_mask=special, generator=torch.Generator().manual_seed(1)
    )
    assert torch.equal(state, torch.get_rng_state())  # private generator only
    picked = labels != -100
    assert not picked[special].any()
    assert picked.float().mean().item() == pytest.approx(0.15 * 126 / 128, abs=0.005)
    assert torch.equal(labels[picked], ids[picked])
    n = picked.sum().item()
    as_mask = (out[picked] == 4).sum().item() / n
    unchanged = (out[picked] == ids[picked]).sum().item() / n
    replaced = 1 - as_mask - unchanged
    assert as_mask == pytest.approx(0.8, abs=0.02)
    assert unchanged == pytest.approx(0.1 + 0.1 / len(cands), abs=0.02)
    assert replaced == pytest.approx(0.1, abs=0.02)
    assert torch.equal(out[~picked], ids[~picked])
    again, _ = M.mask_tokens(
        ids, mask_id=4, candidate_ids=cands, special_mask=special, generator=torch.Generator().manual_seed(1)
    )
    assert torch.equal(out, again)


def test_mlm_whole_word_masking():
    b, t = 300, 30
    word_ids = torch.arange(t).div(3, rounding_mode="floor").expand(b, t).clone()  # 3 tokens per word
    word_ids[:, 0] = -1
    ids = torch.randint(10, 100, (b, t), generator=torch.Generator().manual_seed(0))
    _, labels = M.mask_tokens(
        ids,
        mask_id=4,
        candidate_ids=torch.arange(5, 100),
        word_ids=word_ids,
        generator=torch.Generator().manual_seed(2),
    )
    picked = (labels != -100)[:, 3:].reshape(b, -1, 3)  # whole words (the first was special-trimmed)
    assert (picked.all(-1) | ~picked.any(-1)).all()  # all tokens of a word, or none
    assert picked.any(-1).float().mean().item() == pytest.approx(0.15, abs=0.02)


def test_mlm_batches_with_a_word_tokenizer():
    tok = build_word_tokenizer(["the", "chef", "tipped", "waiter", "a", "."], kind="bert")
    texts = ["the chef tipped the waiter ."] * 64 + ["a chef ."] * 64
    builder = M.MLMBatches(texts, tok, batch_size=32, seq_len=16, seed=0)
    batches = list(builder)
    assert len(batches) == 4
    for bt in batches:
        lab, ids = bt["labels"], bt["input_ids"]
        specials = torch.isin(ids, torch.tensor([tok.cls_token_id, tok.sep_token_id, tok.pad_token_id]))
        assert not (lab[specials & (lab != -100)]).numel()
        assert (lab[bt["attention_mask"] == 0] == -100).all()
    second = list(builder)  # dynamic masking: a new epoch draws new masks
    assert any(not torch.equal(a["labels"], b["labels"]) for a, b in zip(batches, second))
    with pytest.raises(ValueError, match="mask token"):
        M.MLMBatches(texts, build_word_tokenizer(["a"]), batch_size=2)


def test_mixed_batches_share():
    bio = torch.zeros(30, 8, dtype=torch.long)
    qa = (torch.ones(10, 8, dtype=torch.long), torch.full((10, 8), -100))
    it = iter(O.MixedBatches({"bio": (bio, None), "qa": qa}, {"bio": 0.75, "qa": 0.25}, 16, seed=0))
    rows = torch.cat([next(it)["input_ids"][:, 0] for _ in range(100)])
    assert rows.float().mean().item() == pytest.approx(0.25, abs=0.03)
    batch = next(it)
    from_qa = batch["input_ids"][:, 0] == 1
    assert (batch["labels"][~from_qa] == 0).all() and (batch["labels"][from_qa] == -100).all()
    with pytest.raises(ValueError, match="summing to 1"):
        O.MixedBatches({"bio": (bio, None)}, {"bio": 0.5}, 4)


def test_lr_scale_trains_matching_parameters_at_their_own_rate():
    from transformers import BertConfig, BertForMaskedLM

    from bertology_lib.training.loop import param_groups
    from bertology_lib.training.masking import MaskedOnlyMLM

    m = BertForMaskedLM(
        BertConfig(vocab_size=50, hidden_size=16, num_hidden_layers=1, num_attention_heads=2, intermediate_size=32)
    )
    view = MaskedOnlyMLM(m)
    plain = param_groups(view, 0.1)
    scaled = param_groups(view, 0.1, None, (("cls\\.", 10.0),), 1e-4)
    assert sum(len(g["params"]) for g in plain) == sum(len(g["params"]) for g in scaled)
    head = {id(p) for n, p in view.named_parameters() if ".cls." in n}
    fast = [p for g in scaled if g.get("lr") == pytest.approx(1e-3) for p in g["params"]]
    assert {id(p) for p in fast} == head and head  # the tied decoder matrix is the embedding: not in the head
    with pytest.raises(ParameterError, match="lr_scale"):
        T.TrainConfig(lr_scale=(("cls", 0.0),))
