"""Tests for the MLM objective and pipeline (training.masking, training.pretrain) and the §5 lab BERTs
(experiments.survey.pretraining): tiny models, private cache."""

from __future__ import annotations

import pytest
import torch

from bertology_lib.training.pretrain import masked_accuracy
from bertology_lib.errors import ParameterError
from bertology_lib.experiments.survey import pretraining as pre
from bertology_lib.experiments.survey import training as tv
from bertology_lib.training import finetune as ft
from bertology_lib.training import masking
from bertology_lib.training.pretrain import mlm_batches


def test_stack_doubles_depth_with_copied_weights(tiny_bert_dir):
    from transformers import AutoModelForMaskedLM

    from bertology_lib.interventions.hooks import blocks

    m = AutoModelForMaskedLM.from_pretrained(tiny_bert_dir)
    s = pre.stack(m)
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
    for corruption in pre.MASKINGS:
        cfg = pre.LabConfig(n_layers=2, n_heads=2, d_model=8, steps=2, batch_size=40, masking=corruption, mask_prob=0.5)
        b = next(iter(mlm_batches(texts, tok, pre.objective_of(cfg), cfg.batch_size, seed=cfg.seed)))
        picked = b["labels"] != -100
        masked = b["input_ids"][picked] == tok.mask_token_id
        if corruption == "mask-only":
            assert bool(masked.all())
        else:
            assert 0.6 < float(masked.float().mean()) < 0.95


def test_lab_pretraining_with_stacking(tmp_cache):
    from bertology_lib.models import minibert
    from bertology_lib.interventions.hooks import blocks

    mb = minibert.MiniBertConfig.for_profile("smoke", n_sentences=300, heldout=50)
    cfg = pre.LabConfig(n_layers=2, n_heads=2, d_model=16, steps=4, batch_size=8, warmup_steps=1, stack_at=2)
    assert cfg.block_steps() == 1 * 2 + 2 * 2
    folder = pre.pretrain_lab(cfg, mb)
    h = pre.lab_history(folder)
    assert len(h["losses"]) == 4 and len(h["seconds"]) == 2 and h["block_steps"] == 6
    model, tok = pre.load_lab(folder)
    assert len(blocks(model)) == 2
    acc = masked_accuracy(model, tok, ["the cat sleeps ."] * 4)
    assert 0.0 <= acc <= 1.0
    assert pre.pretrain_lab(cfg, mb) == folder  # cached


def test_span_groups_cut_words_into_contiguous_spans():
    from bertology_lib.training.masking import span_groups

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
    from bertology_lib.training.masking import mask_tokens

    ids = torch.arange(14).expand(200, 14).clone() + 5
    _, labels = mask_tokens(
        ids, mask_id=4, candidate_ids=torch.arange(5, 20), word_ids=spans, mask_prob=0.15, generator=g
    )
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
        cfg = pre.LabConfig(n_layers=2, n_heads=2, d_model=8, steps=2, batch_size=64, unit=unit, mask_prob=0.3)
        b = next(iter(mlm_batches(texts[:64], tok, pre.objective_of(cfg), cfg.batch_size, seed=cfg.seed)))
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
    partners = masking.topic_partners(sents)
    assert len(partners) == len(sents) and sum(bool(p) for p in partners) > 0.5 * len(sents)
    for i, p in enumerate(partners[:50]):
        nouns = {lem for lem, u in zip(sents[i].lemmas, sents[i].upos) if u in ("NOUN", "PROPN")}
        for j in p[:5]:
            assert j != i and nouns & set(sents[j].lemmas)


def test_pair_batches_and_nsp_pretraining(tmp_cache):
    from bertology_lib.models import minibert

    mb = minibert.MiniBertConfig.for_profile("smoke", n_sentences=300, heldout=50)
    cfg = pre.LabConfig(
        n_layers=2,
        n_heads=2,
        d_model=16,
        steps=4,
        batch_size=8,
        warmup_steps=1,
        nsp=True,
        tokenizer="wordpiece",
        unit="span",
    )
    tok = pre.lab_tokenizer(cfg, mb)
    assert pre.lab_tokenizer(cfg, mb).get_vocab() == tok.get_vocab()  # cached: the same pieces every time
    sents = minibert.corpus(mb)[0]
    batches = mlm_batches(
        [s.text for s in sents],
        tok,
        pre.objective_of(cfg),
        cfg.batch_size,
        seed=cfg.seed,
        partners=masking.topic_partners(sents),
    )
    b = next(iter(batches))
    assert set(b) == {"input_ids", "attention_mask", "token_type_ids", "labels", "next_sentence_label"}
    assert int(b["token_type_ids"].max()) == 1 and set(b["next_sentence_label"].tolist()) <= {0, 1}
    assert bool((b["labels"][b["input_ids"] == tok.cls_token_id] == -100).all())
    folder = pre.pretrain_lab(cfg, mb)
    h = pre.lab_history(folder)
    assert 0.0 <= h["nsp_train_accuracy"] <= 1.0 and h["config"]["nsp"] is True
    model, ltok = pre.load_lab(folder)  # the MLM view of the BertForPreTraining checkpoint
    assert type(model).__name__ == "BertForMaskedLM" and len(ltok) == len(tok)
    enc, _ = pre.load_lab(folder, head="base")
    assert enc.pooler is not None
    assert 0.0 <= masked_accuracy(model, ltok, [s.text for s in sents[:8]]) <= 1.0


