"""Sizes and shared steps of the survey notebooks (§3–§4).

Each survey notebook resolves its profile into :class:`SurveySizes` and calls
the steps here, which chain the library's pieces (gold word tables,
one activation pass, all-layer probes, cloze suites) the same way in every
notebook.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import torch

from . import features, probing
from .activations import run_with_cache
from .profiles import Profile


@dataclass(frozen=True)
class SurveySizes:
    n_probe_sentences: int  # held-out toy sentences for probing (75% train / 25% test by sentence)
    n_real_train: int  # UD EWT dev sentences to train probes on
    n_real_test: int  # UD EWT dev sentences held out
    n_items: int  # minimal pairs per suite
    probe_iter: int  # L-BFGS iterations of linear probes

    @classmethod
    def for_profile(cls, profile: Profile) -> "SurveySizes":
        return {
            "smoke": cls(n_probe_sentences=120, n_real_train=40, n_real_test=20, n_items=40, probe_iter=30),
            "quick": cls(n_probe_sentences=1500, n_real_train=1200, n_real_test=400, n_items=240, probe_iter=100),
            "full": cls(n_probe_sentences=8000, n_real_train=1500, n_real_test=500, n_items=1000, probe_iter=300),
        }[profile.name]


def probe_sentences(minibert_cfg, n: int):
    """Toy sentences the mini-BERT never trained on: fresh draws from the same grammar (another seed)."""
    from dataclasses import replace

    from .data.toy_english import generate_corpus

    cc = replace(minibert_cfg.corpus_config(), n_sentences=n, seed=minibert_cfg.corpus_seed + 10_000)
    return generate_corpus(cc)


def random_init_like(model):
    """Same architecture, fresh random weights (the probing baseline), eval mode."""
    torch.manual_seed(0)
    fresh = type(model)(model.config)
    return fresh.eval()


def probe_models(models: dict[str, tuple], sentences, targets, train_frac: float = 0.75,
                 probe_iter: int = 100, lowercase: bool = False,
                 ambiguous_target: str | None = "upos") -> pd.DataFrame:
    """Probe every layer of each model for each target on the same sentences and split.

    ``models``: label -> (model, tokenizer). One activation pass per model;
    probes for all layers trained together (:func:`probing.layer_report`).
    Adds an ``ambiguous`` subset (words seen with ≥ 2 tags of
    ``ambiguous_target`` in training) when asked.
    """
    table = features.word_table(sentences, lowercase=lowercase)
    n_train = int(round(train_frac * len(sentences)))
    tr, te = features.sentence_split(table, n_train)
    subsets = {}
    if ambiguous_target:
        subsets["ambiguous"] = features.ambiguous_mask(table, tr, ambiguous_target)
    cfg = probing.ProbeConfig(max_iter=probe_iter)
    frames = []
    for label, (model, tok) in models.items():
        cache = run_with_cache(model, tok, [s.words for s in sentences], batch_size=64)
        frames.append(probing.layer_report(cache.resid, table, targets, tr, te, cfg,
                                           subsets=subsets, model_label=label))
    return pd.concat(frames, ignore_index=True)


def best_layer(report: pd.DataFrame, target: str, model: str, subset: str = "all") -> pd.Series:
    """The row of the best layer for one (target, model, subset)."""
    r = report[(report.target == target) & (report.model == model) & (report.subset == subset)]
    if r.empty:
        raise KeyError(f"no rows for target={target!r}, model={model!r}, subset={subset!r}")
    return r.loc[r.accuracy.idxmax()]


def mean_ci(x: np.ndarray, z: float = 1.96) -> tuple[float, float, float]:
    """Mean and a normal-approximation 95% interval of a 0/1 or real sample."""
    x = np.asarray(x, dtype=float)
    m = float(x.mean())
    se = float(x.std(ddof=1) / np.sqrt(len(x))) if len(x) > 1 else float("nan")
    return m, m - z * se, m + z * se


def suite_across_checkpoints(checkpoints, items, by: str) -> pd.DataFrame:
    """Score ``items`` with every kept checkpoint: accuracy per (step, ``by`` group).

    ``checkpoints``: (step, folder) pairs (:func:`bertology_lib.minibert.checkpoints`).
    """
    from transformers import AutoModelForMaskedLM, AutoTokenizer

    from .cloze import accuracy_by, score_items

    frames = []
    for step, folder in checkpoints:
        model = AutoModelForMaskedLM.from_pretrained(folder).eval()
        tok = AutoTokenizer.from_pretrained(folder)
        acc = accuracy_by(score_items(model, tok, items), by)
        acc.insert(0, "step", step)
        frames.append(acc)
    return pd.concat(frames, ignore_index=True)
