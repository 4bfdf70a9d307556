"""Checkers of the exercises of ``survey_06_model_size`` (§6 How big should BERT be?, Rogers et al. 2020):

* ``ex-survey6-head-params``: what physically removing heads saves;
* ``ex-survey6-magnitude``: global magnitude-pruning masks.

The answers are functions, run on hidden cases. Every truth is computed here from the library
(``interventions.heads``, ``interventions.compression``, models built on the fly), never typed in, and none depends
on the profile the notebook runs at. Models are built inside ``torch.random.fork_rng``, so checking an answer never
moves a notebook's random state. Used by that notebook's exercise cells.
"""

from __future__ import annotations

from typing import Any

from bertology_lib.book.exercises.cases import judge_function, quiet_build, run_cases
from bertology_lib.book.exercises.checks import as_whole_number, checker


SURVEY6_HEAD_CASES: tuple[tuple[int, int, int], ...] = ((32, 4, 3), (48, 6, 5), (64, 2, 2), (128, 4, 10), (24, 3, 4))


def survey6_head_truth(d_model: int, n_heads: int, n_removed: int) -> int:
    """Parameters that ``interventions.heads.prune_heads`` removes from a BERT of width ``d_model`` with
    ``n_heads`` heads per layer when ``n_removed`` heads go (filling the first layers first, so a layer may
    lose all its heads), counted on a built model with ``heads.count_parameters``."""
    import torch
    from transformers import BertConfig, BertModel

    from bertology_lib.interventions import heads

    n_layers = n_removed // n_heads + 1
    cfg = BertConfig(
        vocab_size=16,
        hidden_size=d_model,
        num_hidden_layers=n_layers,
        num_attention_heads=n_heads,
        intermediate_size=4 * d_model,
        max_position_embeddings=16,
        attn_implementation="eager",
    )
    mask = torch.ones(n_layers, n_heads)
    mask.view(-1)[:n_removed] = 0

    def removed() -> int:  # building the model and the pruned Linear layers draws random numbers
        model = BertModel(cfg).eval()
        return heads.count_parameters(model) - heads.count_parameters(heads.prune_heads(model, mask))

    return quiet_build(removed)


def _head_mistakes(d: int, h: int, n: int) -> dict[str, int]:
    hd = d // h
    return {
        "no bias": n * 4 * hd * d,
        "out bias": n * (4 * hd * d + 4 * hd),
        "no out": n * 3 * (hd * d + hd),
        "full width": n * (4 * d * d + 3 * d),
    }


_HEAD_HINTS = {
    "no bias": "the query, key and value projections lose their biases for that head too.",
    "out bias": "the output projection's bias is d wide and shared by all heads: it stays.",
    "no out": "the attention output projection loses the head's input columns as well.",
    "full width": "a head is only d / n_heads wide: it owns that many rows of each of Q, K and V.",
}


@checker("ex-survey6-head-params")
def _check_survey6_heads(answer):
    """``answer``: a function ``params_removed(d_model, n_heads, n_removed)`` returning how many parameters
    physically removing ``n_removed`` heads deletes; run on hidden shapes, exact."""
    return judge_function(
        answer,
        "params_removed",
        SURVEY6_HEAD_CASES,
        read=as_whole_number,
        refuse="params_removed should return a whole number of parameters, got {first!r}.",
        truth=survey6_head_truth,
        mistakes=_head_mistakes,
        hints=_HEAD_HINTS,
        ok=(
            "correct: heads are a small share of a BERT's parameters — the embeddings and the feed-forward layers "
            "stay — which is why pruning 40% of them buys little speed."
        ),
        not_yet=lambda i, v, t: (
            f"not yet: params_removed{SURVEY6_HEAD_CASES[i]} = {v[i]:,} is too "
            f"{'many' if v[i] > t[i] else 'few'}; list which rows and columns of which Linear "
            "layers belong to one head."
        ),
    )


SURVEY6_MAGNITUDE_SPARSITIES: tuple[float, ...] = (0.3, 0.5, 0.8)


