"""Checkers of the exercises of ``survey_03c_english_perturbed`` (§3.1 III: perturbed masking, Wu et al. 2020, on
UD English EWT trees read by the English lab BERT, Rogers et al. 2020):

* ``ex-s3c-impact``: the instrument itself, the impact of word j on word i (the distance between word i's
  last-layer vector with i masked and with i and j masked);
* ``ex-s3c-same-distance``: a sentence's arc-gap terms, linked against unlinked pairs at the same distance, each
  sentence's impacts divided by their mean off-diagonal impact.

Both answers are functions, run on hidden cases; the truths come from the library
(``analysis.perturbed_masking.impact_matrix`` on small random masked LMs over MiniLM's WordPiece tokenizer, which
splits some of the hidden words into several pieces; ``analysis.perturbed_masking.arc_gap_terms`` on made-up impact
matrices and hand-built trees), so neither depends on the profile the notebook runs at or needs the trained model.
Models are built inside ``torch.random.fork_rng`` (``quiet_build``) and a student's function runs inside one too, so
checking never moves a notebook's random state. Used by that notebook's exercise cells.
"""

from __future__ import annotations

import functools
import math
from typing import Any

from bertology_lib.book.exercises.cases import judge_function, quiet_build, run_cases, within
from bertology_lib.book.exercises.checks import as_number, as_scalar, as_whole_number, checker

# --- ex-s3c-impact -----------------------------------------------------------------------------------------------

S3C_IMPACT_MODELS: tuple[tuple[int, int, int, int], ...] = ((2, 2, 32, 64), (3, 3, 24, 48))
"""(blocks, heads per block, width, feed-forward width) of the hidden random masked LMs."""

S3C_IMPACT_CASES: tuple[tuple[int, str, int, int], ...] = (
    (0, "The thermodynamicists disliked unconventionality in Baltimore .", 1, 3),
    (0, "Oysters were cheap near the Massachusetts shoreline", 0, 2),
    (1, "The thermodynamicists disliked unconventionality in Baltimore .", 3, 1),
    (1, "Oysters were cheap near the Massachusetts shoreline", 0, 5),
)
"""(hidden model, sentence, i, j): the impact of word j on word i; every word i is split into several word pieces
(so the mean over its tokens differs from its first token), and so are some words j."""


def _build_impact_model(k: int):
    """The hidden masked LM ``k``, built afresh without moving the global random state."""
    import torch
    from transformers import BertConfig, BertForMaskedLM

    n_layers, n_heads, d, d_ff = S3C_IMPACT_MODELS[k]

    def build():
        torch.manual_seed(330 + k)
        cfg = BertConfig(
            vocab_size=len(_tokenizer()),
            hidden_size=d,
            num_hidden_layers=n_layers,
            num_attention_heads=n_heads,
            intermediate_size=d_ff,
            max_position_embeddings=64,
            initializer_range=0.2,
            attn_implementation="eager",
        )
        return BertForMaskedLM(cfg).eval()

    return quiet_build(build)


@functools.lru_cache(maxsize=1)
def _tokenizer():
    """MiniLM's uncased WordPiece tokenizer (that of the English lab BERT)."""
    from transformers import AutoTokenizer

    from bertology_lib.models.english_bert import minilm_folder

    return AutoTokenizer.from_pretrained(minilm_folder())


@functools.lru_cache(maxsize=None)
def impact_model(k: int):
    """``(mlm, tokenizer)`` of hidden case model ``k`` (the checker's own copy; the student gets a fresh one)."""
    return _build_impact_model(k), _tokenizer()


@functools.lru_cache(maxsize=None)
def _impacts(k: int, text: str):
    import numpy as np

    from bertology_lib.analysis.perturbed_masking import impact_matrix

    mlm, tok = impact_model(k)
    mlm.eval()
    return np.asarray(impact_matrix(mlm, tok, text.split()))


def s3c_impact_truth(k: int, text: str, i: int, j: int) -> float:
    """``perturbed_masking.impact_matrix(mlm, tokenizer, words)[i, j]`` on hidden model ``k``: the Euclidean
    distance between word i's last-layer vector (mean over its tokens) with i masked and with i and j masked."""
    return float(_impacts(k, text)[i, j])


