"""Lin et al.'s main-auxiliary probe: labels from the tree, the linear baseline, and a null that fails."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
import torch

from bertology_lib.analysis.word_probes import MAJORITY
from bertology_lib.errors import ParameterError
from bertology_lib.experiments.survey import syntax


def _sentence(subject_clause: bool, aux_main: str = "has", aux_rel: str = "was"):
    """'the dog that was chased has barked .' (relative clause on the subject: embedded auxiliary first) or
    'the dog has chased the cat that was fed .' (on the object: main auxiliary first); heads 1-based."""
    if subject_clause:
        words = ["the", "dog", "that", aux_rel, "chased", aux_main, "barked", "."]
        upos = ["DET", "NOUN", "PRON", "AUX", "VERB", "AUX", "VERB", "PUNCT"]
        heads = [2, 7, 5, 5, 2, 7, 0, 7]
    else:
        words = ["the", "dog", aux_main, "chased", "the", "cat", "that", aux_rel, "fed", "."]
        upos = ["DET", "NOUN", "AUX", "VERB", "DET", "NOUN", "PRON", "AUX", "VERB", "PUNCT"]
        heads = [2, 4, 4, 0, 6, 4, 9, 9, 6, 4]
    return SimpleNamespace(words=tuple(words), upos=tuple(upos), heads=tuple(heads))


def test_auxiliary_table_labels_from_the_tree():
    t = syntax.auxiliary_table(
        [_sentence(True), _sentence(False), SimpleNamespace(words=("a",), upos=("X",), heads=(0,))]
    )
    assert t.clause.tolist() == ["embedded", "main", "main", "embedded"]
    assert t["first"].tolist() == [True, False, True, False] and set(t.sentence) == {0, 1}
    with pytest.raises(ParameterError, match="none of 1 sentences"):
        syntax.auxiliary_table([SimpleNamespace(words=("a",), upos=("X",), heads=(0,))])


def test_probe_beats_the_linear_rule_only_when_states_carry_the_clause():
    rng = np.random.default_rng(0)
    sents = [_sentence(bool(rng.integers(2)), *rng.choice(["has", "was", "is", "had"], 2)) for _ in range(200)]
    table = syntax.auxiliary_table(sents)
    offsets = np.cumsum([0] + [len(s.words) for s in sents])[:-1]
    n_words = sum(len(s.words) for s in sents)
    noise = torch.randn(2, n_words, 4, generator=torch.Generator().manual_seed(0))
    clause = noise.clone()
    rows = [offsets[s] + p for s, p in zip(table.sentence, table.position)]
    clause[1, rows, 0] += 4.0 * torch.tensor((table.clause == "main").to_numpy(), dtype=torch.float)
    probes = syntax.auxiliary_probes({"clause": clause, "noise": noise}, offsets, table, probe_iter=50)
    against = [syntax.LINEAR, MAJORITY]
    assert probes.gap("clause", "clause", ["noise", *against])["low"] > 0.2
    assert probes.gap("noise", "clause", against)["low"] < 0.05  # the null does not pass
    assert probes.gap(syntax.LINEAR, "clause", [MAJORITY])["accuracy"] == pytest.approx(0.5, abs=0.15)
