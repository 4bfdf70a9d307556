"""Checkers of the exercises of ``survey_03b_english_bert`` (§3.1 on a masked LM of English, Rogers et al. 2020):

* ``ex-s3b-margin``: Goldberg's agreement measure, the right verb form's logit minus the other number's at the
  ``[MASK]`` that replaces the verb of a natural sentence;
* ``ex-s3b-attractors``: what counts as an attractor, from a sentence's Brown tags.

Both answers are functions, run on hidden cases; the truths come from the library
(``training.english_bert.agreement_margins`` on a small random masked LM over MiniLM's tokenizer,
``data.english.agreement_items`` on hidden tagged sentences), so neither depends on the profile the notebook runs
at or needs the trained model. Models are built inside ``torch.random.fork_rng`` (``quiet_build``). Used by that
notebook's exercise cells.
"""

from __future__ import annotations

import functools
from typing import Any

from bertology_lib.book.exercises.cases import judge_function, quiet_build, within
from bertology_lib.book.exercises.checks import as_scalar, as_whole_number, checker

# --- ex-s3b-margin -----------------------------------------------------------------------------------------------

MARGIN_SENTENCES: tuple[tuple[str, str], ...] = (
    ("The thermodynamicists at the laboratory were pleased .", "were"),
    ("His unconventionality has surprised everyone .", "has"),
    ("The key to the cabinets is missing .", "is"),
    ("Oysters are cheap in Baltimore .", "are"),
    ("The Massachusetts legislators have adjourned .", "have"),
    ("A photograph of the astronauts was published yesterday .", "was"),
)
"""(sentence, its verb): words before the verb that the WordPiece tokenizer splits into several pieces, so that the
verb's token position is neither its word index nor that plus one."""


def margin_items() -> list:
    """The hidden agreement items (``data.english.AgreementItem``) of :data:`MARGIN_SENTENCES`."""
    from bertology_lib.data.english import AGREEMENT_PAIRS, AgreementItem

    out = []
    for text, form in MARGIN_SENTENCES:
        words = tuple(text.split())
        out.append(AgreementItem("hidden", words, words.index(form), form, AGREEMENT_PAIRS[form], 0, 0))
    return out


@functools.lru_cache(maxsize=1)
def margin_model():
    """``(mlm, tokenizer)``: a small random ``BertForMaskedLM`` over MiniLM's uncased WordPiece vocabulary (its
    logits far enough apart that the typical mistakes differ from the truth), and that tokenizer."""
    import torch
    from transformers import AutoTokenizer, BertConfig, BertForMaskedLM

    from bertology_lib.models.english_bert import minilm_folder

    tok = AutoTokenizer.from_pretrained(minilm_folder())

    def build():
        torch.manual_seed(31)
        cfg = BertConfig(
            vocab_size=len(tok),
            hidden_size=32,
            num_hidden_layers=2,
            num_attention_heads=2,
            intermediate_size=64,
            max_position_embeddings=64,
            initializer_range=0.5,
            attn_implementation="eager",
        )
        return BertForMaskedLM(cfg).eval()

    return quiet_build(build), tok


def margin_truth(item) -> float:
    """``agreement_margins`` of the hidden model on ``item``."""
    from bertology_lib.training.english_bert import agreement_margins

    mlm, tok = margin_model()
    mlm.eval()  # as the notebook's model: dropout off, whatever a student's function did to it
    return agreement_margins(mlm, tok, [item])[0]


def _logits_at(ids: list[int], pos: int, mask: bool):
    import torch

    mlm, tok = margin_model()
    mlm.eval()  # a student's function may have put the shared hidden model in training mode
    ids = list(ids)
    if mask:
        ids[pos] = tok.mask_token_id
    with torch.no_grad():
        return mlm(input_ids=torch.tensor([ids])).logits[0, pos]


