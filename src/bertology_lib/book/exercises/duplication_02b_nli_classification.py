"""Checkers of the exercises of ``duplication_02b_nli_classification`` (Duplicating layers II: NLI and sentence
classification, Kao et al. 2020):

* ``ex-dup2-ensemble``: the probability-summing ensemble of the fair comparison;
* ``ex-dup2-floor-gap``: the instrument check, the baseline's score minus the majority-label floor over seeds.

Every answer is a function, run on hidden cases; the truths come from the library
(``training.predictions.ensemble``, ``data.tasks.floor_scores``, ``stats.paired_test``) on inputs built here, so
none depends on the profile the notebook runs at. Used by that notebook's exercise cells.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from types import SimpleNamespace

from bertology_lib.book.exercises.cases import judge_function, numbers, within
from bertology_lib.book.exercises.checks import as_number, checker


def _ensemble_cases() -> list[tuple[list, list[int]]]:
    """(member probabilities (N, C) per member, gold labels): random members of different confidence, and a
    small case where a confident member outvotes two hesitant ones."""
    import torch

    g = torch.Generator().manual_seed(3)
    cases = []
    for n, c, temps in ((200, 3, (0.5, 2.0, 1.0)), (150, 2, (3.0, 0.3)), (120, 4, (1.0, 1.0, 0.4, 2.5, 1.5))):
        golds = torch.randint(c, (n,), generator=g)
        members = []
        for t in temps:
            logits = torch.randn(n, c, generator=g) * t
            logits[torch.arange(n), golds] += 0.6
            members.append(logits.softmax(-1))
        cases.append((members, golds.tolist()))
    small = [
        torch.tensor([[0.9, 0.1], [0.2, 0.8], [0.6, 0.4]]),
        torch.tensor([[0.45, 0.55], [0.55, 0.45], [0.3, 0.7]]),
        torch.tensor([[0.45, 0.55], [0.1, 0.9], [0.4, 0.6]]),
    ]
    cases.append((small, [0, 1, 0]))
    return cases


def dup2_ensemble_truth(member_probs: Sequence, golds: Sequence[int]) -> float:
    """Accuracy of the ensemble that sums the members' probabilities (Kao et al. 2020; the notebook's fair
    comparison): ``training.predictions.ensemble`` on one ``Predictions`` per member."""
    import torch

    from bertology_lib.training.predictions import Predictions, ensemble

    ids = [f"x{i}" for i in range(len(golds))]
    preds = [
        Predictions(
            "classification",
            ids,
            list(golds),
            {"probs": torch.as_tensor(p).float()},
            n_labels=int(torch.as_tensor(p).shape[1]),
        )
        for p in member_probs
    ]
    return float(ensemble(preds)["accuracy"])


def _ensemble_mistakes(member_probs: Sequence, golds: Sequence[int]) -> dict[str, float]:
    import torch

    g = torch.tensor(list(golds))
    p = torch.stack([torch.as_tensor(m).double() for m in member_probs])  # (K, N, C)
    accs = [float((m.argmax(-1) == g).double().mean()) for m in p]
    votes = torch.nn.functional.one_hot(p.argmax(-1), p.shape[-1]).sum(0)  # (N, C)
    return {
        "vote": float((votes.argmax(-1) == g).double().mean()),
        "mean": sum(accs) / len(accs),
        "best": max(accs),
        "log": float((p.log().sum(0).argmax(-1) == g).double().mean()),
    }


_ENSEMBLE_HINTS = {
    "mean": "that is the members' mean accuracy; the ensemble makes one prediction per example from all members "
    "together.",
    "best": "that is the best member's accuracy; the ensemble combines every member's prediction.",
    "vote": "a majority vote throws away how confident each member is; sum the members' probabilities, then take "
    "the argmax.",
    "log": "summing log-probabilities multiplies the members' probabilities; the ensemble here sums the "
    "probabilities themselves.",
}


@checker("ex-dup2-ensemble")
def _check_dup2_ensemble(answer):
    """``answer``: a function ``ensemble_accuracy(member_probs, golds)`` taking one (N, C) probability tensor
    per member and the N gold labels, returning the accuracy of the argmax of the summed probabilities; run on
    hidden members, +-1e-6."""
    return judge_function(
        answer,
        "ensemble_accuracy",
        _ensemble_cases(),
        show=lambda c: f"ensemble_accuracy(member_probs, golds) with {len(c[0])} members",
        read=as_number,
        refuse="ensemble_accuracy should return a number, got {first!r}.",
        screen=lambda v: "give the accuracy as a share in [0, 1]." if any(x > 1 for x in v) else None,
        truth=dup2_ensemble_truth,
        match=within(1e-6),
        mistakes=_ensemble_mistakes,
        hints=_ENSEMBLE_HINTS,
        ok=(
            "correct: the fair comparison builds the same kind of ensemble from as many baseline seeds, so a gain of "
            "the duplicated ensemble is not just ensembling."
        ),
        not_yet=(
            "not yet: add up the members' (N, C) probabilities, predict the argmax per example and compare "
            "with the gold labels."
        ),
    )


def _floor_cases() -> list[tuple[list[float], list[int], list[int], int]]:
    """(baseline scores over seeds, training labels, test labels, number of labels): the training majority
    differs from the test majority, one training set ties (its first label the larger one), unbalanced
    labels so the floor is not chance, few seeds so t differs from 1.96, and a baseline below its floor."""
    return [
        ([0.52, 0.49, 0.55, 0.50, 0.47], [0] * 40 + [1] * 35 + [2] * 25, [0] * 30 + [1] * 25 + [2] * 45, 3),
        ([0.61, 0.58, 0.66], [1, 0] * 30, [0] * 18 + [1] * 32, 2),
        ([0.40, 0.47], [3] * 12 + [0] * 10 + [1] * 5 + [2] * 3, [3] * 9 + [0] * 15 + [1] * 10 + [2] * 6, 4),
        ([0.30, 0.35, 0.31, 0.33], [2] * 7 + [1] * 9 + [0] * 4, [0] * 5 + [1] * 20 + [2] * 15, 3),
    ]


def _labels_task(train: Sequence[int], test: Sequence[int], n_labels: int):
    """A classification task shaped as ``data.tasks`` ones are, with these labels (what ``floor_scores``
    reads)."""
    splits = {"train": [SimpleNamespace(label=y) for y in train], "test": [SimpleNamespace(label=y) for y in test]}
    return SimpleNamespace(
        name="hidden",
        kind="classification",
        n_labels=n_labels,
        label_names=[f"label {c}" for c in range(n_labels)],
        examples=lambda split: splits[split],
    )


def dup2_floor_gap_truth(
    scores: Sequence[float], train: Sequence[int], test: Sequence[int], n_labels: int
) -> tuple[float, float, float]:
    """The baseline's score minus the task's floor (the test accuracy of always predicting the majority
    training label, the smaller label on a tie: ``data.tasks.floor_scores``), over seeds: mean with its 95% t
    interval (``stats.paired_test`` against 0), unrounded; what ``dup.floor_gap`` gives, before rounding."""
    from bertology_lib import stats
    from bertology_lib.data.tasks import floor_scores

    floor = floor_scores(_labels_task(train, test, n_labels), "test")["accuracy"]
    return stats.paired_test([s - floor for s in scores], [0.0] * len(scores)).interval()


def _floor_mistakes(
    scores: Sequence[float], train: Sequence[int], test: Sequence[int], n_labels: int
) -> dict[str, tuple[float, float, float]]:
    from collections import Counter

    from scipy import stats as st

    def acc(label):
        return sum(y == label for y in test) / len(test)

    def gap(floor, q=None, ddof=1, sign=1.0):
        d = [sign * (s - floor) for s in scores]
        n = len(d)
        m = sum(d) / n
        sd = math.sqrt(sum((x - m) ** 2 for x in d) / (n - ddof))
        half = (float(st.t.ppf(0.975, n - 1)) if q is None else q) * sd / math.sqrt(n)
        return m, m - half, m + half

    counts = Counter(train)
    top = max(range(n_labels), key=lambda c: (counts[c], -c))
    floor = acc(top)
    return {
        "test majority": gap(max(Counter(test).values()) / len(test)),
        "training share": gap(counts[top] / len(train)),
        "chance": gap(1 / n_labels),
        "first met": gap(acc(counts.most_common(1)[0][0])),
        "reversed": gap(floor, sign=-1.0),
        "z": gap(floor, q=1.959964),
        "ddof": gap(floor, ddof=0),
        "percent": tuple(100 * x for x in gap(floor)),
    }


_FLOOR_HINTS = {
    "test majority": "the floor always predicts the most frequent *training* label (all that a model that learned "
    "nothing can know); the test split's most frequent label peeks at the answers.",
    "training share": "the floor is the test accuracy of always predicting the majority training label, not that "
    "label's share of the training set.",
    "chance": "the floor is not chance (1 / number of labels): always predicting the majority label scores more "
    "when the labels are unbalanced.",
    "first met": "on a tie, take the smallest label (as tasks.floor_scores does); Counter.most_common keeps "
    "whichever label it met first.",
    "reversed": "the gap is the baseline's score minus the floor: positive when the baseline learned something.",
    "z": "with a few seeds the interval uses Student's t with n - 1 degrees of freedom; 1.96 is its large-n limit.",
    "ddof": "the standard deviation over seeds divides by n - 1 (one mean estimated), not n.",
    "percent": "give the gap in the scores' own units (accuracy as a share in [0, 1]), not in points.",
}


@checker("ex-dup2-floor-gap")
def _check_dup2_floor_gap(answer):
    """``answer``: a function ``floor_gap(scores, train_labels, test_labels)`` taking the baseline's test
    accuracy per seed and the task's training and test labels, returning ``(mean, low, high)``: the mean over
    seeds of score minus the floor (the test accuracy of always predicting the most frequent training label,
    the smallest on a tie) with its 95% t interval; run on hidden tasks, +-1e-6."""

    def not_yet(i, v, t):
        if abs(v[i][0] - t[i][0]) <= 1e-6:
            return (
                "the mean gap is right but not its interval: mean -+ t(0.975, n - 1) x sd / sqrt(n), with the "
                "sd of the per-seed gaps."
            )
        return (
            "not yet: the floor is the share of test labels equal to the most frequent training label; "
            "subtract it from every seed's score, then take the mean and its 95% t interval."
        )

    return judge_function(  # a case also holds the number of labels, which the answer is not given
        answer,
        "floor_gap",
        _floor_cases(),
        inputs=lambda c: c[:3],
        show=lambda c: f"floor_gap(scores, train_labels, test_labels) with {len(c[0])} seeds",
        read=lambda g: numbers(g, 3),
        refuse="floor_gap should return three numbers (mean, low, high), got {first!r}.",
        truth=dup2_floor_gap_truth,
        match=within(1e-6),
        mistakes=_floor_mistakes,
        hints=_FLOOR_HINTS,
        ok=(
            "correct: a comparison between two models is only evidence when the baseline's whole interval is above "
            "the floor; at the floor both models learned nothing to compare."
        ),
        not_yet=not_yet,
    )
