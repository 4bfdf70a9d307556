"""Downstream tasks: determinism, balance, gold labels and spans, SQuAD 2.0 metrics, configs."""

from __future__ import annotations

import hashlib

import pytest

from bertology_lib.data import tasks as T
from bertology_lib.data.toy_english import NUMERALS, SIZE_ORDER, ToyEnglishConfig, knowledge_base, lexicon
from bertology_lib.errors import ParameterError

from conftest import SHARED_DATA

SMALL = dict(n_train=150, n_dev=60, n_test=60)


@pytest.fixture(scope="module")
def cls_neg():
    return T.toy_classification(**SMALL)


@pytest.fixture(scope="module")
def cls_num():
    return T.toy_classification(label="subject_number", **SMALL)


@pytest.fixture(scope="module")
def nli():
    return T.toy_nli(**SMALL)


@pytest.fixture(scope="module")
def qa():
    return T.toy_qa(n_train=300, n_dev=60, n_test=60)


def _dump(task):
    return {s: [e.to_dict() for e in task.examples(s)] for s in T.SPLITS}


# -- determinism, balance, splits --------------------------------------------------------------


@pytest.mark.parametrize("make", [T.toy_classification, T.toy_nli, T.toy_qa])
def test_tasks_are_deterministic_from_their_seed(make):
    a, b, c = (
        make(n_train=40, n_dev=10, n_test=10),
        make(n_train=40, n_dev=10, n_test=10),
        make(n_train=40, n_dev=10, n_test=10, seed=1),
    )
    assert _dump(a) == _dump(b)
    assert _dump(a) != _dump(c)
    assert a.key() == b.key() != c.key()


def test_labels_are_exactly_balanced_and_splits_disjoint(cls_neg, cls_num, nli, qa):
    for task in (cls_neg, cls_num, nli):
        assert task.sizes() == {"train": 150, "dev": 60, "test": 60}
        for split in T.SPLITS:
            counts = [sum(e.label == y for e in task.examples(split)) for y in range(task.n_labels)]
            assert max(counts) - min(counts) <= 1, (task.name, split, counts)
        texts = [(e.text, e.text_pair) for s in T.SPLITS for e in task.examples(s)]
        assert len(set(texts)) == len(texts)
    for split, n in qa.sizes().items():
        assert sum(not e.answerable for e in qa.examples(split)) == round(n / 3)
    keys = [(e.question, e.context) for s in T.SPLITS for e in qa.examples(s)]
    assert len(set(keys)) == len(keys)
    ids = [e.id for s in T.SPLITS for e in nli.examples(s)]
    assert len(set(ids)) == len(ids)


def test_every_toy_word_is_in_the_mini_bert_vocabulary(cls_neg, nli, qa):
    for task in (cls_neg, nli, qa):
        assert T.task_vocabulary(task) <= T.toy_vocabulary(task)


# -- gold labels ---------------------------------------------------------------------------------


def test_negation_label_is_about_the_main_clause(cls_neg):
    ex = [e for s in T.SPLITS for e in cls_neg.examples(s)]
    for e in ex:
        if e.label == 1:
            assert set(e.text.split()) & {"not", "never", "no"}
    # the cases a bag-of-words rule gets wrong exist: a licensor outside the main clause
    hard = [e for e in ex if e.meta["licensor_elsewhere"]]
    assert hard and all(e.label == 0 for e in hard)


def test_subject_number_label_matches_the_subject_noun(cls_num):
    lex = lexicon(ToyEnglishConfig(n_sentences=1))
    checked = 0
    for s in T.SPLITS:
        for e in cls_num.examples(s):
            words = e.text.split()
            w = words[e.meta["subject_index"]]
            numbers = lex.noun_form_number.get(w, set())
            if len(numbers) == 1 and "and" not in words:  # a coordinated subject is plural
                assert e.label == int(numbers == {"Plur"}), e.text
                checked += 1
    assert checked > 100
    assert any(e.meta["n_attractors"] > 0 for e in cls_num.examples("train"))


def _sentences(words):
    out, cur = [], []
    for w in words:
        cur.append(w)
        if w == ".":
            out.append(cur)
            cur = []
    return out


def test_qa_spans_point_to_the_answer_and_unanswerable_ones_lack_it(qa):
    kb = knowledge_base(0)
    for e in qa.examples("train") + qa.examples("test"):
        q, qt = e.question, e.meta["qtype"]
        # every valid answer according to the knowledge base (world="kb")
        if qt == "city_of_person":
            key, valid = q[3], {kb.lives_in[q[3]]}
        elif qt == "person_in_city":
            key, valid = q[3], {p for p in kb.people if kb.lives_in[p] == q[3]}
        elif qt == "capital":
            key, valid = q[-1], {kb.capital[q[-1]]}
        elif qt == "person_with_job":
            key, valid = q[-1], {p for p in kb.people if kb.occupation[p] == q[-1]}
        elif qt == "owner":
            n = NUMERALS.index(q[2]) + 1
            key, valid = q[3], {p for p in kb.people if kb.owns[p][0] == n}
        elif qt == "bigger":
            key = q[-1]
            valid = set(SIZE_ORDER[SIZE_ORDER.index(key) + 1 :])
        else:
            key = q[-1]
            valid = set(SIZE_ORDER[: SIZE_ORDER.index(key)])
        if e.answerable:
            a, b = e.answer
            span = e.context[a:b]
            assert span[-1] in valid, (q, e.context, span)
            assert len(span) == (2 if qt in ("bigger", "smaller") else 1)
            assert e.answer_text == " ".join(span)
        else:
            assert e.answer_text == ""
            for sent in _sentences(e.context):  # no sentence links the key to a valid answer
                assert not (key in sent and valid & set(sent)), (q, sent)
    assert any(e.meta["near_miss"] for e in qa.examples("train"))


