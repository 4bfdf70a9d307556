"""Checkers of the physics notebooks' exercises (Allen-Zhu & Li 2023): physics_04 ... physics_06 (the
ceiling exercise of physics_05 and the others are in :mod:`bertology_lib.book.exercises.physics`).

As there, every truth is computed from the library and the bioS generator at the configuration the
exercise names (the quick sizes, seed 0), never from the profile the notebook runs at.
"""

from __future__ import annotations

import itertools
from collections import Counter
from functools import lru_cache

from bertology_lib.book.exercises.checks import as_number, checker
from bertology_lib.book.exercises.physics import bio_exposures, close, quick_config

# ----------------------------------------------------------------------------------------------- physics_04


def _celebrity_quick():
    from bertology_lib.experiments.physics.grid import celebrity_config

    return celebrity_config(quick_config())


@lru_cache(maxsize=4)
def physics_minority_majority_truth() -> float:
    """Mean over the six attributes of the minority's accuracy when always answering the most common
    celebrity (QA-train) answer (:func:`bertology_lib.data.bios.majority_baseline`, ties alphabetical), in
    the quick celebrity dataset (300 celebrities + 300 minority people, seed 0): the grey tick of the
    ``with`` bar."""
    from bertology_lib.data import bios

    ds = _celebrity_quick().dataset()
    guess = bios.majority_baseline([ds.people[i] for i in ds.qa_train])
    minority = [ds.people[i] for i in ds.qa_test]
    return sum(sum(p.value(a) == guess[a][0] for p in minority) / len(minority) for a in bios.ATTRIBUTES) / 6


@lru_cache(maxsize=4)
def _in_sample_majority(group: str) -> float:
    from bertology_lib.data import bios

    ds = _celebrity_quick().dataset()
    base = bios.majority_baseline([ds.people[i] for i in ds.groups[group]])
    return sum(share for _, share in base.values()) / len(base)


@checker("ex-physics04-majority")
def _check_physics_minority_majority(answer):
    """``answer``: the minority's mean majority-baseline accuracy in the quick celebrity dataset (a share;
    +-0.0005 accepted, less than one question in 1,800)."""
    v = as_number(answer)
    if v is None or not 0.0 <= v <= 1.0:
        return False, f"expected a share between 0 and 1, got {answer!r}."
    truth = physics_minority_majority_truth()
    if close(v, truth, abs_tol=0.0005):
        return True, "correct: that is the floor the minority's accuracy is compared with, with or without celebrities."
    if close(v, _in_sample_majority("majority"), abs_tol=0.0005):
        return False, ("that is how often the celebrities' own most common answer occurs among the celebrities; "
                       "score that answer on the minority people instead.")
    if close(v, _in_sample_majority("minority"), abs_tol=0.0005):
        return False, ("you took the most common answer among the minority itself; the model can only learn the "
                       "celebrities' answers in fine-tuning, so the guess comes from QA-train.")
    return False, ("not quite: per attribute, take the most common celebrity answer (bios.majority_baseline on the "
                   "celebrities), count the minority people who have it, and average the six shares.")


@lru_cache(maxsize=4)
def physics_minority_exposures_truth() -> float:
    """Times each minority fact is read in the quick celebrity pretraining (``celebrity_config`` of the quick
    sizes: its steps and the packed windows of all 1,800 biographies); a minority person has one biography."""
    return bio_exposures(_celebrity_quick())


@checker("ex-physics04-exposures")
def _check_physics_minority_exposures(answer):
    """``answer``: readings of each minority fact in the quick celebrity pretraining (a number; +-2%)."""
    v = as_number(answer)
    if v is None or v <= 0:
        return False, f"expected a positive number of readings, got {answer!r}."
    truth = physics_minority_exposures_truth()
    if close(v, truth, rel=0.02):
        return True, ("correct: the minority is read several times less often than in the run without celebrities, "
                      "yet its knowledge becomes more extractable.")
    cfg = _celebrity_quick()
    if close(v, truth * quick_config().pretrain_steps / cfg.pretrain_steps, rel=0.02):
        return False, ("celebrity_config scales the pretraining steps with the data: use its pretrain_steps, not the "
                       "quick profile's.")
    if close(v, 5 * truth, rel=0.03) or v > 2.5 * truth:
        return False, ("that is how often a celebrity's fact is read (or a fact in the run without celebrities); a "
                       "minority person has a single biography among many more windows.")
    return False, ("not quite: steps x batch size rows over the number of packed windows of the celebrity dataset's "
                   "biographies (training.bio_rows, with the config's packing) is the number of epochs.")


# ----------------------------------------------------------------------------------------------- physics_05


