"""Physics 3.1 pipeline: configs, cached training stages, QA evaluation (tiny sizes)."""

from __future__ import annotations

import json

import pytest
import torch

from bertology_lib.experiments.physics import config as pcfg
from bertology_lib.experiments.physics import evaluation as pev
from bertology_lib.experiments.physics import training as ptrain
from bertology_lib.models import decoder
from bertology_lib.training import objectives
from bertology_lib.training import loop as training
from bertology_lib.cache import ArtifactCache
from bertology_lib.data import bios
from bertology_lib.errors import ParameterError

torch.set_num_threads(1)

TINY = dict(
    n_people=20,
    model_size="tiny",
    seq_len=32,
    batch_size=4,
    warmup_steps=1,
    pretrain_steps=4,
    bert_steps=4,
    finetune_steps=4,
    finetune_batch_size=8,
    finetune_eval_every=2,
    mixed_steps=4,
)


@pytest.fixture(scope="module")
def tok():
    return pcfg.bios_tokenizer()


@pytest.fixture
def count_training(monkeypatch):
    """Count calls of the training loop as physics sees it."""
    calls: list[str] = []
    real = training.train

    def counting(*args, **kwargs):
        calls.append(kwargs.get("desc", "train"))
        return real(*args, **kwargs)

    monkeypatch.setattr(ptrain, "train", counting)
    return calls


# -- configs ---------------------------------------------------------------------------------------


def test_decoder_sizes(tok):
    from transformers import LlamaForCausalLM

    cfg = decoder.decoder_config("small", len(tok))
    assert (cfg.hidden_size, cfg.num_hidden_layers, cfg.tie_word_embeddings) == (128, 2, True)
    n = sum(p.numel() for p in LlamaForCausalLM(cfg).parameters())
    assert 0.6e6 < n < 1.0e6  # "~0.8M parameters"
    full = decoder.decoder_config("full", 50_000)
    assert (full.num_hidden_layers, full.num_attention_heads, full.hidden_size, full.max_position_embeddings) == (
        12,
        12,
        768,
        512,
    )
    assert decoder.decoder_config("tiny", 100, num_hidden_layers=1).num_hidden_layers == 1
    with pytest.raises(ValueError, match=r"size='huge'.*allowed: 'tiny', 'small', 'base', 'full'"):
        decoder.decoder_config("huge", 100)


def test_physics_config_profiles_and_validation():
    full = pcfg.PhysicsConfig.for_profile("full")
    assert (full.n_people, full.batch_size, full.seq_len, full.lr, full.weight_decay, full.model_size) == (
        100_000,
        96,
        512,
        1e-3,
        0.1,
        "full",
    )
    tc = full.pretrain_train_config()
    assert tc.schedule == "cosine" and tc.warmup_steps > 0 and tc.min_lr_ratio == 0.1
    quick = pcfg.PhysicsConfig.for_profile("quick", n_people=200)
    assert quick.n_people == 200 and quick.model_size == "small" and quick.device == "cpu"
    smoke = pcfg.PhysicsConfig.for_profile("smoke")
    assert smoke.model_size == "tiny" and smoke.pretrain_steps <= 50
    assert pcfg.PhysicsConfig(**smoke.to_dict()) == smoke
    assert smoke.bio_config().multi == 5 and smoke.bio_config().permute == 1
    with pytest.raises(ParameterError, match="profile='huge'"):
        pcfg.PhysicsConfig.for_profile("huge")
    with pytest.raises(ValueError, match="unknown PhysicsConfig field.*n_peeple"):
        pcfg.PhysicsConfig.for_profile("smoke", n_peeple=3)
    with pytest.raises(ValueError, match="augmentation name='multi5\\+shuffle'.*allowed"):
        pcfg.PhysicsConfig(augmentation="multi5+shuffle")
    with pytest.raises(ValueError, match="model_size='xl'.*allowed"):
        pcfg.PhysicsConfig(model_size="xl")
    with pytest.raises(ValueError, match="qa_share=1.5"):
        pcfg.PhysicsConfig(qa_share=1.5)
    with pytest.raises(ValueError, match="dtype='fp16'"):
        pcfg.PhysicsConfig(dtype="fp16")


# -- cached stages ---------------------------------------------------------------------------------


def test_pretrain_is_cached_and_loads_back(tmp_path, count_training):
    cache = ArtifactCache(tmp_path)
    cfg = pcfg.PhysicsConfig(**TINY)
    path = ptrain.pretrain(cfg, cache)
    assert count_training == ["pretrain"]
    assert ptrain.pretrain(cfg.replace(device="auto"), cache) == path  # device is not part of the key
    assert count_training == ["pretrain"]  # second call did not train
    names = {p.name for p in path.iterdir()}
    assert {
        "config.json",
        "model.safetensors",
        "tokenizer.json",
        "physics_config.json",
        "train_log.json",
        "artifact.json",
        "MANIFEST.json",
    } <= names
    assert not any(n.endswith((".bin", ".pt", ".pkl", ".pickle")) for n in names)
    log = ptrain.train_log(path)
    assert log["steps"] == 4 and len(log["losses"]) == 4 and log["n_params"] > 0
    assert json.loads((path / "physics_config.json").read_text())["n_people"] == 20
    model, tok = ptrain.load_model(path)
    assert model.config.hidden_size == 64 and len(tok) == model.config.vocab_size
    assert ptrain.pretrain(cfg.replace(pretrain_steps=5), cache) != path  # new key -> new entry
    assert count_training == ["pretrain", "pretrain"]


