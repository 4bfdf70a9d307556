"""The survey's §3.3 (world knowledge) against baselines that know no facts: Petroni et al.'s frequency
baseline, a knowledge base read off the training split, and the random-init twin.

* :func:`relation_word_counts`: how often each word occurs in the training split's sentences stating facts
  of each relation.
* :func:`frequency_baseline`: per scored item, prefer the candidate that occurs more often in the sentences
  of the item's relation (Petroni et al. 2019's frequency baseline: the object's prior, not the subject's fact).
* :func:`extracted_kb_baseline`: a knowledge base read off the training split by template (what a relation
  extractor on this corpus would hold): right on every tested fact the split states, a coin flip on the rest.

The model is set beside them with :func:`bertology_lib.experiments.survey.semantics.baseline_table`.

The wording of the query (Petroni et al. 2019; Jiang et al. 2020): :func:`wording_suite` asks every stated fact
in every template of its relation; :func:`choose_wordings` picks each relation's best and worst template on one
half of its facts and reads them on the other half (two folds); :func:`wording_effect` gives the gap between
them, paired by fact, with the instrument (recall at the best template against the stronger of the frequency
baseline and the random-init twin) and the twin's own gap.

Inference steps: :func:`chain_lengths` counts the stated size comparisons a held-out comparison chains through.

Used by ``survey_03_3_world_knowledge``.
"""

from __future__ import annotations

import random
from collections import Counter, deque
from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from bertology_lib import stats
from bertology_lib.data.suites.knowledge import wording_items
from bertology_lib.data.toy_english import Builder, ClozeItem, ToyEnglishConfig
from bertology_lib.errors import ParameterError
from bertology_lib.experiments.survey.semantics import strongest_baseline, twin_correct


def relation_word_counts(sentences) -> Counter:
    """``(relation, word) -> count`` over the fact sentences (``meta["kind"] == "fact"``) of ``sentences``
    (pass the mini-BERT's training split): how often each word occurs where facts of a relation are stated."""
    counts: Counter = Counter()
    for s in sentences:
        if s.meta.get("kind") != "fact":
            continue
        for rel in {f[0] for f in s.meta.get("facts", ())}:
            counts.update((rel, w) for w in s.words)
    return counts


def frequency_baseline(scored: pd.DataFrame, counts: Mapping[tuple[str, str], int]) -> np.ndarray:
    """Per row of a scored knowledge suite (``relation``, ``correct_word``, ``incorrect_word``): 1 when the
    correct candidate occurs more often than the incorrect one in the sentences of the row's relation
    (:func:`relation_word_counts`), 0 when less often, 0.5 on a tie. Subject-blind: it knows which objects
    are common for a relation, not whose they are."""
    out = np.empty(len(scored))
    for i, (rel, good, bad) in enumerate(zip(scored["relation"], scored["correct_word"], scored["incorrect_word"])):
        a, b = counts.get((rel, good), 0), counts.get((rel, bad), 0)
        out[i] = 1.0 if a > b else 0.0 if a < b else 0.5
    return out


def extracted_kb_baseline(scored: pd.DataFrame) -> np.ndarray:
    """Per row (with ``n_stated``, from :func:`~bertology_lib.experiments.survey.knowledge.with_fact_mentions`):
    1 when the training split states the fact at least once (a knowledge base extracted from the split by its
    templates holds it), else 0.5 (a coin flip)."""
    return np.where(scored["n_stated"].to_numpy() > 0, 1.0, 0.5)


# -- the wording of the query ---------------------------------------------------------------------------


def wording_suite(config: ToyEnglishConfig) -> list[ClozeItem]:
    """Every stated fact of the toy knowledge base in every template of its relation, the object masked, one false
    object per fact (:func:`~bertology_lib.data.suites.knowledge.wording_items`); deterministic from ``config.seed``."""
    return wording_items(Builder(config, random.Random(f"wording-items:{config.seed}")))


WORDING_COLUMNS = ("item", "relation", "template", "subject", "correct", "margin", "correct_word", "incorrect_word")


