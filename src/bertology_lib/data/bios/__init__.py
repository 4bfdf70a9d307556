"""bioS: synthetic biographies from "Physics of Language Models 3.1" (Allen-Zhu & Li 2023, arXiv 2309.14316).

Used by the physics_01..06 notebooks (knowledge storage vs extraction, P-probing, celebrity effect).

Glossary:

- *person*: one synthetic individual (:class:`Person`); ``people[i]`` is "person i".
- *attribute*: one of :data:`ATTRIBUTES` (six per person, one sentence each in a biography).
- *entry*: one biography text (:class:`BioEntry`); a person has ``multi * max(permute, 1)`` entries.
- *span*: ``(label, word_start, word_end)``, a half-open index range into ``words(entry.text)``;
  the label is an attribute or ``"name"`` (every full-name mention).
- *QA-train / QA-test*: the 50/50 split of *people* used for QA finetuning / evaluation.

Everything is a pure function of :class:`BioConfig`: private RNGs with sub-seeds
(people / templates / QA split / shuffle / permutations / validation), never global state,
so that the same ``seed`` gives the same people in every augmentation. Packing token lists
into training windows is :func:`bertology_lib.training.objectives.pack_sequences`.

Modules:

* ``pools``: attributes, name parts, cities, universities, majors, companies; :func:`words`.
* ``templates``: biography templates, QA prompts, pronouns; :func:`vocabulary`.
* ``config``: :class:`BioConfig` and the augmentation names.
* ``dataset``: :class:`Person`, :class:`BioEntry`, :class:`QAPair`, :class:`BioDataset`.
* ``generate``: :func:`sample_people`, :func:`generate_dataset`, :func:`celebrity_dataset`.
* ``evaluation``: :func:`exact_match`, :func:`qa_accuracy`, :func:`majority_baseline`.
* ``paraphrase``: bioR-like rewrites of the same people (a stand-in for the paper's LLM-written bioR): :func:`paraphrase.generate`, :func:`paraphrase.vocabulary`.
"""

from __future__ import annotations

from bertology_lib.data.bios.config import BioConfig
from bertology_lib.data.bios.dataset import PEOPLE_SPLITS, BioDataset, BioEntry, Person, QAPair, Span
from bertology_lib.data.bios.evaluation import exact_match, majority_baseline, normalize_answer, qa_accuracy
from bertology_lib.data.bios.generate import celebrity_dataset, distinct_rows, generate_dataset, sample_people
from bertology_lib.data.bios.pools import (
    ATTRIBUTES,
    CITIES,
    COMPANIES,
    COMPANY_CITY,
    DAYS,
    FIRST_NAMES,
    GENERATOR_VERSION,
    LAST_NAMES,
    MAJORS,
    MAX_PEOPLE,
    MIDDLE_NAMES,
    MONTHS,
    UNIVERSITIES,
    WORD_RE,
    YEARS,
    words,
)
from bertology_lib.data.bios.templates import (
    ALL_PERMS,
    COMPILED,
    PRONOUNS,
    QA_TEMPLATES,
    TEMPLATES,
    Template,
    compile_template,
    vocabulary,
)


__all__ = [
    "GENERATOR_VERSION",
    "ATTRIBUTES",
    "MONTHS",
    "YEARS",
    "DAYS",
    "WORD_RE",
    "words",
    "FIRST_NAMES",
    "MIDDLE_NAMES",
    "LAST_NAMES",
    "MAX_PEOPLE",
    "CITIES",
    "UNIVERSITIES",
    "MAJORS",
    "COMPANIES",
    "COMPANY_CITY",
    "TEMPLATES",
    "QA_TEMPLATES",
    "PRONOUNS",
    "Template",
    "compile_template",
    "COMPILED",
    "ALL_PERMS",
    "vocabulary",
    "BioConfig",
    "Person",
    "Span",
    "BioEntry",
    "QAPair",
    "BioDataset",
    "PEOPLE_SPLITS",
    "sample_people",
    "distinct_rows",
    "generate_dataset",
    "celebrity_dataset",
    "normalize_answer",
    "exact_match",
    "qa_accuracy",
    "majority_baseline",
]
