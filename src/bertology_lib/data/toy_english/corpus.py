"""The corpus, its vocabulary and the per-word tagging baselines.

:func:`generate_corpus` and :func:`vocabulary` feed the mini-BERT (its training text and
word-level tokenizer); :func:`ambiguous_words` and :func:`per_word_majority_baseline` are
the reference points of the survey_03 POS probes.
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from typing import Collection, Iterable, Sequence

from bertology_lib.data.toy_english.config import ToyEnglishConfig
from bertology_lib.data.toy_english.facts import N_TEMPLATES
from bertology_lib.data.toy_english.knowledge import knowledge_base
from bertology_lib.data.toy_english.lexicon import lexicon, special_verbs
from bertology_lib.data.toy_english.sampling import Builder
from bertology_lib.data.toy_english.sentence import Sentence
from bertology_lib.data.toy_english.words import NUMERALS, SIZE_WORDS, SPECIAL_NOUNS, function_words


def generate_corpus(config: ToyEnglishConfig) -> list[Sentence]:
    """``config.n_sentences`` annotated sentences, deterministic from ``config``.

    The lexicon and the knowledge base come from ``config.seed``; the sentences are drawn with
    ``config.sample_seed`` when it is set (fresh sentences in the same words, e.g.
    :func:`bertology_lib.models.minibert.fresh_sentences`), else with ``config.seed``.

    A fraction ``p_fact`` states knowledge-base facts round-robin over the stated facts
    (so every fact is stated once the corpus has enough fact sentences), cycling
    through each relation's templates.  Used by the toy-BERT training data pipeline and
    the survey_03_* notebooks.
    """
    draw = config.seed if config.sample_seed is None else config.sample_seed  # the lexicon and facts: config.seed
    rng = random.Random(f"toy-english-corpus:{draw}")
    b = Builder(config, rng)
    facts = b.kb.stated_facts()
    order_rng = random.Random(f"toy-english-facts:{draw}")
    order_rng.shuffle(facts)
    fact_i = 0
    out: list[Sentence] = []
    while len(out) < config.n_sentences:
        if rng.random() < config.p_fact:
            f = facts[fact_i % len(facts)]
            template = (fact_i // len(facts)) % N_TEMPLATES[f.relation]
            fact_i += 1
            out.append(b.fact_sentence(f, template))
            continue
        for _ in range(30):
            s = b.rand_sentence()
            if len(s) <= config.max_len:
                break
        else:  # pragma: no cover - extremely unlikely with max_len >= 16
            continue
        out.append(s)
    return out


def vocabulary(config: ToyEnglishConfig) -> list[str]:
    """Every word form that can appear in the corpus or the suites, sorted."""
    lex = lexicon(config)
    kb = knowledge_base(config.seed)
    words = set(function_words()) | set(NUMERALS) | set(SIZE_WORDS)
    words |= {w for pair in SPECIAL_NOUNS for w in pair}
    for n in lex.nouns:
        words.update((n.sg, n.pl))
    for v in lex.verbs:
        words.update((v.base, v.s3, v.past, v.part, v.ing))
    for v in special_verbs().values():
        words.update((v.base, v.s3, v.past, v.part, v.ing))
    words |= set(lex.adjectives) | set(lex.adverbs) | set(kb.names)
    return sorted(words)


def ambiguous_words(sentences: Iterable[Sentence], min_count: int = 5, min_share: float = 0.05) -> dict[str, Counter]:
    """Words seen with >= 2 UPOS tags, the minority tags covering >= ``min_share``.

    Returns word -> Counter of tags.  Used by the POS-probing notebooks to report
    accuracy on tokens whose tag context must decide.
    """
    counts: dict[str, Counter] = defaultdict(Counter)
    for s in sentences:
        for w, t in zip(s.words, s.upos):
            counts[w][t] += 1
    out = {}
    for w, c in counts.items():
        total = sum(c.values())
        if len(c) >= 2 and total >= min_count and 1 - c.most_common(1)[0][1] / total >= min_share:
            out[w] = c
    return out


def per_word_majority_baseline(
    train: Sequence[Sentence], test: Sequence[Sentence], ambiguous: Collection[str] | None = None
) -> dict[str, float]:
    """POS tagging by each word's most frequent training tag (unknown words: overall mode).

    Returns accuracy overall, on ``ambiguous`` words (default: :func:`ambiguous_words`
    of ``train``), on the rest, plus the OOV rate and token counts.  The reference
    point for the survey_03 POS probes.
    """
    counts: dict[str, Counter] = defaultdict(Counter)
    overall: Counter = Counter()
    for s in train:
        for w, t in zip(s.words, s.upos):
            counts[w][t] += 1
            overall[t] += 1
    default = overall.most_common(1)[0][0] if overall else "NOUN"
    best = {w: c.most_common(1)[0][0] for w, c in counts.items()}
    amb = set(ambiguous) if ambiguous is not None else set(ambiguous_words(train))
    n = ok = n_amb = ok_amb = oov = 0
    for s in test:
        for w, t in zip(s.words, s.upos):
            pred = best.get(w)
            if pred is None:
                oov += 1
                pred = default
            hit = pred == t
            n += 1
            ok += hit
            if w in amb:
                n_amb += 1
                ok_amb += hit
    return {
        "accuracy": ok / n if n else float("nan"),
        "ambiguous_accuracy": ok_amb / n_amb if n_amb else float("nan"),
        "unambiguous_accuracy": (ok - ok_amb) / (n - n_amb) if n > n_amb else float("nan"),
        "oov_rate": oov / n if n else float("nan"),
        "n_tokens": float(n),
        "n_ambiguous_tokens": float(n_amb),
        "n_ambiguous_types": float(len(amb)),
    }
