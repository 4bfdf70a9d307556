"""The survey's claims on a masked language model of English (notebook ``survey_03b_english_bert``).

The steps the notebook calls, on any masked LM of English (the English lab BERT by default,
:mod:`bertology_lib.models.english_bert`), each beside its random-init twin:

* :class:`EnglishSizes`: how many held-out sentences each measurement reads, per profile;
* :func:`agreement_table`: right vs wrong verb form at the masked verb of Brown agreement items
  (:func:`bertology_lib.data.english.agreement_items`), one row per item with its number of attractors;
* :func:`brown_probe_sentences`: held-out Brown sentences with coarse tags for the POS probes;
* :func:`negation_study`, :func:`npi_study`: Ettinger's negation items and Warstadt et al.'s NPI items in real
  English words (:mod:`bertology_lib.data.english_cloze`), scored on the model and its twin;
* :func:`role_study`: Ettinger's role-reversal test (canonical against reversed roles, the same verb masked).

Used by ``survey_03b_english_bert``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Sequence

import numpy as np
import pandas as pd
import torch

from bertology_lib import stats
from bertology_lib.analysis.cloze import score_items
from bertology_lib.data import english, english_cloze
from bertology_lib.errors import ParameterError
from bertology_lib.profiles import SizeTable
from bertology_lib.training.english_bert import agreement_accuracy
from bertology_lib.validation import check_int


@dataclass(frozen=True)
class EnglishSizes(SizeTable):
    """Sizes of the English notebook's measurements per profile (smoke: seconds; quick: minutes on 2 cores)."""

    SIZES: ClassVar[dict[str, dict[str, Any]]] = {
        "smoke": dict(
            n_strength=60,
            n_agreement=300,
            n_probe=120,
            n_ud=60,
            n_attention=20,
            n_recon=40,
            probe_iter=30,
            min_arcs=5,
            n_coref=80,
            n_npi=40,
        ),
        "quick": dict(),
        "full": dict(n_npi=0, n_strength=5000, n_probe=6000, n_ud=2001, n_attention=400, n_recon=2000, probe_iter=300),
    }

    n_strength: int = 1500  # held-out sentences whose masked words score the model against the n-gram
    n_agreement: int = 0  # agreement items from the held-out Brown documents (0: all of them)
    n_probe: int = 2500  # held-out Brown sentences for the POS probe (60/15/25 train/validation/test)
    n_ud: int = 1600  # UD English EWT dev sentences for the POS probe, attention and geometry
    n_attention: int = 200  # of those, held-out sentences whose attention maps are read
    n_recon: int = 500  # held-out sentences read back through the MLM head from every layer (Kao et al.)
    probe_iter: int = 100  # L-BFGS iterations of the linear probes
    min_arcs: int = 20  # held-out and selection arcs a dependency relation needs to be scored (Clark's heads)
    n_coref: int = 400  # coreference items (half choose the head, half score it)
    n_npi: int = 600  # NPI frames, each in its three conditions (licensed, scope, unlicensed); 0: all 3,360

    def __post_init__(self) -> None:
        for name in ("n_strength", "n_probe", "n_ud", "n_attention", "n_recon", "probe_iter", "min_arcs", "n_coref"):
            check_int(name, getattr(self, name), minimum=1)
        check_int("n_agreement", self.n_agreement, minimum=0)
        check_int("n_npi", self.n_npi, minimum=0)


def held_out_brown(n_items: int = 0) -> tuple[list[english.AgreementItem], list[english.TaggedSentence]]:
    """The Brown test documents' agreement items (the first ``n_items``, or all with 0) and tagged sentences."""
    docs = english.load_english("brown", "test")
    items = english.agreement_items(docs)
    return (items[:n_items] if n_items else items), english.tagged_sentences(docs)


def brown_probe_sentences(n: int) -> list[english.TaggedSentence]:
    """``n`` held-out Brown sentences with coarse tags (test documents, in document order: the probes split them
    60 / 15 / 25 by sentence, so a test sentence's neighbours may train the probe but never the model)."""
    return held_out_brown()[1][:n]


def agreement_table(model, tokenizer, items: Sequence[english.AgreementItem]) -> pd.DataFrame:
    """One row per item: ``n_attractors``, ``form`` (the right form), ``correct`` (the right form scored above the
    other number's at the masked verb)."""
    right = agreement_accuracy(model, tokenizer, items)
    return pd.DataFrame(
        {
            "n_attractors": [it.n_attractors for it in items],
            "form": [it.right for it in items],
            "correct": [float(r) for r in right],
        }
    )


