"""Fine-tuning through the one loop: heads, QA decoding, caching, ensembles, paired tests."""

from __future__ import annotations

import dataclasses

import pytest
from conftest import save_toy_bert
import torch

from bertology_lib.interventions.duplication import duplicated
from bertology_lib.training import finetune as F
from bertology_lib.training import predictions
from bertology_lib.cache import ArtifactCache
from bertology_lib.data import tasks as T

torch.set_num_threads(1)


@pytest.fixture(scope="module")
def toy_bert_dir(tmp_path_factory):
    """A tiny random BERT with the mini-BERT's word-level tokenizer (so toy tasks have no [UNK])."""
    return save_toy_bert(tmp_path_factory.mktemp("toy-bert"), None)


FAST = F.FinetuneConfig(max_steps=4, batch_size=8, eval_batch_size=16)


def overfit_cfg(steps: int) -> F.FinetuneConfig:
    return F.FinetuneConfig(
        max_steps=steps, batch_size=8, lr=3e-3, warmup_ratio=0.0, head_dropout=0.0, eval_splits=("train",)
    )


# -- fine-tuning ------------------------------------------------------------------------------------


def test_classification_overfits_a_tiny_set(toy_bert_dir):
    task = T.toy_classification(n_train=8, n_dev=0, n_test=0)
    r = F.finetune(task, toy_bert_dir, overfit_cfg(60), seed=0, use_cache=False)
    assert r.metrics["train"]["accuracy"] == 1.0
    assert r.train["losses"][-1] < 0.2 * r.train["losses"][0]
    assert r.train["steps"] == 60 and r.train["n_layers"] == 2


def test_qa_finetuning_learns_spans_and_no_answer(toy_bert_dir):
    task = T.toy_qa(n_train=12, n_dev=0, n_test=0)
    r = F.finetune(task, toy_bert_dir, overfit_cfg(80), seed=0, use_cache=False)
    m = r.metrics["train"]
    assert m["exact"] >= 0.75 and m["f1"] >= m["exact"]
    assert m["n_has_ans"] == 8 and m["n_no_ans"] == 4


def test_qa_runs_evaluates_and_probabilities_are_word_level(toy_bert_dir):
    task = T.toy_qa(n_train=16, n_dev=8, n_test=8)
    r = F.finetune(task, toy_bert_dir, FAST, seed=3, use_cache=False)
    assert set(r.metrics) == {"dev", "test"}
    assert {"exact", "f1", "has_ans_f1", "no_ans_exact"} <= set(r.metrics["test"])
    p = r.predictions["test"]
    w = max(len(e.context) for e in task.examples("test"))
    assert p.probs["start"].shape == p.probs["end"].shape == (8, w + 1)
    assert (p.probs["start"].sum(-1) <= 1 + 1e-5).all() and (p.probs["start"] >= 0).all()
    assert p.ids == [e.id for e in task.examples("test")]
    assert len(p.scores()) == 8
    # same seed, same numbers
    again = F.finetune(task, toy_bert_dir, FAST, seed=3, use_cache=False)
    assert torch.allclose(again.predictions["test"].probs["start"], p.probs["start"])


