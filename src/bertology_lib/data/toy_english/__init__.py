"""Toy English: a probabilistic grammar whose every sentence carries gold annotations.

The survey's findings are about pretrained BERT; the lab's answer is a controlled
world.  This package generates an English-like corpus (lower-cased words, capitalised
names) with gold UPOS tags, dependency trees (CoNLL-U style 1-based heads, 0 = root),
tree depth, BIO chunks (NP/VP/PP), semantic roles, grammatical number and per-sentence
metadata (agreement controllers and attractors, negation, NPIs, stated facts).  A small
world knowledge base (who lives where, capitals, occupations, pets, sizes of things) is
stated in varied templates, so cloze probes can test stated facts and held-out
inferences.  Evaluation suites live in :mod:`bertology_lib.data.suites`
(:func:`~bertology_lib.data.suites.make_suite`; their names are :data:`SUITES`).

Used by the survey_03_* notebooks (syntax, semantics, world knowledge), the toy tasks
and the toy-BERT training code.

Modules (lowest first; each imports only the ones above it):

* ``config``: :class:`ToyEnglishConfig` and the tag sets (:data:`UPOS_TAGS`,
  :data:`DEPRELS`, :data:`LICENSORS`, :data:`NPIS`, :data:`PPIS`, :data:`SUITES`, :data:`MASK`).
* ``sentence``: :class:`Sentence` (an annotated sentence) and :class:`ClozeItem` (a masked minimal pair).
* ``words``: the word lists (noun classes, real nouns and verbs, closed-class words, sizes,
  occupations, pets, syllables) and regular inflection.
* ``lexicon``: :class:`Noun`, :class:`Verb`, :class:`Lexicon` and :func:`lexicon` (seeded, cached).
* ``knowledge``: :class:`Fact`, :class:`KnowledgeBase` and :func:`knowledge_base`.
* ``grammar``: :class:`Token`, :class:`Chunk`, :class:`Phrase` and :class:`Grammar`, the
  deterministic primitives (noun phrases, PPs, coordination, relative clauses, clauses,
  :meth:`~Grammar.finalize`).
* ``facts``: :class:`FactGrammar`, facts said in templates (:data:`N_TEMPLATES`).
* ``sampling``: :class:`Builder`, the full generator with the random samplers.
* ``corpus``: :func:`generate_corpus`, :func:`vocabulary` and the POS baselines.
* ``transforms``: the insensitivity transforms and :func:`apply_transform`.

Conventions (documented once, relied on everywhere):

* Negation: "not" is ``PART`` with deprel ``advmod`` (UD v2 style, no ``neg`` label);
  "never" is ``ADV``/``advmod``.  Licensors of NPIs are :data:`LICENSORS`: "not" and
  "never" in the same clause, or "no" as determiner of that clause's subject.
* NPIs (:data:`NPIS`: any, ever, yet) occur in the corpus only in licensed clauses;
  positive-polarity items (:data:`PPIS`: some, already) never occur in the scope of a
  licensor ("some" may still head a subject of a negated clause, which is out of scope).
* ``depth``: 0 for the root word, ``depth[head] + 1`` otherwise.
* ``roles``: "agent" on the head of the subject of an active lexical verb (and of the
  passive by-phrase), "patient" on the head of an object (and of a passive subject);
  "none" elsewhere.  Relative pronouns carry the role of their gap.
* Chunks are CoNLL-2000-like base chunks: NP = det/num/adj/noun (or a pronoun/name),
  VP = auxiliaries + "not" + pre-verbal adverbs + verb (or the copula), PP = preposition.
* Trees are projective (every constituent is contiguous).
* Metadata indices (``meta``) are 0-based word positions; ``heads`` are 1-based.
* Sizes in the knowledge base are ordinal (a strict total order); the corpus states only
  some pairwise comparisons.

Everything is deterministic from the seed; only private ``random.Random`` instances are
used (global RNG state is never touched).
"""

from __future__ import annotations

from bertology_lib.data.toy_english.config import (
    DEPRELS,
    LICENSORS,
    MASK,
    NEGATION_DEPREL,
    NPIS,
    PPIS,
    SUITES,
    UPOS_TAGS,
    ToyEnglishConfig,
)
from bertology_lib.data.toy_english.corpus import (
    ambiguous_words,
    generate_corpus,
    per_word_majority_baseline,
    vocabulary,
)
from bertology_lib.data.toy_english.facts import N_TEMPLATES, FactGrammar
from bertology_lib.data.toy_english.grammar import Chunk, Grammar, Phrase, Token, attractors, force_det
from bertology_lib.data.toy_english.knowledge import Fact, KnowledgeBase, knowledge_base
from bertology_lib.data.toy_english.lexicon import Lexicon, Noun, Verb, lexicon, special_verbs, verb_form_number
from bertology_lib.data.toy_english.sampling import Builder
from bertology_lib.data.toy_english.sentence import ClozeItem, Sentence
from bertology_lib.data.toy_english.transforms import (
    TRANSFORMS,
    apply_transform,
    remove_object,
    remove_subject,
    shuffle_words,
    truncate,
)
from bertology_lib.data.toy_english.words import (
    ANIMATE,
    CLASSES,
    DETS_FREE,
    DETS_PL,
    DETS_SG,
    HUMAN,
    NUMERAL_VALUE,
    NUMERALS,
    OCCUPATIONS,
    PET_ANIMALS,
    SIZE_ORDER,
)


__all__ = [
    # config and tag sets
    "MASK",
    "UPOS_TAGS",
    "DEPRELS",
    "NEGATION_DEPREL",
    "LICENSORS",
    "NPIS",
    "PPIS",
    "SUITES",
    "ToyEnglishConfig",
    # sentences and items
    "Sentence",
    "ClozeItem",
    # words, lexicon, knowledge base
    "CLASSES",
    "ANIMATE",
    "HUMAN",
    "NUMERALS",
    "NUMERAL_VALUE",
    "DETS_SG",
    "DETS_PL",
    "DETS_FREE",
    "SIZE_ORDER",
    "OCCUPATIONS",
    "PET_ANIMALS",
    "Noun",
    "Verb",
    "Lexicon",
    "lexicon",
    "special_verbs",
    "verb_form_number",
    "Fact",
    "KnowledgeBase",
    "knowledge_base",
    # grammar
    "Token",
    "Chunk",
    "Phrase",
    "Grammar",
    "FactGrammar",
    "Builder",
    "N_TEMPLATES",
    "force_det",
    "attractors",
    # corpus, baselines, transforms
    "generate_corpus",
    "vocabulary",
    "per_word_majority_baseline",
    "ambiguous_words",
    "TRANSFORMS",
    "shuffle_words",
    "truncate",
    "remove_subject",
    "remove_object",
    "apply_transform",
]
