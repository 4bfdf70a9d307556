"""The sensitivity line: what a gated verdict would be at other instrument bars."""

import pytest

from bertology_lib.book.claims import ClaimSpec, IntervalAbove, make_claim
from bertology_lib.book.claims.instruments import Minimum
from bertology_lib.book.claims.sensitivity import bar_sensitivity, sensitivity_line
from bertology_lib.errors import ParameterError


@pytest.fixture
def spec(claim_specs):
    claim_specs(
        ClaimSpec("t.gated", "a gated claim", "P §1", 0.9, IntervalAbove(0.0), checks=(Minimum("memorised", 0.95),))
    )


def test_a_model_under_the_bar_reads_inconclusive_there_and_the_rule_above_it(spec):
    c = make_claim("t.gated", ours=(0.3, 0.1, 0.5), checks={"memorised": 0.944})
    assert c.verdict == "inconclusive" and c.instrument_failed
    assert bar_sensitivity(c, "memorised") == {0.93: "reproduced", 0.97: "inconclusive — instrument"}
    line = sensitivity_line(c)
    assert "memorised 0.9440" in line and "at 0.93: reproduced" in line and "not a second verdict" in line


def test_a_passing_model_keeps_its_verdict_until_the_bar_passes_it(spec):
    c = make_claim("t.gated", ours=(-0.3, -0.5, -0.1), checks={"memorised": 0.96})
    assert bar_sensitivity(c, "memorised") == {0.93: "not reproduced", 0.97: "inconclusive — instrument"}


def test_an_unmeasured_value_stays_inconclusive_and_a_wrong_check_is_named(spec):
    c = make_claim("t.gated", ours=float("nan"), checks={"memorised": 0.5})
    assert set(bar_sensitivity(c, "memorised", [0.4]).values()) == {"inconclusive"}
    with pytest.raises(ParameterError, match="no instrument check 'memorized'; allowed: \\['memorised'\\]"):
        bar_sensitivity(c, "memorized")
