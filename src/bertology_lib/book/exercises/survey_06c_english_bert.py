"""Checkers of the exercises of ``survey_06c_english_bert`` (§6 III: pruning and quantising the English lab BERT,
Rogers et al. 2020):

* ``ex-s6e-int8-bytes``: the bytes that int8 dynamic quantisation leaves to a model's Linear layers;
* ``ex-s6e-gain-kept``: the share of the full model's gain over the majority-label floor that survives each cut
  of the head-pruning curve.

Every answer is a function, run on hidden cases. The truth of the first comes from the library
(``interventions.compression.linear_weight_bytes`` of ``quantize_int8``) on small random BERT classifiers built
here; the library has no function for the second, so its truth is :func:`s6e_gain_kept_truth`, on pruning curves
made up here in the shape ``experiments.survey.model_size.real_encoder_check`` returns. None depends on the profile
the notebook runs at or needs a fine-tuned model. Models are built inside ``torch.random.fork_rng``
(``quiet_build``) and a student's function runs inside one too, so checking never moves a notebook's random state.
Used by that notebook's exercise cells.
"""

from __future__ import annotations

from typing import Any

from bertology_lib.book.exercises.cases import judge_function, quiet_build
from bertology_lib.book.exercises.checks import as_number, as_whole_number, checker


S6E_INT8_CASES: tuple[tuple[int, int, int, int, int, bool], ...] = (
    (2, 4, 32, 64, 2, False),
    (1, 2, 24, 80, 3, True),
)
"""(blocks, heads per block, width, feed-forward width, labels, odd) of the hidden classifiers: the library's
``SequenceClassifier`` on a random BERT; an ``odd`` one also keeps BERT's pooler and has a classification
``dense`` layer without bias (a Linear layer whose ``bias`` is None)."""


def _int8_case(i: int):
    """The hidden classifier of case ``i``, built afresh on every call without moving the global random state."""
    import torch
    from transformers import BertConfig, BertModel

    from bertology_lib.models.task_heads import SequenceClassifier

    n_layers, n_heads, d, d_ff, n_labels, odd = S6E_INT8_CASES[i]

    def build():
        torch.manual_seed(400 + i)
        cfg = BertConfig(
            vocab_size=50,
            hidden_size=d,
            num_hidden_layers=n_layers,
            num_attention_heads=n_heads,
            intermediate_size=d_ff,
            max_position_embeddings=16,
        )
        model = SequenceClassifier(BertModel(cfg, add_pooling_layer=odd), n_labels, seed=i)
        if odd:
            model.dense = torch.nn.Linear(d, d, bias=False)
        return model.eval()

    return quiet_build(build)


def s6e_int8_truth(model) -> int:
    """The bytes of ``model``'s Linear layers after int8 dynamic quantisation, as the library counts them:
    ``compression.linear_weight_bytes(compression.quantize_int8(model))`` (per layer: the int8 weight, 1 byte an
    entry; 16 bytes of per-tensor scale and zero point; the bias, if any, in fp32)."""
    from bertology_lib.interventions.compression import linear_weight_bytes, quantize_int8

    return int(linear_weight_bytes(quantize_int8(model)))


def _int8_mistakes(model) -> dict[str, int]:
    """The answers of typical mistakes on a model."""
    import torch

    lin = [m for m in model.modules() if isinstance(m, torch.nn.Linear)]
    w = sum(m.weight.numel() for m in lin)
    b = sum(m.bias.numel() for m in lin if m.bias is not None)
    n = len(lin)
    params = list(model.parameters())
    every = sum(p.numel() for p in params)
    fp32 = sum(p.numel() * 4 for p in params)
    return {
        "bias int8": w + b + 16 * n,
        "bias int8 bare": w + b,
        "no scale": w + 4 * b,
        "per row": w + 4 * b + 16 * sum(m.out_features for m in lin),
        "weights only": w + 16 * n,
        "weights bare": w,
        "bias always": w + 16 * n + 4 * sum(m.out_features for m in lin),
        "every parameter": every,
        "every parameter + scale": every + 16 * n,
        "every tensor + scale": every + 16 * len(params),
        "whole model": fp32 - 4 * (w + b) + w + 4 * b + 16 * n,
        "fp32": 4 * (w + b),
        "fp32 weights": 4 * w,
    }


