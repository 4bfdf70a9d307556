"""The BERT comparison of Physics of Language Models 3.1 (paper §7): what a masked LM trained on the same
biographies can extract.

A ``BertForMaskedLM`` of the decoder's width and depth (:func:`~bertology_lib.models.decoder.matching_bert_config`),
pretrained on the biographies through the one MLM pipeline (:func:`bertology_lib.training.pretrain.pretrain_mlm`:
whole-word masking, word-level BERT tokenizer), fine-tuned to fill an answer's ``[MASK]`` tokens after a
question (:func:`bert_finetune_qa`), and Q-probed (:func:`bert_extraction`); per-attribute accuracy beside
the decoder's. Used by ``notebooks/physics_06_bert.ipynb``.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd
import torch

from bertology_lib.analysis.probing import ProbeConfig
from bertology_lib.cache import ArtifactCache, ArtifactKind
from bertology_lib.data import bios
from bertology_lib.errors import ParameterError
from bertology_lib.experiments.physics.config import PhysicsConfig, vocab_id
from bertology_lib.experiments.physics.evaluation import accuracy_table, encode_words, training_bios
from bertology_lib.experiments.physics.probing import best_layer_rows, q_probe
from bertology_lib.experiments.physics.training import fit_qa, run_device, save_run, weights_id
from bertology_lib.models.decoder import MAX_CONTEXT, matching_bert_config, matching_bert_spec
from bertology_lib.models.registry import quiet_hf
from bertology_lib.models.tokenization import build_word_tokenizer
from bertology_lib.training.loop import TrainConfig, generator, train
from bertology_lib.training.masking import MaskedOnlyMLM
from bertology_lib.training.objectives import IGNORE_INDEX, GeneratorState, QABatches, check_shares, pad_batch
from bertology_lib.training.pretrain import MLMObjective, mlm_batches, pretrain_mlm
from bertology_lib.validation import check_choice, check_fraction

# 2: keys hold the BERT's dimensions (not the decoder size's name), its tokenizer and objective (2026-12-05)
PRETRAIN_KIND = ArtifactKind("physics-bert-pretrain", 2)
MIXED_KIND = ArtifactKind("physics-bert-mixed", 1)
# 3: answers fill a fixed number of mask slots and end with [SEP]: no answer-length hint (2026-12-05)
FINETUNE_KIND = ArtifactKind("physics-bert-finetune", 3)

PAPER_MASK_PROB = 0.15  # the paper's (and BERT's) share of masked words
RECIPES: tuple[str, ...] = ("paper", "profile")
DATE_COMPONENTS = {"month": 0, "day": 1, "year": 3}  # word positions in a birth date ("August 11, 1976")


def recipe_config(cfg: PhysicsConfig, recipe: str = "profile") -> PhysicsConfig:
    """The BERT settings of an arm of the comparison: ``paper`` (the paper's protocol: whole-word masking of
    :data:`PAPER_MASK_PROB` of the words for the decoder's pretraining steps) or ``profile`` (the profile's
    ``bert_steps`` and ``bert_mask_prob``; at ``quick`` the stronger recipe that stores the biographies, a
    labelled second arm)."""
    check_choice("recipe", recipe, RECIPES)
    if recipe == "paper":
        return cfg.replace(bert_steps=cfg.pretrain_steps, bert_mask_prob=PAPER_MASK_PROB)
    return cfg


def answer_slots() -> int:
    """Mask slots after a question: one more than the longest answer of any pool (in words, each one BERT token),
    so every answer ends with at least one ``[SEP]`` and the number of masks says nothing about the answer."""
    values = [*bios.CITIES, *bios.UNIVERSITIES, *bios.MAJORS, *bios.COMPANIES, *bios.COMPANY_CITY.values()]
    return 1 + max(4, max(len(bios.words(v)) for v in values))  # a birth date has four words


def bert_tokenizer():
    """The word-level BERT tokenizer (``[CLS] [SEP] [MASK]``...) over the whole bioS vocabulary."""
    return build_word_tokenizer(bios.vocabulary(), kind="bert")


def _bert_train_config(cfg: PhysicsConfig, lr: float | None) -> TrainConfig:
    return TrainConfig(
        lr=cfg.lr if lr is None else lr,
        embedding_lr=cfg.embedding_lr,
        weight_decay=cfg.weight_decay,
        warmup_steps=cfg.warmup_steps,
        max_steps=cfg.bert_steps,
        batch_size=cfg.batch_size,
        seq_len=cfg.seq_len,
        schedule="cosine",
        seed=cfg.seed,
        device=cfg.device,
        dtype=cfg.dtype,
    )


def bert_objective(mask_prob: float) -> MLMObjective:
    """The BERT's masked-LM objective: whole words, one biography per row (up to the context), buckets of 20."""
    return MLMObjective(mask_prob=mask_prob, unit="word", seq_len=MAX_CONTEXT, bucket=20)


