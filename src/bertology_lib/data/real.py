"""Real-data loaders: UD English EWT (CoNLL-U) and GLUE SST-2.

Where the files come from, in order:

1. an explicit ``path`` argument (a file, or a folder holding the files);
2. ``$BERTOLOGY_DATA`` (a folder laid out like ``../shared/data``:
   ``ud_english_ewt/en_ewt-ud-<split>.conllu``, ``sst2/<split>.tsv``);
3. ``../shared/data`` beside the checkout (development machines and CI);
4. a download of the public files into the artifact cache (a reader's machine),
   written atomically.

An explicit ``path`` that is a single file must be the file of the split asked for: its
name must say the split (``en_ewt-ud-dev.conllu``, ``train.tsv``, ``sst2_train.tsv``), and a
file that names another split, or none, is refused rather than returned for any split.

Used by the survey notebooks' real-data checks (MiniLM on UD EWT and SST-2) and by the
SST-2 task (:mod:`bertology_lib.data.tasks.sst2`).
"""

from __future__ import annotations

import csv
import io
import os
import re
import urllib.request
import zipfile
from dataclasses import dataclass
from pathlib import Path

from bertology_lib.errors import ParameterError
from bertology_lib.validation import check_choice, check_int

UD_URL = "https://raw.githubusercontent.com/UniversalDependencies/UD_English-EWT/r2.15/en_ewt-ud-{split}.conllu"
SST2_URL = "https://dl.fbaipublicfiles.com/glue/data/SST-2.zip"
UD_SPLITS = ("train", "dev", "test")
SST2_SPLITS = ("train", "dev")
SPLIT_NAMES = ("train", "dev", "test")  # split words a data file's name may carry
DOWNLOAD_TIMEOUT_S = 20


@dataclass(frozen=True)
class UDSentence:
    """One UD sentence: words with 1-based heads (0 = root) like CoNLL-U."""

    sent_id: str
    words: tuple[str, ...]
    upos: tuple[str, ...]
    xpos: tuple[str, ...]
    heads: tuple[int, ...]
    deprels: tuple[str, ...]

    def __len__(self) -> int:
        return len(self.words)

    def depths(self) -> tuple[int, ...]:
        """Tree depth of each word (root = 0)."""
        out = []
        for i in range(len(self.words)):
            d, h = 0, self.heads[i]
            while h != 0:
                d, h = d + 1, self.heads[h - 1]
                if d > len(self.words):
                    raise ParameterError(
                        f"heads={self.heads!r} of sentence {self.sent_id} contain a cycle; "
                        "allowed: a tree (every word reaches the root)"
                    )
            out.append(d)
        return tuple(out)


def candidate_roots() -> list[Path]:
    """Folders laid out like ``../shared/data`` to look in, in order: ``$BERTOLOGY_DATA``,
    ``$BERTOLOGY_SHARED_DATA``, ``shared/data`` beside the checkout (found from the working folder, then from
    this file)."""
    roots = []
    if os.environ.get("BERTOLOGY_DATA"):
        roots.append(Path(os.environ["BERTOLOGY_DATA"]).expanduser())
    if os.environ.get("BERTOLOGY_SHARED_DATA"):
        roots.append(Path(os.environ["BERTOLOGY_SHARED_DATA"]).expanduser())
    here = Path.cwd().resolve()
    for p in (here, *here.parents):
        if (p / "_toc.yml").is_file():
            roots.append(p.parent / "shared" / "data")
            break
    roots.append(Path(__file__).resolve().parents[3].parent / "shared" / "data")
    return roots


