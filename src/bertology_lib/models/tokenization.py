"""Word-level tokenizers for the synthetic corpora, saved as ordinary HF fast tokenizers.

Used by :mod:`bertology_lib.experiments.physics.pipeline` (bioS decoders and BERTs) and by every model the library trains
from scratch. One token per word or punctuation mark, split exactly like :func:`bertology_lib.data.bios.words`
(regex ``\\w+|[^\\w\\s]``), so a word span recorded by a data generator is also a token span.

Everything lives in the Rust ``tokenizers`` object (normalizer, pre-tokenizer, post-processor and a
decoder that glues punctuation back), so ``save_pretrained`` / ``AutoTokenizer.from_pretrained`` round
trip without any custom Python class: ``decode(encode("October 2, 1996"))`` is ``"October 2, 1996"``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from tokenizers import (
    Regex,
    Tokenizer,
    decoders,
    models,
    normalizers,
    pre_tokenizers,
    processors,
)
from transformers import PreTrainedTokenizerFast

from bertology_lib.errors import ParameterError

WORD_PATTERN = r"\w+|[^\w\s]"  # same as bios.WORD_RE

KINDS: tuple[str, ...] = ("gpt", "bert")
SPECIAL_TOKENS: dict[str, dict[str, str]] = {  # HF attribute name -> token; ids follow this order
    "gpt": {"pad_token": "<pad>", "unk_token": "<unk>", "bos_token": "<bos>", "eos_token": "<eos>"},
    "bert": {
        "pad_token": "[PAD]",
        "unk_token": "[UNK]",
        "cls_token": "[CLS]",
        "sep_token": "[SEP]",
        "mask_token": "[MASK]",
    },
}

# Spacing rules of the decoder (and of :func:`detokenize`). Words are joined with single spaces, then:
_NO_SPACE_BEFORE = ",.?!:;)]}%"  # "1996 ." -> "1996."
_NO_SPACE_AFTER = "([{$"  # "( a" -> "(a"
_NO_SPACE_AROUND = "-&'/"  # "Winston - Salem" -> "Winston-Salem", "A & M" -> "A&M", "Name ' s" -> "Name's"


def _decoder() -> decoders.Decoder:
    # WordPiece(prefix="##") puts a space before every token but the first (no token here starts with
    # "##"); Fuse joins them into one string; literal Replaces then glue punctuation back.
    steps = [decoders.WordPiece(prefix="##", cleanup=False), decoders.Fuse()]
    steps += [decoders.Replace(f" {c} ", c) for c in _NO_SPACE_AROUND]
    steps += [decoders.Replace(f" {c}", c) for c in _NO_SPACE_AROUND + _NO_SPACE_BEFORE]
    steps += [decoders.Replace(f"{c} ", c) for c in _NO_SPACE_AROUND + _NO_SPACE_AFTER]
    return decoders.Sequence(steps)


_DECODER = _decoder()


def detokenize(words: Sequence[str]) -> str:
    """Rebuild text from words/punctuation: ``["October", "2", ",", "1996"]`` -> ``"October 2, 1996"``.

    The exact inverse of :func:`bertology_lib.data.bios.words` on every bioS text (names, dates, cities,
    "Texas A&M University", "Winston-Salem, NC", possessives). It is the tokenizers' own decoder, so
    ``tokenizer.decode`` gives the same string.
    """
    return _DECODER.decode(list(words)) if words else ""


def build_word_tokenizer(vocab: Iterable[str], kind: str = "gpt", lowercase: bool = False) -> PreTrainedTokenizerFast:
    """A word-level fast tokenizer over ``vocab`` (special tokens first, then ``vocab`` in order).

    kind: ``"gpt"`` (``<pad> <unk> <bos> <eos>``, no post-processing: callers add ``<eos>`` where they
    pack or end a text) or ``"bert"`` (``[PAD] [UNK] [CLS] [SEP] [MASK]`` and the BERT template
    ``[CLS] A [SEP]`` / ``[CLS] A [SEP] B [SEP]`` with token type ids). Unknown words map to the unk token.
    """
    if kind not in KINDS:
        raise ParameterError(f"kind={kind!r} is unknown; allowed: {', '.join(KINDS)}")
    specials = SPECIAL_TOKENS[kind]
    words = list(dict.fromkeys(w.lower() if lowercase else w for w in vocab))
    clash = sorted(set(words) & set(specials.values()))
    if clash:
        raise ParameterError(f"vocab contains special tokens {clash}; allowed: ordinary words only")
    token_to_id = {t: i for i, t in enumerate([*specials.values(), *words])}

    tok = Tokenizer(models.WordLevel(vocab=token_to_id, unk_token=specials["unk_token"]))
    if lowercase:
        tok.normalizer = normalizers.Lowercase()
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.WhitespaceSplit(),
            pre_tokenizers.Split(Regex(WORD_PATTERN), behavior="isolated"),
        ]
    )
    tok.decoder = _DECODER
    if kind == "bert":
        cls, sep = specials["cls_token"], specials["sep_token"]
        tok.post_processor = processors.TemplateProcessing(
            single=f"{cls} $A {sep}",
            pair=f"{cls} $A {sep} $B:1 {sep}:1",
            special_tokens=[(cls, token_to_id[cls]), (sep, token_to_id[sep])],
        )
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        clean_up_tokenization_spaces=False,  # our decoder already spaces punctuation
        model_input_names=["input_ids", "attention_mask"] + (["token_type_ids"] if kind == "bert" else []),
        **specials,
    )
    return fast


def train_wordpiece_tokenizer(texts: Iterable[str], vocab_size: int) -> PreTrainedTokenizerFast:
    """A BERT-style WordPiece tokenizer trained on ``texts`` (``tokenizers.trainers.WordPieceTrainer``).

    Words are split exactly as :func:`build_word_tokenizer` splits them (so ``word_ids`` name the same
    words), then into pieces (``##`` continuation prefix) from a vocabulary of at most ``vocab_size``
    entries including the five BERT specials; the BERT template and token type ids as in
    ``kind="bert"``. With a vocabulary smaller than the corpus's word count, rarer words take several
    pieces: what token-level vs whole-word masking needs to differ. The Rust trainer numbers the
    continuation pieces in hash order, seeded per process, so two trainings on the same texts differ in ids
    and in some pieces: for a tokenizer that is the same in every process (the lab BERTs' tokenizer) use
    :func:`bertology_lib.models.wordpiece.train_wordpiece`, which trains through this pipeline.
    """
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, int) or vocab_size < 16:
        raise ParameterError(f"vocab_size={vocab_size!r} is out of range; allowed: an int >= 16")
    from tokenizers import trainers

    specials = SPECIAL_TOKENS["bert"]
    tok = Tokenizer(models.WordPiece(unk_token=specials["unk_token"], continuing_subword_prefix="##"))
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.WhitespaceSplit(),
            pre_tokenizers.Split(Regex(WORD_PATTERN), behavior="isolated"),
        ]
    )
    trainer = trainers.WordPieceTrainer(
        vocab_size=vocab_size,
        special_tokens=list(specials.values()),
        continuing_subword_prefix="##",
        show_progress=False,
    )
    tok.train_from_iterator(list(texts), trainer)
    tok.decoder = decoders.WordPiece(prefix="##")
    cls, sep = specials["cls_token"], specials["sep_token"]
    tok.post_processor = processors.TemplateProcessing(
        single=f"{cls} $A {sep}",
        pair=f"{cls} $A {sep} $B:1 {sep}:1",
        special_tokens=[(cls, tok.token_to_id(cls)), (sep, tok.token_to_id(sep))],
    )
    return PreTrainedTokenizerFast(
        tokenizer_object=tok,
        clean_up_tokenization_spaces=True,
        model_input_names=["input_ids", "attention_mask", "token_type_ids"],
        **specials,
    )
