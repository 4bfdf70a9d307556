"""The physics instrument checks (issues 16 and 17): memorisation of the training biographies (decoder and
BERT), classes a classifier probe can see, the P-probe's positive control, and the scale of a claim."""

from __future__ import annotations

import pandas as pd
import pytest
import torch

from bertology_lib.data import bios
from bertology_lib.errors import ParameterError
from bertology_lib.experiments.physics import bert as pbert
from bertology_lib.experiments.physics import config as pcfg
from bertology_lib.experiments.physics import evaluation as pev
from bertology_lib.experiments.physics import grid as px
from bertology_lib.experiments.physics import instruments as pi
from bertology_lib.experiments.physics import probing as pp
from bertology_lib.experiments.physics import training as ptrain
from bertology_lib.models import decoder
from bertology_lib.training import loop as training
from bertology_lib.training import objectives
from bertology_lib.training.masking import MaskedOnlyMLM
from bertology_lib.training.objectives import IGNORE_INDEX


@pytest.fixture(scope="module")
def small():
    return bios.generate_dataset(bios.BioConfig(n_people=4, seed=0))


@pytest.fixture(scope="module")
def memorising_decoder(small):
    """A tiny decoder trained on the 4 people's biographies until it has them by heart (one biography per row,
    ``<eos>`` in front as in packed pretraining, so no biography is cut from its name)."""
    from transformers import LlamaForCausalLM

    tok = pcfg.bios_tokenizer()
    eos = tok.eos_token_id
    ids = tok(small.texts(), add_special_tokens=False)["input_ids"]
    windows = torch.tensor([[eos, *x] + [eos] * (64 - 1 - len(x)) for x in ids])
    torch.manual_seed(0)
    model = LlamaForCausalLM(decoder.decoder_config("tiny", len(tok)))
    tc = training.TrainConfig(lr=3e-3, max_steps=120, warmup_steps=5, weight_decay=0.0, batch_size=4, seq_len=64)
    training.train(model, objectives.LMBatches(windows, 4, seed=0), tc, progress=False)
    return model.eval(), tok


def test_memorisation_tells_a_memorising_decoder_from_its_random_init_twin(small, memorising_decoder):
    from transformers import LlamaForCausalLM

    model, tok = memorising_decoder
    score = pev.memorisation(model, tok, small, n_people=4)
    assert score >= pev.MEMORISED
    torch.manual_seed(1)
    twin = LlamaForCausalLM(decoder.decoder_config("tiny", len(tok))).eval()
    assert pev.memorisation(twin, tok, small, n_people=4) < 0.2  # the null model fails the check
    entries = pev.training_bios(small, n_people=4)
    assert len({e.person for e in entries}) == 4
    # the first token is easier than the whole value: first-token accuracy bounds the whole-value one
    assert pev.bio_accuracy(twin, tok, entries, first_token=True) >= pev.bio_accuracy(twin, tok, entries)


def test_training_bios_refuses_people_outside_the_dataset(small):
    with pytest.raises(ParameterError, match="no biography"):
        pev.training_bios(small, people=[0, 99])
    with pytest.raises(ParameterError, match="n_people"):
        pev.training_bios(small, n_people=0)
    with pytest.raises(ParameterError, match="first_token"):
        pev.bio_accuracy(None, None, pev.training_bios(small, n_people=1), first_token="yes")


def test_bert_memorisation_masks_whole_values_and_fails_a_random_bert(small):
    """A tiny BERT trained to fill whole masked values of its biographies passes; its random twin fails."""
    from transformers import BertForMaskedLM

    tok = pbert.bert_tokenizer()
    ids, word_ids = pev.encode_words(tok, [e.text for e in small.bios])
    examples = []
    for e, x, w in zip(small.bios, ids, word_ids):
        for lab, ws, we in e.spans:
            if lab == "name":
                continue
            toks = [k for k, wid in enumerate(w) if wid is not None and ws <= wid < we]
            masked, labels = list(x), [IGNORE_INDEX] * len(x)
            for k in toks:
                masked[k], labels[k] = tok.mask_token_id, x[k]
            examples.append((masked, labels))
    torch.manual_seed(0)
    model = BertForMaskedLM(decoder.matching_bert_config("tiny", len(tok)))
    tc = training.TrainConfig(lr=3e-3, max_steps=150, warmup_steps=5, weight_decay=0.0, batch_size=8)
    training.train(MaskedOnlyMLM(model), objectives.QABatches(examples, 8, tok.pad_token_id), tc, progress=False)
    assert pbert.bert_memorisation(model, tok, small, n_people=4) >= pev.MEMORISED
    torch.manual_seed(1)
    twin = BertForMaskedLM(decoder.matching_bert_config("tiny", len(tok)))
    assert pbert.bert_memorisation(twin, tok, small, n_people=4) < 0.2


