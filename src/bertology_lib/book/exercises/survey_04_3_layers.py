"""Checkers of the exercises of ``survey_04_3_layers`` (§4.3 BERT layers, Rogers et al. 2020):

* ``ex-survey43-expected``: the expected layer of a probe's score curve (``emb.centre_of_gravity``);
* ``ex-survey43-distance``: the tree distances a structural probe is trained to match.

Both answers are functions, run on hidden curves and trees and compared with the library's own
implementation. Used by that notebook's exercise cells.
"""

from __future__ import annotations

from bertology_lib.book.exercises.checks import as_scalar, checker
from bertology_lib.book.exercises.cases import call


def _score_curves() -> list[list[float]]:
    """Hidden per-layer probe scores: rising, peaked, dipping, flat, falling, random."""
    import numpy as np

    rng = np.random.default_rng(4300)
    curves = [
        [0.5, 0.6, 0.8, 0.85, 0.86],
        [0.7, 0.9, 0.95, 0.92, 0.8, 0.85, 0.97],
        [0.9, 0.8, 0.7],
        [0.6, 0.6, 0.6, 0.6],
        [0.3, 0.2, 0.5, 0.4, 0.45, 0.9, 0.1],
    ]
    curves += [rng.uniform(0.4, 1.0, size=n).round(4).tolist() for n in (7, 13, 4)]
    return curves


def expected_layer_truth(scores) -> float:
    """``emb.centre_of_gravity`` of one curve (layers 0..L): the library's implementation is the reference."""
    import pandas as pd

    from bertology_lib.analysis.embeddings import centre_of_gravity

    df = pd.DataFrame({"target": "t", "model": "m", "layer": range(len(scores)), "accuracy": list(scores)})
    return float(centre_of_gravity(df).expected_layer.iloc[0])


def _gain_weighted(scores, best: bool = True, shift: int = 0) -> float:
    import numpy as np

    s = np.maximum.accumulate(np.asarray(scores, float)) if best else np.asarray(scores, float)
    gain = np.diff(s)
    return float(((np.arange(1, len(s)) + shift) * gain).sum() / gain.sum()) if gain.sum() > 0 else 0.0


@checker("ex-survey43-expected")
def _check_survey43_expected(answer):
    """``answer``: a function ``scores (list of per-layer floats, layer 0 first) -> float``, the expected layer as
    ``emb.centre_of_gravity`` computes it; within 1e-6 on eight hidden curves."""
    import numpy as np

    mistakes = {
        "a score that falls after its peak gives a negative gain; use the running maximum of the scores (what "
        "layers 0..l make available) before taking differences.": lambda s: _gain_weighted(s, best=False),
        "layers are 0-based: the first gain is that of layer 1.": lambda s: _gain_weighted(s, shift=1),
        "weight the layers by the gains, not by the scores themselves.": lambda s: float(
            (np.arange(len(s)) * np.asarray(s)).sum() / np.sum(s)
        ),
        "that is the best layer; the expected layer averages the layers by how much each one adds.": lambda s: float(
            np.argmax(s)
        ),
    }
    for scores in _score_curves():
        out, err = call(answer, list(scores))
        flat = max(scores) <= scores[0]
        if err and not flat:
            return False, err
        v = None if err else as_scalar(out)
        if v is None and flat:
            return (
                False,
                "when no layer improves on layer 0, the expected layer is 0 (everything is in the embeddings).",
            )
        if v is None:
            return False, f"expected your function to return a number, got {type(out).__name__}."
        if abs(v - expected_layer_truth(scores)) <= 1e-6:
            continue
        for hint, wrong in mistakes.items():
            if abs(v - wrong(scores)) <= 1e-6:
                return False, hint
        if flat:
            return (
                False,
                "when no layer improves on layer 0, the expected layer is 0 (everything is in the embeddings).",
            )
        return False, (
            "not quite: running maximum of the scores, gains between consecutive layers, then the "
            "gain-weighted mean of the layers 1..L."
        )
    return True, "correct: the expected layer of each target is what the pipeline figure above orders."


def _hidden_trees() -> list[tuple[int, ...]]:
    """Hidden gold trees (1-based heads, 0 = root): toy sentences of an unused seed, a chain and a star."""
    from bertology_lib.data.toy_english import ToyEnglishConfig, generate_corpus

    trees = [s.heads for s in generate_corpus(ToyEnglishConfig(n_sentences=6, seed=4343))]
    return trees + [(0, 1, 2, 3, 4), (3, 3, 0, 3, 3, 3), (0,)]


def tree_distance_truth(heads):
    """(n, n) edges between every pair of words: :func:`bertology_lib.analysis.structural_probe.tree_distances`."""
    from bertology_lib.analysis.structural_probe import tree_distances

    return tree_distances(heads)


@checker("ex-survey43-distance")
def _check_survey43_distance(answer):
    """``answer``: a function ``heads (1-based, 0 = root) -> (n, n) array`` of path lengths, equal to the gold
    distances on nine hidden trees."""
    import numpy as np

    from bertology_lib.analysis.structural_probe import tree_depths

    for heads in _hidden_trees():
        out, err = call(answer, tuple(heads))
        if err:
            return False, err
        truth = tree_distance_truth(heads)
        try:
            D = np.asarray(out, dtype=float)
        except (TypeError, ValueError):
            return False, f"expected an (n, n) array of distances, got {type(out).__name__}."
        if D.shape != truth.shape:
            return False, f"expected an (n, n) array for a sentence of n = {len(heads)} words, got shape {D.shape}."
        if np.allclose(D, truth):
            continue
        n = len(heads)
        depth = tree_depths(heads)
        if np.allclose(D, np.abs(depth[:, None] - depth[None, :])):
            return False, (
                "that is the difference of the two words' depths; two words on different branches are "
                "further apart than that: count the edges of the path between them."
            )
        if np.allclose(D, np.abs(np.arange(n)[:, None] - np.arange(n)[None, :])):
            return False, "that is the distance in the word order (the right-branching view); count edges of the tree."
        return False, (
            "not quite: link each word i to heads[i] - 1 (heads are 1-based, 0 is the root), then count "
            "the edges on the path between every two words, e.g. breadth-first from each word."
        )
    return True, "correct: these are the distances the probe's ‖B(h_i - h_j)‖² is trained to match."
