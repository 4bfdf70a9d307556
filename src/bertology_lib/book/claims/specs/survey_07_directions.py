"""The registered claims of survey_07_directions: behavioural tests and shallow heuristics (Rogers et al.
2020 §7).

Every claim here compares a fine-tuned model's behaviour with its own i.i.d. score, and a constant
classifier can look like a model that fails a behavioural test (it fails every item of the other label).
So each claim declares the instrument check that the model learned the task: its i.i.d. accuracy is above
the task's floor (always the majority training label; the baseline's name comes from the run) on the same
test items, with an interval over seeds and items whose low end is above 0
(``experiments.survey.behaviour.floor_gap``); and, as every interval is over seeds, at least 3 seeds.
Intervals cover seeds *and* test items (``experiments.survey.behaviour.crossed_interval``).

Each :class:`~bertology_lib.book.claims.registry.ClaimSpec` in ``CLAIMS`` is registered under this module's
name before the notebook runs, in the order the notebook records them; the notebook passes only its
measured values (see :mod:`bertology_lib.book.claims.registry`).
"""

from bertology_lib.book.claims.instruments import AboveBaseline
from bertology_lib.book.claims.registry import ClaimSpec
from bertology_lib.book.claims.rules import IntervalAbove
from bertology_lib.book.claims.specs.shared import THREE_SEEDS

_LEARNED = (AboveBaseline("iid_beats_floor"), THREE_SEEDS)  # the model learned the task

CLAIMS = (
    ClaimSpec(
        "survey7.checklist_exceeds_iid_error",
        "Held-out accuracy overstates capability: a behavioural suite exposes a failure rate well above the i.i.d. error (toy negation classifier; suite failure rate, each test weighing equally, minus i.i.d. error; 95% interval over seeds and test items)",
        "Rogers et al. 2020 §7; Ribeiro et al. 2020 §3, Table 1",
        paper="failure rates far above held-out error",
        rule=IntervalAbove(0.05),
        unit="failure rate - error",
        checks=_LEARNED,
        note="ours: per seed, the mean over the suite's tests of each test's failure rate minus the error on the "
        "i.i.d. test sentences; the interval covers seeds and items (suite and i.i.d.). 'Far above' is read as "
        "more than 5 points. Instrument: the classifier beats always predicting the majority label on the i.i.d. "
        "test, with at least 3 seeds.",
        null=(
            -0.25,
            -0.32,
            -0.18,
        ),  # a constant classifier fails the 3 or 4 MFTs of the other label (of 16 tests) at error 0.5
    ),
    ClaimSpec(
        "survey7.hans_overlap_heuristic",
        "NLI fine-tuning adopts the lexical-overlap heuristic: trained on data where full overlap nearly always means entailment (as in MNLI), a model's accuracy on non-entailed full-overlap pairs is far below its i.i.d. accuracy (toy NLI; i.i.d. 3-way accuracy minus binary accuracy on the non-entailed HANS-like items; 95% interval over seeds and test items)",
        "Rogers et al. 2020 §7; McCoy et al. 2019 §5, Fig. 2",
        paper="near 0 on non-entailed HANS vs ~0.84 on MNLI",
        rule=IntervalAbove(0.1),
        unit="accuracy",
        checks=_LEARNED,
        note="the training data is built as MNLI is for this heuristic: a fifth of the pairs have full lexical "
        "overlap and 9 in 10 of those are entailment, labels balanced overall (data.hans.nli_mix); the i.i.d. "
        "test is drawn from the same mix; the HANS-like items (5 non-entailed categories, categories weighing "
        "equally) are never in training. Binary scoring of HANS and 3-way i.i.d. accuracy make the gap "
        "conservative. Instrument: the i.i.d. accuracy beats always predicting the majority label, with at "
        "least 3 seeds (a model answering 'entailment' to everything would otherwise pass).",
        null=(0.333, 0.28, 0.39),  # always 'entailment': 1/3 on the i.i.d. test, 0 on non-entailed overlap pairs
    ),
    ClaimSpec(
        "survey7.hans_heuristic_from_data",
        "The heuristic comes from the training data: trained where full overlap says nothing about the label (same size, same share of full-overlap pairs, balanced labels), the model is more accurate on non-entailed full-overlap pairs than trained where full overlap nearly always means entailment (uninformative minus MNLI-like training; paired by seed and item, 95% interval over seeds and test items)",
        "McCoy et al. 2019 §1, §7",
        paper="heuristics valid for almost all MNLI training pairs are adopted",
        rule=IntervalAbove(0.1),
        unit="accuracy",
        checks=(AboveBaseline("mnli_like_beats_floor"), AboveBaseline("uninformative_beats_floor"), THREE_SEEDS),
        note="the two training distributions differ only in the share of entailment among full-overlap pairs "
        "(0.9 vs 1/3, data.hans.nli_mix); everything else (model, size, seeds, HANS-like items) is shared, so the "
        "difference is what the data's overlap-entailment correlation buys. Instrument: both models beat always "
        "predicting the majority label on their i.i.d. tests, with at least 3 seeds. A constant classifier scores "
        "the same under both, a difference of 0.",
        by_construction="the two training mixes are generated to differ only in the share of entailment among full-overlap pairs (the design of the experiment), so any learner of that share shows the difference; it shows the data's correlation is learned, not that BERT's pretraining adds it",
    ),
)
