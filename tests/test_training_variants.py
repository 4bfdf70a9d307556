"""Tests for bertology_lib.experiments.survey.training (survey §5): tiny models, private cache."""

from __future__ import annotations

import pytest

from bertology_lib.analysis.similarity import linear_cka
import torch

from bertology_lib.training import finetune as ft
from bertology_lib.experiments.survey import training as tv
from bertology_lib.errors import ParameterError


@pytest.fixture
def tiny_classifier(tiny_bert_dir):
    from transformers import AutoModel

    enc = AutoModel.from_pretrained(tiny_bert_dir)
    return ft.SequenceClassifier(enc, 2, seed=0)


def _batch(n: int = 4, t: int = 6):
    g = torch.Generator().manual_seed(0)
    return {"input_ids": torch.randint(5, 18, (n, t), generator=g), "attention_mask": torch.ones(n, t, dtype=torch.long),
            "labels": torch.tensor([0, 1] * (n // 2))}


def _step(model, lr: float = 1e-1) -> None:
    opt = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=lr)
    model.train()
    model(**_batch()).loss.backward()
    opt.step()


def _snapshot(module):
    return {k: v.detach().clone() for k, v in module.state_dict().items()}


def test_scalar_mix_weights_sum_to_one_and_gradients_flow():
    mix = tv.ScalarMix(4)
    with torch.no_grad():
        mix.w.copy_(torch.tensor([0.3, -1.0, 2.0, 0.0]))
    assert float(mix.weights().detach().sum()) == pytest.approx(1.0)
    states = torch.randn(5, 4, 8)
    mix(states).pow(2).sum().backward()
    assert mix.w.grad is not None and mix.w.grad.abs().sum() > 0
    assert mix.gamma.grad is not None and float(mix.gamma.grad) != 0
    # uniform weights -> gamma times the mean over layers
    mix2 = tv.ScalarMix(4)
    assert torch.allclose(mix2(states), states.mean(1), atol=1e-6)
    with pytest.raises(ParameterError, match="states of shape"):
        mix2(torch.randn(5, 3, 8))


def test_frozen_strategy_leaves_encoder_unchanged(tiny_classifier):
    m = tv.prepare(tiny_classifier, "frozen")
    enc_before, head_before = _snapshot(m.encoder), m.out.weight.detach().clone()
    _step(m)
    for k, v in m.encoder.state_dict().items():
        assert torch.equal(v, enc_before[k]), k
    assert not torch.equal(m.out.weight, head_before)
    assert all(not n.startswith("encoder.") for n in tv.trainable_names(m))


def test_lora_trains_only_adapters_and_head(tiny_classifier):
    base_before = _snapshot(tiny_classifier.encoder)
    m = tv.prepare(tiny_classifier, "lora", lora_rank=2)
    names = tv.trainable_names(m)
    assert names and all("lora_" in n or n.startswith(("dense.", "out.")) for n in names)
    assert any("query" in n and "lora_" in n for n in names) and any("value" in n and "lora_" in n for n in names)
    assert not any("key" in n for n in names)
    for _ in range(3):
        _step(m)
    plain = {k.replace(".base_layer.", "."): v for k, v in m.encoder.state_dict().items() if "lora_" not in k}
    for k, v in base_before.items():
        assert torch.equal(plain[k], v), k
    # ... but the effective (merged) weights moved
    change = tv.relative_weight_change(ft.SequenceClassifier(_fresh_encoder(tiny_classifier), 2), m)
    assert (change.rel_change > 0).any()


def _fresh_encoder(model):
    from transformers import BertModel

    enc = BertModel(model.encoder.config)
    enc.load_state_dict({k.replace(".base_layer.", "."): v for k, v in model.encoder.state_dict().items()
                         if "lora_" not in k})
    return enc


def test_restore_layers_restores_exactly(tiny_classifier):
    pre = _snapshot(tiny_classifier.encoder)
    import copy

    pretrained = copy.deepcopy(tiny_classifier)
    _step(tiny_classifier)
    tuned = _snapshot(tiny_classifier.encoder)
    r = tv.restore_layers(tiny_classifier, pretrained, [0])
    sd = r.encoder.state_dict()
    for k in sd:
        if k.startswith("encoder.layer.0."):
            assert torch.equal(sd[k], pre[k]), k
        else:
            assert torch.equal(sd[k], tuned[k]), k
    none = tv.restore_layers(tiny_classifier, pretrained, [])
    assert all(torch.equal(v, tuned[k]) for k, v in none.encoder.state_dict().items())
    with pytest.raises(ParameterError, match="layers="):
        tv.restore_layers(tiny_classifier, pretrained, [5])


def test_change_metrics_zero_for_identical_models(tiny_classifier, tiny_bert_dir):
    from transformers import AutoTokenizer

    change = tv.relative_weight_change(tiny_classifier, tiny_classifier)
    assert list(change.layer) == [0, 1] and (change.rel_change == 0).all()
    tok = AutoTokenizer.from_pretrained(tiny_bert_dir)
    rows = [{"input_ids": tok(s)["input_ids"], "labels": 0} for s in ("the chef tipped a waiter .", "a robin is a bird .",
                                                                    "the waiter is unbelievably a chef .")]
    feats = ft.Features("classification", ["a", "b", "c"], rows, [0, 0, 0])
    rc = tv.representation_change(tiny_classifier, tiny_classifier, feats, tok.pad_token_id)
    assert rc.one_minus_cka.abs().max() < 1e-9


def test_linear_cka_parity_with_centering_matrix_formula():
    g = torch.Generator().manual_seed(0)
    X, Y = torch.randn(30, 5, generator=g), torch.randn(30, 7, generator=g)
    n = X.shape[0]
    H = torch.eye(n, dtype=torch.float64) - 1.0 / n
    K, L = X.double() @ X.double().T, Y.double() @ Y.double().T

    def hsic(a, b):
        return torch.trace(a @ H @ b @ H)

    ref = float(hsic(K, L) / torch.sqrt(hsic(K, K) * hsic(L, L)))
    assert linear_cka(X, Y) == pytest.approx(ref, rel=1e-9)
    Q, _ = torch.linalg.qr(torch.randn(5, 5, generator=g))
    assert linear_cka(X, 3.0 * X @ Q + 1.0) == pytest.approx(1.0, abs=1e-9)  # rotation, scale, shift invariant


def test_stack_doubles_depth_with_copied_weights(tiny_bert_dir):
    from transformers import AutoModelForMaskedLM

    from bertology_lib.interventions.hooks import blocks

    m = AutoModelForMaskedLM.from_pretrained(tiny_bert_dir)
    s = tv.stack(m)
    assert len(blocks(s)) == 4 and s.config.num_hidden_layers == 4
    for i in range(4):
        src = blocks(m)[i % 2].state_dict()
        for k, v in blocks(s)[i].state_dict().items():
            assert torch.equal(v, src[k])
    assert blocks(s)[0].attention.self.query.weight.data_ptr() != blocks(s)[2].attention.self.query.weight.data_ptr()


def test_mask_only_batches_replace_every_picked_word(tiny_bert_dir):
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(tiny_bert_dir)
    texts = ["the chef tipped a waiter . the robin is a bird ."] * 40
    for masking in tv.MASKINGS:
        cfg = tv.LabConfig(n_layers=2, n_heads=2, d_model=8, steps=2, batch_size=40, masking=masking, mask_prob=0.5)
        b = next(iter(tv._mlm_batches(texts, tok, cfg)))
        picked = b["labels"] != -100
        masked = b["input_ids"][picked] == tok.mask_token_id
        if masking == "mask-only":
            assert bool(masked.all())
        else:
            assert 0.6 < float(masked.float().mean()) < 0.95


def test_lab_pretraining_with_stacking(tmp_cache):
    from bertology_lib.models import minibert
    from bertology_lib.interventions.hooks import blocks

    mb = minibert.MiniBertConfig.for_profile("smoke", n_sentences=300, heldout=50)
    cfg = tv.LabConfig(n_layers=2, n_heads=2, d_model=16, steps=4, batch_size=8, warmup_steps=1, stack_at=2)
    assert cfg.block_steps() == 1 * 2 + 2 * 2
    folder = tv.pretrain_lab(cfg, mb)
    h = tv.lab_history(folder)
    assert len(h["losses"]) == 4 and len(h["seconds"]) == 2 and h["block_steps"] == 6
    model, tok = tv.load_lab(folder)
    assert len(blocks(model)) == 2
    acc = tv.masked_accuracy(model, tok, ["the cat sleeps ."] * 4)
    assert 0.0 <= acc <= 1.0
    assert tv.pretrain_lab(cfg, mb) == folder  # cached


def test_feature_head_learns_separable_data():
    g = torch.Generator().manual_seed(0)
    y = torch.randint(0, 2, (200,), generator=g)
    X = torch.randn(200, 3, 4, generator=g)
    X[:, 1, 0] += 3.0 * (2 * y - 1)  # only layer 1 carries the label
    data = {"train": X[:150], "test": X[150:]}
    labels = {"train": y[:150], "test": y[150:]}
    head, acc = tv.train_feature_head(data, labels, 2, mix=True, seed=0, epochs=40)
    assert acc["test"] > 0.9
    assert int(head.mix.weights().argmax()) == 1


def test_finetune_tracked_caches_and_frozen_keeps_encoder(tmp_cache, tiny_bert_dir):
    from bertology_lib.data import tasks

    task = tasks.toy_classification(n_train=16, n_dev=8, n_test=8)
    src = ft.ModelSource(str(tiny_bert_dir))
    cfg = ft.FinetuneConfig.for_profile("smoke", max_steps=4)
    r = tv.finetune_tracked(task, src, cfg, 0, "frozen", eval_fracs=(0.5, 1.0))
    assert [c["step"] for c in r.curve] == [2, 4] and set(r.metrics) == {"dev", "test"}
    pre = src.load_model()
    assert (tv.relative_weight_change(pre, r.model).rel_change == 0).all()
    again = tv.finetune_tracked(task, src, cfg, 0, "frozen", eval_fracs=(0.5, 1.0))
    assert again.curve == r.curve and again.metrics == r.metrics
    early = tv.early_ranking([r, again, r], 0.5)
    assert set(early) >= {"rho_final_dev", "p_final_dev", "best_kept_minus_best"}


@pytest.mark.parametrize("call, match", [
    (lambda: tv.check_strategy("adapters"), "strategy='adapters'"),
    (lambda: tv.LabConfig(masking="span"), "masking='span'"),
    (lambda: tv.LabConfig(n_layers=3, stack_at=10), "cannot be stacked"),
    (lambda: tv.LabConfig(steps=10, stack_at=10), "stack_at=10"),
    (lambda: tv.LabConfig(n_heads=3, d_model=64), "not divisible"),
    (lambda: tv.LabConfig(seed=-1), "seed=-1"),
    (lambda: tv._check_fracs([0.5, 0.25]), "eval_fracs"),
    (lambda: tv._check_fracs([0.0, 1.0]), "eval_fracs"),
    (lambda: tv.ScalarMix(0), "n_layers=0"),
    (lambda: tv.early_ranking([], 0.25), "too few"),
    (lambda: linear_cka(torch.randn(3, 2), torch.randn(4, 2)), "same number"),
    (lambda: tv.paired_points({0: 1.0, 1: 0.5}, {0: 1.0}), "paired seeds"),
    (lambda: tv.TrainingSizes.for_profile("huge"), "huge"),
])
def test_bad_inputs_raise_parameter_error(call, match):
    with pytest.raises((ParameterError, ValueError), match=match):
        call()


def test_prepare_rejects_bad_rank(tiny_classifier):
    with pytest.raises(ParameterError, match="lora_rank=0"):
        tv.prepare(tiny_classifier, "lora", lora_rank=0)


def test_sizes_and_estimate():
    s = tv.TrainingSizes.for_profile("quick")
    assert s.n_seeds >= 10 and s.n_strategy_seeds >= 3
    assert s.finetune_config("quick", "lora").lr == s.lora_lr
    grid = tv.variant_grid(s, [0, 1])
    assert set(grid) == {"80/10/10", "[MASK]-only", "stacked"} and all(len(v) == 2 for v in grid.values())
    assert grid["stacked"][0].block_steps() == pytest.approx(0.75 * grid["80/10/10"][0].block_steps())
    assert sum(tv.TrainingSizes.for_profile("smoke").estimate_seconds().values()) < 120


# -- tokenizer, masking units, NSP -------------------------------------------------------------------


def test_span_groups_cut_words_into_contiguous_spans():
    from bertology_lib.training.loop import span_groups

    g = torch.Generator().manual_seed(0)
    words = torch.tensor([[-1, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, -1, -1]] * 200)  # word 0 has two pieces
    spans = span_groups(words, 0.2, 10, g)
    assert bool((spans[:, [0, 12, 13]] == -1).all())
    assert bool((spans[:, 1] == spans[:, 2]).all())  # pieces of one word share a span
    d = spans[:, 2:12].diff(dim=1)
    assert bool(((d == 0) | (d == 1)).all())  # spans are consecutive runs of words, numbered in order
    mean_len = 10 / (spans[:, 2:12].max(dim=1).values + 1).float().mean()
    assert 2.0 < float(mean_len) < 5.0  # truncation at 10 words shortens SpanBERT's mean of 3.8
    # every span picked with p: the expected share of masked words stays p
    from bertology_lib.training.loop import mask_tokens

    ids = torch.arange(14).expand(200, 14).clone() + 5
    _, labels = mask_tokens(ids, mask_id=4, candidate_ids=torch.arange(5, 20), word_ids=spans, mask_prob=0.15,
                            generator=g)
    share = float((labels[:, 1:12] != -100).float().mean())
    assert 0.10 < share < 0.20
    with pytest.raises(ValueError, match="p=1.0"):
        span_groups(words, 1.0)


def test_wordpiece_tokenizer_splits_rare_words_and_keeps_word_ids():
    from bertology_lib.models.tokenization import train_wordpiece_tokenizer

    texts = ["the chef tipped the waiter ."] * 50 + ["the remarkablyunusualword sleeps ."]
    tok = train_wordpiece_tokenizer(texts, 70)
    enc = tok(["the remarkablyunusualword sleeps ."])
    pieces = tok.convert_ids_to_tokens(enc["input_ids"][0])
    assert pieces[0] == "[CLS]" and pieces[-1] == "[SEP]" and "the" in pieces
    w = enc.word_ids(0)
    assert w[0] is None and max(x for x in w if x is not None) == 3  # 4 words, the long one in pieces
    assert sum(x == 1 for x in w) > 1
    assert tok.decode(enc["input_ids"][0], skip_special_tokens=True) == "the remarkablyunusualword sleeps."
    with pytest.raises(ValueError, match="vocab_size=3"):
        train_wordpiece_tokenizer(texts, 3)


def test_token_unit_masks_pieces_and_word_unit_masks_whole_words():
    from bertology_lib.models.tokenization import train_wordpiece_tokenizer

    texts = [" ".join(["abcdefgh"] * 12)] * 64 + ["ab cd ef gh"] * 64
    tok = train_wordpiece_tokenizer(texts, 24)
    assert len(tok.tokenize("abcdefgh")) > 1
    rows = {}
    for unit in ("token", "word"):
        cfg = tv.LabConfig(n_layers=2, n_heads=2, d_model=8, steps=2, batch_size=64, unit=unit, mask_prob=0.3)
        b = next(iter(tv._mlm_batches(texts[:64], tok, cfg)))
        enc = tok(texts[:1])
        w = torch.tensor([x if x is not None else -1 for x in enc.word_ids(0)])
        picked = b["labels"] != -100
        split = [bool(picked[r][w == k].any() and not picked[r][w == k].all()) for r in range(64) for k in range(12)]
        rows[unit] = sum(split)
    assert rows["word"] == 0 and rows["token"] > 0


def test_topic_partners_share_a_noun():
    from bertology_lib.models import minibert

    mb = minibert.MiniBertConfig.for_profile("smoke", n_sentences=300, heldout=50)
    sents = minibert.corpus(mb)[0]
    partners = tv.topic_partners(sents)
    assert len(partners) == len(sents) and sum(bool(p) for p in partners) > 0.5 * len(sents)
    for i, p in enumerate(partners[:50]):
        nouns = {lem for lem, u in zip(sents[i].lemmas, sents[i].upos) if u in ("NOUN", "PROPN")}
        for j in p[:5]:
            assert j != i and nouns & set(sents[j].lemmas)


def test_pair_batches_and_nsp_pretraining(tmp_cache):
    from bertology_lib.models import minibert

    mb = minibert.MiniBertConfig.for_profile("smoke", n_sentences=300, heldout=50)
    cfg = tv.LabConfig(n_layers=2, n_heads=2, d_model=16, steps=4, batch_size=8, warmup_steps=1, nsp=True,
                       tokenizer="wordpiece", unit="span")
    tok = tv.lab_tokenizer(cfg, mb)
    assert tv.lab_tokenizer(cfg, mb).get_vocab() == tok.get_vocab()  # cached: the same pieces every time
    sents = minibert.corpus(mb)[0]
    batches = tv.PairBatches([s.text for s in sents], tv.topic_partners(sents), tok, cfg)
    b = next(iter(batches))
    assert set(b) == {"input_ids", "attention_mask", "token_type_ids", "labels", "next_sentence_label"}
    assert int(b["token_type_ids"].max()) == 1 and set(b["next_sentence_label"].tolist()) <= {0, 1}
    assert bool((b["labels"][b["input_ids"] == tok.cls_token_id] == -100).all())
    folder = tv.pretrain_lab(cfg, mb)
    h = tv.lab_history(folder)
    assert 0.0 <= h["nsp_train_accuracy"] <= 1.0 and h["config"]["nsp"] is True
    model, ltok = tv.load_lab(folder)  # the MLM view of the BertForPreTraining checkpoint
    assert type(model).__name__ == "BertForMaskedLM" and len(ltok) == len(tok)
    enc, _ = tv.load_lab(folder, head="base")
    assert enc.pooler is not None
    assert 0.0 <= tv.masked_accuracy(model, ltok, [s.text for s in sents[:8]]) <= 1.0


def test_lab_keys_of_original_variants_are_unchanged():
    d = tv.LabConfig().to_dict()
    assert not {"tokenizer", "unit", "nsp"} & set(d)
    assert tv.LabConfig(unit="span").to_dict()["unit"] == "span"


@pytest.mark.parametrize("kw, match", [
    (dict(tokenizer="bpe"), "tokenizer='bpe'"),
    (dict(unit="phrase"), "unit='phrase'"),
    (dict(nsp=1), "nsp=1"),
    (dict(nsp=True, stack_at=10, n_layers=4), "nsp=True"),
])
def test_lab_config_rejects_bad_new_fields(kw, match):
    with pytest.raises(ParameterError, match=match):
        tv.LabConfig(**kw)


def test_architecture_grid_keeps_block_parameters_about_equal():
    sizes = tv.TrainingSizes.for_profile("quick")
    grid = tv.architecture_grid(sizes, [0, 1])
    assert len(grid) == 5 and all(len(v) == 2 for v in grid.values())
    base = next(iter(grid.values()))[0]
    assert base == tv.variant_grid(sizes, [0])["80/10/10"][0]  # shares §5's cached base model
    budget = base.n_layers * base.d_model ** 2
    for cfgs in grid.values():
        c = cfgs[0]
        assert abs(c.n_layers * c.d_model ** 2 / budget - 1) < 0.1 and c.d_model % c.n_heads == 0
    assert {c[0].n_heads for c in grid.values()} >= {1, base.n_heads, 4 * base.n_heads}
    assert {c[0].n_layers for c in grid.values()} == {base.n_layers // 2, base.n_layers, 2 * base.n_layers}
    obj = tv.objective_grid(sizes, [0])
    assert [c[0].unit for c in obj.values()] == ["token", "word", "span", "word"]
    assert [c[0].nsp for c in obj.values()] == [False, False, False, True]


def test_evaluate_labs_measures_every_model_and_ranges(tmp_cache):
    from bertology_lib.models import minibert
    from bertology_lib.experiments.survey import knowledge as survey
    from bertology_lib.data import tasks

    mb = minibert.MiniBertConfig.for_profile("smoke", n_sentences=300, heldout=50)
    small = dict(n_layers=2, d_model=16, steps=3, batch_size=8, warmup_steps=1)
    grid = {"2 heads": [tv.LabConfig(n_heads=2, seed=s, **small) for s in (0, 1)],
            "4 heads": [tv.LabConfig(n_heads=4, seed=s, **small) for s in (0, 1)]}
    task = tasks.toy_classification(n_train=16, n_dev=8, n_test=8, world_seed=mb.corpus_seed, vocab_size=mb.vocab_size)
    cfg = ft.FinetuneConfig.for_profile("smoke", max_steps=2)
    table = tv.evaluate_labs(grid, mb, task, cfg, survey.probe_sentences(mb, 20),
                             [s.text for s in minibert.corpus(mb)[1]][:10], progress=False)
    assert len(table) == 4 and list(table.variant) == ["2 heads", "2 heads", "4 heads", "4 heads"]
    for col in ("mlm_acc", "pos_probe", "downstream"):
        assert table[col].between(0, 1).all()
    assert (table.block_params == table.block_params[0]).all()  # heads do not change parameters
    r = tv.seed_ranges(table, ["2 heads", "4 heads"], "mlm_acc")
    assert set(r) == {0, 1} and all(v >= 0 for v in r.values())
    assert tv.by_seed(table, "4 heads", "downstream").keys() == {0, 1}
    with pytest.raises(ParameterError, match="not in the table"):
        tv.seed_ranges(table, ["8 heads"], "mlm_acc")
    with pytest.raises(ParameterError, match="grid is empty"):
        tv.evaluate_labs({}, mb, task, cfg, [], [])
