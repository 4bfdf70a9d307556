"""Word-level tokenizers: same split as bios.words, readable decoding, save/load round trip."""

from __future__ import annotations

import pytest
from transformers import AutoTokenizer

from bertology_lib.data import bios
from bertology_lib.models.tokenization import build_word_tokenizer, detokenize


@pytest.fixture(scope="module")
def gpt_tok():
    return build_word_tokenizer(bios.vocabulary(), kind="gpt")


@pytest.fixture(scope="module")
def dataset():
    return bios.generate_dataset(bios.BioConfig(n_people=30, seed=1, multi=2, permute=1))


def test_special_tokens_come_first(gpt_tok):
    assert gpt_tok.convert_ids_to_tokens([0, 1, 2, 3]) == ["<pad>", "<unk>", "<bos>", "<eos>"]
    assert (gpt_tok.pad_token_id, gpt_tok.unk_token_id, gpt_tok.eos_token_id) == (0, 1, 3)
    assert len(gpt_tok) == len(bios.vocabulary()) + 4


def test_splits_like_bios_words_and_knows_every_word(gpt_tok, dataset):
    texts = dataset.texts()[:20] + [p.text for p in dataset.qa_pairs("all")[:30]]
    for text in texts:
        ids = gpt_tok(text, add_special_tokens=False)["input_ids"]
        assert gpt_tok.convert_ids_to_tokens(ids) == bios.words(text)
        assert gpt_tok.unk_token_id not in ids


@pytest.mark.parametrize(
    "text",
    [
        "October 2, 1996",
        "Winston-Salem, NC",
        "Texas A&M University",
        "What is the birth date of Dasha Calris Fairdale? Answer: May 1, 1900.",
        "Dasha Calris Fairdale's birthday is May 1, 1900.",
    ],
)
def test_detokenize_inverts_words(text):
    assert detokenize(bios.words(text)) == text


def test_decode_round_trips_every_answer_value(gpt_tok):
    values = [*bios.CITIES, *bios.UNIVERSITIES, *bios.MAJORS, *bios.COMPANIES, "October 2, 1996"]
    for v in values:
        ids = gpt_tok(v, add_special_tokens=False)["input_ids"]
        assert gpt_tok.decode(ids) == v == detokenize(bios.words(v))
        assert bios.normalize_answer(gpt_tok.decode(ids + gpt_tok(".")["input_ids"])) == v


def test_bios_texts_round_trip(gpt_tok, dataset):
    for text in dataset.texts()[:20]:
        assert gpt_tok.decode(gpt_tok(text)["input_ids"]) == text


def test_save_load_round_trip(gpt_tok, tmp_path):
    gpt_tok.save_pretrained(tmp_path)
    loaded = AutoTokenizer.from_pretrained(tmp_path)
    text = "What is the birth city of Dasha Calris Fairdale? Answer: Winston-Salem, NC."
    assert loaded(text)["input_ids"] == gpt_tok(text)["input_ids"]
    assert loaded.decode(loaded(text)["input_ids"]) == text
    assert (loaded.pad_token, loaded.eos_token, loaded.unk_token) == ("<pad>", "<eos>", "<unk>")
    assert loaded.get_vocab() == gpt_tok.get_vocab()


def test_bert_kind_template_mask_and_lowercase(tmp_path):
    tok = build_word_tokenizer(["the", "chef", "tipped", "waiter", "."], kind="bert", lowercase=True)
    enc = tok("The chef tipped.", "The waiter.")
    assert tok.convert_ids_to_tokens(enc["input_ids"]) == [
        "[CLS]",
        "the",
        "chef",
        "tipped",
        ".",
        "[SEP]",
        "the",
        "waiter",
        ".",
        "[SEP]",
    ]
    assert enc["token_type_ids"] == [0] * 6 + [1] * 4
    assert tok.mask_token == "[MASK]" and tok.mask_token_id == 4
    assert tok.decode(enc["input_ids"], skip_special_tokens=True) == "the chef tipped. the waiter."
    tok.save_pretrained(tmp_path)
    loaded = AutoTokenizer.from_pretrained(tmp_path)
    assert loaded("The chef tipped.", "The waiter.")["input_ids"] == enc["input_ids"]
    assert loaded.mask_token_id == 4


def test_unknown_word_maps_to_unk(gpt_tok):
    ids = gpt_tok("Zzyzx was born", add_special_tokens=False)["input_ids"]
    assert ids[0] == gpt_tok.unk_token_id


def test_unknown_kind_is_rejected():
    with pytest.raises(ValueError, match=r"kind='t5'.*allowed: gpt, bert"):
        build_word_tokenizer(["a"], kind="t5")


def test_special_token_in_vocab_is_rejected():
    with pytest.raises(ValueError, match="special tokens"):
        build_word_tokenizer(["a", "<eos>"], kind="gpt")
