"""Checkers of the exercises of ``physics_06_bert`` (BERT: what a masked language model can extract, Allen-Zhu & Li
2023):

* ``ex-physics06-length``: the best accuracy of a guesser that knows only the answer's number of words;
* ``ex-physics06-targets``: how often each word of a fact is a masked target in the quick BERT pretraining.

Every truth is computed here from the library and the bioS generator at the configuration the exercise names (the
quick sizes, seed 0: :mod:`bertology_lib.book.exercises.quick_physics`), never from the profile the notebook runs
at, so a teacher notebook passes its checks at smoke and at quick alike. Used by that notebook's exercise cells.
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache

from bertology_lib.book.exercises.cases import Mistake, judge_value, within
from bertology_lib.book.exercises.checks import as_positive, as_share, checker
from bertology_lib.book.exercises.quick_physics import physics_config


def _value_probs(attribute: str) -> dict[str, float]:
    """Probability of every value of ``attribute`` for a generated person (uniform draws; company city
    through the company)."""
    from bertology_lib.data import bios

    pools = {
        "birth_city": bios.CITIES,
        "university": bios.UNIVERSITIES,
        "major": bios.MAJORS,
        "company_name": bios.COMPANIES,
    }
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

    def uniform_company_city(truth):
        uniform_cc = sum(best_guess(a, True) for a in bios.ATTRIBUTES if a != "company_city")
        lengths = {len(bios.words(c)) for c in set(bios.COMPANY_CITY.values())}
        return (uniform_cc + len(lengths) / len(set(bios.COMPANY_CITY.values()))) / 6

    return judge_value(
        answer,
        read=as_share,
        refuse="expected a share between 0 and 1, got {answer!r}.",
        truth=physics_length_hint_truth,
        match=within(rel=0.02),
        ok=(
            "correct: compare it with the guess that does not know the length; the hint is real but small next to "
            "what extraction must reach."
        ),
        mistakes=[
            Mistake(
                "that is the best guess without the hint: within each answer length pick the most likely "
                "value, and add up over the lengths.",
                lambda t: sum(best_guess(a, False) for a in bios.ATTRIBUTES) / 6,
            ),
            Mistake(
                "company city is not uniform: it follows the company, and some cities host many companies "
                "(count bios.COMPANY_CITY's values).",
                uniform_company_city,
            ),
        ],
        not_yet=(
            "not quite: for each attribute group its values by number of words; the best guess for a length is "
            "its most likely value, so the accuracy is the sum over lengths of those probabilities. Birth dates "
            "all have four words."
        ),
    )


@lru_cache(maxsize=4)
def physics_bert_targets_truth() -> float:
    """Times each word of an attribute value is a masked-prediction target in the quick BERT pretraining on
    multi5+permute (the profile's N, seed 0): ``bert_steps`` x biographies per batch (as many tokens as the decoder's
    windows, :func:`bertology_lib.experiments.physics.bert.bert_rows`) / people x ``bert_mask_prob``."""
    from bertology_lib.experiments.physics import bert as pbert

    cfg = physics_config().replace(augmentation="multi5+permute")
    rows = pbert.bert_rows(cfg.dataset(), pbert.bert_tokenizer(), cfg)
    return cfg.bert_steps * rows / cfg.n_people * cfg.bert_mask_prob


@checker("ex-physics06-targets")
def _check_physics_bert_targets(answer):
    """``answer``: how many times each word of a fact's value is a masked target in the quick BERT pretraining
    on multi5+permute (a number; +-3%, which also accepts counting the short batch at each bucket's end)."""
    cfg = physics_config()
    p = cfg.bert_mask_prob
    return judge_value(
        answer,
        read=as_positive,
        refuse="expected a positive number, got {answer!r}.",
        truth=physics_bert_targets_truth,
        match=within(rel=0.03),
        ok=(
            "correct: at the decoder's steps and 15% masks BERT would get several times fewer training signals per "
            "fact than the decoder; the quick recipe's longer run and 40% masks make up for it."
        ),
        mistakes=[
            Mistake(
                f"that is how often BERT reads each fact; a word is a target only when it is masked ({p:.0%}).",
                lambda t: t / p,
            ),
            Mistake(
                "every picked word is a target, also the 10% left unchanged and the 10% replaced at random, not "
                "only the 80% turned into [MASK].",
                lambda t: t * 0.8,
            ),
            Mistake("each person has five biographies in multi5+permute, and each states every fact.", lambda t: t / 5),
            Mistake(
                f"that is the BERT at the decoder's {cfg.pretrain_steps} steps and 15% masks; the quick recipe "
                f"trains it for bert_steps = {cfg.bert_steps} steps masking bert_mask_prob = {p}.",
                lambda t: t * cfg.pretrain_steps / cfg.bert_steps * 0.15 / p,
            ),
            Mistake(
                "a BERT batch is not 16 biographies: it holds as many tokens as the decoder's 16 x 128-token "
                "windows, so about batch_size x seq_len / (mean biography length) biographies.",
                lambda t: cfg.bert_steps * cfg.batch_size / cfg.n_people * p,
            ),
        ],
        not_yet=(
            "not quite: biographies read = steps x biographies per batch; per person divide by N; each word is "
            "picked as a target with probability mask_prob."
        ),
    )