def _by_member_mean(correct: pd.Series, groups: pd.Series, seed: int) -> tuple[float, float, float]:
    """(share, low, high): the mean of 0/1 ``correct`` with a bootstrap interval resampling whole ``groups``."""
    x = correct.to_numpy(dtype=float)
    return stats.paired_gap(x, [0.0] * len(x), groups=groups.to_numpy(), seed=seed)


def negation_study(model, twin, tokenizer, seed: int = 0) -> dict[str, Any]:
    """Ettinger's negation test on ``model`` and its random-init ``twin``
    (:func:`bertology_lib.data.english_cloze.negation_items`): ``table`` (one row per item and model: ``who``,
    ``condition``, ``correct`` = the true category preferred), ``negated`` (share of negated items where the model
    still prefers the true category, interval resampling category members), ``affirmative`` (the same on the
    affirmative items: the instrument, the model must know the categories) and ``beats_twin`` (affirmative accuracy
    minus the twin's, paired by item, resampling members)."""
    items = english_cloze.negation_items()
    frames = {who: score_items(m, tokenizer, items).assign(who=who) for who, m in (("model", model), ("twin", twin))}
    for who, df in frames.items():
        if df.attrs["skipped"]:
            raise ParameterError(
                f"{df.attrs['skipped']} negation items have a filler the tokenizer splits ({who}); allowed: a "
                "tokenizer that keeps the categories whole (an uncased English WordPiece vocabulary)"
            )
    m, t = frames["model"], frames["twin"]
    aff, neg = m[m.condition == "affirmative"], m[m.condition == "negated"]
    twin_aff = t[t.condition == "affirmative"]
    return {
        "table": pd.concat(frames.values(), ignore_index=True),
        "negated": _by_member_mean(neg.correct, neg.member, seed),
        "affirmative": _by_member_mean(aff.correct, aff.member, seed),
        "beats_twin": stats.paired_gap(
            aff.correct.to_numpy(dtype=float),
            twin_aff.correct.to_numpy(dtype=float),
            groups=aff.member.to_numpy(),
            seed=seed,
        ),
        "n_items": len(aff),
        "n_members": int(aff.member.nunique()),
    }


