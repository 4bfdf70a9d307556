"""WordPiece tokenizers that come out the same in every process.

``tokenizers``' WordPiece trainer (behind :func:`bertology_lib.models.tokenization.train_wordpiece_tokenizer`)
gives the continuation pieces of single characters (``##a``, ``##b``, ...) their ids in the iteration order of
a Rust hash map, which is seeded afresh in every process, and it breaks ties between merges of equal count
by those ids. So two trainings on the same texts differ: on the quick toy corpus at 2,000 pieces the same
pieces came out under other ids (54 moved), on the smaller smoke corpus 14 to 34 pieces differed. The ids
index the embedding matrix, so every lab BERT trained on such a tokenizer differed from one process to the
next, and a cold re-run of a notebook could not repeat the run it re-ran.

:func:`train_wordpiece` fixes the order that the trainer cannot: the continuation pieces of the corpus's
characters are handed to the trainer up front, in sorted order, as extra special tokens, so every id and
every tie-break is the same in every process; afterwards they are ordinary pieces again and the ids are put
in a fixed order (:func:`sorted_vocabulary`). Segmentation is a greedy longest match against the set of
pieces, so the order of the ids changes no segmentation.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from tokenizers import Tokenizer, trainers
from transformers import PreTrainedTokenizerFast

from bertology_lib.errors import ParameterError
from bertology_lib.models.tokenization import SPECIAL_TOKENS, train_wordpiece_tokenizer

PREFIX = "##"


def _wrap(backend: Tokenizer) -> PreTrainedTokenizerFast:
    return PreTrainedTokenizerFast(
        tokenizer_object=backend,
        clean_up_tokenization_spaces=True,
        model_input_names=["input_ids", "attention_mask", "token_type_ids"],
        **SPECIAL_TOKENS["bert"],
    )


def sorted_vocabulary(tokenizer: PreTrainedTokenizerFast) -> PreTrainedTokenizerFast:
    """``tokenizer`` (WordPiece with BERT's specials) with its ids in a fixed order: BERT's five specials
    first, in :data:`~bertology_lib.models.tokenization.SPECIAL_TOKENS` order, then every other piece sorted.
    Only BERT's specials stay special tokens; pre-tokenizer, template and decoder are kept."""
    specials = list(SPECIAL_TOKENS["bert"].values())
    state = json.loads(tokenizer.backend_tokenizer.to_str())
    if state["model"]["type"] != "WordPiece":
        raise ParameterError(f"tokenizer model {state['model']['type']!r} is not allowed; allowed: 'WordPiece'")
    vocab = state["model"]["vocab"]
    if missing := [s for s in specials if s not in vocab]:
        raise ParameterError(f"tokenizer lacks the specials {missing}; allowed: a vocabulary holding {specials}")
    order = specials + sorted(set(vocab) - set(specials))
    ids = {piece: i for i, piece in enumerate(order)}
    state["model"]["vocab"] = ids
    state["added_tokens"] = [
        dict(a, id=ids[a["content"]]) for a in state.get("added_tokens") or [] if a["content"] in specials
    ]
    for spec in (state.get("post_processor") or {}).get("special_tokens", {}).values():
        spec["ids"] = [ids[t] for t in spec["tokens"]]
    return _wrap(Tokenizer.from_str(json.dumps(state)))


def train_wordpiece(texts: Iterable[str], vocab_size: int) -> PreTrainedTokenizerFast:
    """A BERT-style WordPiece tokenizer trained on ``texts``, the same pieces under the same ids in every
    process; otherwise as :func:`~bertology_lib.models.tokenization.train_wordpiece_tokenizer` (words split
    the same way, ``##`` continuations, at most ``vocab_size`` entries with the specials, BERT template)."""
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, int) or vocab_size < 16:
        raise ParameterError(f"vocab_size={vocab_size!r} is out of range; allowed: an int >= 16")
    texts = list(texts)
    backend = train_wordpiece_tokenizer([], 16).backend_tokenizer  # the pipeline, before any training
    words = (w for t in texts for w, _ in backend.pre_tokenizer.pre_tokenize_str(t))
    continuations = sorted({PREFIX + c for w in words for c in w[1:]})
    trainer = trainers.WordPieceTrainer(
        vocab_size=vocab_size,
        continuing_subword_prefix=PREFIX,
        show_progress=False,
        special_tokens=[*SPECIAL_TOKENS["bert"].values(), *continuations],
    )
    backend.train_from_iterator(texts, trainer)
    return sorted_vocabulary(_wrap(backend))
