"""Reading a physics model: greedy QA answers and their accuracy, memorisation of the biographies, learning
curves, and the word-aligned encoding the probes use.

* :func:`generate_answers` / :func:`qa_predictions` / :func:`evaluate_qa`: exact-match QA accuracy per
  attribute with the majority baseline (:func:`accuracy_table`, shared with the BERT comparison);
* :func:`bio_accuracy`: teacher-forced accuracy of every attribute value in training biographies (has
  the model memorised them? paper Fig. 1b) and :func:`curve_metrics` (one learning-curve point);
  :func:`memorisation`: the instrument check every extraction, probe and BERT claim declares (first-token
  accuracy of each value given its prefix, on one training biography per sampled person; a model below
  :data:`MEMORISED` did not store what the claim asks it to extract);
* :func:`encode_words`, :func:`pad_right`, :func:`token_index`: token ids aligned with
  :func:`bertology_lib.data.bios.words` (probe positions are word positions).
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Sequence
from functools import lru_cache

import numpy as np
import pandas as pd
import torch

from bertology_lib.data import bios
from bertology_lib.errors import ParameterError
from bertology_lib.validation import check_bool, check_int


def encode_words(tokenizer, texts: Sequence[str]) -> tuple[list[list[int]], list[list[int | None]]]:
    """Token ids as the model saw text in training, and the word index of every token (None: special).

    Word indices must be those of :func:`bertology_lib.data.bios.words` (spans index them); a tokenizer
    whose pre-tokenizer splits words differently (e.g. GPT-2 BPE keeps "'s" together) is refused.
    """
    texts = list(texts)
    if tokenizer.cls_token_id is not None:  # encoder: [CLS] text [SEP]
        enc = tokenizer(texts, add_special_tokens=True)
        ids, wids = enc["input_ids"], [enc.word_ids(i) for i in range(len(texts))]
    else:
        start = tokenizer.eos_token_id if tokenizer.eos_token_id is not None else tokenizer.bos_token_id
        if start is None:
            raise ParameterError("tokenizer has neither a CLS, EOS nor BOS token; allowed: a bioS word tokenizer")
        enc = tokenizer(texts, add_special_tokens=False)
        ids = [[start, *x] for x in enc["input_ids"]]
        wids = [[None, *enc.word_ids(i)] for i in range(len(texts))]
    for text, w in zip(texts, wids):
        n_words = 1 + max((x for x in w if x is not None), default=-1)
        if n_words != len(bios.words(text)):
            raise ParameterError(
                f"the tokenizer splits {text[:60]!r} into {n_words} words, bios.words into "
                f"{len(bios.words(text))}; allowed: a tokenizer that splits words like bios.words "
                "(tokenizer='word'), since probe positions are word positions"
            )
    return ids, wids


def pad_right(rows: Sequence[Sequence[int]], pad: int) -> tuple[torch.Tensor, torch.Tensor]:
    """(ids, attention mask) of token lists right-padded to the longest, so causal models see each prefix."""
    t = max(len(r) for r in rows)
    x = torch.full((len(rows), t), pad, dtype=torch.long)
    mask = torch.zeros((len(rows), t), dtype=torch.long)
    for i, r in enumerate(rows):
        x[i, : len(r)] = torch.tensor(r)
        mask[i, : len(r)] = 1
    return x, mask


def token_index(word_ids: Sequence[int | None], word: int, where: str) -> int:
    toks = [t for t, w in enumerate(word_ids) if w == word]
    if not toks:
        raise ParameterError(f"word {word} has no token (text shorter than its spans?)")
    return toks[-1] if where == "last" else toks[0] - 1


def _sample(people: Sequence[int], k: int, seed: int, stream: int) -> list[int]:
    rng = np.random.default_rng([seed, stream])
    return sorted(rng.permutation(np.asarray(people))[:k].tolist()) if len(people) else []


@torch.no_grad()
def bio_accuracy(
    model,
    tokenizer,
    entries: Sequence[bios.BioEntry],
    batch_size: int = 64,
    first_token: bool = False,
    after_name: bool = False,
) -> float:
    """Share of (biography, attribute) pairs whose whole value the model predicts token by token.

    Teacher-forced: every value token must be the argmax next token after the true prefix (``<eos>``
    in front, as in packed pretraining). This is the "BIO accuracy" of paper Fig. 1b: has the model
    memorised the training biographies? ``first_token``: only the value's first token must be right
    (what :func:`memorisation` reports). ``after_name``: only values that follow the person's first name
    mention (a value a template puts before the name, "On October 2, 1996, Anya ... was born", cannot be
    recalled: nothing before it says whose it is).
    """
    check_bool("first_token", first_token)
    check_bool("after_name", after_name)
    if not entries:
        raise ParameterError("entries is empty; allowed: at least one biography")
    ids, word_ids = encode_words(tokenizer, [e.text for e in entries])
    device = next(model.parameters()).device
    was_training = model.training
    model.eval()
    hits = []
    for s in range(0, len(ids), batch_size):
        rows = ids[s : s + batch_size]
        x, mask = pad_right(rows, tokenizer.pad_token_id or 0)
        pred = model(input_ids=x.to(device), attention_mask=mask.to(device)).logits.argmax(-1).cpu()
        for i, e in enumerate(entries[s : s + batch_size]):
            w = word_ids[s + i]
            named = False
            for lab, ws, we in e.spans:
                if lab == "name":
                    named = True
                    continue
                if after_name and not named:
                    continue
                toks = [k for k, wid in enumerate(w) if wid is not None and ws <= wid < we]
                toks = toks[:1] if first_token else toks
                hits.append(all(int(pred[i, k - 1]) == rows[i][k] for k in toks))
    model.train(was_training)
    return float(np.mean(hits))


MEMORISED = 0.95  # first-token accuracy on training biographies below which a model did not memorise


def training_bios(
    dataset: bios.BioDataset, people: Sequence[int] | None = None, n_people: int = 128, seed: int = 0
) -> list[bios.BioEntry]:
    """One training biography (the first in dataset order) of each of ``people``, default a seeded sample of
    ``n_people`` of everyone (every person's biographies are pretraining data)."""
    check_int("n_people", n_people, minimum=1)
    chosen = list(people) if people is not None else _sample(range(len(dataset.people)), n_people, seed, 31)
    first: dict[int, bios.BioEntry] = {}
    wanted = set(chosen)
    for e in dataset.bios:
        if e.person in wanted and e.person not in first:
            first[e.person] = e
    missing = sorted(wanted - first.keys())
    if missing:
        raise ParameterError(f"people {missing[:5]} have no biography in the dataset; allowed: people of the dataset")
    return [first[p] for p in chosen]


def memorisation(
    model, tokenizer, dataset: bios.BioDataset, people: Sequence[int] | None = None, n_people: int = 128, seed: int = 0
) -> float:
    """Has the model stored its training biographies? First-token accuracy of every attribute value given
    its true prefix, after the person's name, (:func:`bio_accuracy` with ``first_token=True``) on one biography of each of ``people``
    (default: a seeded sample of ``n_people``). A claim that reads knowledge out of a model declares
    ``memorised`` (this value >= :data:`MEMORISED`) as its instrument check: a model that did not store the
    facts can neither extract them nor fail to. Values a template puts before the person's name are left out
    (``after_name``): no model can recall them."""
    return bio_accuracy(
        model, tokenizer, training_bios(dataset, people, n_people, seed), first_token=True, after_name=True
    )


def curve_metrics(model, tokenizer, dataset: bios.BioDataset, n_people: int = 64, seed: int = 0) -> dict:
    """One learning-curve point: ``bio`` (:func:`bio_accuracy` on one biography of each of ``n_people``
    people), ``qa_train`` and ``qa_test`` (mean exact-match QA accuracy on ``n_people`` people of each
    split); the people are a fixed seeded sample, the same at every point."""
    people = _sample(range(len(dataset.people)), n_people, seed, 21)
    first: dict[int, bios.BioEntry] = {}
    wanted = set(people)
    for e in dataset.bios:
        if e.person in wanted and e.person not in first:
            first[e.person] = e
    out = {"bio": bio_accuracy(model, tokenizer, [first[p] for p in people])}
    for split, stream in (("train", 22), ("test", 23)):
        chosen = _sample(dataset.split_people(split), n_people, seed, stream)
        out[f"qa_{split}"] = _qa_mean(model, tokenizer, dataset, chosen) if chosen else math.nan
    return out


def _qa_mean(model, tokenizer, dataset: bios.BioDataset, people: Sequence[int]) -> float:
    pairs = [bios.QAPair(i, a, *dataset.qa(i, a)) for i in people for a in bios.ATTRIBUTES]
    preds = generate_answers(
        model, tokenizer, [p.question for p in pairs], max_new_tokens=_max_answer_tokens(tokenizer)
    )
    return float(np.mean([bios.exact_match(pr, p.answer) for pr, p in zip(preds, pairs)]))


def _cache_argument(model) -> str:
    """The KV-cache keyword of the model's forward: ``cache`` (transformers >= 5.2x) or ``past_key_values``."""
    base = model.get_base_model() if hasattr(model, "get_base_model") else model
    return "cache" if "cache" in inspect.signature(type(base).forward).parameters else "past_key_values"


@lru_cache(maxsize=1)
def _longest_answer() -> int:
    """Most words any bioS answer can have (dates have 4: "October 2 , 1996")."""
    return max(
        4, *(len(bios.words(v)) for pool in (bios.CITIES, bios.UNIVERSITIES, bios.MAJORS, bios.COMPANIES) for v in pool)
    )


def _max_answer_tokens(tokenizer) -> int:
    """Tokens the longest bioS answer (plus its full stop) takes: words for the word-level tokenizer,
    more for subword tokenizers (measured on every pool value and the longest dates)."""
    backend = getattr(tokenizer, "backend_tokenizer", None)
    if backend is not None and type(backend.model).__name__ == "WordLevel":
        return _longest_answer() + 2
    key = (tokenizer.name_or_path, len(tokenizer))
    if key not in _ANSWER_TOKENS:
        values = [v for pool in (bios.CITIES, bios.UNIVERSITIES, bios.MAJORS, bios.COMPANIES) for v in pool]
        values += [f"{m} 28, 2099" for m in bios.MONTHS]
        _ANSWER_TOKENS[key] = 2 + max(len(tokenizer(f" {v}.", add_special_tokens=False)["input_ids"]) for v in values)
    return _ANSWER_TOKENS[key]


_ANSWER_TOKENS: dict = {}


@torch.no_grad()
def generate_answers(
    model,
    tokenizer,
    prompts: Sequence[str],
    max_new_tokens: int = 16,
    batch_size: int = 256,
    stop: Sequence[str] = (".",),
) -> list[str]:
    """Greedy completions of ``prompts``, cut at EOS or a ``stop`` token (not included), decoded.

    Prompts are grouped by token length, so batches need no padding (all bioS questions of one
    attribute have the same length); each batch decodes with the KV cache until every row stopped.
    """
    device = next(model.parameters()).device
    cache_arg = _cache_argument(model)
    was_training = model.training
    model.eval()
    ids = tokenizer(list(prompts), add_special_tokens=False)["input_ids"]
    stop_list = [tokenizer.eos_token_id, *tokenizer.convert_tokens_to_ids(list(stop))]
    stop_ids, stop_set = torch.tensor(stop_list, device=device), set(stop_list)
    by_len: dict[int, list[int]] = {}
    for i, x in enumerate(ids):
        by_len.setdefault(len(x), []).append(i)
    out: list[str] = [""] * len(ids)
    for rows_all in by_len.values():
        for s in range(0, len(rows_all), batch_size):
            rows = rows_all[s : s + batch_size]
            x = torch.tensor([ids[i] for i in rows], device=device)  # (B, T)
            gen = torch.empty((len(rows), 0), dtype=torch.long, device=device)
            done = torch.zeros(len(rows), dtype=torch.bool, device=device)
            res = model(input_ids=x, use_cache=True, logits_to_keep=1)
            for _ in range(max_new_tokens):
                nxt = res.logits[:, -1].argmax(-1)  # (B,)
                gen = torch.cat([gen, nxt[:, None]], dim=1)
                done |= torch.isin(nxt, stop_ids)
                if bool(done.all()):
                    break
                past = res["cache"] if "cache" in res else res["past_key_values"]
                res = model(input_ids=nxt[:, None], use_cache=True, logits_to_keep=1, **{cache_arg: past})
            for r, g in zip(rows, gen.tolist()):
                cut = next((k for k, t in enumerate(g) if t in stop_set), len(g))
                out[r] = tokenizer.decode(g[:cut], skip_special_tokens=True)
    model.train(was_training)
    return out


def qa_predictions(
    model,
    tokenizer,
    dataset: bios.BioDataset,
    split: str = "test",
    val_fraction: float = 0.1,
    attributes: Sequence[str] = bios.ATTRIBUTES,
    batch_size: int = 256,
) -> pd.DataFrame:
    """One row per QA pair of ``split``: person, attribute, answer, prediction, correct (exact match)."""
    pairs = dataset.qa_pairs(split, val_fraction, attributes)
    if not pairs:
        raise ParameterError(f"split={split!r} has no people in this dataset; allowed: a non-empty split")
    preds = generate_answers(
        model,
        tokenizer,
        [p.question for p in pairs],
        max_new_tokens=_max_answer_tokens(tokenizer),
        batch_size=batch_size,
    )
    return pd.DataFrame(
        {
            "person": [p.person for p in pairs],
            "attribute": [p.attribute for p in pairs],
            "answer": [p.answer for p in pairs],
            "prediction": preds,
            "correct": [bios.exact_match(pr, p.answer) for pr, p in zip(preds, pairs)],
        }
    )


def evaluate_qa(
    model,
    tokenizer,
    dataset: bios.BioDataset,
    split: str = "test",
    val_fraction: float = 0.1,
    attributes: Sequence[str] = bios.ATTRIBUTES,
    batch_size: int = 256,
) -> pd.DataFrame:
    """Exact-match QA accuracy per attribute on ``split`` people ('test', 'train', 'val', 'fit', 'all').

    Returns a DataFrame indexed by attribute plus ``mean`` and ``mean_without_birth_date`` rows, with
    columns ``accuracy``, ``majority`` (accuracy of always answering the most common QA-train answer)
    and ``n`` (questions). The paper reports means without birth date too, since a date has three parts.
    """
    preds = qa_predictions(model, tokenizer, dataset, split, val_fraction, attributes, batch_size)
    return accuracy_table(preds, dataset, attributes)


def accuracy_table(
    preds: pd.DataFrame, dataset: bios.BioDataset, attributes: Sequence[str] = bios.ATTRIBUTES
) -> pd.DataFrame:
    """Per-attribute exact-match accuracy of QA predictions (rows: person, attribute, answer, correct), with
    the majority baseline (the most common QA-train answer) and ``mean`` / ``mean_without_birth_date`` rows."""
    preds = preds.copy()
    train_people = [dataset.people[i] for i in dataset.qa_train]
    guess = {a: ans for a, (ans, _) in bios.majority_baseline(train_people, attributes).items()}
    preds["majority"] = [ans == guess[a] for a, ans in zip(preds["attribute"], preds["answer"])]
    table = preds.groupby("attribute", sort=False).agg(
        accuracy=("correct", "mean"), majority=("majority", "mean"), n=("correct", "size")
    )
    table = table.reindex([a for a in attributes if a in table.index])
    no_date = table.drop(index="birth_date", errors="ignore")
    table.loc["mean"] = [table["accuracy"].mean(), table["majority"].mean(), table["n"].sum()]
    table.loc["mean_without_birth_date"] = [no_date["accuracy"].mean(), no_date["majority"].mean(), no_date["n"].sum()]
    table["n"] = table["n"].astype(int)
    table.index.name = "attribute"
    return table
