"""Checkers of the exercises of the later duplication notebooks (Kao et al. 2020), beside the first ones
in ``duplication``:

* ``duplication_02_boost``: ``ex-dup2-duplicate`` (the duplication itself: a deeper model whose first k
  blocks are followed by independent copies);
* ``duplication_02b_nli_classification``: ``ex-dup2-floor-gap`` (the instrument check: the baseline's score
  minus the majority-label floor, over seeds);
* ``duplication_03_real_encoder``: ``ex-dup3-no-gain`` (the verdict of a claim of *no* gain under the
  equivalence rule) and ``ex-dup3-detectable`` (the gain a paired t test could detect at these seeds).

Every answer is a function, run on hidden cases; the truths come from the library
(``interventions.duplication``, ``data.tasks.floor_scores``, ``stats.paired_test``, the claim rule
``Equivalent``, ``experiments.duplication.boost.detectable_gain``) on inputs built here, so none depends on
the profile a notebook runs at. Models are built inside ``torch.random.fork_rng`` (``quiet_build``), so
checking never moves a notebook's random state. Used by those notebooks' exercise cells.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

from bertology_lib.book.exercises.cases import close_all, numbers, quiet_build, run_cases
from bertology_lib.book.exercises.checks import as_number, checker

# =========================================================================== duplication_02_boost

DUP2_DUPLICATE_CASES: tuple[tuple[int, int, int], ...] = ((3, 16, 1), (3, 16, 3), (4, 24, 2), (4, 16, 0))
"""(blocks, width, k) of the hidden BERT encoders and how many of their first blocks to duplicate."""


def _hidden_encoder(n_layers: int, d: int, seed: int):
    """A small random ``BertModel`` (eval mode) whose blocks all differ, built without moving the global
    random state."""
    import torch
    from transformers import BertConfig, BertModel

    def build():
        torch.manual_seed(100 + seed)
        cfg = BertConfig(vocab_size=40, hidden_size=d, num_hidden_layers=n_layers, num_attention_heads=2,
                         intermediate_size=2 * d, max_position_embeddings=16)
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

    return {"appended": list(range(n)) + list(range(k)), "one more": first(min(k + 1, n)),
            "one fewer": first(max(k - 1, 0)), "last": [i for i in range(n) for _ in range(2 if i >= n - k else 1)]}


_DUPLICATE_HINTS = {
    "appended": "the copies go right after their originals (0, 0', 1, 1', ...), not after the last block: the "
                "order of the blocks is the order of the computation.",
    "one more": "off by one: duplicate exactly the first k blocks, 0 .. k - 1 (k = 0 leaves the model as deep "
                "as it was).",
    "one fewer": "off by one: duplicate exactly the first k blocks, 0 .. k - 1 (with k = n every block is "
                 "duplicated).",
    "last": "duplicate the *first* k blocks (the notebook's `first k duplicated` variant), not the last ones.",
}


def _shared(params_out: Sequence, params_in: Sequence) -> str | None:
    """Which parameters the deeper model shares: among its own blocks or with the input model."""
    ptrs = [p.data_ptr() for p in params_out]
    if len(set(ptrs)) < len(ptrs):
        return ("a block and its copy share their parameters (the same module twice): use an independent "
                "copy (copy.deepcopy of the block), so that fine-tuning can move the copy away from its original.")
    if set(ptrs) & {p.data_ptr() for p in params_in}:
        return ("the deeper model shares parameters with the input model: copy the model (copy.deepcopy) before "
                "replacing its blocks, so that fine-tuning one never changes the other.")
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
    got, err = run_cases(answer, "duplicate_first", cases,
                         lambda c: f"duplicate_first(model, k={c[1]}) on a hidden {len(c[0].encoder.layer)}-block BERT")
    if err:
        return False, err
    for out, (model, k), (whole, blocks), params_in in zip(got, cases, before, inputs):
        n = len(blocks)
        where = f"duplicate_first(model, k={k}) on a {n}-block BERT"
        if not _same_state(_state(model), whole) or len(model.encoder.layer) != n:
            return False, (f"{where} changed the input model: copy it first (copy.deepcopy) and change the copy, "
                           "so the baseline stays the model it was.")
        if out is model:
            return False, (f"{where} returned the input model itself: build a new model (copy.deepcopy of the "
                           "input, then its blocks replaced), so the baseline stays the model it was.")
        layers = getattr(getattr(out, "encoder", None), "layer", None)
        if not isinstance(out, torch.nn.Module) or not isinstance(layers, torch.nn.ModuleList):
            return False, (f"{where} returned {type(out).__name__}: return the deeper model itself, a BERT encoder "
                           "whose blocks are in `encoder.layer`.")
        pattern = _block_pattern(layers, blocks)
        truth = [i for i in range(n) for _ in range(2 if i < k else 1)]
        if pattern is None:
            return False, (f"{where}: a block of the deeper model is not an exact copy of any block of the input; "
                           "copy the blocks as they are, weights unchanged.")
        if pattern != truth:
            for key, wrong in _duplicate_mistakes(n, k).items():
                if pattern == wrong:
                    return False, f"{where}: {_DUPLICATE_HINTS[key]}"
            return False, (f"{where} has {len(pattern)} blocks in the wrong order: block i < k is followed by its "
                           "copy, every other block appears once, in the original order.")
        shared = _shared([p for _, p in out.named_parameters(remove_duplicate=False)], params_in)
        if shared:
            return False, f"{where}: {shared}"
        if getattr(getattr(out, "config", None), "num_hidden_layers", None) != len(truth):
            return False, (f"{where}: set the deeper model's config.num_hidden_layers to its number of blocks, so "
                           "that save_pretrained / from_pretrained rebuild it with all of them.")
        ids = torch.arange(4, 32).view(2, 14)
        with torch.no_grad():
            ref = dup2_duplicate_truth(model, k).eval()(input_ids=ids).last_hidden_state
            try:
                mine = out.eval()(input_ids=ids).last_hidden_state
            except Exception as e:  # noqa: BLE001 - a student's bug becomes feedback
                return False, f"{where}: running the deeper model raised {type(e).__name__}: {e}"
        if mine.shape != ref.shape or float((mine - ref).abs().max()) > 1e-5:
            return False, (f"{where}: the blocks are right but the model computes something else; change only "
                           "`encoder.layer` (and the config) of a copy of the input model.")
    return True, ("correct: the deeper model computes something new (each copy applies its block a second time), "
                  "yet starts from pretrained weights; fine-tuning then moves the copies apart.")


# =========================================================================== duplication_02b_nli_classification


def _floor_cases() -> list[tuple[list[float], list[int], list[int], int]]:
    """(baseline scores over seeds, training labels, test labels, number of labels): the training majority
    differs from the test majority, one training set ties (its first label the larger one), unbalanced
    labels so the floor is not chance, few seeds so t differs from 1.96, and a baseline below its floor."""
    return [
        ([0.52, 0.49, 0.55, 0.50, 0.47], [0] * 40 + [1] * 35 + [2] * 25, [0] * 30 + [1] * 25 + [2] * 45, 3),
        ([0.61, 0.58, 0.66], [1, 0] * 30, [0] * 18 + [1] * 32, 2),
        ([0.40, 0.47], [3] * 12 + [0] * 10 + [1] * 5 + [2] * 3, [3] * 9 + [0] * 15 + [1] * 10 + [2] * 6, 4),
        ([0.30, 0.35, 0.31, 0.33], [2] * 7 + [1] * 9 + [0] * 4, [0] * 5 + [1] * 20 + [2] * 15, 3),
    ]


def _labels_task(train: Sequence[int], test: Sequence[int], n_labels: int):
    """A classification task shaped as ``data.tasks`` ones are, with these labels (what ``floor_scores``
    reads)."""
    splits = {"train": [SimpleNamespace(label=y) for y in train], "test": [SimpleNamespace(label=y) for y in test]}
    return SimpleNamespace(name="hidden", kind="classification", n_labels=n_labels,
                           label_names=[f"label {c}" for c in range(n_labels)], examples=lambda split: splits[split])


def dup2_floor_gap_truth(scores: Sequence[float], train: Sequence[int], test: Sequence[int],
                         n_labels: int) -> tuple[float, float, float]:
    """The baseline's score minus the task's floor (the test accuracy of always predicting the majority
    training label, the smaller label on a tie: ``data.tasks.floor_scores``), over seeds: mean with its 95% t
    interval (``stats.paired_test`` against 0), unrounded; what ``dup.floor_gap`` gives, before rounding."""
    from bertology_lib import stats
    from bertology_lib.data.tasks import floor_scores

    floor = floor_scores(_labels_task(train, test, n_labels), "test")["accuracy"]
    return stats.paired_test([s - floor for s in scores], [0.0] * len(scores)).interval()


def _floor_mistakes(scores: Sequence[float], train: Sequence[int], test: Sequence[int],
                    n_labels: int) -> dict[str, tuple[float, float, float]]:
    from collections import Counter

    from scipy import stats as st

    def acc(label):
        return sum(y == label for y in test) / len(test)

    def gap(floor, q=None, ddof=1, sign=1.0):
        d = [sign * (s - floor) for s in scores]
        n = len(d)
        m = sum(d) / n
        sd = math.sqrt(sum((x - m) ** 2 for x in d) / (n - ddof))
        half = (float(st.t.ppf(0.975, n - 1)) if q is None else q) * sd / math.sqrt(n)
        return m, m - half, m + half

    counts = Counter(train)
    top = max(range(n_labels), key=lambda c: (counts[c], -c))
    floor = acc(top)
    return {"test majority": gap(max(Counter(test).values()) / len(test)),
            "training share": gap(counts[top] / len(train)),
            "chance": gap(1 / n_labels),
            "first met": gap(acc(counts.most_common(1)[0][0])),
            "reversed": gap(floor, sign=-1.0),
            "z": gap(floor, q=1.959964),
            "ddof": gap(floor, ddof=0),
            "percent": tuple(100 * x for x in gap(floor))}


_FLOOR_HINTS = {
    "test majority": "the floor always predicts the most frequent *training* label (all that a model that learned "
                     "nothing can know); the test split's most frequent label peeks at the answers.",
    "training share": "the floor is the test accuracy of always predicting the majority training label, not that "
                      "label's share of the training set.",
    "chance": "the floor is not chance (1 / number of labels): always predicting the majority label scores more "
              "when the labels are unbalanced.",
    "first met": "on a tie, take the smallest label (as tasks.floor_scores does); Counter.most_common keeps "
                 "whichever label it met first.",
    "reversed": "the gap is the baseline's score minus the floor: positive when the baseline learned something.",
    "z": "with a few seeds the interval uses Student's t with n - 1 degrees of freedom; 1.96 is its large-n limit.",
    "ddof": "the standard deviation over seeds divides by n - 1 (one mean estimated), not n.",
    "percent": "give the gap in the scores' own units (accuracy as a share in [0, 1]), not in points.",
}


@checker("ex-dup2-floor-gap")
def _check_dup2_floor_gap(answer):
    """``answer``: a function ``floor_gap(scores, train_labels, test_labels)`` taking the baseline's test
    accuracy per seed and the task's training and test labels, returning ``(mean, low, high)``: the mean over
    seeds of score minus the floor (the test accuracy of always predicting the most frequent training label,
    the smallest on a tie) with its 95% t interval; run on hidden tasks, +-1e-6."""
    cases = _floor_cases()
    got, err = run_cases(answer, "floor_gap", [c[:3] for c in cases],
                         lambda c: f"floor_gap(scores, train_labels, test_labels) with {len(c[0])} seeds")
    if err:
        return False, err
    vals = [numbers(g, 3) for g in got]
    if any(v is None for v in vals):
        return False, f"floor_gap should return three numbers (mean, low, high), got {got[0]!r}."
    truth = [dup2_floor_gap_truth(*c) for c in cases]
    if all(close_all(v, t, 1e-6) for v, t in zip(vals, truth)):
        return True, ("correct: a comparison between two models is only evidence when the baseline's whole "
                      "interval is above the floor; at the floor both models learned nothing to compare.")
    mistakes = [_floor_mistakes(*c) for c in cases]
    for key, hint in _FLOOR_HINTS.items():
        if all(close_all(v, m[key], 1e-6) for v, m in zip(vals, mistakes)):
            return False, hint
    i = next(i for i, (v, t) in enumerate(zip(vals, truth)) if not close_all(v, t, 1e-6))
    if abs(vals[i][0] - truth[i][0]) <= 1e-6:
        return False, ("the mean gap is right but not its interval: mean -+ t(0.975, n - 1) x sd / sqrt(n), with the "
                       "sd of the per-seed gaps.")
    return False, ("not yet: the floor is the share of test labels equal to the most frequent training label; "
                   "subtract it from every seed's score, then take the mean and its 95% t interval.")


# =========================================================================== duplication_03_real_encoder

DUP3_NO_GAIN_CASES: tuple[tuple[tuple[float, ...], float], ...] = (
    ((0.3, -0.2, 0.5, 0.1, 0.0), 1.0),  # tight around 0: within the margin
    ((0.4, -1.5, 2.0, 0.8, -0.9), 1.0),  # mean inside the margin, interval wider than it
    ((2.5, 3.1, 2.8, 3.6, 2.2), 1.0),  # wholly above the margin
    ((-2.0, -2.6, -1.7, -3.0), 1.0),  # a loss, wholly below -margin
    ((1.6, 0.8, 2.4, 1.2, 2.0), 1.0),  # mean beyond the margin, interval straddling it
    ((0.2, 0.9, 0.55), 1.0),  # inside with 1.96, not with t(0.975, 2)
    ((0.6, 0.7, 0.5, 0.65), 0.5),  # above 0, beyond a smaller margin
    ((1.2, 0.4, 1.0, 0.9, 0.5, 1.1), 2.0),  # above 0 yet within a wider margin
)


def dup3_no_gain_truth(gains: Sequence[float], margin: float) -> str:
    """The verdict of a claim of no effect on per-seed paired gains: the claim rule ``Equivalent(margin)`` on
    the 95% t interval of the mean gain (``stats.paired_test`` against 0): whole interval within ±margin:
    reproduced; wholly beyond it on one side: not reproduced; else inconclusive."""
    from bertology_lib import stats
    from bertology_lib.book.claims.rules import Equivalent

    interval = stats.paired_test(list(gains), [0.0] * len(gains)).interval()
    return Equivalent(margin).verdict(None, interval).value


def _no_gain_mistakes(gains: Sequence[float], margin: float) -> dict[str, str]:
    from scipy import stats as st

    n = len(gains)
    m = sum(gains) / n
    sd = math.sqrt(sum((g - m) ** 2 for g in gains) / (n - 1))

    def interval(q):
        half = q * sd / math.sqrt(n)
        return m - half, m + half

    lo, hi = interval(float(st.t.ppf(0.975, n - 1)))
    zlo, zhi = interval(1.959964)

    def rule(low, high):
        if -margin <= low and high <= margin:
            return "reproduced"
        return "not reproduced" if low > margin or high < -margin else "inconclusive"

    return {"mean": "reproduced" if abs(m) <= margin else "not reproduced",
            "contains zero": "reproduced" if lo <= 0 <= hi else "not reproduced",
            "partly outside": "reproduced" if -margin <= lo and hi <= margin else "not reproduced",
            "above zero": "not reproduced" if lo > 0 else ("reproduced" if hi < 0 else "inconclusive"),
            "one side": ("reproduced" if -margin <= lo and hi <= margin else
                         "not reproduced" if lo > margin else "inconclusive"),
            "z": rule(zlo, zhi)}


_NO_GAIN_HINTS = {
    "mean": "a mean gain within the margin is not enough: the whole 95% interval must lie within ±margin, and one "
            "that crosses the margin is inconclusive (too few seeds to tell).",
    "contains zero": "an interval that contains 0 is not evidence of no gain when it is wider than the margin: "
                     "'not significant' is not 'no effect'.",
    "partly outside": "not reproduced only when the whole interval lies beyond the margin on one side; an interval "
                      "that crosses the margin is inconclusive.",
    "above zero": "this is a claim of *no* gain, judged by the equivalence rule (the interval within ±margin), "
                  "not a claim of a gain (the interval above 0).",
    "one side": "a loss larger than the margin is an effect too: an interval wholly below -margin is not "
                "reproduced.",
    "z": "with a few seeds the interval uses Student's t with n - 1 degrees of freedom; 1.96 is its large-n limit.",
}

_VERDICTS = ("reproduced", "not reproduced", "inconclusive")


def _verdict_text(x: Any) -> str | None:
    x = getattr(x, "value", x)
    return x.strip().lower() if isinstance(x, str) and x.strip().lower() in _VERDICTS else None


@checker("ex-dup3-no-gain")
def _check_dup3_no_gain(answer):
    """``answer``: a function ``no_gain_verdict(gains, margin)`` taking the per-seed paired gains (duplicated
    minus baseline, in points) and the equivalence margin, returning ``"reproduced"`` when the whole 95% t
    interval of the mean gain lies within ±margin, ``"not reproduced"`` when it lies wholly beyond the margin on
    one side, ``"inconclusive"`` otherwise; run on hidden gains, exact."""
    got, err = run_cases(answer, "no_gain_verdict", DUP3_NO_GAIN_CASES,
                         lambda c: f"no_gain_verdict({list(c[0])}, {c[1]})")
    if err:
        return False, err
    verdicts = [_verdict_text(g) for g in got]
    if any(v is None for v in verdicts):
        bad = next(g for g, v in zip(got, verdicts) if v is None)
        return False, f"return one of {', '.join(repr(v) for v in _VERDICTS)}, got {bad!r}."
    truth = [dup3_no_gain_truth(*c) for c in DUP3_NO_GAIN_CASES]
    if verdicts == truth:
        return True, ("correct: a claim of no effect needs power — with few seeds the interval is wider than the "
                      "margin and the honest verdict is inconclusive, not 'no gain'.")
    mistakes = [_no_gain_mistakes(*c) for c in DUP3_NO_GAIN_CASES]
    for key, hint in _NO_GAIN_HINTS.items():
        if verdicts == [m[key] for m in mistakes]:
            return False, hint
    i = next(i for i, (v, t) in enumerate(zip(verdicts, truth)) if v != t)
    gains, margin = DUP3_NO_GAIN_CASES[i]
    return False, (f"not yet: no_gain_verdict({list(gains)}, {margin}) = {verdicts[i]!r} is wrong; compute the 95% t "
                   "interval of the mean gain and compare both of its ends with -margin and +margin.")


DUP3_DETECTABLE_CASES: tuple[tuple[float, int], ...] = ((1.0, 5), (2.5, 3), (0.6, 2), (0.02, 10), (4.0, 30))


def _fake_results(sd_diff: float, n: int) -> dict[str, list]:
    """Per-seed results shaped as ``finetune.FinetuneResult`` (only ``score``) whose paired differences have
    standard deviation exactly ``sd_diff``."""
    z = [i - (n - 1) / 2 for i in range(n)]
    s = math.sqrt(sum(v * v for v in z) / (n - 1))

    def result(v: float):
        return SimpleNamespace(score=lambda split="test", metric=None, v=v: v)

    return {"variant": [result(0.5 + sd_diff * v / s) for v in z], "baseline": [result(0.5)] * n}


def dup3_detectable_truth(sd_diff: float, n: int) -> float:
    """The smallest true gain a two-sided paired t test at 5% detects with 80% power from ``n`` seeds whose
    paired differences have standard deviation ``sd_diff``: ``dup.detectable_gain`` on results with exactly
    that spread, (t(0.975, n-1) + t(0.8, n-1)) x sd_diff / sqrt(n)."""
    from bertology_lib.experiments.duplication import boost as dup

    return dup.detectable_gain(_fake_results(sd_diff, n), "variant")["detectable"]


def _detectable_mistakes(sd: float, n: int) -> dict[str, float]:
    from scipy import stats as st

    def t(q, df=n - 1):
        return float(st.t.ppf(q, df))

    se = sd / math.sqrt(n)
    return {"z": (1.959964 + 0.841621) * se, "one-sided": (t(0.95) + t(0.8)) * se, "no power": t(0.975) * se,
            "minus": (t(0.975) - t(0.8)) * se, "n df": (t(0.975, n) + t(0.8, n)) * se,
            "no sqrt": (t(0.975) + t(0.8)) * sd, "sd over n": (t(0.975) + t(0.8)) * sd / n}


_DETECTABLE_HINTS = {
    "z": "with a few seeds use Student's t quantiles with n - 1 degrees of freedom; 1.96 and 0.84 are their large-n "
         "limits.",
    "one-sided": "the paired test is two-sided at the 5% level: its critical value is t(0.975, n - 1), not "
                 "t(0.95, n - 1).",
    "no power": "a true gain at the critical value is detected only half of the time; for 80% power add "
                "t(0.8, n - 1) standard errors.",
    "minus": "the power quantile adds: a gain detected 80% of the time sits t(0.8, n - 1) standard errors above the "
             "critical value, not below it.",
    "n df": "the t quantiles have n - 1 degrees of freedom (n paired differences, one mean estimated).",
    "no sqrt": "the mean of n paired differences has standard error sd_diff / sqrt(n): more seeds detect smaller "
               "gains.",
    "sd over n": "the standard error of a mean of n differences is sd_diff / sqrt(n), not sd_diff / n.",
}


@checker("ex-dup3-detectable")
def _check_dup3_detectable(answer):
    """``answer``: a function ``detectable_gain(sd_diff, n)`` returning the smallest true gain that a two-sided
    paired t test at the 5% level detects with 80% power from n seeds whose paired differences have standard
    deviation sd_diff, in sd_diff's units; run on hidden values, within 1e-6 relative."""
    got, err = run_cases(answer, "detectable_gain", DUP3_DETECTABLE_CASES)
    if err:
        return False, err
    vals = [as_number(g) for g in got]
    if any(v is None for v in vals):
        return False, f"detectable_gain should return a number, got {got[0]!r}."
    truth = [dup3_detectable_truth(*c) for c in DUP3_DETECTABLE_CASES]

    def near(xs, ts):
        return len(xs) == len(ts) and all(abs(x - t) <= 1e-6 * abs(t) for x, t in zip(xs, ts))

    if near(vals, truth):
        return True, ("correct: it shrinks like 1 / sqrt(n), and faster at few seeds where the t quantiles are large; "
                      "a 'no gain' verdict means something only once it is below the margin.")
    for key, hint in _DETECTABLE_HINTS.items():
        if near(vals, [_detectable_mistakes(*c)[key] for c in DUP3_DETECTABLE_CASES]):
            return False, hint
    i = next(i for i, (v, t) in enumerate(zip(vals, truth)) if abs(v - t) > 1e-6 * abs(t))
    return False, (f"not yet: detectable_gain{DUP3_DETECTABLE_CASES[i]} = {vals[i]:.4g} is too "
                   f"{'large' if vals[i] > truth[i] else 'small'}; it is (t(0.975, n - 1) + t(0.8, n - 1)) "
                   "x sd_diff / sqrt(n).")
