"""§3.1 perturbed masking (Wu et al. 2020) on real sentences: gold UD English EWT trees read by a masked LM of English
and its random-init twin (notebook ``survey_03c_english_perturbed``).

* :class:`PerturbedSizes`: how many sentences of how many words, per profile;
* :func:`ud_sentences`: the UD dev sentences whose impact matrices are computed (file order, length-filtered);
* :func:`impact_terms`: a model's per-sentence arc-gap terms (:func:`bertology_lib.analysis.perturbed_masking.
  arc_gap_terms` of :func:`~bertology_lib.analysis.perturbed_masking.impact_matrix`), with a progress bar;
* :func:`distance_table`: the mean normalised impact of linked and unlinked pairs, by model and distance.

The toy-grammar version of the claim is in ``survey_03_1_syntax``; this module reads real English, where no
generator decides which words belong together.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import pandas as pd
import torch
from tqdm.auto import tqdm

from bertology_lib.analysis import perturbed_masking as perturbed
from bertology_lib.data.real import UDSentence, load_ud_ewt
from bertology_lib.profiles import SizeTable
from bertology_lib.validation import check_int


@dataclass(frozen=True)
class PerturbedSizes(SizeTable):
    """Sizes of the perturbed-masking notebook per profile: a sentence of n words costs n^2 forward passes, so the
    length is capped (smoke: seconds; quick: minutes on 2 cores; full: a GPU)."""

    SIZES: ClassVar[dict[str, dict[str, Any]]] = {
        "smoke": dict(n_sentences=3, max_words=8),
        "quick": dict(),
        "full": dict(n_sentences=1000, max_words=30),
    }

    n_sentences: int = 120  # UD English EWT dev sentences, the first in file order that pass the length filter
    min_words: int = 5  # shorter sentences have too few pairs at distances 1-3 to compare
    max_words: int = 16  # n^2 forward passes per sentence
    batch_size: int = 256  # masked copies of a sentence per forward pass


def ud_sentences(sizes: PerturbedSizes, path=None) -> list[UDSentence]:
    """The first ``sizes.n_sentences`` UD English EWT dev sentences with ``min_words`` to ``max_words`` words."""
    check_int("n_sentences", sizes.n_sentences, minimum=1)
    keep = [s for s in load_ud_ewt("dev", path=path) if sizes.min_words <= len(s.words) <= sizes.max_words]
    return keep[: sizes.n_sentences]


def impact_terms(
    model: torch.nn.Module, tokenizer, sentences: Sequence[UDSentence], batch_size: int = 256, desc: str = "impacts"
) -> list[list[tuple[int, float, float]]]:
    """Per sentence, ``model``'s arc-gap terms on its gold tree: (distance, mean normalised impact of linked pairs,
    of unlinked pairs) for distances 1-3 (:func:`~bertology_lib.analysis.perturbed_masking.arc_gap_terms`)."""
    model.eval()
    return [
        perturbed.arc_gap_terms(perturbed.impact_matrix(model, tokenizer, s.words, batch_size), s.heads)
        for s in tqdm(sentences, desc=desc, leave=False)
    ]


def distance_table(terms: Mapping[str, Sequence[Sequence[tuple[int, float, float]]]]) -> pd.DataFrame:
    """Mean normalised impact (1 = the sentence's mean) of linked and unlinked pairs, by model and distance, with
    their difference and the number of sentences that have both kinds of pair at that distance."""
    rows = [
        {"model": name, "distance": d, "linked": lk, "unlinked": un}
        for name, per_sentence in terms.items()
        for sent in per_sentence
        for d, lk, un in sent
    ]
    out = (
        pd.DataFrame(rows)
        .groupby(["model", "distance"])
        .agg(linked=("linked", "mean"), unlinked=("unlinked", "mean"), sentences=("linked", "size"))
    )
    return out.assign(gap=out.linked - out.unlinked)[["linked", "unlinked", "gap", "sentences"]]