def bert_rows(dataset: bios.BioDataset, tokenizer, cfg: PhysicsConfig) -> int:
    """Biographies per MLM batch: as many tokens per step as the decoder's ``batch_size x seq_len`` windows."""
    lengths = [len(x) for x in tokenizer(dataset.texts(), add_special_tokens=True)["input_ids"]]
    return max(1, int(round(cfg.batch_size * cfg.seq_len / float(np.mean(lengths)))))


def bert_pretrain_key(cfg: PhysicsConfig, lr: float | None = None, mask_prob: float | None = None) -> dict:
    """The cache key of :func:`bert_pretrain` (kind :data:`PRETRAIN_KIND`): the biographies, the BERT's
    architecture by its dimensions (:func:`~bertology_lib.models.decoder.matching_bert_spec`, not the size's
    name), its tokenizer's vocabulary, the training settings and the masked-LM objective."""
    mask_prob = cfg.bert_mask_prob if mask_prob is None else mask_prob
    return {
        "bio": cfg.bio_config().key(),
        "bert": matching_bert_spec(cfg.model_size),
        "tokenizer": vocab_id(bert_tokenizer()),
        "train": _bert_train_config(cfg, lr).key(),
        "objective": bert_objective(mask_prob).key(),
    }


def bert_pretrain(
    cfg: PhysicsConfig,
    cache: ArtifactCache | None = None,
    progress: bool = False,
    lr: float | None = None,
    mask_prob: float | None = None,
) -> Path:
    """Pretrain a ``BertForMaskedLM`` on the biographies of ``cfg.dataset()``; returns the cached folder.

    Whole-word masking (:class:`bertology_lib.training.loop.MLMBatches`), one biography per row (length-bucketed),
    as many tokens per step as the decoder's pretraining, the same schedule and seed, ``cfg.bert_steps`` steps
    masking ``cfg.bert_mask_prob`` of the words; ``lr`` overrides ``cfg.lr`` (post-LN BERTs may want a lower one)
    and ``mask_prob`` overrides ``cfg.bert_mask_prob``. The folder is a plain HF model folder
    with the tokenizer, ``physics_config.json`` and ``train_log.json``; load it with :func:`load_bert`.
    """
    mask_prob = cfg.bert_mask_prob if mask_prob is None else mask_prob
    check_fraction("mask_prob", mask_prob)
    cache = cache or ArtifactCache()
    tc = _bert_train_config(cfg, lr)

    def build(folder: Path) -> None:
        from transformers import BertForMaskedLM

        ds, tok = cfg.dataset(), bert_tokenizer()
        torch.manual_seed(cfg.seed)
        model = BertForMaskedLM(matching_bert_config(cfg.model_size, len(tok)))
        rows = bert_rows(ds, tok, cfg)
        batches = mlm_batches(ds.texts(), tok, bert_objective(mask_prob), rows, seed=cfg.seed)
        res = pretrain_mlm(model, batches, tc, progress=progress, desc="bert-pretrain")
        log = {
            **res.to_dict(),
            "rows_per_batch": rows,
            "epochs": res.steps * rows / len(ds.bios),
            "n_params": sum(p.numel() for p in model.parameters()),
            "mask_prob": mask_prob,
        }
        save_run(folder, model.cpu(), tok, cfg, log)

    return cache.get_or_create(PRETRAIN_KIND, bert_pretrain_key(cfg, lr, mask_prob), build)


