"""HANS-like items for the toy NLI (McCoy et al. 2019) and the lexical-overlap diagnostics.

:func:`hans_like` builds toy-NLI pairs whose hypothesis words are all in the premise, in
five non-entailed categories (lexical overlap, subsequence, constituent heuristics) and
three entailed controls (:data:`HANS_CATEGORIES`), scored binary (entailment vs not) as
HANS is. :func:`overlap_table` says how predictive full overlap is of entailment in a
training set; :func:`nli_mix` draws train and test sets with a chosen share of full-overlap
pairs and a chosen share of entailment among them (overlap predicting entailment, as in
MNLI, or telling nothing), and :func:`nli_split` makes a training set where it is perfectly
predictive. Items are deterministic from ``seed``. Used by the survey §7 notebook through
:mod:`bertology_lib.experiments.survey.behaviour`.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from typing import Any

from bertology_lib.data.tasks import (
    CONTRADICTION,
    ENTAILMENT,
    NEUTRAL,
    NLI_LABELS,
    ClassificationExample,
    Task,
    toy_world,
)
from bertology_lib.data.toy_english import Builder, Fact, knowledge_base, special_verbs
from bertology_lib.errors import ParameterError
from bertology_lib.validation import check_bool, check_float, check_int, check_seed

__all__ = ["HANS_CATEGORIES", "full_overlap", "hans_like", "overlap_table", "nli_split", "mix_counts", "nli_mix"]

HANS_CATEGORIES: tuple[tuple[str, str, bool], ...] = (
    # (category, heuristic, entailed)
    ("swapped conjunction", "lexical overlap", False),
    ("reversed comparison", "lexical overlap", False),
    ("negated premise", "subsequence", False),
    ("embedded under 'think'", "constituent", False),
    ("conditional", "constituent", False),
    ("conjunct", "control", True),
    ("one of two sentences", "control", True),
    ("identical sentence", "control", True),
)
_NONFACTIVE = ("think", "believe", "hope", "claim")


def full_overlap(premise: str, hypothesis: str) -> bool:
    """True when every hypothesis word (not ".") occurs in the premise."""
    pw = set(premise.split())
    return all(w in pw for w in hypothesis.split() if w != ".")


def hans_like(world: Any, n_per_category: int = 50, seed: int = 0) -> list[ClassificationExample]:
    """HANS-like toy-NLI pairs (:data:`HANS_CATEGORIES`), all with full lexical overlap.

    Labels follow the toy NLI's rules (:data:`~bertology_lib.data.tasks.NLI_LABELS`):
    contradiction or neutral for the five non-entailed categories, entailment for the
    controls. Facts in entailed premises are true in the knowledge base, and every
    non-entailed hypothesis is false in it, so neither the premise nor memorised world
    knowledge makes a non-entailed pair entailed. ``meta``: category, heuristic, entailed.
    """
    check_int("n_per_category", n_per_category, 1, 100_000)
    check_seed(seed)
    cfg = toy_world(world)
    rng = random.Random(f"behaviour:hans:{seed}")
    b = Builder(cfg, random.Random(0))
    kb = knowledge_base(cfg.seed)
    people, cities, occupations = list(kb.people), list(kb.cities), sorted(set(kb.occupation.values()))
    order = list(kb.size_order)
    comp = {v: special_verbs()[v] for v in _NONFACTIVE}

    def say(fact: Fact, template: int = 0) -> str:
        return b.fact_sentence(fact, template).text

    def body(s: str) -> str:  # without the final " ."
        return s[:-2] if s.endswith(" .") else s

    def other(pool: Sequence[str], *exclude: str) -> str:
        return rng.choice([x for x in pool if x not in exclude])

    def lives(p: str, c: str | None = None) -> str:
        return say(Fact("lives_in", p, c or kb.lives_in[p]))

    def job(p: str, o: str | None = None) -> str:
        return say(Fact("occupation", p, o or kb.occupation[p]))

    out: list[ClassificationExample] = []
    seen: set[str] = set()
    for category, heuristic, entailed in HANS_CATEGORIES:
        made = 0
        for _ in range(200 * n_per_category):
            if made == n_per_category:
                break
            x, y, z = rng.sample(people, 3)
            if category == "swapped conjunction":
                cy = kb.lives_in[y]
                if cy == kb.lives_in[x]:
                    continue
                p, h, label = f"{body(lives(x))} and {lives(y)}", lives(x, cy), CONTRADICTION
            elif category == "reversed comparison":
                i, j = sorted(rng.sample(range(len(order)), 2))
                p = say(Fact("smaller_than", order[i], order[j]), 1)  # the SMALL is smaller than the BIG
                h, label = f"the {order[j]} is smaller than the {order[i]} .", CONTRADICTION
            elif category == "negated premise":
                o = other(occupations, kb.occupation[x])
                h = job(x, o)
                p, label = h.replace(" is ", " is not ", 1), CONTRADICTION
            elif category == "embedded under 'think'":
                v = comp[rng.choice(_NONFACTIVE)]
                h = lives(x, other(cities, kb.lives_in[x]))
                p, label = f"{z} {v.s3} that {h}", NEUTRAL
            elif category == "conditional":
                h = job(y, other(occupations, kb.occupation[y]))
                p, label = f"if {body(lives(x, other(cities, kb.lives_in[x])))} , {h}", NEUTRAL
            elif category == "conjunct":
                a, c = lives(x), job(y)
                p, h, label = f"{body(a)} and {c}", rng.choice((a, c)), ENTAILMENT
            elif category == "one of two sentences":
                a, c = lives(x), job(y)
                p, h, label = f"{a} {c}", rng.choice((a, c)), ENTAILMENT
            else:
                h = rng.choice((lives(x), job(x)))
                p, label = h, ENTAILMENT
            if not full_overlap(p, h) or f"{p} | {h}" in seen:
                continue
            seen.add(f"{p} | {h}")
            out.append(
                ClassificationExample(
                    f"hans-{len(out)}",
                    p,
                    label,
                    h,
                    {"category": category, "heuristic": heuristic, "entailed": entailed, "overlap": 1.0},
                )
            )
            made += 1
        if made < n_per_category:
            raise ParameterError(
                f"could only draw {made} distinct {category!r} items; allowed: n_per_category <= {made}"
            )
    return out


def overlap_table(examples: Sequence[ClassificationExample], label_names: Sequence[str] = NLI_LABELS):
    """How predictive full lexical overlap is of each label: one row per overlap group with label shares."""
    import pandas as pd

    if not examples:
        raise ParameterError("examples=[] is empty; allowed: NLI examples with meta['overlap']")
    rows = [{"full overlap": e.meta.get("overlap", 0.0) >= 1.0, "label": label_names[e.label]} for e in examples]
    df = pd.DataFrame(rows)
    t = pd.crosstab(df["full overlap"], df["label"], normalize="index")
    t["n"] = df.groupby("full overlap").size()
    return t


def nli_split(pool: Task, n_train: int, biased: bool = False) -> Task:
    """The first ``n_train`` training pairs of ``pool`` (a toy NLI task) and its dev/test splits.

    ``biased=True`` first drops every training pair with full overlap whose label is not
    entailment, so in training full overlap always means entailment (the correlation
    McCoy et al. found in MNLI, made perfect); dev and test stay the i.i.d. ones.
    """
    check_int("n_train", n_train, 1, 10_000_000)
    check_bool("biased", biased)
    train = pool.examples("train")
    if biased:
        train = [e for e in train if not (e.meta.get("overlap", 0.0) >= 1.0 and e.label != ENTAILMENT)]
    if len(train) < n_train:
        raise ParameterError(
            f"n_train={n_train} is more than the {len(train)} training pairs available; "
            "allowed: a larger pool or a smaller n_train"
        )
    name = "toy_nli_overlap_biased" if biased else "toy_nli"
    return Task.from_examples(
        name, {"train": train[:n_train], "dev": pool.examples("dev"), "test": pool.examples("test")}, pool.label_names
    )


def mix_counts(n: int, overlap_share: float, entailed_share: float) -> dict[tuple[bool, int], int]:
    """Pairs per (full overlap, label) cell in a split of ``n`` pairs: ``round(overlap_share * n)`` with full
    overlap, ``entailed_share`` of those entailment and the rest neutral and contradiction in equal parts; the
    labels stay as balanced over the split as :func:`~bertology_lib.data.tasks.fill_splits` makes them (MNLI is
    balanced), the pairs without full overlap taking what is left of each label."""
    check_int("n", n, 1, 10_000_000)
    check_float("overlap_share", overlap_share, 0.0, 1.0)
    check_float("entailed_share", entailed_share, 0.0, 1.0)
    labels = (ENTAILMENT, NEUTRAL, CONTRADICTION)
    total = {lab: n // 3 + (i < n % 3) for i, lab in enumerate(labels)}
    n_full = round(overlap_share * n)
    ent = round(entailed_share * n_full)
    full = {ENTAILMENT: ent, NEUTRAL: (n_full - ent + 1) // 2, CONTRADICTION: (n_full - ent) // 2}
    over = [NLI_LABELS[lab] for lab in labels if full[lab] > total[lab]]
    if over:
        raise ParameterError(
            f"overlap_share={overlap_share}, entailed_share={entailed_share} need more full-overlap "
            f"{', '.join(over)} pairs than a balanced split of {n} holds; allowed: "
            "overlap_share * entailed_share <= 1/3 and overlap_share * (1 - entailed_share) <= 2/3"
        )
    return {**{(True, lab): full[lab] for lab in labels}, **{(False, lab): total[lab] - full[lab] for lab in labels}}


def nli_mix(
    pool: Task,
    n_train: int,
    n_test: int,
    entailed_share: float,
    overlap_share: float,
    exclude: Iterable[ClassificationExample] = (),
    seed: int = 0,
) -> Task:
    """Train and test pairs drawn from the training pairs of ``pool`` (a toy NLI task) with a share
    ``overlap_share`` of full-overlap pairs in each split and a share ``entailed_share`` of entailment among
    them (:func:`mix_counts`; labels balanced over each split).

    ``entailed_share`` near 1 is MNLI's situation (McCoy et al. 2019: full overlap nearly always means
    entailment, so the heuristic pays); ``entailed_share = 1/3`` makes overlap say nothing about the label.
    The test split is drawn first, from the same mix (it is the i.i.d. test of a model trained on the
    train split), then the train split from the pairs left, so the two are disjoint; pairs in ``exclude``
    (e.g. the :func:`hans_like` items) are never drawn. Both splits are shuffled with ``seed``.
    """
    check_int("n_train", n_train, 1, 10_000_000)
    check_int("n_test", n_test, 1, 10_000_000)
    check_seed(seed)
    banned = {(e.text, e.text_pair) for e in exclude}
    cells: dict[tuple[bool, int], list[ClassificationExample]] = {}
    for e in pool.examples("train"):
        if (e.text, e.text_pair) not in banned:
            cells.setdefault((e.meta.get("overlap", 0.0) >= 1.0, e.label), []).append(e)
    rng = random.Random(f"hans:nli_mix:{seed}")
    used = {k: 0 for k in cells}
    splits: dict[str, list[ClassificationExample]] = {}
    for split, n in (("test", n_test), ("train", n_train)):
        out: list[ClassificationExample] = []
        for cell, k in mix_counts(n, overlap_share, entailed_share).items():
            have = cells.get(cell, [])
            start = used.get(cell, 0)
            if start + k > len(have):
                raise ParameterError(
                    f"the pool has {len(have)} {NLI_LABELS[cell[1]]} pairs with full overlap={cell[0]} "
                    f"(less the excluded), {start + k} are needed; allowed: a larger pool"
                )
            out += have[start : start + k]
            used[cell] = start + k
        rng.shuffle(out)
        splits[split] = out
    name = f"toy_nli_mix_o{overlap_share:.3g}_e{entailed_share:.3g}"
    return Task.from_examples(name, splits, pool.label_names)
