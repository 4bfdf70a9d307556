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

from bertology_lib.data import word_labels as features
from bertology_lib.analysis import probing
from bertology_lib.analysis.activations import run_with_cache
from bertology_lib.profiles import Profile


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

    from bertology_lib.data.toy_english import generate_corpus

    cc = replace(minibert_cfg.corpus_config(), n_sentences=n, seed=minibert_cfg.corpus_seed + 10_000)
    return generate_corpus(cc)


def random_init_like(model):
    """Same architecture, fresh random weights (the probing baseline), eval mode."""
    torch.manual_seed(0)
    fresh = type(model)(model.config)
    return fresh.eval()


def probe_models(models: dict[str, tuple], sentences, targets, train_frac: float = 0.75,
                 probe_iter: int = 100, lowercase: bool = False,
                 ambiguous_target: str | None = "upos", cache: bool = False) -> pd.DataFrame:
    """Probe every layer of each model for each target on the same sentences and split.

    ``models``: label -> (model, tokenizer). One activation pass per model
    (read from the artifact cache when ``cache``);
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
        acts = run_with_cache(model, tok, [s.words for s in sentences], batch_size=64, cache=cache)
        frames.append(probing.layer_report(acts.resid, table, targets, tr, te, cfg,
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

    ``checkpoints``: (step, folder) pairs (:func:`bertology_lib.models.minibert.checkpoints`).
    """
    from transformers import AutoModelForMaskedLM, AutoTokenizer

    from bertology_lib.analysis.cloze import accuracy_by, score_items

    frames = []
    for step, folder in checkpoints:
        model = AutoModelForMaskedLM.from_pretrained(folder).eval()
        tok = AutoTokenizer.from_pretrained(folder)
        acc = accuracy_by(score_items(model, tok, items), by)
        acc.insert(0, "step", step)
        frames.append(acc)
    return pd.concat(frames, ignore_index=True)


# -- §3.4 limits of probing: control tasks, MDL, amnesic probing ---------------------------------
@dataclass(frozen=True)
class ProbingLimitsSizes:
    """Sizes of the §3.4 notebook beyond :class:`SurveySizes`."""

    mlp_epochs: int  # Adam epochs of the MLP probes (long enough to memorise, as in Hewitt & Liang)
    mlp_hidden: int  # MLP probe width
    inlp_iter: int  # INLP iterations at most (capped by inlp_iterations so ≤ half of d_model goes)
    n_random_controls: int  # random projections of the same rank: the amnesic control
    n_mlm_texts: int  # held-out sentences on which MLM accuracy is measured

    @classmethod
    def for_profile(cls, profile: Profile) -> "ProbingLimitsSizes":
        return {
            "smoke": cls(mlp_epochs=40, mlp_hidden=64, inlp_iter=2, n_random_controls=3, n_mlm_texts=200),
            "quick": cls(mlp_epochs=60, mlp_hidden=128, inlp_iter=4, n_random_controls=5, n_mlm_texts=1000),
            "full": cls(mlp_epochs=100, mlp_hidden=256, inlp_iter=20, n_random_controls=10, n_mlm_texts=5000),
        }[profile.name]

    def probe_configs(self, probe_iter: int, seed: int = 0) -> dict[str, probing.ProbeConfig]:
        """The two probe families compared: L2-regularised linear, and an unregularised 1-hidden-layer MLP."""
        return {
            "linear": probing.ProbeConfig(max_iter=probe_iter, seed=seed),
            "mlp": probing.ProbeConfig(kind="mlp", l2=0.0, max_iter=self.mlp_epochs, hidden=self.mlp_hidden,
                                       lr=3e-3, batch_size=256, seed=seed),
        }


