"""Checkers of the physics notebooks' exercises (Allen-Zhu & Li 2023): physics_01 ... physics_03 and the
ceiling exercise of physics_05 (the other physics_04 ... physics_06 checkers are in :mod:`.physics2`).

Every truth is computed here from the library and the bioS generator at a configuration the exercise
names (never from the profile a notebook runs at), so a teacher notebook passes its checks at smoke and at
quick alike. Answers that are functions are run on hidden cases built here.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

from bertology_lib.book.exercises.checks import as_number, checker

# ----------------------------------------------------------------------------------------------- helpers


def close(value: float, target: float, rel: float = 0.0, abs_tol: float = 0.0) -> bool:
    """``value`` within ``abs_tol`` or ``rel`` x ``|target|`` of ``target`` (NaN never matches)."""
    return abs(value - target) <= max(abs_tol, rel * abs(target))


def as_pair(answer: Any) -> tuple[float, float] | None:
    """``answer`` as two finite numbers (a tuple, list or array of length 2), or None."""
    try:
        items = list(answer)
    except TypeError:
        return None
    if len(items) != 2:
        return None
    a, b = as_number(items[0]), as_number(items[1])
    return None if a is None or b is None else (a, b)


def run_cases(fn: Callable, cases: Sequence[tuple]) -> tuple[list[Any] | None, str]:
    """Call ``fn(*case)`` on every case: (outputs, "") or (None, a message naming the first exception)."""
    out = []
    for case in cases:
        try:
            out.append(fn(*case))
        except Exception as e:  # noqa: BLE001  (the student's code: report it, never crash the checker)
            return None, f"your function raised {type(e).__name__}: {e}"
    return out, ""


def _same(a: Any, b: Any) -> bool:
    """Equal outputs: both NaN, numbers within 1e-9, or equal values."""
    fa, fb = as_number(a), as_number(b)
    if _is_number_or_nan(a) and _is_number_or_nan(b) and math.isnan(float(a)) and math.isnan(float(b)):
        return True
    if fa is not None and fb is not None:
        return abs(fa - fb) <= 1e-9
    return a == b


def _is_number_or_nan(x: Any) -> bool:
    if isinstance(x, bool):
        return False
    try:
        float(x)
    except (TypeError, ValueError):
        return False
    return True


def agrees(outputs: Sequence[Any], expected: Sequence[Any]) -> bool:
    return len(outputs) == len(expected) and all(_same(o, e) for o, e in zip(outputs, expected))


def quick_config():
    """The physics configuration at ``quick``: every truth is fixed there, whatever profile the notebook runs."""
    from bertology_lib.experiments.physics.config import PhysicsConfig

    return PhysicsConfig.for_profile("quick")


def bio_exposures(cfg, steps: int | None = None, batch_size: int | None = None) -> float:
    """Times one biography's facts are read in a decoder pretraining run of ``cfg``, per copy of a person:
    rows read (``steps x batch_size``) over the BIO windows of ``cfg.dataset()`` packed as ``cfg.packing`` says
    (the epochs)."""
    from bertology_lib.experiments.physics.config import bios_tokenizer
    from bertology_lib.experiments.physics.training import bio_rows

    steps = cfg.pretrain_steps if steps is None else steps
    batch_size = cfg.batch_size if batch_size is None else batch_size
    return steps * batch_size / len(bio_rows(cfg.dataset(), bios_tokenizer(), cfg.seq_len, cfg.packing)[0])


# ----------------------------------------------------------------------------------------------- physics_01


@lru_cache(maxsize=4)
def physics_windows_truth(n_people: int = 200, multi: int = 5, seq_len: int = 128, seed: int = 0
                          ) -> tuple[float, float]:
    """(unshuffled, shuffled): share of training windows holding pieces of two or more biographies of one
    person, for ``bios.BioConfig(n_people, seed, multi=multi, shuffle=...)`` packed with
    :func:`bertology_lib.training.objectives.pack_sequences` (word-level bioS tokenizer, EOS between
    biographies, the last partial window kept)."""
    from bertology_lib.data import bios
    from bertology_lib.experiments.physics.config import bios_tokenizer
    from bertology_lib.training.objectives import pack_sequences

    tok = bios_tokenizer()
    shares = []
    for shuffle in (False, True):
        ds = bios.generate_dataset(bios.BioConfig(n_people, seed=seed, multi=multi, shuffle=shuffle))
        ids = tok(ds.texts(), add_special_tokens=False)["input_ids"]
        owner = pack_sequences([[k] * len(x) for k, x in enumerate(ids)], seq_len, -1)  # biography of each token
        repeated = 0
        for window in owner:
            entries = {k for k in window if k >= 0}
            repeated += len({ds.bios[k].person for k in entries}) < len(entries)
        shares.append(repeated / len(owner))
    return shares[0], shares[1]


@checker("ex-physics01-windows")
def _check_physics_windows(answer):
    """``answer``: (share unshuffled, share shuffled) of windows with two biographies of one person, for
    ``BioConfig(200, multi=5)`` (seed 0) packed into 128-token windows; +-0.01 each."""
    pair = as_pair(answer)
    if pair is None or not all(0.0 <= v <= 1.0 for v in pair):
        return False, f"expected two shares between 0 and 1, (unshuffled, shuffled), got {answer!r}."
    truth = physics_windows_truth()
    ok = [close(v, t, abs_tol=0.01) for v, t in zip(pair, truth)]
    if all(ok):
        return True, ("correct: unshuffled, a person's copies share windows, so the model can copy an answer "
                      "from context instead of storing it under the name.")
    if close(pair[0], truth[1], abs_tol=0.01) and close(pair[1], truth[0], abs_tol=0.01):
        return False, "the two shares are swapped: the unshuffled dataset comes first."
    if pair[1] > pair[0]:
        return False, ("shuffling should lower the share, not raise it: with shuffle=False the five copies of a "
                       "person are written one after the other.")
    which = "unshuffled" if not ok[0] else "shuffled"
    return False, (f"the {which} share is off. Pack a list of biography indices per token (one per token of each "
                   "biography, -1 for the EOS) with the same pack_sequences call, then count the windows where the "
                   "biographies present belong to fewer distinct people than there are biographies.")


@lru_cache(maxsize=4)
def _match_cases() -> list[tuple[str, str, str]]:
    """(prediction, gold, kind) cases for the exact-match exercise, from generated people's answers."""
    from bertology_lib.data import bios

    people = bios.sample_people(6, seed=11)
    cases = []
    for k, p in enumerate(people):
        for a in ("birth_date", "university", "company_city") if k % 2 else ("birth_city", "major", "company_name"):
            v = p.value(a)
            w = v.split()
            cases += [(v, v, "same"), (f"{v}.", v, "stop"), (f"  {v} ", v, "space"), (f"{v} .", v, "stop"),
                      (" ".join(w[:1] + ["", *w[1:]]) if len(w) > 1 else f"{v}\t", v, "space"),
                      (v.lower(), v, "case"), (v.upper(), v, "case"), (f"{v}..", v, "stops"),
                      (" ".join(w[:-1]) or v[:-1], v, "partial"), (f"{v} {w[0]}", v, "partial"), ("", v, "partial")]
    return cases


