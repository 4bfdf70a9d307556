"""How strong is a masked LM? Its held-out masked-word predictions beside simple references counted on
the same training text.

A masked-word accuracy of 0.37 means little on its own: in toy English most content words are drawn at
random from a Zipf lexicon, so no model can name them, while function words are nearly free. This module
scores the model and its references on the *same* masked positions (the masking of
:func:`bertology_lib.training.pretrain.masked_accuracy` with the same arguments):

* :class:`NGramMLM` -- a two-sided n-gram reference: the word seen most often between the visible left and
  right neighbours in training, backing off to one side, then to the most frequent word;
* the unigram reference (always the most frequent training word);
* the model itself, and any other model (e.g. its random-init twin).

:func:`masked_predictions` gives one row per masked word with each predictor's guess; :func:`strength_table`
scores them: exact word, and *word class* (does the guess have the gold word's part of speech? over gold
words with one part of speech in training), the part a model can know even where the word itself is a
coin flip. Used by the survey §3.1 notebook's strength table of the lab BERT.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence

import numpy as np
import pandas as pd
import torch

from bertology_lib.errors import ParameterError
from bertology_lib.training.masking import MLMBatches
from bertology_lib.training.objectives import IGNORE_INDEX

Predictor = Callable[[dict], torch.Tensor]  # a batch -> (B, T) predicted token ids


def _argmax(counter: Counter) -> int:
    return max(counter, key=lambda t: (counter[t], -t))


class NGramMLM:
    """Two-sided n-gram reference for masked-word prediction, counted on ``train_texts`` (tokenised with the
    special tokens, so sentence starts and ends are context too).

    A masked word is predicted as the word seen most often between its left and right neighbours in
    training; when that pair never occurred, or a neighbour is itself masked, as the word seen most often
    after the left neighbour or before the right one (the side whose context occurred more often), else as
    the most frequent word. Special tokens are never predicted. Call it on a batch of :class:`MLMBatches`.
    """

    def __init__(self, train_texts: Sequence[str], tokenizer) -> None:
        if not train_texts:
            raise ParameterError("train_texts is empty; allowed: a list of training sentences")
        self.mask_id = tokenizer.mask_token_id
        special = set(tokenizer.all_special_ids)
        both: dict[tuple[int, int], Counter] = defaultdict(Counter)
        left: dict[int, Counter] = defaultdict(Counter)
        right: dict[int, Counter] = defaultdict(Counter)
        uni: Counter = Counter()
        for ids in tokenizer(list(train_texts), add_special_tokens=True)["input_ids"]:
            for i in range(1, len(ids) - 1):
                w = ids[i]
                if w in special:
                    continue
                uni[w] += 1
                left[ids[i - 1]][w] += 1
                right[ids[i + 1]][w] += 1
                both[(ids[i - 1], ids[i + 1])][w] += 1
        if not uni:
            raise ParameterError(
                "train_texts has no word outside the special tokens; allowed: sentences in the tokenizer's vocabulary"
            )
        self.top = _argmax(uni)
        self.both = {k: _argmax(c) for k, c in both.items()}
        self.left = {k: (_argmax(c), sum(c.values())) for k, c in left.items()}
        self.right = {k: (_argmax(c), sum(c.values())) for k, c in right.items()}

    def predict(self, ids: Sequence[int], i: int) -> int:
        """The guess for position ``i`` of one (masked) token sequence."""
        lt = ids[i - 1] if i > 0 and ids[i - 1] != self.mask_id else None
        rt = ids[i + 1] if i + 1 < len(ids) and ids[i + 1] != self.mask_id else None
        if lt is not None and rt is not None and (lt, rt) in self.both:
            return self.both[(lt, rt)]
        sides = [s for s in (self.left.get(lt), self.right.get(rt)) if s is not None]
        return max(sides, key=lambda s: s[1])[0] if sides else self.top

    def __call__(self, batch: dict) -> torch.Tensor:
        ids, sel = batch["input_ids"], batch["labels"] != IGNORE_INDEX
        out = torch.zeros_like(ids)
        for b, i in sel.nonzero().tolist():
            out[b, i] = self.predict(ids[b].tolist(), i)
        return out


def unigram_predictor(reference: NGramMLM) -> Predictor:
    """Always the most frequent training word (:func:`bertology_lib.training.pretrain.unigram_accuracy`'s guess),
    taken from the counts of an :class:`NGramMLM` already built on the training texts."""
    return lambda batch: torch.full_like(batch["input_ids"], reference.top)


def model_predictor(model: torch.nn.Module) -> Predictor:
    """The masked LM's argmax token at every position."""
    model.eval()
    dev = next(model.parameters()).device

    @torch.no_grad()
    def run(batch: dict) -> torch.Tensor:
        logits = model(input_ids=batch["input_ids"].to(dev), attention_mask=batch["attention_mask"].to(dev)).logits
        return logits.argmax(-1).cpu()

    return run


def masked_predictions(
    predictors: Mapping[str, Predictor],
    tokenizer,
    texts: Sequence[str],
    seed: int = 1234,
    batch_size: int = 128,
    bucket: int = 50,
    seq_len: int = 64,
    mask_prob: float = 0.15,
) -> pd.DataFrame:
    """One row per masked word of ``texts`` (whole-word masking, every picked word ``[MASK]``, as
    :func:`~bertology_lib.training.pretrain.masked_accuracy` with the same arguments): ``text`` (index), ``gold``
    token and one column of guessed token ids per predictor."""
    if not predictors:
        raise ParameterError("predictors is empty; allowed: a mapping of names to predictors")
    if not texts:
        raise ParameterError("texts is empty; allowed: at least one sentence")
    batches = MLMBatches(
        list(texts),
        tokenizer,
        batch_size=batch_size,
        seq_len=seq_len,
        mask_prob=mask_prob,
        whole_word=True,
        seed=seed,
        bucket=bucket,
        corruption="mask-only",
    )
    cols: dict[str, list] = {"text": [], "gold": [], **{name: [] for name in predictors}}
    for rows, b in batches.with_rows():
        sel = b["labels"] != IGNORE_INDEX
        where = sel.nonzero()
        cols["text"] += [rows[k] for k in where[:, 0].tolist()]
        cols["gold"] += b["labels"][sel].tolist()
        for name, f in predictors.items():
            cols[name] += f(b)[sel].tolist()
    return pd.DataFrame(cols)


def word_classes(sentences: Iterable, tokenizer) -> dict[int, frozenset[str]]:
    """Token id -> the parts of speech its word has in ``sentences`` (objects with ``words`` and ``upos``;
    words the tokenizer splits or does not know are left out)."""
    seen: dict[int, set[str]] = defaultdict(set)
    unk = tokenizer.unk_token_id
    for s in sentences:
        for w, pos in zip(s.words, s.upos):
            ids = tokenizer(w, add_special_tokens=False)["input_ids"]
            if len(ids) == 1 and ids[0] != unk:
                seen[ids[0]].add(pos)
    return {t: frozenset(p) for t, p in seen.items()}


def strength_table(preds: pd.DataFrame, classes: Mapping[int, frozenset[str]] | None = None) -> pd.DataFrame:
    """Per predictor column of :func:`masked_predictions`: ``word`` (exact masked-word accuracy) and, with
    ``classes`` (:func:`word_classes` of the training sentences), ``word_class``: over gold words with one
    part of speech in training, the share of guesses that can have it (the guess's classes include it)."""
    names = [c for c in preds.columns if c not in ("text", "gold")]
    if not names:
        raise ParameterError(f"preds has columns {list(preds.columns)}; allowed: masked_predictions output")
    rows = []
    if classes is not None:
        gold_cls = preds["gold"].map(lambda t: classes.get(t, frozenset()))
        unamb = gold_cls.map(len) == 1
    for name in names:
        row = {"predictor": name, "word": float((preds[name] == preds["gold"]).mean()), "masked": len(preds)}
        if classes is not None:
            ok = [next(iter(g)) in classes.get(p, frozenset()) for g, p in zip(gold_cls[unamb], preds.loc[unamb, name])]
            row["word_class"] = float(np.mean(ok)) if ok else float("nan")
            row["class_items"] = int(unamb.sum())
        rows.append(row)
    return pd.DataFrame(rows).set_index("predictor")


def hits(preds: pd.DataFrame, name: str) -> np.ndarray:
    """0/1 per masked word: did predictor ``name`` guess the gold token (for paired intervals with
    :func:`bertology_lib.stats.paired_gap`, grouped by ``preds["text"]``)."""
    if name not in preds.columns or name in ("text", "gold"):
        raise ParameterError(
            f"name={name!r} is not a predictor column; allowed: "
            f"{', '.join(c for c in preds.columns if c not in ('text', 'gold'))}"
        )
    return (preds[name] == preds["gold"]).to_numpy(dtype=float)