def choose_wordings(scored: pd.DataFrame, seed: int = 0) -> pd.DataFrame:
    """Per fact of a scored :func:`wording_suite` (rows of :func:`~bertology_lib.analysis.cloze.score_items`): its
    relation's best and worst template, chosen on the *other* half of the relation's facts, and whether each got
    the fact right.

    The facts of each relation are split into two folds at random (``seed``); a template is ranked on the other
    fold by accuracy, ties broken by the mean margin (logit of the true object minus the false one's). Choosing
    on other facts than are scored keeps the gap of a model that answers every wording alike at 0 in expectation,
    where the best and worst template of the same facts would turn noise into a gap. Facts with a template that
    could not be scored are left out. One row per fact: ``relation``, ``subject``, ``fold``, ``best_template``,
    ``worst_template``, ``best_item``, ``worst_item``, ``best`` and ``worst`` (0/1), ``correct_word``,
    ``incorrect_word``.
    """
    missing = [c for c in WORDING_COLUMNS if c not in scored.columns]
    if missing:
        raise ParameterError(f"scored lacks columns {missing}; allowed: rows of score_items on wording_suite items")
    rng = np.random.default_rng(seed)
    rows = []
    for rel, g in scored.assign(correct=scored["correct"].astype(float)).groupby("relation", sort=True):
        wide = g.pivot(index="subject", columns="template", values=["correct", "margin", "item"]).dropna()
        if wide["correct"].shape[1] < 2 or len(wide) < 2:
            continue
        fold = np.empty(len(wide), dtype=int)
        fold[rng.permutation(len(wide))] = np.arange(len(wide)) % 2
        words = g.drop_duplicates("subject").set_index("subject")
        for k in (0, 1):
            other = wide[fold != k]
            acc, margin = other["correct"].mean(), other["margin"].mean()
            ranked = sorted(acc.index, key=lambda t: (acc[t], margin[t]))
            worst, best = ranked[0], ranked[-1]
            for subj, r in wide[fold == k].iterrows():
                rows.append(
                    {
                        "relation": rel,
                        "subject": subj,
                        "fold": k,
                        "best_template": int(best),
                        "worst_template": int(worst),
                        "best_item": int(r[("item", best)]),
                        "worst_item": int(r[("item", worst)]),
                        "best": r[("correct", best)],
                        "worst": r[("correct", worst)],
                        "correct_word": words.at[subj, "correct_word"],
                        "incorrect_word": words.at[subj, "incorrect_word"],
                    }
                )
    return pd.DataFrame(
        rows,
        columns=[
            "relation",
            "subject",
            "fold",
            "best_template",
            "worst_template",
            "best_item",
            "worst_item",
            "best",
            "worst",
            "correct_word",
            "incorrect_word",
        ],
    )


@dataclass(frozen=True)
class WordingEffect:
    """The wording of the query, fact by fact (:func:`wording_effect`). Intervals are (estimate, low, high),
    95% percentile bootstrap over facts; NaN when fewer than two facts could be compared.

    ``chosen``: :func:`choose_wordings` rows plus the baselines' per-fact scores at the best template; ``gap``:
    best minus worst template; ``recall``: best template minus the stronger baseline (``baseline``, the
    instrument: does the model recall facts at all?); ``twin_gap``: the random-init twin's own gap, chosen the
    same way (what a model that knows no facts shows)."""

    chosen: pd.DataFrame
    gap: tuple[float, float, float]
    recall: tuple[float, float, float]
    baseline: str
    twin_gap: tuple[float, float, float]


def _paired(a, b, seed: int) -> tuple[float, float, float]:
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return stats.paired_gap(a, b, seed=seed) if len(a) >= 2 else (float("nan"),) * 3


def wording_effect(
    scored: pd.DataFrame, twin_scored: pd.DataFrame, counts: Mapping[tuple[str, str], int], seed: int = 0
) -> WordingEffect:
    """Does recall depend on the wording? ``scored`` and ``twin_scored``: the model's and its random-init twin's
    rows of :func:`~bertology_lib.analysis.cloze.score_items` on the same :func:`wording_suite` items;
    ``counts``: :func:`relation_word_counts` of the training split (the frequency baseline). See
    :class:`WordingEffect`; ``seed`` draws the folds and the bootstrap."""
    chosen = choose_wordings(scored, seed)
    baselines = {
        "frequency": frequency_baseline(chosen, counts),
        "random-init twin": twin_correct(chosen.assign(item=chosen["best_item"]), twin_scored),
    }
    name, base = strongest_baseline(baselines) if len(chosen) else ("none", np.empty(0))
    twin_chosen = choose_wordings(twin_scored, seed)
    return WordingEffect(
        chosen=chosen.assign(**{f"{k} at best": v for k, v in baselines.items()}),
        gap=_paired(chosen["best"], chosen["worst"], seed),
        recall=_paired(chosen["best"], base, seed),
        baseline=name,
        twin_gap=_paired(twin_chosen["best"], twin_chosen["worst"], seed),
    )


# -- inference steps ------------------------------------------------------------------------------------------


def chain_lengths(stated_pairs: Sequence[tuple[str, str]], pairs: Sequence[tuple[str, str]]) -> np.ndarray:
    """For each ``(small, big)`` of ``pairs``: the fewest stated comparisons ``(smaller, bigger)`` of
    ``stated_pairs`` that chain ``small`` to ``big`` (breadth-first search; -1 when no chain exists): how many
    inference steps the comparison takes from what the corpus states."""
    bigger: dict[str, list[str]] = {}
    for small, big in stated_pairs:
        bigger.setdefault(small, []).append(big)
    out = []
    for small, big in pairs:
        steps, queue = {small: 0}, deque([small])
        while queue and big not in steps:
            x = queue.popleft()
            for y in bigger.get(x, ()):
                if y not in steps:
                    steps[y] = steps[x] + 1
                    queue.append(y)
        out.append(steps.get(big, -1))
    return np.asarray(out, dtype=int)
