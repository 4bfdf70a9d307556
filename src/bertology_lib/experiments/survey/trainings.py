"""The §3.1 headline rows over several trainings of the mini-BERT: intervals over trainings *and* items.

One trained network is one draw of its training (weight initialisation, data order): an interval that resamples
the test items of one model says how precisely *that* model was measured, not how the claim would come out on
another training of the same recipe. At 2 threads the mini-BERT trains to another model and
``survey3.1.agreement_attractors`` moved from reproduced to inconclusive. So the rows that read the mini-BERT's
knowledge of syntax (agreement with attractors, NPI licensing, POS and tree depth probes, perturbed masking) are
measured on :data:`N_TRAININGS` trainings (seeds ``seed``, ``seed + 1``, ...; the same corpus, tokenizer and
items, only the training seed differs), each trained once as a cached unit (``bertology build --jobs N`` trains
them side by side, :data:`READERS`), and their interval covers both the spread over trainings and the sampling of
the items (:func:`bertology_lib.stats.seed_item_interval`: Student's t over trainings plus a bootstrap over
items, Welch–Satterthwaite degrees of freedom; it errs wide). The estimate is the mean over trainings.

A model other than the mini-BERT (a hub model, a local folder, the null model) has one training:
:func:`load_trainings` returns it alone and the notebook keeps its one-model intervals.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from bertology_lib import stats
from bertology_lib.errors import ParameterError
from bertology_lib.validation import check_int

N_TRAININGS = 3  # the mini-BERT's trainings behind each §3.1 headline row
READERS = ("survey_03_1_syntax",)  # the notebooks that read them (their extra trainings run as jobs of their own)


def training_seeds(seed: int, n: int = N_TRAININGS) -> list[int]:
    """The training seeds of the ``n`` trainings of a run with ``seed``: ``seed``, ``seed + 1``, ..."""
    check_int("seed", seed, minimum=0)
    check_int("n", n, minimum=1)
    return [seed + i for i in range(n)]


def load_trainings(params: Any, first: Any, n: int = N_TRAININGS) -> list[tuple[int, Any]]:
    """``[(training seed, masked LM), ...]``: the run's model ``first`` (already loaded, seed ``params.seed``)
    and, when it is the mini-BERT, its ``n - 1`` further trainings (each trained once and cached, or found in the
    cache); any other model alone."""
    from bertology_lib.models import minibert
    from bertology_lib.models.registry import load_model

    if params.model != minibert.NAME:
        return [(params.seed, first)]
    out = [(params.seed, first)]
    for s in training_seeds(params.seed, n)[1:]:
        out.append((s, load_model(minibert.NAME, head="mlm", device=params.device, profile=params.profile, seed=s)))
    return out


def _check(per_training: Sequence[Any], what: str) -> None:
    if len(per_training) < 2:
        raise ParameterError(
            f"{what}: {len(per_training)} training(s); allowed: at least 2 (one model keeps its own interval)"
        )


def mean_interval(correct: np.ndarray, seed: int = 0) -> tuple[float, float, float]:
    """Mean over trainings of the accuracy on the same items: ``correct`` (trainings, items) of 0/1 scores."""
    _check(correct, "mean_interval")
    return stats.accuracy_gap_interval(np.asarray(correct, dtype=float), scale=1.0, seed=seed)


def attractor_row(
    correct: np.ndarray, twin: np.ndarray, attractors: np.ndarray, beats_ngram: Any, seed: int = 0
) -> tuple[list[float], dict, dict | None]:
    """``(ours, checks, details)`` of ``survey3.1.agreement_attractors``: ``correct`` (trainings, items) 0/1 agreement
    of each training on the same items, ``twin`` the random-init twin's on them, ``attractors`` the items with 1-3
    attractors, ``beats_ngram`` the first training's interval over the n-gram. With one training: the share right
    on the attractor items with a Wilson interval, and the twin compared item by item; with several: the mean over
    trainings with an interval over trainings and items, the no-attractor check on the weakest training."""
    correct = np.atleast_2d(np.asarray(correct, dtype=float))
    twin, attractors = np.asarray(twin, dtype=float), np.asarray(attractors, dtype=bool)
    on, off = correct[:, attractors], correct[:, ~attractors]
    if len(correct) == 1:
        k, n = int(on.sum()), int(attractors.sum())
        checks = {
            "no_attractor_agreement": float(off.mean()),
            "beats_twin": stats.paired_gap(on[0], twin[attractors]),
            "mlm_beats_ngram": beats_ngram,
        }
        return [k / n, *stats.wilson_interval(k, n)], checks, None
    checks = {
        "no_attractor_agreement": float(off.mean(1).min()),  # the weakest training
        "beats_twin": stats.accuracy_gap_interval(
            on, np.broadcast_to(twin[attractors], on.shape), scale=1.0, seed=seed
        ),
        "mlm_beats_ngram": beats_ngram,
    }
    details = {
        "per_training": [round(float(x), 4) for x in on.mean(1)],
        "no_attractor_per_training": [round(float(x), 4) for x in off.mean(1)],
    }
    return list(mean_interval(on, seed=seed)), checks, details


def licensing_row(correct: np.ndarray, condition: np.ndarray, seed: int = 0) -> tuple[list[float], list[float]]:
    """``(ours, per training)`` of ``survey3.1.npi_licensing``: the share choosing the NPI on licensed items minus
    that on unlicensed items (where the plain word is right), from ``correct`` (trainings, items) 0/1 scores on the
    NPI suite and each item's ``condition``. One training: :func:`bertology_lib.stats.accuracy_gap`; several: the
    mean over trainings with :func:`two_group_interval`."""
    correct = np.atleast_2d(np.asarray(correct, dtype=float))
    condition = np.asarray(condition)
    chose_lic, chose_unl = correct[:, condition == "licensed"], 1 - correct[:, condition == "unlicensed"]
    per_training = [round(float(x), 4) for x in chose_lic.mean(1) - chose_unl.mean(1)]
    if len(correct) == 1:
        return list(stats.accuracy_gap(chose_lic[0], chose_unl[0])), per_training
    return list(two_group_interval(chose_lic, chose_unl, seed=seed)), per_training


def two_group_interval(a: np.ndarray, b: np.ndarray, seed: int = 0) -> tuple[float, float, float]:
    """Mean over trainings of (mean of ``a``'s items - mean of ``b``'s items), ``a`` (trainings, n_a) and ``b``
    (trainings, n_b) scored on two disjoint item sets (e.g. licensed and unlicensed NPI items); the bootstrap
    draws from the pooled items, so each resample's two groups vary in size (an unstratified bootstrap: it errs
    wide)."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    _check(a, "two_group_interval")
    if a.ndim != 2 or b.ndim != 2 or a.shape[0] != b.shape[0] or min(a.shape[1], b.shape[1]) < 2:
        raise ParameterError(
            f"a and b have shapes {a.shape} and {b.shape}; allowed: (trainings, items) arrays of the same trainings, "
            "at least 2 items each"
        )
    x = np.concatenate([a, b], axis=1)
    in_a = np.r_[np.ones(a.shape[1], bool), np.zeros(b.shape[1], bool)]

    def per_training(idx: np.ndarray) -> np.ndarray:
        ia, ib = idx[in_a[idx]], idx[~in_a[idx]]
        if len(ia) == 0 or len(ib) == 0:  # a resample with one group empty: no difference to measure
            return np.full(x.shape[0], np.nan)
        return x[:, ia].mean(1) - x[:, ib].mean(1)

    return stats.seed_item_interval(per_training, x.shape[1], seed=seed)


