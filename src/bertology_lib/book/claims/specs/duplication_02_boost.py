"""The registered claims of duplication_02_boost: duplicating layers, then fine-tuning, on toy QA (Kao et
al. 2020 §4-5).

A comparison between fine-tuned models is only judged when the reference beats its task's floor (always
the majority label, or no answer for QA; the floor's name comes from the run) and, for an interval over
seeds, with at least 3 seeds.

Each :class:`~bertology_lib.book.claims.registry.ClaimSpec` in ``CLAIMS`` is registered under this module's
name before the notebook runs, in the order the notebook records them; the notebook passes only its
measured values (see :mod:`bertology_lib.book.claims.registry`).
"""

from bertology_lib.book.claims.instruments import AboveBaseline
from bertology_lib.book.claims.registry import ClaimSpec
from bertology_lib.book.claims.rules import IntervalAbove
from bertology_lib.book.claims.specs.shared import THREE_SEEDS

BASELINE_BEATS_FLOOR = AboveBaseline("baseline_beats_floor")

CLAIMS = (
    ClaimSpec(
        "dup.boost_qa",
        "Duplicating blocks before fine-tuning improves extractive QA with unanswerable questions (F1 gain, paired by seed, 95% CI)",
        "Kao et al. 2020 §4, Table 2 (SQuAD 2.0)",
        paper=1.5,
        rule=IntervalAbove(0.0),
        unit="F1 points",
        checks=(BASELINE_BEATS_FLOOR, THREE_SEEDS),
        note="instrument: the baseline's F1 is above always answering 'no answer' (interval over seeds), and the "
        "interval over seeds has at least 3 seeds",
    ),
    ClaimSpec(
        "dup.ensemble_beyond_ensembling",
        "An ensemble of duplicated variants beats an ensemble of as many baseline seeds (toy QA F1)",
        "Kao et al. 2020 §4 (ensembles)",
        paper="ensembles of variants help",
        rule=IntervalAbove(0.0),
        unit="F1 points",
        checks=(BASELINE_BEATS_FLOOR, THREE_SEEDS),
        note="instrument: the baseline's F1 is above always answering 'no answer', with at least 3 seeds",
    ),
)