def test_classes_seen_is_the_share_of_test_people_with_a_training_class():
    ds = bios.generate_dataset(bios.BioConfig(n_people=40, seed=0))
    share = pi.classes_seen(ds, seed=3)
    tr, te = pp.people_split(len(ds.people), None, 0.5, 3)
    for a in bios.ATTRIBUTES:
        seen = {pp.attribute_label(ds.people[int(i)], a) for i in tr}
        hits = sum(pp.attribute_label(ds.people[int(i)], a) in seen for i in te)
        assert share[a] == pytest.approx(hits / len(te))
    # 20 probe-training people cannot cover 300 universities; 12 birth months they nearly can
    assert share["university"] < pi.CLASSES_SEEN <= share["birth_date"] + 0.35


def test_positive_control_reads_each_attribute_at_its_own_position():
    rows = []
    for k, a in enumerate(bios.ATTRIBUTES, start=1):
        for pos in ["name", *(f"pos{j}" for j in range(1, 7))]:
            for layer in (0, 1):
                acc = 0.9 if (pos == f"pos{k}" and layer == 1) else 0.1
                rows.append({"position": pos, "attribute": a, "layer": layer, "accuracy": acc, "majority": 0.05})
    ctl = pi.positive_control(pd.DataFrame(rows))
    assert list(ctl.index) == list(bios.ATTRIBUTES) and ctl.tolist() == pytest.approx([0.85] * 6)
    null = pd.DataFrame(rows).assign(accuracy=0.05)  # a probe at majority everywhere fails the control
    assert pi.positive_control(null).mean() < pi.POSITIVE_CONTROL
    with pytest.raises(ParameterError, match="position_by='order'"):
        pi.positive_control(pd.DataFrame(rows).query("position != 'pos3'"))


def test_scale_and_model_label_name_the_decoder_beside_the_paper():
    cfg = pcfg.PhysicsConfig.for_profile("smoke")
    s = px.scale(cfg, seeds=2)
    assert s["people"] == cfg.n_people and s["paper people"] == 100_000 and s["seeds"] == 2
    assert s["parameters"] == px.decoder_parameters(cfg) > 0 and s["steps"] == cfg.pretrain_steps
    assert px.model_label(cfg).startswith("decoder tiny (") and px.model_label(cfg, "BERT").startswith("BERT tiny")
    assert px.bert_parameters(cfg) != px.decoder_parameters(cfg)
    assert px.scale(cfg.replace(people_per_value=0), 1)["pools"] == "the paper's"
    assert px.scale(cfg.replace(n_people=300, people_per_value=10), 1)["pools"] == "30 values per pooled attribute"
    with pytest.raises(ParameterError, match="kind='GPT'"):
        px.model_label(cfg, "GPT")


def test_min_memorised_and_above_majority_pool_the_rows_a_claim_measures():
    df = pd.DataFrame(
        [
            {
                "setting": "with",
                "seed": 0,
                "attribute": "mean",
                "accuracy": 0.30,
                "majority": 0.05,
                "n": 600,
                "memorised": 0.99,
            },
            {
                "setting": "with",
                "seed": 1,
                "attribute": "mean",
                "accuracy": 0.20,
                "majority": 0.05,
                "n": 600,
                "memorised": 0.97,
            },
            {
                "setting": "with",
                "seed": 0,
                "attribute": "major",
                "accuracy": 0.90,
                "majority": 0.05,
                "n": 100,
                "memorised": 0.99,
            },
            {
                "setting": "without",
                "seed": 0,
                "attribute": "mean",
                "accuracy": 0.05,
                "majority": 0.05,
                "n": 600,
                "memorised": 0.80,
            },
        ]
    )
    assert px.min_memorised(df) == 0.80 and px.min_memorised(df, setting="with") == 0.97
    assert px.min_memorised(df, setting=["with", "without"], seed=0) == 0.80
    est, lo, hi = px.above_majority_interval(df, setting="with")
    assert est == pytest.approx(0.20) and 0.15 < lo < est < hi < 0.25  # 300 of 1,200 answers right vs 5%
    est, lo, hi = px.above_majority_interval(df, setting="without")  # at majority: the interval holds 0
    assert est == pytest.approx(0.0, abs=1e-9) and lo < 0 < hi
    with pytest.raises(ParameterError, match="no rows match"):
        px.min_memorised(df, setting="sometimes")
    with pytest.raises(ParameterError, match="'colour' is not a column"):
        px.min_memorised(df, colour="red")


