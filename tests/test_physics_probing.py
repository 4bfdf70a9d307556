"""P-probing, Q-probing and the BERT comparison (tiny sizes; a lookup "model" with known knowledge)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
import torch

from bertology_lib.experiments.physics import bert as pbert
from bertology_lib.experiments.physics import config as pcfg
from bertology_lib.experiments.physics import training as ptrain
from bertology_lib.models import decoder
from bertology_lib.training import objectives
from bertology_lib.experiments.physics import probing as pp
from bertology_lib.cache import ArtifactCache
from bertology_lib.data import bios
from bertology_lib.analysis.probing import ProbeConfig
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
FAST = ProbeConfig(max_iter=30)


@pytest.fixture(scope="module")
def tok():
    return pcfg.bios_tokenizer()


@pytest.fixture(scope="module")
def ds():
    return bios.generate_dataset(bios.BioConfig(n_people=300, seed=0, multi=2, permute=1))


class LastNameKnows(torch.nn.Module):
    """A 'model' whose every layer's state at a last-name token is a one-hot code of that person's birth
    month (the first person with that last name wins), and noise elsewhere: it knows the month from the
    name, and nothing else. Layer 1 = layer 0 x 2; the ground truth for probe alignment tests."""

    def __init__(self, tokenizer, dataset: bios.BioDataset) -> None:
        super().__init__()
        g = torch.Generator().manual_seed(0)
        table = torch.randn(len(tokenizer), 24, generator=g) * 0.1
        coded: set[int] = set()
        for p in dataset.people:
            t = tokenizer.convert_tokens_to_ids(p.last)
            if t not in coded:
                coded.add(t)
                table[t] = 0.0
                table[t, p.birth_month - 1] = 1.0
        self.table = torch.nn.Parameter(table)
        self.config = SimpleNamespace(num_hidden_layers=1)  # two hidden states, like a 1-block model
        self.calls = 0

    def forward(self, input_ids, attention_mask=None, output_hidden_states=False):
        self.calls += 1
        h = self.table[input_ids]
        return SimpleNamespace(hidden_states=(h, 2 * h))


# -- labels and positions --------------------------------------------------------------------------


def test_attribute_label(ds):
    p = ds.people[0]
    assert pp.attribute_label(p, "birth_date") == bios.MONTHS[p.birth_month - 1]
    assert pp.attribute_label(p, "birth_date", "year") == str(p.birth_year)
    assert pp.attribute_label(p, "birth_date", "day") == str(p.birth_day)
    assert pp.attribute_label(p, "birth_date", "full") == p.birth_date
    assert pp.attribute_label(p, "university") == p.university
    with pytest.raises(ValueError, match=r"birth_date_label='week'.*allowed: month, year, day, full"):
        pp.attribute_label(p, "birth_date", "week")
    with pytest.raises(ValueError, match="attribute='shoe_size'"):
        pp.attribute_label(p, "shoe_size")


@pytest.mark.parametrize("position_by", ["order", "attribute"])
def test_bio_positions_point_at_name_end_and_before_values(ds, position_by):
    for e in ds.bios[:50]:
        w = bios.words(e.text)
        got = pp.bio_positions(e, position_by)
        assert [p for p, _, _ in got] == pp.position_labels(position_by)
        assert got[0][1] == "last" and w[got[0][2]] == ds.people[e.person].last
        values = {lab: s for lab, s, _ in e.spans if lab != "name"}
        starts = sorted(values.values())
        for k, (label, where, word) in enumerate(got[1:]):
            assert where == "before"
            assert word == (starts[k] if position_by == "order" else values[label])


def test_states_at_matches_unbatched_prefix_forward(tok, ds):
    """Token alignment and padding: the gathered states equal a forward of the text alone, and the
    token at a 'before' position is the one right before the value (an <eos> when the text opens with it)."""
    from transformers import LlamaForCausalLM

    torch.manual_seed(0)
    model = LlamaForCausalLM(decoder.decoder_config("tiny", len(tok))).eval()
    entries = list(ds.bios[:5])
    pos = [[(where, word) for _, where, word in pp.bio_positions(e)] for e in entries]
    H = pp.states_at(model, tok, [e.text for e in entries], pos, batch_size=2)
    assert H.shape == (3, 5, 7, 64)
    for i, e in enumerate(entries):
        ids = [tok.eos_token_id, *tok(e.text, add_special_tokens=False)["input_ids"]]
        with torch.no_grad():
            hs = model.model(input_ids=torch.tensor([ids]), output_hidden_states=True).hidden_states
        w = bios.words(e.text)
        for k, (where, word) in enumerate(pos[i]):
            t = word + 1 if where == "last" else word  # +1: the leading <eos>
            torch.testing.assert_close(H[:, i, k], torch.stack([h[0, t] for h in hs]), atol=1e-5, rtol=1e-4)
            if where == "before":
                assert tok.convert_ids_to_tokens(ids[t + 1]) == w[word]  # next token starts the value


def test_states_at_rejects_ragged_positions(tok):
    with pytest.raises(ValueError, match="same number of positions"):
        pp.states_at(torch.nn.Linear(1, 1), tok, ["a b", "c d"], [[("last", 0)], []])


# -- probes on a model with known knowledge ---------------------------------------------------------


def test_q_probe_finds_exactly_the_planted_knowledge(tok, ds):
    model = LastNameKnows(tok, ds)
    res = pp.q_probe(model, tok, ds, cfg=FAST, seed=0)
    assert list(res.columns) == [
        "attribute",
        "layer",
        "accuracy",
        "val_accuracy",
        "train_accuracy",
        "majority",
        "n_train",
        "n_val",
        "n_test",
    ]
    assert len(res) == 6 * 2 and set(res.layer) == {0, 1} and set(res.n_train) == {150}
    assert set(res.n_val) == set(res.n_test) == {75}  # half the held-out people choose the layer
    acc = res.set_index(["attribute", "layer"])["accuracy"]
    assert acc["birth_date", 0] >= 0.8 and acc["birth_date", 1] >= 0.8  # month is linearly readable
    assert res[res.attribute != "birth_date"].accuracy.max() <= 0.2  # nothing else is known
    assert (res.majority < 0.25).all()
    assert model.calls == 2  # 300 names in batches of 256: one forward per batch, all layers at once
    again = pp.q_probe(model, tok, ds, cfg=FAST, seed=0)
    pd.testing.assert_frame_equal(res, again)  # deterministic
    year = pp.q_probe(model, tok, ds, cfg=FAST, seed=0, birth_date_label="year", layers=[1])
    assert set(year.layer) == {1} and year.set_index("attribute").loc["birth_date", "accuracy"] <= 0.2


def test_p_probe_reads_the_month_only_at_the_name(tok, ds):
    model = LastNameKnows(tok, ds)
    res = pp.p_probe(model, tok, ds, cfg=FAST, seed=1, n_people=200, bios_per_person=1, layers=[0])
    assert list(res.columns) == [
        "position",
        "attribute",
        "layer",
        "accuracy",
        "val_accuracy",
        "train_accuracy",
        "majority",
        "n_train",
        "n_val",
        "n_test",
    ]
    assert len(res) == 7 * 6 and set(res.n_train) == {100} and set(res.n_val) == set(res.n_test) == {50}
    table = pp.probe_table(res)
    assert list(table.index) == pp.position_labels("order") and list(table.columns) == list(bios.ATTRIBUTES)
    assert table.loc["name", "birth_date"] >= 0.8
    others = table.drop(index="name").to_numpy().max()
    assert others <= 0.3 and table.loc["name"].drop("birth_date").max() <= 0.3
    by_attr = pp.p_probe(model, tok, ds, cfg=FAST, seed=1, n_people=60, position_by="attribute", layers="all")
    assert list(pp.probe_table(by_attr, layer="last").index) == ["name", *bios.ATTRIBUTES]
    assert set(by_attr.n_train + by_attr.n_val + by_attr.n_test) == {120}  # two biographies per person
    assert pp.probe_table(by_attr, layer=0).shape == (7, 6)


def test_the_layer_is_chosen_on_validation_people_and_scored_on_test_people():
    """A layer that looks best on the test people but not on the validation people is not the one reported."""
    res = pd.DataFrame(
        {
            "attribute": ["major"] * 3,
            "layer": [0, 1, 2],
            "accuracy": [0.30, 0.90, 0.50],
            "val_accuracy": [0.40, 0.35, 0.60],
            "majority": [0.1] * 3,
        }
    )
    best = pp.best_layer_rows(res)
    assert best[["layer", "accuracy"]].values.tolist() == [[2, 0.5]]
    assert pp.probe_table(res).loc["major", "accuracy"] == 0.5
    tie = res.assign(val_accuracy=0.6)
    assert int(pp.best_layer_rows(tie)["layer"].iloc[0]) == 0  # ties: the shallower layer
    no_val = res.drop(columns="val_accuracy")  # without validation people: the test maximum (overstated)
    assert pp.best_layer_rows(no_val)["accuracy"].iloc[0] == 0.9
    va, te = pp.val_split(np.arange(10, 20), 0.5, seed=0)
    assert len(va) == len(te) == 5 and not set(va) & set(te) and set(va) | set(te) == set(range(10, 20))
    assert pp.val_split(np.arange(10), 0.0, seed=0)[0].size == 0
    with pytest.raises(ValueError, match="val_fraction=0.01"):
        pp.val_split(np.arange(10), 0.01, seed=0)


def test_probe_split_is_by_person_and_seeded():
    tr, te = pp.people_split(100, None, 0.5, seed=3)
    assert len(tr) == len(te) == 50 and not set(tr) & set(te)
    tr2, _ = pp.people_split(100, None, 0.5, seed=3)
    assert np.array_equal(tr, tr2) and not np.array_equal(tr, pp.people_split(100, None, 0.5, seed=4)[0])
    assert len(pp.people_split(100, 10, 0.5, seed=0)[0]) == 5


def test_probe_arguments_are_validated(tok, ds):
    model = LastNameKnows(tok, ds)
    with pytest.raises(ValueError, match=r"layers=\[5\].*0\.\.1"):
        pp.q_probe(model, tok, ds, layers=[5])
    with pytest.raises(ValueError, match="layers='top'"):
        pp.q_probe(model, tok, ds, layers="top")
    with pytest.raises(ValueError, match="n_people=1000 is out of range.*2..300"):
        pp.q_probe(model, tok, ds, n_people=1000)
    with pytest.raises(ValueError, match="train_fraction=1.0"):
        pp.p_probe(model, tok, ds, train_fraction=1.0)
    with pytest.raises(ValueError, match="position_by='middle'.*allowed: order, attribute"):
        pp.p_probe(model, tok, ds, position_by="middle")
    with pytest.raises(ValueError, match="birth_date_label='era'"):
        pp.p_probe(model, tok, ds, birth_date_label="era")
    with pytest.raises(ValueError, match="bios_per_person=0"):
        pp.p_probe(model, tok, ds, bios_per_person=0)
    assert model.calls == 0  # every check happens before the forward passes
    res = pd.DataFrame({"attribute": ["major"], "layer": [0], "accuracy": [0.5]})
    with pytest.raises(ValueError, match="layer=3 is not probed"):
        pp.probe_table(res, layer=3)
    with pytest.raises(ValueError, match="value='acc'"):
        pp.probe_table(res, value="acc")


# -- the BERT comparison ---------------------------------------------------------------------------


def test_bert_qa_example_fills_fixed_slots_without_a_length_hint():
    tok = pbert.bert_tokenizer()
    slots = pbert.answer_slots()
    lengths = set()
    for answer in ("Winston-Salem, NC", "Austin, TX", "August 11, 1976", "Princeton University"):
        ids, labels = pbert.bert_qa_example(tok, "What is the birth city of Anya? Answer:", answer)
        masks = [i for i, t in enumerate(ids) if t == tok.mask_token_id]
        lengths.add(len(masks))
        assert ids[0] == tok.cls_token_id and ids[-1] == tok.sep_token_id
        assert [i for i, y in enumerate(labels) if y != -100] == masks  # every slot is a target
        got = [labels[i] for i in masks]
        assert tok.decode(pbert.read_answer(got, tok.sep_token_id)) == answer
        assert got[-1] == tok.sep_token_id  # every answer ends inside the slots
    assert lengths == {slots}  # the same number of masks whatever the answer: no hint of its length
    longest = max(
        (v for v in (*bios.CITIES, *bios.UNIVERSITIES, *bios.MAJORS, *bios.COMPANIES)), key=lambda v: len(bios.words(v))
    )
    assert len(bios.words(longest)) < slots
    with pytest.raises(ParameterError, match="allowed: fewer than slots=2"):
        pbert.bert_qa_example(tok, "Q?", "August 11, 1976", slots=2)
    assert pbert.read_answer([5, 6, tok.sep_token_id, 7], tok.sep_token_id) == [5, 6]


def test_bert_recipes_and_date_components():
    quick = pcfg.PhysicsConfig.for_profile("quick")
    paper = pbert.recipe_config(quick, "paper")
    assert (paper.bert_steps, paper.bert_mask_prob) == (quick.pretrain_steps, 0.15)
    assert pbert.recipe_config(quick, "profile") == quick
    with pytest.raises(ValueError, match="recipe='strong'.*'paper', 'profile'"):
        pbert.recipe_config(quick, "strong")
    preds = pd.DataFrame(
        {
            "attribute": ["birth_date", "birth_date", "major"],
            "date_month": [1.0, 1.0, np.nan],
            "date_day": [0.0, 1.0, np.nan],
            "date_year": [0.0, 0.0, np.nan],
        }
    )
    out = pbert.date_components(preds)
    assert out.to_dict() == {
        "birth_date (month)": 1.0,
        "birth_date (day)": 0.5,
        "birth_date (year)": 0.0,
        "birth_date (components)": 0.5,
    }


DATES = pd.DataFrame({"attribute": ["birth_date"], "date_month": [1.0], "date_day": [1.0], "date_year": [1.0]})


def test_bert_pipeline_is_cached_and_comparable(tmp_path):
    cache = ArtifactCache(tmp_path)
    cfg = pcfg.PhysicsConfig(**TINY)
    pre = pbert.bert_pretrain(cfg, cache)
    assert pbert.bert_pretrain(cfg.replace(device="auto"), cache) == pre
    assert pbert.bert_pretrain(cfg, cache, lr=5e-4) != pre
    log = ptrain.train_log(pre)
    assert log["steps"] == 4 and log["rows_per_batch"] >= 1 and log["n_params"] > 0
    assert log["mask_prob"] == cfg.bert_mask_prob == 0.15
    # the BERT's own steps and masked share: a new cache entry each, the decoder's steps untouched
    longer = ptrain.train_log(pbert.bert_pretrain(cfg.replace(bert_steps=6, bert_mask_prob=0.4), cache))
    assert longer["steps"] == 6 and longer["mask_prob"] == 0.4
    assert pbert.bert_pretrain(cfg, cache, mask_prob=0.4) != pre
    model, tok = pbert.load_bert(pre)
    assert type(model).__name__ == "BertForMaskedLM" and model.config.hidden_size == 64
    out = pbert.bert_extraction(cfg, cache, probe_cfg=FAST)
    assert list(out.index) == [*bios.ATTRIBUTES, "mean", *pbert.date_components(DATES).index]
    assert (
        out.loc["birth_date (components)", "q_probe_accuracy"] != out.loc["birth_date (components)", "q_probe_accuracy"]
    )
    assert list(out.columns) == [
        "qa_accuracy",
        "qa_majority",
        "q_probe_accuracy",
        "q_probe_layer",
        "q_probe_majority",
        "memorised",
    ]
    assert out["memorised"].nunique() == 1 and 0 <= out["memorised"].iloc[0] <= 1
    assert out.loc[:"mean", ["qa_accuracy", "q_probe_accuracy"]].apply(lambda c: c.between(0, 1)).all().all()
    assert out["qa_accuracy"].between(0, 1).all()
    tuned = pbert.bert_finetune_qa(pre, cfg, cache)
    assert [e["step"] for e in ptrain.train_log(tuned)["evals"]] == [2, 4]
    table = pbert.bert_evaluate_qa(pbert.load_bert(tuned)[0], tok, cfg.dataset(), "test")
    assert list(table.index) == [*bios.ATTRIBUTES, "mean", "mean_without_birth_date"]
    assert table.loc["mean", "n"] == 6 * len(cfg.dataset().qa_test)
    with pytest.raises(ValueError, match="size='xl'"):
        decoder.matching_bert_config("xl", 100)


def test_bert_qa_evaluation_on_a_memorising_bert():
    """Fill-the-slots QA: a tiny BERT trained on all QA pairs of 10 people answers them, where each answer stops."""
    from bertology_lib.training import loop as training
    from bertology_lib.training.masking import MaskedOnlyMLM
    from transformers import BertForMaskedLM

    tok = pbert.bert_tokenizer()
    small = bios.generate_dataset(bios.BioConfig(n_people=10, seed=0))
    torch.manual_seed(0)
    model = BertForMaskedLM(decoder.matching_bert_config("tiny", len(tok)))
    examples = [pbert.bert_qa_example(tok, p.question, p.answer) for p in small.qa_pairs("all")]
    tc = training.TrainConfig(lr=3e-3, max_steps=600, warmup_steps=10, weight_decay=0.0, batch_size=20)
    training.train(MaskedOnlyMLM(model), objectives.QABatches(examples, 20, tok.pad_token_id), tc, progress=False)
    preds = pbert.bert_qa_predictions(model, tok, small, "all")
    assert preds["correct"].mean() >= 0.9
    dates = pbert.date_components(preds)
    assert dates["birth_date (components)"] >= preds[preds.attribute == "birth_date"]["correct"].mean() - 1e-9
    row = preds[preds.correct].iloc[0]
    assert bios.exact_match(row.prediction, row.answer)


def test_q_probe_rank_trains_only_its_update_and_head(tmp_path, tok):
    from bertology_lib.cache import ArtifactCache

    cfg = pcfg.PhysicsConfig(**TINY)
    model, wtok = ptrain.load_model(ptrain.pretrain(cfg, ArtifactCache(tmp_path)))
    before = {k: v.clone() for k, v in model.state_dict().items()}
    res = pp.q_probe_rank(model, wtok, cfg.dataset(), rank=2, steps=30, seed=0)
    assert list(res["attribute"]) == list(bios.ATTRIBUTES) and set(res["rank"]) == {2}
    assert ((res["accuracy"] >= 0) & (res["accuracy"] <= 1)).all()
    assert res["train_accuracy"].mean() > res["accuracy"].mean() - 1e-9  # it can fit its training people
    after = model.state_dict()
    assert all(torch.equal(before[k], after[k]) for k in before)  # the model itself is untouched
    assert all(p.requires_grad for p in model.parameters())
    with pytest.raises(ValueError, match="rank=0"):
        pp.q_probe_rank(model, wtok, cfg.dataset(), rank=0)


class MajorInOutputSpace(torch.nn.Module):
    """A 'model' whose state at a last-name token is the mean output embedding of that person's major's words
    (first person with that last name wins), noise elsewhere: it stores the major in the vocabulary's own
    terms, so a probe through the output embeddings can name majors no training person has."""

    def __init__(self, tokenizer, dataset: bios.BioDataset, d: int = 48) -> None:
        super().__init__()
        g = torch.Generator().manual_seed(1)
        self.out = torch.nn.Linear(d, len(tokenizer), bias=False)
        self.out.weight.data = torch.randn(len(tokenizer), d, generator=g)
        table = torch.randn(len(tokenizer), d, generator=g) * 0.1
        coded: set[int] = set()
        for p in dataset.people:
            t = tokenizer.convert_tokens_to_ids(p.last)
            if t not in coded:
                coded.add(t)
                ids = tokenizer(" ".join(bios.words(p.major)), add_special_tokens=False)["input_ids"]
                table[t] = self.out.weight.data[ids].mean(0)
        self.table = torch.nn.Parameter(table)
        self.config = SimpleNamespace(num_hidden_layers=1)

    def get_output_embeddings(self):
        return self.out

    def forward(self, input_ids, attention_mask=None, output_hidden_states=False):
        h = self.table[input_ids]
        return SimpleNamespace(hidden_states=(h, h))


def test_q_probe_vocab_names_values_no_training_person_has(tok):
    ds = bios.generate_dataset(bios.BioConfig(n_people=120, seed=0))  # few people: many unseen majors
    model = MajorInOutputSpace(tok, ds)
    res = pp.q_probe_vocab(model, tok, ds, rank=48, steps=150, lr=1e-2, seed=0)
    assert len(res) == 6 * 2 and set(res.n_classes[res.attribute == "major"]) == {len(bios.MAJORS)}
    acc = res.groupby("attribute").accuracy.max()
    tr, held_out = pp.people_split(len(ds.people), None, 0.5, 0)
    _, te = pp.val_split(held_out, 0.5, 0)  # the people the accuracy is measured on
    seen = {ds.people[i].major for i in tr}
    unseen_share = np.mean([ds.people[i].major not in seen for i in te])
    assert unseen_share > 0.3
    assert acc["major"] > 1 - unseen_share + 0.02  # beyond what any probe limited to seen classes can reach
    assert acc.drop("major").max() < 0.3  # nothing else is stored
    lin = pp.q_probe(model, tok, ds, cfg=FAST, seed=0).groupby("attribute").accuracy.max()
    assert lin["major"] <= 1 - unseen_share + 1e-9
    with pytest.raises(ValueError, match="rank=0"):
        pp.q_probe_vocab(model, tok, ds, rank=0)
    with pytest.raises(ValueError, match="no candidate pool"):
        pp.attribute_pool("birth_date", "full")
    for a in bios.ATTRIBUTES:  # every person's label is in the pool
        pool = set(pp.attribute_pool(a))
        assert all(pp.attribute_label(p, a) in pool for p in ds.people)


def test_the_quick_bert_recipe_and_its_bad_values():
    """quick trains the BERT 16,600 steps (8.3 x the decoder's) at 40% masks (benchmarks/README.md, "The physics
    BERT" and "Physics: the BERT's profile arm at N = 600 needs twice the steps"); full keeps the decoder's steps and
    the paper's 15%; bad values are refused, naming the value."""
    quick, full = pcfg.PhysicsConfig.for_profile("quick"), pcfg.PhysicsConfig.for_profile("full")
    assert (quick.bert_steps, quick.bert_mask_prob) == (16_600, 0.4)
    assert (full.bert_steps, full.bert_mask_prob) == (full.pretrain_steps, 0.15)
    for bad in (dict(bert_steps=0), dict(bert_mask_prob=1.0), dict(bert_mask_prob=0.0)):
        with pytest.raises(ParameterError, match=f"{next(iter(bad))}={next(iter(bad.values()))!r}"):
            pcfg.PhysicsConfig(**{**TINY, **bad})
    with pytest.raises(ParameterError, match="mask_prob=1.5"):
        pbert.bert_pretrain(pcfg.PhysicsConfig(**TINY), mask_prob=1.5)


def test_alternating_batches_draw_whole_batches_by_share_and_restart_epochs():
    streams = {"a": [{"x": 1}, {"x": 2}], "b": [{"x": 10}]}  # lists: one epoch per iteration
    batches = pbert.AlternatingBatches(streams, {"a": 0.8, "b": 0.2}, seed=0)
    xs = [b["x"] for b, _ in zip(batches, range(200))]
    assert set(xs) == {1, 2, 10} and 0.1 < xs.count(10) / len(xs) < 0.3  # the shares hold
    a = [x for x in xs if x < 10]
    assert a[:6] == [1, 2, 1, 2, 1, 2]  # an epoch that ends starts again
    again = [b["x"] for b, _ in zip(pbert.AlternatingBatches(streams, {"a": 0.8, "b": 0.2}, seed=0), range(200))]
    assert again == xs  # seeded
    with pytest.raises(ParameterError, match="summing to 1"):
        pbert.AlternatingBatches(streams, {"a": 0.8, "b": 0.8})
    with pytest.raises(ParameterError, match="must equal streams keys"):
        pbert.AlternatingBatches(streams, {"a": 1.0})


def test_bert_mixed_training_is_cached_and_scored_on_qa_test_people(tmp_path):
    cache = ArtifactCache(tmp_path)
    cfg = pcfg.PhysicsConfig(**TINY)
    path = pbert.bert_mixed_train(cfg, cache)
    log = ptrain.train_log(path)
    assert log["steps"] == pbert.bert_mixed_steps(cfg) == 4 and log["qa_rows_per_batch"] >= 1
    assert pbert.bert_mixed_train(cfg, cache) == path != pbert.bert_pretrain(cfg, cache)
    assert pbert.bert_mixed_train(cfg.replace(qa_share=0.2), cache) != path
    assert pbert.bert_mixed_steps(cfg.replace(mixed_steps=8)) == 8  # scaled as the decoder's mixed training
    out = pbert.bert_mixed_extraction(cfg, cache)
    assert list(out.index) == [*bios.ATTRIBUTES, "mean", *pbert.date_components(DATES).index]
    assert list(out.columns) == ["qa_accuracy", "qa_majority", "memorised"]
    assert out["memorised"].nunique() == 1