@pytest.mark.parametrize("kind", ["classification", "qa"])
def test_predictions_come_back_in_the_splits_order_whatever_the_batches(toy_bert_dir, kind):
    """`predict` batches rows longest first; each row's prediction equals the one it gets alone in a batch."""
    from transformers import AutoModel, AutoTokenizer

    task = T.toy_qa(n_train=4, n_dev=0, n_test=24) if kind == "qa" else T.toy_classification(n_train=4, n_test=24)
    tok = AutoTokenizer.from_pretrained(toy_bert_dir)
    model = F.build_model(task, AutoModel.from_pretrained(toy_bert_dir), seed=0)
    feats = F.encode(task, "test", tok, 64)
    lengths = [len(r["input_ids"]) for r in feats.rows]
    assert len(set(lengths)) > 1 and lengths != sorted(lengths, reverse=True)  # the grouping reorders
    order = predictions.length_order(feats)
    assert sorted(order) == list(range(24)) and [lengths[i] for i in order] == sorted(lengths, reverse=True)
    grouped = predictions.predict(model, feats, tok.pad_token_id, F.FinetuneConfig(eval_batch_size=5), task.n_labels)
    assert grouped.ids == [e.id for e in task.examples("test")]

    def one(j):  # row j in a split of its own: nothing to reorder
        pick = {
            f.name: [getattr(feats, f.name)[j]]
            for f in dataclasses.fields(feats)
            if f.name not in ("kind",) and getattr(feats, f.name) is not None
        }
        return predictions.predict(
            model, dataclasses.replace(feats, **pick), tok.pad_token_id, F.FinetuneConfig(), task.n_labels
        )

    alone = [one(j) for j in range(24)]
    for k in grouped.probs:
        for j, a in enumerate(alone):
            w = a.probs[k].shape[1]
            assert torch.allclose(grouped.probs[k][j, :w], a.probs[k][0], atol=1e-5), (k, j)
            assert not grouped.probs[k][j, w:].any()  # zero padding past the row's own words


def test_encode_maps_answer_words_to_tokens(toy_bert_dir):
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(toy_bert_dir)
    task = T.toy_qa(n_train=20, n_dev=0, n_test=0)
    feats = F.encode(task, "train", tok, 64)
    for e, row, first in zip(task.examples("train"), feats.rows, feats.word_first):
        ids = row["input_ids"]
        if e.answer is None:
            assert row["labels"] == [0, 0]
        else:
            s, t = row["labels"]
            assert tok.convert_ids_to_tokens(ids[s : t + 1]) == list(e.context[e.answer[0] : e.answer[1]])
        assert tok.convert_ids_to_tokens([ids[first[0]]]) == [e.context[0]]


def test_nli_pairs_cache_and_reload(toy_bert_dir, tmp_path):
    task = T.toy_nli(n_train=16, n_dev=8, n_test=8)
    cache = ArtifactCache(tmp_path)
    a = F.finetune(task, toy_bert_dir, FAST, seed=0, cache=cache)
    b = F.finetune(task, toy_bert_dir, FAST, seed=0, cache=cache)
    c = F.finetune(task, toy_bert_dir, FAST, seed=1, cache=cache)
    assert not a.cached and b.cached and not c.cached
    assert b.metrics == a.metrics and b.train["losses"] == a.train["losses"]
    assert torch.equal(b.predictions["test"].probs["probs"], a.predictions["test"].probs["probs"])
    assert b.predictions["test"].metrics() == a.metrics["test"]
    assert len(list(cache.entries())) == 2
    qa = T.toy_qa(n_train=8, n_dev=0, n_test=8)
    q1 = F.finetune(qa, toy_bert_dir, FAST, seed=0, cache=cache)
    q2 = F.finetune(qa, toy_bert_dir, FAST, seed=0, cache=cache)
    assert q2.cached and q2.predictions["test"].metrics() == q1.metrics["test"]
    df = F.results_frame([a, c])
    assert list(df.seed) == [0, 0, 1, 1] and set(df.split) == {"dev", "test"}


def test_data_seed_moves_only_the_batch_order_and_keys_stay_when_equal(toy_bert_dir, tmp_path):
    task = T.toy_classification(n_train=16, n_dev=0, n_test=8)
    cache = ArtifactCache(tmp_path)
    a = F.finetune(task, toy_bert_dir, FAST, seed=0, cache=cache)
    same = F.finetune(task, toy_bert_dir, FAST, seed=0, cache=cache, data_seed=0)
    order = F.finetune(task, toy_bert_dir, FAST, seed=0, cache=cache, data_seed=5)
    init = F.finetune(task, toy_bert_dir, FAST, seed=5, cache=cache, data_seed=0)
    assert same.cached and not order.cached and not init.cached  # data_seed == seed: the old key
    assert order.train["losses"] != a.train["losses"] and init.train["losses"] != a.train["losses"]
    first_loss = F.finetune_model(task, toy_bert_dir, FAST, seed=0, data_seed=5).train["losses"]
    assert first_loss == order.train["losses"]  # the cached run is the uncached one
    with pytest.raises(ValueError, match="data_seed"):
        F.finetune(task, toy_bert_dir, FAST, seed=0, use_cache=False, data_seed=-1)


