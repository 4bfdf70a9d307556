"""The real-English cloze items (data.english_cloze): balanced designs, cues out of an n-gram's reach, whole fillers."""

from collections import Counter

import pytest

from bertology_lib.data import english_cloze as ec
from bertology_lib.errors import ParameterError


def test_negation_design_is_balanced_so_a_subject_blind_model_scores_one_half():
    items = ec.negation_items()
    aff = [it for it in items if it.meta["condition"] == "affirmative"]
    neg = [it for it in items if it.meta["condition"] == "negated"]
    assert len(aff) == len(neg) == 12 * 4 * 11
    assert Counter(it.correct for it in aff) == Counter(it.incorrect for it in aff)
    # a model with a fixed ranking of the categories (ignoring the subject) is right on exactly half the items
    rank = {c: i for i, c in enumerate(ec.CATEGORIES)}
    assert sum(rank[it.correct] < rank[it.incorrect] for it in aff) == len(aff) / 2
    for a, n in zip(aff, neg):  # each affirmative item has its negated twin, "not" before the slot
        assert a.meta["pair"] == n.meta["pair"] and (a.correct, a.incorrect) == (n.correct, n.incorrect)
        assert n.words[n.mask_index - 1] == "not" and n.words[n.mask_index] == ec.MASK
        assert (
            a.words[a.mask_index] == ec.MASK and a.correct in ec.CATEGORIES and a.words[0] in ec.CATEGORIES[a.correct]
        )


def test_npi_items_differ_only_in_the_determiners_far_from_the_slot():
    items = ec.npi_items(50, seed=3)
    assert len(items) == 150
    by_frame: dict[int, dict[str, ec.EnglishCloze]] = {}
    for it in items:
        by_frame.setdefault(it.meta["frame"], {})[it.meta["condition"]] = it
    for conds in by_frame.values():
        lic, scope, unl = (conds[c] for c in ec.NPI_CONDITIONS)
        assert lic.words[0] == "no" and scope.words[3] == "no" and "no" not in unl.words
        for it in (lic, scope):
            assert it.mask_index - it.words.index("no") >= 4  # outside a two-sided n-gram's window
        for it in (lic, scope, unl):
            assert it.words[it.mask_index] == ec.MASK and (it.correct, it.incorrect) in {
                ("ever", "already"),
                ("any", "some"),
            }
        # the slot's neighbours are the same in the three conditions: adjacent-word statistics cannot tell them apart
        neighbours = {(it.words[it.mask_index - 1], it.words[it.mask_index + 1]) for it in (lic, scope, unl)}
        assert len(neighbours) == 1
    assert ec.npi_items(50, seed=3) == items and ec.npi_items(50, seed=4) != items
    assert len(ec.npi_items(0)) == 3 * len(ec.npi_frames()) == 3 * 3360


@pytest.mark.parametrize("n", [-1, 3361])
def test_npi_items_reject_a_bad_sample_size_naming_it(n):
    with pytest.raises(ParameterError, match="n_frames"):
        ec.npi_items(n)


def test_every_filler_is_one_word_piece_of_the_english_lab_berts_tokenizer():
    from bertology_lib.models import english_bert as eb

    tok = eb.tokenizer_for(eb.EnglishBertConfig.for_profile("smoke"))
    fillers = set(ec.CATEGORIES) | {w for *_, npi, plain in ec.NPI_PHRASES for w in (npi, plain)}
    for w in sorted(fillers):
        ids = tok(w, add_special_tokens=False)["input_ids"]
        assert len(ids) == 1 and ids[0] != tok.unk_token_id, w


def test_role_pairs_hold_the_same_words_with_the_roles_swapped():
    items = ec.role_items()
    assert len(items) == len(ec.ROLE_EVENTS) * len(ec.ROLE_FRAMES)
    for it in items:
        assert sorted(it.canonical) == sorted(it.reversed) and it.canonical != it.reversed
        assert it.canonical[it.mask_index] == it.reversed[it.mask_index] == ec.MASK
        agent, patient, verb = ec.ROLE_EVENTS[it.event]
        assert it.canonical[it.mask_index - 2] == agent and it.reversed[it.mask_index - 2] == patient
        assert it.target == verb and it.canonical[it.mask_index - 1] == "had"


def _role_bert(seed):
    import torch
    from transformers import BertConfig, BertForMaskedLM, BertTokenizerFast

    words = sorted({w for it in ec.role_items() for w in (*it.canonical, it.target)} - {ec.MASK})
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *[w for w in words if w != "served"]]  # one verb split
    tok = BertTokenizerFast(vocab={w: i for i, w in enumerate(vocab)}, do_lower_case=True)
    torch.manual_seed(seed)
    cfg = BertConfig(
        vocab_size=len(vocab),
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=32,
    )
    return BertForMaskedLM(cfg).eval(), tok


def test_role_study_scores_both_contexts_and_leaves_out_split_verbs():
    import numpy as np

    from bertology_lib.experiments.survey import english

    model, tok = _role_bert(0)
    twin, _ = _role_bert(1)
    out = english.role_study(model, twin, tok, seed=0, k=5)
    assert out["n_skipped"] == len(ec.ROLE_FRAMES)  # the waiter's "served" is not in the vocabulary
    assert out["n_pairs"] == len(ec.role_items()) - out["n_skipped"] and out["n_events"] == len(ec.ROLE_EVENTS) - 1
    est, lo, hi = out["sensitivity"]
    assert 0 <= lo <= est <= hi <= 1
    assert set(out["table"].condition) == {"canonical", "reversed"} and len(out["table"]) == 4 * out["n_pairs"]
    same = english.role_study(model, model, tok, seed=0, k=5)
    assert same["knows_events"][0] == 0 and same["sensitivity"] == same["twin_sensitivity"]  # a model against itself
    it = ec.role_items()[0]
    ids = [tok(it.target, add_special_tokens=False)["input_ids"][0]]
    lp, rank = english.masked_target_scores(model, tok, [it.canonical], ids)
    assert lp[0] < 0 and 0 <= rank[0] < len(tok)
    with pytest.raises(ParameterError, match="lack a single \\[MASK\\]"):
        english.masked_target_scores(model, tok, [("the", "man")], ids)
    assert np.isfinite(lp).all()