_MATCH_HINTS = {  # in the order they are given
    "same": "an answer identical to the gold value must match.",
    "partial": "a partial or longer answer does not count: the whole value, and nothing else, must match.",
    "case": "case counts: the generator writes every value one way, so a lower-case answer is a different one.",
    "stop": ("a generated answer may end with the full stop of the training text ('answer.'), possibly after a "
             "space: drop one trailing full stop before comparing."),
    "stops": "drop only one trailing full stop: an answer followed by '..' is not a clean answer.",
    "space": "collapse runs of whitespace into one space and strip both ends before comparing.",
}


def _match_wrong_kinds(outputs: Sequence[Any], cases: Sequence[tuple[str, str, str]]) -> list[str]:
    """The kinds of hidden case (:func:`_match_cases`) a function's ``outputs`` get wrong, in hint order."""
    from bertology_lib.data import bios

    wrong = {kind for out, (pred, gold, kind) in zip(outputs, cases) if bool(out) != bios.exact_match(pred, gold)}
    return [k for k in _MATCH_HINTS if k in wrong]


@checker("ex-physics01-match")
def _check_physics_match(answer):
    """``answer``: a function ``(prediction, gold) -> bool``, the QA evaluation's exact match; run on hidden
    pairs built from generated answers and compared with :func:`bertology_lib.data.bios.exact_match`
    (every case must agree)."""
    if not callable(answer):
        return False, f"expected a function (prediction, gold) -> True/False, got {answer!r}."
    cases = _match_cases()
    outputs, error = run_cases(answer, [c[:2] for c in cases])
    if outputs is None:
        return False, error
    import numpy as np

    if not all(isinstance(o, (bool, np.bool_)) for o in outputs):
        return False, "return True or False (a bool), not the normalised text or a number."
    wrong = _match_wrong_kinds(outputs, cases)
    if not wrong:
        return True, f"correct on all {len(cases)} hidden pairs: a near miss earns nothing, as in the paper."
    return False, "not yet: " + " Also: ".join(_MATCH_HINTS[k] for k in wrong[:2])


