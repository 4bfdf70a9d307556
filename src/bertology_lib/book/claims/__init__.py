"""The claims ledger: registered claims, the rules that judge them, instrument checks, the ledger pages.

============  =========================================================================================
module        holds
============  =========================================================================================
``rules``     the rules (thresholds, intervals, baselines measured in the same run, equivalence)
``registry``  :class:`ClaimSpec` and the registry; the specs by book part: ``specs_survey_probing``,
              ``specs_survey_semantics``, ``specs_survey_location``, ``specs_survey_model``,
              ``specs_survey_directions``, ``specs_physics``, ``specs_duplication``
``record``    :func:`record_claim` (a notebook records a claim by id), :class:`Check`, :class:`Claim`
``ledger``    reading claims back from executed notebooks; the ledger page and the findings chapter
============  =========================================================================================
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
from bertology_lib.book.claims.record import METADATA_KEY, Check, Claim, make_claim, record_claim
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

__all__ = ["PART_TITLES", "claims_in_notebook", "collect", "findings_markdown", "ledger_frame", "ledger_markdown",
           "summary", "counts", "reproductions", "METADATA_KEY", "Check", "Claim", "make_claim", "record_claim", "REGISTRY", "ClaimSpec",
           "load_all", "spec", "AtLeast", "AtMost", "BeatsBaseline", "Equivalent", "IntervalAbove",
           "IntervalContains", "IntervalWithin", "Rule", "Verdict", "WithinRelative", "fmt", "rule_id", "with_unit"]
