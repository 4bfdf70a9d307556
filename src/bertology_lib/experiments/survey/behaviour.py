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
  :func:`hans_summary`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import torch

from bertology_lib.cache import ArtifactCache
from bertology_lib.data.checklist import BehaviourTest
from bertology_lib.data.tasks import ENTAILMENT, ClassificationExample, Task
from bertology_lib.errors import ParameterError
from bertology_lib.profiles import SizeTable
from bertology_lib.stats import wilson_interval
from bertology_lib.training import finetune as ft
from bertology_lib.validation import check_seeds

__all__ = ["BehaviourSizes", "hans_table", "predict_probs", "run_tests", "item_failed", "failure_table",
           "summarise_seeds", "checklist_sweep", "hans_sweep", "hans_summary"]



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
        "smoke": dict(n_seeds=2, cls_train=48, cls_test=32, n_per_test=8, nli_train=48, nli_test=32, n_per_heuristic=8,
                      sst2_train=32, sst2_test=32, sst2_per_test=8),
        "quick": dict(n_seeds=3, cls_train=1000, cls_test=300, n_per_test=50, nli_train=2000, nli_test=300,
                      n_per_heuristic=50, sst2_train=1000, sst2_test=None, sst2_per_test=50),
        "full": dict(n_seeds=5, cls_train=5000, cls_test=1000, n_per_test=200, nli_train=10000, nli_test=1000,
                     n_per_heuristic=200, sst2_train=20000, sst2_test=None, sst2_per_test=200),
    }


def hans_table(probs: torch.Tensor, examples: Sequence[ClassificationExample]):
    """Per-item HANS outcomes: predicted label and binary correctness (entailment vs not)."""
    import pandas as pd

    if probs.shape[0] != len(examples):
        raise ParameterError(f"{probs.shape[0]} predictions for {len(examples)} items; allowed: one per item")
    pred = probs.argmax(-1).tolist()
    rows = []
    for e, p in zip(examples, pred):
        rows.append({"category": e.meta["category"], "heuristic": e.meta["heuristic"],
                     "entailed": e.meta["entailed"], "label": e.label, "pred": p,
                     "pred_entailment": p == ENTAILMENT, "correct": (p == ENTAILMENT) == bool(e.meta["entailed"])})
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------------
# Fine-tuning with cached weights; prediction
# ---------------------------------------------------------------------------------


def predict_probs(model: torch.nn.Module, tokenizer, texts: Sequence[str], label_names: Sequence[str],
                  pairs: Sequence[str | None] | None = None, cfg: ft.FinetuneConfig | None = None) -> torch.Tensor:
    """(N, C) class probabilities of a fine-tuned head model on ``texts`` (and ``pairs``)."""
    if not texts:
        raise ParameterError("texts=[] is empty; allowed: at least one text")
    if pairs is not None and len(pairs) != len(texts):
        raise ParameterError(f"{len(pairs)} pairs for {len(texts)} texts; allowed: equal lengths")
    exs = [ClassificationExample(f"x{i}", t, 0, None if pairs is None else pairs[i]) for i, t in enumerate(texts)]
    task = Task.from_examples("behaviour", {"test": exs}, label_names)
    return ft.evaluate(model, tokenizer, task, "test", cfg or ft.FinetuneConfig()).probs["probs"].float()