def test_finetune_full_and_lora(tmp_path, count_training):
    cache = ArtifactCache(tmp_path)
    cfg = pcfg.PhysicsConfig(**TINY)
    pre = ptrain.pretrain(cfg, cache)
    full = ptrain.finetune_qa(pre, cfg, lora=False, cache=cache)
    lora = ptrain.finetune_qa(pre, cfg, lora=True, cache=cache)
    assert full != lora and ptrain.finetune_qa(pre, cfg, lora=True, cache=cache) == lora
    assert count_training == ["pretrain", "finetune", "finetune"]
    log = ptrain.train_log(lora)
    assert log["lora"] and [e["step"] for e in log["evals"]] == [2, 4] and log["best_step"] in (2, 4)
    base, _ = ptrain.load_model(pre)
    tuned, _ = ptrain.load_model(lora)  # merged: a plain Llama, no peft needed to load it
    assert type(tuned).__name__ == "LlamaForCausalLM"
    b, t = base.state_dict(), tuned.state_dict()
    changed = {k for k in b if not torch.equal(b[k], t[k])}
    assert "model.embed_tokens.weight" in changed  # trainable embeddings
    assert any("q_proj" in k for k in changed) and any("v_proj" in k for k in changed)
    assert not any(s in k for k in changed for s in ("k_proj", "o_proj", "mlp", "norm"))  # frozen


def test_finetune_trains_on_fit_people_only(tok):
    ds = pcfg.PhysicsConfig(**TINY).dataset()
    fit = set(ds.split_people("fit"))
    assert fit.isdisjoint(ds.qa_test) and fit.isdisjoint(ds.split_people("val"))
    examples = ptrain.qa_examples(ds, tok, "fit")
    assert len(examples) == 6 * len(fit)
    ids, labels = examples[0]
    answer = ds.qa_pairs("fit")[0].answer
    kept = [i for i, y in zip(ids, labels) if y != -100]
    assert tok.decode(kept, skip_special_tokens=True) == f"{answer}."


def test_mixed_train_is_cached(tmp_path, count_training):
    cache = ArtifactCache(tmp_path)
    cfg = pcfg.PhysicsConfig(**TINY)
    path = ptrain.mixed_train(cfg, cache)
    assert ptrain.mixed_train(cfg, cache) == path and count_training == ["mixed"]
    assert ptrain.mixed_train(cfg.replace(qa_share=0.3), cache) != path
    log = ptrain.train_log(path)
    assert log["steps"] == 4 and log["n_qa_windows"] > 0 and log["n_bio_windows"] > 0


# -- evaluation ------------------------------------------------------------------------------------


def test_generation_with_kv_cache_matches_full_forward(tok):
    from transformers import LlamaForCausalLM

    torch.manual_seed(0)
    model = LlamaForCausalLM(decoder.decoder_config("tiny", len(tok))).eval()
    prompts = [
        "What is the birth city of Dasha Calris Fairdale? Answer:",
        "Where did Dasha Calris Whitby work? Answer:",
        "What major did Fevyn Arrel Fairman study? Answer:",
    ]
    got = pev.generate_answers(model, tok, prompts, max_new_tokens=5, stop=())
    for prompt, text in zip(prompts, got):
        x = tok(prompt, add_special_tokens=False, return_tensors="pt")["input_ids"]
        gen: list[int] = []
        with torch.no_grad():
            for _ in range(5):
                nxt = int(model(input_ids=x).logits[0, -1].argmax())
                if nxt == tok.eos_token_id:
                    break
                gen.append(nxt)
                x = torch.cat([x, torch.tensor([[nxt]])], dim=1)
        assert text == tok.decode(gen, skip_special_tokens=True)


@pytest.mark.slow  # trains until the model memorises
def test_evaluate_qa_on_a_model_that_memorised_ten_people(tok):
    from transformers import LlamaForCausalLM

    ds = bios.generate_dataset(bios.BioConfig(n_people=10, seed=0))
    torch.manual_seed(0)
    model = LlamaForCausalLM(decoder.decoder_config("tiny", len(tok)))
    examples = ptrain.qa_examples(ds, tok, "all")
    cfg = training.TrainConfig(lr=3e-3, max_steps=300, warmup_steps=10, weight_decay=0.0, batch_size=20)
    training.train(model, objectives.QABatches(examples, 20, tok.pad_token_id), cfg, progress=False)
    table = pev.evaluate_qa(model, tok, ds, "all")
    assert list(table.index) == [*bios.ATTRIBUTES, "mean", "mean_without_birth_date"]
    assert list(table.columns) == ["accuracy", "majority", "n"]
    assert table.loc["mean", "accuracy"] >= 0.9 and table.loc["mean_without_birth_date", "accuracy"] >= 0.9
    assert table.loc["mean", "n"] == 60 and table.loc["mean_without_birth_date", "n"] == 50
    train_people = [ds.people[i] for i in ds.qa_train]
    for a, (best, _) in bios.majority_baseline(train_people).items():
        expected = sum(p.value(a) == best for p in ds.people) / len(ds.people)
        assert table.loc[a, "majority"] == pytest.approx(expected)
    preds = pev.qa_predictions(model, tok, ds, "test")
    assert set(preds["person"]) == set(ds.qa_test) and len(preds) == 6 * len(ds.qa_test)
    assert preds["correct"].mean() >= 0.9