def _reading(k: int, text: str, masked, read: int, layer: int = -1, pool: str = "mean", first_piece=False):
    """Word ``read``'s vector (mean or first token of its pieces) at hidden layer ``layer`` of hidden model ``k``,
    with every token (or only the first) of the words ``masked`` replaced by ``[MASK]``."""
    import torch

    mlm, tok = impact_model(k)
    mlm.eval()
    enc = tok(text.split(), is_split_into_words=True)
    ids, wid = list(enc["input_ids"]), enc.word_ids()
    for w in masked:
        pos = [t for t, x in enumerate(wid) if x == w]
        for t in pos[:1] if first_piece else pos:
            ids[t] = tok.mask_token_id
    x = torch.tensor([ids])
    with torch.no_grad():
        h = mlm(input_ids=x, attention_mask=torch.ones_like(x), output_hidden_states=True).hidden_states[layer][0]
    pos = [t for t, x in enumerate(wid) if x == read]
    return h[pos].mean(0) if pool == "mean" else h[pos[0]]


def _impact_mistakes(k: int, text: str, i: int, j: int) -> dict[str, float]:
    """The answers of typical mistakes on a hidden case."""
    import torch

    def dist(a, b) -> float:
        return float(torch.linalg.vector_norm(a - b))

    base, both = _reading(k, text, [i], i), _reading(k, text, [i, j], i)
    return {
        "plain first": dist(_reading(k, text, [], i), both),
        "only j": dist(base, _reading(k, text, [j], i)),
        "plain both": dist(_reading(k, text, [], i), _reading(k, text, [j], i)),
        "first token": dist(_reading(k, text, [i], i, pool="first"), _reading(k, text, [i, j], i, pool="first")),
        "first piece masked": dist(
            _reading(k, text, [i], i, first_piece=True), _reading(k, text, [i, j], i, first_piece=True)
        ),
        "embeddings": dist(_reading(k, text, [i], i, layer=0), _reading(k, text, [i, j], i, layer=0)),
        "second to last": dist(_reading(k, text, [i], i, layer=-2), _reading(k, text, [i, j], i, layer=-2)),
        "cosine": float(1 - torch.nn.functional.cosine_similarity(base, both, dim=0)),
        "squared": dist(base, both) ** 2,
        "transposed": s3c_impact_truth(k, text, j, i),
        "j's vector": dist(_reading(k, text, [i], j), _reading(k, text, [i, j], j)),
    }


_IMPACT_HINTS = {
    "plain first": "mask word i in the first reading too: the impact compares i masked with i and j masked, so "
    "that only hiding j differs between the two readings (with i visible the model just copies it).",
    "only j": "in the second reading mask word i as well as word j: the two readings should differ only in j.",
    "plain both": "mask word i in both readings: first i alone, then i and j together.",
    "first token": "read word i's vector as the mean over all its tokens (word_ids() says which), not its first "
    "token: the hidden sentences split some words into several pieces.",
    "first piece masked": "mask every token of a word (all its word pieces, found with word_ids()), not only the "
    "first: a word split into pieces stays half visible otherwise.",
    "embeddings": "read the last layer (hidden_states[-1]), not the embeddings (hidden_states[0]).",
    "second to last": "read the last layer, hidden_states[-1].",
    "cosine": "the impact is the Euclidean distance between the two vectors (torch.linalg.vector_norm of their "
    "difference), not the cosine distance.",
    "squared": "take the Euclidean distance itself, not its square.",
    "transposed": "that is the impact of word i on word j; impact(model, tokenizer, words, i, j) reads word i's "
    "vector and hides word j.",
    "j's vector": "read word i's vector in both readings (the impact of j on i: how hiding j moves i), not j's.",
}


def _show_impact(case) -> str:
    _, _, words, i, j = case
    return f"impact(model, tokenizer, words, {i}, {j}) on the hidden sentence '{' '.join(words)}'"


def _read_impact(out: Any) -> float | None:
    return None if isinstance(out, bool) else as_scalar(out)