def load_bert(path: str | Path, device: str = "cpu"):
    """(model, tokenizer) from a folder written by :func:`bert_pretrain` / :func:`bert_finetune_qa`."""
    from transformers import AutoTokenizer, BertForMaskedLM

    with quiet_hf():
        model = BertForMaskedLM.from_pretrained(str(path)).to(device).eval()
    return model, AutoTokenizer.from_pretrained(str(path))


@torch.no_grad()
def bert_memorisation(
    model, tokenizer, dataset: bios.BioDataset, people=None, n_people: int = 128, seed: int = 0, batch_size: int = 128
) -> float:
    """The BERT's counterpart of :func:`~bertology_lib.experiments.physics.evaluation.memorisation`: in one
    training biography of each sampled person, every attribute value in turn is masked whole (all its
    tokens, as whole-word masking trains) and the value's first token must be the argmax at its first mask.
    A BERT below :data:`~bertology_lib.experiments.physics.evaluation.MEMORISED` did not store the facts."""
    entries = training_bios(dataset, people, n_people, seed)
    ids, word_ids = encode_words(tokenizer, [e.text for e in entries])
    rows, targets = [], []
    for e, x, w in zip(entries, ids, word_ids):
        for lab, ws, we in e.spans:
            if lab == "name":
                continue
            toks = [k for k, wid in enumerate(w) if wid is not None and ws <= wid < we]
            masked = list(x)
            for k in toks:
                masked[k] = tokenizer.mask_token_id
            rows.append(masked)
            targets.append((toks[0], x[toks[0]]))
    device = next(model.parameters()).device
    was_training = model.training
    model.eval()
    hits = []
    for s in range(0, len(rows), batch_size):
        batch = pad_batch([(r, [IGNORE_INDEX] * len(r)) for r in rows[s : s + batch_size]], tokenizer.pad_token_id)
        pred = (
            model(input_ids=batch["input_ids"].to(device), attention_mask=batch["attention_mask"].to(device))
            .logits.argmax(-1)
            .cpu()
        )
        hits += [int(pred[i, k]) == t for i, (k, t) in enumerate(targets[s : s + batch_size])]
    model.train(was_training)
    return float(np.mean(hits))


def bert_qa_example(tokenizer, question: str, answer: str, slots: int | None = None) -> tuple[list[int], list[int]]:
    """``[CLS] question [MASK] x slots [SEP]`` and labels: the answer's tokens at the first masks, ``[SEP]`` at the
    rest (-100 elsewhere). ``slots`` (default :func:`answer_slots`) is the same for every question, so the model
    must decide where its answer stops, as the decoder must; raises for an answer that does not fit."""
    slots = answer_slots() if slots is None else slots
    q = tokenizer(question, add_special_tokens=False)["input_ids"]
    a = tokenizer(answer, add_special_tokens=False)["input_ids"]
    if len(a) >= slots:
        raise ParameterError(f"answer {answer!r} has {len(a)} tokens; allowed: fewer than slots={slots}")
    ids = [tokenizer.cls_token_id, *q, *[tokenizer.mask_token_id] * slots, tokenizer.sep_token_id]
    labels = [IGNORE_INDEX] * (1 + len(q)) + a + [tokenizer.sep_token_id] * (slots - len(a)) + [IGNORE_INDEX]
    return ids, labels


def read_answer(slot_ids: Sequence[int], sep_id: int) -> list[int]:
    """The answer in the predicted slot tokens: everything before the first ``[SEP]``."""
    out = []
    for t in slot_ids:
        if t == sep_id:
            break
        out.append(int(t))
    return out


