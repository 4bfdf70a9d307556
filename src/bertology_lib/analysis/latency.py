"""CPU latency of several models, measured side by side in one run (never by a timed test)."""

from __future__ import annotations

import statistics
import time
from collections.abc import Mapping

import pandas as pd
import torch

from bertology_lib.errors import ParameterError
from bertology_lib.training.encoding import Features, collate
from bertology_lib.validation import check_int


def measure_latency(
    models: Mapping[str, torch.nn.Module],
    feats: Features,
    pad_id: int,
    batch_size: int = 32,
    repeats: int = 5,
    threads: int = 1,
) -> pd.DataFrame:
    """CPU time per batch of each model, measured side by side in one run.

    Rounds are interleaved (every model once per round, in rotating order) after one
    warm-up pass, on ``threads`` intra-op threads; the median over rounds is reported
    with the min and max. Timings vary from run to run and machine to machine.
    """
    if not models:
        raise ParameterError("models={} is empty; allowed: a dict of name -> model")
    check_int("repeats", repeats, minimum=1)
    batches = []
    for i in range(0, len(feats.rows), batch_size):
        b = collate(feats.rows[i : i + batch_size], pad_id)
        b.pop("labels")
        batches.append(b)
    if not batches:
        raise ParameterError("no examples to time; allowed: a non-empty split")
    old = torch.get_num_threads()
    torch.set_num_threads(threads)
    names = list(models)
    times: dict[str, list[float]] = {n: [] for n in names}
    try:
        with torch.inference_mode():
            for m in models.values():  # warm-up: every batch shape once per model (kernels are picked per shape)
                m.eval()
                for b in batches:
                    m(**b)
            for r in range(repeats):
                for n in names[r % len(names) :] + names[: r % len(names)]:
                    t0 = time.perf_counter()
                    for b in batches:
                        models[n](**b)
                    times[n].append((time.perf_counter() - t0) / len(batches) * 1000)
    finally:
        torch.set_num_threads(old)
    return pd.DataFrame(
        [
            {
                "model": n,
                "ms_per_batch": statistics.median(t),
                "ms_min": min(t),
                "ms_max": max(t),
                "batch_size": batch_size,
                "threads": threads,
                "rounds": list(t),
            }
            for n, t in times.items()
        ]
    )


def speedup_interval(latency: pd.DataFrame, model: str, reference: str) -> tuple[float, float, float]:
    """Speed-up of ``model`` over ``reference`` (reference time / model time) round by round (the rounds of
    :func:`measure_latency` are interleaved, so each is a paired comparison): mean with a 95% t interval over
    rounds. One timing run is noisy; the interval says how noisy."""
    from bertology_lib import stats

    rows = latency.set_index("model") if "model" in latency.columns else latency
    for n in (model, reference):
        if n not in rows.index:
            raise ParameterError(f"model={n!r} was not timed; allowed: {', '.join(map(str, rows.index))}")
    ref, new = rows.loc[reference, "rounds"], rows.loc[model, "rounds"]
    if len(ref) < 2:
        raise ParameterError(f"{len(ref)} timing rounds; allowed: at least 2 (repeats >= 2) for an interval")
    return stats.one_sample_interval([r / m for r, m in zip(ref, new)], digits=6)