def selectivity_by_probe(X: torch.Tensor, table: pd.DataFrame, target: str, train_idx, test_idx,
                         probe_cfgs: dict[str, probing.ProbeConfig], seed: int = 0) -> pd.DataFrame:
    """Task accuracy, control-task accuracy and selectivity per layer, for each probe (Hewitt & Liang 2019).

    ``table`` is a :func:`features.word_table` aligned with ``X`` (n_layers + 1, N, d);
    the control task gives each word type a fixed random label (seed ``seed``),
    the same for every probe. ``majority`` is the per-word-majority accuracy on
    the test rows. Used by the §3.4 notebook.
    """
    words, labels = table["word"].tolist(), table[target].tolist()
    frames = []
    for name, cfg in probe_cfgs.items():
        sel = probing.selectivity(X, words, labels, train_idx, test_idx, cfg, seed=seed)
        sel["probe"] = name
        frames.append(sel)
    out = pd.concat(frames, ignore_index=True)
    out.insert(0, "target", target)
    out["majority"] = probing.majority_baseline(words, labels, train_idx, test_idx)
    return out


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
        rows.append({"probe": probe, "best_layer": int(best.layer), "task_acc": float(best.task_acc),
                     "control_acc": float(best.control_acc), "selectivity": float(best.selectivity),
                     "mean_selectivity": float(d.selectivity.mean())})
    return pd.DataFrame(rows).set_index("probe")


