"""Physics 3.1 pipeline: configs, cached training stages, QA evaluation (tiny sizes)."""

from __future__ import annotations

import json

import pytest
import torch

from bertology_lib.experiments.physics import pipeline as physics
from bertology_lib.training import loop as training
from bertology_lib.cache import ArtifactCache
from bertology_lib.data import bios
from bertology_lib.errors import ParameterError

torch.set_num_threads(1)

TINY = dict(n_people=20, model_size="tiny", seq_len=32, batch_size=4, warmup_steps=1, pretrain_steps=4,
            finetune_steps=4, finetune_batch_size=8, finetune_eval_every=2, mixed_steps=4)


@pytest.fixture(scope="module")
def tok():
    return physics.bios_tokenizer()


@pytest.fixture
def count_training(monkeypatch):
    """Count calls of the training loop as physics sees it."""
    calls: list[str] = []
    real = training.train

    def counting(*args, **kwargs):
        calls.append(kwargs.get("desc", "train"))
        return real(*args, **kwargs)

    monkeypatch.setattr(training, "train", counting)
    return calls


# -- configs ---------------------------------------------------------------------------------------

def test_decoder_sizes(tok):
    from transformers import LlamaForCausalLM

    cfg = physics.decoder_config("small", len(tok))
    assert (cfg.hidden_size, cfg.num_hidden_layers, cfg.tie_word_embeddings) == (128, 2, True)
    n = sum(p.numel() for p in LlamaForCausalLM(cfg).parameters())
    assert 0.6e6 < n < 1.0e6  # "~0.8M parameters"
    full = physics.decoder_config("full", 50_000)
    assert (full.num_hidden_layers, full.num_attention_heads, full.hidden_size,
            full.max_position_embeddings) == (12, 12, 768, 512)
    assert physics.decoder_config("tiny", 100, num_hidden_layers=1).num_hidden_layers == 1
    with pytest.raises(ValueError, match=r"size='huge'.*allowed: tiny, small, base, full"):
        physics.decoder_config("huge", 100)


def test_physics_config_profiles_and_validation():
    full = physics.PhysicsConfig.for_profile("full")
    assert (full.n_people, full.batch_size, full.seq_len, full.lr, full.weight_decay, full.model_size) == (
        100_000, 96, 512, 1e-3, 0.1, "full")
    tc = full.pretrain_train_config()
    assert tc.schedule == "cosine" and tc.warmup_steps > 0 and tc.min_lr_ratio == 0.1
    quick = physics.PhysicsConfig.for_profile("quick", n_people=200)
    assert quick.n_people == 200 and quick.model_size == "small" and quick.device == "cpu"
    smoke = physics.PhysicsConfig.for_profile("smoke")
    assert smoke.model_size == "tiny" and smoke.pretrain_steps <= 50
    assert physics.PhysicsConfig(**smoke.to_dict()) == smoke
    assert smoke.bio_config().multi == 5 and smoke.bio_config().permute == 1
    with pytest.raises(ParameterError, match="profile='huge'"):
        physics.PhysicsConfig.for_profile("huge")
    with pytest.raises(ValueError, match="unknown PhysicsConfig field.*n_peeple"):
        physics.PhysicsConfig.for_profile("smoke", n_peeple=3)
    with pytest.raises(ValueError, match="augmentation 'multi5\\+shuffle'.*allowed"):
        physics.PhysicsConfig(augmentation="multi5+shuffle")
    with pytest.raises(ValueError, match="model_size='xl'.*allowed"):
        physics.PhysicsConfig(model_size="xl")
    with pytest.raises(ValueError, match="qa_share=1.5"):
        physics.PhysicsConfig(qa_share=1.5)
    with pytest.raises(ValueError, match="dtype='fp16'"):
        physics.PhysicsConfig(dtype="fp16")


# -- cached stages ---------------------------------------------------------------------------------

def test_pretrain_is_cached_and_loads_back(tmp_path, count_training):
    cache = ArtifactCache(tmp_path)
    cfg = physics.PhysicsConfig(**TINY)
    path = physics.pretrain(cfg, cache)
    assert count_training == ["pretrain"]
    assert physics.pretrain(cfg.replace(device="auto"), cache) == path  # device is not part of the key
    assert count_training == ["pretrain"]  # second call did not train
    names = {p.name for p in path.iterdir()}
    assert {"config.json", "model.safetensors", "tokenizer.json", "physics_config.json", "train_log.json",
            "artifact.json", "MANIFEST.json"} <= names
    assert not any(n.endswith((".bin", ".pt", ".pkl", ".pickle")) for n in names)
    log = physics.train_log(path)
    assert log["steps"] == 4 and len(log["losses"]) == 4 and log["n_params"] > 0
    assert json.loads((path / "physics_config.json").read_text())["n_people"] == 20
    model, tok = physics.load_model(path)
    assert model.config.hidden_size == 64 and len(tok) == model.config.vocab_size
    assert physics.pretrain(cfg.replace(pretrain_steps=5), cache) != path  # new key -> new entry
    assert count_training == ["pretrain", "pretrain"]


