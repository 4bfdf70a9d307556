"""Settings of the toy-English generator and the tag sets its annotations use.

Used by every other module of :mod:`bertology_lib.data.toy_english`, by the toy tasks
(:mod:`bertology_lib.data.tasks`) and by the mini-BERT's corpus config.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from bertology_lib.cache import config_key
from bertology_lib.validation import check_float, check_int, check_seed

MASK = "[MASK]"
UPOS_TAGS = (
    "DET",
    "NOUN",
    "VERB",
    "AUX",
    "ADJ",
    "ADP",
    "PRON",
    "PROPN",
    "NUM",
    "CCONJ",
    "SCONJ",
    "ADV",
    "PART",
    "PUNCT",
)
DEPRELS = (
    "root",
    "nsubj",
    "nsubj:pass",
    "obj",
    "iobj",
    "det",
    "amod",
    "nummod",
    "case",
    "nmod",
    "obl",
    "obl:agent",
    "acl:relcl",
    "mark",
    "cc",
    "conj",
    "advmod",
    "advcl",
    "ccomp",
    "aux",
    "aux:pass",
    "cop",
    "punct",
)
NEGATION_DEPREL = "advmod"
LICENSORS = ("not", "never", "no")
NPIS = ("any", "ever", "yet")
PPIS = ("some", "already")
SUITES = (
    "agreement",
    "npi",
    "role_reversal",
    "selectional",
    "numbers",
    "entity_swap",
    "knowledge",
    "inference",
)
PROBABILITIES = ("p_plural", "p_negation", "p_pp", "p_relative", "p_coordination", "p_subordinate", "p_fact")
# p_pp and p_relative compound with depth; above 0.6 noun phrases grow without bound
_MAX_PROBABILITY = {"p_pp": 0.6, "p_relative": 0.6}


@dataclass(frozen=True)
class ToyEnglishConfig:
    """Settings of the toy-English generator; :meth:`key` is what cache keys hold of a corpus.

    ``vocab_size`` counts content lemmas (nouns, verbs, adjectives, adverbs); each
    noun has 2 forms and each verb 4, so :func:`vocabulary` is about twice as large.
    Probabilities are per opportunity (per clause / per noun phrase).
    Used by :func:`generate_corpus`, :func:`bertology_lib.data.suites.make_suite` and the
    survey_03_* notebooks.
    """

    n_sentences: int
    seed: int = 0
    vocab_size: int = 3000
    max_len: int = 40
    zipf_exponent: float = 1.0
    ambiguous_fraction: float = 0.12
    p_plural: float = 0.4
    p_negation: float = 0.15
    p_pp: float = 0.22
    p_relative: float = 0.18
    p_coordination: float = 0.1
    p_subordinate: float = 0.12
    p_fact: float = 0.08
    sample_seed: int | None = None  # seeds only the sentence draws (None: ``seed``); lexicon and facts stay ``seed``'s

    def __post_init__(self) -> None:
        # validate only: the stored values stay as given, so key() is the config as written
        check_int("n_sentences", self.n_sentences, 0, 100_000_000)
        check_seed(self.seed)
        if self.sample_seed is not None:
            check_seed(self.sample_seed, "sample_seed")
        check_int("vocab_size", self.vocab_size, 500, 200_000)
        check_int("max_len", self.max_len, 16, 1000)
        check_float("zipf_exponent", self.zipf_exponent, 0.0, 3.0, open_min=True)
        check_float("ambiguous_fraction", self.ambiguous_fraction, 0.0, 0.5)
        for name in PROBABILITIES:
            check_float(name, getattr(self, name), 0.0, _MAX_PROBABILITY.get(name, 1.0))

    def to_dict(self) -> dict[str, Any]:
        """Plain dict of all settings (stable key order)."""
        return dataclasses.asdict(self)

    def key(self) -> dict[str, Any]:
        """What a cache key holds of a corpus: every setting, whatever its value."""
        return config_key(self)
