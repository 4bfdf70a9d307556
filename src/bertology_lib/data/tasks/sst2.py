"""GLUE SST-2 in the task shape: train = ``train.tsv`` less ``n_dev`` held-out rows (our dev),
test = GLUE's labelled dev set (GLUE's test labels are private).

The files come from :func:`bertology_lib.data.real.sst2_file` (``path``, ``$BERTOLOGY_DATA``,
``../shared/data`` or a download); the task's cache key carries a hash of both files'
content, so a result cached for one copy of the data never comes back for another.
Used by the survey §5-§7 and duplication notebooks.
"""

from __future__ import annotations

import functools
import hashlib
import random
from pathlib import Path
from typing import Any

from bertology_lib.data.real import parse_sst2, sst2_file
from bertology_lib.data.tasks.configs import SST2Config, configure
from bertology_lib.data.tasks.task import SPLITS, ClassificationExample, Task
from bertology_lib.validation import check_choice, check_int

SST2_LABELS: tuple[str, ...] = ("negative", "positive")
# our splits -> the GLUE file they are drawn from
SST2_FILES: dict[str, str] = {"train": "train", "dev": "train", "test": "dev"}


@functools.lru_cache(maxsize=4)
def _read(file: str, mtime_ns: int, size: int) -> tuple[tuple[str, ...], tuple[int, ...], str]:
    """(texts, labels, sha256) of one file; keyed by its stat so an edited file is read again."""
    raw = Path(file).read_bytes()
    texts, labels = parse_sst2(raw.decode("utf-8"), source=file)
    return tuple(texts), tuple(labels), hashlib.sha256(raw).hexdigest()


def _sst2_file(glue_split: str, path: str | None) -> tuple[tuple[str, ...], tuple[int, ...], str]:
    f = sst2_file(glue_split, path)
    st = f.stat()
    return _read(str(f.resolve()), st.st_mtime_ns, st.st_size)


def sst2_data_key(path: str | None = None) -> dict[str, str]:
    """The sha256 of the GLUE train and dev files that ``path`` (or the usual search) resolves to."""
    return {f"{g}_sha256": _sst2_file(g, path)[2] for g in ("train", "dev")}


def _sst2_rows(split: str, seed: int, n_dev: int, path: str | None) -> list[tuple[str, int]]:
    texts, labels, _ = _sst2_file(SST2_FILES[split], path)
    if split == "test":
        return list(zip(texts, labels))
    order = list(range(len(texts)))
    random.Random(f"tasks:sst2:{seed}").shuffle(order)
    idx = order[:n_dev] if split == "dev" else order[n_dev:]
    return [(texts[i], labels[i]) for i in idx]


def sst2(
    split: str = "train", limit: int | None = None, *, seed: int = 0, n_dev: int = 872, path: str | Path | None = None
) -> list[ClassificationExample]:
    """GLUE SST-2 examples of ``split`` (see :class:`SST2Config` for how splits are made).

    Train and dev rows come in a seeded shuffled order, so ``limit`` takes a random subset.
    """
    check_choice("split", split, SPLITS)
    if limit is not None:
        check_int("limit", limit, minimum=1)
    rows = _sst2_rows(split, seed, n_dev, None if path is None else str(path))[:limit]
    return [ClassificationExample(f"sst2-{split}-{i}", t, y) for i, (t, y) in enumerate(rows)]


def sst2_task(config: SST2Config | None = None, **overrides: Any) -> Task:
    """SST-2 as a :class:`Task` (binary sentiment; labels :data:`SST2_LABELS`).

    ``path`` must be a folder (see :class:`SST2Config`); the key's ``data`` holds the files' hashes.
    """
    cfg = configure(SST2Config, config, overrides)

    def build() -> dict[str, list]:
        kw = dict(seed=cfg.seed, n_dev=cfg.n_dev, path=cfg.path)
        return {
            "train": sst2("train", cfg.n_train, **kw),
            "dev": sst2("dev", None, **kw),
            "test": sst2("test", cfg.n_test, **kw),
        }

    return Task(
        "sst2",
        "classification",
        SST2_LABELS,
        {**cfg.to_dict(), "task": "sst2"},
        build,
        "GLUE SST-2 sentiment (test = GLUE dev)",
        data_key=lambda: sst2_data_key(cfg.path),
    )