def test_finetune_full_and_lora(tmp_path, count_training):
    cache = ArtifactCache(tmp_path)
    cfg = physics.PhysicsConfig(**TINY)
    pre = physics.pretrain(cfg, cache)
    full = physics.finetune_qa(pre, cfg, lora=False, cache=cache)
    lora = physics.finetune_qa(pre, cfg, lora=True, cache=cache)
    assert full != lora and physics.finetune_qa(pre, cfg, lora=True, cache=cache) == lora
    assert count_training == ["pretrain", "finetune", "finetune"]
    log = physics.train_log(lora)
    assert log["lora"] and [e["step"] for e in log["evals"]] == [2, 4] and log["best_step"] in (2, 4)
    base, _ = physics.load_model(pre)
    tuned, _ = physics.load_model(lora)  # merged: a plain Llama, no peft needed to load it
    assert type(tuned).__name__ == "LlamaForCausalLM"
    b, t = base.state_dict(), tuned.state_dict()
    changed = {k for k in b if not torch.equal(b[k], t[k])}
    assert "model.embed_tokens.weight" in changed  # trainable embeddings
    assert any("q_proj" in k for k in changed) and any("v_proj" in k for k in changed)
    assert not any(s in k for k in changed for s in ("k_proj", "o_proj", "mlp", "norm"))  # frozen


def test_finetune_trains_on_fit_people_only(tok):
    ds = physics.PhysicsConfig(**TINY).dataset()
    fit = set(ds.split_people("fit"))
    assert fit.isdisjoint(ds.qa_test) and fit.isdisjoint(ds.split_people("val"))
    examples = physics.qa_examples(ds, tok, "fit")
    assert len(examples) == 6 * len(fit)
    ids, labels = examples[0]
    answer = ds.qa_pairs("fit")[0].answer
    kept = [i for i, y in zip(ids, labels) if y != -100]
    assert tok.decode(kept, skip_special_tokens=True) == f"{answer}."


def test_mixed_train_is_cached(tmp_path, count_training):
    cache = ArtifactCache(tmp_path)
    cfg = physics.PhysicsConfig(**TINY)
    path = physics.mixed_train(cfg, cache)
    assert physics.mixed_train(cfg, cache) == path and count_training == ["mixed"]
    assert physics.mixed_train(cfg.replace(qa_share=0.3), cache) != path
    log = physics.train_log(path)
    assert log["steps"] == 4 and log["n_qa_windows"] > 0 and log["n_bio_windows"] > 0


# -- evaluation ------------------------------------------------------------------------------------

def test_generation_with_kv_cache_matches_full_forward(tok):
    from transformers import LlamaForCausalLM

    torch.manual_seed(0)
    model = LlamaForCausalLM(physics.decoder_config("tiny", len(tok))).eval()
    prompts = ["What is the birth city of Dasha Calris Fairdale? Answer:",
               "Where did Dasha Calris Whitby work? Answer:", "What major did Fevyn Arrel Fairman study? Answer:"]
    got = physics.generate_answers(model, tok, prompts, max_new_tokens=5, stop=())
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


def test_evaluate_qa_on_a_model_that_memorised_ten_people(tok):
    from transformers import LlamaForCausalLM

    ds = bios.generate_dataset(bios.BioConfig(n_people=10, seed=0))
    torch.manual_seed(0)
    model = LlamaForCausalLM(physics.decoder_config("tiny", len(tok)))
    examples = physics.qa_examples(ds, tok, "all")
    cfg = training.TrainConfig(lr=3e-3, max_steps=300, warmup_steps=10, weight_decay=0.0, batch_size=20)
    training.train(model, training.QABatches(examples, 20, tok.pad_token_id), cfg, progress=False)
    table = physics.evaluate_qa(model, tok, ds, "all")
    assert list(table.index) == [*bios.ATTRIBUTES, "mean", "mean_without_birth_date"]
    assert list(table.columns) == ["accuracy", "majority", "n"]
    assert table.loc["mean", "accuracy"] >= 0.9 and table.loc["mean_without_birth_date", "accuracy"] >= 0.9
    assert table.loc["mean", "n"] == 60 and table.loc["mean_without_birth_date", "n"] == 50
    train_people = [ds.people[i] for i in ds.qa_train]
    for a, (best, _) in bios.majority_baseline(train_people).items():
        expected = sum(p.value(a) == best for p in ds.people) / len(ds.people)
        assert table.loc[a, "majority"] == pytest.approx(expected)
    preds = physics.qa_predictions(model, tok, ds, "test")
    assert set(preds["person"]) == set(ds.qa_test) and len(preds) == 6 * len(ds.qa_test)
    assert preds["correct"].mean() >= 0.9
