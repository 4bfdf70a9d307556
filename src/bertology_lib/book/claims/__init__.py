"""The claims ledger: registered claims, the rules that judge them, instrument checks, the ledger pages.

===============  ======================================================================================
module           holds
===============  ======================================================================================
``rules``        the rules (thresholds, intervals, baselines measured in the same run, equivalence)
``instruments``  instrument checks declared with a spec (:class:`Minimum`, :class:`AboveBaseline`, ...) and
                 their evaluated :class:`Check`
``registry``     :class:`ClaimSpec` and the registry
``specs``        one module per notebook, ``specs/<notebook>.py``: its claims' specs (``CLAIMS``)
``record``       :func:`record_claim` (a notebook records a claim by id and its measured values), :class:`Claim`
``ledger``       reading claims back from executed notebooks; the ledger page and the findings chapter
``sensitivity``  what a gated verdict would be at other instrument bars (a printed line, not a second verdict)
===============  ======================================================================================
"""

from bertology_lib.book.claims.ledger import (
    PART_TITLES,
    claims_in_notebook,
    collect,
    counts,
    findings_markdown,
    ledger_frame,
    ledger_markdown,
    reproductions,
    summary,
)
from bertology_lib.book.claims.instruments import (
    AboveBaseline,
    Check,
    Exceeds,
    Instrument,
    Maximum,
    Minimum,
    NoFailures,
)
from bertology_lib.book.claims.record import METADATA_KEY, Claim, make_claim, record_claim
from bertology_lib.book.claims.registry import REGISTRY, ClaimSpec, load_all, spec
from bertology_lib.book.claims.rules import (
    AtLeast,
    AtMost,
    BeatsBaseline,
    Equivalent,
    IntervalAbove,
    IntervalContains,
    IntervalWithin,
    Rule,
    Verdict,
    WithinRelative,
    fmt,
    rule_id,
    with_unit,
)

__all__ = [
    "PART_TITLES",
    "claims_in_notebook",
    "collect",
    "findings_markdown",
    "ledger_frame",
    "ledger_markdown",
    "summary",
    "counts",
    "reproductions",
    "METADATA_KEY",
    "AboveBaseline",
    "Check",
    "Exceeds",
    "Instrument",
    "Maximum",
    "Minimum",
    "NoFailures",
    "Claim",
    "make_claim",
    "record_claim",
    "REGISTRY",
    "ClaimSpec",
    "load_all",
    "spec",
    "AtLeast",
    "AtMost",
    "BeatsBaseline",
    "Equivalent",
    "IntervalAbove",
    "IntervalContains",
    "IntervalWithin",
    "Rule",
    "Verdict",
    "WithinRelative",
    "fmt",
    "rule_id",
    "with_unit",
]
