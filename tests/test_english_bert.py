"""The English lab BERT: its config and key, its training at smoke, agreement scoring, its unit under --jobs."""

from __future__ import annotations

import pytest

from bertology_lib.cache import ArtifactCache
from bertology_lib.data import english
from bertology_lib.errors import ParameterError
from bertology_lib.models import english_bert as eb
from bertology_lib.training import english_bert as teb
from conftest import SHARED_DATA

needs_text = pytest.mark.skipif(not (SHARED_DATA / "english").is_dir(), reason="no ../shared/data/english")


def test_bad_config_values_are_refused_before_any_work():
    with pytest.raises(ParameterError, match="route='bert'.*allowed"):
        eb.EnglishBertConfig(route="bert")
    with pytest.raises(ParameterError, match="d_model=100.*multiple of 64"):
        eb.EnglishBertConfig(route="scratch", d_model=100)
    with pytest.raises(ParameterError, match="head_lr"):
        eb.EnglishBertConfig(head_lr=0.0)
    with pytest.raises(ParameterError, match="dtype='float16'.*allowed"):
        eb.EnglishBertConfig(dtype="float16")


def test_the_key_follows_the_config_and_the_corpus(monkeypatch):
    cfg = eb.EnglishBertConfig.for_profile("quick")
    key = teb.english_bert_key(cfg)
    assert teb.english_bert_key(eb.EnglishBertConfig.for_profile("quick", max_steps=cfg.max_steps + 1)) != key
    monkeypatch.setitem(english.TEST_BUCKETS_OF_20, "brown", 4)  # another split: another text, another model
    assert teb.english_bert_key(cfg) != key
    assert "device" not in key["english_bert"]


def test_the_key_records_the_resolved_precision(monkeypatch):
    """quick/full train under bfloat16 autocast only where the hardware has bfloat16 units; the key holds the
    precision the run resolved to, so a machine without such units trains and caches another model."""
    from bertology_lib import runtime

    cfg = eb.EnglishBertConfig.for_profile("quick")
    assert cfg.dtype == "auto" and eb.EnglishBertConfig.for_profile("smoke").dtype == "float32"
    monkeypatch.setattr(runtime, "bf16_units", lambda device: True)
    with_units = teb.english_bert_key(cfg)
    assert teb.train_config(cfg).dtype == "bfloat16"
    monkeypatch.setattr(runtime, "bf16_units", lambda device: False)
    assert teb.train_config(cfg).dtype == "float32" and teb.english_bert_key(cfg) != with_units
    fixed = eb.EnglishBertConfig.for_profile("quick", dtype="bfloat16")  # asked for: whatever the hardware
    assert teb.train_config(fixed).dtype == "bfloat16" and teb.english_bert_key(fixed) != with_units


def test_new_heads_train_faster_only_on_a_pretrained_body():
    assert teb.train_config(eb.EnglishBertConfig(head_lr=10.0)).lr_scale == ((teb.HEADS, 10.0),)
    assert teb.train_config(eb.EnglishBertConfig(route="scratch", head_lr=10.0)).lr_scale == ()


@needs_text
def test_the_corpus_pairs_each_sentence_with_its_next_one_in_the_document():
    text = eb.corpus(eb.EnglishBertConfig.for_profile("smoke"))
    assert len(text.train) == len(text.partners) == 2000
    assert all(p == (i + 1,) or p == () for i, p in enumerate(text.partners))
    assert text.heldout and not set(text.heldout) & set(text.train[:2000])


@needs_text
@pytest.mark.slow
def test_smoke_training_caches_a_masked_lm_that_scores_agreement(tmp_path):
    cfg = eb.EnglishBertConfig.for_profile("smoke")
    cache = ArtifactCache(tmp_path)
    folder = teb.train_english_bert(cfg, cache=cache, progress=False)
    assert teb.train_english_bert(cfg, cache=cache, progress=False) == folder  # the second call finds it
    hist = teb.history(folder)
    assert [e["step"] for e in hist["evals"]] == cfg.checkpoint_steps()
    assert {"mlm_acc", "agreement_0", "agreement_all", "train_seconds"} <= set(hist["evals"][-1])
    model, tok = teb.load(cfg, cache=cache)
    assert type(model).__name__ == "BertForMaskedLM"
    items = english.agreement_items(english.load_english("brown", "test"))[:20]
    right = teb.agreement_accuracy(model, tok, items)
    assert len(right) == 20 and all(isinstance(r, bool) for r in right)


def test_notebooks_that_read_it_wait_for_its_unit():
    from bertology_lib.book.cli_jobs import SHARED_MODELS, reads_shared_model
    from bertology_lib.book.specs import get_spec

    spec = get_spec("survey_03b_english_bert")
    assert reads_shared_model(spec, {}) == "english-bert" and SHARED_MODELS["english-bert"] == "train-english-bert"
    assert reads_shared_model(spec, {"model": "bert-base-uncased"}) is None
    assert reads_shared_model(get_spec("survey_03_1_syntax"), {}) == "mini-bert"
