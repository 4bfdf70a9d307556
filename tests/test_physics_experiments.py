"""Physics 3.1 experiments (notebooks 2-6): validation before work, seed summaries, learning curves,
celebrity and N-sweep configs, BIO accuracy, and one tiny end-to-end grid."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import torch

from bertology_lib import stats
from bertology_lib.experiments.physics import config as pcfg
from bertology_lib.experiments.physics import evaluation as pev
from bertology_lib.experiments.physics import training as ptrain
from bertology_lib.training import objectives
from bertology_lib.experiments.physics import grid as px
from bertology_lib.training import loop as training
from bertology_lib.cache import ArtifactCache
from bertology_lib.data import bios

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


@pytest.fixture
def no_training(monkeypatch):
    def fail(*args, **kwargs):
        raise AssertionError("training started before the input was validated")

    monkeypatch.setattr(training, "train", fail)


@pytest.mark.parametrize(
    "call, match",
    [
        (
            lambda c, cache: px.finetune_grid(c, ["single", "multi7x"], [0], cache=cache, progress=False),
            r"multi7x.*allowed",
        ),
        (
            lambda c, cache: px.finetune_grid(c, ["single"], [0, 0], cache=cache, progress=False),
            r"seeds=\[0, 0\] are invalid",
        ),
        (lambda c, cache: px.finetune_grid(c, ["single"], [], cache=cache, progress=False), r"seeds=\[\].*allowed"),
        (
            lambda c, cache: px.finetune_grid(c, ["single"], [0], methods=["adapter"], cache=cache, progress=False),
            r"methods=\['adapter'\].*allowed: distinct values from 'full', 'lora'",
        ),
        (lambda c, cache: px.n_sweep(c, [20, 1], cache=cache, progress=False), r"n_values=.*ints >= 2"),
        (lambda c, cache: px.n_sweep(c, [20], qa_shares=[1.0], cache=cache, progress=False), r"qa_share=1.0"),
        (lambda c, cache: px.celebrity_grid(c, [0], n_minority=0, cache=cache, progress=False), r"n_minority=0"),
        (lambda c, cache: px.mixed_grid(c, ["single"], [-1], cache=cache, progress=False), r"seeds=\[-1\]"),
    ],
)
def test_bad_input_fails_before_training(tmp_path, no_training, call, match):
    cache = ArtifactCache(tmp_path)
    with pytest.raises(ValueError, match=match):
        call(pcfg.PhysicsConfig(**TINY), cache)
    assert not any(tmp_path.rglob("*.safetensors"))


def test_plans_per_profile():
    quick = px.Plan.for_profile("quick")
    assert set(quick.grid_seeds) == set(px.GRID)
    for a in ("single", "permute1", "multi5+permute"):  # headline cells: >= 2 seeds
        assert len(quick.grid_seeds[a]) >= 2
    assert len(quick.celebrity_seeds) >= 2  # mixed training runs one seed at quick: a mixed run costs two pretrainings
    assert len(px.Plan.for_profile("smoke").grid_seeds) >= 3  # a Spearman needs 3 points
    with pytest.raises(Exception, match="huge"):
        px.Plan.for_profile("huge")


def test_seed_summary_and_per_attribute():
    rows = []
    for aug, accs in (("single", (0.0, 0.2)), ("multi5", (0.5, 0.7))):
        for seed, acc in enumerate(accs):
            for a in (*bios.ATTRIBUTES, "mean"):
                rows.append(
                    dict(
                        augmentation=aug,
                        seed=seed,
                        method="full",
                        attribute=a,
                        accuracy=acc if a == "mean" else acc / 2,
                        majority=0.01,
                    )
                )
    df = pd.DataFrame(rows)
    s = px.seed_summary(df, ["augmentation", "method"])
    assert s.loc[("single", "full"), "mean"] == pytest.approx(0.1)
    assert s.loc[("multi5", "full"), "std"] == pytest.approx(np.std([0.5, 0.7], ddof=1))
    assert s.loc[("multi5", "full"), ["min", "max", "seeds"]].tolist() == [0.5, 0.7, 2]
    t = px.per_attribute(df, ["augmentation"])
    assert list(t.columns) == [*bios.ATTRIBUTES, "mean"]
    assert t.loc["multi5", "birth_date"] == pytest.approx(0.3)
    with pytest.raises(ValueError, match="attribute='median'.*allowed"):
        px.seed_summary(df, ["augmentation"], attribute="median")


def test_n_sweep_and_celebrity_keep_exposures(monkeypatch):
    seen = []
    monkeypatch.setattr(
        px,
        "mixed_run",
        lambda c, cache=None, curve_points=10: (seen.append(c) or pd.DataFrame([{"n_people": c.n_people}]), None),
    )
    base = pcfg.PhysicsConfig(**{**TINY, "mixed_steps": 100})
    px.n_sweep(base, [10, 40], qa_shares=[0.25, 0.5], progress=False)
    # equal biography exposures: steps scale with N and with 1 / (1 - qa_share) (base share 0.5)
    assert [(c.n_people, c.mixed_steps, c.qa_share) for c in seen] == [
        (10, 33, 0.25),
        (10, 50, 0.5),
        (40, 133, 0.25),
        (40, 200, 0.5),
    ]
    celeb = px.celebrity_config(pcfg.PhysicsConfig(**{**TINY, "pretrain_steps": 100}), n_minority=10)
    assert (celeb.n_people, celeb.n_minority, celeb.augmentation) == (30, 10, "multi5+permute")
    assert celeb.pretrain_steps == 110  # 100 majority bios + 10 minority bios, over 100
    ds = celeb.dataset()
    assert set(ds.qa_test) == set(ds.groups["minority"]) and len(ds.qa_test) == 10


def test_shuffled_filler_adds_shuffled_text_and_keys_it():
    base = pcfg.PhysicsConfig(**{**TINY, "pretrain_steps": 100, "augmentation": "permute1"})
    assert ptrain.pretrain_key(base)["filler_bios"] == 0 and "filler" not in ptrain.pretrain_key(base)
    assert ptrain.filler_texts(base) == []
    ctrl = base.replace(filler_bios=100)
    texts = ptrain.filler_texts(ctrl)
    assert ptrain.pretrain_key(ctrl)["filler_bios"] == 100 and "filler" not in ptrain.pretrain_key(ctrl)
    assert len(texts) == 100 and texts == ptrain.filler_texts(ctrl)  # seeded
    # the same words as other people's multi5+permute biographies, in another order, and none of the run's names
    src = bios.generate_dataset(bios.BioConfig.from_augmentation("multi5+permute", 20, seed=ptrain.FILLER_SEED))
    assert sorted(texts[0].split()) == sorted(src.texts()[0].split()) and texts[0] != src.texts()[0]
    tok = pcfg.bios_tokenizer()
    plain, _ = ptrain.bio_rows(ctrl.dataset(), tok, 128, "whole")
    more, _ = ptrain.bio_rows(ctrl.dataset(), tok, 128, "whole", texts)
    assert len(more) > len(plain)
    with pytest.raises(ValueError, match="filler_bios=-1"):
        base.replace(filler_bios=-1)
    with pytest.raises(ValueError, match="filler='wiki'.*'shuffled', 'brown'"):
        base.replace(filler="wiki")
    with pytest.raises(ValueError, match="settings"):
        px.celebrity_grid(base, seeds=[0], settings=["with", "celebrities"])


def test_celebrity_control_adds_as_many_tokens_of_brown_english_and_keys_it():
    base = pcfg.PhysicsConfig(**{**TINY, "pretrain_steps": 100, "augmentation": "permute1"})
    ctrl = px.filler_config(base)
    celeb = px.celebrity_config(base)
    assert (ctrl.augmentation, ctrl.filler_bios, ctrl.filler, ctrl.tokenizer) == (
        "permute1",
        100,
        "brown",
        "word+brown",
    )
    assert ctrl.pretrain_steps == round(
        celeb.pretrain_steps * px.FILLER_STEPS_FACTOR
    )  # twice: it must store its people
    key = ptrain.pretrain_key(ctrl)
    assert key["filler"] == "brown" and key["tokenizer"]["name"] == "word+brown"
    texts = ptrain.filler_texts(ctrl)
    assert texts == ptrain.filler_texts(ctrl)  # seeded
    shuffled = ptrain.filler_texts(ctrl.replace(filler="shuffled"))
    n = sum(ptrain._n_tokens(t) for t in texts)
    target = sum(ptrain._n_tokens(t) for t in shuffled)
    assert target <= n < target + 2 * ptrain.BROWN_TEXT_WORDS  # as many tokens as the shuffled filler, give a text
    assert max(ptrain._n_tokens(t) for t in texts) <= ctrl.seq_len - 1  # each fits a window whole
    short = ptrain.brown_filler(5000, 0, max_tokens=70)
    assert max(ptrain._n_tokens(t) for t in short) <= 70 and min(ptrain._n_tokens(t) for t in short) >= 60
    joined = " ".join(texts)
    assert not any(f"{p.first} {p.middle} {p.last}" in joined for p in ctrl.dataset().people)  # nobody of the run
    tok = pcfg.get_tokenizer("word+brown")
    plain = pcfg.bios_tokenizer()
    assert all(tok.convert_tokens_to_ids(w) == plain.convert_tokens_to_ids(w) for w in bios.vocabulary())
    assert len(tok) == len(plain) + pcfg.BROWN_WORDS
    ids = tok(texts, add_special_tokens=False)["input_ids"]
    unk = sum(x.count(tok.unk_token_id) for x in ids) / sum(len(x) for x in ids)
    assert unk < 0.2  # real English, mostly in the vocabulary
    with pytest.raises(ValueError, match="n_words=.*too many"):
        ptrain.brown_filler(10**9, 0)


def test_setting_gap_interval_pools_answers():
    df = pd.DataFrame(
        [
            {"setting": "with", "attribute": "mean", "accuracy": 0.5, "n": 100},
            {"setting": "with", "attribute": "mean", "accuracy": 0.7, "n": 100},
            {"setting": "filler", "attribute": "mean", "accuracy": 0.1, "n": 200},
        ]
    )
    gap, lo, hi = px.setting_gap_interval(df, "with", "filler")
    assert gap == pytest.approx(0.5) and lo < 0.5 < hi and lo > 0.3
    gap0, lo0, hi0 = px.setting_gap_interval(
        df.assign(setting="with").iloc[[0, 0]].assign(setting=["with", "filler"]), "with", "filler"
    )
    assert gap0 == 0 and lo0 < 0 < hi0  # no difference: the interval straddles 0, so IntervalAbove(0) fails


class _Oracle(torch.nn.Module):
    """Logits that put all mass on the true next token of known sequences (or on token ``wrong``)."""

    def __init__(self, texts_ids, wrong: int | None = None):
        super().__init__()
        self.w = torch.nn.Parameter(torch.zeros(1))
        self.ids, self.wrong = texts_ids, wrong

    def forward(self, input_ids, attention_mask=None):
        b, t = input_ids.shape
        logits = torch.zeros(b, t, 5000)
        for i in range(b):
            row = input_ids[i].tolist()
            for k in range(t - 1):
                logits[i, k, self.wrong if self.wrong is not None else row[k + 1]] = 1.0
        return type("Out", (), {"logits": logits})()


def test_bio_accuracy_scores_memorisation():
    tok = pcfg.bios_tokenizer()
    ds = bios.generate_dataset(bios.BioConfig(n_people=5, seed=0))
    entries = list(ds.bios)
    assert pev.bio_accuracy(_Oracle(None), tok, entries) == 1.0
    assert pev.bio_accuracy(_Oracle(None, wrong=1), tok, entries) == 0.0
    with pytest.raises(ValueError, match="entries is empty"):
        pev.bio_accuracy(_Oracle(None), tok, [])


def test_spearman_and_extraction_vs_probe():
    assert stats.spearman([1, 2, 3, 4], [10, 20, 25, 40]) == pytest.approx(1.0)
    assert stats.spearman([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)
    with pytest.raises(ValueError, match="equal length >= 3"):
        stats.spearman([1, 2], [1, 2])
    ft = pd.DataFrame(
        [
            dict(augmentation=a, seed=0, method=m, attribute="mean", accuracy=v)
            for a, v in (("single", 0.1), ("multi5", 0.6))
            for m in ("full", "lora")
        ]
    )
    qp = pd.DataFrame(
        [dict(augmentation=a, seed=0, attribute="mean", accuracy=v) for a, v in (("single", 0.2), ("multi5", 0.5))]
    )
    m = px.extraction_vs_probe(ft, qp)
    assert m.set_index("augmentation").loc["multi5", ["qa_accuracy", "q_probe_accuracy"]].tolist() == [0.6, 0.5]


def test_tiny_grid_end_to_end_is_cached_and_shared(tmp_path):
    cache = ArtifactCache(tmp_path)
    base = pcfg.PhysicsConfig(**TINY)
    g = px.finetune_grid(base, ["single", "permute1"], [0], cache=cache, progress=False)
    assert set(g["method"]) == {"full", "lora"} and set(g["augmentation"]) == {"single", "permute1"}
    assert ((g["accuracy"] >= 0) & (g["accuracy"] <= 1)).all()
    n_pre = len(list((tmp_path / "physics-pretrain").iterdir()))
    q = px.q_probe_grid(base, ["single", "permute1"], [0], cache=cache, progress=False)
    assert len(list((tmp_path / "physics-pretrain").iterdir())) == n_pre  # probes reuse the grid's models
    assert set(q[q["attribute"] == "mean"]["augmentation"]) == {"single", "permute1"}
    qv = px.q_probe_grid(base, ["single"], [0], cache=cache, progress=False, probe="vocab")
    assert len(list((tmp_path / "physics-pretrain").iterdir())) == n_pre
    assert list(qv["attribute"]) == [*bios.ATTRIBUTES, "mean"] and qv["accuracy"].between(0, 1).all()
    with pytest.raises(ValueError, match="probe='mlp'"):
        px.q_probe_grid(base, ["single"], [0], cache=cache, progress=False, probe="mlp")
    acc, curve = px.mixed_run(base, cache, curve_points=2)
    assert list(curve["step"]) == [2, 4] and {"bio", "qa_train", "qa_test"} <= set(curve.columns)
    assert not math.isnan(float(acc.set_index("attribute").loc["mean", "accuracy"]))


def test_spearman_of_constant_input_is_nan():
    assert math.isnan(stats.spearman([0.0, 0.0, 0.0], [0.1, 0.2, 0.3]))


@pytest.mark.slow  # a GPT-2-small step on the CPU
def test_full_profile_pretraining_step_runs_on_cpu(tmp_path):
    """`full` resolves to GPT-2-small size with bf16 autocast; two of its steps run on a CPU (tiny batch)."""
    full = pcfg.PhysicsConfig.for_profile("full")
    assert full.device == "auto" and full.dtype == "bfloat16" and full.model_size == "full"
    plan = px.Plan.for_profile("full")
    assert max(plan.n_sweep) == full.n_people == 100_000 and all(len(s) >= 2 for s in plan.grid_seeds.values())
    cfg = full.replace(n_people=30, batch_size=2, seq_len=64, pretrain_steps=2, warmup_steps=1, device="cpu")
    path = ptrain.pretrain(cfg, ArtifactCache(tmp_path))
    log = ptrain.train_log(path)
    assert log["steps"] == 2 and all(math.isfinite(x) for x in log["losses"])
    assert 80e6 < log["n_params"] < 100e6  # 12 x 768 with the bioS vocabulary


@pytest.fixture(scope="module")
def bpe_folder(tmp_path_factory):
    """A small byte-level BPE tokenizer (GPT-2 style) trained on bioS text and saved like a hub tokenizer."""
    from tokenizers import ByteLevelBPETokenizer
    from transformers import PreTrainedTokenizerFast

    ds = bios.generate_dataset(bios.BioConfig(n_people=200, seed=3, multi=2))
    texts = ds.texts() + [p.text for p in ds.qa_pairs("all")]
    bpe = ByteLevelBPETokenizer()
    bpe.train_from_iterator(texts, vocab_size=600, special_tokens=["<|endoftext|>"])
    tok = PreTrainedTokenizerFast(
        tokenizer_object=bpe._tokenizer, eos_token="<|endoftext|>", bos_token="<|endoftext|>", unk_token="<|endoftext|>"
    )
    folder = tmp_path_factory.mktemp("bpe")
    tok.save_pretrained(folder)
    return str(folder)


def test_encode_qa_with_word_and_bpe_tokenizers(bpe_folder):
    for tok in (pcfg.bios_tokenizer(), pcfg.get_tokenizer(bpe_folder)):
        ids, labels = objectives.encode_qa(
            tok, "What is the birth city of Anya Briar Forger? Answer:", "Princeton, NJ."
        )
        kept = [i for i, y in zip(ids, labels) if y != -100]
        assert tok.decode(kept, skip_special_tokens=True).strip() == "Princeton, NJ."
        assert ids == tok(
            "What is the birth city of Anya Briar Forger? Answer: Princeton, NJ.", add_special_tokens=False
        )["input_ids"] + [tok.eos_token_id]
    bpe = pcfg.get_tokenizer(bpe_folder)
    assert bpe.pad_token_id == bpe.eos_token_id  # GPT-2 style tokenizers get their EOS as padding
    with pytest.raises(ValueError, match="tokenizer=''"):
        pcfg.PhysicsConfig(**TINY, tokenizer="")


def test_bpe_tokenizer_pipeline_trains_answers_and_keys_the_cache(tmp_path, bpe_folder):
    cache = ArtifactCache(tmp_path)
    word = pcfg.PhysicsConfig(**TINY)
    bpe = word.replace(tokenizer=bpe_folder)
    assert ptrain.pretrain_key(word)["tokenizer"]["name"] == "word"
    assert ptrain.pretrain_key(bpe)["tokenizer"]["name"] == bpe_folder
    pre = ptrain.pretrain(bpe, cache)
    assert pre != ptrain.pretrain(word, cache)
    model, tok = ptrain.load_model(ptrain.finetune_qa(pre, bpe, cache=cache))
    assert model.config.vocab_size == len(tok) and model.config.eos_token_id == tok.eos_token_id
    assert pev._max_answer_tokens(tok) > pev._longest_answer() + 2  # subwords: more tokens per answer
    table = pev.evaluate_qa(model, tok, bpe.dataset(), "test")
    assert 0.0 <= table.loc["mean", "accuracy"] <= 1.0


def test_probes_refuse_a_tokenizer_that_splits_words_differently(bpe_folder):

    bpe = pcfg.get_tokenizer(bpe_folder)
    ids, _ = pev.encode_words(bpe, ["Anya Briar Forger"])  # plain names split alike: Q-probing works
    assert ids[0][0] == bpe.eos_token_id
    with pytest.raises(ValueError, match=r"splits .* words.*allowed: a tokenizer that splits words like bios.words"):
        pev.encode_words(bpe, ["He joined Texas A&M University's staff."])
    word = pcfg.bios_tokenizer()
    pev.encode_words(word, ["He joined Texas A&M University's staff."])


def test_curve_lag_and_paired_gap():
    curve = pd.DataFrame({"step": [10, 20, 30, 40], "qa_train": [0.1, 0.5, 0.8, 0.8], "qa_test": [0.0, 0.1, 0.2, 0.4]})
    assert px.curve_lag(curve) == 30 - 20  # half of QA-train's 0.8 at step 20, half of QA-test's 0.4 at step 30
    flat = curve.assign(qa_test=0.0)
    assert math.isnan(px.curve_lag(flat))
    df = pd.DataFrame(
        [
            dict(augmentation=a, seed=s, method="full", attribute="mean", accuracy=v)
            for a, s, v in (("hi", 0, 0.6), ("hi", 1, 0.4), ("lo", 0, 0.1), ("lo", 1, 0.2), ("hi", 2, 0.9))
        ]
    )
    assert px.paired_gap(df, "hi", "lo") == pytest.approx((0.35, 0.2, 0.5))
    with pytest.raises(ValueError, match="share no seed"):
        px.paired_gap(df, "hi", "lo", method="lora")


def test_final_loss(tmp_path):
    (tmp_path / "train_log.json").write_text('{"losses": [5.0, 3.0, 1.0, 2.0]}')
    assert ptrain.final_loss(tmp_path, last=2) == 1.5


def test_repack_packs_every_epoch_anew_and_keeps_every_biography_whole():
    tok = pcfg.bios_tokenizer()
    cfg = pcfg.PhysicsConfig(**{**TINY, "packing": "repack", "seq_len": 128})
    lists = tok(cfg.dataset().texts(), add_special_tokens=False)["input_ids"]
    batches = ptrain.RepackBatches(lists, 128, tok.eos_token_id, batch_size=4, seed=0)
    epochs = []
    for _ in range(2):
        epoch = list(batches)  # one pass is one epoch, packed anew
        windows = torch.cat([b["input_ids"] for b in epoch])
        labels = torch.cat([b["labels"] for b in epoch])
        assert windows.shape[1] == 128 and torch.equal(labels[labels != -100], windows[labels != -100])
        found = []  # every biography exactly once per epoch, whole, after an eos
        for w in windows.tolist():
            cur = []
            for t in w + [tok.eos_token_id]:
                if t == tok.eos_token_id:
                    if cur:
                        found.append(tuple(cur))
                    cur = []
                else:
                    cur.append(t)
        assert sorted(found) == sorted(tuple(x) for x in lists)
        epochs.append(windows)
    assert not torch.equal(epochs[0], epochs[1])  # new neighbours and offsets in the second epoch
    again = ptrain.RepackBatches(lists, 128, tok.eos_token_id, batch_size=4, seed=0)
    assert torch.equal(torch.cat([b["input_ids"] for b in again]), epochs[0])  # seeded
    assert (
        ptrain.pretrain_key(cfg)["packing"] == "repack" != ptrain.pretrain_key(cfg.replace(packing="whole"))["packing"]
    )
    with pytest.raises(ValueError, match="packing='loose'.*'stream', 'whole', 'repack'"):
        cfg.replace(packing="loose")


def test_repack_mixed_batches_pack_each_pool_anew_with_its_share():
    def pack(items):  # one item a window, so a window shows which item it packs
        return torch.tensor([[i, i] for i in items]), torch.tensor([[i, -100] for i in items])

    pools = {"a": (list(range(10)), pack), "b": (list(range(100, 105)), pack)}
    batches = ptrain.RepackMixedBatches(pools, {"a": 0.75, "b": 0.25}, batch_size=8, seed=0)
    rows = torch.cat([b["input_ids"][:, 0] for b, _ in zip(batches, range(50))]).tolist()
    a, b = [r for r in rows if r < 100], [r for r in rows if r >= 100]
    assert 0.65 < len(a) / len(rows) < 0.85  # the shares hold
    assert sorted(a[:10]) == list(range(10)) and sorted(a[10:20]) == list(range(10))  # every item once an epoch
    assert a[:10] != a[10:20] and sorted(b[:5]) == list(range(100, 105))  # a new order each epoch
    again = ptrain.RepackMixedBatches(pools, {"a": 0.75, "b": 0.25}, batch_size=8, seed=0)
    first = [x["input_ids"] for x, _ in zip(again, range(3))]
    state = again.state_dict()  # a resumed run continues the same stream
    more = next(iter(again))["input_ids"]
    resumed = ptrain.RepackMixedBatches(pools, {"a": 0.75, "b": 0.25}, batch_size=8, seed=0)
    resumed.load_state_dict(state)
    assert torch.equal(next(iter(resumed))["input_ids"], more) and len(first) == 3
    with pytest.raises(ValueError, match="shares=.*summing to 1"):
        ptrain.RepackMixedBatches(pools, {"a": 0.5, "b": 0.25}, batch_size=8)
    with pytest.raises(ValueError, match="must equal pools keys"):
        ptrain.RepackMixedBatches(pools, {"a": 1.0}, batch_size=8)


def test_mixed_training_with_repack(tmp_path):
    cfg = pcfg.PhysicsConfig(**{**TINY, "packing": "repack", "seq_len": 128})
    cache = ArtifactCache(tmp_path)
    path = ptrain.mixed_train(cfg, cache, curve_points=0)
    assert ptrain.train_log(path)["steps"] == cfg.mixed_steps
    assert ptrain.mixed_train(cfg.replace(packing="whole"), cache, curve_points=0) != path


def test_pretrain_with_repack(tmp_path):
    cfg = pcfg.PhysicsConfig(**{**TINY, "packing": "repack", "seq_len": 128})
    cache = ArtifactCache(tmp_path)
    path = ptrain.pretrain(cfg, cache)
    log = ptrain.train_log(path)
    assert log["steps"] == cfg.pretrain_steps and log["n_windows"] >= 1
    assert ptrain.pretrain(cfg, cache) == path != ptrain.pretrain(cfg.replace(packing="whole"), cache)


def test_plan_shifted_moves_every_seed_and_refuses_a_negative_one():
    plan = px.Plan.for_profile("quick")
    moved = plan.shifted(2)
    assert moved.grid_seeds == {a: tuple(2 + s for s in seeds) for a, seeds in plan.grid_seeds.items()}
    assert moved.mixed_seeds == tuple(2 + s for s in plan.mixed_seeds)
    assert moved.celebrity_seeds == tuple(2 + s for s in plan.celebrity_seeds)
    assert moved.bert_seeds == tuple(2 + s for s in plan.bert_seeds)
    assert plan.shifted(0) == plan and moved.n_sweep == plan.n_sweep
    with pytest.raises(ValueError, match="seed=-1 is out of range"):
        plan.shifted(-1)


def test_repack_refuses_a_list_that_leaves_no_room_for_its_closing_eos():
    ptrain.RepackBatches([[5] * 126], 128, 0, batch_size=1)  # eos + 126 + eos = 128: fits
    with pytest.raises(ValueError, match="a token list of 127 tokens does not fit seq_len=128"):
        ptrain.RepackBatches([[5] * 127], 128, 0, batch_size=1)
