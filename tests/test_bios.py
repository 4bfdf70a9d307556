"""Tests for the bioS synthetic-biography generator (bertology_lib.data.bios)."""

from __future__ import annotations

import random
import re
from collections import Counter

import numpy as np
import pytest

from bertology_lib.data import bios

from bertology_lib.data.bios import (
    ATTRIBUTES,
    BioConfig,
    Person,
    celebrity_dataset,
    exact_match,
    generate_dataset,
    majority_baseline,
    qa_accuracy,
    vocabulary,
    words,
)
from bertology_lib.errors import ParameterError

PRONOUNS = {"he", "she", "his", "her", "him", "hers", "himself", "herself"}
SENT_RE = re.compile(r"(?<=\.) (?=[A-Z])")


def _gen(aug: str = "single", n: int = 60, seed: int = 0, **kw) -> bios.BioDataset:
    return generate_dataset(BioConfig.from_augmentation(aug, n_people=n, seed=seed, **kw))


def _signature(ds: bios.BioDataset) -> tuple:
    return (
        ds.people,
        tuple((b.person, b.copy, b.text, b.spans, b.sentence_starts) for b in ds.bios),
        ds.qa_train,
        ds.qa_test,
    )


def _neutral(sentence: str, p: Person) -> str:
    """Sentence with the subject (name or pronoun) replaced by a marker, to compare template sets."""
    s = sentence.replace(p.full_name + "'s", "<P>").replace(p.full_name, "<S>")
    return re.sub(r"\b(He|She|he|she)\b", "<S>", re.sub(r"\b(His|Her|his|her)\b", "<P>", s)).lower()


def test_pools_and_templates() -> None:
    assert (len(bios.FIRST_NAMES), len(bios.MIDDLE_NAMES), len(bios.LAST_NAMES)) == (400, 400, 1000)
    for pool in (bios.FIRST_NAMES, bios.MIDDLE_NAMES, bios.LAST_NAMES):
        assert len(set(pool)) == len(pool) and all(re.fullmatch(r"[A-Z][a-z]+", n) for n in pool)
    assert (len(bios.CITIES), len(bios.UNIVERSITIES), len(bios.MAJORS), len(bios.COMPANIES)) == (200, 300, 100, 263)
    for pool in (bios.CITIES, bios.UNIVERSITIES, bios.MAJORS, bios.COMPANIES):
        assert len(set(pool)) == len(pool)
    assert set(bios.COMPANY_CITY) == set(bios.COMPANIES) and set(bios.COMPANY_CITY.values()) <= set(bios.CITIES)
    for a in ATTRIBUTES:
        assert len(set(bios.TEMPLATES[a])) >= 20, a
    assert set(bios.QA_TEMPLATES) == set(ATTRIBUTES)
    with pytest.raises(ParameterError):
        bios.compile_template("{S} was born on{v}.")  # placeholder glued to a word would break word spans


def test_determinism() -> None:
    a, b = _gen("multi2+permute", seed=3), _gen("multi2+permute", seed=3)
    assert _signature(a) == _signature(b)
    c = _gen("multi2+permute", seed=4)
    assert a.people != c.people and [x.text for x in a.bios] != [x.text for x in c.bios]
    assert a.qa_train != c.qa_train


def test_global_rng_untouched() -> None:
    random.seed(123)
    np.random.seed(123)
    py_state, np_state = random.getstate(), np.random.get_state()
    _gen("multi3+fullname+permute2", n=40)
    celebrity_dataset(20, 10, seed=1).split_validation(0.2)
    assert random.getstate() == py_state
    after = np.random.get_state()
    assert after[0] == np_state[0] and np.array_equal(after[1], np_state[1]) and after[2:] == np_state[2:]


def test_people_unique_and_in_range() -> None:
    ds = _gen(n=2000, seed=7)
    names = [p.full_name for p in ds.people]
    assert len(set(names)) == len(names)
    for p in ds.people:
        assert 1900 <= p.birth_year <= 2099 and 1 <= p.birth_month <= 12 and 1 <= p.birth_day <= 28
        assert p.gender in ("male", "female")
        assert p.birth_city in bios.CITIES and p.university in bios.UNIVERSITIES and p.major in bios.MAJORS
        assert p.company_city == bios.COMPANY_CITY[p.company_name]
    # company city is a function of the company
    seen: dict[str, str] = {}
    for p in ds.people:
        assert seen.setdefault(p.company_name, p.company_city) == p.company_city
    years = [p.birth_year for p in ds.people]
    assert min(years) < 1920 and max(years) > 2080
    assert (
        ds.people[0].birth_date == f"{bios.MONTHS[ds.people[0].birth_month - 1]} "
        f"{ds.people[0].birth_day}, {ds.people[0].birth_year}"
    )