def test_callable_and_duplicated_sources(toy_bert_dir, tmp_path):
    from transformers import AutoModel, AutoTokenizer

    task = T.toy_classification(n_train=16, n_dev=0, n_test=8)

    def fresh():
        return AutoModel.from_pretrained(toy_bert_dir)

    with pytest.raises(ValueError, match="without a tokenizer"):
        F.finetune(task, fresh, FAST)
    tok = AutoTokenizer.from_pretrained(toy_bert_dir)
    r = F.finetune(task, F.as_source(fresh, tokenizer=tok), FAST, cache=ArtifactCache(tmp_path))
    assert not r.cached and r.model == "fresh"
    assert not list(ArtifactCache(tmp_path).entries())  # a factory without a key is not cached
    dup = duplicated(toy_bert_dir, [0, 0, 1, 1])
    assert dup.cache_key()["factory_key"]["duplicate"] == [0, 0, 1, 1]
    d = F.finetune(task, dup, FAST, seed=0, cache=ArtifactCache(tmp_path))
    assert d.train["n_layers"] == 4
    assert F.finetune(task, dup, FAST, seed=0, cache=ArtifactCache(tmp_path)).cached
    # same seed, same hyper-parameters, same head init: only the encoder differs
    base = F.finetune(task, toy_bert_dir, FAST, seed=0, use_cache=False)
    assert base.config == d.config and base.train["steps"] == d.train["steps"]
    sweep = F.seed_sweep(task, toy_bert_dir, [0, 1], FAST, use_cache=False)
    assert [s.seed for s in sweep] == [0, 1]
    assert isinstance(F.compare(sweep, sweep), F.PairedTest)


# -- ensembles and decoding -------------------------------------------------------------------------


def _cls_preds(probs, golds):
    return F.Predictions(
        "classification",
        [str(i) for i in range(len(golds))],
        golds,
        {"probs": torch.tensor(probs)},
        n_labels=len(probs[0]),
    )


def test_ensemble_sums_probabilities_and_identical_members_change_nothing(toy_bert_dir):
    a = _cls_preds([[0.6, 0.4], [0.45, 0.55], [0.9, 0.1]], [1, 1, 0])
    b = _cls_preds([[0.2, 0.8], [0.52, 0.48], [0.8, 0.2]], [1, 1, 0])
    assert a.metrics()["accuracy"] == pytest.approx(2 / 3) and b.metrics()["accuracy"] == pytest.approx(2 / 3)
    assert F.ensemble([a, b])["accuracy"] == 1.0  # sums [.8, 1.2], [.97, 1.03], [1.7, .3]: all right
    assert F.ensemble([a, a, a]) == a.metrics()
    with pytest.raises(ValueError, match="differ"):
        F.ensemble([a, _cls_preds([[0.5, 0.5]], [0])])
    task = T.toy_qa(n_train=8, n_dev=0, n_test=8)
    p = F.finetune(task, toy_bert_dir, FAST, seed=0, use_cache=False).predictions["test"]
    assert F.ensemble([p, p]) == p.metrics()
    assert predictions.ensemble_predictions([p, p]).predicted() == p.predicted()


def test_decode_spans_hand_example():
    # words w1..w4; column 0 = no answer
    start = torch.tensor([[0.1, 0.1, 0.6, 0.1, 0.1], [0.7, 0.1, 0.1, 0.05, 0.05]])
    end = torch.tensor([[0.1, 0.5, 0.1, 0.1, 0.2], [0.7, 0.15, 0.1, 0.025, 0.025]])
    # row 0: best start w2 (index 1 of words); an end before it is not allowed -> end w4 (0.2)
    assert predictions.decode_spans(start, end) == [(1, 4), None]
    assert predictions.decode_spans(start, end, max_answer_words=1) == [(1, 2), None]  # w2 alone: .6 * .1
    # a threshold makes "no answer" harder to choose
    assert predictions.decode_spans(start, end, null_threshold=10.0)[1] == (0, 1)
    preds = F.Predictions(
        "qa",
        ["a", "b"],
        [[1, 4], None],
        {"start": start, "end": end},
        contexts=[["x", "the", "big", "dog"], ["y", "z", "u", "v"]],
    )
    assert preds.answers() == ["the big dog", ""]
    assert preds.metrics()["exact"] == 1.0


