import pytest

from bertology_lib.data import real
from bertology_lib.errors import ParameterError
from conftest import SHARED_DATA

needs_shared = pytest.mark.skipif(not SHARED_DATA.is_dir(), reason="../shared/data not present")


@needs_shared
def test_ud_ewt_dev_from_shared_data():
    sents = real.load_ud_ewt("dev", path=SHARED_DATA)
    assert len(sents) == 2001
    s = sents[0]
    assert s.words[:3] == ("From", "the", "AP") and s.upos[0] == "ADP"
    assert sum(h == 0 for h in s.heads) == 1
    assert all(len(x.words) == len(x.heads) == len(x.upos) for x in sents)
    assert max(s.depths()) >= 1


@needs_shared
def test_sst2_both_headers():
    texts, labels = real.load_sst2("train", path=SHARED_DATA, limit=100)
    assert len(texts) == 100 and set(labels) <= {0, 1}
    texts, labels = real.load_sst2("dev", path=SHARED_DATA)
    assert len(texts) == 872 and texts[0].startswith("one long string")


def test_found_without_a_path_when_shared_data_is_beside_the_checkout(monkeypatch):
    if not SHARED_DATA.is_dir():
        pytest.skip("../shared/data not present")
    monkeypatch.setenv("BERTOLOGY_SHARED_DATA", str(SHARED_DATA))
    assert real.find_file("sst2/dev.tsv") is not None


def test_bad_split_and_path(tmp_path):
    with pytest.raises(ParameterError, match="split='validation'.*'train', 'dev', 'test'"):
        real.load_ud_ewt("validation")
    with pytest.raises(ParameterError, match="split='test' has no labels.*'train', 'dev'"):
        real.load_sst2("test")
    with pytest.raises(FileNotFoundError, match="holds no sst2/dev.tsv"):
        real.load_sst2("dev", path=tmp_path)


def test_parse_conllu_skips_multiword_tokens():
    text = (
        "# sent_id = x\n"
        "1-2\tdon't\t_\t_\t_\t_\t_\t_\t_\t_\n"
        "1\tdo\tdo\tAUX\tVBP\t_\t3\taux\t_\t_\n"
        "2\tn't\tnot\tPART\tRB\t_\t3\tadvmod\t_\t_\n"
        "3\tgo\tgo\tVERB\tVB\t_\t0\troot\t_\t_\n\n"
    )
    [s] = real.parse_conllu(text)
    assert s.words == ("do", "n't", "go") and s.heads == (3, 3, 0) and s.depths() == (1, 1, 0)


def test_download_failure_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setattr(real, "UD_URL", "http://127.0.0.1:9/{split}.conllu")
    monkeypatch.setenv("BERTOLOGY_CACHE", str(tmp_path))
    monkeypatch.setattr(real, "candidate_roots", lambda: [])
    with pytest.raises(FileNotFoundError, match="could not download.*BERTOLOGY_DATA"):
        real.load_ud_ewt("test")
    assert not list(tmp_path.rglob("*.part*"))


_CONLLU = "# sent_id = {s}\n1\t{w}\t{w}\tNOUN\tNN\t_\t0\troot\t_\t_\n\n"


def test_an_explicit_file_path_must_be_the_split_asked_for(tmp_path):
    dev = tmp_path / "en_ewt-ud-dev.conllu"
    dev.write_text(_CONLLU.format(s="d1", w="dev"))
    assert [s.words for s in real.load_ud_ewt("dev", path=dev)] == [("dev",)]
    with pytest.raises(ParameterError, match="is the 'dev' file; allowed: the 'test' file"):
        real.load_ud_ewt("test", path=dev)  # the split is honoured, not ignored
    other = tmp_path / "treebank.conllu"
    other.write_text(_CONLLU.format(s="x", w="x"))
    with pytest.raises(ParameterError, match="name says no split"):
        real.load_ud_ewt("dev", path=other)
    (tmp_path / "test.conllu").write_text(_CONLLU.format(s="t1", w="test"))
    assert real.load_ud_ewt("test", path=tmp_path / "test.conllu")[0].words == ("test",)
    folder = tmp_path / "ud_english_ewt"
    folder.mkdir()
    (folder / "en_ewt-ud-test.conllu").write_text(_CONLLU.format(s="t2", w="held"))
    assert real.load_ud_ewt("test", path=tmp_path)[0].words == ("held",)  # a folder: the split's file


def test_sst2_explicit_path_honours_the_split(tmp_path):
    (tmp_path / "train.tsv").write_text("sentence\tlabel\nfine\t1\n")
    (tmp_path / "dev.tsv").write_text("label\tcontent\n0\tdull\n")
    assert real.load_sst2("train", path=tmp_path / "train.tsv") == (["fine"], [1])
    assert real.load_sst2("dev", path=tmp_path) == (["dull"], [0])
    with pytest.raises(ParameterError, match="is the 'dev' file; allowed: the 'train' file"):
        real.load_sst2("train", path=tmp_path / "dev.tsv")
    for path in (tmp_path, tmp_path / "dev.tsv"):  # GLUE's test labels are private: refused, not a dev copy
        with pytest.raises(ParameterError, match="split='test' has no labels"):
            real.load_sst2("test", path=path)
    (tmp_path / "bad.tsv").write_text("x\ty\n1\t2\n")
    with pytest.raises(ParameterError, match="columns.*allowed: a 'label'"):
        real.parse_sst2((tmp_path / "bad.tsv").read_text())
