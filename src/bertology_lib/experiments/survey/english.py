"""The survey's claims on a masked language model of English (notebook ``survey_03b_english_bert``).

The steps the notebook calls, on any masked LM of English (the English lab BERT by default,
:mod:`bertology_lib.models.english_bert`), each beside its random-init twin:

* :class:`EnglishSizes`: how many held-out sentences each measurement reads, per profile;
* :func:`agreement_table`: right vs wrong verb form at the masked verb of Brown agreement items
  (:func:`bertology_lib.data.english.agreement_items`), one row per item with its number of attractors;
* :func:`brown_probe_sentences`: held-out Brown sentences with coarse tags for the POS probes.

Used by ``survey_03b_english_bert``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Sequence

import pandas as pd

from bertology_lib.data import english
from bertology_lib.profiles import SizeTable
from bertology_lib.training.english_bert import agreement_accuracy
from bertology_lib.validation import check_int


@dataclass(frozen=True)
class EnglishSizes(SizeTable):
    """Sizes of the English notebook's measurements per profile (smoke: seconds; quick: minutes on 2 cores)."""

    SIZES: ClassVar[dict[str, dict[str, Any]]] = {
        "smoke": dict(
            n_strength=60,
            n_agreement=300,
            n_probe=120,
            n_ud=60,
            n_attention=20,
            n_recon=40,
            probe_iter=30,
            min_arcs=5,
            n_coref=80,
        ),
        "quick": dict(),
        "full": dict(n_strength=5000, n_probe=6000, n_ud=2001, n_attention=400, n_recon=2000, probe_iter=300),
    }

    n_strength: int = 1500  # held-out sentences whose masked words score the model against the n-gram
    n_agreement: int = 0  # agreement items from the held-out Brown documents (0: all of them)
    n_probe: int = 2500  # held-out Brown sentences for the POS probe (60/15/25 train/validation/test)
    n_ud: int = 1600  # UD English EWT dev sentences for the POS probe, attention and geometry
    n_attention: int = 200  # of those, held-out sentences whose attention maps are read
    n_recon: int = 500  # held-out sentences read back through the MLM head from every layer (Kao et al.)
    probe_iter: int = 100  # L-BFGS iterations of the linear probes
    min_arcs: int = 20  # held-out and selection arcs a dependency relation needs to be scored (Clark's heads)
    n_coref: int = 400  # coreference items (half choose the head, half score it)

    def __post_init__(self) -> None:
        for name in ("n_strength", "n_probe", "n_ud", "n_attention", "n_recon", "probe_iter", "min_arcs", "n_coref"):
            check_int(name, getattr(self, name), minimum=1)
        check_int("n_agreement", self.n_agreement, minimum=0)


def held_out_brown(n_items: int = 0) -> tuple[list[english.AgreementItem], list[english.TaggedSentence]]:
    """The Brown test documents' agreement items (the first ``n_items``, or all with 0) and tagged sentences."""
    docs = english.load_english("brown", "test")
    items = english.agreement_items(docs)
    return (items[:n_items] if n_items else items), english.tagged_sentences(docs)


def brown_probe_sentences(n: int) -> list[english.TaggedSentence]:
    """``n`` held-out Brown sentences with coarse tags (test documents, in document order: the probes split them
    60 / 15 / 25 by sentence, so a test sentence's neighbours may train the probe but never the model)."""
    return held_out_brown()[1][:n]


def agreement_table(model, tokenizer, items: Sequence[english.AgreementItem]) -> pd.DataFrame:
    """One row per item: ``n_attractors``, ``form`` (the right form), ``correct`` (the right form scored above the
    other number's at the masked verb)."""
    right = agreement_accuracy(model, tokenizer, items)
    return pd.DataFrame(
        {
            "n_attractors": [it.n_attractors for it in items],
            "form": [it.right for it in items],
            "correct": [float(r) for r in right],
        }
    )
