"""Behavioural testing (CheckList) and the lexical-overlap heuristic (HANS), survey §7: running
fine-tuned models on the tests and summarising their failures.

Used by ``notebooks/survey_07_directions.ipynb``.

The test items are data with gold labels and live in the data layer:
:mod:`bertology_lib.data.checklist` (:class:`~bertology_lib.data.checklist.BehaviourTest`,
:func:`~bertology_lib.data.checklist.negation_suite`, :func:`~bertology_lib.data.checklist.sst2_suite`)
and :mod:`bertology_lib.data.hans` (:func:`~bertology_lib.data.hans.hans_like`,
:func:`~bertology_lib.data.hans.overlap_table`, :func:`~bertology_lib.data.hans.nli_split`); they
are imported from there. This module adds:

* :class:`BehaviourSizes`, the notebook's sizes per profile.
* Models come from the one fine-tuning entry point with their weights cached
  (:func:`bertology_lib.training.finetune.finetune` with ``keep_model=True``), so a rerun can
  evaluate new items without retraining. :func:`run_tests` and :func:`failure_table` turn a model and a suite
  into per-item outcomes and per-test failure rates with Wilson intervals
  (:func:`bertology_lib.stats.wilson_interval`); :func:`summarise_seeds` pools seeds.
* :func:`hans_table` scores HANS-like items binary (entailment vs not), as HANS is.
* The seed sweeps the notebook calls: :func:`checklist_sweep`, :func:`hans_sweep`,
  :func:`hans_summary`; :func:`hans_tasks` builds the two NLI training distributions of the HANS test
  (:data:`HANS_CONDITIONS`: full overlap predicting entailment, as in MNLI, or telling nothing).
* The claims' measurements with intervals over seeds *and* test items (:func:`crossed_interval`):
  :func:`floor_gap` (the instrument check: i.i.d. accuracy above the task's floor),
  :func:`checklist_gap` (failure rate minus i.i.d. error), :func:`hans_gap` (i.i.d. accuracy minus
  accuracy on the non-entailed HANS-like items) and :func:`hans_data_gap` (the same items under two
  training distributions).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import torch

from bertology_lib.cache import ArtifactCache
from bertology_lib.data import hans
from bertology_lib.data.checklist import BehaviourTest
from bertology_lib.data.tasks import ENTAILMENT, ClassificationExample, Task
from bertology_lib.errors import ParameterError
from bertology_lib.profiles import SizeTable
from bertology_lib.stats import wilson_interval
from bertology_lib.training import finetune as ft
from bertology_lib.validation import check_float, check_seeds

__all__ = [
    "BehaviourSizes",
    "hans_table",
    "predict_probs",
    "run_tests",
    "item_failed",
    "failure_table",
    "summarise_seeds",
    "checklist_sweep",
    "hans_sweep",
    "hans_summary",
    "HANS_CONDITIONS",
    "FULL_OVERLAP_SHARE",
    "hans_tasks",
    "crossed_interval",
    "floor_correct",
    "floor_gap",
    "checklist_gap",
    "hans_gap",
    "hans_data_gap",
]


# ---------------------------------------------------------------------------------
# Sizes
# ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class BehaviourSizes(SizeTable):
    """Sizes of the §7 notebook per profile."""

    n_seeds: int  # fine-tuning seeds per configuration
    cls_train: int  # toy negation classifier: training sentences
    cls_test: int  # ... dev and test sentences (each)
    n_per_test: int  # CheckList items per test
    nli_train: int  # toy NLI training pairs
    nli_test: int  # toy NLI dev and test pairs (each)
    n_per_heuristic: int  # HANS-like items per category
    sst2_train: int  # SST-2 training sentences (MiniLM)
    sst2_test: int | None  # SST-2 test sentences (None = all 872)
    sst2_per_test: int  # SST-2 CheckList items per test

    SIZES: ClassVar[dict[str, dict[str, Any]]] = {
        "smoke": dict(
            n_seeds=2,
            cls_train=48,
            cls_test=32,
            n_per_test=8,
            nli_train=48,
            nli_test=32,
            n_per_heuristic=8,
            sst2_train=32,
            sst2_test=32,
            sst2_per_test=8,
        ),
        "quick": dict(
            n_seeds=3,
            cls_train=1000,
            cls_test=300,
            n_per_test=50,
            nli_train=2000,
            nli_test=300,
            n_per_heuristic=50,
            sst2_train=1000,
            sst2_test=None,
            sst2_per_test=50,
        ),
        "full": dict(
            n_seeds=5,
            cls_train=5000,
            cls_test=1000,
            n_per_test=200,
            nli_train=10000,
            nli_test=1000,
            n_per_heuristic=200,
            sst2_train=20000,
            sst2_test=None,
            sst2_per_test=200,
        ),
    }


def hans_table(probs: torch.Tensor, examples: Sequence[ClassificationExample]):
    """Per-item HANS outcomes: predicted label and binary correctness (entailment vs not)."""
    import pandas as pd

    if probs.shape[0] != len(examples):
        raise ParameterError(f"{probs.shape[0]} predictions for {len(examples)} items; allowed: one per item")
    pred = probs.argmax(-1).tolist()
    rows = []
    for i, (e, p) in enumerate(zip(examples, pred)):
        rows.append(
            {
                "item": i,
                "category": e.meta["category"],
                "heuristic": e.meta["heuristic"],
                "entailed": e.meta["entailed"],
                "label": e.label,
                "pred": p,
                "pred_entailment": p == ENTAILMENT,
                "correct": (p == ENTAILMENT) == bool(e.meta["entailed"]),
            }
        )
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------------
# Fine-tuning with cached weights; prediction
# ---------------------------------------------------------------------------------


def predict_probs(
    model: torch.nn.Module,
    tokenizer,
    texts: Sequence[str],
    label_names: Sequence[str],
    pairs: Sequence[str | None] | None = None,
    cfg: ft.FinetuneConfig | None = None,
) -> torch.Tensor:
    """(N, C) class probabilities of a fine-tuned head model on ``texts`` (and ``pairs``)."""
    if not texts:
        raise ParameterError("texts=[] is empty; allowed: at least one text")
    if pairs is not None and len(pairs) != len(texts):
        raise ParameterError(f"{len(pairs)} pairs for {len(texts)} texts; allowed: equal lengths")
    exs = [ClassificationExample(f"x{i}", t, 0, None if pairs is None else pairs[i]) for i, t in enumerate(texts)]
    task = Task.from_examples("behaviour", {"test": exs}, label_names)
    return ft.evaluate(model, tokenizer, task, "test", cfg or ft.FinetuneConfig()).probs["probs"].float()


def run_tests(
    model: torch.nn.Module,
    tokenizer,
    tests: Sequence[BehaviourTest],
    label_names: Sequence[str],
    cfg: ft.FinetuneConfig | None = None,
):
    """One row per test item: predictions, the probability of each test's target class, and ``failed``."""
    import pandas as pd

    if not tests:
        raise ParameterError("tests=[] is empty; allowed: at least one BehaviourTest")
    texts: list[str] = []
    for t in tests:
        for it in t.items:
            texts.append(it.text)
            if it.perturbed is not None:
                texts.append(it.perturbed)
    uniq = list(dict.fromkeys(texts))
    probs = predict_probs(model, tokenizer, uniq, label_names, cfg=cfg)
    at = {s: i for i, s in enumerate(uniq)}
    rows = []
    for t in tests:
        for j, it in enumerate(t.items):
            p0 = probs[at[it.text]]
            row = {
                "test": t.name,
                "kind": t.kind,
                "capability": t.capability,
                "item": j,
                "text": it.text,
                "label": it.label,
                "pred": int(p0.argmax()),
            }
            if it.perturbed is not None:
                p1 = probs[at[it.perturbed]]
                row.update(
                    perturbed=it.perturbed,
                    pred_perturbed=int(p1.argmax()),
                    p_before=float(p0[t.target]),
                    p_after=float(p1[t.target]),
                )
            row["failed"] = item_failed(t, row)
            rows.append(row)
    return pd.DataFrame(rows)