def _margin_mistakes(item) -> dict[str, float]:
    """The answers of typical mistakes on ``item``."""
    mlm, tok = margin_model()
    enc = tok(list(item.words), is_split_into_words=True)
    ids, pos = enc["input_ids"], enc.word_ids().index(item.verb)
    right, wrong = tok.convert_tokens_to_ids(item.right), tok.convert_tokens_to_ids(item.wrong)

    def diff(logits) -> float:
        return float(logits[right] - logits[wrong])

    return {
        "unmasked": diff(_logits_at(ids, pos, mask=False)),
        "word index": diff(_logits_at(ids, item.verb, mask=True)),
        "word index + 1": diff(_logits_at(ids, item.verb + 1, mask=True)),
        "reversed": -diff(_logits_at(ids, pos, mask=True)),
    }


_MARGIN_HINTS = {
    "unmasked": "replace the verb by [MASK] first: with the verb in the input the model only has to copy it.",
    "word index": "item.verb counts words, not tokens: the tokenizer adds [CLS] in front and splits long words "
    "into pieces; find the verb's token with the encoding's word_ids().",
    "word index + 1": "+1 for [CLS] is not enough: words before the verb may be split into several pieces; find the "
    "verb's token with the encoding's word_ids().",
    "reversed": "the margin is the right form's logit minus the wrong form's: positive when the model agrees.",
}


def _read_margin(out: Any) -> float | None:
    return None if isinstance(out, bool) else as_scalar(out)


@checker("ex-s3b-margin")
def _check_s3b_margin(answer):
    """``answer``: a function ``margin(mlm, tokenizer, item)`` taking a masked LM, its tokenizer and an
    ``AgreementItem`` (``words``, ``verb``: the verb's word index, ``right``, ``wrong``: the two forms) and
    returning the logit of ``item.right`` minus that of ``item.wrong`` at the ``[MASK]`` that replaces the verb
    (``training.english_bert.agreement_margins``); run on hidden sentences and a hidden model, +-1e-4 (relative
    1e-4)."""
    items = margin_items()
    mlm, tok = margin_model()
    return judge_function(
        answer,
        "margin",
        [(it,) for it in items],
        inputs=lambda case: (mlm, tok, case[0]),
        read=_read_margin,
        refuse="margin should return a number, the difference of two logits (a positive one: the model agrees), "
        "got {kind} ({bad!r}).",
        truth=margin_truth,
        match=within(1e-4, 1e-4),
        mistakes=_margin_mistakes,
        hints=_MARGIN_HINTS,
        truth_first=True,  # the truths and mistakes before the student's function touches the hidden model
        show=lambda case: f"margin(mlm, tokenizer, item) on the hidden sentence '{' '.join(case[2].words)}'",
        ok="correct: the margin is what the notebook's agreement accuracy counts (positive: agrees), and its size "
        "says how sure the model is (log-probabilities give the same difference: the softmax's normaliser cancels).",
        not_yet="not yet: tokenise item.words with is_split_into_words=True, put tokenizer.mask_token_id at the "
        "verb's first piece (word_ids().index(item.verb)), run the model, and take the logit of item.right minus "
        "that of item.wrong at that position.",
    )


# --- ex-s3b-attractors -------------------------------------------------------------------------------------------

ATTRACTOR_SENTENCES: tuple[tuple[str, str], ...] = (
    ("The keys to the cabinet are here .", "at nns in at nn ber rb ."),
    ("The label on the bottles is torn .", "at nn in at nns bez vbn ."),
    ("The city council members of the two towns were absent .", "at nn nn nns in at cd nns bed jj ."),
    ("The price of the farmers' crops is low .", "at nn in at nns$ nns bez jj ."),
    ("The authors of the report were wrong .", "at nns in at nn bed jj ."),
    ("The statue in the park near the lakes was restored .", "at nn in at nn in at nns bedz vbn ."),
    ("The tax bills of the state legislature have passed .", "at nn nns in at nn nn hv vbn ."),
    ("The sound of the bells has stopped .", "at nn in at nns hvz vbn ."),
    ("The books are new .", "at nns ber jj ."),
)
"""(sentence, its Brown tags) of the hidden agreement items: one attractor or none, a noun of the verb's own number
between, a compound subject, a modifier noun of the other number (not an attractor: only heads count), a
possessive (a modifier too)."""


