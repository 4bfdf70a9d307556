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