def item_failed(t: BehaviourTest, row: dict[str, Any]) -> bool:
    """Whether one :func:`run_tests` row fails test ``t`` (MFT: wrong label; INV: the label changed;
    DIR: the target probability moved against ``t.direction`` by more than ``t.tolerance``)."""
    if t.kind == "MFT":
        return row["pred"] != row["label"]
    if t.kind == "INV":
        return row["pred"] != row["pred_perturbed"]
    return t.direction * (row["p_after"] - row["p_before"]) < -t.tolerance


def failure_table(results):
    """Per test: kind, capability, items, failures, failure rate and its 95% Wilson interval.

    ``results``: :func:`run_tests` rows, optionally with a ``seed`` column (then counts are
    per seed and pooled rows are left to :func:`summarise_seeds`).
    """
    import pandas as pd

    if len(results) == 0:
        raise ParameterError("results are empty; allowed: the rows of run_tests")
    keys = ["seed"] if "seed" in results.columns else []
    rows = []
    for k, g in results.groupby(keys + ["test"], sort=False):
        n, f = len(g), int(g["failed"].sum())
        lo, hi = wilson_interval(f, n)
        row = dict(zip(keys + ["test"], k if isinstance(k, tuple) else (k,)))
        row.update(
            kind=g["kind"].iloc[0],
            capability=g["capability"].iloc[0],
            n=n,
            failures=f,
            failure_rate=f / n,
            ci_low=lo,
            ci_high=hi,
        )
        rows.append(row)
    return pd.DataFrame(rows)


