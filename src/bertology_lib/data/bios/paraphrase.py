"""bioR-like biographies: the same people and facts as bioS, each biography a free rewrite rather than six fixed
template sentences.

The paper's bioR (Allen-Zhu & Li 2023, §2.2) asks Llama to write each biography from the six facts, so its texts
vary the sentence structure, join facts in one sentence, add words about the person that state no fact and call the
person by name or pronoun as a writer would. No language model is at hand offline, so this generator stands in for
it: each rewrite

* keeps the facts in three *groups* (birth date and city; university and major; company and its city) and writes
  each group either as one joint sentence (:data:`JOINT`) or as two sentences (:data:`SINGLE`), the choice drawn
  per group and rewrite;
* puts the group sentences in a random order (so a rewrite is also a permutation) and inserts 0-2 sentences that
  state no fact (:data:`FILLER`) anywhere after the first;
* names the person in full in the first sentence, and afterwards by pronoun or, in a quarter of the sentences, by
  first name.

Its templates are not bioS's (a model cannot match a rewrite to a bioS sentence it saw), and its vocabulary
(:func:`vocabulary`) adds their words to bioS's. What it cannot give is an LLM's real variety: its 24 joint and 30
single-fact templates are still templates. The spans are exact word indices, as in bioS: ``("name", start, end)``
for the full name in the first sentence, ``(attribute, start, end)`` for every value. Used by
:mod:`bertology_lib.experiments.physics.paraphrase` (physics_03) and shown in physics_01.
"""

from __future__ import annotations

import dataclasses
import re
from functools import lru_cache

import numpy as np

from bertology_lib.data.bios.config import BioConfig
from bertology_lib.data.bios.dataset import STREAM_SHUFFLE, BioDataset, BioEntry, Person, Span
from bertology_lib.data.bios.generate import generate_dataset
from bertology_lib.data.bios.pools import ATTRIBUTES, words
from bertology_lib.data.bios.templates import PRONOUNS, vocabulary as bios_vocabulary
from bertology_lib.errors import ParameterError

PARAPHRASE_VERSION = 1  # bump when the templates or the drawing change (part of every paraphrase cache key)
STREAM_PARAPHRASE = 100  # sub-seed stream of the rewrites (bioS's streams are 0-5)
P_JOINT = 0.5  # chance that a group is one joint sentence
P_FIRST_NAME = 0.25  # chance that a later sentence calls the person by first name instead of a pronoun
MAX_FILLER = 2  # sentences with no fact per rewrite: 0..MAX_FILLER, uniform

GROUPS: tuple[tuple[str, str], ...] = (
    ("birth_date", "birth_city"),
    ("university", "major"),
    ("company_name", "company_city"),
)

# {S}/{P} sentence-initial subject / possessive, {s}/{p} inside a sentence; {<attribute>} a value
JOINT: dict[tuple[str, str], tuple[str, ...]] = {
    ("birth_date", "birth_city"): (
        "{S} was born on {birth_date} in {birth_city}.",
        "Born in {birth_city} on {birth_date}, {s} grew up surrounded by books.",
        "{S} came into the world in {birth_city} on {birth_date}.",
        "On {birth_date}, {s} was born in the city of {birth_city}.",
        "{P} life began on {birth_date}, in {birth_city}.",
        "{S}, born on {birth_date}, spent an early childhood in {birth_city}.",
        "{birth_city} is where {s} was born, on {birth_date}.",
        "{S} first saw daylight in {birth_city} on {birth_date}, the youngest child of a modest family.",
    ),
    ("university", "major"): (
        "{S} studied {major} at {university}.",
        "At {university}, {s} majored in {major}.",
        "{S} earned a degree in {major} from {university}.",
        "After school, {s} enrolled at {university} to study {major}.",
        "{P} years at {university} were devoted to {major}.",
        "{S} chose {major} as a field and pursued it at {university}.",
        "{S} graduated from {university} with a degree in {major}.",
        "{major} was the subject that {s} studied at {university}.",
    ),
    ("company_name", "company_city"): (
        "{S} works for {company_name} in {company_city}.",
        "{S} took a position at {company_name} and moved to {company_city}.",
        "These days {s} is employed by {company_name}, based in {company_city}.",
        "{P} career led to {company_name}, whose offices in {company_city} became a second home.",
        "At {company_name} in {company_city}, {s} found rewarding work.",
        "{S} spent a long career at {company_name} in {company_city}.",
        "{S} joined {company_name} and settled in {company_city}.",
        "{P} employer, {company_name}, keeps its main office in {company_city}.",
    ),
}

