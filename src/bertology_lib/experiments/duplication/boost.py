"""The duplication boost (Kao et al. 2020 §4): fine-tune deeper copies, compare fairly.

A deeper model is built by inserting independent copies of existing blocks
(:func:`bertology_lib.interventions.duplication.duplicate_layers`), then every variant is
fine-tuned with identical hyper-parameters over the same seeds
(:mod:`bertology_lib.training.finetune`). Gains are paired by seed (a paired t-test
and a 95% interval), and ensembles that sum the duplicated variants'
probabilities are compared with ensembles of as many *baseline* seeds, so
that a gain is not just ensembling.

Used by ``notebooks/duplication_02_boost.ipynb``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Mapping, Sequence

import numpy as np
import pandas as pd

from bertology_lib import stats
from bertology_lib.data.tasks import floor_scores
from bertology_lib.errors import ParameterError
from bertology_lib.interventions.duplication import duplicated, duplication_pattern
from bertology_lib.models.sources import ModelSource
from bertology_lib.profiles import SizeTable
from bertology_lib.validation import check_choice
from bertology_lib.training import finetune as ft


@dataclass(frozen=True)
class BoostSizes(SizeTable):
    """Sizes of the duplication boost notebook per profile."""

    n_train: int  # toy-task training examples
    n_test: int  # toy-task dev and test examples (each)
    n_seeds: int  # fine-tuning seeds per configuration
    sst2_train: int  # SST-2 training sentences (MiniLM row)
    sst2_test: int | None  # SST-2 test sentences (None = all 872)
    duplicate_k: int  # the "first k" pattern
    second: str = "every"  # the second duplicated variant: "every" block (2x deeper) or the "last" block

    # Toy fine-tuning (lr, epochs) per task name, at quick and full; smoke runs FinetuneConfig's few smoke steps.
    # Calibrated at quick on the dev split, two seeds, 1 thread (2026-12-02, benchmarks/README.md, "Toy QA: what it
    # takes to answer"): at lr 3e-4 x 5 epochs QA answered nothing (F1 at the always-no-answer floor) and NLI
    # scored 0.46; QA at 2e-3 x 10 epochs reached dev F1 0.42 (1e-3 x 10: 0.40, 1e-3 x 20: 0.43 at twice the
    # cost), NLI at 1e-3 x 10 epochs 0.56.
    toy_training: Mapping[str, tuple[float, float]] = field(default_factory=dict)

    # quick: 27 toy fine-tunes (a QA one ~40 s at 1 thread, NLI ~25 s, classification ~14 s) + 6 MiniLM ones,
    # so small training sets and a cheap second variant (one more block instead of twice the depth). Three seeds,
    # the fewest the fair ensembles accept: `bertology power` plans every boost comparison underpowered at quick
    # (5x to over 100x the data for the paper's effect), so seeds within the survey + duplication budget would win
    # no verdict (benchmarks/README.md, "Survey + duplication: the budget decision"); full keeps five.
    SIZES: ClassVar[dict[str, dict[str, Any]]] = {
        "smoke": dict(n_train=48, n_test=32, n_seeds=2, sst2_train=32, sst2_test=32, duplicate_k=1, second="last"),
        "quick": dict(
            n_train=400,
            n_test=300,
            n_seeds=3,
            sst2_train=300,
            sst2_test=None,
            duplicate_k=2,
            second="last",
            toy_training={"toy_qa": (2e-3, 10.0), "toy_nli": (1e-3, 10.0), "toy_classification": (3e-4, 5.0)},
        ),
        "full": dict(
            n_train=20000,
            n_test=2000,
            n_seeds=5,
            sst2_train=67000,
            sst2_test=None,
            duplicate_k=4,
            second="every",
            toy_training={"toy_qa": (3e-4, 5.0), "toy_nli": (3e-4, 5.0), "toy_classification": (3e-4, 5.0)},
        ),
    }


def toy_config(profile: str, task) -> ft.FinetuneConfig:
    """The fine-tuning settings of one toy ``task`` at ``profile``, scored on its test split.

    smoke: :class:`~bertology_lib.training.finetune.FinetuneConfig`'s smoke steps; quick and full: the task's
    (lr, epochs) in :attr:`BoostSizes.toy_training` (a task it does not list is refused)."""
    if profile == "smoke":
        return ft.FinetuneConfig.for_profile("smoke")
    training = BoostSizes.for_profile(profile).toy_training
    if task.name not in training:
        raise ParameterError(
            f"task {task.name!r} has no toy fine-tuning settings at profile {profile!r}; "
            f"allowed: {', '.join(sorted(training))}"
        )
    lr, epochs = training[task.name]
    return ft.FinetuneConfig.for_profile(profile, lr=lr, epochs=epochs, eval_splits=("test",))


SECOND_VARIANTS = ("every", "last")


def variants(base: ModelSource, n_blocks: int, k: int, second: str = "every") -> dict[str, ModelSource]:
    """baseline, first-k duplicated, and every block (or only the last block) duplicated.

    Each variant is an independent deeper model (copies share no weights)."""
    check_choice("second", second, SECOND_VARIANTS)
    other = (
        {"every block duplicated": duplication_pattern(n_blocks, "every")}
        if second == "every"
        else {"last block duplicated": duplication_pattern(n_blocks, "set", layers=[n_blocks - 1])}
    )
    return {
        "baseline": base,
        f"first {k} duplicated": duplicated(base, duplication_pattern(n_blocks, "first", k=k)),
        **{name: duplicated(base, pattern) for name, pattern in other.items()},
    }


def run(
    task, sources: Mapping[str, Any], seeds: Sequence[int], cfg: ft.FinetuneConfig, progress: bool = False
) -> dict[str, list[ft.FinetuneResult]]:
    """Fine-tune every variant on ``task`` with every seed (cached per run)."""
    return {name: ft.seed_sweep(task, src, seeds, cfg, progress=progress) for name, src in sources.items()}


def table(
    results: Mapping[str, Sequence[ft.FinetuneResult]],
    baseline: str = "baseline",
    split: str = "test",
    metric: str | None = None,
) -> pd.DataFrame:
    """One row per variant: mean ± std over seeds, and the paired gain over the baseline."""
    rows = []
    base = results[baseline]
    for name, rs in results.items():
        scores = pd.Series([r.score(split, metric) for r in rs])
        row = {"variant": name, "n_seeds": len(rs), "mean": scores.mean(), "std": scores.std(ddof=1)}
        if name != baseline:
            t = ft.compare(rs, base, split, metric)
            row.update(gain=t.mean_diff, ci_low=t.ci_low, ci_high=t.ci_high, p_value=t.p_value)
        rows.append(row)
    return pd.DataFrame(rows)


def fair_ensembles(
    results: Mapping[str, Sequence[ft.FinetuneResult]],
    members: Sequence[str],
    baseline: str = "baseline",
    split: str = "test",
) -> pd.DataFrame:
    """Per seed: an ensemble of the ``members`` variants vs one of as many baseline seeds.

    For seed index i the duplicated ensemble sums the members' probabilities
    at seed i; the baseline ensemble sums baseline seeds i, i+1, ... (wrapping),
    the same number of models. Returns one row per seed with both metrics.
    """
    base = results[baseline]
    n, k = len(base), len(members)
    if k > n:
        raise ParameterError(f"{k} ensemble members need at least {k} baseline seeds; got {n}")
    rows = []
    kind = base[0].predictions[split].kind
    metric = ft.DEFAULT_METRIC[kind]
    for i in range(n):
        dup = ft.ensemble([results[m][i].predictions[split] for m in members])
        bas = ft.ensemble([base[(i + j) % n].predictions[split] for j in range(k)])
        rows.append(
            {"seed_index": i, "duplicated_ensemble": dup[metric], "baseline_ensemble": bas[metric], "metric": metric}
        )
    return pd.DataFrame(rows)


def floor_gap(
    results: Mapping[str, Sequence[ft.FinetuneResult]],
    task,
    baseline: str = "baseline",
    split: str = "test",
    metric: str | None = None,
) -> tuple[float, float, float]:
    """The ``baseline`` variant's score minus the task's floor (majority label, or always "no answer" for QA;
    :func:`~bertology_lib.data.tasks.floor_scores`), over seeds: (mean, low, high) of a 95% t interval.

    The instrument check of a gain: a gain between two models that both sit at the floor says nothing."""
    base = results[baseline]
    kind = base[0].predictions[split].kind
    floor = floor_scores(task, split)[metric or ft.DEFAULT_METRIC[kind]]
    return stats.one_sample_interval([r.score(split, metric) - floor for r in base])


def detectable_difference(diffs: Sequence[float], alpha: float = 0.05, power: float = 0.8) -> dict[str, float]:
    """How large a true mean difference a paired comparison with these per-seed differences could detect: with k
    differences of standard deviation sd, the smallest one a two-sided paired t test at level ``alpha`` finds with
    probability ``power``, (t(1 - alpha/2, k-1) + t(power, k-1)) x sd / sqrt(k) (the usual normal-theory
    approximation with t quantiles). Returns ``seeds``, ``sd_gain`` and ``detectable`` (the units of ``diffs``; NaN
    when every difference is the same, e.g. both sides at the task's floor: the spread is unknown, not zero)."""
    from scipy import stats as scipy_stats

    gains = np.asarray(diffs, dtype=float)
    k = len(gains)
    if k < 2:
        raise ParameterError(f"{k} paired seed(s); allowed: at least 2 seeds to estimate the spread")
    sd = float(gains.std(ddof=1))
    t = scipy_stats.t.ppf(1 - alpha / 2, k - 1) + scipy_stats.t.ppf(power, k - 1)
    return {"seeds": k, "sd_gain": sd, "detectable": float(t * sd / np.sqrt(k)) if sd > 0 else float("nan")}


def detectable_gain(
    results: Mapping[str, Sequence[ft.FinetuneResult]],
    variant: str,
    baseline: str = "baseline",
    split: str = "test",
    metric: str | None = None,
    alpha: float = 0.05,
    power: float = 0.8,
) -> dict[str, float]:
    """:func:`detectable_difference` of ``variant``'s gains over ``baseline``, paired by seed (metric units)."""
    if variant not in results or baseline not in results:
        raise ParameterError(
            f"variant={variant!r} or baseline={baseline!r} is not in the results; allowed: {', '.join(results)}"
        )
    return detectable_difference(
        [a.score(split, metric) - b.score(split, metric) for a, b in zip(results[variant], results[baseline])],
        alpha,
        power,
    )