def summarise_seeds(table):
    """Per test over seeds: mean and std of the failure rate and the pooled Wilson interval."""
    import pandas as pd

    if "seed" not in table.columns:
        raise ParameterError("table has no seed column; allowed: failure_table of results with a seed column")
    rows = []
    for name, g in table.groupby("test", sort=False):
        lo, hi = wilson_interval(int(g.failures.sum()), int(g.n.sum()))
        rows.append(
            {
                "test": name,
                "kind": g.kind.iloc[0],
                "capability": g.capability.iloc[0],
                "n_seeds": len(g),
                "mean": g.failure_rate.mean(),
                "std": g.failure_rate.std(ddof=1) if len(g) > 1 else 0.0,
                "pooled_ci_low": lo,
                "pooled_ci_high": hi,
            }
        )
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------------
# Seed sweeps (what the notebook calls)
# ---------------------------------------------------------------------------------


def checklist_sweep(
    task: Task,
    model_source: Any,
    tests: Sequence[BehaviourTest],
    seeds: Sequence[int],
    cfg: ft.FinetuneConfig | None = None,
    cache: ArtifactCache | None = None,
):
    """Fine-tune ``model_source`` on ``task`` once per seed (cached) and run ``tests`` on each model.

    Returns ``(results, iid)``: :func:`run_tests` rows with a ``seed`` column, and one row
    per seed with the i.i.d. test accuracy and error (``item_correct``: 0/1 per test item, in order).
    """
    import pandas as pd

    seeds = check_seeds(seeds)
    frames, iid = [], []
    for s in seeds:
        r = ft.finetune(task, model_source, cfg, s, cache, keep_model=True)
        model, tok = r.fine_tuned, r.tokenizer
        frames.append(run_tests(model, tok, tests, task.label_names, cfg).assign(seed=s))
        acc = r.score("test")
        iid.append({"seed": s, "accuracy": acc, "error": 1 - acc, "cached": r.cached, "item_correct": _item_correct(r)})
    return pd.concat(frames, ignore_index=True), pd.DataFrame(iid)