SINGLE: dict[str, tuple[str, ...]] = {
    "birth_date": (
        "{P} birth certificate gives the date {birth_date}.",
        "{S} was born on {birth_date}, a day the family still remembers.",
        "The records list {birth_date} as {p} date of birth.",
        "{S} arrived on {birth_date}.",
        "{P} parents welcomed a new child on {birth_date}.",
    ),
    "birth_city": (
        "{S} grew up in {birth_city} and still speaks of it fondly.",
        "{P} childhood home was in {birth_city}.",
        "{P} family lived in {birth_city} in those years.",
        "{S} is proud to come from {birth_city}.",
        "{P} first home was {birth_city}.",
    ),
    "university": (
        "{S} went on to attend {university}.",
        "For higher education, {s} went to {university}.",
        "{P} diploma comes from {university}.",
        "{S} spent four busy years at {university}.",
        "{university} is the university that {s} attended.",
    ),
    "major": (
        "{P} studies centred on {major}.",
        "{S} developed a passion for {major} in college.",
        "The field that {s} chose was {major}.",
        "{S} has a degree in {major}.",
        "{major} became {p} main subject.",
    ),
    "company_name": (
        "{S} now holds a position at {company_name}.",
        "For some years now, {s} has worked at {company_name}.",
        "{P} current employer is {company_name}.",
        "{S} is on the staff of {company_name}.",
        "{company_name} is where {s} works today.",
    ),
    "company_city": (
        "{P} job is located in {company_city}.",
        "{S} commutes to an office in {company_city}.",
        "For work, {s} lives in {company_city}.",
        "{S} works in {company_city}.",
        "{company_city} is where {s} goes to work.",
    ),
}

FILLER: tuple[str, ...] = (
    "{S} is known for a calm and generous nature.",
    "Among friends, {s} is known as curious and kind.",
    "{P} hobbies include hiking, painting and chess.",
    "{S} enjoys reading history books on weekends.",
    "In free time, {s} volunteers at a local library.",
    "{P} colleagues admire a quiet sense of humour.",
    "{S} loves travelling and trying new food.",
    "Music has always mattered to {p} family.",
)

_PLACEHOLDER = re.compile(r"\{(\w+)\}")
_SUBJECTS = ("S", "s", "P", "p")


@dataclasses.dataclass(frozen=True)
class Rewrite:
    """A template split into literal text and placeholders, with its subject reference and its facts."""

    parts: tuple[str, ...]  # literal, placeholder, literal, placeholder, ..., literal
    subject: str  # S | s | P | p
    facts: tuple[str, ...]  # attributes, in text order


def compile_rewrite(template: str, facts: tuple[str, ...]) -> Rewrite:
    """``template`` split at its placeholders, checked: exactly one subject reference, each of ``facts`` once, a
    final '.', no placeholder glued to a word (so the word spans stay exact), {S}/{P} only at the start."""
    parts = tuple(_PLACEHOLDER.split(template))
    names = parts[1::2]
    subjects = [n for n in names if n in _SUBJECTS]
    values = tuple(n for n in names if n not in _SUBJECTS)
    if len(subjects) != 1 or sorted(values) != sorted(facts) or not template.endswith("."):
        raise ParameterError(
            f"template={template!r} is malformed; allowed: one subject reference ({{S}} {{s}} {{P}} {{p}}), "
            f"each of {list(facts)} once, and a final '.'"
        )
    if (subjects[0] in "SP") != (parts[0] == "" and names[0] == subjects[0]):
        raise ParameterError(
            f"template={template!r} misplaces its subject; allowed: {{S}}/{{P}} only at the start, {{s}}/{{p}} inside"
        )
    for k in range(1, len(parts), 2):
        left, right = parts[k - 1][-1:], parts[k + 1][:1]
        if re.match(r"\w", left or " ") or re.match(r"\w", right or " "):
            raise ParameterError(f"template={template!r} glues a placeholder to a word; allowed: separated")
    return Rewrite(parts, subjects[0], values)


COMPILED_JOINT = {g: tuple(compile_rewrite(t, g) for t in ts) for g, ts in JOINT.items()}
COMPILED_SINGLE = {a: tuple(compile_rewrite(t, (a,)) for t in ts) for a, ts in SINGLE.items()}
COMPILED_FILLER = tuple(compile_rewrite(t, ()) for t in FILLER)


def _subject(p: Person, ref: str, how: str) -> str:
    """The reference ``ref`` (S s P p) to ``p`` as the full name, the first name or a pronoun."""
    if how == "pronoun":
        return PRONOUNS[p.gender][ref]
    name = p.full_name if how == "full" else p.first
    return name + "'s" if ref in "Pp" else name