def test_lab_keys_hold_every_field_at_any_value():
    d = pre.LabConfig().key()
    assert (d["tokenizer"], d["unit"], d["nsp"]) == ("word", "word", False)
    assert pre.LabConfig(unit="span").key()["unit"] == "span"


@pytest.mark.parametrize(
    "kw, match",
    [
        (dict(tokenizer="bpe"), "tokenizer='bpe'"),
        (dict(unit="phrase"), "unit='phrase'"),
        (dict(nsp=1), "nsp=1"),
        (dict(nsp=True, stack_at=10, n_layers=4), "nsp=True"),
    ],
)
def test_lab_config_rejects_bad_new_fields(kw, match):
    with pytest.raises(ParameterError, match=match):
        pre.LabConfig(**kw)


def test_architecture_grid_keeps_block_parameters_about_equal():
    sizes = tv.TrainingSizes.for_profile("quick")
    grid = pre.architecture_grid(sizes, [0, 1])
    assert len(grid) == 5 and all(len(v) == 2 for v in grid.values())
    base = next(iter(grid.values()))[0]
    assert base == pre.variant_grid(sizes, [0])["80/10/10"][0]  # shares §5's cached base model
    budget = base.n_layers * base.d_model**2
    for cfgs in grid.values():
        c = cfgs[0]
        assert abs(c.n_layers * c.d_model**2 / budget - 1) < 0.1 and c.d_model % c.n_heads == 0
    assert {c[0].n_heads for c in grid.values()} >= {1, base.n_heads, 4 * base.n_heads}
    assert {c[0].n_layers for c in grid.values()} == {base.n_layers // 2, base.n_layers, 2 * base.n_layers}
    obj = pre.objective_grid(sizes, [0])
    assert [c[0].unit for c in obj.values()] == ["token", "word", "span", "word"]
    assert [c[0].nsp for c in obj.values()] == [False, False, False, True]


def test_evaluate_labs_measures_every_model_and_ranges(tmp_cache):
    from bertology_lib.models import minibert
    from bertology_lib.data import tasks

    mb = minibert.MiniBertConfig.for_profile("smoke", n_sentences=300, heldout=50)
    small = dict(n_layers=2, d_model=16, steps=3, batch_size=8, warmup_steps=1)
    grid = {
        "2 heads": [pre.LabConfig(n_heads=2, seed=s, **small) for s in (0, 1)],
        "4 heads": [pre.LabConfig(n_heads=4, seed=s, **small) for s in (0, 1)],
    }
    task = tasks.toy_classification(n_train=16, n_dev=8, n_test=8, world_seed=mb.corpus_seed, vocab_size=mb.vocab_size)
    cfg = ft.FinetuneConfig.for_profile("smoke", max_steps=2)
    table = pre.evaluate_labs(
        grid,
        mb,
        task,
        cfg,
        minibert.fresh_sentences(mb, 20),
        [s.text for s in minibert.corpus(mb)[1]][:10],
        progress=False,
    )
    assert len(table) == 4 and list(table.variant) == ["2 heads", "2 heads", "4 heads", "4 heads"]
    for col in ("mlm_acc", "pos_probe", "downstream"):
        assert table[col].between(0, 1).all()
    assert (table.block_params == table.block_params[0]).all()  # heads do not change parameters
    r = pre.seed_ranges(table, ["2 heads", "4 heads"], "mlm_acc")
    assert set(r) == {0, 1} and all(v >= 0 for v in r.values())
    assert pre.by_seed(table, "4 heads", "downstream").keys() == {0, 1}
    with pytest.raises(ParameterError, match="not in the table"):
        pre.seed_ranges(table, ["8 heads"], "mlm_acc")
    with pytest.raises(ParameterError, match="grid is empty"):
        pre.evaluate_labs({}, mb, task, cfg, [], [])
