"""Tests for the bioS inspection helpers (bertology_lib.experiments.physics.biographies) and their figure."""

from __future__ import annotations

import html
import re
from collections import Counter

import matplotlib

matplotlib.use("Agg")

import pytest

from bertology_lib.experiments.physics import biographies as pdata
from bertology_lib import plots
from bertology_lib.data import bios
from bertology_lib.data.bios import ATTRIBUTES, BioEntry, Person


@pytest.fixture(scope="module")
def datasets():
    return pdata.make_datasets(60, seed=3)


@pytest.fixture(scope="module")
def tokenizer():
    from bertology_lib.experiments.physics.config import bios_tokenizer

    return bios_tokenizer()


def _person(company: str, city: str) -> Person:
    return Person("Anya", "Briar", "Forger", "female", 1996, 10, 2, "Princeton, NJ", "MIT", "Physics", company, city)


def test_resolve_n_people():
    assert pdata.resolve_n_people(0, 500) == 500
    assert pdata.resolve_n_people(7, 500) == 7
    with pytest.raises(ValueError, match="n_people=1"):
        pdata.resolve_n_people(1, 500)


def test_same_people_in_every_augmentation(datasets):
    people = datasets["single"].people
    assert list(datasets) == list(pdata.AUGMENTATIONS)
    assert all(ds.people == people for ds in datasets.values())
    assert len(datasets["multi5+permute"].bios) == 5 * len(people)


def test_word_offsets_match_words(datasets):
    for entry in datasets["multi5+permute"].bios[:50]:
        assert [entry.text[a:b] for a, b in pdata.word_offsets(entry.text)] == bios.words(entry.text)


def test_highlight_html_marks_every_value_and_keeps_the_text(datasets):
    ds = datasets["fullname"]
    for entry in ds.bios[:20]:
        out = pdata.highlight_html(entry)
        assert html.unescape(re.sub(r"<[^>]+>", "", out)) == entry.text  # only markup added
        marked = dict(re.findall(r'<span title="(\w+)"[^>]*>([^<]*)</span>', out))
        p = ds.people[entry.person]
        assert {a: html.unescape(marked[a]) for a in ATTRIBUTES} == {a: p.value(a) for a in ATTRIBUTES}
        assert html.unescape(marked["name"]) == p.full_name


def test_examples_html_has_every_augmentation(datasets):
    ex = pdata.examples_of(datasets, 0, max_copies=2)
    assert [len(v) for v in ex.values()] == [1, 1, 1, 2, 2]
    out = pdata.examples_html(ex)
    for aug in pdata.AUGMENTATIONS:
        assert f"<b>{aug}</b>" in out
    assert out.count("<tr><td") == 7


def test_person_and_qa_tables(datasets):
    ds = datasets["single"]
    p = ds.people[4]
    assert pdata.person_table(p).loc["birth_date", "value"] == p.birth_date
    qa = pdata.qa_table(ds, 4)
    assert list(qa.index) == list(ATTRIBUTES)
    assert list(qa.answer) == [p.value(a) for a in ATTRIBUTES]
    assert all(p.full_name in q for q in qa.question)
    assert qa.attrs["split"] == ("QA-train" if 4 in ds.qa_train else "QA-test")


def test_bio_statistics(datasets, tokenizer):
    stats = pdata.bio_statistics(datasets, tokenizer)
    assert stats.loc["multi5", "biographies"] == 300 and stats.loc["single", "bios per person"] == 1.0
    assert (stats["unknown tokens"] == 0).all()
    # the word-level tokenizer gives one token per words() item: an independent count
    n_words = sum(len(bios.words(t)) for t in datasets["permute1"].texts())
    assert stats.loc["permute1", "tokens total"] == n_words
    assert stats.loc["fullname", "tokens/bio mean"] > stats.loc["single", "tokens/bio mean"]


def test_pool_sizes_match_the_paper():
    pools = pdata.pool_sizes()
    assert pools["match"].all(), pools
    assert pdata.templates_per_attribute().to_dict() == {a: len(bios.TEMPLATES[a]) for a in ATTRIBUTES}


