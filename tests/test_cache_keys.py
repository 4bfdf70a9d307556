"""Keys that cannot go stale (issue #36): every cached artifact is keyed by the configs that build it, with
dimensions rather than size names and every field at any value, under one versioned kind per artifact."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest

from bertology_lib.cache import ArtifactCache, ArtifactKind, save_json
from bertology_lib.models import decoder

ROOT = Path(__file__).resolve().parents[1]


def _physics_smoke():
    from bertology_lib.experiments.physics.config import PhysicsConfig

    return PhysicsConfig.for_profile("smoke")  # model_size "tiny"


@pytest.mark.parametrize("dim,value", [("hidden_size", 96), ("num_hidden_layers", 3), ("intermediate_size", 200)])
def test_changing_a_decoder_dimension_changes_the_physics_keys(monkeypatch, dim, value):
    from bertology_lib.experiments.physics import bert as pbert, training as ptrain

    cfg = _physics_smoke()
    before = ptrain.pretrain_key(cfg), pbert.bert_pretrain_key(cfg)
    monkeypatch.setitem(decoder.DECODER_SIZES, cfg.model_size, {**decoder.DECODER_SIZES[cfg.model_size], dim: value})
    after = ptrain.pretrain_key(cfg), pbert.bert_pretrain_key(cfg)
    assert after[0] != before[0]  # same size name, new dimensions: a new decoder entry, never the stale one
    assert after[0]["decoder"][dim] == value
    if dim != "intermediate_size":  # the matching BERT's MLP is 4 x d_model, whatever the decoder's
        assert after[1] != before[1]
    else:
        assert after[1] == before[1]


def test_physics_keys_name_dimensions_not_sizes(monkeypatch):
    from bertology_lib.experiments.physics import training as ptrain

    cfg = _physics_smoke()
    monkeypatch.setitem(decoder.DECODER_SIZES, "tiny-twin", dict(decoder.DECODER_SIZES["tiny"]))
    assert ptrain.pretrain_key(cfg.replace(model_size="tiny-twin")) == ptrain.pretrain_key(cfg)
    assert "model_size" not in repr(ptrain.pretrain_key(cfg))


def test_physics_keys_hold_every_setting_at_its_default_too():
    from bertology_lib.experiments.physics import training as ptrain

    key = ptrain.pretrain_key(_physics_smoke().replace(filler_bios=0, packing="stream", embedding_lr=1.0))
    assert key["filler_bios"] == 0 and key["packing"] == "stream" and key["tokenizer"]["name"] == "word"
    assert key["train"]["embedding_lr"] == 1.0 and "device" not in key["train"]
    assert key["bio"]["people_per_value"] == 10


def test_minibert_key_follows_its_dimensions_not_its_device():
    from bertology_lib.models.minibert import MiniBertConfig
    from bertology_lib.training.minibert import minibert_key

    cfg = MiniBertConfig.for_profile("smoke")
    for change in (dict(d_model=64), dict(n_layers=3), dict(n_heads=4), dict(max_steps=31), dict(mask_prob=0.2)):
        assert minibert_key(dataclasses.replace(cfg, **change)) != minibert_key(cfg), change
    assert minibert_key(dataclasses.replace(cfg, device="auto")) == minibert_key(cfg)
    assert minibert_key(cfg)["objective"]["bucket"] == 50 and minibert_key(cfg)["train"]["seq_len"] == 64


def test_minibert_key_records_the_precision_auto_resolved_to(monkeypatch):
    from bertology_lib import runtime
    from bertology_lib.errors import ParameterError
    from bertology_lib.models.minibert import MiniBertConfig
    from bertology_lib.training.minibert import minibert_key, train_config

    assert MiniBertConfig.for_profile("smoke").dtype == "float32"
    cfg = MiniBertConfig.for_profile("quick")
    assert cfg.dtype == "auto"
    monkeypatch.setattr(runtime, "bf16_units", lambda device: True)
    units = minibert_key(cfg)
    assert train_config(cfg).dtype == "bfloat16" and units["train"]["dtype"] == "bfloat16"
    monkeypatch.setattr(runtime, "bf16_units", lambda device: False)
    assert train_config(cfg).dtype == "float32" and minibert_key(cfg) != units
    with pytest.raises(ParameterError, match="dtype='half'.*allowed"):
        MiniBertConfig(dtype="half")
    with pytest.raises(ParameterError, match="dtype='half'.*allowed"):
        runtime.resolve_dtype("half", "cpu")


def test_lab_bert_key_follows_config_tokenizer_and_objective(monkeypatch):
    from bertology_lib.experiments.survey import pretraining as pre
    from bertology_lib.models.minibert import MiniBertConfig

    mb = MiniBertConfig.for_profile("smoke")
    base = pre.LabConfig(n_layers=2, n_heads=2, d_model=32, steps=20)
    assert pre.lab_key(dataclasses.replace(base, d_model=64), mb) != pre.lab_key(base, mb)
    assert pre.lab_key(base, dataclasses.replace(mb, vocab_size=2000)) != pre.lab_key(base, mb)  # another corpus
    assert pre.lab_key(base, mb)["lab"]["nsp"] is False  # every field, even at the original defaults
    pieces = dataclasses.replace(base, tokenizer="wordpiece", unit="token")
    before = pre.lab_key(pieces, mb)
    monkeypatch.setattr(pre, "WORDPIECE_VOCAB", 1000)
    assert pre.lab_key(pieces, mb) != before  # the tokenizer's size is part of the model's key
    stacked = dataclasses.replace(base, stack_at=10)
    assert [t["seed"] for t in pre.lab_key(stacked, mb)["train"]] == [0, 1000]  # both phases


CONFIGS = [
    ("bertology_lib.training.loop", "TrainConfig", {}, {"device"}),
    ("bertology_lib.training.pretrain", "MLMObjective", {}, set()),
    ("bertology_lib.training.finetune", "FinetuneConfig", {}, {"device"}),
    ("bertology_lib.interventions.distill", "DistillConfig", {}, set()),
    ("bertology_lib.models.minibert", "MiniBertConfig", {}, {"device"}),
    ("bertology_lib.experiments.survey.pretraining", "LabConfig", {}, set()),
    ("bertology_lib.data.toy_english", "ToyEnglishConfig", {"n_sentences": 10}, set()),
    ("bertology_lib.data.bios", "BioConfig", {"n_people": 10}, set()),
]


@pytest.mark.parametrize("module,name,kw,left_out", CONFIGS, ids=[c[1] for c in CONFIGS])
def test_a_configs_key_holds_every_field_but_those_that_cannot_change_the_artifact(module, name, kw, left_out):
    import importlib

    cls = getattr(importlib.import_module(module), name)
    key = cls(**kw).key()
    assert set(f.name for f in dataclasses.fields(cls)) - left_out <= set(key)
    assert not left_out & set(key)


def _declared_kinds() -> list[tuple[str, int, str]]:
    out = []
    for path in sorted((ROOT / "src" / "bertology_lib").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Call)
                and getattr(node.func, "id", None) == "ArtifactKind"
                and all(isinstance(a, ast.Constant) for a in node.args)
            ):  # a declaration, not a rebuilt kind
                name, version = (a.value for a in node.args)
                out.append((name, version, path.name))
    return out


def test_every_artifact_kind_is_declared_once_with_its_version():
    kinds = _declared_kinds()
    names = [k[0] for k in kinds]
    assert len(names) == len(set(names)), kinds
    assert {"minibert", "physics-pretrain", "lab-bert", "finetune", "random-init", "activations"} <= set(names)


def test_library_code_passes_kinds_never_plain_names():
    bad = []
    for path in sorted((ROOT / "src" / "bertology_lib").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Call)
                and getattr(node.func, "attr", getattr(node.func, "id", None)) in ("get_or_create", "memo")
                and node.args
                and isinstance(node.args[0], ast.Constant)
            ):
                bad.append(f"{path.name}:{node.lineno}")
    assert bad == []


def test_cache_ls_tells_decoders_apart_by_their_dimensions(tmp_path, monkeypatch):
    from bertology_lib.book.cli_cache import config_summaries
    from bertology_lib.experiments.physics import training as ptrain

    c, cfg = ArtifactCache(tmp_path), _physics_smoke()
    c.get_or_create(ptrain.PRETRAIN_KIND, ptrain.pretrain_key(cfg), lambda d: save_json(d / "x.json", {}))
    monkeypatch.setitem(decoder.DECODER_SIZES, "tiny", {**decoder.DECODER_SIZES["tiny"], "hidden_size": 96})
    c.get_or_create(ptrain.PRETRAIN_KIND, ptrain.pretrain_key(cfg), lambda d: save_json(d / "x.json", {}))
    shown = sorted(config_summaries(list(c.entries())).values())
    assert shown == ["decoder.hidden_size=64", "decoder.hidden_size=96"]
    assert {e.version for e in c.entries()} == {ptrain.PRETRAIN_KIND.version}


def test_a_kind_bump_retires_its_entries(tmp_path):
    c = ArtifactCache(tmp_path)
    old = c.get_or_create(ArtifactKind("physics-pretrain", 1), {"n": 1}, lambda d: save_json(d / "x.json", {}))
    assert c.get(ArtifactKind("physics-pretrain", 2), {"n": 1}) is None and old.is_dir()
