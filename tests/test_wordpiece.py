"""Tests for models.wordpiece: WordPiece tokenizers that are the same in every process."""

from __future__ import annotations

import subprocess
import sys

import pytest

from bertology_lib.errors import ParameterError
from bertology_lib.models.wordpiece import sorted_vocabulary, train_wordpiece

# One training on the smoke toy corpus, printed as the tokenizer's full JSON state. With the library trainer
# alone (tokenization.train_wordpiece_tokenizer) three processes gave three different piece sets here
# (14-34 pieces apart): the continuation pieces got their ids in Rust hash-map order, seeded per process.
_TRAIN_IN_A_PROCESS = """
import hashlib
from bertology_lib.models import minibert
from bertology_lib.models.wordpiece import train_wordpiece
texts = [s.text for s in minibert.corpus(minibert.MiniBertConfig.for_profile("smoke"))[0]]
print(hashlib.sha256(train_wordpiece(texts, 2000).backend_tokenizer.to_str().encode()).hexdigest())
"""


def test_two_processes_train_the_same_pieces_under_the_same_ids():
    runs = [
        subprocess.run([sys.executable, "-c", _TRAIN_IN_A_PROCESS], capture_output=True, text=True, check=True)
        for _ in range(2)
    ]
    assert runs[0].stdout.strip() and runs[0].stdout == runs[1].stdout


def test_wordpiece_splits_rare_words_keeps_specials_first_and_round_trips(tmp_path):
    from transformers import AutoTokenizer

    texts = ["the chef tipped the waiter ."] * 50 + ["the remarkablyunusualword sleeps ."]
    tok = train_wordpiece(texts, 70)
    assert tok.convert_ids_to_tokens(list(range(5))) == ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    assert sorted(tok.all_special_tokens) == sorted(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"])
    rest = tok.convert_ids_to_tokens(list(range(5, len(tok))))
    assert rest == sorted(rest) and "##e" in rest  # continuation pieces are ordinary pieces, ids sorted
    enc = tok(["the remarkablyunusualword sleeps ."])
    w = enc.word_ids(0)
    assert (
        sum(x == 1 for x in w) > 1 and tok.decode(enc["input_ids"][0], skip_special_tokens=True) == texts[-1][:-2] + "."
    )
    assert tok("a b", "c")["token_type_ids"] == [0, 0, 0, 0, 1, 1]
    tok.save_pretrained(tmp_path)
    back = AutoTokenizer.from_pretrained(tmp_path)
    assert back(texts[-1])["input_ids"] == tok(texts[-1])["input_ids"] and back.get_vocab() == tok.get_vocab()


def test_sorted_vocabulary_keeps_segmentation_and_refuses_a_word_level_model():
    from bertology_lib.models.tokenization import build_word_tokenizer, train_wordpiece_tokenizer

    texts = ["the remarkablyunusualword sleeps ."] * 3 + ["a chef tipped the waiter ."] * 9
    old = train_wordpiece_tokenizer(texts, 40)
    new = sorted_vocabulary(old)
    for t in texts + ["the unusualchef ."]:
        assert new.tokenize(t) == old.tokenize(t)
    assert set(new.get_vocab()) == set(old.get_vocab())
    with pytest.raises(ParameterError, match="'WordLevel' is not allowed"):
        sorted_vocabulary(build_word_tokenizer(["the", "chef"], kind="bert"))
    with pytest.raises(ParameterError, match="vocab_size=8 is out of range"):
        train_wordpiece(texts, 8)
