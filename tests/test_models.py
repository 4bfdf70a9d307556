import pytest
import torch

from bertology_lib.models import registry as models
from bertology_lib.errors import ModelNotAvailableError, ParameterError


def test_minilm_is_embedded_and_loads():
    tok = models.load_tokenizer("minilm")
    m = models.load_model("minilm")
    assert m.config.model_type == "bert" and m.config.num_hidden_layers == 6
    enc = tok("the chef tipped the waiter", return_tensors="pt")
    out = m(**enc, output_attentions=True)
    assert out.attentions[0].shape[1] == 12  # eager attention returns weights
    assert models.check_model_name("all-MiniLM-L6-v2") == "minilm"


def test_minilm_has_no_mlm_head():
    with pytest.raises(ModelNotAvailableError, match="no trained MLM head"):
        models.load_model("minilm", head="mlm")


def test_from_pretrained_path_on_a_tiny_local_model(tiny_bert_dir):
    """The hub path is the ordinary from_pretrained path: test it on a saved folder."""
    from transformers import BertForMaskedLM

    name = str(tiny_bert_dir)
    assert models.check_model_name(name) == name
    mlm = models.load_model(name, head="mlm")
    ref = BertForMaskedLM.from_pretrained(tiny_bert_dir).eval()
    tok = models.load_tokenizer(name)
    enc = tok("the chef tipped the waiter .", return_tensors="pt")
    with torch.no_grad():
        assert torch.allclose(mlm(**enc).logits, ref(**enc).logits)
    assert models.has_mlm_head(name)
    base = models.load_model(name, head="base")
    assert base.config.hidden_size == 16


def test_folder_without_config_is_rejected(tmp_path):
    with pytest.raises(ParameterError, match="without config.json"):
        models.check_model_name(str(tmp_path))


@pytest.mark.parametrize("bad", ["", "no spaces allowed", "a/b/c", 5])
def test_malformed_names(bad):
    with pytest.raises(ParameterError, match="allowed: embedded models: .*minilm"):
        models.check_model_name(bad)


def test_hub_name_without_network_fails_fast_with_alternatives(monkeypatch):
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    # a closed local port stands in for an unreachable hub: refused at once
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")
    models.hub_reachable.cache_clear()
    with pytest.raises(ParameterError, match="cannot be reached.*minilm"):
        models.check_model_name("bert-base-uncased")
    assert models.hub_reachable.cache_info().misses == 1  # asked once ...
    with pytest.raises(ParameterError, match="cannot be reached"):
        models.check_model_name("roberta-base")
    assert models.hub_reachable.cache_info().misses == 1  # ... and remembered for the process
    models.hub_reachable.cache_clear()


def test_hf_hub_offline_is_honoured(monkeypatch, tmp_path):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path))
    monkeypatch.setattr(models, "hub_reachable", lambda timeout=0: pytest.fail("probed the hub"))
    with pytest.raises(ParameterError, match="HF_HUB_OFFLINE"):
        models.check_model_name("bert-base-uncased")


def test_unknown_head():
    with pytest.raises(ParameterError, match="head='cls'.*base, mlm"):
        models.load_model("minilm", head="cls")


def test_mlm_only_notebooks_refuse_an_encoder_without_head(tiny_bert_dir, tmp_path):
    """§3.2, §3.3 and reconstruction score masked words: minilm is refused with a clear message."""
    with pytest.raises(
        ParameterError, match=r"model='minilm' has no trained masked-LM head.*allowed: english-bert, mini-bert"
    ):
        models.check_mlm_model_name("minilm")
    assert models.check_mlm_model_name("mini-bert") == "mini-bert"
    assert models.check_mlm_model_name(str(tiny_bert_dir)) == str(tiny_bert_dir)
    # a local folder holding only an encoder (BertModel) is refused from its config.json alone
    from transformers import BertConfig, BertModel

    enc_dir = tmp_path / "encoder-only"
    BertModel(
        BertConfig(vocab_size=20, hidden_size=16, num_hidden_layers=1, num_attention_heads=2, intermediate_size=32)
    ).save_pretrained(enc_dir)
    with pytest.raises(ParameterError, match="encoder-only.*no trained masked-LM head"):
        models.check_mlm_model_name(str(enc_dir))


def test_load_under_test_falls_back_to_the_encoder(capsys):
    from bertology_lib.book import resolve

    params = resolve("survey_03_1_syntax", profile="smoke", seed=0, model="minilm", real_model="minilm")
    model, tok, has_mlm = params.load_under_test()
    assert not has_mlm and model.config.num_hidden_layers == 6
    assert "no trained masked-LM head" in capsys.readouterr().out
    models.explain_no_mlm("minilm", "the agreement suite")
    out = capsys.readouterr().out
    assert "Skipped for minilm: the agreement suite" in out and "model=mini-bert" in out


def test_random_init_twin_is_a_model_value(tmp_cache):
    """The null model of any usable name: same config and tokenizer, fresh weights (heads included)."""
    import torch

    from bertology_lib.book import resolve
    from bertology_lib.models.sources import ModelSource

    assert models.check_model_name("random-init:minilm") == "random-init:minilm"
    assert models.has_mlm_head("random-init:mini-bert") and not models.has_mlm_head("random-init:minilm")
    with pytest.raises(ParameterError, match="model='no such model'"):
        models.check_model_name("random-init:no such model", probe_hub=False)
    run = resolve("survey_03_1_syntax", profile="smoke", seed=0, model="random-init:mini-bert", real_model="minilm")
    twin, tok = run.load(head="mlm")
    cfg = models.minibert.MiniBertConfig.for_profile("smoke")
    assert twin.config.num_hidden_layers == cfg.n_layers and twin.config.hidden_size == cfg.d_model
    assert len(tok) == len(models.minibert.tokenizer_for(cfg))
    assert not list((tmp_cache / "minibert").glob("*")) if (tmp_cache / "minibert").exists() else True  # no training
    again, _ = run.load(head="mlm")
    assert all(torch.equal(a, b) for a, b in zip(twin.state_dict().values(), again.state_dict().values()))
    real, _ = run.load("random-init:minilm")
    trained, _ = run.load("minilm")
    assert real.config.hidden_size == trained.config.hidden_size
    assert not torch.equal(real.embeddings.word_embeddings.weight, trained.embeddings.word_embeddings.weight)
    assert ModelSource("random-init:minilm", "smoke").cache_key() != ModelSource("minilm", "smoke").cache_key()


def test_the_mini_bert_is_registered_by_the_training_package_not_by_the_registry():
    """models sit below training (#36): the registry does not import the pipeline that trains the mini-BERT;
    bertology_lib.training registers the name, and the registry alone says so instead of 'unknown model'."""
    import subprocess
    import sys

    code = (
        "from bertology_lib.models import registry\n"
        "try:\n    registry.check_model_name('mini-bert')\nexcept Exception as e:\n    print(e)\n"
        "import bertology_lib.training.loop\nprint(registry.check_model_name('mini-bert'))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "bertology_lib.training.minibert trains and registers it" in out and out.rstrip().endswith("mini-bert")