def test_attribute_statistics_against_counter(datasets):
    ds = datasets["single"]
    st = pdata.attribute_statistics(ds)
    for a in ATTRIBUTES:
        counts = Counter(p.value(a) for p in ds.people)
        top = max(counts.values())
        assert st.loc[a, "majority share"] == pytest.approx(top / len(ds.people))
        assert counts[st.loc[a, "majority value"]] == top
        assert st.loc[a, "distinct in data"] == len(counts)
    assert st.loc["birth_date", "possible values"] == 200 * 12 * 28
    # held-out majority: the most common QA-train answer, scored on QA-test
    train = Counter(ds.people[i].company_city for i in ds.qa_train)
    guess = min(train.items(), key=lambda kv: (-kv[1], kv[0]))[0]
    hits = sum(ds.people[i].company_city == guess for i in ds.qa_test) / len(ds.qa_test)
    assert st.loc["company_city", "majority on QA-test"] == pytest.approx(hits)


def test_value_shares_sum_to_one(datasets):
    sh = pdata.value_shares(datasets["single"].people)
    assert sh.groupby("attribute").share.sum().round(9).eq(1.0).all()
    first = sh[sh["rank"] == 1].set_index("attribute").share
    assert sh.groupby("attribute").share.max().sort_index().equals(first.sort_index())


def test_company_city_consistency(datasets):
    assert pdata.company_city_consistency(datasets["single"].people) == 1.0
    people = [_person("Acme", "Boston, MA"), _person("Acme", "Austin, TX"), _person("Zeta", "Boston, MA")]
    assert pdata.company_city_consistency(people) == 0.5


def test_split_sizes(datasets):
    ds = datasets["single"]
    sp = pdata.split_sizes(ds, 0.2)
    n_fit, n_val = (sp.loc[k, "people"] for k in ("  fit (QA-train minus validation)", "  validation"))
    assert n_fit + n_val == sp.loc["QA-train", "people"] == len(ds.qa_train)
    assert sp.loc["QA-train", "people"] + sp.loc["QA-test", "people"] == 60
    assert sp.loc["QA-test", "QA pairs"] == 6 * len(ds.qa_test)


def test_celebrity_summary():
    ds = bios.celebrity_dataset(12, 8, seed=1)
    s = pdata.celebrity_summary(ds)
    assert s.loc["majority", "people"] == 12 and s.loc["minority", "people"] == 8
    assert s.loc["majority", "bios per person"] == 5.0 and s.loc["minority", "bios per person"] == 1.0
    with pytest.raises(ValueError, match="no groups"):
        pdata.celebrity_summary(bios.generate_dataset(bios.BioConfig(10)))


def test_name_distance_both_orders():
    after = BioEntry(
        0,
        0,
        "Anya Briar Forger was born on October 2, 1996.",
        (("name", 0, 3), ("birth_date", 6, 10)),
        (("birth_date", 0),),
    )
    before = BioEntry(
        0,
        0,
        "On October 2, 1996, Anya Briar Forger was born.",
        (("birth_date", 1, 5), ("name", 6, 9)),
        (("birth_date", 0),),
    )
    assert pdata.name_distance(after, "birth_date") == 3
    assert pdata.name_distance(before, "birth_date") == 1


def test_birth_date_position():
    ds = pdata.make_datasets(600, seed=0, augmentations=("single", "permute1"))
    pos = pdata.attribute_position(ds, "birth_date")
    col = "birth_date is the first sentence"
    assert pos.loc["single", col] == 1.0
    assert pos.loc["permute1", col] == pytest.approx(1 / 6, abs=0.05)
    assert pos.loc["single", "words from name (median)"] < pos.loc["permute1", "words from name (median)"]


def test_majority_baselines_figure(datasets):
    ds = datasets["single"]
    fig = plots.majority_baselines(pdata.value_shares(ds.people), pdata.attribute_statistics(ds))
    assert len(fig.axes) == 2
    matplotlib.pyplot.close(fig)