def hans_sweep(
    tasks_by_condition: dict[str, Task],
    model_source: Any,
    items: Sequence[ClassificationExample],
    seeds: Sequence[int],
    cfg: ft.FinetuneConfig | None = None,
    cache: ArtifactCache | None = None,
):
    """Per training condition and seed: fine-tune (cached), score the HANS-like ``items``.

    Returns ``(outcomes, iid)``: :func:`hans_table` rows with ``condition`` and ``seed``,
    and per (condition, seed) the i.i.d. 3-way accuracy and the i.i.d. binary accuracy
    (entailment vs not) on the test split (``item_correct``: 3-way, 0/1 per test item, in order).
    """
    import pandas as pd

    seeds = check_seeds(seeds)
    if not items:
        raise ParameterError("items=[] is empty; allowed: HANS-like examples from hans_like()")
    frames, iid = [], []
    for cond, task in tasks_by_condition.items():
        for s in seeds:
            r = ft.finetune(task, model_source, cfg, s, cache, keep_model=True)
            model, tok = r.fine_tuned, r.tokenizer
            probs = predict_probs(
                model, tok, [e.text for e in items], task.label_names, [e.text_pair for e in items], cfg
            )
            frames.append(hans_table(probs, items).assign(condition=cond, seed=s))
            p = r.predictions["test"]
            pred = p.predicted()
            binary = sum((a == ENTAILMENT) == (g == ENTAILMENT) for a, g in zip(pred, p.golds)) / len(pred)
            non_ent = [(a != ENTAILMENT) for a, g in zip(pred, p.golds) if g != ENTAILMENT]
            iid.append(
                {
                    "condition": cond,
                    "seed": s,
                    "accuracy": r.score("test"),
                    "binary_accuracy": binary,
                    "non_entailed_accuracy": sum(non_ent) / len(non_ent),
                    "cached": r.cached,
                    "item_correct": _item_correct(r),
                }
            )
    return pd.concat(frames, ignore_index=True), pd.DataFrame(iid)


def hans_summary(outcomes, by: Sequence[str] = ("condition", "category")):
    """Pooled accuracy with a 95% Wilson interval, mean and std over seeds, per group."""
    import pandas as pd

    rows = []
    for k, g in outcomes.groupby(list(by), sort=False):
        per_seed = g.groupby("seed").correct.mean()
        lo, hi = wilson_interval(int(g.correct.sum()), len(g))
        rows.append(
            {
                **dict(zip(by, k if isinstance(k, tuple) else (k,))),
                "heuristic": g.heuristic.iloc[0],
                "n": len(g),
                "accuracy": g.correct.mean(),
                "ci_low": lo,
                "ci_high": hi,
                "seed_std": per_seed.std(ddof=1) if len(per_seed) > 1 else 0.0,
            }
        )
    return pd.DataFrame(rows)


def _item_correct(r: ft.FinetuneResult, split: str = "test") -> tuple[int, ...]:
    p = r.predictions[split]
    return tuple(int(a == g) for a, g in zip(p.predicted(), p.golds))


# ---------------------------------------------------------------------------------
# The HANS training distributions
# ---------------------------------------------------------------------------------

# Share of entailment among the full-overlap pairs of each training (and i.i.d. test) distribution: in MNLI
# full overlap nearly always means entailment (McCoy et al. 2019), so "MNLI-like" makes it so for 9 pairs in
# 10; "uninformative" gives full-overlap pairs the labels' own balance, so overlap says nothing.
HANS_CONDITIONS: dict[str, float] = {"MNLI-like": 0.9, "uninformative": 1 / 3}
FULL_OVERLAP_SHARE = 0.2  # share of full-overlap pairs in both distributions (the pool holds about a third)


def hans_tasks(
    pool: Task,
    n_train: int,
    n_test: int,
    exclude: Sequence[ClassificationExample] = (),
    conditions: dict[str, float] | None = None,
    seed: int = 0,
) -> dict[str, Task]:
    """One toy-NLI task per training condition (:data:`HANS_CONDITIONS`), drawn from ``pool`` with
    :func:`~bertology_lib.data.hans.nli_mix`: same sizes, same share of full-overlap pairs
    (:data:`FULL_OVERLAP_SHARE`), balanced labels, and only the share of entailment among the full-overlap
    pairs differing; each test split is i.i.d. with its train split; the ``exclude`` pairs (the HANS-like
    items) are never drawn."""
    return {
        name: hans.nli_mix(pool, n_train, n_test, share, FULL_OVERLAP_SHARE, exclude, seed)
        for name, share in (conditions or HANS_CONDITIONS).items()
    }


# ---------------------------------------------------------------------------------
# Intervals over seeds and test items; the claims' measurements
# ---------------------------------------------------------------------------------


