"""The instrument checks of the physics probes (issues 16 and 17): can this probe see what it is asked about?

* :func:`classes_seen`: a classifier probe can only name classes its training people have; below
  :data:`CLASSES_SEEN` of the held-out people covered, its accuracy says more about the pools than the model.
* :func:`positive_control`: on a bioS ``single`` model the value of each attribute is next just before it, so a
  P-probe there must read it; a probe below :data:`POSITIVE_CONTROL` over majority cannot tell "not stored
  at the name" from "not readable".

The memorisation check of the models themselves is
:func:`bertology_lib.experiments.physics.evaluation.memorisation`. Used by ``notebooks/physics_05_probing.ipynb``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from bertology_lib.data import bios
from bertology_lib.errors import ParameterError
from bertology_lib.experiments.physics.probing import attribute_label, best_layer_rows, people_split

CLASSES_SEEN = 0.9  # share of probe-test people whose class a probe-training person has, per attribute (#17)
POSITIVE_CONTROL = 0.3  # mean accuracy over majority a P-probe reaches where the value is next (#17)


def classes_seen(dataset: bios.BioDataset, n_people: int | None = None, train_fraction: float = 0.5, seed: int = 0,
                 birth_date_label: str = "month") -> pd.Series:
    """Per attribute: the share of probe-test people whose label some probe-training person has (the split of
    :func:`~bertology_lib.experiments.physics.probing.p_probe` / :func:`~bertology_lib.experiments.physics.probing.q_probe` with the same arguments). A classifier probe can only name classes it
    saw, so below :data:`CLASSES_SEEN` its accuracy says more about the pools than about the model."""
    tr, te = people_split(len(dataset.people), n_people, train_fraction, seed)
    out = {}
    for a in bios.ATTRIBUTES:
        seen = {attribute_label(dataset.people[int(i)], a, birth_date_label) for i in tr}
        out[a] = float(np.mean([attribute_label(dataset.people[int(i)], a, birth_date_label) in seen for i in te]))
    return pd.Series(out, name="classes_seen")


def positive_control(result: pd.DataFrame) -> pd.Series:
    """The P-probe's positive control on a bioS ``single`` model (``result`` from :func:`~bertology_lib.experiments.physics.probing.p_probe` with
    ``position_by="order"``): per attribute, accuracy minus majority (layer chosen on the validation people,
    :func:`~bertology_lib.experiments.physics.probing.best_layer_rows`) at the position just before
    the attribute's own value (``posK`` for the K-th attribute: single keeps the order of
    :data:`bertology_lib.data.bios.ATTRIBUTES`). A model that memorised its biographies must predict the value
    there, so a probe that cannot read it (mean below :data:`POSITIVE_CONTROL`) is not an instrument that
    can tell "not stored at the name" from "not readable"."""
    rows = {}
    for k, a in enumerate(bios.ATTRIBUTES, start=1):
        sub = result[(result["position"] == f"pos{k}") & (result["attribute"] == a)]
        if sub.empty:
            raise ParameterError(f"the result has no row for position pos{k} and attribute {a!r}; allowed: a "
                                 "p_probe result with position_by='order'")
        best = best_layer_rows(sub).iloc[0]
        rows[a] = float(best["accuracy"] - best["majority"])
    return pd.Series(rows, name="accuracy_over_majority")