def _grid_models(profile: str = "quick") -> int:
    from bertology_lib.experiments.physics.grid import Plan

    return sum(len(s) for s in Plan.for_profile(profile).grid_seeds.values())


@lru_cache(maxsize=16)
def spearman_null_tail(n: int, rho: float = 0.7, two_sided: bool = False, strict: bool = False) -> float:
    """Probability that the Spearman correlation of ``n`` untied values with a random order reaches ``rho``
    (``>= rho``; ``> rho`` when ``strict``; ``|r|`` when ``two_sided``): exact over all n! orders up to
    n = 9, beyond that from 1,000,000 seeded random orders (standard error below 0.0005)."""
    import numpy as np

    if n < 3:
        raise ValueError(f"n={n} is out of range; allowed: at least 3 points")
    if n <= 9:
        flat = np.fromiter(itertools.chain.from_iterable(itertools.permutations(range(n))), dtype=np.int8)
        orders = flat.reshape(-1, n).astype(np.int32)
    else:
        orders = np.random.default_rng(0).permuted(np.tile(np.arange(n, dtype=np.int32), (1_000_000, 1)), axis=1)
    r = 1 - 6 * ((orders - np.arange(n)) ** 2).sum(1) / (n * (n * n - 1))
    r = np.abs(r) if two_sided else r
    eps = 1e-9
    return float(np.mean(r > rho + eps) if strict else np.mean(r >= rho - eps))


def physics_chance_truth() -> float:
    """Chance that unrelated numbers pass the rule "Spearman rho >= 0.7" over the quick grid's models (one
    point per augmentation and seed): the exact one-sided permutation probability."""
    return spearman_null_tail(_grid_models("quick"))


@checker("ex-physics05-chance")
def _check_physics_chance(answer):
    """``answer``: P(rho >= 0.7) for the quick grid's number of models under random pairing (a probability;
    +-0.0025, which a Monte Carlo estimate with 200,000 shuffles meets)."""
    v = as_number(answer)
    if v is None or not 0.0 <= v <= 1.0:
        return False, f"expected a probability between 0 and 1, got {answer!r}."
    n = _grid_models("quick")
    truth = physics_chance_truth()
    if close(v, truth, abs_tol=0.0025):
        return True, "correct: a passing rho is evidence, but with this few models not overwhelming evidence."
    if close(v, spearman_null_tail(n, two_sided=True), abs_tol=0.0025):
        return False, "that counts |rho| >= 0.7; the rule asks for a positive correlation only (one-sided)."
    if close(v, spearman_null_tail(n, strict=True), abs_tol=0.0025):
        return False, "close: a rho of exactly 0.7 passes the rule too (>=, not >)."
    if close(v, 1 - truth, abs_tol=0.0025):
        return False, "that is the chance of failing the rule; the question asks for the chance of passing it."
    if any(close(v, spearman_null_tail(k), abs_tol=0.0025) for k in range(3, 10) if k != n):
        return False, ("check the number of points: one per pretrained model of the quick grid, i.e. per "
                       "(augmentation, seed) in px.Plan.for_profile('quick').grid_seeds.")
    return False, ("not quite: pair the ranks 0..n-1 with every order of them (itertools.permutations, or many "
                   "random shuffles), compute rho = 1 - 6 sum(d^2) / (n (n^2 - 1)) and count how often it is >= 0.7.")


# ----------------------------------------------------------------------------------------------- physics_06


def _value_probs(attribute: str) -> dict[str, float]:
    """Probability of every value of ``attribute`` for a generated person (uniform draws; company city
    through the company)."""
    from bertology_lib.data import bios

    pools = {"birth_city": bios.CITIES, "university": bios.UNIVERSITIES, "major": bios.MAJORS,
             "company_name": bios.COMPANIES}
    if attribute == "company_city":
        values = [bios.COMPANY_CITY[c] for c in bios.COMPANIES]
    else:
        values = list(pools[attribute])
    counts = Counter(values)
    return {v: c / len(values) for v, c in counts.items()}


def best_guess(attribute: str, know_length: bool) -> float:
    """Accuracy of the best guess of a generated person's ``attribute`` knowing nothing but, when
    ``know_length``, the answer's number of words (the number of [MASK] tokens BERT is given)."""
    from bertology_lib.data import bios

    if attribute == "birth_date":  # every date is "Month D , YYYY": 4 words, all equally likely
        return 1.0 / ((bios.YEARS[1] - bios.YEARS[0] + 1) * len(bios.MONTHS) * (bios.DAYS[1] - bios.DAYS[0] + 1))
    probs = _value_probs(attribute)
    if not know_length:
        return max(probs.values())
    best: dict[int, float] = {}
    for v, p in probs.items():
        n = len(bios.words(v))
        best[n] = max(best.get(n, 0.0), p)
    return sum(best.values())