def test_nli_overlap_subset_mixes_labels(nli):
    ex = nli.examples("train")
    for e in ex:
        prem = set(e.text.split())
        hyp = [w for w in e.text_pair.split() if w != "."]
        assert e.meta["overlap"] == pytest.approx(sum(w in prem for w in hyp) / len(hyp), abs=1e-4)
    sub = T.lexical_overlap_subset(ex)
    labels = {T.NLI_LABELS[e.label] for e in sub}
    assert labels == set(T.NLI_LABELS)  # the heuristic "overlap => entailment" is wrong on 2/3 of it
    assert {e.meta["kind"] for e in ex} == set(T.NLI_KINDS)
    for e in ex:
        if e.meta["kind"] == "negation" and e.label != 1:
            assert "not" in e.text_pair.split()


def test_nli_hand_checked_constructions(nli):
    kb = knowledge_base(0)
    for e in nli.examples("train"):
        h = e.text_pair.split()
        if e.meta["kind"] == "conjunction" and e.label == 0:
            assert " ".join(h[:-1]) in e.text  # the hypothesis is one conjunct
        if e.meta["kind"] == "chain" and h[0] in kb.people and e.label == 0:
            assert kb.city_country[kb.lives_in[h[0]]] in h  # lives in the city's country
        if e.meta["kind"] == "paraphrase" and e.label == 2 and h[0] in kb.people and "lives" in h:
            assert kb.lives_in[h[0]] not in h  # a different city than the premise's


# -- metrics ---------------------------------------------------------------------------------------


def test_squad_metrics_against_hand_computed_values():
    assert T.normalize_answer("The  Big, cat!") == "big cat"
    assert T.squad_exact("the cat", "Cat") == 1.0
    assert T.squad_exact("a cat", "cats") == 0.0
    # pred {big, cat, sat} vs gold {cat, sat, down}: P = R = 2/3
    assert T.squad_f1("the big cat sat", "a cat sat down") == pytest.approx(2 / 3)
    assert T.squad_f1("cat cat", "cat") == pytest.approx(2 * 0.5 * 1 / 1.5)
    # no-answer: "" is an answer of its own (SQuAD 2.0)
    assert T.squad_exact("", "") == T.squad_f1("", "") == 1.0
    assert T.squad_f1("Neis", "") == T.squad_f1("", "Neis") == 0.0
    assert T.squad_f1("the", "") == 1.0  # normalises to empty
    m = T.qa_metrics(["Neis", "", "the big dog", "Fliton"], ["Neis", "", "dog", ""])
    assert m["exact"] == pytest.approx(2 / 4)
    assert m["f1"] == pytest.approx((1 + 1 + 2 / 3 + 0) / 4)  # "big dog" vs "dog": P 1/2, R 1 -> 2/3
    assert m["has_ans_exact"] == pytest.approx(1 / 2) and m["has_ans_f1"] == pytest.approx((1 + 2 / 3) / 2)
    assert m["no_ans_exact"] == pytest.approx(1 / 2)
    assert m["no_answer_rate"] == pytest.approx(1 / 4)
    assert (m["n"], m["n_has_ans"], m["n_no_ans"]) == (4, 2, 2)


def test_classification_metrics_hand_computed():
    m = T.classification_metrics([0, 0, 1, 1, 2], [0, 1, 1, 1, 0], 3)
    assert m["accuracy"] == pytest.approx(3 / 5)
    f0 = 2 * 1 / (2 * 1 + 1 + 1)  # tp 1, fp 1, fn 1
    f1 = 2 * 2 / (2 * 2 + 0 + 1)  # tp 2, fp 0, fn 1
    f2 = 0.0  # tp 0, fp 1
    assert m["macro_f1"] == pytest.approx((f0 + f1 + f2) / 3)


# -- Task objects, SST-2, configs -------------------------------------------------------------


def test_task_from_examples_and_frame():
    ex = [T.ClassificationExample(f"x{i}", t, y) for i, (t, y) in enumerate([("a b", 0), ("c d", 1)])]
    t = T.Task.from_examples("mini", {"train": ex, "test": ex[:1]}, ("neg", "pos"))
    assert t.sizes() == {"train": 2, "dev": 0, "test": 1} and not t.is_pair
    assert t.frame("train").label_name.tolist() == ["neg", "pos"]
    t2 = T.Task.from_examples("mini", {"train": ex[::-1]}, ("neg", "pos"))
    assert t.key() != t2.key()
    with pytest.raises(ValueError, match="label_names"):
        T.Task.from_examples("mini", {"train": ex}, ("only",))
    with pytest.raises(ValueError, match="'validation'"):
        T.Task.from_examples("mini", {"validation": ex}, ("neg", "pos"))


