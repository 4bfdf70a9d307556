"""The masked-LM objective: BERT masking (whole word, token or span units; 80/10/10 or [MASK]-only),
batches of single texts or of sentence pairs with a next-sentence label, and the training views that
score only the masked positions.

Used by the one MLM pre-training pipeline (:mod:`bertology_lib.training.pretrain`) and by held-out MLM
accuracy (:func:`bertology_lib.training.pretrain.masked_accuracy`).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from types import SimpleNamespace

import torch

from bertology_lib.errors import ParameterError
from bertology_lib.training.loop import generator
from bertology_lib.training.objectives import IGNORE_INDEX, GeneratorState
from bertology_lib.validation import check_choice

CORRUPTIONS: tuple[str, ...] = ("80/10/10", "mask-only")
UNITS: tuple[str, ...] = ("word", "token", "span")


def mask_tokens(
    input_ids: torch.Tensor,
    *,
    mask_id: int,
    candidate_ids: torch.Tensor,
    word_ids: torch.Tensor | None = None,
    special_mask: torch.Tensor | None = None,
    mask_prob: float = 0.15,
    generator: torch.Generator | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """BERT masking: pick words with probability ``mask_prob`` (whole-word: every token of a picked word),
    then per picked token 80% -> ``mask_id``, 10% -> random id from ``candidate_ids``, 10% unchanged.

    ``word_ids`` (B, T): word index per token, -1 for special/padding tokens (default: every token not in
    ``special_mask`` is its own word). Returns (masked input_ids, labels with -100 where not picked).
    """
    if not 0.0 < mask_prob < 1.0:
        raise ParameterError(f"mask_prob={mask_prob!r} is out of range; allowed: 0 < mask_prob < 1")
    b, t = input_ids.shape
    if word_ids is None:
        special = special_mask if special_mask is not None else torch.zeros_like(input_ids, dtype=torch.bool)
        word_ids = torch.where(special.bool(), -1, torch.arange(t).expand(b, t))
    valid = word_ids >= 0
    n_words = int(word_ids.max().item()) + 1 if valid.any() else 1
    picked_word = torch.rand((b, n_words), generator=generator) < mask_prob  # (B, n_words)
    picked = valid & picked_word.gather(1, word_ids.clamp(min=0))  # (B, T)
    r = torch.rand((b, t), generator=generator)
    out = input_ids.clone()
    out[picked & (r < 0.8)] = mask_id
    rand_pos = picked & (r >= 0.8) & (r < 0.9)
    n_rand = int(rand_pos.sum())
    if n_rand:
        out[rand_pos] = candidate_ids[torch.randint(len(candidate_ids), (n_rand,), generator=generator)]
    labels = torch.where(picked, input_ids, torch.full_like(input_ids, IGNORE_INDEX))
    return out, labels


def span_groups(
    word_ids: torch.Tensor, p: float, max_len: int = 10, generator: torch.Generator | None = None
) -> torch.Tensor:
    """Span masking units (SpanBERT, Joshi et al. 2020): each row's words cut into consecutive spans.

    ``word_ids`` (B, T): word index per token (0..n-1 per row, -1 for special/padding). Span lengths are
    drawn from Geometric(``p``) and a longer draw is clamped to ``max_len`` (mean (1 - (1 - p)^max_len) / p:
    4.46 words at p = 0.2, max_len = 10, before a sentence end cuts the last span). SpanBERT (Joshi et al.
    2020) uses the same p and limit but resamples long draws (the truncated distribution, mean 3.8 words), so
    our spans are longer on average; the returned (B, T) tensor gives each token its span's index. Fed to :func:`mask_tokens` as ``word_ids``,
    every span is picked with ``mask_prob``, so the expected share of masked words stays ``mask_prob``
    while masked words come in contiguous runs.
    """
    if not 0.0 < p < 1.0:
        raise ParameterError(f"p={p!r} is out of range; allowed: 0 < p < 1")
    if isinstance(max_len, bool) or not isinstance(max_len, int) or max_len < 1:
        raise ParameterError(f"max_len={max_len!r} is out of range; allowed: an int >= 1")
    out = torch.full_like(word_ids, -1)
    log_q = math.log(1.0 - p)
    for r in range(word_ids.shape[0]):
        w = word_ids[r]
        valid = w >= 0
        if not valid.any():
            continue
        n = int(w[valid].max()) + 1
        u = torch.rand(n, generator=generator).clamp_min(1e-12)  # at most n spans are needed
        lens = (torch.floor(torch.log(u) / log_q) + 1).clamp(max=max_len).long()
        span_of_word = torch.repeat_interleave(torch.arange(n), lens)[:n]
        out[r, valid] = span_of_word[w[valid]]
    return out


class MLMBatches(GeneratorState):
    """Masked-LM batches over texts (one example each, truncated to ``seq_len``), masked afresh per epoch.

    Needs a tokenizer with a mask token (``build_word_tokenizer(kind="bert")`` or a WordPiece BERT);
    ``whole_word`` uses the fast tokenizer's ``word_ids`` so that all pieces of a word are masked together;
    ``span_p > 0`` masks contiguous spans of whole words instead (:func:`span_groups`); ``corruption``
    ``mask-only`` turns every picked token into [MASK] (after the 80/10/10 draw, so the picks are the same).
    """

    def __init__(
        self,
        texts: Sequence[str],
        tokenizer,
        batch_size: int,
        seq_len: int = 128,
        mask_prob: float = 0.15,
        whole_word: bool = True,
        seed: int = 0,
        bucket: int = 0,
        span_p: float = 0.0,
        span_max: int = 10,
        corruption: str = "80/10/10",
    ) -> None:
        if not 0.0 <= span_p < 1.0:
            raise ParameterError(f"span_p={span_p!r} is out of range; allowed: 0 (no spans) <= span_p < 1")
        check_choice("corruption", corruption, CORRUPTIONS)
        self.span_p, self.span_max, self.corruption = span_p, span_max, corruption
        if tokenizer.mask_token_id is None:
            raise ParameterError("tokenizer has no mask token; allowed: a BERT-style tokenizer (kind='bert')")
        enc = tokenizer(list(texts), truncation=True, max_length=seq_len)
        self.ids = enc["input_ids"]
        special = set(tokenizer.all_special_ids)
        self.word_ids = []
        for i, ids in enumerate(self.ids):
            w = enc.word_ids(i) if whole_word else list(range(len(ids)))
            self.word_ids.append([-1 if (wi is None or tok in special) else wi for wi, tok in zip(w, ids)])
        self.candidates = torch.tensor([i for i in range(len(tokenizer)) if i not in special])
        self.tokenizer, self.batch_size, self.mask_prob = tokenizer, batch_size, mask_prob
        self.bucket = bucket  # >0: sort each run of `bucket` batches by length (less padding)
        self._g = generator(seed)

    def __len__(self) -> int:
        return math.ceil(len(self.ids) / self.batch_size)

    def _batches(self) -> list[list[int]]:
        order = torch.randperm(len(self.ids), generator=self._g).tolist()
        bs = self.batch_size
        if self.bucket <= 0:
            return [order[i : i + bs] for i in range(0, len(order), bs)]
        # Length bucketing: sort within chunks of `bucket` batches, then shuffle the batches, so a
        # batch holds sentences of similar length (little padding) and epochs still differ.
        chunk = self.bucket * bs
        batches = []
        for i in range(0, len(order), chunk):
            part = sorted(order[i : i + chunk], key=lambda j: len(self.ids[j]))
            batches += [part[k : k + bs] for k in range(0, len(part), bs)]
        perm = torch.randperm(len(batches), generator=self._g).tolist()
        return [batches[b] for b in perm]

    def __iter__(self) -> Iterator[dict[str, torch.Tensor]]:
        for _, batch in self.with_rows():
            yield batch

    def with_rows(self) -> Iterator[tuple[list[int], dict[str, torch.Tensor]]]:
        """The batches of one epoch with the indices of their texts: ``(rows, batch)``, row ``k`` of the batch
        being text ``rows[k]`` (the same draws as iterating; e.g. to score held-out sentences one by one)."""
        pad = self.tokenizer.pad_token_id
        for rows in self._batches():
            t = max(len(self.ids[j]) for j in rows)
            ids = torch.full((len(rows), t), pad, dtype=torch.long)
            words = torch.full((len(rows), t), -1, dtype=torch.long)
            mask = torch.zeros((len(rows), t), dtype=torch.long)
            for k, j in enumerate(rows):
                n = len(self.ids[j])
                ids[k, :n] = torch.tensor(self.ids[j])
                words[k, :n] = torch.tensor(self.word_ids[j])
                mask[k, :n] = 1
            if self.span_p:
                words = span_groups(words, self.span_p, self.span_max, self._g)
            masked, labels = mask_tokens(
                ids,
                mask_id=self.tokenizer.mask_token_id,
                candidate_ids=self.candidates,
                word_ids=words,
                mask_prob=self.mask_prob,
                generator=self._g,
            )
            if self.corruption == "mask-only":
                masked[labels != IGNORE_INDEX] = self.tokenizer.mask_token_id
            yield rows, {"input_ids": masked, "attention_mask": mask, "labels": labels}


def topic_partners(sentences: Sequence) -> list[list[int]]:
    """For each sentence, the other sentences that share a noun lemma with it (its possible "next" ones).

    ``sentences`` have ``lemmas`` and ``upos`` (toy-English :class:`~bertology_lib.data.toy_english.Sentence`).
    The toy corpus is a bag of independent sentences, so there is no true next sentence; sharing a
    noun is the topical coherence that Lan et al. (2020) argue is most of what NSP teaches.
    """
    by_lemma: dict[str, list[int]] = {}
    nouns = []
    for i, s in enumerate(sentences):
        ls = sorted({lem for lem, u in zip(s.lemmas, s.upos) if u in ("NOUN", "PROPN")})
        nouns.append(ls)
        for lem in ls:
            by_lemma.setdefault(lem, []).append(i)
    out = []
    for i, ls in enumerate(nouns):
        cand = sorted({j for lem in ls for j in by_lemma[lem][:200]} - {i})  # capped per lemma: frequent nouns
        out.append(cand)
    return out


class PairBatches(GeneratorState):
    """Masked-LM batches of sentence pairs with a next-sentence label (Devlin et al. 2019's NSP).

    Each row is ``[CLS] A [SEP] B [SEP]``: half the time B is one of A's ``partners`` (label 0, "is
    next"), otherwise B is a random sentence (label 1). Words of both segments are masked as in
    :class:`MLMBatches`: ``unit`` ``token`` | ``word`` | ``span`` (geometric, ``span_p``), ``corruption``.
    """

    def __init__(
        self,
        texts: Sequence[str],
        partners: Sequence[Sequence[int]],
        tok,
        batch_size: int,
        seed: int = 0,
        seq_len: int = 64,
        mask_prob: float = 0.15,
        unit: str = "word",
        corruption: str = "80/10/10",
        span_p: float = 0.2,
        span_max: int = 10,
    ) -> None:
        if len(texts) != len(partners):
            raise ParameterError(f"{len(texts)} texts but {len(partners)} partner lists; allowed: one per text")
        check_choice("unit", unit, UNITS)
        check_choice("corruption", corruption, CORRUPTIONS)
        self.texts, self.partners, self.tok, self.seq_len = list(texts), partners, tok, seq_len
        self.batch_size, self.mask_prob, self.unit, self.corruption = batch_size, mask_prob, unit, corruption
        self.span_p, self.span_max = span_p, span_max
        self.has_partner = [i for i, p in enumerate(partners) if p]
        self.special = set(tok.all_special_ids)
        self.candidates = torch.tensor([i for i in range(len(tok)) if i not in self.special])
        self._g = generator(seed)

    def __len__(self) -> int:
        return math.ceil(len(self.has_partner) / self.batch_size)

    def _second(self, rows: list[int], is_rand: list[bool]) -> list[int]:
        second, n = [], len(self.texts)
        for i, r in zip(rows, is_rand):
            p = self.partners[i]
            second.append(
                int(torch.randint(n, (1,), generator=self._g))
                if r
                else p[int(torch.randint(len(p), (1,), generator=self._g))]
            )
        return second

    def _units(self, enc, ids: torch.Tensor) -> torch.Tensor:
        """Masking unit of every token (-1: special): word index across both segments, or the token."""
        words = torch.full_like(ids, -1)
        for b in range(ids.shape[0]):
            w, seq = enc.word_ids(b), enc.sequence_ids(b)
            n_a = 1 + max((wi for wi, sq in zip(w, seq) if sq == 0 and wi is not None), default=-1)
            for t, (wi, sq) in enumerate(zip(w, seq)):
                if wi is not None and int(ids[b, t]) not in self.special:
                    unit = wi + (n_a if sq == 1 else 0)
                    words[b, t] = unit if self.unit != "token" else t
        return words

    def __iter__(self) -> Iterator[dict[str, torch.Tensor]]:
        bs = self.batch_size
        order = torch.randperm(len(self.has_partner), generator=self._g).tolist()
        for k in range(0, len(order), bs):
            rows = [self.has_partner[j] for j in order[k : k + bs]]
            is_rand = (torch.rand(len(rows), generator=self._g) < 0.5).tolist()
            second = self._second(rows, is_rand)
            enc = self.tok(
                [self.texts[i] for i in rows],
                [self.texts[j] for j in second],
                truncation=True,
                max_length=self.seq_len,
                padding=True,
                return_tensors="pt",
            )
            ids = enc["input_ids"]
            words = self._units(enc, ids)
            if self.unit == "span":
                words = span_groups(words, self.span_p, self.span_max, self._g)
            masked, labels = mask_tokens(
                ids,
                mask_id=self.tok.mask_token_id,
                candidate_ids=self.candidates,
                word_ids=words,
                mask_prob=self.mask_prob,
                generator=self._g,
            )
            if self.corruption == "mask-only":
                masked[labels != IGNORE_INDEX] = self.tok.mask_token_id
            yield {
                "input_ids": masked,
                "attention_mask": enc["attention_mask"],
                "token_type_ids": enc["token_type_ids"],
                "labels": labels,
                "next_sentence_label": torch.tensor(is_rand, dtype=torch.long),
            }


class MaskedOnlyMLM(torch.nn.Module):
    """Training view of a ``BertForMaskedLM`` that computes vocabulary logits only at masked positions.

    Same loss as the HF forward (mean cross-entropy over positions with a label), but the (tokens x
    vocab) output matrix is only formed for the ~15% of positions that are scored: with a 6.6k-word
    vocabulary and d_model 128 that is about half of the training compute saved. ``model`` is the
    wrapped ``BertForMaskedLM``.
    """

    def __init__(self, model) -> None:
        super().__init__()
        self.model = model

    def forward(self, input_ids, attention_mask=None, labels=None, token_type_ids=None):
        hidden = self.model.bert(
            input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
        ).last_hidden_state  # (B, T, d)
        sel = labels != IGNORE_INDEX
        logits = self.model.cls(hidden[sel])  # (n_masked, vocab)
        loss = torch.nn.functional.cross_entropy(logits, labels[sel])
        return SimpleNamespace(loss=loss, logits=logits)


class MaskedOnlyPretraining(torch.nn.Module):
    """Training view of a ``BertForPreTraining``: masked-only MLM loss plus the next-sentence loss.

    Keeps the next-sentence accuracy of the last 100 training batches in ``nsp_log``.
    """

    def __init__(self, model) -> None:
        super().__init__()
        self.model = model
        self.nsp_log: list[float] = []

    def forward(self, input_ids, attention_mask=None, token_type_ids=None, labels=None, next_sentence_label=None):
        out = self.model.bert(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids)
        sel = labels != IGNORE_INDEX
        logits = self.model.cls.predictions(out.last_hidden_state[sel])
        nsp = self.model.cls.seq_relationship(out.pooler_output)
        loss = torch.nn.functional.cross_entropy(logits, labels[sel]) + torch.nn.functional.cross_entropy(
            nsp, next_sentence_label
        )
        self.nsp_log = (self.nsp_log + [float((nsp.argmax(-1) == next_sentence_label).float().mean())])[-100:]
        return SimpleNamespace(loss=loss, logits=logits)