def physics_length_hint_truth() -> float:
    """Mean over the six attributes of the best accuracy a guesser reaches knowing only the answer's number of
    words (``bios.words``, which is BERT's number of [MASK] tokens), over the generator's distribution."""
    from bertology_lib.data import bios

    return sum(best_guess(a, True) for a in bios.ATTRIBUTES) / len(bios.ATTRIBUTES)


@checker("ex-physics06-length")
def _check_physics_length_hint(answer):
    """``answer``: mean over attributes of the best length-aware guess's accuracy (a share; +-2%)."""
    from bertology_lib.data import bios

    v = as_number(answer)
    if v is None or not 0.0 <= v <= 1.0:
        return False, f"expected a share between 0 and 1, got {answer!r}."
    truth = physics_length_hint_truth()
    if close(v, truth, rel=0.02):
        return True, ("correct: compare it with the guess that does not know the length; the hint is real but "
                      "small next to what extraction must reach.")
    if close(v, sum(best_guess(a, False) for a in bios.ATTRIBUTES) / 6, rel=0.02):
        return False, ("that is the best guess without the hint: within each answer length pick the most likely "
                       "value, and add up over the lengths.")
    uniform_cc = sum(best_guess(a, True) for a in bios.ATTRIBUTES if a != "company_city")
    lengths = {len(bios.words(c)) for c in set(bios.COMPANY_CITY.values())}
    if close(v, (uniform_cc + len(lengths) / len(set(bios.COMPANY_CITY.values()))) / 6, rel=0.02):
        return False, ("company city is not uniform: it follows the company, and some cities host many companies "
                       "(count bios.COMPANY_CITY's values).")
    return False, ("not quite: for each attribute group its values by number of words; the best guess for a "
                   "length is its most likely value, so the accuracy is the sum over lengths of those "
                   "probabilities. Birth dates all have four words.")


@lru_cache(maxsize=4)
def physics_bert_targets_truth() -> float:
    """Times each word of an attribute value is a masked-prediction target in the quick BERT pretraining on
    multi5+permute (N = 300, seed 0): ``bert_steps`` x biographies per batch (as many tokens as the decoder's
    windows, :func:`bertology_lib.experiments.physics.bert.bert_rows`) / people x ``bert_mask_prob``."""
    from bertology_lib.experiments.physics import bert as pbert

    cfg = quick_config().replace(augmentation="multi5+permute")
    rows = pbert.bert_rows(cfg.dataset(), pbert.bert_tokenizer(), cfg)
    return cfg.bert_steps * rows / cfg.n_people * cfg.bert_mask_prob


@checker("ex-physics06-targets")
def _check_physics_bert_targets(answer):
    """``answer``: how many times each word of a fact's value is a masked target in the quick BERT pretraining
    on multi5+permute (a number; +-3%, which also accepts counting the short batch at each bucket's end)."""
    v = as_number(answer)
    if v is None or v <= 0:
        return False, f"expected a positive number, got {answer!r}."
    truth = physics_bert_targets_truth()
    cfg = quick_config()
    p = cfg.bert_mask_prob
    if close(v, truth, rel=0.03):
        return True, ("correct: at the decoder's steps and 15% masks BERT would get several times fewer training "
                      "signals per fact than the decoder; the quick recipe's longer run and 40% masks make up for it.")
    if close(v, truth / p, rel=0.03):
        return False, f"that is how often BERT reads each fact; a word is a target only when it is masked ({p:.0%})."
    if close(v, truth * 0.8, rel=0.03):
        return False, ("every picked word is a target, also the 10% left unchanged and the 10% replaced at random, "
                       "not only the 80% turned into [MASK].")
    if close(v, truth / 5, rel=0.03):
        return False, "each person has five biographies in multi5+permute, and each states every fact."
    if close(v, truth * cfg.pretrain_steps / cfg.bert_steps * 0.15 / p, rel=0.03):
        return False, (f"that is the BERT at the decoder's {cfg.pretrain_steps} steps and 15% masks; the quick recipe "
                       f"trains it for bert_steps = {cfg.bert_steps} steps masking bert_mask_prob = {p}.")
    if close(v, cfg.bert_steps * cfg.batch_size / cfg.n_people * p, rel=0.03):
        return False, ("a BERT batch is not 16 biographies: it holds as many tokens as the decoder's 16 x 128-token "
                       "windows, so about batch_size x seq_len / (mean biography length) biographies.")
    return False, ("not quite: biographies read = steps x biographies per batch; per person divide by N; each word "
                   "is picked as a target with probability mask_prob.")