# ----------------------------------------------------------------------------------------------- physics_02


@lru_cache(maxsize=4)
def physics_qa_reads_truth() -> float:
    """Times the quick mixed run (N = 300, seed 0) shows each QA-train question: the expected QA rows
    (``mixed_steps x batch_size x qa_share``) over the packed QA windows of the QA-train people
    (:func:`bertology_lib.training.objectives.pack_labeled` of every QA-train pair, ``seq_len`` tokens)."""
    from bertology_lib.experiments.physics.config import bios_tokenizer
    from bertology_lib.experiments.physics.training import qa_examples
    from bertology_lib.training.objectives import pack_labeled

    cfg = quick_config()
    windows, _ = pack_labeled(qa_examples(cfg.dataset(), bios_tokenizer(), "train"), cfg.seq_len)
    return cfg.mixed_steps * cfg.batch_size * cfg.qa_share / len(windows)


@checker("ex-physics02-qa-reads")
def _check_physics_qa_reads(answer):
    """``answer``: how many times the quick mixed run (N = 300, seed 0) shows each QA-train question, on
    average (a number; +-3% accepted)."""
    v = as_number(answer)
    if v is None or v <= 0:
        return False, f"expected a positive number of readings, got {answer!r}."
    truth, cfg = physics_qa_reads_truth(), quick_config()
    if close(v, truth, rel=0.03):
        return True, ("correct: compare it with how often each biography fact is read; the QA-train answers are "
                      "cheap to memorise one by one.")
    if close(v, truth / cfg.qa_share, rel=0.03):
        return False, "too many: only a qa_share of each batch's rows are QA windows."
    rows = cfg.mixed_steps * cfg.batch_size * cfg.qa_share
    if close(v, rows / (len(cfg.dataset().qa_train) * 6), rel=0.03):
        return False, ("too few: a row is not one question but a window of seq_len tokens packed with many "
                       "questions; divide by the number of QA windows.")
    if close(v, truth / 2, rel=0.03):
        return False, "too few: only QA-train people's questions are in the QA pool; QA-test stays unseen."
    facts = bio_exposures(cfg.replace(augmentation="multi5+permute"), steps=cfg.mixed_steps) * (1 - cfg.qa_share) * 5
    if close(v, facts, rel=0.03):
        return False, "that is how often each biography fact is read; the question asks about QA-train questions."
    return False, ("not quite: QA rows = steps x batch size x QA share; each pass over the packed QA windows "
                   "(pack_labeled of the QA-train examples) shows every question once.")


@lru_cache(maxsize=4)
def _lag_cases() -> list[tuple[str, Any]]:
    """(kind, curve) hidden cases for the lag exercise: DataFrames with step, bio, qa_train, qa_test."""
    import numpy as np
    import pandas as pd

    def curve(steps, train, test, index=None):
        n = len(steps)
        return pd.DataFrame({"step": steps, "bio": np.linspace(0.1, 1.0, n), "qa_train": train, "qa_test": test},
                            index=index)

    s10 = list(range(240, 2401, 240))
    cases = [
        ("rising", curve(s10, [0, .1, .3, .6, .8, .9, .95, .97, .98, .98], [0, 0, 0, .05, .1, .2, .35, .5, .6, .62])),
        ("final", curve(s10, [0, .4, .9, .9, .8, .7, .6, .6, .6, .6], [0, 0, .1, .2, .5, .3, .2, .2, .25, .3])),
        ("equal", curve(s10, [0, .2, .25, .3, .4, .4, .45, .5, .5, .5], [0, 0, 0, .1, .15, .2, .25, .3, .4, .5])),
        ("zero", curve(s10, [0, .2, .4, .6, .7, .8, .8, .8, .8, .8], [0] * 10)),
        ("negative", curve(s10, [0, 0, 0, .1, .2, .4, .6, .7, .8, .8], [0, .1, .2, .3, .3, .3, .3, .3, .3, .3])),
        ("steps", curve([10, 20, 50, 100, 200, 500, 1000], [0, .2, .5, .7, .8, .9, .9], [0, 0, .1, .2, .4, .6, .7],
                        index=range(30, 37))),
    ]
    rng = np.random.default_rng(19)
    for _ in range(12):
        n = int(rng.integers(4, 12))
        steps = np.sort(rng.choice(np.arange(10, 5000, 10), n, replace=False))
        train = np.round(np.maximum.accumulate(rng.uniform(0, 1, n)) * rng.uniform(0.3, 1), 3)
        test = np.round(rng.uniform(0, 1, n) * rng.uniform(0, 1), 3)
        cases.append(("random", curve(steps.tolist(), train.tolist(), test.tolist(), index=rng.permutation(n) + 5)))
    return cases


