"""Task metrics: SQuAD 2.0 exact match and F1 with no-answer handling, and accuracy/macro-F1.

QA metrics follow the official SQuAD 2.0 script (answers normalised: lower case,
punctuation and articles removed; an empty prediction means "no answer") but are
reported as fractions in [0, 1], not percentages. Used by
:mod:`bertology_lib.training.predictions` and the tests.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Sequence

from bertology_lib.errors import ParameterError

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCT = set(string.punctuation)


def normalize_answer(s: str) -> str:
    """SQuAD normalisation: lower case, drop punctuation and articles, collapse whitespace."""
    s = "".join(ch for ch in s.lower() if ch not in _PUNCT)
    return " ".join(_ARTICLES.sub(" ", s).split())


def squad_exact(prediction: str, gold: str) -> float:
    """1.0 when the normalised strings are equal ("" = no answer, so "" vs "" is a match)."""
    return float(normalize_answer(prediction) == normalize_answer(gold))


def squad_f1(prediction: str, gold: str) -> float:
    """Token-overlap F1 of the normalised answers; with no answer on either side, 1.0 iff both are empty."""
    p, g = normalize_answer(prediction).split(), normalize_answer(gold).split()
    if not p or not g:
        return float(p == g)
    common = sum((Counter(p) & Counter(g)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(p), common / len(g)
    return 2 * precision * recall / (precision + recall)


def qa_metrics(predictions: Sequence[str], golds: Sequence[str]) -> dict[str, float]:
    """SQuAD 2.0 metrics over (prediction, gold) answer strings ("" = no answer), as fractions.

    ``exact``/``f1`` over all; ``has_ans_*`` over answerable, ``no_ans_*`` over unanswerable
    questions (``no_ans_exact`` = share of those correctly left unanswered), and
    ``no_answer_rate`` = share of predictions that abstain.
    """
    if len(predictions) != len(golds):
        raise ParameterError(f"{len(predictions)} predictions for {len(golds)} golds; allowed: equal lengths")
    if not golds:
        raise ParameterError("no examples to score; allowed: at least one")
    ex = [squad_exact(p, g) for p, g in zip(predictions, golds)]
    f1 = [squad_f1(p, g) for p, g in zip(predictions, golds)]
    has = [i for i, g in enumerate(golds) if normalize_answer(g)]
    no = [i for i, g in enumerate(golds) if not normalize_answer(g)]

    def mean(xs: Sequence[float], idx: Sequence[int] | None = None) -> float:
        vals = xs if idx is None else [xs[i] for i in idx]
        return sum(vals) / len(vals) if vals else float("nan")

    return {
        "exact": mean(ex),
        "f1": mean(f1),
        "has_ans_exact": mean(ex, has),
        "has_ans_f1": mean(f1, has),
        "no_ans_exact": mean(ex, no),
        "no_answer_rate": mean([float(not normalize_answer(p)) for p in predictions]),
        "n": float(len(golds)),
        "n_has_ans": float(len(has)),
        "n_no_ans": float(len(no)),
    }


def classification_metrics(predicted: Sequence[int], labels: Sequence[int], n_labels: int) -> dict[str, float]:
    """Accuracy and macro-F1 (per-class F1 averaged; a class never predicted nor gold is skipped)."""
    if len(predicted) != len(labels) or not labels:
        raise ParameterError(f"{len(predicted)} predictions for {len(labels)} labels; allowed: equal, non-zero")
    acc = sum(int(p == y) for p, y in zip(predicted, labels)) / len(labels)
    f1s = []
    for c in range(n_labels):
        tp = sum(1 for p, y in zip(predicted, labels) if p == c and y == c)
        fp = sum(1 for p, y in zip(predicted, labels) if p == c and y != c)
        fn = sum(1 for p, y in zip(predicted, labels) if p != c and y == c)
        if tp + fp + fn:
            f1s.append(2 * tp / (2 * tp + fp + fn))
    return {"accuracy": acc, "macro_f1": sum(f1s) / len(f1s) if f1s else 0.0, "n": float(len(labels))}


def floor_scores(task, split: str = "test") -> dict[str, float]:
    """What a model that learned nothing from the inputs scores on ``split`` of ``task``: the metrics of
    always predicting the majority training label (classification), or of always abstaining (QA:
    "no answer" everywhere). A fine-tuned model is only evidence about a gain when it beats this floor;
    ``name`` says which predictor it is."""
    golds = task.examples(split)
    if not golds:
        raise ParameterError(f"task {task.name!r} has no {split!r} examples; allowed: a split with examples")
    if task.kind == "qa":
        out = qa_metrics([""] * len(golds), [g.answer_text for g in golds])
        return {**out, "name": "always no answer"}
    train = task.examples("train") or golds
    counts = [0] * task.n_labels
    for ex in train:
        counts[ex.label] += 1
    top = max(range(task.n_labels), key=lambda c: (counts[c], -c))
    out = classification_metrics([top] * len(golds), [g.label for g in golds], task.n_labels)
    return {**out, "name": f"always {task.label_names[top]!r}"}


def floor_gap(scores, task, split: str = "test", metric: str | None = None) -> tuple[float, float, float]:
    """Scores over seeds (a mapping seed -> score, or a sequence) minus the task's floor
    (:func:`floor_scores`; ``metric`` default: F1 for QA, accuracy otherwise): mean with a 95% t interval.

    The instrument check of a comparison between fine-tuned models: one that sits at the floor has learned
    nothing the comparison could be about."""
    from bertology_lib import stats

    values = list(scores.values()) if hasattr(scores, "values") else list(scores)
    if len(values) < 2:
        raise ParameterError(f"{len(values)} scores; allowed: at least 2 (one per seed) for an interval")
    m = metric or ("f1" if task.kind == "qa" else "accuracy")
    floor = floor_scores(task, split)[m]
    return stats.one_sample_interval([float(v) - floor for v in values], digits=6)