def npi_study(model, twin, tokenizer, n_frames: int, seed: int = 0) -> dict[str, Any]:
    """Warstadt et al.'s NPI items (:func:`bertology_lib.data.english_cloze.npi_items`, ``n_frames`` frames drawn
    with ``seed``) on ``model`` and ``twin``: ``table`` (one row per item and model, ``correct`` = the NPI chosen),
    ``shares`` (share choosing the NPI per condition and model), ``licensing`` (licensed minus unlicensed, paired by
    frame, 95% bootstrap interval), ``scope`` (scope minus unlicensed), and the twin's ``twin_licensing``."""
    items = english_cloze.npi_items(n_frames, seed=seed)
    frames = {who: score_items(m, tokenizer, items).assign(who=who) for who, m in (("model", model), ("twin", twin))}
    out: dict[str, Any] = {"table": pd.concat(frames.values(), ignore_index=True), "n_frames": len(items) // 3}
    for who, df in frames.items():
        if df.attrs["skipped"]:
            raise ParameterError(
                f"{df.attrs['skipped']} NPI items have a filler the tokenizer splits ({who}); allowed: a tokenizer "
                "that keeps ever, already, any and some whole"
            )
        piv = df.pivot_table(index="frame", columns="condition", values="correct", aggfunc="mean")
        prefix = "" if who == "model" else "twin_"
        out[f"{prefix}licensing"] = stats.paired_gap(piv.licensed, piv.unlicensed, seed=seed)
        out[f"{prefix}scope"] = stats.paired_gap(piv.scope, piv.unlicensed, seed=seed)
    out["shares"] = (
        out["table"]
        .pivot_table(index="condition", columns="who", values="correct", aggfunc="mean")
        .loc[list(english_cloze.NPI_CONDITIONS)]
    )
    return out


@torch.no_grad()
def masked_target_scores(
    model, tokenizer, sentences: Sequence[Sequence[str]], target_ids: Sequence[int], batch_size: int = 64
) -> tuple[np.ndarray, np.ndarray]:
    """(log-probability, 0-based rank among the vocabulary) of ``target_ids[k]`` at the one ``[MASK]`` of
    ``sentences[k]`` (word tuples)."""
    device = next(model.parameters()).device
    model.eval()
    lps, ranks = [], []
    for start in range(0, len(sentences), batch_size):
        words = [list(w) for w in sentences[start : start + batch_size]]
        enc = tokenizer(words, is_split_into_words=True, return_tensors="pt", padding=True)
        keep = ("input_ids", "attention_mask", "token_type_ids")
        logits = model(**{k: v.to(device) for k, v in enc.items() if k in keep}).logits.float().cpu()
        rows, cols = (enc["input_ids"] == tokenizer.mask_token_id).nonzero(as_tuple=True)
        if len(rows) != len(words):
            raise ParameterError(f"{len(words) - len(rows)} sentences lack a single [MASK]; allowed: one per sentence")
        at = logits[rows, cols]
        tgt = torch.tensor(list(target_ids[start : start + len(words)]))
        picked = at[torch.arange(len(rows)), tgt]
        lps += (picked - at.logsumexp(-1)).tolist()
        ranks += (at > picked.unsqueeze(1)).sum(1).tolist()
    return np.asarray(lps), np.asarray(ranks)


def role_study(model, twin, tokenizer, seed: int = 0, k: int = 20) -> dict[str, Any]:
    """Ettinger's role-reversal test (:func:`bertology_lib.data.english_cloze.role_items`) on ``model`` and its
    random-init ``twin``: per pair, is the verb more probable with the roles as expected than reversed?

    Pairs whose verb the tokenizer splits (or does not know) are left out (``n_skipped``). Returns ``sensitivity`` (share of pairs
    where the canonical context gives the verb the higher probability, 95% interval resampling whole events, as
    Ettinger's ROLE-88 sensitivity test), the twin's ``twin_sensitivity``, ``knows_events`` (the instrument: share
    of canonical contexts with the verb among the model's top ``k``, minus the twin's, paired by pair, resampling
    events: a model that does not predict the verbs at all has no preference to reverse), ``top_k`` (the model's
    top-``k`` share in canonical and reversed contexts), ``table`` (one row per pair, model and condition) and the
    counts."""
    check_int("k", k, minimum=1)
    items, target_ids, skipped = [], [], 0
    for it in english_cloze.role_items():
        ids = tokenizer(it.target, add_special_tokens=False)["input_ids"]
        if len(ids) != 1 or ids[0] == tokenizer.unk_token_id:  # split, or unknown to the vocabulary
            skipped += 1
            continue
        items.append(it)
        target_ids.append(ids[0])
    if not items:
        raise ParameterError(
            "the tokenizer splits every role-reversal verb; allowed: a tokenizer that keeps some whole"
        )
    events = pd.Series([it.event for it in items])
    frames, scores = [], {}
    for who, m in (("model", model), ("twin", twin)):
        can, can_rank = masked_target_scores(m, tokenizer, [it.canonical for it in items], target_ids)
        rev, rev_rank = masked_target_scores(m, tokenizer, [it.reversed for it in items], target_ids)
        rank = {"canonical": can_rank, "reversed": rev_rank}
        scores[who] = {"sensitive": (can > rev).astype(float), "top_k": (can_rank < k).astype(float)}
        for cond, lp in (("canonical", can), ("reversed", rev)):
            frames.append(
                pd.DataFrame(
                    {
                        "who": who,
                        "condition": cond,
                        "event": events,
                        "target": [it.target for it in items],
                        "logprob": lp,
                        f"in_top_{k}": (rank[cond] < k).astype(float),
                    }
                )
            )
    table = pd.concat(frames, ignore_index=True)
    return {
        "table": table,
        "sensitivity": _by_member_mean(pd.Series(scores["model"]["sensitive"]), events, seed),
        "twin_sensitivity": _by_member_mean(pd.Series(scores["twin"]["sensitive"]), events, seed),
        "knows_events": stats.paired_gap(
            scores["model"]["top_k"], scores["twin"]["top_k"], groups=events.to_numpy(), seed=seed
        ),
        "top_k": table[table.who == "model"].groupby("condition")[f"in_top_{k}"].mean().to_dict(),
        "k": k,
        "n_pairs": len(items),
        "n_events": int(events.nunique()),
        "n_skipped": skipped,
    }