@torch.no_grad()
def bert_qa_predictions(
    model, tokenizer, dataset: bios.BioDataset, split: str = "test", val_fraction: float = 0.1, batch_size: int = 256
) -> pd.DataFrame:
    """One row per QA pair of ``split``: person, attribute, answer, prediction (the argmax of every slot, read up to
    the first ``[SEP]``), correct (the prediction is the answer, no more and no less), and for birth dates one
    column per date component (:data:`DATE_COMPONENTS`: month, day, year; the slot of that word predicted right)."""
    pairs = dataset.qa_pairs(split, val_fraction)
    if not pairs:
        raise ParameterError(f"split={split!r} has no people in this dataset; allowed: a non-empty split")
    examples = [bert_qa_example(tokenizer, p.question, p.answer) for p in pairs]
    device = next(model.parameters()).device
    was_training = model.training
    model.eval()
    preds: list[str] = []
    correct: list[bool] = []
    parts: dict[str, list[float]] = {c: [] for c in DATE_COMPONENTS}
    for s in range(0, len(examples), batch_size):
        batch = pad_batch(examples[s : s + batch_size], tokenizer.pad_token_id)
        logits = (
            model(input_ids=batch["input_ids"].to(device), attention_mask=batch["attention_mask"].to(device))
            .logits.argmax(-1)
            .cpu()
        )  # (B, T)
        for k, (row, lab) in enumerate(zip(logits, batch["labels"])):
            sel = lab != IGNORE_INDEX
            got, want = row[sel].tolist(), lab[sel].tolist()
            answer = read_answer(got, tokenizer.sep_token_id)
            preds.append(tokenizer.decode(answer, skip_special_tokens=True))
            correct.append(answer == read_answer(want, tokenizer.sep_token_id))
            date = pairs[s + k].attribute == "birth_date"
            for c, pos in DATE_COMPONENTS.items():
                parts[c].append(float(got[pos] == want[pos]) if date else math.nan)
    model.train(was_training)
    return pd.DataFrame(
        {
            "person": [p.person for p in pairs],
            "attribute": [p.attribute for p in pairs],
            "answer": [p.answer for p in pairs],
            "prediction": preds,
            "correct": correct,
            **{f"date_{c}": v for c, v in parts.items()},
        }
    )


def date_components(preds: pd.DataFrame) -> pd.Series:
    """Accuracy of each birth-date component (``birth_date (month)``, ``(day)``, ``(year)``) in
    :func:`bert_qa_predictions`' rows, and their mean (``birth_date (components)``): the date scored per component
    as the paper's per-attribute table does, beside its exact match."""
    dates = preds[preds["attribute"] == "birth_date"]
    out = {f"birth_date ({c})": float(dates[f"date_{c}"].mean()) for c in DATE_COMPONENTS}
    out["birth_date (components)"] = float(np.mean(list(out.values())))
    return pd.Series(out, name="qa_accuracy")


def bert_evaluate_qa(
    model, tokenizer, dataset: bios.BioDataset, split: str = "test", val_fraction: float = 0.1, batch_size: int = 256
) -> pd.DataFrame:
    """Per-attribute accuracy of :func:`bert_qa_predictions`, in the format of :func:`bertology_lib.experiments.physics.pipeline.evaluate_qa`."""
    preds = bert_qa_predictions(model, tokenizer, dataset, split, val_fraction, batch_size)
    return accuracy_table(preds, dataset)


def bert_finetune_qa(
    pretrained_path: str | Path, cfg: PhysicsConfig, cache: ArtifactCache | None = None, progress: bool = False
) -> Path:
    """Fine-tune a pretrained BERT to fill the answer's masks after a question (QA-train people only).

    Full fine-tuning with the ``finetune_*`` settings of ``cfg``; the saved weights are those with the best
    exact-match accuracy on the validation people (``cfg.val_fraction`` of QA-train), as for the decoder.
    """
    cache = cache or ArtifactCache()
    pretrained_path = Path(pretrained_path)
    tc = cfg.finetune_train_config(False)
    key = {
        "pretrained": weights_id(pretrained_path),
        "bio": cfg.bio_config().key(),
        "val_fraction": cfg.val_fraction,
        "train": tc.key(),
    }

    def build(folder: Path) -> None:
        ds = cfg.dataset()
        model, tok = load_bert(pretrained_path)
        examples = [bert_qa_example(tok, p.question, p.answer) for p in ds.qa_pairs("fit", cfg.val_fraction)]
        view = MaskedOnlyMLM(model)
        log = fit_qa(
            view,
            examples,
            tok,
            cfg,
            tc,
            lambda m: bert_evaluate_qa(m.model, tok, ds, "val", val_fraction=cfg.val_fraction),
            progress,
            "bert-finetune",
        )
        save_run(folder, model.cpu(), tok, cfg, {**log, "pretrained": str(pretrained_path)})

    return cache.get_or_create(FINETUNE_KIND, key, build)


