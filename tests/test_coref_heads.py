"""The gender coreference test (data.suites.coreference) and its head scores (analysis.coref_heads)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from bertology_lib.analysis import coref_heads as ch
from bertology_lib.analysis.attention_norms import AttentionMaps, attention_maps
from bertology_lib.data.suites.coreference import (
    FEMALE_NAMES,
    MALE_NAMES,
    PRONOUNS,
    TEMPLATES,
    CorefItem,
    coreference_items,
    nearest_mention_accuracy,
)
from bertology_lib.errors import ParameterError


@pytest.fixture(scope="module")
def minilm():
    from bertology_lib.models.registry import load_model, load_tokenizer

    return load_model("minilm"), load_tokenizer("minilm")


def _gender(word: str) -> str:
    return "m" if word in MALE_NAMES else "f"


def test_items_are_balanced_deterministic_and_decided_by_gender():
    items = coreference_items(200, seed=3)
    assert items == coreference_items(200, seed=3) and items != coreference_items(200, seed=4)
    assert nearest_mention_accuracy(items) == 0.5
    assert nearest_mention_accuracy(items[:100]) == nearest_mention_accuracy(items[100:]) == 0.5
    assert sum(it.antecedent_first for it in items) == 100
    assert {it.template for it in items} == set(range(len(TEMPLATES)))
    for it in items:
        ante, other, pron = it.words[it.antecedent], it.words[it.other], it.words[it.pronoun]
        assert {ante, other} <= set(MALE_NAMES) | set(FEMALE_NAMES) and _gender(ante) != _gender(other)
        assert pron in {f[_gender(ante)] for f in PRONOUNS.values()}
        assert pron not in {f[_gender(other)] for f in PRONOUNS.values()}  # only the antecedent fits
        assert it.antecedent < it.pronoun and it.other < it.pronoun and it.words[-1] == "."
        assert it.nearest_mention() == max(it.antecedent, it.other)
    males = sum(_gender(it.words[it.antecedent]) == "m" for it in items)
    assert males == 100


@pytest.mark.parametrize("n", [0, 1, 3, -2, 2.0, True])
def test_bad_n_is_refused_with_its_value(n):
    with pytest.raises(ParameterError, match=rf"n={n!r}.*even int >= 2"):
        coreference_items(n)


def test_bad_arguments_of_the_scores():
    items = coreference_items(4)
    with pytest.raises(ParameterError, match="seed=-1"):
        coreference_items(4, seed=-1)
    with pytest.raises(ParameterError, match="items is empty"):
        nearest_mention_accuracy([])
    with pytest.raises(ParameterError, match="shape"):
        ch.best_head_heldout(np.zeros((4, 2)), [0, 1], [2, 3], items=items)
    with pytest.raises(ParameterError, match="test has 1 indices"):
        ch.best_head_heldout(np.zeros((4, 1, 2), bool), [0, 1], [3], items=items)
    with pytest.raises(ParameterError, match="0..3"):
        ch.coref_gap(np.zeros((4, 1, 2)), np.zeros((4, 1, 2)), items, [0, 1], [2, 4])


def test_every_name_is_one_wordpiece_of_minilm(minilm):
    _, tok = minilm
    for name in MALE_NAMES + FEMALE_NAMES:
        assert tok.tokenize(name) == [name.lower()], name
    for forms in PRONOUNS.values():
        for p in forms.values():
            assert tok.tokenize(p) == [p]


def _hand_maps(items: list[CorefItem], tok, rows) -> AttentionMaps:
    """One layer whose head ``h`` puts, from the pronoun, the weights ``rows[h](item, word_ids)`` (T,)."""
    layer, tokens = [], []
    for it in items:
        wid = ch.word_ids(tok, it.words)
        T = len(wid)
        a = torch.full((len(rows), T, T), 1.0 / T)
        for h, row in enumerate(rows):
            a[h, wid.index(it.pronoun)] = torch.as_tensor(row(it, wid), dtype=torch.float)
        layer.append(a)
        tokens.append(tok.convert_ids_to_tokens(tok(it.words, is_split_into_words=True)["input_ids"]))
    return AttentionMaps(weights=[layer], value_norms=None, tokens=tokens)


def _onto(word: int, T_wid, share: float = 1.0, cls: float = 0.0) -> np.ndarray:
    r = np.zeros(len(T_wid))
    r[T_wid.index(word)] = share
    r[0] = cls
    return r


def test_hand_made_heads_score_one_and_one_half(minilm):
    _, tok = minilm
    items = coreference_items(40, seed=1)
    rows = [
        lambda it, w: _onto(it.antecedent, w),  # the coreference head
        lambda it, w: _onto(it.nearest_mention(), w),  # the nearest name
        lambda it, w: _onto(it.antecedent, w, 0.3, cls=0.7),
    ]  # mostly [CLS], which is not a word
    correct = ch.head_correct(_hand_maps(items, tok, rows), items, tok)
    assert correct.shape == (40, 1, 3)
    assert correct[:, 0].mean(0).tolist() == [1.0, 0.5, 1.0]
    r = ch.best_head_heldout(correct, range(20), range(20, 40), items=items)
    assert (r["layer"], r["head"], r["accuracy"], r["baseline"], r["gap"]) == (0, 0, 1.0, 0.5, 0.5)
    assert r["gap_low"] > 0 and r["low"] == r["high"] == 1.0
    worse = correct.copy()
    worse[:, :, [0, 2]] = worse[:, :, [1]]  # no head beats the nearest mention: the gap is 0 exactly
    g = ch.coref_gap(worse, correct[:, :, [1]], items, range(20), range(20, 40))
    assert g["baseline"] == "nearest mention" and g["gap"] == 0.0
    g = ch.coref_gap(correct[:, :, [1]], correct, items, range(20), range(20, 40))  # the twin has the head
    assert g["baseline"] == "twin head 0-0" and g["gap"] == -0.5 and g["high"] < 0


def test_attention_to_a_word_sums_its_subwords(minilm):
    _, tok = minilm
    it = CorefItem(["John", "met", "Mary", "and", "she", "saw", "a", "flibbertigibbet", "."], 4, 2, 0)
    wid = ch.word_ids(tok, it.words)
    pieces = [i for i, w in enumerate(wid) if w == 7]
    assert len(pieces) >= 3

    def spread(item, w):  # 0.3 on the antecedent, but more on the long word's pieces together
        r = _onto(item.antecedent, w, 0.3)
        r[pieces] = 0.7 / len(pieces)
        return r

    correct = ch.head_correct(_hand_maps([it], tok, [spread, lambda item, w: _onto(item.antecedent, w)]), [it], tok)
    assert correct[0, 0].tolist() == [False, True]
    with pytest.raises(ParameterError, match="1 attention maps for 2 items"):
        ch.head_correct(_hand_maps([it], tok, [spread]), [it, it], tok)


def test_random_init_twin_has_no_coreference_head_and_minilm_beats_it(minilm):
    from bertology_lib.models.baselines import random_init_like

    model, tok = minilm
    items = coreference_items(80, seed=0)
    words = [it.words for it in items]
    twin = ch.head_correct(attention_maps(random_init_like(model), tok, words, with_norms=False), items, tok)
    r = ch.best_head_heldout(twin[:40], range(20), range(20, 40), items=items[:40])  # 40 items, as a notebook
    assert r["accuracy"] <= 0.6 and r["gap_low"] < 0  # no gain over the nearest mention (50%)
    real = ch.head_correct(attention_maps(model, tok, words, with_norms=False), items, tok)
    g = ch.coref_gap(real, twin, items, range(40), range(40, 80))  # MiniLM: layer 1 head 3, about 0.85
    assert g["baseline"] == "nearest mention" and g["low"] > 0 and g["accuracy"] >= 0.75