def gap_terms(
    probes: Any, model: str, target: str, against: Sequence[str], subset: str = "all"
) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict]:
    """What :meth:`~bertology_lib.analysis.word_probes.HeldOutProbes.gap` compares, before its interval: ``(a, b,
    groups, info)``, the 0/1 correctness of ``model`` at its validation-chosen layer and of the strongest
    ``against`` baseline on the same test tokens, each token's test sentence, and ``gap``'s own dict (layers,
    accuracies, the baseline's name, ``n_test``): the layer and the baseline are chosen by ``gap`` itself, and
    the arrays read off the probes' public predictions."""
    from bertology_lib.analysis.word_probes import MAJORITY

    info = probes.gap(model, target, against, subset=subset)
    test = probes.subsets[subset][probes.split.test]

    def predictions(name: str):
        return probes.majority[target] if name == MAJORITY else probes.predictions[(name, target)]

    a = predictions(model).test[info["layer"], test]
    b = predictions(info["baseline"]).test[info["baseline_layer"], test]
    return a, b, probes.split.groups[probes.split.test][test], info


def probe_gap(per_training: Sequence[tuple[np.ndarray, np.ndarray, np.ndarray, dict]], seed: int = 0) -> dict:
    """A probe's accuracy over its strongest baseline, mean over trainings, with an interval over trainings and
    test sentences: ``per_training`` holds each training's
    :func:`gap_terms` (the same probe sentences and split, so the same test tokens). Returns ``gap``, ``low``, ``high``, the per-training ``layers``, ``accuracies``,
    ``baselines`` and ``baseline_accuracies``, and ``n_test``."""
    _check(per_training, "probe_gap")
    groups = per_training[0][2]
    if any(len(g) != len(groups) or not np.array_equal(g, groups) for _, _, g, _ in per_training):
        raise ParameterError("probe_gap: the trainings were probed on different test tokens; allowed: one split")
    keys, inverse = np.unique(groups, return_inverse=True)
    counts = np.bincount(inverse, minlength=len(keys)).astype(float)

    def sums(x: np.ndarray) -> np.ndarray:
        return np.bincount(inverse, weights=np.asarray(x, dtype=float), minlength=len(keys))

    a = np.stack([sums(t[0]) for t in per_training])
    b = np.stack([sums(t[1]) for t in per_training])
    g, low, high = stats.accuracy_gap_interval(a, b, counts=counts, scale=1.0, seed=seed)
    infos = [t[3] for t in per_training]
    return {
        "gap": g,
        "low": low,
        "high": high,
        "layers": [i["layer"] for i in infos],
        "accuracies": [round(i["accuracy"], 4) for i in infos],
        "baselines": [i["baseline"] for i in infos],
        "baseline_accuracies": [round(i["baseline_accuracy"], 4) for i in infos],
        "n_test": infos[0]["n_test"],
    }


def arc_gap_interval(per_training: Sequence[Sequence], twin: Sequence, seed: int = 0) -> tuple[float, float, float]:
    """Perturbed masking's distance-matched arc gap (:func:`bertology_lib.analysis.perturbed_masking.arc_gap`) of
    each training minus the random-init twin's, on the same sentences: mean over trainings, with an interval over
    trainings and sentences."""
    from bertology_lib.analysis.perturbed_masking import arc_gap

    _check(per_training, "arc_gap_interval")
    n = len(twin)
    if any(len(t) != n for t in per_training) or n < 2:
        raise ParameterError(
            f"{[len(t) for t in per_training]} and {n} sentences; allowed: the same sentences, at least 2"
        )
    return stats.seed_item_interval(
        lambda idx: np.array([arc_gap(t, idx) - arc_gap(twin, idx) for t in per_training]), n, seed=seed
    )