def bert_extraction(
    cfg: PhysicsConfig,
    cache: ArtifactCache | None = None,
    probe_cfg: ProbeConfig | None = None,
    progress: bool = False,
    lr: float | None = None,
    birth_date_label: str = "month",
    n_people: int | None = None,
    recipe: str = "profile",
) -> pd.DataFrame:
    """The BERT comparison (paper §7): what an MLM encoder trained on the same biographies can extract.

    Pretrains (:func:`bert_pretrain`, cached), fine-tunes on QA-train people (:func:`bert_finetune_qa`,
    cached), and Q-probes the *pretrained* encoder (:func:`q_probe`, all layers). Returns a DataFrame
    indexed by attribute (plus ``mean``) with ``qa_accuracy`` / ``qa_majority`` (exact match on QA-test
    people) and ``q_probe_accuracy`` (best layer) / ``q_probe_layer`` / ``q_probe_majority``, and ``memorised``
    (:func:`bert_memorisation` of the pretrained encoder, the same on every row): the same
    columns :func:`bertology_lib.experiments.physics.pipeline.evaluate_qa` and :func:`q_probe` give for a decoder.
    After ``mean`` come the birth date's components (:func:`date_components`; ``qa_accuracy`` only).
    ``recipe``: which arm (:func:`recipe_config`).
    """
    cfg = recipe_config(cfg, recipe)
    pre = bert_pretrain(cfg, cache, progress=progress, lr=lr)
    tuned = bert_finetune_qa(pre, cfg, cache, progress=progress)
    ds = cfg.dataset()
    model, tok = load_bert(tuned, device=run_device(cfg))
    preds = bert_qa_predictions(model, tok, ds, "test", val_fraction=cfg.val_fraction)
    qa = accuracy_table(preds, ds)
    base, tok = load_bert(pre, device=run_device(cfg))
    memorised = bert_memorisation(base, tok, ds, seed=cfg.seed)
    q = q_probe(base, tok, ds, cfg=probe_cfg, seed=cfg.seed, birth_date_label=birth_date_label, n_people=n_people)
    best = best_layer_rows(q).set_index("attribute")
    out = pd.DataFrame(
        {
            "qa_accuracy": qa["accuracy"].reindex(bios.ATTRIBUTES),
            "qa_majority": qa["majority"].reindex(bios.ATTRIBUTES),
            "q_probe_accuracy": best["accuracy"].reindex(bios.ATTRIBUTES),
            "q_probe_layer": best["layer"].reindex(bios.ATTRIBUTES).astype(float),
            "q_probe_majority": best["majority"].reindex(bios.ATTRIBUTES),
        }
    )
    out.loc["mean"] = out.mean()
    out.loc["mean", "q_probe_layer"] = math.nan
    for name, acc in date_components(preds).items():
        out.loc[name] = math.nan
        out.loc[name, "qa_accuracy"] = acc
    out["memorised"] = memorised
    out.index.name = "attribute"
    return out


# -- BERT under mixed training ------------------------------------------------------------------------------------
class AlternatingBatches(GeneratorState):
    """Each step one whole batch from one of several batch builders, drawn with given shares (seeded).

    ``streams``: name -> a batch builder that yields one epoch per iteration (e.g. the biographies' MLM batches and
    the QA examples' batches, whose rows have different lengths and so cannot share a batch); ``shares``: name ->
    probability that a step's batch comes from it. A builder that ends its epoch starts the next.
    """

    def __init__(self, streams: dict, shares: dict[str, float], seed: int = 0) -> None:
        check_shares(shares, streams, "streams")
        self.streams = dict(streams)
        self.names = list(streams)
        self.probs = torch.tensor([float(shares[k]) for k in self.names])
        self._g = generator(seed)

    def state_dict(self) -> dict:
        return {"generator": self._g.get_state(), **{k: s.state_dict() for k, s in self.streams.items()}}

    def load_state_dict(self, state) -> None:
        self._g.set_state(state["generator"])
        for k, s in self.streams.items():
            s.load_state_dict(state[k])

    def __iter__(self):
        its = {k: iter(s) for k, s in self.streams.items()}
        while True:
            name = self.names[int(torch.multinomial(self.probs, 1, generator=self._g))]
            batch = next(its[name], None)
            if batch is None:  # that builder's epoch ended: the next one
                its[name] = iter(self.streams[name])
                batch = next(its[name])
            yield batch