@checker("ex-s3c-impact")
def _check_s3c_impact(answer):
    """``answer``: a function ``impact(model, tokenizer, words, i, j)`` taking a masked LM (``output_hidden_states``),
    its tokenizer, a sentence's words and two word indices, and returning the impact of word j on word i: the
    Euclidean distance between word i's last-layer vector (mean over its tokens) with every token of word i masked
    and with every token of words i and j masked (``analysis.perturbed_masking.impact_matrix(...)[i, j]``); run on
    hidden sentences and hidden small random masked LMs, +-1e-4 relative (1e-5 absolute)."""
    import torch

    if not callable(answer):  # before any hidden model is built
        return False, run_cases(answer, "impact", [])[1]

    def inputs(case):
        k, text, i, j = case
        return _build_impact_model(k), _tokenizer(), text.split(), i, j  # a fresh model: the truth uses its own

    with torch.random.fork_rng(devices=[]):  # a student's function may draw random numbers (dropout on)
        return judge_function(
            answer,
            "impact",
            S3C_IMPACT_CASES,
            inputs=inputs,
            show=_show_impact,
            read=_read_impact,
            refuse="impact should return a number, the distance between two vectors, got {kind} ({bad!r}).",
            truth=s3c_impact_truth,
            match=within(1e-5, 1e-4),
            mistakes=_impact_mistakes,
            hints=_IMPACT_HINTS,
            ok="correct: the two readings differ only in whether j is hidden, so the distance is what j contributes "
            "to the model's view of i; no probe and no label enter it.",
            not_yet="not yet: tokenise the words with is_split_into_words=True, replace every token of word i by "
            "tokenizer.mask_token_id and read word i's last-layer vector (mean over its tokens, model in eval "
            "mode); do it again with words i and j masked, and return the Euclidean distance between the two.",
        )


# --- ex-s3c-same-distance ----------------------------------------------------------------------------------------

S3C_GAP_TREES: tuple[tuple[tuple[int, ...], int], ...] = (
    ((2, 0, 4, 2, 2), 3),  # 5 words; at distance 4 the only pairs are an arc-free pair
    ((2, 3, 0, 3, 6, 4, 3), 3),
    ((0, 1, 4, 2, 4, 7, 5, 1), 2),
    ((3, 3, 0, 5, 3, 5, 9, 9, 5), 4),  # a distance-4 arc, and distances with no linked pair
    ((5, 1, 2, 3, 0, 5), 4),  # a chain with a long arc: distance 4 holds an arc and unlinked pairs
)
"""(1-based heads, 0 = root; max_distance) of the hidden sentences: trees of 5 to 9 words built by hand, with
arcs at several distances, distances that lack linked or unlinked pairs, and max_distance other than 3."""


def s3c_gap_cases() -> list[tuple[Any, tuple[int, ...], int]]:
    """The hidden ``(impacts, heads, max_distance)``: impact matrices made up from a private generator (non-negative,
    zero diagonal, far from symmetric), one per tree of :data:`S3C_GAP_TREES`."""
    import numpy as np

    g = np.random.default_rng(303)
    out = []
    for heads, max_d in S3C_GAP_TREES:
        n = len(heads)
        m = g.gamma(2.0, 1.5, size=(n, n))
        np.fill_diagonal(m, 0.0)
        out.append((m, tuple(heads), max_d))
    return out


def s3c_gap_truth(impacts, heads, max_distance: int) -> list[tuple[int, float, float]]:
    """``perturbed_masking.arc_gap_terms(impacts, heads, max_distance)``: per distance d = 1..max_distance with at
    least one linked and one unlinked ordered pair, (d, mean normalised impact of linked pairs, of unlinked pairs),
    impacts divided by their mean off-diagonal entry."""
    from bertology_lib.analysis.perturbed_masking import arc_gap_terms

    return arc_gap_terms(impacts, heads, max_distance)


def _terms(impacts, heads, max_distance, arcs, *, scale=None, pairs_of=None, unlinked_of=None):
    """Arc-gap terms of the ordered pairs ``pairs_of(d)`` with linked set ``arcs`` (variants for the mistakes)."""
    import numpy as np

    n = len(heads)
    if scale is None:
        scale = impacts[~np.eye(n, dtype=bool)].mean()
    out = []
    for d in range(1, max_distance + 1):
        pairs = pairs_of(d) if pairs_of else [(i, j) for i in range(n) for j in range(n) if abs(i - j) == d]
        lk = [impacts[p] / scale for p in pairs if p in arcs]
        un = unlinked_of(d) if unlinked_of else [impacts[p] / scale for p in pairs if p not in arcs]
        if lk and un:
            out.append((d, float(np.mean(lk)), float(np.mean(un))))
    return out