def test_same_people_across_augmentations() -> None:
    base = _gen("single", n=80, seed=5)
    for aug in ("fullname", "permute1", "permute5", "multi5", "multi5+permute", "multi5+fullname+permute"):
        ds = _gen(aug, n=80, seed=5)
        assert ds.people == base.people, aug
        assert (ds.qa_train, ds.qa_test) == (base.qa_train, base.qa_test), aug
    assert celebrity_dataset(60, 20, seed=5).people == base.people


def test_single_structure_and_global_shuffle() -> None:
    ds = _gen("single", n=300)
    assert len(ds.bios) == 300 and sorted(b.person for b in ds.bios) == list(range(300))
    for b in ds.bios[:50]:
        p = ds.people[b.person]
        assert p.full_name in SENT_RE.split(b.text)[0]  # name in the first sentence, pronouns after
        assert b.text.count(p.full_name) == 1
        assert [a for a, _ in b.sentence_starts] == list(ATTRIBUTES)
    assert [b.person for b in ds.bios] != list(range(300))  # globally shuffled
    unshuffled = generate_dataset(BioConfig(n_people=30, multi=3, shuffle=False))
    assert [b.person for b in unshuffled.bios] == [i // 3 for i in range(90)]
    shuffled = _gen("multi3", n=30)
    assert [b.person for b in shuffled.bios] != [i // 3 for i in range(90)]


def test_multi_copies_distinct() -> None:
    ds = _gen("multi5", n=50)
    assert len(ds.bios) == 250
    counts = Counter(b.person for b in ds.bios)
    assert set(counts.values()) == {5}
    for i in range(50):
        entries = ds.bios_of(i)
        assert [e.copy for e in entries] == list(range(5))
        assert len({e.text for e in entries}) == 5
        assert all([a for a, _ in e.sentence_starts] == list(ATTRIBUTES) for e in entries)  # no permute
    rows = bios.distinct_rows(np.random.default_rng(0), 4, [2, 2])  # collision fallback
    assert len({tuple(r) for r in rows.tolist()}) == 4


def test_permute_keeps_sentence_set() -> None:
    single, perm = _gen("single", n=100, seed=2), _gen("permute1", n=100, seed=2)
    changed = 0
    for i in range(100):
        (s,), (q,) = single.bios_of(i), perm.bios_of(i)
        p = single.people[i]
        s_sent, q_sent = SENT_RE.split(s.text), SENT_RE.split(q.text)
        assert len(s_sent) == len(q_sent) == 6
        assert sorted(_neutral(x, p) for x in s_sent) == sorted(_neutral(x, p) for x in q_sent)
        assert q.text.count(p.full_name) == 1 and q_sent[0].count(p.full_name) == 1  # name in first sentence
        order = [a for a, _ in q.sentence_starts]
        assert sorted(order) == sorted(ATTRIBUTES)
        changed += order != list(ATTRIBUTES)
    assert changed >= 95
    # fullname+permute: exactly the same sentences, reordered
    f, fp = _gen("fullname", n=20, seed=2), _gen("fullname+permute", n=20, seed=2)
    for i in range(20):
        assert sorted(SENT_RE.split(f.bios_of(i)[0].text)) == sorted(SENT_RE.split(fp.bios_of(i)[0].text))


def test_permute_k_and_multi_permute() -> None:
    ds = _gen("permute5", n=30)
    for i in range(30):
        entries = ds.bios_of(i)
        assert len(entries) == 5
        assert len({tuple(a for a, _ in e.sentence_starts) for e in entries}) == 5  # distinct orders
    mp = _gen("multi5+permute", n=30)
    assert len(mp.bios) == 150 and len({b.text for b in mp.bios}) == 150


def test_fullname_has_no_pronouns() -> None:
    ds = _gen("multi2+fullname+permute", n=100)
    for b in ds.bios:
        p = ds.people[b.person]
        assert not PRONOUNS & {w.lower() for w in words(b.text)}
        assert b.text.count(p.full_name) == 6
        assert sum(1 for lab, _, _ in b.spans if lab == "name") == 6
    plain = _gen("single", n=50)
    assert all(PRONOUNS & {w.lower() for w in words(b.text)} for b in plain.bios)


@pytest.mark.parametrize("aug", ["single", "multi3+permute", "fullname+permute2", "permute1"])
def test_spans_point_to_values(aug: str) -> None:
    ds = _gen(aug, n=80)
    for b in ds.bios:
        p = ds.people[b.person]
        w = words(b.text)
        labels = [lab for lab, _, _ in b.spans]
        assert sorted(set(labels) - {"name"}) == sorted(ATTRIBUTES)
        for lab, s, e in b.spans:
            expected = p.full_name if lab == "name" else p.value(lab)
            assert w[s:e] == words(expected), (lab, b.text)
        assert [s for _, s, _ in b.spans] == sorted(s for _, s, _ in b.spans)  # text order
        starts = [s for _, s in b.sentence_starts]
        assert starts[0] == 0 and starts == sorted(starts)
        for (a, st), nxt in zip(b.sentence_starts, starts[1:] + [len(w)]):
            s, e = b.span(a)
            assert st <= s < e <= nxt  # value lies inside its own sentence
            assert w[nxt - 1] == "."


def test_qa_split_and_validation() -> None:
    ds = _gen(n=101, seed=9)
    tr, te = set(ds.qa_train), set(ds.qa_test)
    assert len(tr) == 50 and len(te) == 51 and not tr & te and tr | te == set(range(101))
    ds2 = _gen(n=1000, seed=9)
    assert len(ds2.qa_train) == len(ds2.qa_test) == 500
    fit, val = ds2.split_validation(0.1)
    assert len(val) == 50 and len(fit) == 450
    assert set(fit) | set(val) == set(ds2.qa_train) and not set(fit) & set(val)
    assert not set(val) & set(ds2.qa_test)
    assert ds2.split_validation(0.1) == (fit, val)  # deterministic
    assert ds2.split_people("val") == val and ds2.split_people("fit") == fit
    pairs = ds2.qa_pairs("test")
    assert len(pairs) == 6 * 500 and {q.person for q in pairs} == set(ds2.qa_test)
    with pytest.raises(ParameterError, match="nope"):
        ds2.qa_pairs("nope")
    with pytest.raises(ParameterError, match="1.5"):
        ds2.split_validation(1.5)


def test_qa_format_and_accuracy() -> None:
    p = Person(
        "Anya",
        "Briar",
        "Forger",
        "female",
        1996,
        10,
        2,
        "Princeton, NJ",
        "Massachusetts Institute of Technology",
        "Communications",
        "Meta Platforms",
        "Menlo Park, CA",
    )
    ds = _gen(n=10)
    q, a = ds.qa(p, "birth_date")
    assert f"{q} {a}." == "What is the birth date of Anya Briar Forger? Answer: October 2, 1996."
    assert ds.qa(p, "company_city") == ("Where did Anya Briar Forger work? Answer:", "Menlo Park, CA")
    assert exact_match("  October 2,\n1996. ", "October 2, 1996")
    assert not exact_match("October 2, 1997", "October 2, 1996")
    pairs = ds.qa_pairs("all")
    preds = [x.answer if x.attribute != "major" else "wrong" for x in pairs]
    acc = qa_accuracy(pairs, preds)
    assert acc["major"] == 0.0 and acc["birth_city"] == 1.0 and acc["overall"] == pytest.approx(5 / 6)
    assert pairs[0].text.endswith(f"Answer: {pairs[0].answer}.")
    with pytest.raises(ParameterError, match="colour"):
        ds.qa(0, "colour")


def test_majority_baseline_hand_made() -> None:
    def mk(city: str, company: str, company_city: str, major: str = "Physics") -> Person:
        return Person("A", "B", "C", "male", 2000, 1, 1, city, "Rice University", major, company, company_city)

    people = [
        mk("Boston, MA", "Acme", "Austin, TX"),
        mk("Boston, MA", "Acme", "Austin, TX", "Music"),
        mk("Denver, CO", "Beta", "Denver, CO", "Music"),
        mk("Denver, CO", "Gamma", "Denver, CO", "Music"),
        mk("Boston, MA", "Delta", "Denver, CO"),
    ]
    base = majority_baseline(people)
    assert base["birth_city"] == ("Boston, MA", 0.6)
    assert base["major"] == ("Music", 0.6)
    assert base["company_name"] == ("Acme", 0.4)  # most frequent company
    assert base["company_city"] == ("Denver, CO", 0.6)  # three companies in Denver outweigh Acme's two people
    assert base["university"] == ("Rice University", 1.0)
    assert base["birth_date"] == ("January 1, 2000", 1.0)


def test_config_validation_messages() -> None:
    for kwargs, bad in [
        ({"n_people": 0}, "n_people=0"),
        ({"n_people": 10, "multi": 0}, "multi=0"),
        ({"n_people": 10, "permute": 721}, "permute=721"),
        ({"n_people": 10, "seed": -1}, "seed=-1"),
        ({"n_people": 10**9}, "n_people=1000000000"),
        ({"n_people": 10, "n_minority": 10}, "n_minority=10"),
        ({"n_people": 2.5}, "n_people=2.5"),
        ({"n_people": 10, "fullname": 1}, "fullname=1"),
    ]:
        with pytest.raises(ParameterError, match=re.escape(bad)) as err:
            BioConfig(**kwargs)
        assert "allowed" in str(err.value)
    for name in ("multi", "permutex", "multi5+multi2", "single+multi5", "fullname2", "bogus", ""):
        with pytest.raises(ParameterError, match="allowed") as err:
            BioConfig.from_augmentation(name, n_people=10)
        assert repr(name) in str(err.value)
    with pytest.raises(ParameterError, match="n_people=0"):
        BioConfig.from_augmentation("single", n_people=0)


def test_augmentation_parsing_and_cache_key() -> None:
    cases = {
        "single": (1, 0, False),
        "fullname": (1, 0, True),
        "permute1": (1, 1, False),
        "permute": (1, 1, False),
        "permute5": (1, 5, False),
        "multi5": (5, 0, False),
        "multi5+permute": (5, 1, False),
        "multi5+fullname+permute": (5, 1, True),
        "Single+Permute1": (1, 1, False),
    }
    for name, (m, k, f) in cases.items():
        c = BioConfig.from_augmentation(name, n_people=10, seed=1)
        assert (c.multi, c.permute, c.fullname, c.seed, c.n_people) == (m, k, f, 1, 10), name
    c = BioConfig.from_augmentation("multi5+fullname+permute", 10)
    assert c.augmentation == "multi5+fullname+permute1"
    assert BioConfig.from_augmentation(c.augmentation, 10) == c
    d = c.to_dict()
    assert d["multi"] == 5 and "generator_version" in d
    assert c.cache_key() == BioConfig(10, multi=5, permute=1, fullname=True).cache_key() != BioConfig(10).cache_key()


def test_celebrity_dataset() -> None:
    ds = celebrity_dataset(40, 20, seed=1)
    counts = Counter(b.person for b in ds.bios)
    assert all(counts[i] == 5 for i in range(40)) and all(counts[i] == 1 for i in range(40, 60))
    assert ds.qa_train == ds.groups["majority"] == tuple(range(40))
    assert ds.qa_test == ds.groups["minority"] == tuple(range(40, 60))
    assert len({b.text for b in ds.bios if b.person < 40}) == 200
    fit, val = ds.split_validation(0.25)
    assert set(val) <= set(range(40))


def test_vocabulary_covers_everything() -> None:
    vocab = vocabulary(None)
    assert vocab == sorted(set(vocab))
    vs = set(vocab)
    for aug in ("multi2+permute", "fullname"):
        ds = _gen(aug, n=300, seed=11)
        assert vocabulary(ds) == vocab
        for b in ds.bios:
            assert set(words(b.text)) <= vs
        for q in ds.qa_pairs("all"):
            assert set(words(q.text)) <= vs
    # covers pools, not only the sampled people
    assert set(bios.LAST_NAMES) <= vs and {"1900", "2099", "28"} <= vs and "29" not in vs


def test_pack_sequences() -> None:
    from bertology_lib.training.objectives import pack_sequences

    assert not hasattr(bios, "pack_sequences")  # one home: the training objectives
    packed = pack_sequences([[1, 2], [3], [4, 5, 6]], seq_len=3, eos_id=0)
    assert packed == [[1, 2, 0], [3, 0, 4], [5, 6, 0]]
    with pytest.raises(ValueError, match="seq_len=0"):
        pack_sequences([[1]], 0, 0)


@pytest.mark.slow  # ~2.5 s on 2 CPU cores
def test_full_scale_generation_gives_distinct_people() -> None:
    ds = generate_dataset(BioConfig(n_people=100_000, seed=0))
    assert len(ds.people) == len(ds.bios) == 100_000
    assert len({p.full_name for p in ds.people}) == 100_000


def test_people_per_value_shrinks_the_pools_and_is_in_every_key() -> None:
    paper = BioConfig(300, seed=2)
    assert paper.key()["people_per_value"] == 0  # every field in the key, at any value
    assert paper.pool_sizes() == {
        "birth_city": len(bios.CITIES),
        "university": len(bios.UNIVERSITIES),
        "major": len(bios.MAJORS),
        "company_name": len(bios.COMPANIES),
    }
    scaled = BioConfig(300, seed=2, people_per_value=10)
    assert scaled.cache_key() != paper.cache_key()
    assert set(scaled.pool_sizes().values()) == {30}
    ds, ds_paper = generate_dataset(scaled), generate_dataset(paper)
    pools = scaled.value_pools()
    for a in ("birth_city", "university", "major", "company_name", "company_city"):
        values = {getattr(p, a) for p in ds.people}
        assert values <= set(pools[a]), a
        assert len({getattr(p, a) for p in ds_paper.people}) > len(values), a
    assert [p.full_name for p in ds.people] == [p.full_name for p in ds_paper.people]  # same people, fewer values
    assert BioConfig(3, people_per_value=10).pool_sizes()["major"] == 2  # at least two values
    assert BioConfig(10**5, people_per_value=1).pool_sizes()["university"] == len(bios.UNIVERSITIES)  # at most the pool
    with pytest.raises(ParameterError, match="people_per_value"):
        BioConfig(10, people_per_value=-1)
