"""bioS generation: the people of a dataset, their biographies (rendered from templates,
augmented, globally shuffled) and the QA people split.

Everything is a pure function of :class:`~bertology_lib.data.bios.config.BioConfig`:
private numpy generators with sub-seeds (people / templates / QA split / shuffle /
permutations / validation), never global state, so that the same ``seed`` gives the same
people in every augmentation. Used by the physics experiments and their tests.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache

import numpy as np

from bertology_lib.data.bios.config import BioConfig
from bertology_lib.data.bios.dataset import (
    STREAM_PEOPLE,
    STREAM_PERMUTE,
    STREAM_QA,
    STREAM_SHUFFLE,
    STREAM_TEMPLATES,
    BioDataset,
    BioEntry,
    Person,
    Span,
)
from bertology_lib.data.bios.pools import (
    ATTRIBUTES,
    CITIES,
    COMPANIES,
    COMPANY_CITY,
    DAYS,
    FIRST_NAMES,
    LAST_NAMES,
    MAJORS,
    MAX_PEOPLE,
    MIDDLE_NAMES,
    UNIVERSITIES,
    YEARS,
    words,
)
from bertology_lib.data.bios.templates import ALL_PERMS, COMPILED, PRONOUNS


def sample_people(n_people: int, seed: int = 0, people_per_value: int = 0) -> list[Person]:
    """The N people of a dataset: unique full names and uniform attributes (company -> fixed city), the pooled
    ones drawn from the first :meth:`BioConfig.pool_sizes` values of each pool."""
    k = BioConfig(n_people=n_people, seed=seed, people_per_value=people_per_value).pool_sizes()  # validates
    rng = np.random.default_rng([seed, STREAM_PEOPLE])
    name_idx = rng.choice(MAX_PEOPLE, size=n_people, replace=False)  # unique (first, middle, last) triples
    n_ml = len(MIDDLE_NAMES) * len(LAST_NAMES)
    fi, rest = np.divmod(name_idx, n_ml)
    mi, li = np.divmod(rest, len(LAST_NAMES))
    cols = (
        fi,
        mi,
        li,
        rng.integers(0, 2, n_people),  # gender
        rng.integers(YEARS[0], YEARS[1] + 1, n_people),
        rng.integers(1, 13, n_people),
        rng.integers(DAYS[0], DAYS[1] + 1, n_people),
        rng.integers(0, k["birth_city"], n_people),
        rng.integers(0, k["university"], n_people),
        rng.integers(0, k["major"], n_people),
        rng.integers(0, k["company_name"], n_people),
    )
    genders = ("male", "female")
    return [
        Person(
            FIRST_NAMES[f],
            MIDDLE_NAMES[m],
            LAST_NAMES[la],
            genders[g],
            y,
            mo,
            d,
            CITIES[c],
            UNIVERSITIES[u],
            MAJORS[mj],
            COMPANIES[co],
            COMPANY_CITY[COMPANIES[co]],
        )
        for f, m, la, g, y, mo, d, c, u, mj, co in zip(*(col.tolist() for col in cols))
    ]


@lru_cache(maxsize=4096)
def _n_words(s: str) -> int:
    return len(words(s))


def _render(
    p: Person, tmpl: Sequence[int], order: Sequence[int], fullname: bool
) -> tuple[str, tuple[Span, ...], tuple[tuple[str, int], ...]]:
    """One biography: sentences in ``order`` (attribute indices), template ids ``tmpl`` per attribute."""
    name = p.full_name
    n_name = _n_words(name)
    pron = PRONOUNS[p.gender]
    sentences, spans, starts = [], [], []
    pos = 0
    for k, ai in enumerate(order):
        a = ATTRIBUTES[ai]
        t = COMPILED[a][tmpl[ai]]
        val = getattr(p, a)
        n_val = _n_words(val)
        named = fullname or k == 0  # full name in the first sentence (in text order) or everywhere
        if named:
            subj = name if t.ref in "Ss" else name + "'s"
            n_subj = n_name if t.ref in "Ss" else n_name + 2
        else:
            subj, n_subj = pron[t.ref], 1
        starts.append((a, pos))
        first, n_first, second, n_second = (val, n_val, subj, n_subj) if t.value_first else (subj, n_subj, val, n_val)
        s1 = pos + t.n_pre
        s2 = s1 + n_first + t.n_mid
        v_at, s_at = (s1, s2) if t.value_first else (s2, s1)
        pair = [(v_at, (a, v_at, v_at + n_val))]
        if named:
            pair.append((s_at, ("name", s_at, s_at + n_name)))
        spans.extend(sp for _, sp in sorted(pair))
        sentences.append(t.pre + first + t.mid + second + t.post)
        pos = s2 + n_second + t.n_post
    return " ".join(sentences), tuple(spans), tuple(starts)


def distinct_rows(rng: np.random.Generator, n_rows: int, sizes: Sequence[int]) -> np.ndarray:
    """n_rows distinct template-id rows (one column per attribute); the multi-copy collision fallback."""
    rows: list[tuple[int, ...]] = []
    seen: set[tuple[int, ...]] = set()
    while len(rows) < n_rows:
        r = tuple(int(rng.integers(0, s)) for s in sizes)
        if r not in seen:
            seen.add(r)
            rows.append(r)
    return np.array(rows, dtype=np.int64)


def generate_dataset(config: BioConfig) -> BioDataset:
    """Generate people, biographies (augmented, globally shuffled) and the 50/50 QA people split."""
    config.validate()
    n, seed = config.n_people, config.seed
    people = sample_people(n, seed, config.people_per_value)
    n_major = n - config.n_minority
    sizes = [len(COMPILED[a]) for a in ATTRIBUTES]

    # templates: (n, multi, 6) ids; shape depends on multi only, so permute/fullname reuse the same draws
    rng_t = np.random.default_rng([seed, STREAM_TEMPLATES])
    tmpl = np.stack([rng_t.integers(0, s, size=(n, config.multi)) for s in sizes], axis=-1)
    if config.multi > 1:  # guarantee distinct template rows per person (collisions are ~1e-9 anyway)
        for i in range(n):
            if len({tuple(r) for r in tmpl[i].tolist()}) < config.multi:
                tmpl[i] = distinct_rows(rng_t, config.multi, sizes)

    rng_p = np.random.default_rng([seed, STREAM_PERMUTE])
    identity = tuple(range(len(ATTRIBUTES)))
    entries: list[BioEntry] = []
    for i, p in enumerate(people):
        multi, k = (config.multi, config.permute) if i < n_major else (1, 1)
        copy = 0
        for m in range(multi):
            t = tmpl[i, m].tolist()
            if k == 0:
                orders: Iterable[tuple[int, ...]] = (identity,)
            elif k == 1:
                orders = (ALL_PERMS[int(rng_p.integers(len(ALL_PERMS)))],)
            else:
                orders = (ALL_PERMS[j] for j in rng_p.choice(len(ALL_PERMS), size=k, replace=False).tolist())
            for order in orders:
                text, spans, starts = _render(p, t, order, config.fullname)
                entries.append(BioEntry(i, copy, text, spans, starts))
                copy += 1

    if config.shuffle:
        perm = np.random.default_rng([seed, STREAM_SHUFFLE]).permutation(len(entries))
        entries = [entries[j] for j in perm.tolist()]

    if config.n_minority:
        qa_train, qa_test = tuple(range(n_major)), tuple(range(n_major, n))
        groups = {"majority": qa_train, "minority": qa_test}
    else:
        perm = np.random.default_rng([seed, STREAM_QA]).permutation(n)
        qa_train, qa_test = tuple(sorted(perm[: n // 2].tolist())), tuple(sorted(perm[n // 2 :].tolist()))
        groups = {}
    return BioDataset(config, tuple(people), tuple(entries), qa_train, qa_test, groups)


def celebrity_dataset(
    n_majority: int, n_minority: int, seed: int = 0, fullname: bool = False, people_per_value: int = 0
) -> BioDataset:
    """Celebrity setup: majority multi5+permute (QA-train = all majority), minority single+permute1 (QA-test).

    People are the same as ``generate_dataset(BioConfig(n_majority + n_minority, seed))``.
    """
    return generate_dataset(
        BioConfig(
            n_people=n_majority + n_minority,
            seed=seed,
            multi=5,
            permute=1,
            fullname=fullname,
            n_minority=n_minority,
            people_per_value=people_per_value,
        )
    )