def bert_mixed_steps(cfg: PhysicsConfig) -> int:
    """Steps of a BERT's mixed training: the arm's ``bert_steps`` scaled as the decoder's mixed training scales its
    pretraining (``mixed_steps / pretrain_steps``), so the biographies are read about as often as in pretraining."""
    return max(1, int(round(cfg.bert_steps * cfg.mixed_steps / cfg.pretrain_steps)))


def bert_mixed_train(
    cfg: PhysicsConfig, cache: ArtifactCache | None = None, progress: bool = False, recipe: str = "profile"
) -> Path:
    """A BERT trained from scratch on the biographies and the QA-train people's questions in one run (the BERT
    counterpart of :func:`~bertology_lib.experiments.physics.training.mixed_train`); returns the cached folder.

    Each step is a batch of biographies (whole-word masking of the arm's ``bert_mask_prob``, as
    :func:`bert_pretrain`) with probability ``1 - cfg.qa_share``, else a batch of QA-train questions with their
    answers' masks (:func:`bert_qa_example`), about as many tokens as a biography batch; :func:`bert_mixed_steps`
    steps. QA-test people's questions are never seen. ``recipe``: the arm (:func:`recipe_config`).
    """
    arm = recipe_config(cfg, recipe)
    cache = cache or ArtifactCache()
    tc = dataclasses.replace(_bert_train_config(arm, None), max_steps=bert_mixed_steps(arm))
    key = {**bert_pretrain_key(arm), "train": tc.key(), "qa_share": arm.qa_share, "val_fraction": arm.val_fraction}

    def build(folder: Path) -> None:
        from transformers import BertForMaskedLM

        ds, tok = arm.dataset(), bert_tokenizer()
        torch.manual_seed(arm.seed)
        model = BertForMaskedLM(matching_bert_config(arm.model_size, len(tok)))
        rows = bert_rows(ds, tok, arm)
        qa = [bert_qa_example(tok, p.question, p.answer) for p in ds.qa_pairs("train", arm.val_fraction)]
        qa_rows = max(1, int(round(arm.batch_size * arm.seq_len / float(np.mean([len(x) for x, _ in qa])))))
        streams = {
            "bio": mlm_batches(ds.texts(), tok, bert_objective(arm.bert_mask_prob), rows, seed=arm.seed),
            "qa": QABatches(qa, qa_rows, tok.pad_token_id, seed=arm.seed),
        }
        batches = AlternatingBatches(streams, {"bio": 1.0 - arm.qa_share, "qa": arm.qa_share}, seed=arm.seed)
        res = train(MaskedOnlyMLM(model), batches, tc, progress=progress, desc="bert-mixed")
        log = {**res.to_dict(), "rows_per_batch": rows, "qa_rows_per_batch": qa_rows, "recipe": recipe}
        save_run(folder, model.cpu(), tok, arm, log)

    return cache.get_or_create(MIXED_KIND, key, build)


def bert_mixed_extraction(
    cfg: PhysicsConfig, cache: ArtifactCache | None = None, progress: bool = False, recipe: str = "profile"
) -> pd.DataFrame:
    """QA-test accuracy of :func:`bert_mixed_train`'s BERT (exact match per attribute, ``mean``, then the birth
    date's components, :func:`date_components`) with its majority baseline, and ``memorised``
    (:func:`bert_memorisation` of the same model): the columns :func:`bert_extraction` gives, without the probe."""
    path = bert_mixed_train(cfg, cache, progress=progress, recipe=recipe)
    ds = recipe_config(cfg, recipe).dataset()
    model, tok = load_bert(path, device=run_device(cfg))
    preds = bert_qa_predictions(model, tok, ds, "test", val_fraction=cfg.val_fraction)
    qa = accuracy_table(preds, ds)
    out = pd.DataFrame(
        {
            "qa_accuracy": qa["accuracy"].reindex(bios.ATTRIBUTES),
            "qa_majority": qa["majority"].reindex(bios.ATTRIBUTES),
        }
    )
    out.loc["mean"] = out.mean()
    for name, acc in date_components(preds).items():
        out.loc[name] = [acc, math.nan]
    out["memorised"] = bert_memorisation(model, tok, ds, seed=cfg.seed)
    out.index.name = "attribute"
    return out