def attractor_cases() -> list[tuple[tuple[str, ...], tuple[str, ...], int, int]]:
    """``(words, tags, subject, verb)`` of the hidden items, as ``data.english.agreement_items`` finds them."""
    return [(it.words, _tags(it.words), it.subject, it.verb) for it in _attractor_items()]


def _tags(words: tuple[str, ...]) -> tuple[str, ...]:
    return next(tuple(t.split()) for s, t in ATTRACTOR_SENTENCES if tuple(s.split()) == words)


@functools.lru_cache(maxsize=1)
def _attractor_items() -> tuple:
    from bertology_lib.data.english import Document, agreement_items

    doc = Document(
        "brown",
        "hidden",
        "test",
        tuple(tuple(s.split()) for s, _ in ATTRACTOR_SENTENCES),
        tuple(tuple(t.split()) for _, t in ATTRACTOR_SENTENCES),
    )
    items = tuple(agreement_items([doc]))
    assert len(items) == len(ATTRACTOR_SENTENCES), [it.words for it in items]
    return items


def attractor_truth(words, tags, subject: int, verb: int) -> int:
    """The ``n_attractors`` that ``data.english.agreement_items`` gives the hidden item."""
    return next(it.n_attractors for it in _attractor_items() if it.words == tuple(words) and it.verb == verb)


def _attractor_mistakes(words, tags, subject: int, verb: int) -> dict[str, int]:
    """The answers of typical mistakes on one hidden item."""
    from bertology_lib.data.english import NOUNISH, base_tag

    def other(t: str) -> bool:  # a noun of the other number than the verb's (possessives counted: a mistake)
        plural_noun = base_tag(t).endswith("s")
        return plural_noun != (base_tag(tags[verb]) in ("ber", "bed", "hv"))

    nouns = [j for j in range(subject + 1, verb) if base_tag(tags[j]) in NOUNISH]
    heads = [j for j in nouns if base_tag(tags[j + 1]) not in NOUNISH]
    return {
        "all nouns": len(nouns),
        "every noun of the other number": sum(1 for j in nouns if other(tags[j])),
        "every head": len(heads),
    }


_ATTRACTOR_HINTS = {
    "all nouns": "count only the nouns whose number differs from the verb's: a noun of the verb's own number "
    "does not pull the wrong way.",
    "every noun of the other number": "count only the head of a noun phrase (its last noun): in 'the state "
    "legislature', 'state' modifies 'legislature', and a possessive ('farmers'') modifies the next noun.",
    "every head": "count only the heads whose number differs from the verb's: a noun of the verb's own number "
    "does not pull the wrong way.",
}


@checker("ex-s3b-attractors")
def _check_s3b_attractors(answer):
    """``answer``: a function ``attractors(words, tags, subject, verb)`` taking a sentence's words and Brown tags
    and the indices of its subject and verb, returning how many nouns between them are attractors: heads of a
    noun phrase (a noun not followed by another noun) whose number (``data.english.number_of``) is not the verb's,
    as ``data.english.agreement_items`` counts them; run on hidden tagged sentences, exactly."""
    return judge_function(
        answer,
        "attractors",
        attractor_cases(),
        read=lambda out: None if isinstance(out, bool) else as_whole_number(out),
        refuse="attractors should return a whole number, how many nouns pull the wrong way, got {kind} ({bad!r}).",
        truth=attractor_truth,
        mistakes=_attractor_mistakes,
        hints=_ATTRACTOR_HINTS,
        show=lambda case: f"attractors(words, tags, {case[2]}, {case[3]}) on the hidden '{' '.join(case[0])}'",
        ok="correct: an attractor is a head noun of the other number between subject and verb, the distractor "
        "Linzen et al. count; a model that tracks the subject is not moved by it.",
        not_yet="not yet: look at the words strictly between subject and verb; keep the nouns (Brown tags nn, nns, "
        "np, nps, nr, nrs, with suffixes such as -tl) not followed by another noun, and count those whose number "
        "(data.english.number_of) is the other one than the verb's.",
    )