def render(
    p: Person, sentences: list[tuple[Rewrite, str]]
) -> tuple[str, tuple[Span, ...], tuple[tuple[str, int], ...]]:
    """One biography from (rewrite, how the subject is named) pairs: its text, spans (the full name once, each
    value) and the first word of each fact's sentence."""
    texts, spans, starts = [], [], []
    pos = 0
    for rw, how in sentences:
        out = []
        for a in rw.facts:
            starts.append((a, pos))
        for k, piece in enumerate(rw.parts):
            if k % 2 == 0:
                out.append(piece)
                pos += len(words(piece))
                continue
            if piece in _SUBJECTS:
                text = _subject(p, piece, how)
                n = len(words(text))
                if how == "full":
                    spans.append(("name", pos, pos + len(words(p.full_name))))
            else:
                text = getattr(p, piece)
                n = len(words(text))
                spans.append((piece, pos, pos + n))
            out.append(text)
            pos += n
        texts.append("".join(out))
    return " ".join(texts), tuple(sorted(spans, key=lambda s: s[1])), tuple(starts)


def _draw(rng: np.random.Generator) -> list[Rewrite]:
    """The sentences of one rewrite, in text order (subjects not yet chosen)."""
    units: list[Rewrite] = []
    for g in GROUPS:
        if rng.random() < P_JOINT:
            opts = COMPILED_JOINT[g]
            units.append(opts[int(rng.integers(len(opts)))])
        else:
            for a in g:
                opts = COMPILED_SINGLE[a]
                units.append(opts[int(rng.integers(len(opts)))])
    units = [units[i] for i in rng.permutation(len(units)).tolist()]
    for _ in range(int(rng.integers(MAX_FILLER + 1))):
        at = int(rng.integers(1, len(units) + 1))  # never before the first fact sentence
        units.insert(at, COMPILED_FILLER[int(rng.integers(len(COMPILED_FILLER)))])
    return units


def rewrite(p: Person, rng: np.random.Generator) -> tuple[str, tuple[Span, ...], tuple[tuple[str, int], ...]]:
    """One random rewrite of ``p``'s biography (see the module docstring)."""
    units = _draw(rng)
    hows = ["full"] + ["first" if rng.random() < P_FIRST_NAME else "pronoun" for _ in units[1:]]
    return render(p, list(zip(units, hows)))


def check_config(config: BioConfig) -> BioConfig:
    """A paraphrase dataset takes ``single`` or ``multiM`` (M rewrites per person); each rewrite draws its own
    order, so permutation and the full name in every sentence are not options, and neither are celebrities."""
    if config.permute or config.fullname or config.n_minority:
        raise ParameterError(
            f"augmentation={config.augmentation!r} with n_minority={config.n_minority} has no paraphrase version; "
            "allowed: 'single' or 'multiM' (each rewrite draws its own sentence order), no celebrities"
        )
    return config


def key(config: BioConfig) -> dict:
    """What a cache key holds of a paraphrase dataset: the bioS key (people, pools, multiplicity) and this
    generator's name and version."""
    return {**check_config(config).key(), "style": "paraphrase", "paraphrase_version": PARAPHRASE_VERSION}


def generate(config: BioConfig) -> BioDataset:
    """The bioS dataset of ``config`` (same people, QA split and validation people) with every biography replaced
    by ``config.multi`` distinct rewrites per person, globally shuffled as bioS's."""
    check_config(config)
    base = generate_dataset(config)
    rng = np.random.default_rng([config.seed, STREAM_PARAPHRASE])
    entries = []
    for i, p in enumerate(base.people):
        seen: set[str] = set()
        for m in range(config.multi):
            for _ in range(100):  # distinct rewrites per person (a repeat is rare: redraw)
                text, spans, starts = rewrite(p, rng)
                if text not in seen:
                    break
            seen.add(text)
            entries.append(BioEntry(i, m, text, spans, starts))
    if config.shuffle:
        perm = np.random.default_rng([config.seed, STREAM_SHUFFLE]).permutation(len(entries))
        entries = [entries[j] for j in perm.tolist()]
    return dataclasses.replace(base, bios=tuple(entries))


@lru_cache(maxsize=1)
def _vocabulary() -> tuple[str, ...]:
    vocab = set(bios_vocabulary())
    for ts in (*JOINT.values(), *SINGLE.values(), FILLER):
        for t in ts:
            vocab.update(words(_PLACEHOLDER.sub(" ", t)))
    return tuple(sorted(vocab))


def vocabulary() -> list[str]:
    """bioS's vocabulary and every word the rewrites' templates add, sorted: the word tokenizer of a paraphrase
    run (first names are already bioS words)."""
    return list(_vocabulary())


def added_words() -> list[str]:
    """The words a rewrite can contain that no bioS text can."""
    known = set(bios_vocabulary())
    return [w for w in vocabulary() if w not in known]


assert set(ATTRIBUTES) == {a for g in GROUPS for a in g}  # every fact is in exactly one group