@pytest.mark.skipif(not (SHARED_DATA / "sst2" / "dev.tsv").is_file(), reason="no ../shared/data/sst2")
def test_sst2_in_the_task_shape():
    test = T.sst2("test", limit=5, path=SHARED_DATA)
    assert len(test) == 5 and test[0].text == "one long string of cliches ." and test[0].label == 0
    task = T.sst2_task(n_train=50, n_dev=20, n_test=30, path=str(SHARED_DATA))
    assert task.sizes() == {"train": 50, "dev": 20, "test": 30} and task.label_names == ("negative", "positive")
    train_all = {e.text for e in T.sst2("train", path=SHARED_DATA, n_dev=20)}
    assert not {e.text for e in task.examples("dev")} <= train_all  # dev is held out of train
    assert "path" not in task.key()["config"]
    files = {g: hashlib.sha256((SHARED_DATA / "sst2" / f"{g}.tsv").read_bytes()).hexdigest() for g in ("train", "dev")}
    assert task.key()["data"] == {"train_sha256": files["train"], "dev_sha256": files["dev"]}


def _sst2_folder(folder, n_train=30, dev_rows=(("a good film .", 1), ("a bad film .", 0))):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "train.tsv").write_text("sentence\tlabel\n" + "".join(f"phrase {i}\t{i % 2}\n" for i in range(n_train)))
    (folder / "dev.tsv").write_text("label\tcontent\n" + "".join(f"{y}\t{s}\n" for s, y in dev_rows))
    return folder


def test_sst2_key_covers_the_data_files(tmp_path):
    a = _sst2_folder(tmp_path / "a")
    b = _sst2_folder(tmp_path / "b")
    c = _sst2_folder(tmp_path / "c", dev_rows=(("a good film .", 1), ("a dull film .", 0)))
    ka, kb, kc = (T.sst2_task(n_dev=5, path=str(p)).key() for p in (a, b, c))
    assert ka == kb  # same content, another folder: same key
    assert ka != kc and ka["data"]["train_sha256"] == kc["data"]["train_sha256"]  # another dev file
    task = T.sst2_task(n_dev=5, path=str(c))
    assert task.sizes() == {"train": 25, "dev": 5, "test": 2}
    assert [e.text for e in task.examples("test")] == ["a good film .", "a dull film ."]


def test_sst2_task_never_trains_and_tests_on_one_file(tmp_path):
    folder = _sst2_folder(tmp_path / "sst")
    for f in ("train.tsv", "dev.tsv"):
        with pytest.raises(ParameterError, match="single file.*folder holding train.tsv and dev.tsv"):
            T.sst2_task(path=str(folder / f))
    (tmp_path / "only").mkdir()
    (tmp_path / "only" / "dev.tsv").write_text((folder / "dev.tsv").read_text())
    with pytest.raises(FileNotFoundError, match="holds no sst2/train.tsv"):
        T.sst2_task(path=str(tmp_path / "only")).examples("train")


@pytest.mark.parametrize(
    "make, kw, match",
    [
        (T.toy_classification, {"n_train": 0}, "n_train=0"),
        (T.toy_classification, {"label": "tense"}, "label='tense'"),
        (T.toy_classification, {"seed": -1}, "seed=-1"),
        (T.toy_nli, {"kinds": ("hans",)}, "kinds=\\['hans'\\]"),
        (T.toy_nli, {"kinds": 3}, "kinds=3"),
        (T.toy_nli, {"world": "mars"}, "world='mars'"),
        (T.toy_qa, {"p_unanswerable": 1.5}, "p_unanswerable=1.5"),
        (T.toy_qa, {"qtypes": ()}, "qtypes=\\[\\]"),
        (T.toy_qa, {"n_facts": 0}, "n_facts=0"),
        (T.toy_qa, {"vocab_size": 10}, "vocab_size=10"),
        (T.sst2_task, {"n_dev": -1}, "n_dev=-1"),
        (T.toy_qa, {"n_questions": 5}, "n_questions=5 is not a QAConfig field"),
        (T.toy_nli, {"config": T.QAConfig()}, "is not a NLIConfig"),
    ],
)
def test_bad_config_values_raise_naming_the_value(make, kw, match):
    with pytest.raises(ParameterError, match=match):
        make(**kw)


def test_bad_split_and_task_names():
    with pytest.raises(ValueError, match="split='validation'"):
        T.toy_nli(n_train=3, n_dev=0, n_test=0).examples("validation")
    with pytest.raises(ValueError, match="task='squad'"):
        T.get_task("squad")
    with pytest.raises(ValueError, match="limit=0"):
        T.sst2("test", limit=0)
    assert T.get_task("toy_qa", n_train=5, n_dev=1, n_test=1).sizes()["train"] == 5
