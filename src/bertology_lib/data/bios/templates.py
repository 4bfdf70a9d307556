"""bioS sentence templates (six attributes, ~25-30 each), QA prompts and pronouns,
pre-compiled for rendering, and the vocabulary the pools and templates can produce.

Placeholders: ``{v}`` value; exactly one subject reference: ``{S}``/``{P}`` sentence-initial
subject / possessive, ``{s}``/``{p}`` mid-sentence. The reference renders as the full name
(first sentence, or every sentence with ``fullname``) or as he/she, his/her.
Used by :mod:`.generate` (rendering), :mod:`.dataset` (QA) and the word-level tokenizers.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from functools import lru_cache

from bertology_lib.data.bios.pools import (
    ATTRIBUTES,
    CITIES,
    COMPANIES,
    DAYS,
    FIRST_NAMES,
    LAST_NAMES,
    MAJORS,
    MIDDLE_NAMES,
    MONTHS,
    UNIVERSITIES,
    YEARS,
    words,
)
from bertology_lib.errors import ParameterError

TEMPLATES: dict[str, tuple[str, ...]] = {
    "birth_date": (
        "{S} was born on {v}.",
        "{S} came into this world on {v}.",
        "{P} birthday is {v}.",
        "{P} life journey began on {v}.",
        "{S} entered the world on {v}.",
        "{S} first saw the light of day on {v}.",
        "{P} date of birth is {v}.",
        "{S} was brought into the world on {v}.",
        "{S} arrived in this world on {v}.",
        "{S} took a first breath on {v}.",
        "On {v}, {s} was born.",
        "{P} birth date is recorded as {v}.",
        "{S} was welcomed into the world on {v}.",
        "{P} story began on {v}.",
        "{S} was born into a loving family on {v}.",
        "Born on {v}, {s} grew up full of curiosity.",
        "{S} was born in the early hours of {v}.",
        "{P} birth was celebrated on {v}.",
        "{S} entered life on {v}.",
        "{S} began life on {v}.",
        "{P} journey in life started on {v}.",
        "Records show that {s} was born on {v}.",
        "It was on {v} that {s} was born.",
        "{S} has been alive since {v}.",
        "{S} was born on the date {v}.",
        "{P} birth took place on {v}.",
        "{S} made a debut in this world on {v}.",
        "{P} existence began on {v}.",
        "The day {s} was born was {v}.",
    ),
    "birth_city": (
        "{S} was born in {v}.",
        "{P} early years were spent in {v}.",
        "{S} grew up in {v}.",
        "{P} hometown is {v}.",
        "{S} was raised in {v}.",
        "{S} hails from {v}.",
        "{P} birthplace is {v}.",
        "{S} comes from {v}.",
        "{P} childhood was spent in {v}.",
        "{S} calls {v} home.",
        "{S} originates from {v}.",
        "{S} was born in the city of {v}.",
        "{P} roots trace back to {v}.",
        "{S} was brought up in {v}.",
        "{S} began life in {v}.",
        "{v} is where {s} was born.",
        "{P} place of birth is {v}.",
        "{S} was born and raised in {v}.",
        "{S} entered the world in {v}.",
        "{S} took the first steps of childhood in {v}.",
        "The city of {v} is where {s} was born.",
        "{S} is a native of {v}.",
        "{P} earliest memories are of {v}.",
        "Growing up in {v}, {s} developed a curious mind.",
        "{P} life started in {v}.",
        "{S} spent the childhood years in {v}.",
        "{P} birth city is {v}.",
        "{S} first lived in {v}.",
    ),
    "university": (
        "{S} received mentorship and guidance from faculty members at {v}.",
        "{S} graduated from {v}.",
        "{S} studied at {v}.",
        "{S} attended {v}.",
        "{S} is a graduate of {v}.",
        "{S} earned a degree from {v}.",
        "{S} completed a course of study at {v}.",
        "{S} pursued higher education at {v}.",
        "{P} alma mater is {v}.",
        "{S} enrolled at {v}.",
        "{P} college years were spent at {v}.",
        "{S} was educated at {v}.",
        "{S} honed a range of skills at {v}.",
        "{S} developed academic interests at {v}.",
        "{P} university education took place at {v}.",
        "{S} obtained a degree at {v}.",
        "{S} deepened a love of learning at {v}.",
        "{S} was a student at {v}.",
        "{S} received an education at {v}.",
        "After high school, {s} went on to study at {v}.",
        "{S} chose {v} for university studies.",
        "{S} benefited from the resources of {v}.",
        "{S} spent several years as a student at {v}.",
        "{P} academic journey led to {v}.",
        "{S} attended classes at {v}.",
        "{v} is where {s} earned a degree.",
        "{P} university was {v}.",
        "{S} went to college at {v}.",
        "{S} completed an undergraduate program at {v}.",
    ),
    "major": (
        "{S} completed a degree with a focus on {v}.",
        "{S} majored in {v}.",
        "{S} studied {v}.",
        "{P} major was {v}.",
        "{S} specialized in {v}.",
        "{S} earned a degree in {v}.",
        "{S} focused on the study of {v}.",
        "{P} field of study was {v}.",
        "{S} devoted years of study to {v}.",
        "{S} pursued a degree in {v}.",
        "{S} concentrated on {v}.",
        "{S} chose {v} as a major.",
        "{P} academic focus was {v}.",
        "{S} graduated with a major in {v}.",
        "{S} dedicated college years to {v}.",
        "{S} explored the field of {v}.",
        "{S} was trained in {v}.",
        "{P} coursework centered on {v}.",
        "{S} delved into {v}.",
        "{S} developed expertise in {v}.",
        "{P} studies were in {v}.",
        "{S} received a degree in the field of {v}.",
        "{S} specialized in the discipline of {v}.",
        "{v} was the major that {s} chose.",
        "{S} built a strong foundation in {v}.",
        "{P} chosen subject was {v}.",
        "{S} read {v} at university.",
        "{P} degree is in {v}.",
    ),
    "company_name": (
        "{S} had a professional role at {v}.",
        "{S} worked at {v}.",
        "{S} was employed by {v}.",
        "{S} worked for {v}.",
        "{P} employer was {v}.",
        "{S} built a career at {v}.",
        "{S} held a job at {v}.",
        "{S} accepted a position at {v}.",
        "{S} joined {v}.",
        "{S} contributed valuable skills to {v}.",
        "{S} found employment at {v}.",
        "{P} career took shape at {v}.",
        "{S} was a staff member at {v}.",
        "{S} spent many working years at {v}.",
        "{S} was on the payroll of {v}.",
        "{S} secured a job with {v}.",
        "{S} gained work experience at {v}.",
        "{S} was hired by {v}.",
        "{P} job was with {v}.",
        "{S} dedicated a career to {v}.",
        "{S} held a full-time position at {v}.",
        "{S} served as an employee of {v}.",
        "{v} was where {s} worked.",
        "{S} made a living working for {v}.",
        "{S} pursued a profession at {v}.",
        "{P} professional home was {v}.",
        "{S} was part of the team at {v}.",
    ),
    "company_city": (
        "{S} was employed in {v}.",
        "{S} worked in {v}.",
        "{P} workplace was located in {v}.",
        "{S} commuted to work in {v}.",
        "{P} office was in {v}.",
        "{S} spent working days in {v}.",
        "{S} had a job in {v}.",
        "{S} pursued a career in {v}.",
        "{P} professional life was based in {v}.",
        "{S} built a professional life in {v}.",
        "{S} was based in {v} for work.",
        "{S} reported to an office in {v}.",
        "{P} job was located in {v}.",
        "{S} moved to {v} for work.",
        "{S} relocated to {v} for a job.",
        "{S} worked from an office in {v}.",
        "{P} career unfolded in {v}.",
        "{S} earned a living in {v}.",
        "{S} practiced a profession in {v}.",
        "{v} is the city where {s} worked.",
        "{S} held a position in {v}.",
        "{S} found work in {v}.",
        "{P} daily work took place in {v}.",
        "{S} spent a career in {v}.",
        "{P} place of work was {v}.",
        "{S} went to work every day in {v}.",
    ),
}

QA_TEMPLATES: dict[str, str] = {  # question prompt; the gold text is f"{prompt} {answer}."
    "birth_date": "What is the birth date of {name}? Answer:",
    "birth_city": "What is the birth city of {name}? Answer:",
    "university": "Which university did {name} study? Answer:",
    "major": "What major did {name} study? Answer:",
    "company_name": "Which company did {name} work for? Answer:",
    "company_city": "Where did {name} work? Answer:",
}

PRONOUNS: dict[str, dict[str, str]] = {
    "male": {"S": "He", "s": "he", "P": "His", "p": "his"},
    "female": {"S": "She", "s": "she", "P": "Her", "p": "her"},
}


@dataclass(frozen=True, slots=True)
class Template:
    """A template pre-split as ``pre A mid B post`` (A/B = value and subject), with word counts."""

    pre: str
    mid: str
    post: str
    ref: str  # "S" | "s" | "P" | "p"
    value_first: bool
    n_pre: int
    n_mid: int
    n_post: int


def compile_template(t: str) -> Template:
    """``t`` split around its two placeholders, checked so word spans stay exact."""
    parts = re.split(r"\{(S|s|P|p|v)\}", t)
    if len(parts) != 5 or "v" not in parts[1::2] or not t.endswith("."):
        raise ParameterError(
            f"template={t!r} is malformed; allowed: exactly one {{v}}, one subject reference, and a final '.'"
        )
    pre, a, mid, b, post = parts
    ref = b if a == "v" else a
    if ref == "v" or ("{" in pre + mid + post):
        raise ParameterError(
            f"template={t!r} has bad placeholders; allowed: one {{v}} and one of {{S}} {{s}} {{P}} {{p}}"
        )
    if (ref in "SP") != (pre == "" and a == ref):
        raise ParameterError(
            f"template={t!r} misplaces its subject; allowed: {{S}}/{{P}} only at sentence start, "
            "{s}/{p} only inside"
        )
    for left, right in ((pre[-1:], "x"), ("x", mid[:1]), (mid[-1:], "x"), ("x", post[:1])):
        if left and right and re.match(r"\w", left) and re.match(r"\w", right):
            raise ParameterError(
                f"template={t!r} glues a placeholder to a word; allowed: placeholders separated from words"
            )
    return Template(pre, mid, post, ref, a == "v", len(words(pre)), len(words(mid)), len(words(post)))


COMPILED: dict[str, tuple[Template, ...]] = {a: tuple(compile_template(t) for t in TEMPLATES[a]) for a in ATTRIBUTES}
ALL_PERMS: tuple[tuple[int, ...], ...] = tuple(itertools.permutations(range(len(ATTRIBUTES))))  # 720


@lru_cache(maxsize=1)
def _vocabulary() -> tuple[str, ...]:
    vocab: set[str] = set()
    for pool in (FIRST_NAMES, MIDDLE_NAMES, LAST_NAMES, CITIES, UNIVERSITIES, MAJORS, COMPANIES, MONTHS):
        for s in pool:
            vocab.update(words(s))
    vocab.update(str(x) for x in range(YEARS[0], YEARS[1] + 1))
    vocab.update(str(x) for x in range(DAYS[0], DAYS[1] + 1))
    vocab.update(w for forms in PRONOUNS.values() for w in forms.values())
    vocab.update(("'", "s", ",", "."))  # possessive "Name's" splits into Name ' s
    for ts in TEMPLATES.values():
        for t in ts:
            vocab.update(words(re.sub(r"\{\w\}", " ", t)))
    for q in QA_TEMPLATES.values():
        vocab.update(words(q.replace("{name}", " ")))
    return tuple(sorted(vocab))


def vocabulary(dataset: object | None = None) -> list[str]:
    """Every word (per :func:`words`) that any bioS bio or QA text can contain, sorted.

    Built from the pools and templates, not the sampled people, so it is the same for every dataset
    (the argument is accepted for call-site symmetry). Used to build word-level tokenizers.
    """
    return list(_vocabulary())
