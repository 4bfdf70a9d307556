"""The lab BERT's strength table: the n-gram and unigram references, masked predictions aligned with
masked_accuracy, word-class scoring."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import torch

from bertology_lib.analysis import mlm_strength as ms
from bertology_lib.training.pretrain import masked_accuracy, unigram_accuracy
from bertology_lib.errors import ParameterError
from bertology_lib.models import minibert
from bertology_lib.models.tokenization import build_word_tokenizer

torch.set_num_threads(1)

WORDS = ["the", "a", "dog", "dogs", "cat", "cats", "runs", "run", "sees", "see", "."]


@pytest.fixture(scope="module")
def tok():
    return build_word_tokenizer(WORDS, kind="bert")


def test_ngram_uses_both_sides_then_backs_off(tok):
    train = ["the dog runs ."] * 3 + ["the cats run ."] * 2 + ["a dog sees the cat ."]
    ng = ms.NGramMLM(train, tok)
    ids = lambda s: tok(s)["input_ids"]  # noqa: E731  [CLS] ... [SEP]
    m = tok.mask_token_id
    # "the [MASK] runs": seen pair (the, runs) -> dog
    x = ids("the dog runs .")
    x[2] = m
    assert tok.convert_ids_to_tokens(ng.predict(x, 2)) == "dog"
    x = ids("the cats run .")
    x[2] = m
    assert tok.convert_ids_to_tokens(ng.predict(x, 2)) == "cats"
    # right neighbour masked too: back off to the left context "the" (dog 3x after "the", cats 2x, cat 1x)
    x = ids("the cats run .")
    x[2], x[3] = m, m
    assert tok.convert_ids_to_tokens(ng.predict(x, 2)) == "dog"
    # both neighbours unknown or masked: the most frequent word
    x = [tok.cls_token_id, m, m, m, tok.sep_token_id]
    assert ng.predict(x, 2) == ng.top
    assert tok.convert_ids_to_tokens(ng.top) in {"the", "."}
    with pytest.raises(ParameterError, match="train_texts is empty"):
        ms.NGramMLM([], tok)


def test_masked_predictions_match_masked_accuracy_and_the_unigram_baseline(tok):
    rng = np.random.default_rng(0)
    texts = [" ".join(rng.choice(WORDS[:-1], size=rng.integers(3, 8))) + " ." for _ in range(60)]
    model = minibert.new_bert(len(tok), n_layers=1, n_heads=2, d_model=16, seed=0)
    preds = ms.masked_predictions(
        {"model": ms.model_predictor(model), "unigram": ms.unigram_predictor(ms.NGramMLM(texts, tok))},
        tok,
        texts,
        bucket=0,
    )
    assert len(preds) > 20 and set(preds.columns) == {"text", "gold", "model", "unigram"}
    table = ms.strength_table(preds)
    assert table.loc["model", "word"] == pytest.approx(masked_accuracy(model, tok, texts, bucket=0))
    assert table.loc["unigram", "word"] == pytest.approx(unigram_accuracy(texts, tok, texts, bucket=0))
    assert ms.hits(preds, "model").mean() == pytest.approx(table.loc["model", "word"])
    with pytest.raises(ParameterError, match="name='gold'"):
        ms.hits(preds, "gold")
    with pytest.raises(ParameterError, match="predictors is empty"):
        ms.masked_predictions({}, tok, texts)


def test_word_class_scores_only_unambiguous_gold_words(tok):
    t = lambda w: tok.convert_tokens_to_ids(w)  # noqa: E731
    Sent = type("Sent", (), {})
    s1, s2 = Sent(), Sent()
    s1.words, s1.upos = ["the", "dog", "runs", "."], ["DET", "NOUN", "VERB", "PUNCT"]
    s2.words, s2.upos = ["the", "run", "runs", "."], ["DET", "NOUN", "VERB", "PUNCT"]
    s3 = Sent()
    s3.words, s3.upos = ["dogs", "run", "."], ["NOUN", "VERB", "PUNCT"]  # "run" is NOUN and VERB
    classes = ms.word_classes([s1, s2, s3], tok)
    assert classes[t("run")] == frozenset({"NOUN", "VERB"}) and classes[t("dog")] == frozenset({"NOUN"})
    preds = pd.DataFrame(
        {
            "text": [0, 0, 1, 1],
            "gold": [t("dog"), t("run"), t("runs"), t("the")],
            "guess": [t("cat"), t("dog"), t("run"), t("dog")],
        }
    )
    table = ms.strength_table(preds, classes)
    # gold "run" is ambiguous (left out); "dog"->"cat": cat unseen, miss; "runs"->"run" (can be VERB): hit;
    # "the"->"dog": miss
    assert table.loc["guess", "class_items"] == 3
    assert table.loc["guess", "word_class"] == pytest.approx(1 / 3)
    assert table.loc["guess", "word"] == 0