def run_tests(model: torch.nn.Module, tokenizer, tests: Sequence[BehaviourTest], label_names: Sequence[str],
              cfg: ft.FinetuneConfig | None = None):
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
            row = {"test": t.name, "kind": t.kind, "capability": t.capability, "item": j, "text": it.text,
                   "label": it.label, "pred": int(p0.argmax())}
            if it.perturbed is not None:
                p1 = probs[at[it.perturbed]]
                row.update(perturbed=it.perturbed, pred_perturbed=int(p1.argmax()),
                           p_before=float(p0[t.target]), p_after=float(p1[t.target]))
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
        row.update(kind=g["kind"].iloc[0], capability=g["capability"].iloc[0], n=n, failures=f,
                   failure_rate=f / n, ci_low=lo, ci_high=hi)
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
        rows.append({"test": name, "kind": g.kind.iloc[0], "capability": g.capability.iloc[0],
                     "n_seeds": len(g), "mean": g.failure_rate.mean(),
                     "std": g.failure_rate.std(ddof=1) if len(g) > 1 else 0.0,
                     "pooled_ci_low": lo, "pooled_ci_high": hi})
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------------
# Seed sweeps (what the notebook calls)
# ---------------------------------------------------------------------------------


def checklist_sweep(task: Task, model_source: Any, tests: Sequence[BehaviourTest], seeds: Sequence[int],
                    cfg: ft.FinetuneConfig | None = None, cache: ArtifactCache | None = None):
    """Fine-tune ``model_source`` on ``task`` once per seed (cached) and run ``tests`` on each model.

    Returns ``(results, iid)``: :func:`run_tests` rows with a ``seed`` column, and one row
    per seed with the i.i.d. test accuracy and error.
    """
    import pandas as pd

    seeds = check_seeds(seeds)
    frames, iid = [], []
    for s in seeds:
        r = ft.finetune(task, model_source, cfg, s, cache, keep_model=True)
        model, tok = r.fine_tuned, r.tokenizer
        frames.append(run_tests(model, tok, tests, task.label_names, cfg).assign(seed=s))
        acc = r.score("test")
        iid.append({"seed": s, "accuracy": acc, "error": 1 - acc, "cached": r.cached})
    return pd.concat(frames, ignore_index=True), pd.DataFrame(iid)


def hans_sweep(tasks_by_condition: dict[str, Task], model_source: Any, items: Sequence[ClassificationExample],
               seeds: Sequence[int], cfg: ft.FinetuneConfig | None = None, cache: ArtifactCache | None = None):
    """Per training condition and seed: fine-tune (cached), score the HANS-like ``items``.

    Returns ``(outcomes, iid)``: :func:`hans_table` rows with ``condition`` and ``seed``,
    and per (condition, seed) the i.i.d. 3-way accuracy and the i.i.d. binary accuracy
    (entailment vs not) on the test split.
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
            probs = predict_probs(model, tok, [e.text for e in items], task.label_names,
                                  [e.text_pair for e in items], cfg)
            frames.append(hans_table(probs, items).assign(condition=cond, seed=s))
            p = r.predictions["test"]
            pred = p.predicted()
            binary = sum((a == ENTAILMENT) == (g == ENTAILMENT) for a, g in zip(pred, p.golds)) / len(pred)
            non_ent = [(a != ENTAILMENT) for a, g in zip(pred, p.golds) if g != ENTAILMENT]
            iid.append({"condition": cond, "seed": s, "accuracy": r.score("test"), "binary_accuracy": binary,
                        "non_entailed_accuracy": sum(non_ent) / len(non_ent), "cached": r.cached})
    return pd.concat(frames, ignore_index=True), pd.DataFrame(iid)


def hans_summary(outcomes, by: Sequence[str] = ("condition", "category")):
    """Pooled accuracy with a 95% Wilson interval, mean and std over seeds, per group."""
    import pandas as pd

    rows = []
    for k, g in outcomes.groupby(list(by), sort=False):
        per_seed = g.groupby("seed").correct.mean()
        lo, hi = wilson_interval(int(g.correct.sum()), len(g))
        rows.append({**dict(zip(by, k if isinstance(k, tuple) else (k,))), "heuristic": g.heuristic.iloc[0],
                     "n": len(g), "accuracy": g.correct.mean(), "ci_low": lo, "ci_high": hi,
                     "seed_std": per_seed.std(ddof=1) if len(per_seed) > 1 else 0.0})
    return pd.DataFrame(rows)