def _as_matrix(x: Any, name: str) -> np.ndarray:
    m = np.asarray(x, dtype=float)
    if m.ndim != 2 or m.shape[0] < 2 or m.shape[1] < 2 or not np.isfinite(m).all():
        raise ParameterError(
            f"{name} has shape {m.shape}; allowed: a finite (seeds, items) array with at least 2 seeds and 2 items"
        )
    return m


def _macro(m: np.ndarray, groups: Sequence[Any] | None, name: str) -> tuple[np.ndarray, float, int]:
    """Per seed: the mean over groups of the group's item mean; the item-sampling variance of its mean over
    seeds (groups sampled independently, each group's items weighing 1 / (n_g * G)); and that variance's
    degrees of freedom (items less groups)."""
    codes = np.zeros(m.shape[1], int) if groups is None else np.unique(np.asarray(groups), return_inverse=True)[1]
    if len(codes) != m.shape[1]:
        raise ParameterError(f"{len(codes)} groups for {m.shape[1]} items of {name}; allowed: one per item")
    per_seed, var = np.zeros(m.shape[0]), 0.0
    n_groups = int(codes.max()) + 1
    for g in range(n_groups):
        cols = m[:, codes == g]
        if cols.shape[1] < 2:
            raise ParameterError(f"a group of {name} has {cols.shape[1]} item; allowed: at least 2 items per group")
        per_seed += cols.mean(1) / n_groups
        var += cols.mean(0).var(ddof=1) / cols.shape[1] / n_groups**2
    return per_seed, var, m.shape[1] - n_groups


def crossed_interval(
    plus: Any,
    minus: Any = None,
    plus_groups: Sequence[Any] | None = None,
    minus_groups: Sequence[Any] | None = None,
    confidence: float = 0.95,
) -> tuple[float, float, float]:
    """(estimate, low, high): the mean over seeds of M(``plus``) - M(``minus``), with an interval that covers
    the sampling of fine-tuning seeds *and* of test items.

    ``plus``/``minus``: (seeds, items) arrays of per-item scores (0/1 correct or failed), the same seeds in
    the same order (the items of the two may differ; for paired items pass their difference as ``plus``).
    M is the item mean, or with ``*_groups`` (one label per item) the mean of the group means (e.g. a suite's
    failure rate with each test weighing equally). Variance: the spread of the per-seed values over seeds
    / k, plus each side's item-sampling variance (items shared by all seeds, averaged over seeds first). The
    seed-by-item interaction is counted in both terms (so the interval errs wide), and the quantile is
    Student's t with the Welch-Satterthwaite degrees of freedom of that sum: k - 1 when the seeds dominate,
    many when the items do.
    """
    from scipy import stats as scipy_stats

    check_float("confidence", confidence, 0.0, 1.0, open_min=True, open_max=True)
    a = _as_matrix(plus, "plus")
    d, var, df = _macro(a, plus_groups, "plus")
    parts = [(var, df)]
    if minus is not None:
        b = _as_matrix(minus, "minus")
        if b.shape[0] != a.shape[0]:
            raise ParameterError(f"plus has {a.shape[0]} seeds and minus {b.shape[0]}; allowed: the same seeds")
        db, vb, dfb = _macro(b, minus_groups, "minus")
        d = d - db
        parts.append((vb, dfb))
    k = len(d)
    parts.append((float(d.var(ddof=1)) / k, k - 1))
    total = sum(v for v, _ in parts)
    est = float(d.mean())
    if total <= 0:  # no spread at all (e.g. a constant classifier on both sides): a point
        return est, est, est
    dof = total**2 / sum(v**2 / f for v, f in parts if f > 0 and v > 0)
    half = float(scipy_stats.t.ppf(0.5 + confidence / 2, dof)) * float(np.sqrt(total))
    return est, est - half, est + half


def _rows(wide, seeds: Sequence[int]):
    missing = [s for s in seeds if s not in wide.index]
    if missing or wide.isna().any().any():
        raise ParameterError(
            f"seeds {missing} are missing or have missing items; allowed: seeds {sorted(wide.index)}, "
            "each scored on every item"
        )
    return wide.loc[list(seeds)]