_INT8_HINTS = {
    "bias int8": "dynamic quantisation keeps the biases in fp32: 4 bytes per bias entry, not 1.",
    "bias int8 bare": "keep the biases in fp32 (4 bytes an entry, not 1), and add 16 bytes per Linear layer for "
    "its scale and zero point.",
    "no scale": "add 16 bytes per Linear layer: each int8 matrix keeps its scale (float64) and zero point (int64).",
    "per row": "one scale and zero point per matrix (per tensor, 16 bytes per Linear layer), not one per row.",
    "weights only": "add the biases, kept in fp32: 4 bytes per bias entry.",
    "weights bare": "that counts only the int8 weights: add each layer's bias in fp32 (4 bytes an entry) and 16 "
    "bytes for its scale and zero point.",
    "bias always": "a Linear layer may have no bias (its .bias is None): it adds no bias bytes.",
    "every parameter": "count only the nn.Linear layers: dynamic quantisation leaves the embeddings and the "
    "LayerNorms in fp32, and the exercise asks for the Linear layers' bytes.",
    "every parameter + scale": "count only the nn.Linear layers: dynamic quantisation leaves the embeddings and "
    "the LayerNorms in fp32, and the exercise asks for the Linear layers' bytes.",
    "every tensor + scale": "count only the nn.Linear layers: dynamic quantisation leaves the embeddings and the "
    "LayerNorms in fp32, and the exercise asks for the Linear layers' bytes.",
    "whole model": "that is the whole model with int8 Linear layers; the exercise asks for the Linear layers' "
    "bytes only (the modules that are nn.Linear).",
    "fp32": "that is the size in fp32 (4 bytes an entry); int8 stores each weight in 1 byte.",
    "fp32 weights": "that is the weights' size in fp32 (4 bytes an entry); int8 stores each weight in 1 byte, "
    "and the biases stay in fp32.",
}


@checker("ex-s6e-int8-bytes")
def _check_s6e_int8_bytes(answer):
    """``answer``: a function ``int8_linear_bytes(model)`` taking a classifier (the library's task head on a BERT,
    in fp32) and returning the bytes its ``nn.Linear`` layers take after int8 dynamic quantisation, as
    ``compression.linear_weight_bytes(compression.quantize_int8(model))`` counts them: per layer the weight in
    int8 (1 byte an entry), 16 bytes of scale and zero point, and the bias, if any, in fp32 (4 bytes an entry);
    run on hidden small BERT classifiers, exactly."""
    import torch

    n = len(S6E_INT8_CASES)

    def show(case) -> str:
        cfg = case[0].encoder.config
        return f"int8_linear_bytes(model) on a hidden {cfg.num_hidden_layers}-block BERT classifier"

    with torch.random.fork_rng(devices=[]):
        return judge_function(
            answer,
            "int8_linear_bytes",
            [(i,) for i in range(n)],
            inputs=lambda c: (_int8_case(c[0]),),  # a fresh model for the student: the truth uses its own
            show=show,
            read=as_whole_number,
            refuse="int8_linear_bytes should return a whole number of bytes (an int), got {kind}.",
            truth=lambda i: s6e_int8_truth(_int8_case(i)),
            mistakes=lambda i: _int8_mistakes(_int8_case(i)),
            hints=_INT8_HINTS,
            ok="correct: int8 shrinks the Linear layers almost 4x (the fp32 biases and 16 bytes per matrix keep "
            "it just under); nothing else in the model is quantised.",
            not_yet="not yet: for every nn.Linear module, count its weight at 1 byte an entry, 16 bytes for its "
            "scale and zero point, and its bias, if it has one, at 4 bytes an entry; nothing else.",
        )


