from dataclasses import dataclass, field

import pytest

from bertology_lib.analysis.cloze import accuracy_by, score_items
from bertology_lib.models.registry import load_model, load_tokenizer


@dataclass
class Item:
    words: tuple
    mask_index: int
    correct: str
    incorrect: str
    suite: str = "t"
    meta: dict = field(default_factory=dict)


def test_scores_match_a_direct_forward(tiny_bert_dir):
    import torch

    m, tok = load_model(str(tiny_bert_dir), head="mlm"), load_tokenizer(str(tiny_bert_dir))
    items = [
        Item(("the", "[MASK]", "tipped", "the", "waiter"), 1, "chef", "robin", meta={"k": 0}),
        Item(("a", "robin", "is", "a", "[MASK]"), 4, "bird", "chef", meta={"k": 1}),
        Item(("a", "[MASK]"), 1, "unbelievably", "bird"),
    ]  # multi-piece filler: skipped
    df = score_items(m, tok, items)
    assert len(df) == 2 and df.attrs["skipped"] == 1
    enc = tok(["the", "[MASK]", "tipped", "the", "waiter"], is_split_into_words=True, return_tensors="pt")
    with torch.no_grad():
        lg = m(**enc).logits[0, 2]
    assert df.logit_correct[0] == pytest.approx(float(lg[tok.convert_tokens_to_ids("chef")]), abs=1e-5)
    assert df.correct[0] == (df.margin[0] > 0)
    acc = accuracy_by(df, "k")
    assert list(acc.n) == [1, 1] and "stderr" in acc


def test_needs_a_mask_token(tiny_bert_dir):
    m, tok = load_model(str(tiny_bert_dir), head="mlm"), load_tokenizer(str(tiny_bert_dir))
    tok.mask_token = None
    with pytest.raises(ValueError, match="no mask token"):
        score_items(m, tok, [])


def test_insensitivity_pairs_items_even_when_a_transform_drops_some(tiny_bert_dir):
    from bertology_lib.analysis.cloze import insensitivity

    m, tok = load_model(str(tiny_bert_dir), head="mlm"), load_tokenizer(str(tiny_bert_dir))
    items = [
        Item(("the", "[MASK]", "tipped", "the", "waiter"), 1, "chef", "robin"),
        Item(("a", "robin", "is", "a", "[MASK]"), 4, "bird", "chef"),
    ]
    same = insensitivity(m, tok, items, {"identity": lambda it: it})
    assert same.same_preference[0] == 1.0 and same.n[0] == 2
    drop = insensitivity(m, tok, items, {"drop_first": lambda it: None if it is items[0] else it})
    assert drop.n[0] == 1
