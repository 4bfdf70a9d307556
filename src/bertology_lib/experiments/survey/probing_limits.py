"""Limits of probing, the survey's §3.4 (Rogers et al. 2020): control tasks, MDL and amnesic probing.

* Selectivity (Hewitt & Liang 2019): task accuracy minus the accuracy on a control task that gives each
  word type a fixed random label, for a linear and an MLP probe (:func:`selectivity_by_probe`).
* Online codelength (MDL, Voita & Titov 2020) of a task and its control (:func:`codelength_table`).
* Amnesic probing (Elazar et al. 2021): remove a property with INLP (Ravfogel et al. 2020) and measure the
  held-out MLM accuracy, against random projections of the same rank (:func:`amnesic_probe`).

Sizes per profile beyond :class:`~bertology_lib.experiments.survey.sizes.SurveySizes`:
:class:`ProbingLimitsSizes`. Used by ``notebooks/survey_03_4_probing_limits.ipynb``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd
import torch

from bertology_lib import stats
from bertology_lib.analysis import probing
from bertology_lib.training.pretrain import masked_accuracy
from bertology_lib.errors import ParameterError
from bertology_lib.interventions.hooks import project_out
from bertology_lib.profiles import SizeTable


def _mlm_acc(model, tokenizer, texts, seed: int) -> float:
    # 80/10/10 corruption without length buckets: the held-out measure §3.4 has always reported
    return masked_accuracy(model, tokenizer, list(texts), seed=seed, corruption="80/10/10", bucket=0)


@dataclass(frozen=True)
class ProbingLimitsSizes(SizeTable):
    """Sizes of the §3.4 notebook beyond :class:`~bertology_lib.experiments.survey.sizes.SurveySizes`."""

    mlp_epochs: int  # Adam epochs of the MLP probes (long enough to memorise, as in Hewitt & Liang)
    mlp_hidden: int  # MLP probe width
    inlp_iter: int  # INLP iterations at most (capped by inlp_iterations so ≤ half of d_model goes)
    n_random_controls: int  # random projections of the same rank: the amnesic control
    n_mlm_texts: int  # held-out sentences on which MLM accuracy is measured

    SIZES: ClassVar[dict[str, dict[str, Any]]] = {
        "smoke": dict(mlp_epochs=40, mlp_hidden=64, inlp_iter=2, n_random_controls=3, n_mlm_texts=200),
        "quick": dict(mlp_epochs=60, mlp_hidden=128, inlp_iter=4, n_random_controls=5, n_mlm_texts=1000),
        "full": dict(mlp_epochs=100, mlp_hidden=256, inlp_iter=20, n_random_controls=10, n_mlm_texts=5000),
    }

    def probe_configs(self, probe_iter: int, seed: int = 0) -> dict[str, probing.ProbeConfig]:
        """The two probe families compared: L2-regularised linear, and an unregularised 1-hidden-layer MLP."""
        return {
            "linear": probing.ProbeConfig(max_iter=probe_iter, seed=seed),
            "mlp": probing.ProbeConfig(
                kind="mlp", l2=0.0, max_iter=self.mlp_epochs, hidden=self.mlp_hidden, lr=3e-3, batch_size=256, seed=seed
            ),
        }


@dataclass
class SelectivityStudy:
    """Selectivity per layer and probe (``frame``, as :func:`selectivity_by_probe`), with every probe's 0/1
    correctness on the test rows for the task (``task[probe]``: (P, n_test)) and for the control task."""

    frame: pd.DataFrame
    task: dict[str, np.ndarray]
    control: dict[str, np.ndarray]

    def gap(self, a: str = "linear", b: str = "mlp", groups=None, seed: int = 0) -> tuple[float, float, float]:
        """Mean over layers of (selectivity of probe ``a`` - that of probe ``b``), with a 95% interval that
        resamples test items (by ``groups``, e.g. sentences): (gap, low, high)."""
        for p in (a, b):
            if p not in self.task:
                raise ParameterError(f"probe={p!r} is not in the study; allowed: {', '.join(self.task)}")
        per_item = {p: (self.task[p].astype(float) - self.control[p]).mean(0) for p in (a, b)}  # (n_test,)
        return stats.paired_gap(per_item[a], per_item[b], groups, seed=seed)


def selectivity_study(
    X: torch.Tensor,
    table: pd.DataFrame,
    target: str,
    train_idx,
    test_idx,
    probe_cfgs: dict[str, probing.ProbeConfig],
    seed: int = 0,
) -> SelectivityStudy:
    """Task accuracy, control-task accuracy and selectivity per layer, for each probe (Hewitt & Liang 2019).

    ``table`` is a :func:`~bertology_lib.data.word_labels.word_table` aligned with ``X`` (n_layers + 1, N, d);
    the control task gives each word type a fixed random label (seed ``seed``), the same for every probe.
    ``majority`` is the per-word-majority accuracy on the test rows. Used by the §3.4 notebook.
    """
    words, labels = table["word"].tolist(), table[target].tolist()
    control = probing.control_labels(words, labels, seed)
    frames, task_c, ctrl_c = [], {}, {}
    for name, cfg in probe_cfgs.items():
        task_c[name] = probing.probe_correct(X, labels, train_idx, test_idx, cfg)
        ctrl_c[name] = probing.probe_correct(X, control, train_idx, test_idx, cfg)
        t, c = task_c[name].mean(1), ctrl_c[name].mean(1)
        frames.append(
            pd.DataFrame(
                {"layer": range(X.shape[0]), "probe": name, "task_acc": t, "control_acc": c, "selectivity": t - c}
            )
        )
    out = pd.concat(frames, ignore_index=True)
    out.insert(0, "target", target)
    out["majority"] = probing.majority_baseline(words, labels, train_idx, test_idx)
    return SelectivityStudy(out, task_c, ctrl_c)


def selectivity_by_probe(
    X: torch.Tensor,
    table: pd.DataFrame,
    target: str,
    train_idx,
    test_idx,
    probe_cfgs: dict[str, probing.ProbeConfig],
    seed: int = 0,
) -> pd.DataFrame:
    """The per-layer table of :func:`selectivity_study`: target, layer, probe, task/control accuracy,
    selectivity, majority."""
    return selectivity_study(X, table, target, train_idx, test_idx, probe_cfgs, seed).frame


def selectivity_gap(sel: pd.DataFrame, a: str = "linear", b: str = "mlp") -> float:
    """Mean over layers of (selectivity of probe ``a`` - selectivity of probe ``b``), layer by layer."""
    s = sel.pivot_table(index="layer", columns="probe", values="selectivity")
    for p in (a, b):
        if p not in s.columns:
            raise KeyError(f"probe {p!r} is not in the table; allowed: {', '.join(map(str, s.columns))}")
    return float((s[a] - s[b]).mean())


def selectivity_summary(sel: pd.DataFrame) -> pd.DataFrame:
    """Per probe: the best task layer, its task/control accuracy and selectivity, and the mean selectivity."""
    rows = []
    for probe, d in sel.groupby("probe", sort=False):
        best = d.loc[d.task_acc.idxmax()]
        rows.append(
            {
                "probe": probe,
                "best_layer": int(best.layer),
                "task_acc": float(best.task_acc),
                "control_acc": float(best.control_acc),
                "selectivity": float(best.selectivity),
                "mean_selectivity": float(d.selectivity.mean()),
            }
        )
    return pd.DataFrame(rows).set_index("probe")


@dataclass
class CodelengthStudy:
    """Online codelengths per (model, task, layer) (``frame``, as :func:`codelength_table`) and the bits of
    every transmitted item (``bits[(model, task)]``: (P, n); ``rows``: the items' table rows, the same order
    for every model)."""

    frame: pd.DataFrame
    bits: dict[tuple[str, str], np.ndarray]
    rows: np.ndarray

    def gap(
        self, model: str, baseline: str, task: str, groups=None, n_resamples: int = 2000, seed: int = 0
    ) -> dict[str, float]:
        """Mean bits per item of ``baseline`` minus ``model``'s (positive: ``model`` codes the labels in fewer
        bits), each at its shortest layer, with a 95% interval that resamples items (by ``groups``, e.g.
        sentences, given per table row) and chooses both layers again in every resample."""
        for key in ((model, task), (baseline, task)):
            if key not in self.bits:
                raise ParameterError(
                    f"no codelength for model={key[0]!r}, task={key[1]!r}; allowed: {sorted(self.bits)}"
                )
        a, b = self.bits[(model, task)], self.bits[(baseline, task)]
        g = np.arange(len(self.rows)) if groups is None else np.asarray(groups)[self.rows]
        _, inv = np.unique(g, return_inverse=True)
        n_g = int(inv.max()) + 1
        sa = np.stack([np.bincount(inv, weights=row, minlength=n_g) for row in a])  # (P, groups)
        sb = np.stack([np.bincount(inv, weights=row, minlength=n_g) for row in b])
        cnt = np.bincount(inv, minlength=n_g).astype(float)

        def diff(pick: np.ndarray) -> float:
            n = cnt[pick].sum()
            return float(sb[:, pick].sum(1).min() / n - sa[:, pick].sum(1).min() / n)

        rng = np.random.default_rng(seed)
        reps = [diff(rng.integers(0, n_g, n_g)) for _ in range(n_resamples)]
        low, high = np.quantile(reps, [0.025, 0.975])
        la, lb = int(sa.sum(1).argmin()), int(sb.sum(1).argmin())
        return {
            "gap": diff(np.arange(n_g)),
            "low": float(low),
            "high": float(high),
            "layer": la,
            "baseline_layer": lb,
            "ratio": float(b[lb].sum() / a[la].sum()),
            "n_items": len(self.rows),
        }


def codelength_study(
    states: dict[str, torch.Tensor],
    table: pd.DataFrame,
    target: str,
    train_idx,
    cfg: probing.ProbeConfig | None = None,
    seed: int = 0,
) -> CodelengthStudy:
    """Online (MDL) codelength per layer for ``target`` and its control task, for each model's states.

    ``states``: model label -> (n_layers + 1, N, d) features aligned with
    ``table``; one row per (model, task, layer) with ``codelength_bits``,
    ``uniform_bits`` and ``compression`` (:func:`probing.online_codelength`,
    Voita & Titov 2020), and the bits of every item for intervals. Used by the §3.4 notebook.
    """
    words, labels = table["word"].tolist(), table[target].tolist()
    tasks = {target: labels, "control": probing.control_labels(words, labels, seed)}
    frames, bits, rows = [], {}, None
    for model_label, X in states.items():
        for task, lab in tasks.items():
            b, rows = probing.online_bits(X, lab, train_idx, cfg)
            bits[(model_label, task)] = b
            total = b.sum(1)
            uniform = len(rows) * np.log2(len(set(lab)))
            frames.append(
                pd.DataFrame(
                    {
                        "model": model_label,
                        "task": task,
                        "layer": range(X.shape[0]),
                        "codelength_bits": total.astype(float),
                        "uniform_bits": uniform,
                        "compression": (uniform / total).astype(float),
                    }
                )
            )
    return CodelengthStudy(pd.concat(frames, ignore_index=True), bits, rows)


def codelength_table(
    states: dict[str, torch.Tensor],
    table: pd.DataFrame,
    target: str,
    train_idx,
    cfg: probing.ProbeConfig | None = None,
    seed: int = 0,
) -> pd.DataFrame:
    """The per-layer table of :func:`codelength_study`."""
    return codelength_study(states, table, target, train_idx, cfg, seed).frame


def best_codelength(mdl: pd.DataFrame, model: str, task: str) -> pd.Series:
    """The row of the layer with the shortest codelength for one (model, task)."""
    r = mdl[(mdl.model == model) & (mdl.task == task)]
    if r.empty:
        raise KeyError(f"no rows for model={model!r}, task={task!r}")
    return r.loc[r.codelength_bits.idxmin()]


def inlp_iterations(d_model: int, n_classes: int, at_most: int, max_share: float = 0.5) -> int:
    """INLP iterations such that at most ``max_share`` of ``d_model`` directions are removed (≥ 1).

    Each INLP iteration removes one direction per class (the columns of a
    multinomial probe's weight matrix).
    """
    if d_model < 1 or n_classes < 1 or at_most < 1:
        raise ParameterError(f"d_model={d_model}, n_classes={n_classes}, at_most={at_most}: each must be >= 1")
    return max(1, min(at_most, int(max_share * d_model) // n_classes))


def amnesic_mlm_drop(
    model, tokenizer, texts, layer: int, P: torch.Tensor, mean: torch.Tensor | None = None, seed: int = 1234
) -> dict[str, float]:
    """Held-out MLM accuracy without and with the projection ``P`` applied after ``layer``.

    The same words are masked in both runs (fixed ``seed``), so the drop is a
    paired difference. Returns ``before``, ``after`` and ``drop``.
    """
    before = _mlm_acc(model, tokenizer, texts, seed)
    with project_out(model, layer, P, mean):
        after = _mlm_acc(model, tokenizer, texts, seed)
    return {"before": before, "after": after, "drop": before - after}


def amnesic_probe(
    model,
    tokenizer,
    X_layer: torch.Tensor,
    labels,
    train_idx,
    test_idx,
    layer: int,
    texts,
    n_iter: int,
    n_controls: int = 5,
    probe_cfg: probing.ProbeConfig | None = None,
    seed: int = 0,
    mlm_seed: int = 1234,
) -> tuple[pd.DataFrame, list[float]]:
    """Amnesic probing (Elazar et al. 2021) at one layer, with random-direction controls.

    INLP (Ravfogel et al. 2020) on the training rows of ``X_layer`` (N, d)
    finds a projection ``P`` that removes ``labels``; ``n_controls`` random
    projections of the same rank are the control. One row per condition
    (``none``, ``INLP``, ``random``): directions removed, held-out accuracy of
    a probe retrained on the projected states (is the property gone?), MLM
    accuracy on ``texts`` with the projection active after ``layer``, and
    its drop from the unprojected model (same masks). Also returns INLP's
    per-iteration training accuracies. Used by the §3.4 notebook.
    """
    tr, te = np.asarray(train_idx), np.asarray(test_idx)
    labels = list(labels)
    Xl = X_layer.float()
    d = Xl.shape[1]
    mean = Xl[tr].mean(0)
    P_inlp, inlp_accs = probing.inlp_projection(Xl[tr], [labels[i] for i in tr], n_iter=n_iter)
    rank = int(round(d - float(torch.trace(P_inlp))))
    conds: list[tuple[str, int, torch.Tensor]] = [("none", 0, torch.eye(d)), ("INLP", 0, P_inlp)]
    conds += [("random", k, probing.random_projection(d, rank, seed=seed + k)) for k in range(n_controls)]
    Z = torch.stack([mean + (Xl - mean) @ P for _, _, P in conds])  # (n_conditions, N, d)
    probe = probing.probe_sweep(Z, labels, tr, te, probe_cfg)
    texts = list(texts)
    base = _mlm_acc(model, tokenizer, texts, mlm_seed)
    rows = []
    for (name, draw, P), acc in zip(conds, probe.test_acc):
        if name == "none":
            mlm = base
        else:
            with project_out(model, layer, P, mean):
                mlm = _mlm_acc(model, tokenizer, texts, mlm_seed)
        rows.append(
            {
                "condition": name,
                "draw": draw,
                "layer": layer,
                "rank": 0 if name == "none" else int(round(d - float(torch.trace(P)))),
                "probe_acc": float(acc),
                "mlm_acc": mlm,
                "mlm_drop": base - mlm,
            }
        )
    return pd.DataFrame(rows), inlp_accs


def amnesic_interval(amnesic: pd.DataFrame) -> tuple[float, float, float]:
    """INLP's MLM-accuracy drop minus each random control's drop: mean with a 95% t interval over the random
    draws (mean, low, high). Above 0: removing the property hurts more than removing as many random directions."""
    inlp = amnesic[amnesic.condition == "INLP"].mlm_drop
    rand = amnesic[amnesic.condition == "random"].mlm_drop
    if inlp.empty or len(rand) < 2:
        raise ParameterError("the table needs an INLP row and at least two random rows (see amnesic_probe)")
    return stats.one_sample_interval([float(inlp.iloc[0]) - float(r) for r in rand], digits=6)


def amnesic_margin(amnesic: pd.DataFrame) -> float:
    """MLM-accuracy drop of the INLP removal minus the largest drop among the random controls."""
    inlp = amnesic[amnesic.condition == "INLP"].mlm_drop
    rand = amnesic[amnesic.condition == "random"].mlm_drop
    if inlp.empty or rand.empty:
        raise KeyError("the table needs an INLP row and at least one random row (see amnesic_probe)")
    return float(inlp.iloc[0] - rand.max())