def _lag_variant(kind: str) -> Callable:
    """The typical mistakes of the lag exercise, as functions (for the hints)."""
    import numpy as np

    def lag(curve):
        def first(col):
            vals = curve[col].to_numpy(dtype=float)
            ref = vals.max() if kind == "max" else vals[-1]
            target = 0.5 * ref
            hit = np.flatnonzero(vals > target if kind == "strict" else vals >= target)
            if target <= 0 or not len(hit):
                return float("nan")
            return float(hit[0]) if kind == "position" else float(curve["step"].iloc[hit[0]])
        d = first("qa_test") - first("qa_train")
        return -d if kind == "sign" else d

    return lag


@checker("ex-physics02-lag")
def _check_physics_lag(answer):
    """``answer``: a function ``curve -> steps`` (a learning-curve DataFrame with columns step, qa_train, qa_test
    in step order) giving the step where QA-test first reaches half its final accuracy minus the step where
    QA-train does, NaN when either never gets there or ends at 0; run on hidden curves and compared with
    :func:`bertology_lib.experiments.physics.grid.curve_lag` (every case within 1e-9)."""
    from bertology_lib.experiments.physics.grid import curve_lag

    if not callable(answer):
        return False, f"expected a function curve -> number of steps, got {answer!r}."
    cases = _lag_cases()
    curves = [c for _, c in cases]
    outputs, error = run_cases(answer, [(c.copy(),) for c in curves])
    if outputs is None:
        return False, error
    if not all(_is_number_or_nan(o) for o in outputs):
        return False, "return a number of steps (a float; NaN where the lag is undefined)."
    expected = [curve_lag(c) for c in curves]
    if agrees(outputs, expected):
        return True, f"correct on all {len(cases)} hidden curves."
    hints = {
        "max": "half of the *final* accuracy, not of the best one: a curve can peak and fall back.",
        "strict": "'reaches half' includes a point exactly at half of the final value (>=, not >).",
        "position": "return steps (the 'step' column), not row positions.",
        "sign": "the sign is reversed: QA-test's step minus QA-train's (positive when QA-test lags).",
    }
    for kind, hint in hints.items():
        if agrees(outputs, [_lag_variant(kind)(c) for c in curves]):
            return False, hint
    bad = next(k for (k, _), o, e in zip(cases, outputs, expected) if not _same(o, e))
    where = {"zero": "a curve whose QA-test accuracy ends at 0 (the lag is undefined there: NaN)",
             "steps": "a curve with uneven steps and a row index that does not start at 0 (use positions or iloc)",
             "random": "one of the random curves", "final": "a curve that peaks and falls back",
             "equal": "a curve that reaches exactly half of its final value",
             "negative": "a curve where QA-test gets there before QA-train"}.get(bad, f"the {bad!r} curve")
    return False, f"not yet: your function disagrees on {where}."


# ----------------------------------------------------------------------------------------------- physics_03


def physics_bits_truth() -> float:
    """Bits of knowledge per bioS person: log2 of the number of distinct attribute combinations.

    The company city follows from the company, so it adds nothing; birth date, birth city, university,
    major and company are drawn independently and uniformly (Allen-Zhu & Li 2023 §2).
    """
    from bertology_lib.experiments.physics.biographies import possible_values

    counts = possible_values()
    return sum(math.log2(counts[a]) for a in ("birth_date", "birth_city", "university", "major", "company_name"))


