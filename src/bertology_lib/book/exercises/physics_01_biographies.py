"""Checkers of the exercises of ``physics_01_biographies`` (The bioS biographies, Allen-Zhu & Li 2023):

* ``ex-physics01-windows``: the share of packed windows holding two biographies of one person, unshuffled and
  shuffled;
* ``ex-physics01-match``: the QA evaluation's exact match, a function run on hidden (prediction, gold) pairs.

Every truth is computed here from the library and the bioS generator at the configuration the exercise names (the
quick sizes, seed 0: :mod:`bertology_lib.book.exercises.quick_physics`), never from the profile the notebook runs
at, so a teacher notebook passes its checks at smoke and at quick alike. Used by that notebook's exercise cells.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from bertology_lib.book.exercises.cases import Mistake, call_all, judge_value, within
from bertology_lib.book.exercises.checks import as_pair, checker


@lru_cache(maxsize=4)
def physics_windows_truth(
    n_people: int = 200, multi: int = 5, seq_len: int = 128, seed: int = 0
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

    def not_yet(pair, truth):
        if pair[1] > pair[0]:
            return (
                "shuffling should lower the share, not raise it: with shuffle=False the five copies of a person "
                "are written one after the other."
            )
        which = "unshuffled" if not within(0.01)(pair[0], truth[0]) else "shuffled"
        return (
            f"the {which} share is off. Pack a list of biography indices per token (one per token of each "
            "biography, -1 for the EOS) with the same pack_sequences call, then count the windows where the "
            "biographies present belong to fewer distinct people than there are biographies."
        )

    return judge_value(
        answer,
        read=lambda a: p if (p := as_pair(a)) is not None and all(0.0 <= v <= 1.0 for v in p) else None,
        refuse="expected two shares between 0 and 1, (unshuffled, shuffled), got {answer!r}.",
        truth=physics_windows_truth,
        match=within(0.01),
        ok=(
            "correct: unshuffled, a person's copies share windows, so the model can copy an answer from context "
            "instead of storing it under the name."
        ),
        mistakes=[Mistake("the two shares are swapped: the unshuffled dataset comes first.", lambda t: (t[1], t[0]))],
        not_yet=not_yet,
    )


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
            cases += [
                (v, v, "same"),
                (f"{v}.", v, "stop"),
                (f"  {v} ", v, "space"),
                (f"{v} .", v, "stop"),
                (" ".join(w[:1] + ["", *w[1:]]) if len(w) > 1 else f"{v}\t", v, "space"),
                (v.lower(), v, "case"),
                (v.upper(), v, "case"),
                (f"{v}..", v, "stops"),
                (" ".join(w[:-1]) or v[:-1], v, "partial"),
                (f"{v} {w[0]}", v, "partial"),
                ("", v, "partial"),
            ]
    return cases


_MATCH_HINTS = {  # in the order they are given
    "same": "an answer identical to the gold value must match.",
    "partial": "a partial or longer answer does not count: the whole value, and nothing else, must match.",
    "case": "case counts: the generator writes every value one way, so a lower-case answer is a different one.",
    "stop": (
        "a generated answer may end with the full stop of the training text ('answer.'), possibly after a "
        "space: drop one trailing full stop before comparing."
    ),
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
    outputs, error = call_all(answer, [c[:2] for c in cases])
    if outputs is None:
        return False, error
    import numpy as np

    if not all(isinstance(o, (bool, np.bool_)) for o in outputs):
        return False, "return True or False (a bool), not the normalised text or a number."
    wrong = _match_wrong_kinds(outputs, cases)
    if not wrong:
        return True, f"correct on all {len(cases)} hidden pairs: a near miss earns nothing, as in the paper."
    return False, "not yet: " + " Also: ".join(_MATCH_HINTS[k] for k in wrong[:2])
