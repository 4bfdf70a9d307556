"""The instrument checks of the physics probes: can this probe see what it is asked about?

* :func:`classes_seen`: a classifier probe can only name classes its training people have; below
  :data:`CLASSES_SEEN` of the held-out people covered, its accuracy says more about the pools than the model.
* :func:`positive_control`: on a bioS ``single`` model the value of each attribute is next just before it, so a
  P-probe there must read it; a probe below :data:`POSITIVE_CONTROL` over majority cannot tell "not stored
  at the name" from "not readable".

The memorisation check of the models themselves is
:func:`bertology_lib.experiments.physics.evaluation.memorisation`; :func:`memorisation_by_attribute` and
:func:`memorisation_table` split it by attribute, to show *what* a model that fails it did not store. Used by
``notebooks/physics_03_pretrain_finetune.ipynb`` and ``notebooks/physics_05_probing.ipynb``.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from bertology_lib.data import bios
from bertology_lib.errors import ParameterError
from bertology_lib.experiments.physics import evaluation, training
from bertology_lib.experiments.physics.config import PhysicsConfig
from bertology_lib.experiments.physics.probing import attribute_label, best_layer_rows, people_split

CLASSES_SEEN = 0.9  # share of probe-test people whose class a probe-training person has, per attribute
POSITIVE_CONTROL = 0.3  # mean accuracy over majority a P-probe reaches where the value is next


def classes_seen(
    dataset: bios.BioDataset,
    n_people: int | None = None,
    train_fraction: float = 0.5,
    seed: int = 0,
    birth_date_label: str = "month",
) -> pd.Series:
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
            raise ParameterError(
                f"the result has no row for position pos{k} and attribute {a!r}; allowed: a "
                "p_probe result with position_by='order'"
            )
        best = best_layer_rows(sub).iloc[0]
        rows[a] = float(best["accuracy"] - best["majority"])
    return pd.Series(rows, name="accuracy_over_majority")


def memorisation_by_attribute(
    model, tokenizer, dataset: bios.BioDataset, n_people: int = 128, seed: int = 0
) -> dict[str, float]:
    """:func:`~bertology_lib.experiments.physics.evaluation.memorisation` split by attribute: the same first-token
    accuracy after the name, on the same training biographies, with only the name's and one attribute's spans
    scored. ``all`` is the check's own value (every attribute), so a model that fails the check shows which
    values it did not store."""
    entries = evaluation.training_bios(dataset, n_people=n_people, seed=seed)
    out = {}
    for a in bios.ATTRIBUTES:
        kept = [dataclasses.replace(e, spans=tuple(sp for sp in e.spans if sp[0] in ("name", a))) for e in entries]
        out[a] = evaluation.bio_accuracy(model, tokenizer, kept, first_token=True, after_name=True)
    out["all"] = evaluation.bio_accuracy(model, tokenizer, entries, first_token=True, after_name=True)
    return out


def memorisation_table(grid: pd.DataFrame, base: PhysicsConfig) -> pd.DataFrame:
    """One row per pretrained model of a fine-tuning grid (``grid_seeds`` rows of
    :func:`~bertology_lib.experiments.physics.grid.finetune_grid` on ``base``): :func:`memorisation_by_attribute`
    on the biographies of its augmentation and seed, sampled as the grid's own ``memorised`` column is (so
    ``all`` equals it), with ``passes`` = ``all`` >= :data:`~bertology_lib.experiments.physics.evaluation.MEMORISED`."""
    missing = {"augmentation", "seed", "pretrained"} - set(grid.columns)
    if missing:
        raise ParameterError(f"grid lacks columns {sorted(missing)}; allowed: a table from grid.finetune_grid")
    rows = []
    runs = grid[["augmentation", "seed", "pretrained"]].drop_duplicates(["augmentation", "seed"])
    for aug, seed, path in runs.itertuples(index=False):
        model, tok = training.load_model(path, device=training.run_device(base))
        ds = base.replace(augmentation=aug, seed=int(seed)).dataset()
        rows.append(
            {"augmentation": aug, "seed": int(seed), **memorisation_by_attribute(model, tok, ds, seed=int(seed))}
        )
    out = pd.DataFrame(rows).set_index(["augmentation", "seed"])
    out["passes"] = out["all"] >= evaluation.MEMORISED
    return out