def test_whole_packing_never_cuts_a_biography_from_its_name():
    from bertology_lib.training.objectives import IGNORE_INDEX, pack_whole

    w, lab = pack_whole([[5, 6, 7], [8, 9], [10, 11, 12, 13]], 8, 3)
    assert w.tolist() == [[3, 5, 6, 7, 3, 8, 9, 3], [3, 10, 11, 12, 13, 3, 3, 3]]
    assert lab.tolist()[1] == [3, 10, 11, 12, 13, 3, IGNORE_INDEX, IGNORE_INDEX]  # no loss on the filler
    with pytest.raises(ParameterError, match="does not fit seq_len=4"):
        pack_whole([[5, 6, 7, 8]], 4, 3)
    w, lab = pack_whole([[5, 6], [7]], 4, 3)  # seq_len - 2 tokens: an eos on each side fits
    assert w.tolist() == [[3, 5, 6, 3], [3, 7, 3, 3]] and lab.shape == w.shape
    with pytest.raises(ParameterError, match="a token list of 3 tokens does not fit seq_len=4 with an eos on each"):
        pack_whole([[5, 6, 7]], 4, 3)  # eos + 3 tokens fill the window: its closing eos would not fit
    ds = bios.generate_dataset(bios.BioConfig(n_people=12, seed=0))
    tok = pcfg.bios_tokenizer()
    windows, labels = ptrain.bio_rows(ds, tok, 128, "whole")
    stream, none = ptrain.bio_rows(ds, tok, 128, "stream")
    assert none is None and stream.shape[1] == windows.shape[1] == 128
    texts = [tok.decode([t for t in row if t != tok.eos_token_id]) for row in windows.tolist()]
    joined = " ".join(texts)
    assert all(tok.decode(tok(t, add_special_tokens=False)["input_ids"]) in joined for t in ds.texts())
    base = pcfg.PhysicsConfig(**{**pcfg.PhysicsConfig.SIZES["smoke"]})
    assert ptrain.pretrain_key(base) == ptrain.pretrain_key(base.replace(device="auto"))  # the device is no key
    assert ptrain.pretrain_key(base.replace(packing="whole"))["packing"] == "whole"
    with pytest.raises(ParameterError, match="packing='cut'"):
        base.replace(packing="cut")


def test_memorisation_leaves_out_values_written_before_the_name(small):
    from bertology_lib.data.bios import BioEntry
    from bertology_lib.experiments.physics.config import bios_tokenizer

    tok = bios_tokenizer()
    e = next(e for e in small.bios if e.spans[0][0] == "name" and e.spans[0][1] == 0)  # opens with the name
    before = BioEntry(e.person, e.copy, e.text, (("birth_date", 0, 1), *e.spans), e.sentence_starts)

    class Oracle(torch.nn.Module):  # right at every position except the first: only the value at word 0 is missed
        def __init__(self):
            super().__init__()
            self.w = torch.nn.Parameter(torch.zeros(1))

        def forward(self, input_ids, attention_mask=None):
            nxt = torch.cat([input_ids[:, 1:], input_ids[:, -1:]], dim=1)
            nxt[:, 0] = 0
            return type("Out", (), {"logits": torch.nn.functional.one_hot(nxt, len(tok)).float()})()

    n_values = sum(lab != "name" for lab, _, _ in e.spans)
    assert pev.bio_accuracy(Oracle(), tok, [e], first_token=True) == 1.0
    assert pev.bio_accuracy(Oracle(), tok, [before], first_token=True) == pytest.approx(n_values / (n_values + 1))
    assert pev.bio_accuracy(Oracle(), tok, [before], first_token=True, after_name=True) == 1.0
    with pytest.raises(ParameterError, match="after_name"):
        pev.bio_accuracy(None, None, [e], after_name="yes")


def test_memorisation_by_attribute_splits_the_check_and_fails_for_the_null_model(small, memorising_decoder):
    from transformers import LlamaForCausalLM

    model, tok = memorising_decoder
    row = pi.memorisation_by_attribute(model, tok, small, n_people=4)
    assert set(row) == {*bios.ATTRIBUTES, "all"}
    assert row["all"] == pev.memorisation(model, tok, small, n_people=4)  # the check's own number
    assert min(row[a] for a in bios.ATTRIBUTES) <= row["all"] <= max(row[a] for a in bios.ATTRIBUTES)
    torch.manual_seed(1)
    twin = LlamaForCausalLM(decoder.decoder_config("tiny", len(tok))).eval()
    null = pi.memorisation_by_attribute(twin, tok, small, n_people=4)
    assert null["all"] < 0.2 and all(null[a] < row[a] or row[a] == 0 for a in bios.ATTRIBUTES)


def test_memorisation_table_reads_each_pretrained_model_once(small, memorising_decoder, tmp_path, monkeypatch):
    model, tok = memorising_decoder
    base = pcfg.PhysicsConfig.for_profile("smoke")
    seen = []
    monkeypatch.setattr(ptrain, "load_model", lambda path, device="cpu": seen.append(path) or (model, tok))
    monkeypatch.setattr(pcfg.PhysicsConfig, "dataset", lambda self: small)
    grid = pd.DataFrame(
        {
            "augmentation": ["single"] * 3 + ["multi5"],
            "seed": [0, 0, 1, 0],
            "pretrained": ["a", "a", "b", "c"],
            "attribute": ["mean"] * 4,
        }
    )
    table = pi.memorisation_table(grid, base)
    assert seen == ["a", "b", "c"] and list(table.index) == [("single", 0), ("single", 1), ("multi5", 0)]
    assert table["passes"].tolist() == (table["all"] >= pev.MEMORISED).tolist()
    with pytest.raises(ParameterError, match="pretrained"):
        pi.memorisation_table(grid.drop(columns="pretrained"), base)
