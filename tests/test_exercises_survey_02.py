"""Checked exercises of ``survey_02_architecture`` (checkers: ``bertology_lib.book.exercises.survey_02_architecture``).

For each exercise the truth agrees with an independent computation, the notebook's solution cell passes its check,
and typical wrong answers fail with their hint, without the answer in the message. The teacher solution of each
exercise is read from its notebook (``exercise_cells.solution``) and run here on the notebook's variables rebuilt
small.
"""

from __future__ import annotations

import re
import types

import pytest
import torch

import exercise_cells as cells
from bertology_lib.book import exercises as ex
from bertology_lib.book.exercises import survey_02_architecture as s2

NOTEBOOKS = {"survey_02_architecture": ("ex-survey2-params", "ex-survey2-embed")}
LABELS = [label for labels in NOTEBOOKS.values() for label in labels]


# -------------------------------------------------------------------------------- conventions


def test_labels_all_registered_with_docstrings():
    assert LABELS and len(LABELS) == len(set(LABELS))  # each label once
    for label in LABELS:
        assert label in ex.CHECKERS and ex.CHECKERS[label].__doc__, label


@pytest.mark.parametrize("label", LABELS)
def test_solution_starts_with_its_label_and_ends_with_the_check(label):
    code = cells.solution(label)
    first, last = code.splitlines()[0], code.strip().splitlines()[-1]
    assert first == f"# Exercise: {label}"
    assert re.fullmatch(rf'print\(check\("{label}", \w+\)\)', last), last


@pytest.mark.parametrize("label", LABELS)
def test_wrong_types_are_refused_politely(label):
    for answer in ("many", None, float("nan"), -1):
        fb = ex.check(label, answer)
        assert not fb.ok and fb.message, (label, answer)


# ================================================================================ survey_02_architecture


def test_survey2_params_truth_agrees_with_the_real_module():
    from bertology_lib.experiments.survey import architecture as arch

    def encoder(n: int) -> int:  # parameters n 768-wide layers add to a BertModel
        c0, cn = arch.bert_config("bert-base"), arch.bert_config("bert-base")
        c0.num_hidden_layers, cn.num_hidden_layers = 0, n
        return arch.instantiated_count(cn) - arch.instantiated_count(c0)

    n = s2.survey2_params_truth()
    emb = arch.bert_config("bert-large").vocab_size * 1024
    assert encoder(n - 1) <= emb < encoder(n)


def test_survey2_params_right_and_wrong_answers():
    n = s2.survey2_params_truth()
    ok = ex.check("ex-survey2-params", n)
    assert ok.ok and bool(ok) and "✅" in str(ok)
    assert ex.check("ex-survey2-params", float(n)).ok
    for wrong, hint in [
        (n - 1, "too few"),
        (n + 1, "too many"),
        (n - 0.6, "whole number"),
        ("five", "whole number"),
        (0, "at least one"),
        (True, "whole number"),
    ]:
        fb = ex.check("ex-survey2-params", wrong)
        assert not fb.ok and not fb and hint in fb.message, (wrong, fb)
        assert str(n) not in re.findall(r"\d+", fb.message), f"gives the answer away: {fb.message}"


def test_survey2_params_solution():
    from bertology_lib.experiments.survey import architecture as arch

    sizes = {name: arch.bert_config(name) for name in ("bert-base", "bert-large")}
    printed = cells.solve("ex-survey2-params", arch=arch, sizes=sizes)
    assert "one 768-wide layer:" in printed


def test_survey2_embed():
    from bertology_lib.experiments.survey import architecture as arch

    encoder, tokenizer = cells.minilm()
    ns = {
        "encoder": encoder,
        "tokenizer": tokenizer,
        "pairs": arch.example_pairs(2),
        "params": types.SimpleNamespace(model="minilm"),
    }
    printed = cells.solve("ex-survey2-embed", **ns)
    assert float(re.search(r"output (\S+)\n", printed).group(1)) < 1e-4

    def no_layernorm(emb, ids, seg):
        return (
            emb.word_embeddings(ids)
            + emb.position_embeddings(torch.arange(ids.shape[1]))[None]
            + emb.token_type_embeddings(seg)
        )

    def no_positions(emb, ids, seg):
        return emb.LayerNorm(emb.word_embeddings(ids) + emb.token_type_embeddings(seg))

    def no_segments(emb, ids, seg):
        return emb.LayerNorm(emb.word_embeddings(ids) + emb.position_embeddings(torch.arange(ids.shape[1]))[None])

    cells.fails("ex-survey2-embed", no_layernorm, "before normalisation")
    cells.fails("ex-survey2-embed", no_positions, "position embeddings are missing")
    cells.fails("ex-survey2-embed", no_segments, "segment embeddings are missing")
    cells.fails("ex-survey2-embed", lambda emb, ids, seg: emb(input_ids=ids, token_type_ids=seg), "calls the embedding")
    cells.fails("ex-survey2-embed", lambda emb, ids, seg: ids[0], "shape")
    cells.fails("ex-survey2-embed", lambda emb, ids, seg: 1 / 0, "ZeroDivisionError")
    cells.fails("ex-survey2-embed", no_layernorm(*s2._tiny_berts()[0]), "expected a function")
