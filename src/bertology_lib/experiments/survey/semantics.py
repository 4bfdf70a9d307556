"""The survey's §3.2 (semantic knowledge) as tests a null model fails: baselines, name swaps, numeracy.

* Baselines for cloze suites: :func:`word_counts` / :func:`object_counts` (from the training split),
  :func:`frequency_choice` (prefer the more frequent filler, verb-blind), :func:`twin_correct` (the random-init
  twin on the same items), :func:`suite_baselines`, :func:`strongest_baseline`, :func:`baseline_table`,
  :func:`above_chance` (a two-way task's instrument check) and :func:`gain_difference` (one suite's gain over
  its baseline minus another's, bootstrap interval).
* Name swaps where the names carry number (Balasubramanian et al. 2020): :func:`name_number_items` builds
  sentences whose verb must agree with one name or two coordinated names, each beside a control sentence
  with common nouns in the names' places; :func:`name_swap_test` swaps the names (or the nouns) for others
  of the same type and records which predictions change; :func:`flip_rates` sums it up per item.
* Addition (Wallace et al. 2019's second task): :func:`addition` decodes the sum of two held-out numbers from
  their states with a linear probe trained on the whole range or on its lower half, scored on pairs from the
  upper half, beside the twin and the digit-by-digit control.
* Entity types by probing, held out by word (Tenney et al. 2019b): :func:`noun_types` labels each noun of
  toy sentences person / animal / thing from its semantic class, :func:`entity_type_probes` trains layer probes
  on some nouns and scores them on nouns they never saw.
* Numeracy on a real encoder (Wallace et al. 2019): :func:`numeracy` trains magnitude-comparison probes on
  numbers from the whole range and from its lower half only, and scores both on held-out numbers of the upper
  half, beside the random-init twin and a digit-by-digit positive control; :func:`real_encoder_for` names the
  encoder a run measures.

Used by ``survey_03_2_semantics`` (the baselines also by ``survey_03_3_world_knowledge``).
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from typing import Any, ClassVar, Mapping, Sequence

import numpy as np
import pandas as pd
import torch

from bertology_lib.analysis import heldout
from bertology_lib.analysis.cloze import score_items
from bertology_lib.analysis.ngram_cloze import context_vectors
from bertology_lib.analysis.probing import ProbeConfig
from bertology_lib.analysis.word_probes import HeldOutProbes
from bertology_lib.analysis.numeracy import (
    addition_probe,
    comparison_pairs,
    comparison_probe,
    digit_features,
    number_features,
    number_split,
    word_pieces,
)
from bertology_lib.data.suites.common import agent_verb, cloze_item, count_noun
from bertology_lib.data.toy_english import CLASSES, Builder, ClozeItem, ToyEnglishConfig, lexicon
from bertology_lib.errors import ParameterError
from bertology_lib.models.registry import RANDOM_INIT
from bertology_lib.profiles import SizeTable
from bertology_lib.stats import wilson_interval
from bertology_lib.validation import check_int


@dataclass(frozen=True)
class SemanticsSizes(SizeTable):
    """Sizes of the §3.2 tests per profile (the suites' sizes are :class:`~.sizes.SurveySizes`)."""

    name_items: int  # sentence frames of the name-swap test (half one name, half two)
    name_swaps: int  # swaps drawn per frame, for the names and for the control nouns
    n_numbers: int  # numbers 0 .. n_numbers - 1 of the numeracy probes
    n_train_pairs: int  # comparison pairs a probe is trained on
    n_eval_pairs: int  # comparison pairs per validation or test set

    SIZES: ClassVar[dict[str, dict[str, Any]]] = {
        "smoke": dict(name_items=40, name_swaps=2, n_numbers=200, n_train_pairs=600, n_eval_pairs=300),
        "quick": dict(name_items=240, name_swaps=3, n_numbers=1000, n_train_pairs=4000, n_eval_pairs=2000),
        "full": dict(name_items=1000, name_swaps=5, n_numbers=2000, n_train_pairs=8000, n_eval_pairs=4000),
    }


# ---------------------------------------------------------------------------------------------------------
# baselines of the cloze suites
# ---------------------------------------------------------------------------------------------------------


def word_counts(sentences) -> Counter:
    """How often each word form occurs in ``sentences`` (e.g. the mini-BERT's training split)."""
    c: Counter = Counter()
    for s in sentences:
        c.update(s.words)
    return c


def object_counts(sentences) -> Counter:
    """How often each word form is the object (deprel ``obj``) of a verb in ``sentences``."""
    return Counter(w for s in sentences for w, rel in zip(s.words, s.deprels) if rel == "obj")


def verb_object_counts(sentences) -> tuple[Counter, dict[str, str]]:
    """``(verb lemma, object lemma) -> count`` over the objects (deprel ``obj``) of verbs in ``sentences`` (e.g. the
    mini-BERT's training split), and each word form's lemma there (to read a cloze candidate as a lemma)."""
    pairs: Counter = Counter()
    lemma_of: dict[str, str] = {}
    for s in sentences:
        lemma_of.update(zip(s.words, s.lemmas))
        for i, (rel, head) in enumerate(zip(s.deprels, s.heads)):
            if rel == "obj" and head > 0:
                pairs[(s.lemmas[head - 1], s.lemmas[i])] += 1
    return pairs, lemma_of


def cooccurrence_choice(
    items: Sequence[ClozeItem], pairs: Mapping[tuple[str, str], int], lemma_of: Mapping[str, str]
) -> np.ndarray:
    """A baseline that knows the corpus's verb–object pairs: per selectional item (``meta["verb"]``, a lemma) 1 if
    the correct candidate's lemma was seen more often as that verb's object (:func:`verb_object_counts`) than the
    incorrect one's, 0 if less often, 0.5 on a tie. (N,) floats, one per item."""
    out = np.empty(len(items))
    for i, it in enumerate(items):
        verb = it.meta.get("verb")
        if verb is None:
            raise ParameterError(f"item {i} has no meta['verb']; allowed: items of the selectional suite")
        a = pairs.get((verb, lemma_of.get(it.correct, it.correct)), 0)
        b = pairs.get((verb, lemma_of.get(it.incorrect, it.incorrect)), 0)
        out[i] = 1.0 if a > b else 0.0 if a < b else 0.5
    return out


def frequency_choice(items: Sequence[ClozeItem], counts: Mapping[str, int]) -> np.ndarray:
    """A context-blind baseline: per item 1 if ``counts`` rank the correct filler above the incorrect one,
    0 if below, 0.5 on a tie (a coin flip's expected score). (N,) floats, one per item."""
    out = np.empty(len(items))
    for i, it in enumerate(items):
        a, b = counts.get(it.correct, 0), counts.get(it.incorrect, 0)
        out[i] = 1.0 if a > b else 0.0 if a < b else 0.5
    return out


def twin_correct(scored: pd.DataFrame, twin_scored: pd.DataFrame) -> np.ndarray:
    """The random-init twin's 0/1 correctness on the rows of ``scored`` (matched by ``item``): (N,) floats."""
    twin = twin_scored.set_index("item")["correct"]
    missing = sorted(set(scored["item"]) - set(twin.index))
    if missing:
        raise ParameterError(f"the twin did not score items {missing[:5]}; allowed: the same items and tokenizer")
    return twin.loc[scored["item"]].to_numpy(dtype=float)


def suite_baselines(
    scored: pd.DataFrame,
    twin_scored: pd.DataFrame,
    items: Sequence[ClozeItem],
    counts: Mapping[str, int],
    frequency: str = "frequency",
) -> dict[str, np.ndarray]:
    """The baselines of a cloze suite on the rows of ``scored``: ``frequency`` (:func:`frequency_choice` with
    ``counts``) and the random-init twin (:func:`twin_correct`), each (N,) per-row scores."""
    rows = scored["item"].to_numpy()
    return {frequency: frequency_choice(items, counts)[rows], "random-init twin": twin_correct(scored, twin_scored)}


def baseline_table(
    correct: Sequence[float], baselines: Mapping[str, Sequence[float]], by: Sequence | None = None
) -> pd.DataFrame:
    """Accuracy of the model (``correct``) beside each baseline's on the same items, overall or per group
    ``by`` (one label per item): one row per group, one column per predictor, and ``n``."""
    scores = {
        "model": np.asarray(correct, dtype=float),
        **{k: np.asarray(v, dtype=float) for k, v in baselines.items()},
    }
    groups = np.asarray(by) if by is not None else np.full(len(scores["model"]), "all items")
    rows = []
    for g in sorted(pd.unique(groups), key=str):
        sel = groups == g
        rows.append({"items": g, **{k: float(v[sel].mean()) for k, v in scores.items()}, "n": int(sel.sum())})
    return pd.DataFrame(rows).set_index("items")


def above_chance(correct: Sequence[float], chance: float = 0.5) -> tuple[float, float, float]:
    """Accuracy minus ``chance`` with its 95% Wilson interval, as (estimate, low, high): the form of an
    instrument check that a model solves a two-way task (interval low > 0)."""
    c = np.asarray(correct, dtype=float)
    k, n = int(c.sum()), len(c)
    low, high = wilson_interval(k, n)
    return k / n - chance, low - chance, high - chance


def strongest_baseline(baselines: Mapping[str, Sequence[float]]) -> tuple[str, np.ndarray]:
    """The baseline with the highest mean score on the same items: (its name, its per-item scores)."""
    if not baselines:
        raise ParameterError("no baselines given; allowed: at least one name -> per-item scores")
    name = max(baselines, key=lambda k: float(np.mean(baselines[k])))
    return name, np.asarray(baselines[name], dtype=float)


def gain_difference(
    a: Sequence[float],
    a_base: Sequence[float],
    b: Sequence[float],
    b_base: Sequence[float],
    n_resamples: int = 2000,
    seed: int = 0,
) -> tuple[float, float, float]:
    """``mean(a - a_base) - mean(b - b_base)``: how much more a model gains over its baseline on suite A than on
    suite B (each suite's items paired with its own baseline), with a 95% percentile-bootstrap interval that
    resamples the items of each suite separately: (estimate, low, high)."""
    check_int("n_resamples", n_resamples, minimum=10)
    da = np.asarray(a, dtype=float) - np.asarray(a_base, dtype=float)
    db = np.asarray(b, dtype=float) - np.asarray(b_base, dtype=float)
    if da.ndim != 1 or db.ndim != 1 or len(da) < 2 or len(db) < 2:
        raise ParameterError(f"suites of {len(da)} and {len(db)} paired items; allowed: at least 2 in each")
    rng = np.random.default_rng(seed)
    reps = da[rng.integers(0, len(da), (n_resamples, len(da)))].mean(1) - db[
        rng.integers(0, len(db), (n_resamples, len(db)))
    ].mean(1)
    return float(da.mean() - db.mean()), float(np.quantile(reps, 0.025)), float(np.quantile(reps, 0.975))


# ---------------------------------------------------------------------------------------------------------
# name swaps where the names carry number
# ---------------------------------------------------------------------------------------------------------

NAME_CLASS = "person"  # the noun class whose common nouns stand in the names' places in the control
NAME_KINDS = ("one name", "two names")


def name_number_items(config: ToyEnglishConfig, n_items: int, seed: int = 0) -> list[tuple[ClozeItem, ClozeItem]]:
    """``n_items`` frames, each as (names item, control item): the present-tense verb after one name or two
    coordinated names is masked (*Blais [MASK] the dogs .*: *chases* vs *chase*; *Blais and Sein [MASK] the
    dogs .*: *chase* vs *chases*), so the answer depends on how many names there are, never on which. The
    control item is the same frame with common nouns of the person class in the names' places (*the nurse and
    the boy [MASK] the dogs .*). Frames alternate one name / two names. ``meta``: ``pair``, ``kind``,
    ``version`` ("names" | "nouns"), ``slots`` (word positions of the names or nouns) and ``fillers``."""
    check_int("n_items", n_items, minimum=1)
    b = Builder(config, random.Random(f"name-number:{config.seed}:{seed}"))
    rng, kb, lex = b.rng, b.kb, b.lex
    nouns = control_nouns(config)
    out = []
    for i in range(n_items):
        two = i % 2 == 1
        names = rng.sample(kb.people, 2 if two else 1)
        fill_nouns = rng.sample(nouns, len(names))
        transitive = rng.random() < 0.5
        v = agent_verb(b, NAME_CLASS, transitive)
        obj = (count_noun(b, lex.arg_class(rng, v, "patient")), b.rand_number()) if transitive else None
        good, bad = (v.base, v.s3) if two else (v.s3, v.base)
        pair = []
        for version, fillers in (("names", names), ("nouns", fill_nouns)):
            phrases = [b.propn(w) if version == "names" else b.np(lex.noun_by_sg[w], "Sing", "the") for w in fillers]
            subj = phrases[0] if not two else b.coordinate(phrases[0], phrases[1])
            if obj is not None:
                cl = b.clause(subj, "trans", verb=v, obj=b.np(obj[0], obj[1], "the"), tense="pres")
            else:
                cl = b.clause(subj, "intr", verb=v, tense="pres")
            toks = b.sentence(cl)
            slots = tuple(k for k, t in enumerate(toks) if any(t is p.head for p in phrases))
            meta = {"pair": i, "kind": NAME_KINDS[two], "version": version, "slots": slots, "fillers": tuple(fillers)}
            pair.append(cloze_item(b, "name_number", toks, cl.head, good, bad, meta, subj.head, cl.head))
        out.append((pair[0], pair[1]))
    return out


def control_nouns(config: ToyEnglishConfig) -> list[str]:
    """The common nouns that stand in the names' places in the control of :func:`name_number_items` (singular
    forms of the person class's count nouns, sorted): the pool the control swaps draw from."""
    return sorted(n.sg for n in lexicon(config).by_class[NAME_CLASS] if not n.invariant)


def swap_fillers(item: ClozeItem, pool: Sequence[str], n_swaps: int, rng: random.Random) -> list[ClozeItem]:
    """``n_swaps`` copies of ``item`` with every filler (``meta["slots"]``) replaced by another member of
    ``pool`` that is not in the sentence; each copy's ``meta["swapped"]`` holds the new fillers."""
    out = []
    for _ in range(n_swaps):
        words = list(item.words)
        new = []
        for k in item.meta["slots"]:
            cand = [w for w in pool if w not in words]
            if not cand:
                raise ParameterError(
                    f"no replacement for {words[k]!r} left in a pool of {len(pool)}; allowed: a "
                    "pool with more members than the sentence uses"
                )
            words[k] = rng.choice(cand)
            new.append(words[k])
        out.append(
            ClozeItem(
                item.suite,
                tuple(words),
                item.mask_index,
                item.correct,
                item.incorrect,
                {**item.meta, "swapped": tuple(new)},
            )
        )
    return out


def name_swap_test(
    model,
    tokenizer,
    pairs: Sequence[tuple[ClozeItem, ClozeItem]],
    names: Sequence[str],
    nouns: Sequence[str],
    n_swaps: int = 3,
    seed: int = 0,
) -> pd.DataFrame:
    """Score every item of :func:`name_number_items` and ``n_swaps`` swapped copies of it (names from
    ``names``, control nouns from ``nouns``). One row per swap: ``pair``, ``kind``, ``version``,
    ``names`` and ``swapped_names`` (the original and the new fillers, space-separated), ``correct_original``,
    ``correct_swapped`` and ``flipped`` (the preferred verb changed when only the fillers did)."""
    check_int("n_swaps", n_swaps, minimum=1)
    rng = random.Random(f"name-swaps:{seed}")
    originals = [it for p in pairs for it in p]
    swaps = [
        s for it in originals for s in swap_fillers(it, names if it.meta["version"] == "names" else nouns, n_swaps, rng)
    ]
    a = score_items(model, tokenizer, originals)
    s = score_items(model, tokenizer, swaps)
    if len(a) != len(originals) or len(s) != len(swaps):
        raise ParameterError(
            f"{model.__class__.__name__}: some fillers are not single tokens of its vocabulary; "
            "allowed: a model whose vocabulary holds the toy names and verbs"
        )
    before = a["correct"].to_numpy().repeat(n_swaps)
    after = s["correct"].to_numpy()
    return pd.DataFrame(
        {
            "pair": [it.meta["pair"] for it in swaps],
            "kind": [it.meta["kind"] for it in swaps],
            "version": [it.meta["version"] for it in swaps],
            "names": [" ".join(it.meta["fillers"]) for it in swaps],
            "swapped_names": [" ".join(it.meta["swapped"]) for it in swaps],
            "correct_original": before,
            "correct_swapped": after,
            "flipped": before != after,
        }
    )


def flip_rates(test: pd.DataFrame) -> pd.DataFrame:
    """One row per frame of :func:`name_swap_test`: ``kind``, ``correct_names`` and ``correct_nouns`` (the
    original items), ``flip_names`` and ``flip_nouns`` (share of swaps that changed the prediction)."""
    g = (
        test.groupby(["pair", "kind", "version"])
        .agg(correct=("correct_original", "first"), flip=("flipped", "mean"))
        .unstack("version")
    )
    out = pd.DataFrame(
        {
            "correct_names": g[("correct", "names")].astype(float),
            "correct_nouns": g[("correct", "nouns")].astype(float),
            "flip_names": g[("flip", "names")],
            "flip_nouns": g[("flip", "nouns")],
        }
    )
    return out.reset_index().drop(columns="pair")


# ---------------------------------------------------------------------------------------------------------
# numeracy on a real encoder
# ---------------------------------------------------------------------------------------------------------

REAL_ENCODER = "minilm"  # the lab's numerals are nine whole words that the corpus never compares


def real_encoder_for(run_model: str, real: str = REAL_ENCODER) -> str:
    """The real encoder a run measures its numbers on: ``real``, or its random-init twin when the run's own
    model is a twin (a null-model run nulls every model it measures)."""
    return RANDOM_INIT + real if str(run_model).startswith(RANDOM_INIT) else real


def twin_of(name: str) -> str:
    """The random-init twin's model name of ``name`` (a twin is its own twin)."""
    return name if name.startswith(RANDOM_INIT) else RANDOM_INIT + name


@dataclass(frozen=True)
class Numeracy:
    """Magnitude comparison of held-out numbers from the upper half of the range (the *far* test pairs).

    ``in_range``: correctness (0/1 per pair) of a probe trained on pairs from the whole range; ``extrapolated``:
    of a probe trained on the lower half only; ``twin_in_range``: the random-init twin's whole-range probe;
    ``control_extrapolated``: a lower-half probe on :func:`~bertology_lib.analysis.numeracy.digit_features` (the
    positive control: there magnitude is linear). Each probe is read at its own layer, chosen on validation
    pairs from the upper half (``layers``). ``groups``: the first number of each far pair (to resample
    numbers). ``table``: accuracy on the far pairs by representation and training range; ``pieces``: the
    whole-range probes on held-out pairs of the whole range, by how the two numbers split into word pieces;
    ``piece_pairs``: the same per pair (``kind``: both whole / one split / both split; ``model`` and ``twin``:
    0/1 correct; ``first``: the pair's first number, to resample numbers)."""

    layers: Mapping[str, int]
    in_range: np.ndarray
    extrapolated: np.ndarray
    twin_in_range: np.ndarray
    control_extrapolated: np.ndarray
    groups: np.ndarray
    table: pd.DataFrame
    pieces: pd.DataFrame
    n_numbers: int
    piece_pairs: pd.DataFrame | None = None


def numeracy(model, tokenizer, twin, twin_tokenizer, sizes: SemanticsSizes, seed: int = 0) -> Numeracy:
    """Wallace et al.'s question on ``model`` and its random-init ``twin``: is magnitude linearly readable
    from the states of numbers the probe never saw, and does it carry beyond the numbers the probe was trained
    on? Numbers 0 .. ``sizes.n_numbers`` - 1 are split into train / validation / test numbers within each half
    of the range; pairs never mix splits. Every probe gets its best layer for the upper half, chosen on
    validation pairs there (the most favourable reading for extrapolation that never looks at test pairs)."""
    n = sizes.n_numbers
    numbers = np.arange(n)
    split = number_split([numbers[: n // 2], numbers[n // 2 :]], seed=seed)
    pairs = {
        "val_far": comparison_pairs(split.val[split.val >= n // 2], sizes.n_eval_pairs, seed + 1),
        "far": comparison_pairs(split.test[split.test >= n // 2], sizes.n_eval_pairs, seed + 2),
        "test": comparison_pairs(split.test, sizes.n_eval_pairs, seed + 3),
    }
    train = {
        "whole range": comparison_pairs(split.train, sizes.n_train_pairs, seed),
        "lower half": comparison_pairs(split.train[split.train < n // 2], sizes.n_train_pairs, seed),
    }
    reps = {
        "model": (number_features(model, tokenizer, numbers), word_pieces(tokenizer, numbers)),
        "random-init twin": (number_features(twin, twin_tokenizer, numbers), word_pieces(twin_tokenizer, numbers)),
        "digits (positive control)": (digit_features(numbers, seed=seed), None),
    }
    far, layers, rows, piece_rows, test_right = {}, {}, [], [], {}
    for label, (X, pieces) in reps.items():
        for trained, train_pairs in train.items():
            probe = comparison_probe(X, numbers, train_pairs, pairs)
            layer = probe.best_layer("val_far")
            far[label, trained], layers[f"{label}, {trained}"] = probe.correct["far"][layer], layer
            rows.append(
                {
                    "representation": label,
                    "probe trained on": trained,
                    "layer": layer,
                    "accuracy on far pairs": float(far[label, trained].mean()),
                    "n pairs": len(pairs["far"][0]),
                }
            )
            if pieces is not None and trained == "whole range":
                piece_rows += _by_pieces(probe.correct["test"][layer], pieces, pairs["test"], label)
                test_right[label] = probe.correct["test"][layer]
    return Numeracy(
        layers,
        far["model", "whole range"],
        far["model", "lower half"],
        far["random-init twin", "whole range"],
        far["digits (positive control)", "lower half"],
        pairs["far"][0],
        pd.DataFrame(rows),
        pd.DataFrame(piece_rows),
        n,
        pd.DataFrame(
            {
                "kind": _piece_kinds(reps["model"][1], pairs["test"]),
                "first": pairs["test"][0],
                "model": test_right["model"],
                "twin": test_right["random-init twin"],
            }
        ),
    )


def _piece_kinds(pieces: np.ndarray, pairs: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    a, b = pairs
    return np.where(
        (pieces[a] == 1) & (pieces[b] == 1),
        "both whole",
        np.where((pieces[a] > 1) & (pieces[b] > 1), "both split", "one split"),
    )


def piece_gain_gap(piece_pairs: pd.DataFrame, n_resamples: int = 2000, seed: int = 0) -> dict[str, Any]:
    """Does splitting numbers into word pieces cost learned magnitude (Wallace et al. 2019)? The model's gain over
    its random-init twin on pairs of two whole-token numbers minus that gain on pairs of two split numbers, with a
    95% interval resampling pairs within each kind; also each kind's accuracies and ``room``: the smaller of the
    twin's errors on the two kinds (a twin already right on nearly every split pair leaves no gain to lose). With
    fewer than 2 pairs of a kind nothing is measured: the gap is NaN and the room 0."""
    kinds = {k: piece_pairs[piece_pairs.kind == k] for k in ("both whole", "both split")}
    if any(len(d) < 2 for d in kinds.values()):  # e.g. a range of small numbers that are all whole pieces
        return {
            "gap": float("nan"),
            "low": float("nan"),
            "high": float("nan"),
            "room": 0.0,
            **{f"{k}: pairs": len(d) for k, d in kinds.items()},
        }
    gain = {k: (d.model - d.twin).to_numpy(float) for k, d in kinds.items()}
    rng = np.random.default_rng(seed)
    reps = [
        rng.choice(gain["both whole"], len(gain["both whole"])).mean()
        - rng.choice(gain["both split"], len(gain["both split"])).mean()
        for _ in range(n_resamples)
    ]
    low, high = np.quantile(reps, [0.025, 0.975])
    out = {"gap": float(gain["both whole"].mean() - gain["both split"].mean()), "low": float(low), "high": float(high)}
    for k, d in kinds.items():
        out.update({f"{k}: model": float(d.model.mean()), f"{k}: twin": float(d.twin.mean()), f"{k}: pairs": len(d)})
    out["room"] = min(1 - out["both whole: twin"], 1 - out["both split: twin"])
    return out


def _by_pieces(right: np.ndarray, pieces: np.ndarray, pairs: tuple[np.ndarray, np.ndarray], label: str) -> list[dict]:
    kind = _piece_kinds(pieces, pairs)
    return [
        {
            "representation": label,
            "word pieces": k,
            "accuracy": float(right[kind == k].mean()) if (kind == k).any() else float("nan"),
            "n pairs": int((kind == k).sum()),
        }
        for k in ("both whole", "one split", "both split")
    ]


# -- entity types, held out by word (Tenney et al. 2019b) -------------------------------------------------------
ENTITY_TYPES = ("person", "animal", "thing")
CONTEXT_COUNTS = "context counts (PPMI-SVD)"  # the probe on each noun's training contexts (entity_type_probes)


def noun_types(sentences: Sequence, config: ToyEnglishConfig) -> pd.DataFrame:
    """One row per noun of ``sentences`` that the lexicon of ``config`` knows (by its lemma): ``sentence``,
    ``position`` (word index), ``lemma``, ``cls`` (its semantic class) and ``type``: ``person`` (a human class),
    ``animal`` (animate, not human) or ``thing``."""
    lex = lexicon(config)
    rows = []
    for i, sent in enumerate(sentences):
        for j, (lemma, pos) in enumerate(zip(sent.lemmas, sent.upos)):
            noun = lex.noun_by_sg.get(lemma) if pos == "NOUN" else None
            if noun is not None:
                animate, human = CLASSES[noun.cls]
                rows.append(
                    {
                        "sentence": i,
                        "position": j,
                        "lemma": lemma,
                        "cls": noun.cls,
                        "type": "person" if human else "animal" if animate else "thing",
                    }
                )
    if not rows:
        raise ParameterError(f"no lexicon nouns in {len(sentences)} sentences; allowed: sentences of this lexicon")
    return pd.DataFrame(rows)


def entity_type_probes(
    states: Mapping[str, Any],
    offsets: Sequence[int],
    table: pd.DataFrame,
    target: str = "type",
    fractions: Sequence[float] = (0.6, 0.15, 0.25),
    seed: int = 0,
    probe_iter: int = 100,
    context_sentences: Sequence[Sequence[str]] | None = None,
    window: int = 2,
) -> HeldOutProbes:
    """Layer probes for ``target`` held out by *word*: the lemmas of ``table`` (:func:`noun_types`) are shuffled
    (``seed``) and split into training, validation and test lemmas; a linear probe per layer trains on the
    training lemmas' tokens, the layer is chosen on the validation lemmas and scored on the test lemmas, whose
    tokens it never saw. ``states``: model label -> (layers, words, d) word states, row ``offsets[s] + position``
    for word ``position`` of sentence ``s``. The per-word majority baseline is then the training majority type (no
    test lemma was seen); intervals resample test lemmas (the split's groups).

    ``context_sentences`` (lemma sequences, e.g. the model's training split): also a probe, on the same split, on
    each noun's distributional vector there (PPMI-SVD of the lemmas within ``window`` each side,
    :func:`bertology_lib.analysis.ngram_cloze.context_vectors`), under the label :data:`CONTEXT_COUNTS`: what the
    contexts a new noun occurs in give without a network."""
    lemmas = np.array(sorted(set(table.lemma)))
    if len(lemmas) < 8:
        raise ParameterError(f"{len(lemmas)} distinct nouns are too few; allowed: at least 8 to split by word")
    order = np.random.default_rng(seed).permutation(lemmas)
    n_tr, n_val = int(round(fractions[0] * len(order))), int(round(fractions[1] * len(order)))
    part = {w: 0 if k < n_tr else 1 if k < n_tr + n_val else 2 for k, w in enumerate(order)}
    which = table.lemma.map(part).to_numpy()
    groups = pd.Categorical(table.lemma, categories=lemmas).codes
    split = heldout.Split(*(np.flatnonzero(which == k) for k in range(3)), groups)
    rows = np.asarray([offsets[s] + p for s, p in zip(table.sentence, table.position)])
    labels = table[target].tolist()
    cfg = ProbeConfig(max_iter=probe_iter)
    preds = {(label, target): heldout.probe_predictions(X[:, rows], labels, split, cfg) for label, X in states.items()}
    if context_sentences is not None:
        vectors = torch.as_tensor(context_vectors(context_sentences, table.lemma.tolist(), window, seed=seed))
        preds[CONTEXT_COUNTS, target] = heldout.probe_predictions(vectors[None], labels, split, cfg)
    majority = {target: heldout.majority_predictions(table.lemma.tolist(), labels, split)}
    return HeldOutProbes(table, split, {"all": np.ones(len(table), bool)}, preds, majority, cfg.kind)


# -- addition (Wallace et al. 2019) ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Addition:
    """Absolute errors of the predicted sum on the far pairs (both numbers held out, from the upper half), as a
    share of the largest sum (``2 (n_numbers - 1)``): ``in_range`` (model, probe trained on the whole range),
    ``extrapolated`` (model, lower half only), ``twin_in_range``, ``control_in_range`` and
    ``control_extrapolated`` (the digit-by-digit control). ``groups``: each far pair's first number; ``table``:
    mean error and chosen layer per representation and training range."""

    in_range: np.ndarray
    extrapolated: np.ndarray
    twin_in_range: np.ndarray
    control_in_range: np.ndarray
    control_extrapolated: np.ndarray
    groups: np.ndarray
    table: pd.DataFrame
    n_numbers: int


def addition(model, tokenizer, twin, twin_tokenizer, sizes: SemanticsSizes, seed: int = 0) -> Addition:
    """Wallace et al.'s addition task on ``model`` and its ``twin``, split as :func:`numeracy` (numbers 0 ..
    ``sizes.n_numbers`` - 1, train / validation / test numbers within each half; pairs never mix splits). Each
    probe's layer is chosen on validation pairs from the upper half."""
    n = sizes.n_numbers
    numbers = np.arange(n)
    split = number_split([numbers[: n // 2], numbers[n // 2 :]], seed=seed)
    upper = lambda ids: ids[ids >= n // 2]  # noqa: E731
    pairs = {
        "val_far": comparison_pairs(upper(split.val), sizes.n_eval_pairs, seed + 11),
        "far": comparison_pairs(upper(split.test), sizes.n_eval_pairs, seed + 12),
    }
    train = {
        "whole range": comparison_pairs(split.train, sizes.n_train_pairs, seed + 10),
        "lower half": comparison_pairs(split.train[split.train < n // 2], sizes.n_train_pairs, seed + 10),
    }
    reps = {
        "model": number_features(model, tokenizer, numbers),
        "random-init twin": number_features(twin, twin_tokenizer, numbers),
        "digits (positive control)": digit_features(numbers, seed=seed),
    }
    scale, far, rows = 2.0 * (n - 1), {}, []
    for label, X in reps.items():
        for trained, train_pairs in train.items():
            probe = addition_probe(X, numbers, train_pairs, pairs)
            layer = probe.best_layer("val_far")
            far[label, trained] = probe.error["far"][layer] / scale
            rows.append(
                {
                    "representation": label,
                    "probe trained on": trained,
                    "layer": layer,
                    "mean error on far pairs (share of the largest sum)": float(far[label, trained].mean()),
                }
            )
    return Addition(
        far["model", "whole range"],
        far["model", "lower half"],
        far["random-init twin", "whole range"],
        far["digits (positive control)", "whole range"],
        far["digits (positive control)", "lower half"],
        pairs["far"][0],
        pd.DataFrame(rows),
        n,
    )
