"""What BERT knows, the survey's §3.1–§3.3 (Rogers et al. 2020): the suite tables of the notebooks.

* Suite scores with their chance baseline and a Wilson interval (:func:`suite_accuracy`,
  :func:`suite_summary`, :func:`accuracy_by_bins`), how the two items of a minimal pair came out together
  (:func:`pair_outcomes`), and the two slots of the same facts (:func:`count_vs_animal`).
* Name swaps (:func:`name_swap_pairs`, :func:`name_swap_flips`; Balasubramanian et al. 2020), fact
  mentions in the training corpus (:func:`fact_mentions`, :func:`with_fact_mentions`), size comparisons
  (:func:`size_items`, :func:`frame_decides`), stated vs held-out facts (:func:`stated_vs_heldout`) and the
  knowledge base's inventory (:func:`fact_inventory`).

Used by ``survey_03_1_syntax``, ``survey_03_2_semantics`` and ``survey_03_3_world_knowledge``; the sizes of
the §3–§4 notebooks are :class:`~bertology_lib.experiments.survey.sizes.SurveySizes`. Probing every layer
lives in :mod:`bertology_lib.analysis.word_probes`, the limits of probing (§3.4) in
:mod:`bertology_lib.experiments.survey.probing_limits`.
"""

from __future__ import annotations

import math
import random
from collections import Counter

import numpy as np
import pandas as pd

from bertology_lib.analysis.cloze import score_items
from bertology_lib.data.toy_english import MASK, ClozeItem, Builder, knowledge_base
from bertology_lib.errors import ParameterError
from bertology_lib.stats import wilson_interval


def suite_accuracy(scored: pd.DataFrame, by: str | list[str] | None = None, chance: float = 0.5) -> pd.DataFrame:
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
        lo, hi = wilson_interval(k, n) if n else (float("nan"), float("nan"))
        rows.append(
            {
                **dict(zip(keys, key)),
                "accuracy": acc,
                "ci_low": lo,
                "ci_high": hi,
                "n": n,
                "stderr": math.sqrt(acc * (1 - acc) / n) if n else float("nan"),
                "chance": chance,
            }
        )
    return pd.DataFrame(rows, columns=[*keys, "accuracy", "ci_low", "ci_high", "n", "stderr", "chance"])


def suite_summary(scored: dict[str, pd.DataFrame], chance: float = 0.5) -> pd.DataFrame:
    """One :func:`suite_accuracy` row per named suite (label -> scored rows)."""
    rows = [suite_accuracy(df, chance=chance).assign(suite=label) for label, df in scored.items()]
    out = pd.concat(rows, ignore_index=True)
    return out[["suite", *[c for c in out.columns if c != "suite"]]]


def accuracy_by_bins(scored: pd.DataFrame, column: str, edges, chance: float = 0.5) -> pd.DataFrame:
    """:func:`suite_accuracy` per interval of a numeric ``column`` (``edges``: bin edges; empty bins dropped).

    Bins include their upper edge (and the first its lower one); labels read "lo to hi".
    """
    edges = list(edges)
    labels = [f"{lo:g} to {hi:g}" for lo, hi in zip(edges[:-1], edges[1:])]
    binned = scored.assign(**{f"{column}_bin": pd.cut(scored[column], edges, labels=labels, include_lowest=True)})
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
    return pd.DataFrame(
        {
            "outcome": PAIR_OUTCOMES,
            "n": counts.to_numpy(),
            "share": counts.to_numpy() / n if n else np.nan,
            "chance": [0.25, 0.5, 0.25],
        }
    )


def count_vs_animal(numbers: pd.DataFrame, knowledge: pd.DataFrame, kb) -> pd.DataFrame:
    """Two slots of the same "owns" facts: the count (numbers suite) and the animal (knowledge suite).

    Keeps owners of two or more animals on both sides (the numbers suite asks
    only about those, so the animal's number never gives the count away).
    Returns ``slot`` ("count" | "animal"), ``person``, ``correct``.
    """
    counts = numbers[numbers["kind"] == "quantity_fact"]
    animals = knowledge[knowledge["relation"] == "owns"]
    animals = animals[animals["subject"].map(lambda p: kb.owns[p][0] >= 2)]
    return pd.concat(
        [
            pd.DataFrame({"slot": "count", "person": counts["person"], "correct": counts["correct"]}),
            pd.DataFrame({"slot": "animal", "person": animals["subject"], "correct": animals["correct"]}),
        ],
        ignore_index=True,
    )


