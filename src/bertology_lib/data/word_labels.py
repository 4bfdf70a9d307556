"""Gold word-level labels for probing, from toy-English or UD sentences.

Both :class:`bertology_lib.data.toy_english.Sentence` and
:class:`bertology_lib.data.real.UDSentence` have ``words``, ``upos``,
``heads`` (1-based, 0 = root) and ``deprels``; :func:`word_table` turns a list
of either into one row per word with the probing targets, aligned with the
rows of :func:`bertology_lib.analysis.activations.run_with_cache` (same sentence order,
one row per word).

Targets (context-dependent ones preferred, as the calibration advised):
``upos``, ``deprel``, ``depth`` (capped), ``head_distance`` (signed, capped),
``role`` (toy only), ``chunk`` (toy only).

Used by the survey §3 and §4 notebooks.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from bertology_lib.errors import ParameterError

DEPTH_CAP = 6
DIST_CAP = 5


def _depths(heads: Sequence[int]) -> list[int]:
    out = []
    for i in range(len(heads)):
        d, h = 0, heads[i]
        while h != 0:
            d, h = d + 1, heads[h - 1]
            if d > len(heads):
                raise ParameterError(
                    f"heads={tuple(heads)!r} contain a cycle; allowed: a tree (every word reaches the root)"
                )
        out.append(d)
    return out


def word_table(sentences: Sequence, lowercase: bool = False) -> pd.DataFrame:
    """One row per word: sentence index, position, word and every gold target available (sentences without a
    tree, such as :class:`bertology_lib.data.english.TaggedSentence`, give the tag targets only)."""
    rows = []
    for s_i, s in enumerate(sentences):
        heads = getattr(s, "heads", None)
        depth = (getattr(s, "depth", None) or _depths(heads)) if heads is not None else None
        for i, w in enumerate(s.words):
            row = {"sentence": s_i, "position": i, "word": w.lower() if lowercase else w, "upos": s.upos[i]}
            if heads is not None:
                h = heads[i]
                dist = 0 if h == 0 else (h - 1) - i
                row.update(
                    deprel=s.deprels[i].split(":")[0],
                    depth=min(depth[i], DEPTH_CAP),
                    head_distance="root" if h == 0 else int(np.clip(dist, -DIST_CAP, DIST_CAP)),
                )
            for name in ("roles", "chunks"):
                vals = getattr(s, name, None)
                if vals is not None:
                    row[name[:-1]] = vals[i]
            rows.append(row)
    df = pd.DataFrame(rows)
    if "head_distance" in df:
        df["head_distance"] = df["head_distance"].astype(str)
    return df


def ambiguous_mask(
    table: pd.DataFrame, train_rows: Sequence[int], target: str = "upos", min_count: int = 5, min_share: float = 0.05
) -> np.ndarray:
    """Rows whose word takes ≥ 2 values of ``target`` in the training rows (each ≥ min_share)."""
    tr = table.iloc[list(train_rows)]
    counts = tr.groupby(["word", target]).size().unstack(fill_value=0)
    total = counts.sum(1)
    share = counts.div(total, axis=0)
    amb = set(counts.index[(total >= min_count) & ((share >= min_share).sum(1) >= 2)])
    return table["word"].isin(amb).to_numpy()


def sentence_split(table: pd.DataFrame, n_train_sentences: int) -> tuple[np.ndarray, np.ndarray]:
    """Row indices of the first ``n_train_sentences`` sentences, and of the rest (held-out sentences)."""
    is_train = (table["sentence"] < n_train_sentences).to_numpy()
    return np.flatnonzero(is_train), np.flatnonzero(~is_train)