# -------------------------------------------------------------------------------- ex-s6e-gain-kept


S6E_GAIN_CASES: tuple[tuple[dict[int, float], float, int, tuple[int, ...]], ...] = (
    ({0: 0.80, 1: 0.70, 2: 0.62}, 0.509, 12, (0, 3, 5, 6, 9, 12)),
    ({3: 0.91, 4: 0.74}, 0.62, 8, (0, 2, 3, 4, 6, 8)),
)
"""(full-model test accuracy by seed, majority-label floor, heads, heads removed at each point) of the hidden
pruning curves: seeds whose full models stand at very different heights above a floor that is not 0.5, so that
the mean of per-seed ratios, a floor of 0.5 and no floor all differ from the truth."""


def s6e_gain_cases() -> list[tuple[dict[int, float], Any, float]]:
    """The hidden ``(full, curve, floor)``: ``curve`` in the shape of ``model_size.real_encoder_check(...).curves``
    (rows ``removed, share, score, order, seed``: per seed, the importance order and then the random order), its
    scores made up from a private generator, on a grid of 1/200 (a 200-sentence test set); with no head removed
    both orders score the full model's accuracy, and with every head removed the same accuracy near the floor."""
    import numpy as np
    import pandas as pd

    g = np.random.default_rng(61)
    out = []
    for full, floor, n_heads, ks in S6E_GAIN_CASES:
        rows = []
        for s, acc in full.items():
            bare = round((floor + g.uniform(-0.02, 0.05)) * 200) / 200  # every head removed: one model, both orders
            for order, speed in (("importance", 0.6), ("random", 1.6)):
                for k in ks:
                    drop = (acc - floor) * (k / n_heads) ** (1 / speed) * g.uniform(0.7, 1.0)
                    score = round((acc - drop + g.uniform(-0.02, 0.02)) * 200) / 200
                    score = acc if k == 0 else bare if k == n_heads else score
                    rows.append({"removed": k, "share": k / n_heads, "score": score, "order": order, "seed": s})
        out.append((dict(full), pd.DataFrame(rows), floor))
    return out


def s6e_gain_kept_truth(full, curve, floor: float):
    """The share of the full model's gain over the floor that survives each cut of a pruning curve, a pandas Series
    indexed by ``removed``: (mean score over seeds with that many heads removed in importance order − ``floor``) /
    (mean of ``full`` − ``floor``). ``full``: the full models' test accuracies (seed -> accuracy, as
    ``RealCheck.full``, or a sequence); ``curve``: rows ``removed, score, order`` (``RealCheck.curves``);
    ``floor``: the accuracy of always predicting the majority label (``tasks.floor_scores(task)["accuracy"]``)."""
    import numpy as np

    values = list(full.values()) if hasattr(full, "values") else list(full)
    gain = float(np.mean(values)) - float(floor)
    kept = curve[curve["order"] == "importance"].groupby("removed")["score"].mean()
    return (kept - float(floor)) / gain


def _gain_mistakes(full, curve, floor: float) -> dict[str, Any]:
    """The answers of typical mistakes on a hidden case."""
    import numpy as np

    mean_full = float(np.mean(list(full.values())))
    imp = curve[curve["order"] == "importance"]
    means = imp.groupby("removed")["score"].mean()
    per_seed = (imp["score"] - floor) / (imp["seed"].map(full) - floor)
    truth = s6e_gain_kept_truth(full, curve, floor)
    return {
        "no floor": means / mean_full,
        "per seed": per_seed.groupby(imp["removed"]).mean(),
        "both orders": (curve.groupby("removed")["score"].mean() - floor) / (mean_full - floor),
        "random": (curve[curve["order"] == "random"].groupby("removed")["score"].mean() - floor) / (mean_full - floor),
        "half": (means - 0.5) / (mean_full - 0.5),
        "numerator only": (means - floor) / mean_full,
        "lost": 1 - truth,
        "points": means - mean_full,
    }