@checker("ex-physics03-bits")
def _check_physics_bits(answer):
    """``answer``: bits per person (a number; +-0.1 bit is accepted)."""
    v = as_number(answer)
    if v is None:
        return False, f"expected a number of bits, got {answer!r}."
    truth = physics_bits_truth()
    if abs(v - truth) <= 0.1:
        return True, "correct: multiply by N people to get what the model must store."
    if abs(v - truth - math.log2(len(set(_company_cities())))) <= 0.1:
        return False, ("too many: the company city is determined by the company, so it carries no "
                       "information of its own.")
    if v > truth:
        return False, "too many: did you count an attribute twice, or use natural logarithms the wrong way?"
    return False, ("too few: each attribute contributes log2(number of possible values); the birth date "
                   "has years x months x days values.")


def _company_cities() -> list[str]:
    from bertology_lib.data import bios

    return list(bios.COMPANY_CITY.values())


@lru_cache(maxsize=4)
def physics_exposures_truth() -> tuple[float, float]:
    """(single, multi5+permute): times each fact (one attribute of one person) is read in the quick
    pretraining (N = 300, seed 0): epochs over the packed BIO windows x biographies per person."""
    cfg = quick_config()
    out = []
    for aug in ("single", "multi5+permute"):
        c = cfg.replace(augmentation=aug)
        out.append(bio_exposures(c) * len(c.dataset().bios) / c.n_people)
    return out[0], out[1]


@checker("ex-physics03-exposures")
def _check_physics_exposures(answer):
    """``answer``: (single, multi5+permute) readings of each fact in the quick pretraining runs (N = 300,
    seed 0, the quick steps and batch size); +-2% each."""
    pair = as_pair(answer)
    if pair is None or not all(v > 0 for v in pair):
        return False, f"expected two positive numbers, (single, multi5+permute), got {answer!r}."
    truth = physics_exposures_truth()
    ok = [close(v, t, rel=0.02) for v, t in zip(pair, truth)]
    if all(ok):
        return True, ("correct: about as many readings per fact either way, so single's failure to extract is not "
                      "a lack of exposure but of variety.")
    cfg = quick_config()
    per_bio = cfg.pretrain_steps * cfg.batch_size / cfg.n_people  # a row taken for one biography
    if any(close(v, per_bio, rel=0.02) or close(v, per_bio / 5, rel=0.02) for v in pair):
        return False, ("a row of a batch is a window of seq_len tokens holding about two biographies, not one "
                       "biography: count the packed windows (training.bio_rows, with the config's packing).")
    if ok[0] and close(pair[1], truth[1] / 5, rel=0.02):
        return False, ("for multi5+permute you counted the epochs; every epoch reads each of a person's five "
                       "biographies, and each of them states every fact.")
    which = "single" if not ok[0] else "multi5+permute"
    return False, (f"the {which} number is off: steps x batch size rows over the number of packed BIO windows is "
                   "the number of epochs; multiply by the biographies each person has.")


# ----------------------------------------------------------------------------------------------- physics_05


def physics_unseen_truth(n_people: int = 300, seed: int = 0, attribute: str = "university") -> float:
    """Share of Q-probe test people whose ``attribute`` value no probe-training person has.

    Uses the probe split of :func:`bertology_lib.experiments.physics.probing.q_probe` (seed ``seed``, half the people)
    on the bioS people of ``BioConfig(n_people, seed)``: a linear probe cannot predict a class it never saw,
    so one minus this share is the probe's accuracy ceiling.
    """
    from bertology_lib.data import bios
    from bertology_lib.experiments.physics.probing import people_split

    people = bios.sample_people(n_people, seed)
    tr, te = people_split(len(people), None, 0.5, seed)
    seen = {people[i].value(attribute) for i in tr}
    return float(sum(people[i].value(attribute) not in seen for i in te) / len(te))


@checker("ex-physics05-ceiling")
def _check_physics_unseen(answer):
    """``answer``: a share in [0, 1] (+-0.005 accepted) for the quick people (N = 300, seed 0) with the paper's pools."""
    v = as_number(answer)
    if v is None or not 0.0 <= v <= 1.0:
        return False, f"expected a share between 0 and 1, got {answer!r}."
    truth = physics_unseen_truth()
    if abs(v - truth) <= 0.005:
        return True, "correct: one minus it is the best accuracy any probe can reach on university."
    if abs(v - (1 - truth)) <= 0.005:
        return False, "that is the share of test people whose university *was* seen; the question asks the opposite."
    return False, ("not quite: use the probe's own split (people_split from bertology_lib.experiments.physics.probing, "
                   "seed 0, train_fraction 0.5) and compare each test person's university with the set of training "
                   "ones.")
