"""Toy-English evaluation suites (``bertology_lib.data.suites``): the one ``make_suite``, item
well-formedness, NPI licensing, role reversal and numbers.

Agreement and selectional-preference items are checked against the corpus in test_toy_english.py.
"""

from __future__ import annotations

import subprocess
import sys
from collections import Counter

import pytest

from bertology_lib.data import suites as toy_suites
from bertology_lib.data import toy_english as te
from bertology_lib.errors import ParameterError


@pytest.fixture(scope="module")
def suites():
    cfg = te.ToyEnglishConfig(n_sentences=20_000, seed=0)
    return {name: toy_suites.make_suite(name, cfg) for name in te.SUITES}


def test_make_suite_lives_only_in_suites_and_validates():
    assert not hasattr(te, "make_suite")  # one place: toy_english never imports the suites (no cycle)
    cfg = te.ToyEnglishConfig(n_sentences=5, seed=1)
    with pytest.raises(ParameterError, match="agreement") as err:
        toy_suites.make_suite("nope", cfg)
    assert "'nope'" in str(err.value) and all(n in str(err.value) for n in te.SUITES)
    with pytest.raises(ParameterError, match="n_items=0"):
        toy_suites.make_suite("npi", cfg, 0)
    with pytest.raises(ParameterError, match="config=5"):
        toy_suites.make_suite("npi", 5)
    assert set(toy_suites.SUITE_BUILDERS) == set(te.SUITES)


def test_toy_english_imports_without_the_suites():
    code = (
        "import sys, bertology_lib.data.toy_english; "
        "assert 'bertology_lib.data.suites' not in sys.modules, sorted(sys.modules)"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_npi_suite(suites):
    items = suites["npi"]
    assert len(items) >= 200
    conds = Counter(it.meta["condition"] for it in items)
    assert conds["licensed"] and conds["unlicensed"] and conds["scope"]
    for it in items:
        words = set(it.words)
        if it.meta["licensed"]:
            assert it.correct in te.NPIS and it.incorrect in te.PPIS
            assert words & set(te.LICENSORS), it.text
        else:
            assert it.correct in te.PPIS and it.incorrect in te.NPIS
            if it.meta["condition"] == "unlicensed":
                assert not words & set(te.LICENSORS), it.text
            else:  # scope: the licensor sits inside a relative clause
                s = it.sentence
                for j in it.sentence.meta["licensors"]:
                    k = j
                    while s.heads[k] and s.deprels[k] != "acl:relcl":
                        k = s.heads[k] - 1
                    assert s.deprels[k] == "acl:relcl", it.text


def test_suite_items_well_formed(suites):
    for name, items in suites.items():
        assert len(items) >= 200, name
        for it in items:
            assert it.suite == name
            assert it.words.count(te.MASK) == 1 and it.words[it.mask_index] == te.MASK
            assert it.correct != it.incorrect
            assert it.sentence.words == it.filled(it.correct)
            # no article leak: the masked word never follows a/an
            assert (
                it.mask_index == 0
                or it.words[it.mask_index - 1] not in ("a", "an")
                or (it.correct[0] in "aeiou") == (it.incorrect[0] in "aeiou")
            )


def test_role_reversal_pairs(suites):
    items = suites["role_reversal"]
    by_pair = {}
    for it in items:
        by_pair.setdefault(it.meta["pair_id"], []).append(it)
    full = [p for p in by_pair.values() if len(p) == 2]
    assert len(full) >= 100
    for a, b in full:
        assert a.correct == b.incorrect and a.incorrect == b.correct
        assert sorted(a.words) == sorted(b.words)  # same words, roles swapped
        assert a.meta["agent"] == b.meta["patient"]


def test_numbers_suite(suites):
    items = suites["numbers"]
    kinds = Counter(it.meta["kind"] for it in items)
    assert set(kinds) == {"numeral_noun", "numeral_verb", "quantity_fact"}
    assert any(it.meta.get("invariant_noun") for it in items)
    for it in items:
        if it.meta["kind"] == "numeral_noun":
            assert it.words[it.mask_index - 1] == it.meta["numeral"]


def test_wording_items_ask_every_fact_in_every_template_against_one_false_object():
    import random

    from bertology_lib.data.suites.knowledge import WORDING_RELATIONS, wording_items

    cfg = te.ToyEnglishConfig(n_sentences=5, seed=0)
    items = wording_items(te.Builder(cfg, random.Random(0)))
    kb = te.knowledge_base(0)
    facts = [f for f in kb.stated_facts() if f.relation in WORDING_RELATIONS]
    assert len(items) == sum(te.N_TEMPLATES[f.relation] for f in facts)
    by_fact: dict = {}
    for it in items:
        assert it.words[it.mask_index] == te.MASK and it.correct != it.incorrect
        assert it.correct == it.meta["fact"][2] or it.meta["relation"] == "owns"  # owns: the animal's number form
        by_fact.setdefault(it.meta["fact"], []).append(it)
    for fact, its in by_fact.items():
        assert sorted(it.meta["template"] for it in its) == list(range(te.N_TEMPLATES[fact[0]]))
        assert len({(it.correct, it.incorrect) for it in its}) == 1  # the same query in every wording
        assert len({it.words for it in its}) == len(its)  # ... in different words
    assert {it.meta["relation"] for it in items} == set(WORDING_RELATIONS)
    with pytest.raises(ParameterError, match="smaller_than"):
        wording_items(te.Builder(cfg, random.Random(0)), ("lives_in", "smaller_than"))