def _by_seed(iid, seeds: Sequence[int]) -> np.ndarray:
    rows = iid.set_index("seed")
    missing = [s for s in seeds if s not in rows.index]
    if missing:
        raise ParameterError(f"seeds {missing} are not in the i.i.d. table; allowed: {sorted(rows.index)}")
    return np.array([list(rows.loc[s, "item_correct"]) for s in seeds], dtype=float)


def floor_correct(task: Task, split: str = "test") -> np.ndarray:
    """0/1 per ``split`` item: is the task's floor (always the majority training label, ties to the first
    label; :func:`~bertology_lib.data.tasks.floor_scores`) right on it?"""
    if task.kind != "classification":
        raise ParameterError(f"task {task.name!r} is {task.kind}; allowed: a classification task")
    train = task.examples("train") or task.examples(split)
    counts = [0] * task.n_labels
    for e in train:
        counts[e.label] += 1
    top = max(range(task.n_labels), key=lambda c: (counts[c], -c))
    return np.array([float(e.label == top) for e in task.examples(split)])


def floor_gap(iid, task: Task, seeds: Sequence[int]) -> tuple[float, float, float]:
    """i.i.d. test accuracy minus the task's floor on the same items (:func:`floor_correct`), over ``seeds``
    and test items (:func:`crossed_interval`): the instrument check that the model learned the task, which a
    constant classifier fails. ``iid``: the per-seed table of :func:`checklist_sweep` (or one condition's rows
    of :func:`hans_sweep`)."""
    m = _by_seed(iid, seeds)
    return crossed_interval(m - floor_correct(task)[None, :])


def checklist_gap(results, iid, seeds: Sequence[int], tests: Sequence[str] | None = None) -> tuple[float, float, float]:
    """Failure rate on ``tests`` (default: the whole suite, each test weighing equally) minus the i.i.d. test
    error, per seed, with an interval over seeds and items (suite items and i.i.d. items)."""
    r = results if tests is None else results[results.test.isin(list(tests))]
    if len(r) == 0:
        raise ParameterError(f"tests={tests!r} match no rows; allowed: names in {sorted(set(results.test))}")
    errors = 1.0 - _by_seed(iid, seeds)
    wide = r.pivot_table(index="seed", columns=["test", "item"], values="failed", aggfunc="first", sort=False)
    wide = _rows(wide, seeds).astype(float)
    return crossed_interval(wide.to_numpy(), errors, plus_groups=list(wide.columns.get_level_values("test")))


def _hans_wide(outcomes, condition: str, seeds: Sequence[int], entailed: bool = False):
    d = outcomes[(outcomes.condition == condition) & (outcomes.entailed == entailed)]
    if len(d) == 0:
        raise ParameterError(f"condition={condition!r} has no rows; allowed: {sorted(set(outcomes.condition))}")
    wide = d.pivot_table(index="seed", columns=["category", "item"], values="correct", aggfunc="first", sort=False)
    return _rows(wide, seeds).astype(float)


def hans_gap(outcomes, iid, seeds: Sequence[int], condition: str) -> tuple[float, float, float]:
    """i.i.d. 3-way accuracy minus binary accuracy on the non-entailed HANS-like items (categories weighing
    equally), for the model trained under ``condition``, over seeds and items (:func:`crossed_interval`)."""
    wide = _hans_wide(outcomes, condition, seeds)
    acc = _by_seed(iid[iid.condition == condition], seeds)
    return crossed_interval(acc, wide.to_numpy(), minus_groups=list(wide.columns.get_level_values("category")))


def hans_data_gap(outcomes, seeds: Sequence[int], better: str, worse: str) -> tuple[float, float, float]:
    """Binary accuracy on the non-entailed HANS-like items under training condition ``better`` minus under
    ``worse``, paired by seed and item, over seeds and items."""
    a, b = _hans_wide(outcomes, better, seeds), _hans_wide(outcomes, worse, seeds)
    if list(a.columns) != list(b.columns):
        raise ParameterError("the two conditions were scored on different items; allowed: the same HANS-like items")
    return crossed_interval(a.to_numpy() - b.to_numpy(), plus_groups=list(a.columns.get_level_values("category")))