def codelength_table(states: dict[str, torch.Tensor], table: pd.DataFrame, target: str, train_idx,
                     cfg: probing.ProbeConfig | None = None, seed: int = 0) -> pd.DataFrame:
    """Online (MDL) codelength per layer for ``target`` and its control task, for each model's states.

    ``states``: model label -> (n_layers + 1, N, d) features aligned with
    ``table``; one row per (model, task, layer) with ``codelength_bits``,
    ``uniform_bits`` and ``compression`` (:func:`probing.online_codelength`,
    Voita & Titov 2020). Used by the §3.4 notebook.
    """
    words, labels = table["word"].tolist(), table[target].tolist()
    tasks = {target: labels, "control": probing.control_labels(words, labels, seed)}
    frames = []
    for model_label, X in states.items():
        for task, lab in tasks.items():
            df = probing.online_codelength(X, lab, train_idx, cfg)
            df = df.astype({"codelength_bits": float, "compression": float})
            df.insert(0, "task", task)
            df.insert(0, "model", model_label)
            frames.append(df)
    return pd.concat(frames, ignore_index=True)


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
        raise ValueError(f"d_model={d_model}, n_classes={n_classes}, at_most={at_most}: each must be >= 1")
    return max(1, min(at_most, int(max_share * d_model) // n_classes))


def amnesic_mlm_drop(model, tokenizer, texts, layer: int, P: torch.Tensor, mean: torch.Tensor | None = None,
                     seed: int = 1234) -> dict[str, float]:
    """Held-out MLM accuracy without and with the projection ``P`` applied after ``layer``.

    The same words are masked in both runs (fixed ``seed``), so the drop is a
    paired difference. Returns ``before``, ``after`` and ``drop``.
    """
    from bertology_lib.interventions.hooks import project_out
    from bertology_lib.models.minibert import mlm_accuracy

    before = mlm_accuracy(model, tokenizer, list(texts), seed=seed)
    with project_out(model, layer, P, mean):
        after = mlm_accuracy(model, tokenizer, list(texts), seed=seed)
    return {"before": before, "after": after, "drop": before - after}


def amnesic_probe(model, tokenizer, X_layer: torch.Tensor, labels, train_idx, test_idx, layer: int, texts,
                  n_iter: int, n_controls: int = 5, probe_cfg: probing.ProbeConfig | None = None,
                  seed: int = 0, mlm_seed: int = 1234) -> tuple[pd.DataFrame, list[float]]:
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
    from bertology_lib.interventions.hooks import project_out
    from bertology_lib.models.minibert import mlm_accuracy

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
    base = mlm_accuracy(model, tokenizer, texts, seed=mlm_seed)
    rows = []
    for (name, draw, P), acc in zip(conds, probe.test_acc):
        if name == "none":
            mlm = base
        else:
            with project_out(model, layer, P, mean):
                mlm = mlm_accuracy(model, tokenizer, texts, seed=mlm_seed)
        rows.append({"condition": name, "draw": draw, "layer": layer,
                     "rank": 0 if name == "none" else int(round(d - float(torch.trace(P)))),
                     "probe_acc": float(acc), "mlm_acc": mlm, "mlm_drop": base - mlm})
    return pd.DataFrame(rows), inlp_accs


def amnesic_margin(amnesic: pd.DataFrame) -> float:
    """MLM-accuracy drop of the INLP removal minus the largest drop among the random controls."""
    inlp = amnesic[amnesic.condition == "INLP"].mlm_drop
    rand = amnesic[amnesic.condition == "random"].mlm_drop
    if inlp.empty or rand.empty:
        raise KeyError("the table needs an INLP row and at least one random row (see amnesic_probe)")
    return float(inlp.iloc[0] - rand.max())


# ---------------------------------------------------------------------------------
# §3.2 semantic and §3.3 world knowledge: suite tables with chance, gaps, name swaps,
# fact mentions and size comparisons. Used by survey_03_2_semantics and
# survey_03_3_world_knowledge.
# ---------------------------------------------------------------------------------

import math as _math  # noqa: E402  (kept with the section that uses them)
import random as _random  # noqa: E402
from collections import Counter as _Counter  # noqa: E402


def proportion_ci(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval of a proportion ``k / n`` (sensible at 0 and 1, unlike the normal one)."""
    if n <= 0:
        return float("nan"), float("nan")
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * _math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def suite_accuracy(scored: pd.DataFrame, by: str | list[str] | None = None,
                   chance: float = 0.5) -> pd.DataFrame:
    """Accuracy, its 95% Wilson interval, item count and the chance baseline, overall or per group.

    ``scored``: rows of :func:`bertology_lib.analysis.cloze.score_items` (a boolean
    ``correct`` column). Every suite score in the survey §3.2–§3.3 notebooks is
    shown through this table, so the chance baseline (0.5 for a two-way choice)
    always stands beside it.
    """
    keys = [] if by is None else [by] if isinstance(by, str) else list(by)
    groups = [((), scored)] if not keys else scored.groupby(keys, sort=True, observed=True)
    rows = []
    for key, g in groups:
        key = key if isinstance(key, tuple) else (key,)
        n = len(g)
        k = int(g["correct"].sum())
        acc = k / n if n else float("nan")
        lo, hi = proportion_ci(k, n)
        rows.append({**dict(zip(keys, key)), "accuracy": acc, "ci_low": lo, "ci_high": hi, "n": n,
                     "stderr": _math.sqrt(acc * (1 - acc) / n) if n else float("nan"), "chance": chance})
    return pd.DataFrame(rows, columns=[*keys, "accuracy", "ci_low", "ci_high", "n", "stderr", "chance"])


def suite_summary(scored: dict[str, pd.DataFrame], chance: float = 0.5) -> pd.DataFrame:
    """One :func:`suite_accuracy` row per named suite (label -> scored rows)."""
    rows = [suite_accuracy(df, chance=chance).assign(suite=label) for label, df in scored.items()]
    out = pd.concat(rows, ignore_index=True)
    return out[["suite", *[c for c in out.columns if c != "suite"]]]


def accuracy_gap(a, b, z: float = 1.96) -> tuple[float, float, float]:
    """``mean(a) - mean(b)`` of two 0/1 samples with an Agresti–Caffo 95% interval.

    Returns (gap, low, high). The interval adds one success and one failure to
    each sample, so it never collapses to a point when both accuracies are 0 or 1.
    Used for the "X is harder than Y" claims of the §3.2–§3.3 notebooks.
    """
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    if len(a) == 0 or len(b) == 0:
        return float("nan"), float("nan"), float("nan")
    gap = float(a.mean() - b.mean())
    pa, pb = (a.sum() + 1) / (len(a) + 2), (b.sum() + 1) / (len(b) + 2)
    se = _math.sqrt(pa * (1 - pa) / (len(a) + 2) + pb * (1 - pb) / (len(b) + 2))
    d = float(pa - pb)
    return gap, d - z * se, d + z * se


def accuracy_by_bins(scored: pd.DataFrame, column: str, edges, chance: float = 0.5) -> pd.DataFrame:
    """:func:`suite_accuracy` per interval of a numeric ``column`` (``edges``: bin edges; empty bins dropped).

    Bins include their upper edge (and the first its lower one); labels read "lo to hi".
    """
    edges = list(edges)
    labels = [f"{lo:g} to {hi:g}" for lo, hi in zip(edges[:-1], edges[1:])]
    binned = scored.assign(**{f"{column}_bin": pd.cut(scored[column], edges, labels=labels,
                                                      include_lowest=True)})
    out = suite_accuracy(binned, f"{column}_bin", chance=chance)
    out[f"{column}_bin"] = out[f"{column}_bin"].astype(str)
    return out


PAIR_OUTCOMES = ("both orders right", "same filler in both orders", "both orders wrong")


def pair_outcomes(scored: pd.DataFrame, pair: str = "pair_id") -> pd.DataFrame:
    """How the two items of each minimal pair (e.g. role reversal) came out together.

    In a role-reversal pair the right filler changes with the order of the
    arguments; a model that ignores roles picks the same filler both times
    (one right, one wrong). The ``chance`` column is what a coin flip per item
    gives. Pairs with an unscored member are left out.
    """
    g = scored.groupby(pair)["correct"].agg(["sum", "size"])
    g = g[g["size"] == 2]
    k = g["sum"].map({2: PAIR_OUTCOMES[0], 1: PAIR_OUTCOMES[1], 0: PAIR_OUTCOMES[2]})
    counts = k.value_counts().reindex(PAIR_OUTCOMES, fill_value=0)
    n = int(counts.sum())
    return pd.DataFrame({"outcome": PAIR_OUTCOMES, "n": counts.to_numpy(),
                         "share": counts.to_numpy() / n if n else np.nan, "chance": [0.25, 0.5, 0.25]})


def count_vs_animal(numbers: pd.DataFrame, knowledge: pd.DataFrame, kb) -> pd.DataFrame:
    """Two slots of the same "owns" facts: the count (numbers suite) and the animal (knowledge suite).

    Keeps owners of two or more animals on both sides (the numbers suite asks
    only about those, so the animal's number never gives the count away).
    Returns ``slot`` ("count" | "animal"), ``person``, ``correct``.
    """
    counts = numbers[numbers["kind"] == "quantity_fact"]
    animals = knowledge[knowledge["relation"] == "owns"]
    animals = animals[animals["subject"].map(lambda p: kb.owns[p][0] >= 2)]
    return pd.concat([
        pd.DataFrame({"slot": "count", "person": counts["person"], "correct": counts["correct"]}),
        pd.DataFrame({"slot": "animal", "person": animals["subject"], "correct": animals["correct"]}),
    ], ignore_index=True)


_OTHER_NUMBER = {"is": "are", "are": "is", "was": "were", "were": "was", "has": "have", "have": "has",
                 "does": "do", "do": "does"}


def name_swap_pairs(items, kb, seed: int = 0) -> list[tuple]:
    """Name-independent cloze items before and after swapping every name for another of its type.

    For each item's annotated sentence (``item.sentence``) that contains a
    knowledge-base name and an agreeing verb, the verb is masked (candidates:
    its form and the other-number form) — a prediction no name should change.
    The swapped twin replaces each person, city or country name by another
    one of the same type not already in the sentence (Balasubramanian et al.
    2020 replace names within a typed class). Returns (original, swapped)
    :class:`~bertology_lib.data.toy_english.ClozeItem` pairs.
    """
    from bertology_lib.data.toy_english import MASK, ClozeItem

    rng = _random.Random(f"name-swap:{seed}")
    pools = {"person": kb.people, "city": kb.cities, "country": kb.countries}
    type_of = {n: t for t, names in pools.items() for n in names}
    out = []
    for k, it in enumerate(items):
        s = getattr(it, "sentence", None)
        v = None if s is None else s.meta.get("verb_index")
        if v is None:
            continue
        words = list(s.words)
        where = [i for i, w in enumerate(words) if w in type_of]
        verb = words[v]
        other = _OTHER_NUMBER.get(verb, s.lemmas[v])
        if not where or other == verb or s.number[v] not in ("Sing", "Plur"):
            continue
        swapped = list(words)
        for i in where:
            pool = [n for n in pools[type_of[words[i]]] if n not in words and n not in swapped]
            swapped[i] = rng.choice(pool)
        meta = {"pair": k, "relation": it.meta.get("relation", ""), "verb": verb, "n_names": len(where)}

        def masked(ws, version):
            names = " ".join(ws[i] for i in where)
            ws = list(ws)
            ws[v] = MASK
            return ClozeItem("name_swap", tuple(ws), v, verb, other,
                             {**meta, "names": names, "version": version})

        out.append((masked(words, "original"), masked(swapped, "swapped")))
    return out


def name_swap_flips(model, tokenizer, pairs) -> pd.DataFrame:
    """Score each (original, swapped) pair of :func:`name_swap_pairs`; one row a pair.

    Columns: ``relation``, ``names`` and ``swapped_names`` (space-separated),
    ``correct_original``, ``correct_swapped``,
    ``margin_original``, ``margin_swapped`` and ``flipped`` (the preferred
    filler changed when only the names did).
    """
    from bertology_lib.analysis.cloze import score_items

    a = score_items(model, tokenizer, [p[0] for p in pairs]).set_index("item")
    b = score_items(model, tokenizer, [p[1] for p in pairs]).set_index("item")
    both = a.index.intersection(b.index)
    out = pd.DataFrame({
        "relation": a.loc[both, "relation"], "names": a.loc[both, "names"],
        "swapped_names": b.loc[both, "names"],
        "correct_original": a.loc[both, "correct"], "correct_swapped": b.loc[both, "correct"],
        "margin_original": a.loc[both, "margin"], "margin_swapped": b.loc[both, "margin"],
    }).reset_index(drop=True)
    out["flipped"] = out.correct_original != out.correct_swapped
    return out


def fact_mentions(sentences) -> _Counter:
    """How many sentences state each fact: ``(relation, subject, object) -> count``.

    Counts the generator's fact sentences (``meta["kind"] == "fact"``); pass
    the mini-BERT's training split (:func:`bertology_lib.models.minibert.corpus`) to
    know how often the model read each fact.
    """
    counts: _Counter = _Counter()
    for s in sentences:
        if s.meta.get("kind") == "fact":
            counts.update(tuple(f) for f in s.meta.get("facts", ()))
    return counts


MENTION_BUCKETS = ((0, 0, "0"), (1, 1, "1"), (2, 4, "2-4"), (5, 9, "5-9"), (10, 19, "10-19"),
                   (20, 49, "20-49"), (50, None, "50+"))


def mention_bucket(n: int) -> str:
    """A coarse label for a mention count ("0", "1", "2-4", ..., "50+")."""
    for lo, hi, label in MENTION_BUCKETS:
        if n >= lo and (hi is None or n <= hi):
            return label
    raise ValueError(f"n={n!r} is not a count; allowed: an int >= 0")


def with_fact_mentions(scored: pd.DataFrame, items, mentions) -> pd.DataFrame:
    """``scored`` plus ``n_stated`` (times the item's fact is stated) and ``stated_bucket``.

    ``items``: the items that were scored (rows refer to them by ``item``);
    ``mentions``: :func:`fact_mentions`.
    """
    facts = scored["item"].map(lambda i: tuple(items[i].meta["fact"]))
    n = facts.map(lambda f: int(mentions.get(f, 0)))
    order = [label for _, _, label in MENTION_BUCKETS]
    bucket = pd.Categorical(n.map(mention_bucket), categories=order, ordered=True)
    return scored.assign(n_stated=n, stated_bucket=bucket)


# Size comparisons whose comparative word is fixed by the frame alone: in the corpus
# "a X is [larger] than a Y" (template 2) and "the X is not [bigger] than the Y"
# (template 3) never take another word, so a model can answer them without knowing
# which thing is bigger. Templates 0 and 1 share one frame ("the X is _ than the Y")
# and need the sizes.
FRAME_DECIDED_SIZE_TEMPLATES = (2, 3)


def frame_decides(scored: pd.DataFrame) -> pd.Series:
    """True for rows whose answer the sentence frame alone decides (size templates 2 and 3)."""
    return (scored["relation"] == "smaller_than") & scored["template"].isin(FRAME_DECIDED_SIZE_TEMPLATES)


def size_items(config, templates: tuple[int, ...] = (0, 1)) -> list:
    """Every size comparison of the knowledge base, stated and held out, in ``templates``.

    The comparative is masked ("the truck is [MASK] than the goat": bigger vs
    smaller). Unlike the sampled ``knowledge``/``inference`` suites this covers
    every pair once per template, so stated and held-out comparisons meet in the
    same frames and at the same rank distance (2, where the corpus states half
    the pairs). Meta: ``relation``, ``template``, ``stated``, ``status``
    ("stated" | "held out"), ``rank_distance``, ``small``, ``big``.
    """
    from bertology_lib.data.toy_english import MASK, ClozeItem, _Builder, knowledge_base

    kb = knowledge_base(config.seed)
    b = _Builder(config, _random.Random(f"size-items:{config.seed}"))
    order = {w: k for k, w in enumerate(kb.size_order)}
    wrong = {"bigger": "smaller", "larger": "smaller", "smaller": "bigger"}
    out = []
    for stated, facts in ((True, kb.stated_facts()), (False, kb.heldout_facts())):
        for f in facts:
            if f.relation != "smaller_than":
                continue
            for t in templates:
                s = b.fact_sentence(f, t)
                i = next(k for k, w in enumerate(s.words) if w in wrong)
                words = list(s.words)
                answer = words[i]
                words[i] = MASK
                meta = {"relation": "smaller_than", "template": t, "stated": stated,
                        "status": "stated" if stated else "held out",
                        "rank_distance": order[f.object] - order[f.subject],
                        "small": f.subject, "big": f.object}
                out.append(ClozeItem("size", tuple(words), i, answer, wrong[answer], meta, s))
    return out


MATCHED_RELATIONS = ("lives_in_country", "city_in_country", "smaller_than")


def stated_vs_heldout(knowledge: pd.DataFrame, inference: pd.DataFrame,
                      sizes: pd.DataFrame | None = None) -> pd.DataFrame:
    """Accuracy on stated vs held-out facts of the same relations (:data:`MATCHED_RELATIONS`).

    ``knowledge`` and ``inference``: scored suites (a ``stated`` column);
    ``sizes``: scored :func:`size_items`, used for ``smaller_than`` instead of
    the suites' size rows when given. Size rows whose frame decides the answer
    (:func:`frame_decides`) are left out. One :func:`suite_accuracy` row per
    (relation, status).
    """
    both = pd.concat([knowledge, inference], ignore_index=True)
    both = both[both["relation"].isin(MATCHED_RELATIONS)]
    if sizes is not None:
        both = pd.concat([both[both["relation"] != "smaller_than"], sizes], ignore_index=True)
    both = both[~frame_decides(both)]
    both = both.assign(status=np.where(both["stated"].astype(bool), "stated", "held out"))
    out = suite_accuracy(both, ["relation", "status"])
    rank = {r: k for k, r in enumerate(MATCHED_RELATIONS)}
    return out.sort_values(["relation", "status"], key=lambda c: c.map(rank) if c.name == "relation"
                           else c.map({"stated": 0, "held out": 1})).reset_index(drop=True)


def fact_inventory(kb, mentions=None) -> pd.DataFrame:
    """Facts per relation: how many the corpus states and holds out, and how often they are stated.

    ``mentions``: :func:`fact_mentions` of a training split (optional); adds the
    mean number of mentions per stated fact, the share of stated facts that
    occur at least once, and the mentions of held-out facts (0 by construction).
    """
    def key(f):
        return (f.relation, f.subject, f.object)

    stated, held = kb.stated_facts(), kb.heldout_facts()
    relations = list(dict.fromkeys([f.relation for f in stated] + [f.relation for f in held]))
    rows = []
    for r in relations:
        s = [f for f in stated if f.relation == r]
        h = [f for f in held if f.relation == r]
        row = {"relation": r, "stated": len(s), "held out": len(h)}
        if mentions is not None:
            m = [mentions.get(key(f), 0) for f in s]
            row.update({"mentions per stated fact": float(np.mean(m)) if m else float("nan"),
                        "stated facts in corpus": float(np.mean([x > 0 for x in m])) if m else float("nan"),
                        "held-out mentions": int(sum(mentions.get(key(f), 0) for f in h))})
        rows.append(row)
    return pd.DataFrame(rows)
