"""A look at the bioS data: examples, statistics and baselines (Physics of LMs 3.1, §2 and §4).

Used by the ``physics_01_biographies`` notebook. Everything here is a pure function of a
:class:`~bertology_lib.data.bios.BioDataset` (or of the generator's module constants): tables come
back as DataFrames, rendered biographies as HTML strings; nothing is written or plotted here
(figures: :func:`bertology_lib.plots.majority_baselines`).
"""

from __future__ import annotations

import html
from collections import Counter
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from bertology_lib.data import bios
from bertology_lib.data.bios import ATTRIBUTES, BioDataset, BioEntry, Person
from bertology_lib.errors import ParameterError

# the augmentations shown in the notebook, in the order of the paper's Fig. 3 discussion (§4)
AUGMENTATIONS: tuple[str, ...] = ("single", "fullname", "permute1", "multi5", "multi5+permute")

# pool sizes as the paper states them (§2: names 400/400/1000, 200 cities, 300 universities,
# 100 majors, 263 companies; birth dates over 200 years x 12 months x 28 days)
PAPER_POOL_SIZES: dict[str, int] = {
    "first names": 400,
    "middle names": 400,
    "last names": 1000,
    "birth cities": 200,
    "universities": 300,
    "majors": 100,
    "companies": 263,
    "birth years": 200,
    "birth months": 12,
    "birth days": 28,
}

# one pastel colour per label (colour-blind friendly enough for highlighting; text stays black)
COLORS: dict[str, str] = {
    "name": "#d9d9d9",
    "birth_date": "#ffd8a8",
    "birth_city": "#b2f2bb",
    "university": "#a5d8ff",
    "major": "#eebefa",
    "company_name": "#ffc9c9",
    "company_city": "#fff3bf",
}


def resolve_n_people(n_people: int, profile_size: int) -> int:
    """``n_people`` (a notebook parameter), or the profile's size when it is 0. At least 2 (QA halves)."""
    n = int(n_people) or int(profile_size)
    if n < 2:
        raise ParameterError(f"n_people={n_people!r} is out of range; allowed: 0 (the profile's size) or >= 2")
    return n


def make_datasets(n_people: int, seed: int = 0, augmentations: Sequence[str] = AUGMENTATIONS) -> dict[str, BioDataset]:
    """One dataset per augmentation; the people are the same in all of them (same seed)."""
    return {a: bios.generate_dataset(bios.BioConfig.from_augmentation(a, n_people, seed=seed)) for a in augmentations}


def person_table(person: Person) -> pd.DataFrame:
    """The person's name, gender (for he/she) and six attribute values, one row each."""
    rows = [("full name", person.full_name), ("gender", person.gender)]
    rows += [(a, person.value(a)) for a in ATTRIBUTES]
    return pd.DataFrame(rows, columns=["field", "value"]).set_index("field")


# ----------------------------------------------------------------------------------------------
# Rendering
# ----------------------------------------------------------------------------------------------


def word_offsets(text: str) -> list[tuple[int, int]]:
    """Character (start, end) of every item of :func:`bios.words`, so word spans map back to text."""
    return [m.span() for m in bios.WORD_RE.finditer(text)]


def highlight_html(entry: BioEntry, colors: Mapping[str, str] = COLORS) -> str:
    """A biography as HTML, each recorded span (attribute value or name) on its colour.

    The spans come from the generator (``entry.spans``), not from searching the text, so this also
    shows that the recorded positions are right. Hovering a highlight shows its label.
    """
    text = entry.text
    offsets = word_offsets(text)
    out, pos = [], 0
    for label, s, e in sorted(entry.spans, key=lambda sp: sp[1]):
        c0, c1 = offsets[s][0], offsets[e - 1][1]
        out.append(html.escape(text[pos:c0]))
        out.append(
            f'<span title="{label}" style="background-color:{colors.get(label, "#eeeeee")};'
            f'color:#000;border-radius:3px;padding:0 2px">{html.escape(text[c0:c1])}</span>'
        )
        pos = c1
    out.append(html.escape(text[pos:]))
    return "".join(out)


def legend_html(colors: Mapping[str, str] = COLORS) -> str:
    """One line naming each highlight colour."""
    return " ".join(
        f'<span style="background-color:{c};color:#000;border-radius:3px;padding:0 4px">{html.escape(label)}</span>'
        for label, c in colors.items()
    )