_GAIN_HINTS = {
    "no floor": "subtract the floor from both: the gain is accuracy minus the majority-label floor, and "
    "score / full counts the floor, which a model keeps for free, as kept.",
    "per seed": "average the scores and the full accuracies over seeds first, then take one ratio of the means; "
    "a mean of per-seed ratios lets a seed near the floor weigh as much as the others (and explodes at it).",
    "both orders": "use the rows of the importance order only (order == 'importance'): the random order is the "
    "control curve.",
    "random": "use the rows of the importance order (order == 'importance'), not the random control.",
    "half": "use the floor you are given, the majority-label accuracy, not 0.5: the test labels need not be balanced.",
    "numerator only": "subtract the floor in the denominator too: divide by the full model's gain over the floor, "
    "mean full accuracy minus the floor.",
    "lost": "that is the share of the gain lost; return the share kept.",
    "points": "that is the change in accuracy; divide what is left of the gain over the floor by the full "
    "model's gain over the floor.",
}


def _as_curve(x: Any) -> dict[int, float] | None:
    """A student's output as {removed: share kept} (a Series or a dict of finite numbers), or None."""
    import pandas as pd

    if isinstance(x, pd.DataFrame) or not hasattr(x, "items"):
        return None
    out = {}
    for k, v in x.items():
        key, val = as_number(k), as_number(v)
        if key is None or val is None:
            return None
        out[key] = val
    return out


def _gain_match(value: dict, target) -> bool:
    want = {float(k): float(v) for k, v in target.items()}
    return set(value) == set(want) and all(abs(value[k] - want[k]) <= 1e-6 for k in want)


@checker("ex-s6e-gain-kept")
def _check_s6e_gain_kept(answer):
    """``answer``: a function ``gain_kept(full, curve, floor)`` taking the full models' test accuracies by seed
    (a dict seed -> accuracy, as ``real_full``), pruning curves (a DataFrame with ``removed, share, score, order,
    seed`` rows, as ``real_curves``) and the majority-label accuracy; returning a pandas Series indexed by
    ``removed`` (the importance order's points) of (mean score over seeds − floor) / (mean full accuracy − floor),
    :func:`s6e_gain_kept_truth`; run on hidden curves, +-1e-6."""
    import torch

    cases = s6e_gain_cases()

    def not_yet(i: int, values: list, truths: list) -> str:
        got, want = set(values[i]), {float(k) for k in truths[i].index}
        shares = {float(k) / S6E_GAIN_CASES[i][2] for k in want}
        if got == shares:
            return "index the Series by removed (the number of heads removed), not by share."
        if got != want:
            return (
                "gain_kept should return one value per point of the importance-order curve, indexed by removed "
                f"(here {sorted(int(k) for k in want)}), got the index {sorted(got)[:8]}."
            )
        return (
            "not yet: keep the importance-order rows, average the score over seeds at each number of heads "
            "removed, and divide (that mean − floor) by (the mean full accuracy − floor)."
        )

    with torch.random.fork_rng(devices=[]):  # a student's function may draw random numbers
        return judge_function(
            answer,
            "gain_kept",
            cases,
            inputs=lambda c: (dict(c[0]), c[1].copy(), c[2]),  # copies: the truth reads the case after the student
            show=lambda c: f"gain_kept(full, curve, floor) on hidden curves of {len(c[0])} seeds (floor {c[2]})",
            read=_as_curve,
            refuse="gain_kept should return a pandas Series of finite numbers indexed by removed, got {kind}.",
            truth=s6e_gain_kept_truth,
            match=_gain_match,
            mistakes=_gain_mistakes,
            hints=_GAIN_HINTS,
            ok="correct: 1 means the cut kept all of the full model's gain over the floor, 0 that it fell to the "
            "floor; read beside the raw curve, it tells redundant heads from a model with little to lose.",
            not_yet=not_yet,
        )
