"""Probing: our all-layer probe sweep vs scikit-learn fitted layer by layer, same features, same objective.

Real activations: the cached quick mini-BERT (falls back to smoke, and says so, if that cache entry is
missing; the quick model is never retrained here) over held-out toy sentences
(:func:`bertology_lib.experiments.survey.knowledge.probe_sentences`), one activation pass, words pooled to their first
subword, target UPOS, split by sentence (75% train / 25% test). Both sides get the same features
standardised with the training rows' statistics (:func:`bertology_lib.analysis.probing.probe_sweep` does this
inside its timing; scikit-learn is handed them ready-made).

Same objective on both sides. Ours minimises, per layer, mean cross-entropy + l2 * ||W||^2 (bias not
penalised). scikit-learn's multinomial ``LogisticRegression`` minimises
C * sum cross-entropy + 1/2 * ||W||^2 (intercept not penalised). Ours divided by 2 * l2 is
(1 / (2 * n_train * l2)) * sum cross-entropy + 1/2 * ||W||^2, the same problem (same minimiser) when

    C = 1 / (2 * n_train * l2).

Same iteration budget: ``ProbeConfig(max_iter=100)`` (what the survey notebooks use at quick) and
scikit-learn's default ``max_iter=100`` (L-BFGS both; scikit-learn's default tol 1e-4). The script
checks that the held-out accuracies agree within 1 point per layer.

On a shared machine, run it when the load is low (it prints the 1-minute load average before and
after); ``--repeats N`` interleaves N rounds of both and keeps each side's fastest round.

    .venv/bin/python benchmarks/bench_probing.py [--sentences 1000] [--max-iter 100] [--repeats 1] [--profile]
"""

from __future__ import annotations

import argparse
import os
import cProfile
import io
import pstats
import time
import warnings

import numpy as np
import torch

from bertology_lib.data import word_labels as features
from bertology_lib.models import minibert
from bertology_lib.analysis import probing
from bertology_lib.experiments.survey import knowledge as survey
from bertology_lib.analysis.activations import run_with_cache
from bertology_lib.cache import ArtifactCache


def loadavg() -> str:
    return f"{os.getloadavg()[0]:.2f}"


def load_model():
    """(model, tokenizer, profile name): the quick mini-BERT if cached and valid, else smoke."""
    cfg = minibert.MiniBertConfig.for_profile("quick")
    cache = ArtifactCache()
    if ArtifactCache.is_valid(cache.path(minibert.KIND, cfg.to_dict())):
        model, tok = minibert.load(cfg, head="base", cache=cache)
        return model, tok, cfg, "quick"
    print("NOTE: the quick mini-BERT is not cached; using the smoke model (trains in seconds)")
    cfg = minibert.MiniBertConfig.for_profile("smoke")
    model, tok = minibert.load(cfg, head="base", cache=cache)
    return model, tok, cfg, "smoke"


def sklearn_per_layer(Xs: np.ndarray, y: np.ndarray, tr: np.ndarray, te: np.ndarray, C: float,
                      max_iter: int) -> tuple[list[float], list[int], list[float]]:
    """Test accuracy, iterations and seconds of one ``LogisticRegression`` per layer."""
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.linear_model import LogisticRegression

    accs, iters, secs = [], [], []
    for layer in range(Xs.shape[0]):
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            clf = LogisticRegression(C=C, max_iter=max_iter).fit(Xs[layer, tr], y[tr])
        secs.append(time.perf_counter() - t0)
        accs.append(float(clf.score(Xs[layer, te], y[te])))
        iters.append(int(clf.n_iter_.max()))
    return accs, iters, secs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sentences", type=int, default=1000)
    ap.add_argument("--max-iter", type=int, default=100, help="L-BFGS iterations, both sides")
    ap.add_argument("--l2", type=float, default=probing.ProbeConfig().l2)
    ap.add_argument("--threads", type=int, default=0, help="torch threads (0: torch's default)")
    ap.add_argument("--repeats", type=int, default=1, help="interleaved rounds; each side's fastest is kept")
    ap.add_argument("--profile", action="store_true", help="also cProfile our sweep (a separate run)")
    args = ap.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)

    print(f"1-min load average at start: {loadavg()}")
    model, tok, cfg, profile = load_model()
    sents = survey.probe_sentences(cfg, args.sentences)
    table = features.word_table(sents)
    tr, te = features.sentence_split(table, int(round(0.75 * len(sents))))
    t0 = time.perf_counter()
    X = run_with_cache(model, tok, [s.words for s in sents], batch_size=64).resid  # (L+1, N, d)
    t_act = time.perf_counter() - t0
    labels = table["upos"].tolist()
    y, classes = probing._encode_labels(labels)
    n_train = len(tr)
    C = 1 / (2 * n_train * args.l2)
    print(f"{profile} mini-BERT: {X.shape[0]} layers (embeddings + {X.shape[0] - 1} blocks) x d={X.shape[2]}; "
          f"{len(sents)} sentences, {n_train} train / {len(te)} test words, {len(classes)} UPOS tags; "
          f"one activation pass {t_act:.1f} s (shared, not in either timing); torch threads={torch.get_num_threads()}")
    print(f"objective: l2={args.l2} (ours) == C=1/(2*{n_train}*{args.l2})={C:.4g} (scikit-learn); "
          f"max_iter={args.max_iter} both")

    cfg_p = probing.ProbeConfig(l2=args.l2, max_iter=args.max_iter)
    Xs = probing._standardize(X.float(), torch.as_tensor(tr)).numpy()  # the sweep's own standardisation
    t_ours = t_sk = float("inf")
    for _ in range(args.repeats):
        t0 = time.perf_counter()
        ours = probing.probe_sweep(X, labels, tr, te, cfg_p)
        t_ours = min(t_ours, time.perf_counter() - t0)
        t0 = time.perf_counter()
        sk = sklearn_per_layer(Xs, y.numpy(), tr, te, C, args.max_iter)
        if time.perf_counter() - t0 < t_sk:
            t_sk = time.perf_counter() - t0
            sk_acc, sk_iter, sk_secs = sk

    print(f"\n{'layer':>5s} {'ours acc':>9s} {'sklearn acc':>11s} {'diff (pt)':>9s} {'sk iters':>8s} {'sk s':>6s}")
    diffs = []
    for layer, (a, b, it, s) in enumerate(zip(ours.test_acc, sk_acc, sk_iter, sk_secs)):
        diffs.append(100 * (a - b))
        print(f"{layer:5d} {a:9.4f} {b:11.4f} {diffs[-1]:+9.2f} {it:8d} {s:6.2f}")
    ok = max(abs(d) for d in diffs) <= 1.0
    print(f"accuracy parity (all layers within 1 point): {'yes' if ok else 'NO'} "
          f"(max |diff| {max(abs(d) for d in diffs):.2f} pt)")
    print(f"\nours (all {X.shape[0]} layers together, torch L-BFGS): {t_ours:7.2f} s")
    print(f"scikit-learn (LogisticRegression, layer by layer):    {t_sk:7.2f} s")
    print(f"ratio sklearn / ours: {t_sk / t_ours:.2f}x   (1-min load average at end: {loadavg()})")

    if args.profile:
        prof = cProfile.Profile()
        prof.enable()
        probing.probe_sweep(X, labels, tr, te, cfg_p)
        prof.disable()
        buf = io.StringIO()
        pstats.Stats(prof, stream=buf).sort_stats("tottime").print_stats(12)
        print("\ncProfile of our sweep (by own time):")
        print("\n".join(buf.getvalue().splitlines()[:30]))


if __name__ == "__main__":
    main()
