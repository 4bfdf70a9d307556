"""The claims registry: rules are registered before they run, notebooks cannot state another one,
instrument checks decide when a measurement says nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from bertology_lib.book.claims import (
    AtLeast,
    BeatsBaseline,
    Check,
    ClaimSpec,
    Equivalent,
    IntervalAbove,
    Verdict,
    claims_in_notebook,
    load_all,
    make_claim,
    rule_id,
    spec,
)
from bertology_lib.book.specs import SPECS
from bertology_lib.errors import ParameterError

ROOT = Path(__file__).resolve().parents[1]
EXECUTED = sorted((ROOT / "notebooks").glob("*.ipynb")) + sorted((ROOT / "tests" / "regression").glob("*.ipynb"))


@pytest.mark.parametrize("path", EXECUTED, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_every_recorded_claim_is_registered_with_its_rule(path):
    reg = load_all()
    for c in claims_in_notebook(path):
        assert c.id in reg, f"{c.id} is recorded but not registered"
        s = reg[c.id]
        assert (c.statement, c.source, c.rule, c.unit) == (s.statement, s.source, s.rule.describe(), s.unit), c.id
        assert s.notebook == path.stem, f"{c.id} is registered for {s.notebook}"


def test_registry_specs_name_a_book_notebook_and_are_well_formed():
    reg = load_all()
    assert len(reg) >= 100
    for s in reg.values():
        assert s.notebook in SPECS and s.statement and s.source and s.kind in ("reproduction", "setup"), s.id


def test_unregistered_id_and_a_different_rule_are_refused():
    with pytest.raises(ParameterError, match="not registered.*closest: size.heads_40pct"):
        make_claim("size.heads_40pc", ours=(0, -1, 1))
    s = spec("size.heads_40pct")
    with pytest.raises(ParameterError, match="rule=.*differs from the registered"):
        make_claim("size.heads_40pct", s.statement, s.source, paper=s.paper, ours=(0, 0, 0), rule=IntervalAbove(-2.0),
                   unit=s.unit)
    c = make_claim("size.heads_40pct", s.statement, s.source, paper=s.paper, ours=(0.5, 0.1, 0.9), rule=s.rule,
                   unit=s.unit)
    assert c.verdict == "reproduced" and c.rule_id == "IntervalAbove(-1)" and c.instrument == "no checks declared"


def test_a_failed_instrument_check_makes_the_verdict_inconclusive(claim_specs):
    claim_specs(ClaimSpec("t.extract", "extraction works", "P §1", 0.9, AtLeast(0.5), checks=("memorised",)))
    ok = make_claim("t.extract", ours=0.8, checks=[Check.at_least("memorised", 0.99, 0.95)])
    assert ok.verdict == "reproduced" and ok.instrument == "ok"
    bad = make_claim("t.extract", ours=0.8, checks=[Check.at_least("memorised", 0.40, 0.95)])
    assert bad.verdict == "inconclusive" and bad.instrument.startswith("failed: memorised 0.4")
    assert "INCONCLUSIVE — INSTRUMENT" in bad.line() and "inconclusive — instrument" in bad._repr_markdown_()
    also_bad = make_claim("t.extract", ours=0.1, checks=[Check.at_least("memorised", float("nan"), 0.95)])
    assert also_bad.verdict == "inconclusive"  # not "not reproduced": the instrument did not work
    with pytest.raises(ParameterError, match="exactly the registered checks"):
        make_claim("t.extract", ours=0.8)
    with pytest.raises(ParameterError, match="exactly the registered checks"):
        make_claim("t.extract", ours=0.8, checks=[Check.at_least("other", 1.0, 0.5)])


def test_baseline_and_equivalence_rules_and_their_ids():
    beats = BeatsBaseline("random-init twin", 0.0)
    assert beats.verdict(None, (0.2, 0.05, 0.35)) is Verdict.REPRODUCED
    assert beats.verdict(None, (0.0, -0.1, 0.1)) is Verdict.INCONCLUSIVE  # a null model: at its baseline
    assert beats.verdict(None, (-0.3, -0.4, -0.2)) is Verdict.NOT_REPRODUCED
    assert "ours - random-init twin" in beats.describe()
    eq = Equivalent(1.0)
    assert eq.verdict(None, (0.1, -0.5, 0.7)) is Verdict.REPRODUCED
    assert eq.verdict(None, (0.1, -3.0, 3.2)) is Verdict.INCONCLUSIVE  # too little power to call it no effect
    assert eq.verdict(None, (2.0, 1.5, 2.5)) is Verdict.NOT_REPRODUCED
    with pytest.raises(ParameterError, match="margin=0"):
        Equivalent(0)
    assert rule_id(eq) == "Equivalent(1)" and rule_id(beats) == "BeatsBaseline(random-init twin, 0)"
