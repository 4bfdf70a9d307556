"""The survey's §3.1 (syntax): hierarchical rather than linear structure, Lin et al. (2019)'s auxiliary probe.

Lin et al. train diagnostic classifiers on BERT's states to find the *main* auxiliary of a sentence whose subject
carries a relative clause with an auxiliary of its own ("the dog that was chased has barked"): the main one is
defined by the tree, not by its place in the word order. :func:`auxiliary_table` picks, from toy sentences with
gold trees, every auxiliary of the sentences that have one in the main clause and one in an embedded clause and
labels it ``main`` or ``embedded``; :func:`auxiliary_probes` probes every layer for that label (train /
validation / test split by sentence) beside three baselines: the random-init twin, each auxiliary form's
majority label, and the better of the linear rules "the first auxiliary is the main one" and "the last one is"
(:data:`LINEAR`, chosen on the training sentences). Used by ``survey_03_1_syntax``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from bertology_lib.analysis import heldout
from bertology_lib.analysis.probing import ProbeConfig
from bertology_lib.analysis.word_probes import HeldOutProbes
from bertology_lib.errors import ParameterError

LINEAR = "first or last auxiliary"


def auxiliary_table(sentences: Sequence) -> pd.DataFrame:
    """One row per auxiliary (UPOS ``AUX``) of each sentence that has an auxiliary in its main clause (attached
    to the root verb) and one elsewhere: ``sentence`` (index in ``sentences``), ``position``, ``word``,
    ``clause`` (``main`` / ``embedded``), ``first`` and ``last`` (is it the sentence's first / last auxiliary)."""
    rows = []
    for i, s in enumerate(sentences):
        aux = [j for j, pos in enumerate(s.upos) if pos == "AUX"]
        main = [s.heads[j] > 0 and s.heads[s.heads[j] - 1] == 0 for j in aux]
        if not (any(main) and not all(main)):
            continue
        for k, (j, is_main) in enumerate(zip(aux, main)):
            rows.append(
                {
                    "sentence": i,
                    "position": j,
                    "word": s.words[j],
                    "clause": "main" if is_main else "embedded",
                    "first": k == 0,
                    "last": k == len(aux) - 1,
                }
            )
    if not rows:
        raise ParameterError(
            f"none of {len(sentences)} sentences has auxiliaries in both a main and an embedded "
            "clause; allowed: sentences with such pairs (relative clauses with auxiliaries)"
        )
    return pd.DataFrame(rows)


def auxiliary_probes(
    states: Mapping[str, Any],
    offsets: Sequence[int],
    table: pd.DataFrame,
    fractions: Sequence[float] = (0.6, 0.15, 0.25),
    probe_iter: int = 100,
) -> HeldOutProbes:
    """Layer probes for ``table``'s ``clause`` (:func:`auxiliary_table`) from word ``states`` (label ->
    (layers, words, d); word ``p`` of sentence ``s`` at row ``offsets[s] + p``), split by sentence
    (:func:`~bertology_lib.analysis.heldout.sentence_split3`). The predictions include :data:`LINEAR`, the
    linear-order rule (first vs last auxiliary, whichever is right more often on the training rows), as a
    one-layer model, so :meth:`~bertology_lib.analysis.word_probes.HeldOutProbes.gap` can use it as a baseline."""
    t = table.reset_index(drop=True).assign(orig_sentence=table["sentence"].to_numpy())
    t["sentence"] = pd.factorize(t["orig_sentence"])[0]  # consecutive ids, in order, for the split
    split = heldout.sentence_split3(t, fractions)
    rows = np.asarray([offsets[s] + p for s, p in zip(t.orig_sentence, t.position)])
    labels = t["clause"].tolist()
    cfg = ProbeConfig(max_iter=probe_iter)
    preds = {
        (label, "clause"): heldout.probe_predictions(X[:, rows], labels, split, cfg) for label, X in states.items()
    }
    is_main = (t["clause"] == "main").to_numpy()
    rule = max(("first", "last"), key=lambda c: float((t[c].to_numpy()[split.train] == is_main[split.train]).mean()))
    right = t[rule].to_numpy() == is_main
    preds[(LINEAR, "clause")] = heldout.LayerPredictions(right[split.val][None, :], right[split.test][None, :])
    majority = {"clause": heldout.majority_predictions(t["word"].tolist(), labels, split)}
    return HeldOutProbes(t, split, {"all": np.ones(len(t), bool)}, preds, majority, cfg.kind)