def _gap_mistakes(impacts, heads, max_distance: int) -> dict[str, Any]:
    """The answers of typical mistakes on a hidden case."""
    import numpy as np

    from bertology_lib.analysis.perturbed_masking import arc_pairs

    n = len(heads)
    arcs = arc_pairs(heads)
    off = ~np.eye(n, dtype=bool)
    scale = impacts[off].mean()
    down = {(d, h - 1) for d, h in enumerate(heads) if h}
    up = {(h - 1, d) for d, h in enumerate(heads) if h}
    zero = {(d, h) for d, h in enumerate(heads) if h} | {(h, d) for d, h in enumerate(heads) if h}
    zero_root = {(d, h) for d, h in enumerate(heads)} | {(h, d) for d, h in enumerate(heads)}
    anywhere = [impacts[i, j] / scale for i in range(n) for j in range(n) if i != j and (i, j) not in arcs]
    truth = s3c_gap_truth(impacts, heads, max_distance)
    return {
        "raw": _terms(impacts, heads, max_distance, arcs, scale=1.0),
        "diagonal": _terms(impacts, heads, max_distance, arcs, scale=impacts.mean()),
        "max": _terms(impacts, heads, max_distance, arcs, scale=impacts.max()),
        "unlinked anywhere": _terms(impacts, heads, max_distance, arcs, unlinked_of=lambda d: anywhere),
        "dependent to head": _terms(impacts, heads, max_distance, down),
        "head to dependent": _terms(impacts, heads, max_distance, up),
        "upper triangle": _terms(
            impacts, heads, max_distance, arcs, pairs_of=lambda d: [(i, i + d) for i in range(n - d)]
        ),
        "0-based": _terms(impacts, heads, max_distance, zero),
        "0-based root": _terms(impacts, heads, max_distance, zero_root),
        "fixed 3": s3c_gap_truth(impacts, heads, 3),
        "swapped": [(d, un, lk) for d, lk, un in truth],
    }


_GAP_HINTS = {
    "raw": "divide the impacts by the sentence's mean off-diagonal impact first: sentences (and models) differ in "
    "scale, and a normalised impact of 1 means 'as much as this sentence's average pair'.",
    "diagonal": "divide by the mean over the off-diagonal entries only: the diagonal (a word's impact on itself) "
    "is 0 by construction and would shrink the mean.",
    "max": "divide by the sentence's mean off-diagonal impact, not by its largest.",
    "unlinked anywhere": "compare the linked pairs at distance d with the unlinked pairs at the same distance d, "
    "not with every unlinked pair: nearby words influence each other most, and most arcs are short, so that would "
    "credit adjacency to syntax.",
    "dependent to head": "an arc links its two words in both directions: count both ordered pairs (dependent, head) "
    "and (head, dependent) as linked (the impact matrix is not symmetric).",
    "head to dependent": "an arc links its two words in both directions: count both ordered pairs (dependent, head) "
    "and (head, dependent) as linked (the impact matrix is not symmetric).",
    "upper triangle": "use every ordered pair (i, j) with |i - j| = d, both i < j and i > j: the impact matrix is "
    "not symmetric.",
    "0-based": "heads are 1-based (0 = the root, with no arc): word d's head is word heads[d] - 1.",
    "0-based root": "heads are 1-based (0 = the root, with no arc): word d's head is word heads[d] - 1.",
    "fixed 3": "use the max_distance you are given (distances 1 to max_distance), not always 3.",
    "swapped": "each term is (distance, linked, unlinked): the linked pairs' mean comes first.",
}


def _float_or_nan(v: Any) -> float | None:
    """``v`` as a float, NaN kept (a mean over no pair), or None (text, booleans, infinities)."""
    if isinstance(v, bool):
        return None
    try:
        x = float(v)
    except (TypeError, ValueError):
        return None
    return x if math.isnan(x) else as_number(x)


def _read_terms(out: Any) -> list[tuple[int, float, float]] | None:
    """A student's output as a list of (whole distance, number, number), NaN kept, or None."""
    if isinstance(out, (str, bytes, dict)) or not hasattr(out, "__iter__"):
        return None
    rows = []
    for row in out:
        if isinstance(row, (str, bytes, dict)) or not hasattr(row, "__iter__"):
            return None
        row = list(row)
        if len(row) != 3:
            return None
        d, lk, un = as_whole_number(row[0]), _float_or_nan(row[1]), _float_or_nan(row[2])
        if d is None or lk is None or un is None:
            return None
        rows.append((d, lk, un))
    return rows


