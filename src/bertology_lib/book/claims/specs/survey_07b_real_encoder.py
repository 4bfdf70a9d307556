"""The registered claims of survey_07b_real_encoder: a behavioural suite for MiniLM (Rogers et al. 2020 §7).

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
        "survey7.sst2_negation_mft",
        "A sentiment model fails a simple negation test far more often than its i.i.d. error (SST-2 on MiniLM; 'negated positive' failure rate minus i.i.d. error; 95% interval over seeds and test items)",
        "Rogers et al. 2020 §7; Ribeiro et al. 2020 Table 1",
        paper="negation MFT failures far above test error",
        rule=IntervalAbove(0.05),
        unit="failure rate - error",
        checks=_LEARNED,
        note="ours: per seed, the failure rate on the templated 'negated positive' MFT minus the error on the GLUE "
        "dev sentences, with an interval over seeds and items. Instrument: the model beats always predicting the "
        "majority label on the dev sentences, with at least 3 seeds (always 'positive' fails every negated "
        "positive at an error of about 0.49).",
        null=(0.51, 0.44, 0.58),  # always 'positive': fails every 'negated positive' item, i.i.d. error ~0.49
    ),
    ClaimSpec(
        "survey7.sst2_negation_hard_mft",
        "A sentiment model fails a negation with neutral words between 'not' and the sentiment word ('i would not say , "
        "given that it was a tuesday , that the movie was good .' -> negative) far more often than its i.i.d. error "
        "(SST-2 on MiniLM; failure rate minus i.i.d. error; 95% interval over seeds and test items)",
        "Rogers et al. 2020 §7; Ribeiro et al. 2020 Table 1 (negation with neutral content in the middle)",
        paper="negation MFT failures far above test error, the hardest with neutral content in the middle",
        rule=IntervalAbove(0.05),
        unit="failure rate - error",
        checks=_LEARNED,
        note="registered 2026-12-05 before any run: CheckList's harder negation template beside the easiest one "
        "(survey7.sst2_negation_mft), as the paper's Table 1 has both; the same instrument (the model beats always "
        "predicting the majority label, with at least 3 seeds; always 'positive' fails every item).",
    ),
)