def download(url: str, dest: Path, sha256: str | None = None) -> Path:
    """Download ``url`` to ``dest`` atomically (a temporary file, then a rename); with ``sha256``, a file whose
    hash differs is refused and nothing is left behind."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(dest.name + f".part-{os.getpid()}")
    try:
        with urllib.request.urlopen(url, timeout=DOWNLOAD_TIMEOUT_S) as r, open(tmp, "wb") as f:
            f.write(r.read())
        if sha256 is not None:
            import hashlib

            got = hashlib.sha256(tmp.read_bytes()).hexdigest()
            if got != sha256:
                raise ParameterError(f"{url} has sha256 {got}; allowed: the published file, sha256 {sha256}")
        os.replace(tmp, dest)
    except OSError as e:
        raise FileNotFoundError(
            f"could not download {url} ({e}); put a local copy under $BERTOLOGY_DATA or pass path=..."
        ) from e
    finally:
        tmp.unlink(missing_ok=True)
    return dest


def download_dir() -> Path:
    """Where downloaded data files are kept: ``downloads/`` in the artifact cache."""
    from bertology_lib.cache import default_root

    return default_root() / "downloads"


def split_of(name: str | Path) -> str | None:
    """The split a data file's name says (``en_ewt-ud-dev.conllu`` -> ``dev``), None if it names
    none or several."""
    words = set(re.split(r"[^a-z0-9]+", Path(name).name.lower()))
    found = [s for s in SPLIT_NAMES if s in words]
    return found[0] if len(found) == 1 else None


def find_file(relative: str, path: str | Path | None = None) -> Path | None:
    """The first existing copy of ``relative`` (e.g. ``sst2/dev.tsv``), or None.

    ``path`` may be a folder (searched for ``relative`` and its file name) or a file, which
    must be named for ``relative``'s split (see :func:`split_of`): one file is never
    returned for two splits.
    """
    if path is not None:
        p = Path(path).expanduser()
        if p.is_file():
            want, have = split_of(relative), split_of(p)
            if want is not None and have != want:
                said = f"is the {have!r} file" if have else "is a file whose name says no split"
                raise ParameterError(
                    f"path={str(path)!r} {said}; allowed: the {want!r} file (e.g. "
                    f"{Path(relative).name}) or a folder holding {relative}"
                )
            return p
        for cand in (p / relative, p / Path(relative).name):
            if cand.is_file():
                return cand
        raise FileNotFoundError(f"path={str(path)!r} holds no {relative}")
    for root in candidate_roots():
        if (root / relative).is_file():
            return root / relative
    cached = download_dir() / relative
    return cached if cached.is_file() else None


def parse_conllu(text: str) -> list[UDSentence]:
    """Parse CoNLL-U text with the ``conllu`` library, skipping multiword and empty nodes."""
    import conllu

    out = []
    for i, tl in enumerate(conllu.parse(text)):
        toks = [t for t in tl if isinstance(t["id"], int)]
        out.append(
            UDSentence(
                sent_id=str(tl.metadata.get("sent_id", i)),
                words=tuple(t["form"] for t in toks),
                upos=tuple(t["upos"] for t in toks),
                xpos=tuple(t["xpos"] or "_" for t in toks),
                heads=tuple(int(t["head"]) for t in toks),
                deprels=tuple(t["deprel"] for t in toks),
            )
        )
    return out


def load_ud_ewt(split: str = "dev", path: str | Path | None = None, limit: int | None = None) -> list[UDSentence]:
    """UD English EWT sentences of ``split`` (train | dev | test); ``path``: see :func:`find_file`."""
    check_choice("split", split, UD_SPLITS)
    if limit is not None:
        check_int("limit", limit, minimum=1)
    rel = f"ud_english_ewt/en_ewt-ud-{split}.conllu"
    f = find_file(rel, path)
    if f is None:
        f = download(UD_URL.format(split=split), download_dir() / rel)
    sents = parse_conllu(f.read_text(encoding="utf-8"))
    return sents[:limit] if limit is not None else sents


def sst2_file(split: str = "dev", path: str | Path | None = None) -> Path:
    """The local file of SST-2 ``split`` (train | dev), found (see :func:`find_file`) or downloaded.

    GLUE's test labels are private, so ``split="test"`` is refused, with or without ``path``.
    """
    if split == "test":
        raise ParameterError(
            "split='test' has no labels in GLUE SST-2 (they are private); allowed: 'train', "
            "'dev' (the sst2 task's test split is GLUE dev)"
        )
    check_choice("split", split, SST2_SPLITS)
    rel = f"sst2/{split}.tsv"
    f = find_file(rel, path)
    if f is None:
        zpath = download(SST2_URL, download_dir() / "sst2" / "SST-2.zip")
        with zipfile.ZipFile(zpath) as z:
            data = z.read(f"SST-2/{split}.tsv").decode("utf-8")
        f = download_dir() / rel
        tmp = f.with_name(f.name + ".part")
        tmp.write_text(data, encoding="utf-8")
        os.replace(tmp, f)
    return f


def load_sst2(
    split: str = "dev", path: str | Path | None = None, limit: int | None = None
) -> tuple[list[str], list[int]]:
    """GLUE SST-2 ``(texts, labels)`` for ``split`` (train | dev); ``path``: see :func:`find_file`."""
    if limit is not None:
        check_int("limit", limit, minimum=1)
    f = sst2_file(split, path)
    return parse_sst2(f.read_text(encoding="utf-8"), limit, source=str(f))


def parse_sst2(text: str, limit: int | None = None, source: str = "text") -> tuple[list[str], list[int]]:
    """``(texts, labels)`` of an SST-2 TSV file's content.

    The two files name their text column differently (``sentence`` in train,
    ``content`` in our dev copy); both are accepted.
    """
    reader = csv.DictReader(io.StringIO(text), delimiter="\t", quoting=csv.QUOTE_NONE)
    col = next((c for c in ("sentence", "content", "text") if c in (reader.fieldnames or [])), None)
    if col is None or "label" not in (reader.fieldnames or []):
        raise ParameterError(
            f"{source} has columns {reader.fieldnames}; allowed: a 'label' and a 'sentence'/'content' column"
        )
    texts, labels = [], []
    for row in reader:
        texts.append(row[col])
        labels.append(int(row["label"]))
        if limit is not None and len(texts) >= limit:
            break
    return texts, labels
