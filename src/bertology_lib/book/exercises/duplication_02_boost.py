"""Checkers of the exercises of ``duplication_02_boost`` (Duplicating layers to boost fine-tuning, Kao et al. 2020):

* ``ex-dup2-seeds-needed``: how many seeds a paired gain of the paper's size needs;
* ``ex-dup2-duplicate``: the duplication itself, a deeper model whose first k blocks are followed by independent
  copies.

Every answer is a function, run on hidden cases; the truths come from the library (``stats.paired_test``,
``interventions.duplication``) on inputs built here, so none depends on the profile the notebook runs at. Models are
built inside ``torch.random.fork_rng``, so checking never moves a notebook's random state. Used by that notebook's
exercise cells.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from bertology_lib.book.exercises.cases import judge_function, quiet_build, run_cases
from bertology_lib.book.exercises.checks import as_whole_number, checker


DUP2_SEEDS_CASES: tuple[tuple[float, float], ...] = (
    (0.02, 0.015),
    (0.05, 0.006),
    (0.01, 0.03),
    (0.004, 0.015),
    (0.0, 0.01),
    (1.2, 1.5),
)


def dup2_seeds_truth(sd_diff: float, gain: float, limit: int = 100_000) -> int:
    """The fewest seeds n >= 2 for which a mean paired gain ``gain`` with standard deviation ``sd_diff`` over
    seeds has its 95% interval above 0 (the IntervalAbove(0) rule): the first n whose
    ``stats.paired_test`` of n differences with exactly that mean and sd gives ``ci_low > 0``."""
    from bertology_lib.stats import paired_test

    def lower(n: int) -> float:
        z = [i - (n - 1) / 2 for i in range(n)]
        s = math.sqrt(sum(v * v for v in z) / (n - 1))
        d = [gain + sd_diff * v / s for v in z]
        return paired_test(d, [0.0] * n).ci_low

    lo, hi = 2, 2
    while lower(hi) <= 0:  # doubling, then bisection: the lower end rises with n
        lo, hi = hi + 1, hi * 2
        if hi > limit:
            raise ValueError(f"more than {limit} seeds for sd_diff={sd_diff}, gain={gain}")
    while lo < hi:
        mid = (lo + hi) // 2
        lo, hi = (mid + 1, hi) if lower(mid) <= 0 else (lo, mid)
    return hi


def _seeds_mistakes(sd: float, gain: float) -> dict[str, int]:
    from scipy import stats as st

    def first(ok):
        n = 2
        while not ok(n):
            n += 1
        return n

    return {
        "z": first(lambda n: gain - 1.959964 * sd / math.sqrt(n) > 0),
        "full width": first(lambda n: gain - 2 * float(st.t.ppf(0.975, n - 1)) * sd / math.sqrt(n) > 0),
        "n df": first(lambda n: gain - float(st.t.ppf(0.975, n)) * sd / math.sqrt(n) > 0),
    }


_SEEDS_HINTS = {
    "z": "with few seeds the interval uses Student's t with n - 1 degrees of freedom; 1.96 is its large-n limit.",
    "full width": "only the lower end has to clear 0: it sits one half-width, t x sd / sqrt(n), below the mean.",
    "n df": "the t quantile has n - 1 degrees of freedom (n paired differences, one mean estimated).",
}


@checker("ex-dup2-seeds-needed")
def _check_dup2_seeds(answer):
    """``answer``: a function ``seeds_needed(sd_diff, gain)`` returning the fewest seeds (at least 2) for which
    a mean paired gain ``gain``, whose per-seed differences have standard deviation ``sd_diff``, gets a 95% t
    interval entirely above 0; run on hidden values, exact."""

    def not_yet(i, v, t):
        if v[i] < 2:
            return "a paired t interval needs at least 2 seeds."
        return (
            f"not yet: seeds_needed{DUP2_SEEDS_CASES[i]} = {v[i]} is too {'many' if v[i] > t[i] else 'few'}; "
            "find the smallest n with gain - t(0.975, n - 1) x sd_diff / sqrt(n) > 0."
        )

    return judge_function(
        answer,
        "seeds_needed",
        DUP2_SEEDS_CASES,
        read=as_whole_number,
        refuse="seeds_needed should return a whole number of seeds, got {first!r}.",
        truth=dup2_seeds_truth,
        mistakes=_seeds_mistakes,
        hints=_SEEDS_HINTS,
        ok=(
            "correct: the count grows with (sd / gain)^2 — halving the seed noise saves three quarters of the "
            "fine-tunings."
        ),
        not_yet=not_yet,
    )


DUP2_DUPLICATE_CASES: tuple[tuple[int, int, int], ...] = ((3, 16, 1), (3, 16, 3), (4, 24, 2), (4, 16, 0))
"""(blocks, width, k) of the hidden BERT encoders and how many of their first blocks to duplicate."""


def _hidden_encoder(n_layers: int, d: int, seed: int):
    """A small random ``BertModel`` (eval mode) whose blocks all differ, built without moving the global
    random state."""
    import torch
    from transformers import BertConfig, BertModel

    def build():
        torch.manual_seed(100 + seed)
        cfg = BertConfig(
            vocab_size=40,
            hidden_size=d,
            num_hidden_layers=n_layers,
            num_attention_heads=2,
            intermediate_size=2 * d,
            max_position_embeddings=16,
        )
        return BertModel(cfg).eval()

    return quiet_build(build)


def dup2_duplicate_cases() -> list[tuple]:
    """``(model, k)`` per case: a fresh hidden encoder each time, so nothing a student's function does to
    one model reaches another case."""
    return [(_hidden_encoder(n, d, i), k) for i, (n, d, k) in enumerate(DUP2_DUPLICATE_CASES)]


def dup2_duplicate_truth(model, k: int):
    """The deeper model: ``interventions.duplication.duplicate_layers`` with the pattern
    ``duplication_pattern(n_blocks, "first", k=k)`` (block i < k followed by its copy)."""
    from bertology_lib.interventions.duplication import duplicate_layers, duplication_pattern

    return duplicate_layers(model, duplication_pattern(len(model.encoder.layer), "first", k=k))


def _state(module) -> dict:
    return {n: t.detach().clone() for n, t in module.state_dict().items()}


def _same_state(a: dict, b: dict) -> bool:
    import torch

    return a.keys() == b.keys() and all(a[n].shape == b[n].shape and torch.equal(a[n], b[n]) for n in a)


def _block_pattern(blocks, sources: list[dict]) -> list[int] | None:
    """Which source block (by its saved state) every block of ``blocks`` equals; None when one equals none."""
    out = []
    for blk in blocks:
        state = _state(blk)
        match = [j for j, s in enumerate(sources) if _same_state(state, s)]
        if not match:
            return None
        out.append(match[0])
    return out


def _duplicate_mistakes(n: int, k: int) -> dict[str, list[int]]:
    def first(j):
        return [i for i in range(n) for _ in range(2 if i < j else 1)]

    return {
        "appended": list(range(n)) + list(range(k)),
        "one more": first(min(k + 1, n)),
        "one fewer": first(max(k - 1, 0)),
        "last": [i for i in range(n) for _ in range(2 if i >= n - k else 1)],
    }


_DUPLICATE_HINTS = {
    "appended": "the copies go right after their originals (0, 0', 1, 1', ...), not after the last block: the "
    "order of the blocks is the order of the computation.",
    "one more": "off by one: duplicate exactly the first k blocks, 0 .. k - 1 (k = 0 leaves the model as deep "
    "as it was).",
    "one fewer": "off by one: duplicate exactly the first k blocks, 0 .. k - 1 (with k = n every block is duplicated).",
    "last": "duplicate the *first* k blocks (the notebook's `first k duplicated` variant), not the last ones.",
}


def _shared(params_out: Sequence, params_in: Sequence) -> str | None:
    """Which parameters the deeper model shares: among its own blocks or with the input model."""
    ptrs = [p.data_ptr() for p in params_out]
    if len(set(ptrs)) < len(ptrs):
        return (
            "a block and its copy share their parameters (the same module twice): use an independent "
            "copy (copy.deepcopy of the block), so that fine-tuning can move the copy away from its original."
        )
    if set(ptrs) & {p.data_ptr() for p in params_in}:
        return (
            "the deeper model shares parameters with the input model: copy the model (copy.deepcopy) before "
            "replacing its blocks, so that fine-tuning one never changes the other."
        )
    return None


@checker("ex-dup2-duplicate")
def _check_dup2_duplicate(answer):
    """``answer``: a function ``duplicate_first(model, k)`` returning a new BERT encoder whose blocks
    (``model.encoder.layer``) are the input's with each of the first k followed by an independent copy of
    itself (0, 0', 1, 1', ..., k-1, (k-1)', k, ...), ``config.num_hidden_layers`` updated and the input model
    unchanged; run on hidden small BERTs, the blocks compared exactly (weights, order, no shared parameters)
    and the outputs within 1e-5 of those of ``interventions.duplication.duplicate_layers``."""
    import torch

    cases = dup2_duplicate_cases()
    before = [(_state(m), [_state(b) for b in m.encoder.layer]) for m, _ in cases]
    inputs = [list(m.parameters()) for m, _ in cases]
    got, err = run_cases(
        answer,
        "duplicate_first",
        cases,
        lambda c: f"duplicate_first(model, k={c[1]}) on a hidden {len(c[0].encoder.layer)}-block BERT",
    )
    if err:
        return False, err
    for out, (model, k), (whole, blocks), params_in in zip(got, cases, before, inputs):
        n = len(blocks)
        where = f"duplicate_first(model, k={k}) on a {n}-block BERT"
        if not _same_state(_state(model), whole) or len(model.encoder.layer) != n:
            return False, (
                f"{where} changed the input model: copy it first (copy.deepcopy) and change the copy, "
                "so the baseline stays the model it was."
            )
        if out is model:
            return False, (
                f"{where} returned the input model itself: build a new model (copy.deepcopy of the "
                "input, then its blocks replaced), so the baseline stays the model it was."
            )
        layers = getattr(getattr(out, "encoder", None), "layer", None)
        if not isinstance(out, torch.nn.Module) or not isinstance(layers, torch.nn.ModuleList):
            return False, (
                f"{where} returned {type(out).__name__}: return the deeper model itself, a BERT encoder "
                "whose blocks are in `encoder.layer`."
            )
        pattern = _block_pattern(layers, blocks)
        truth = [i for i in range(n) for _ in range(2 if i < k else 1)]
        if pattern is None:
            return False, (
                f"{where}: a block of the deeper model is not an exact copy of any block of the input; "
                "copy the blocks as they are, weights unchanged."
            )
        if pattern != truth:
            for key, wrong in _duplicate_mistakes(n, k).items():
                if pattern == wrong:
                    return False, f"{where}: {_DUPLICATE_HINTS[key]}"
            return False, (
                f"{where} has {len(pattern)} blocks in the wrong order: block i < k is followed by its "
                "copy, every other block appears once, in the original order."
            )
        shared = _shared([p for _, p in out.named_parameters(remove_duplicate=False)], params_in)
        if shared:
            return False, f"{where}: {shared}"
        if getattr(getattr(out, "config", None), "num_hidden_layers", None) != len(truth):
            return False, (
                f"{where}: set the deeper model's config.num_hidden_layers to its number of blocks, so "
                "that save_pretrained / from_pretrained rebuild it with all of them."
            )
        ids = torch.arange(4, 32).view(2, 14)
        with torch.no_grad():
            ref = dup2_duplicate_truth(model, k).eval()(input_ids=ids).last_hidden_state
            try:
                mine = out.eval()(input_ids=ids).last_hidden_state
            except Exception as e:  # noqa: BLE001 - a student's bug becomes feedback
                return False, f"{where}: running the deeper model raised {type(e).__name__}: {e}"
        if mine.shape != ref.shape or float((mine - ref).abs().max()) > 1e-5:
            return False, (
                f"{where}: the blocks are right but the model computes something else; change only "
                "`encoder.layer` (and the config) of a copy of the input model."
            )
    return True, (
        "correct: the deeper model computes something new (each copy applies its block a second time), "
        "yet starts from pretrained weights; fine-tuning then moves the copies apart."
    )