_OTHER_NUMBER = {
    "is": "are",
    "are": "is",
    "was": "were",
    "were": "was",
    "has": "have",
    "have": "has",
    "does": "do",
    "do": "does",
}


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
    rng = random.Random(f"name-swap:{seed}")
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
            return ClozeItem("name_swap", tuple(ws), v, verb, other, {**meta, "names": names, "version": version})

        out.append((masked(words, "original"), masked(swapped, "swapped")))
    return out


def name_swap_flips(model, tokenizer, pairs) -> pd.DataFrame:
    """Score each (original, swapped) pair of :func:`name_swap_pairs`; one row a pair.

    Columns: ``relation``, ``names`` and ``swapped_names`` (space-separated),
    ``correct_original``, ``correct_swapped``,
    ``margin_original``, ``margin_swapped`` and ``flipped`` (the preferred
    filler changed when only the names did).
    """
    a = score_items(model, tokenizer, [p[0] for p in pairs]).set_index("item")
    b = score_items(model, tokenizer, [p[1] for p in pairs]).set_index("item")
    both = a.index.intersection(b.index)
    out = pd.DataFrame(
        {
            "relation": a.loc[both, "relation"],
            "names": a.loc[both, "names"],
            "swapped_names": b.loc[both, "names"],
            "correct_original": a.loc[both, "correct"],
            "correct_swapped": b.loc[both, "correct"],
            "margin_original": a.loc[both, "margin"],
            "margin_swapped": b.loc[both, "margin"],
        }
    ).reset_index(drop=True)
    out["flipped"] = out.correct_original != out.correct_swapped
    return out


def fact_mentions(sentences) -> Counter:
    """How many sentences state each fact: ``(relation, subject, object) -> count``.

    Counts the generator's fact sentences (``meta["kind"] == "fact"``); pass
    the mini-BERT's training split (:func:`bertology_lib.models.minibert.corpus`) to
    know how often the model read each fact.
    """
    counts: Counter = Counter()
    for s in sentences:
        if s.meta.get("kind") == "fact":
            counts.update(tuple(f) for f in s.meta.get("facts", ()))
    return counts


MENTION_BUCKETS = (
    (0, 0, "0"),
    (1, 1, "1"),
    (2, 4, "2-4"),
    (5, 9, "5-9"),
    (10, 19, "10-19"),
    (20, 49, "20-49"),
    (50, None, "50+"),
)


def mention_bucket(n: int) -> str:
    """A coarse label for a mention count ("0", "1", "2-4", ..., "50+")."""
    for lo, hi, label in MENTION_BUCKETS:
        if n >= lo and (hi is None or n <= hi):
            return label
    raise ParameterError(f"n={n!r} is not a count; allowed: an int >= 0")


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
    kb = knowledge_base(config.seed)
    b = Builder(config, random.Random(f"size-items:{config.seed}"))
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
                meta = {
                    "relation": "smaller_than",
                    "template": t,
                    "stated": stated,
                    "status": "stated" if stated else "held out",
                    "rank_distance": order[f.object] - order[f.subject],
                    "small": f.subject,
                    "big": f.object,
                }
                out.append(ClozeItem("size", tuple(words), i, answer, wrong[answer], meta, s))
    return out


MATCHED_RELATIONS = ("lives_in_country", "city_in_country", "smaller_than")


def stated_vs_heldout(
    knowledge: pd.DataFrame, inference: pd.DataFrame, sizes: pd.DataFrame | None = None
) -> pd.DataFrame:
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
    return out.sort_values(
        ["relation", "status"],
        key=lambda c: c.map(rank) if c.name == "relation" else c.map({"stated": 0, "held out": 1}),
    ).reset_index(drop=True)


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
            row.update(
                {
                    "mentions per stated fact": float(np.mean(m)) if m else float("nan"),
                    "stated facts in corpus": float(np.mean([x > 0 for x in m])) if m else float("nan"),
                    "held-out mentions": int(sum(mentions.get(key(f), 0) for f in h)),
                }
            )
        rows.append(row)
    return pd.DataFrame(rows)