def _magnitude_models() -> list:
    """Two small random BERT encoders; one matrix family is scaled up so that a global threshold and a
    per-matrix one disagree clearly."""
    import torch
    from transformers import BertConfig, BertModel

    out = []
    for seed, (layers, d) in enumerate(((2, 32), (3, 24))):
        cfg = BertConfig(
            vocab_size=16,
            hidden_size=d,
            num_hidden_layers=layers,
            num_attention_heads=2,
            intermediate_size=4 * d,
            max_position_embeddings=16,
        )

        def build(cfg=cfg, seed=seed):
            torch.manual_seed(seed)
            m = BertModel(cfg).eval()
            with torch.no_grad():
                m.encoder.layer[1].intermediate.dense.weight.mul_(3.0)
                m.encoder.layer[0].attention.self.query.weight.mul_(0.3)
            return m

        out.append(quiet_build(build))
    return out


def _magnitude_cases() -> list[tuple[dict, float, dict]]:
    """(weights, sparsity, true masks) per hidden case: weights {name: a copy of the block Linear weights}."""
    from bertology_lib.interventions import compression as comp

    cases = []
    for model in _magnitude_models():
        layers = comp.prunable_weights(model)
        for s in SURVEY6_MAGNITUDE_SPARSITIES:
            cases.append(({n: m.weight.detach().clone() for n, m in layers.items()}, s, comp.magnitude_masks(model, s)))
    return cases


def _per_matrix(weights: dict, s: float) -> dict:
    out = {}
    for n, w in weights.items():
        k = round(s * w.numel())
        out[n] = w.abs() > w.abs().flatten().kthvalue(k).values if k else w.abs() >= 0
    return out


def _as_bool(x: Any):
    """``x`` as a bool torch tensor (a student's mask may be a numpy array or a list)."""
    import torch

    return torch.as_tensor(x).bool()


def _mask_disagreement(got: dict, want: dict) -> float | None:
    """Share of weights on which two mask dicts disagree, or None when ``got`` is not masks of the same shapes."""

    if not isinstance(got, dict) or set(got) != set(want):
        return None
    wrong = total = 0
    for n, m in want.items():
        try:
            g = _as_bool(got[n])
        except (TypeError, ValueError, RuntimeError):
            return None
        if tuple(g.shape) != tuple(m.shape):
            return None
        wrong += int((g != m).sum())
        total += m.numel()
    return wrong / total


@checker("ex-survey6-magnitude")
def _check_survey6_magnitude(answer):
    """``answer``: a function ``global_masks(weights, sparsity)`` taking {name: weight tensor} of the block
    Linear layers and returning {name: bool mask} (True = keep) that removes the ``sparsity`` share of all
    those weights with the smallest magnitude, one threshold for all; run on hidden models, at most 0.1% of
    the weights may disagree (ties at the threshold)."""
    cases = _magnitude_cases()
    got, err = run_cases(
        answer, "global_masks", [(dict(w), s) for w, s, _ in cases], lambda c: f"global_masks(weights, {c[1]})"
    )
    if err:
        return False, err
    dis = [_mask_disagreement(g, want) for g, (_, _, want) in zip(got, cases)]
    if any(x is None for x in dis):
        return False, (
            "global_masks should return a dict with the same names as `weights` and one bool tensor of "
            "the weight's shape per name (True = keep)."
        )
    if all(x <= 0.001 for x in dis):
        return True, (
            "correct: one threshold for all matrices, so a matrix with larger weights keeps more of them; "
            "compare the kept share per layer."
        )
    kept = [
        sum(int(_as_bool(g[n]).sum()) for n in g) / sum(w[n].numel() for n in w) for g, (w, _, _) in zip(got, cases)
    ]
    if all(abs(k - s) < 0.01 for k, (_, s, _) in zip(kept, cases)):
        return False, (
            "you keep the `sparsity` share of the weights; sparsity is the share set to zero (the mask "
            "is True where a weight stays)."
        )
    if all(abs(k - (1 - s)) < 0.01 for k, (_, s, _) in zip(kept, cases)):
        if all(_mask_disagreement(g, _per_matrix(w, s)) <= 0.001 for g, (w, s, _) in zip(got, cases)):
            return False, (
                "those are per-matrix thresholds: Gordon et al. (and comp.magnitude_masks) rank all block "
                "weights together, with one global threshold."
            )
        return False, (
            "the right number of weights is kept, but not the right ones: keep the largest magnitudes "
            "(|w|), ranked across all the matrices together."
        )
    return False, (
        "not yet: with sparsity s, the mask should keep (1 - s) of all the weights in `weights`, those "
        "with the largest |w| over all matrices taken together."
    )