def examples_html(examples: Mapping[str, Sequence[BioEntry]], colors: Mapping[str, str] = COLORS) -> str:
    """An HTML table: one row per (augmentation, biography), the text highlighted, legend on top."""
    rows = []
    for aug, entries in examples.items():
        for k, entry in enumerate(entries):
            head = (
                f"<td rowspan='{len(entries)}' style='vertical-align:top'><b>{html.escape(aug)}</b></td>"
                if k == 0
                else ""
            )
            order = " → ".join(a for a, _ in entry.sentence_starts)
            rows.append(
                f"<tr>{head}<td style='vertical-align:top'>{entry.copy}</td>"
                f"<td style='text-align:left'>{highlight_html(entry, colors)}"
                f"<br><small style='color:#666'>order: {html.escape(order)}</small></td></tr>"
            )
    return (
        f"<p>{legend_html(colors)}</p><table><thead><tr><th>augmentation</th><th>copy</th>"
        f"<th style='text-align:left'>biography</th></tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )


def examples_of(datasets: Mapping[str, BioDataset], person: int, max_copies: int = 2) -> dict[str, list[BioEntry]]:
    """The first ``max_copies`` biographies of one person in each dataset (by copy index)."""
    return {aug: ds.bios_of(person)[:max_copies] for aug, ds in datasets.items()}


def qa_table(dataset: BioDataset, person: int) -> pd.DataFrame:
    """The six QA questions about one person, with answers and the split the person is in."""
    split = "QA-train" if person in set(dataset.qa_train) else "QA-test"
    rows = [(a, *dataset.qa(person, a)) for a in ATTRIBUTES]
    df = pd.DataFrame(rows, columns=["attribute", "question", "answer"]).set_index("attribute")
    df.attrs["split"] = split
    return df


# ----------------------------------------------------------------------------------------------
# Statistics
# ----------------------------------------------------------------------------------------------


def bio_statistics(datasets: Mapping[str, BioDataset], tokenizer) -> pd.DataFrame:
    """Per augmentation: people, biographies, tokens per biography (mean/min/max), words used, unknown tokens.

    Tokens are counted with ``tokenizer`` (no special tokens), e.g. the word-level bioS tokenizer.
    """
    rows = []
    for aug, ds in datasets.items():
        texts = ds.texts()
        ids = tokenizer(texts, add_special_tokens=False)["input_ids"]
        lengths = np.array([len(x) for x in ids])
        used = {w for t in texts for w in bios.words(t)}
        rows.append(
            {
                "augmentation": aug,
                "people": len(ds.people),
                "biographies": len(texts),
                "bios per person": len(texts) / len(ds.people),
                "tokens/bio mean": round(float(lengths.mean()), 1),
                "tokens/bio min": int(lengths.min()),
                "tokens/bio max": int(lengths.max()),
                "tokens total": int(lengths.sum()),
                "distinct words used": len(used),
                "unknown tokens": int(sum(x.count(tokenizer.unk_token_id) for x in ids)),
            }
        )
    return pd.DataFrame(rows).set_index("augmentation")


def pool_sizes() -> pd.DataFrame:
    """The generator's pools beside the sizes the paper states (:data:`PAPER_POOL_SIZES`)."""
    ours = {
        "first names": len(bios.FIRST_NAMES),
        "middle names": len(bios.MIDDLE_NAMES),
        "last names": len(bios.LAST_NAMES),
        "birth cities": len(bios.CITIES),
        "universities": len(bios.UNIVERSITIES),
        "majors": len(bios.MAJORS),
        "companies": len(bios.COMPANIES),
        "birth years": bios.YEARS[1] - bios.YEARS[0] + 1,
        "birth months": len(bios.MONTHS),
        "birth days": bios.DAYS[1] - bios.DAYS[0] + 1,
    }
    df = pd.DataFrame({"ours": ours, "paper": PAPER_POOL_SIZES})
    df["match"] = df.ours == df.paper
    return df


def possible_values(config: bios.BioConfig | None = None) -> dict[str, int]:
    """How many values each attribute can take in datasets of ``config`` (default: the paper's pools;
    company_city: the distinct headquarters of the companies drawn)."""
    pools = (config or bios.BioConfig(n_people=1)).value_pools()
    return {
        "birth_date": (bios.YEARS[1] - bios.YEARS[0] + 1) * len(bios.MONTHS) * (bios.DAYS[1] - bios.DAYS[0] + 1),
        **{a: len(v) for a, v in pools.items()},
    }


def templates_per_attribute() -> pd.Series:
    """Number of sentence templates per attribute in :data:`bios.TEMPLATES`."""
    return pd.Series({a: len(bios.TEMPLATES[a]) for a in ATTRIBUTES}, name="templates")


def heldout_majority(dataset: BioDataset, attributes: Sequence[str] = ATTRIBUTES) -> dict[str, float]:
    """Accuracy on QA-test people of always answering the most common QA-train answer.

    The baseline the QA evaluation reports beside each attribute
    (:func:`bertology_lib.experiments.physics.evaluation.evaluate_qa` uses the same rule).
    """
    train = [dataset.people[i] for i in dataset.qa_train]
    test = [dataset.people[i] for i in dataset.qa_test]
    guess = bios.majority_baseline(train, attributes)
    return {a: float(np.mean([p.value(a) == guess[a][0] for p in test])) for a in attributes}


def profile_pools(config: bios.BioConfig, paper_people: int = 100_000) -> pd.DataFrame:
    """The values each attribute can take in datasets of ``config`` beside the paper's pools, and how many
    people share a value on average (``n_people / values``) here and in the paper (N = ``paper_people``)."""
    ours, paper = possible_values(config), possible_values()
    return pd.DataFrame(
        {
            "paper values": paper,
            "values here": ours,
            "people per value (paper)": {a: paper_people / v for a, v in paper.items()},
            "people per value (here)": {a: config.n_people / v for a, v in ours.items()},
        }
    )


def attribute_statistics(dataset: BioDataset) -> pd.DataFrame:
    """Per attribute: possible and observed distinct values, the majority value and its share among
    all people, the uniform share (1 / possible values) and the held-out majority accuracy."""
    base = bios.majority_baseline(dataset.people)
    held = heldout_majority(dataset)
    possible = possible_values(dataset.config)
    rows = []
    for a in ATTRIBUTES:
        value, share = base[a]
        rows.append(
            {
                "attribute": a,
                "possible values": possible[a],
                "distinct in data": len({p.value(a) for p in dataset.people}),
                "majority value": value,
                "majority share": share,
                "uniform share": 1.0 / possible[a],
                "majority on QA-test": held[a],
            }
        )
    return pd.DataFrame(rows).set_index("attribute")


def value_shares(people: Sequence[Person], attributes: Sequence[str] = ATTRIBUTES) -> pd.DataFrame:
    """Long table (attribute, rank, value, share): every observed value's share of people, by rank."""
    rows = []
    for a in attributes:
        counts = sorted(Counter(p.value(a) for p in people).items(), key=lambda kv: (-kv[1], kv[0]))
        rows += [(a, r + 1, v, c / len(people)) for r, (v, c) in enumerate(counts)]
    return pd.DataFrame(rows, columns=["attribute", "rank", "value", "share"])


def company_city_consistency(people: Sequence[Person]) -> float:
    """Share of the companies present whose employees all work in one city (1.0: city follows company)."""
    cities: dict[str, set[str]] = {}
    for p in people:
        cities.setdefault(p.company_name, set()).add(p.company_city)
    return sum(len(c) == 1 for c in cities.values()) / len(cities)


def split_sizes(dataset: BioDataset, val_fraction: float = 0.1) -> pd.DataFrame:
    """People and QA pairs in QA-train (= fit + validation) and QA-test; validation is carved out of
    QA-train people only (:meth:`BioDataset.split_validation`)."""
    n_attr = len(ATTRIBUTES)
    fit, val = dataset.split_validation(val_fraction)
    rows = [
        ("QA-train", len(dataset.qa_train)),
        ("  fit (QA-train minus validation)", len(fit)),
        ("  validation", len(val)),
        ("QA-test", len(dataset.qa_test)),
    ]
    df = pd.DataFrame(rows, columns=["split", "people"]).set_index("split")
    df["QA pairs"] = df.people * n_attr
    df["share of people"] = df.people / len(dataset.people)
    return df


def celebrity_summary(dataset: BioDataset) -> pd.DataFrame:
    """Per group of a celebrity dataset: people, biographies per person, augmentation, QA role."""
    if not dataset.groups:
        raise ParameterError("dataset has no groups; allowed: a celebrity dataset (bios.celebrity_dataset)")
    per_person = Counter(b.person for b in dataset.bios)
    cfg = dataset.config
    aug = {
        "majority": f"multi{cfg.multi}" + (f"+permute{cfg.permute}" if cfg.permute else ""),
        "minority": "single+permute1",
    }
    role = {"majority": "QA-train", "minority": "QA-test"}
    rows = []
    for g, members in dataset.groups.items():
        n_bios = sum(per_person[i] for i in members)
        rows.append(
            {
                "group": g,
                "people": len(members),
                "augmentation": aug[g],
                "bios per person": n_bios / len(members),
                "biographies": n_bios,
                "QA role": role[g],
            }
        )
    return pd.DataFrame(rows).set_index("group")


# ----------------------------------------------------------------------------------------------
# Where an attribute sits in a biography
# ----------------------------------------------------------------------------------------------


def name_distance(entry: BioEntry, attribute: str) -> int:
    """Words between the first full-name mention and the attribute's value (0 = adjacent).

    Counted from the end of the name to the start of the value, or from the end of the value to the
    start of the name when the value comes first ("On May 2, 1990, Anya ... was born").
    """
    n0, n1 = entry.span("name")
    v0, v1 = entry.span(attribute)
    return v0 - n1 if v0 >= n1 else n0 - v1


def attribute_position(datasets: Mapping[str, BioDataset], attribute: str = "birth_date") -> pd.DataFrame:
    """Per augmentation: share of biographies whose first sentence is ``attribute``, and the median
    and mean number of words between the name and the attribute's value."""
    rows = []
    for aug, ds in datasets.items():
        first = np.mean([b.sentence_starts[0][0] == attribute for b in ds.bios])
        dist = np.array([name_distance(b, attribute) for b in ds.bios])
        rows.append(
            {
                "augmentation": aug,
                f"{attribute} is the first sentence": float(first),
                "words from name (median)": float(np.median(dist)),
                "words from name (mean)": round(float(dist.mean()), 1),
            }
        )
    return pd.DataFrame(rows).set_index("augmentation")
