from pathlib import Path

import pytest

from bertology_lib.data import real
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
    with pytest.raises(ValueError, match="split='validation'.*train, dev, test"):
        real.load_ud_ewt("validation")
    with pytest.raises(ValueError, match="split='test'.*train, dev"):
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
    monkeypatch.setattr(real, "_candidate_roots", lambda: [])
    with pytest.raises(FileNotFoundError, match="could not download.*BERTOLOGY_DATA"):
        real.load_ud_ewt("test")
    assert not list(tmp_path.rglob("*.part*"))