@pytest.mark.parametrize(
    "field, value",
    [
        ("lr", 0.0),
        ("epochs", -1.0),
        ("max_steps", -1),
        ("batch_size", 0),
        ("warmup_ratio", 1.0),
        ("head_dropout", 1.5),
        ("max_answer_words", 0),
        ("eval_splits", ("validation",)),
        ("device", "tpu"),
        ("attn_implementation", "flash"),
        ("null_threshold", float("inf")),
    ],
)
def test_finetune_config_rejects_bad_values(field, value):
    with pytest.raises(ValueError, match=f"{field}="):
        F.FinetuneConfig(**{field: value})


def test_bad_sources_and_seeds(toy_bert_dir):
    task = T.toy_classification(n_train=4, n_dev=0, n_test=0)
    with pytest.raises(ValueError, match="model source=42"):
        F.as_source(42)
    with pytest.raises(ValueError, match="seed=-1"):
        F.finetune_model(task, toy_bert_dir, FAST, seed=-1)
    with pytest.raises(ValueError, match="seeds="):
        F.seed_sweep(task, toy_bert_dir, [0, 0], FAST)
    assert F.FinetuneConfig.for_profile("smoke").max_steps == 10


def test_finetune_model_returns_the_model_and_keep_model_round_trips_through_the_cache(toy_bert_dir, tmp_path):
    task = T.toy_classification(n_train=16, n_dev=4, n_test=8)
    cfg = F.FinetuneConfig(max_steps=3, batch_size=8, eval_batch_size=16)
    r = F.finetune_model(task, toy_bert_dir, cfg, seed=0)
    assert r.fine_tuned is not None and r.tokenizer is not None and r.train["n_trainable"] == r.train["n_params"]
    cache = ArtifactCache(tmp_path / "c")
    plain = F.finetune(task, toy_bert_dir, cfg, seed=0, cache=cache)
    assert plain.fine_tuned is None and plain.metrics == r.metrics  # same run, metrics only
    kept = F.finetune(task, toy_bert_dir, cfg, seed=0, cache=cache, keep_model=True)
    again = F.finetune(task, toy_bert_dir, cfg, seed=0, cache=cache, keep_model=True)
    assert not kept.cached and again.cached and again.metrics == kept.metrics
    for (k, v), (k2, v2) in zip(kept.fine_tuned.state_dict().items(), again.fine_tuned.state_dict().items()):
        assert k == k2 and torch.equal(v, v2)
    assert {e.kind for e in cache.entries()} == {"finetune", "finetuned-model"}


def test_lora_folds_in_through_peft_merge_and_unload(toy_bert_dir):
    task = T.toy_classification(n_train=16, n_dev=4, n_test=8)
    cfg = F.FinetuneConfig(max_steps=4, batch_size=8, eval_batch_size=16, lr=5e-2)
    r = F.finetune_model(task, toy_bert_dir, cfg, seed=0, strategy="lora", lora_rank=2)
    assert r.train["n_trainable"] < r.train["n_params"] / 2
    merged = F.merged_encoder(r.fine_tuned)
    assert not any("lora_" in k for k in merged.state_dict())
    batch = F.collate(F.encode(task, "test", r.tokenizer, 64).rows, r.tokenizer.pad_token_id)
    with torch.no_grad():  # the folded encoder computes what the encoder with adapters computes
        a = r.fine_tuned.encoder(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]).last_hidden_state
        b = merged(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]).last_hidden_state
    assert torch.allclose(a, b, atol=1e-5)
    assert any("lora_" in k for k in r.fine_tuned.state_dict())  # the original keeps its adapters
