"""Sizes of the survey's §3–§4 notebooks per profile (Rogers et al. 2020): probe sentences, real sentences,
suite items, probe iterations.

Used by every §3–§4 notebook and by ``duplication_01_reconstruction``; the notebooks' own extra sizes sit
beside their code (e.g. :class:`~bertology_lib.experiments.survey.semantics.SemanticsSizes`). Until
2026-12-05 it lived in :mod:`bertology_lib.experiments.survey.knowledge`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from bertology_lib.profiles import SizeTable


@dataclass(frozen=True)
class SurveySizes(SizeTable):
    """Sizes of the survey §3–§4 notebooks per profile."""

    n_probe_sentences: int  # held-out toy sentences for probing (75% train / 25% test by sentence)
    n_real_train: int  # UD EWT dev sentences to train probes on
    n_real_test: int  # UD EWT dev sentences held out
    n_items: int  # minimal pairs per suite
    probe_iter: int  # L-BFGS iterations of linear probes

    SIZES: ClassVar[dict[str, dict[str, Any]]] = {
        "smoke": dict(n_probe_sentences=120, n_real_train=40, n_real_test=20, n_items=40, probe_iter=30),
        "quick": dict(n_probe_sentences=1500, n_real_train=1200, n_real_test=400, n_items=240, probe_iter=100),
        "full": dict(n_probe_sentences=8000, n_real_train=1500, n_real_test=500, n_items=1000, probe_iter=300),
    }