def _screen_terms(values: list) -> str | None:
    if any(math.isnan(v) for terms in values for _, lk, un in terms for v in (lk, un)):
        return (
            "gap_terms returned NaN (a mean over no pair): leave out a distance that has no linked pair or no "
            "unlinked pair in the sentence."
        )
    return None


def _terms_match(value: list, target: list) -> bool:
    return len(value) == len(target) and all(
        d == t[0] and abs(lk - t[1]) <= 1e-9 + 1e-6 * abs(t[1]) and abs(un - t[2]) <= 1e-9 + 1e-6 * abs(t[2])
        for (d, lk, un), t in zip(value, target)
    )


def _pooled(impacts, heads, max_distance: int | None) -> tuple[float, float]:
    """Mean normalised impact of every linked and every unlinked ordered pair (within ``max_distance``, or any)."""
    import numpy as np

    from bertology_lib.analysis.perturbed_masking import arc_pairs

    n = len(heads)
    arcs = arc_pairs(heads)
    scale = impacts[~np.eye(n, dtype=bool)].mean()
    pairs = [
        (i, j) for i in range(n) for j in range(n) if i != j and (max_distance is None or abs(i - j) <= max_distance)
    ]
    return (
        float(np.mean([impacts[p] / scale for p in pairs if p in arcs])),
        float(np.mean([impacts[p] / scale for p in pairs if p not in arcs])),
    )


@checker("ex-s3c-same-distance")
def _check_s3c_same_distance(answer):
    """``answer``: a function ``gap_terms(impacts, heads, max_distance=3)`` taking a sentence's (n, n) impact matrix
    (entry [i, j]: the impact of word j on word i; zero diagonal) and its gold tree (``heads``: 1-based, 0 = root)
    and returning, for every distance d = 1..max_distance at which the sentence has at least one linked and one
    unlinked ordered pair, the tuple (d, mean normalised impact of the pairs (i, j) with |i - j| = d that an arc
    links in either direction, that of the other pairs at distance d), impacts divided by the sentence's mean
    off-diagonal impact, in increasing d (``analysis.perturbed_masking.arc_gap_terms``); run on hidden matrices and
    trees of 5-9 words, +-1e-6 relative."""
    import torch

    cases = s3c_gap_cases()

    def not_yet(i: int, values: list, truths: list) -> str:
        got, want = [t[0] for t in values[i]], [t[0] for t in truths[i]]
        if len(values[i]) == 1 and len(want) > 1:
            impacts, heads, max_d = cases[i]
            if any(
                abs(values[i][0][1] - lk) <= 1e-6 * abs(lk) and abs(values[i][0][2] - un) <= 1e-6 * abs(un)
                for lk, un in (_pooled(impacts, heads, max_d), _pooled(impacts, heads, None))
            ):
                return (
                    "one pooled term mixes distances: linked pairs are mostly neighbours, and neighbours influence each "
                    "other most, whether or not an arc links them. Return one term per distance d, linked against "
                    "unlinked pairs at that same d."
                )
        if got != want:
            return (
                "gap_terms should return one (d, linked, unlinked) term per distance d from 1 to max_distance, in "
                "increasing d, leaving out a distance without a linked or without an unlinked pair; on the hidden "
                f"sentence with heads {list(cases[i][1])} and max_distance {cases[i][2]} your distances are {got}."
            )
        return (
            "not yet: divide the impacts by their mean over the off-diagonal entries; an arc (word d, its head "
            "heads[d] - 1) links both ordered pairs; at each distance d average the normalised impacts of the "
            "linked ordered pairs with |i - j| = d and, separately, of the other pairs at distance d."
        )

    with torch.random.fork_rng(devices=[]):  # a student's function may draw random numbers
        return judge_function(
            answer,
            "gap_terms",
            cases,
            inputs=lambda c: (c[0].copy(), tuple(c[1]), c[2]),  # copies: the truth reads the case after the student
            show=lambda c: f"gap_terms(impacts, heads, {c[2]}) on a hidden sentence of {len(c[1])} words",
            read=_read_terms,
            refuse="gap_terms should return a list of (distance, linked, unlinked) tuples of numbers, got {kind} "
            "({bad!r}).",
            screen=_screen_terms,
            truth=s3c_gap_truth,
            match=_terms_match,
            mistakes=_gap_mistakes,
            hints=_GAP_HINTS,
            ok="correct: at each distance the linked and unlinked pairs are equally far apart, so position alone "
            "cannot make the linked pairs look stronger; only what the model does with the words can.",
            not_yet=not_yet,
        )
