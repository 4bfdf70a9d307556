"""Power first (book.power): each comparison's minimal detectable effect against the paper's effect, planned at the
design it ran at, whatever its verdict; bound claims sized at no effect."""

import math
import subprocess
import sys
from pathlib import Path

import pytest

from bertology_lib.book import conclusions as co
from bertology_lib.book import power
from bertology_lib.book.claims.record import Claim
from bertology_lib.book.claims.rules import BeatsBaseline, Equivalent, IntervalAbove
from bertology_lib.errors import ParameterError

ROOT = Path(__file__).resolve().parents[1]
FACTOR = (co.Z95 + co.Z80) / co.Z95  # about 1.43


def claim(cid, ours, paper, verdict="inconclusive", unit="accuracy points", kind="reproduction"):
    return Claim(
        cid,
        f"statement of {cid}",
        "P §1",
        paper,
        ours,
        "rule",
        verdict,
        unit=unit,
        notebook="nb",
        profile="quick",
        kind=kind,
        scale={"seeds": 3, "test examples": 250, "parameters": 10},
    )


def test_the_planning_half_is_the_side_that_must_clear_the_bar():
    c = claim("a", (2.0, 0.5, 5.0), 3.0)
    assert power.planning_half(c, IntervalAbove(0.0)) == pytest.approx(1.5)  # est - low, not the upper half
    assert power.planning_half(c, BeatsBaseline("twin")) == pytest.approx(1.5)
    assert power.planning_half(c, Equivalent(1.0)) == pytest.approx(3.0)  # either side may fail: the larger
    assert power.planning_half(claim("b", 0.4, 3.0), IntervalAbove(0.0)) is None  # no interval
    assert power.planning_half(c, None) is None


def test_decisions_follow_the_mde_against_the_papers_margin():
    assert power.decide(1.0, None) == ("no paper number", None)
    assert power.decide(1.0, 0.0) == ("untestable as stated", None)
    assert power.decide(1.0, -0.5) == ("untestable as stated", None)
    assert power.decide(1.0, 1.5) == ("powered", 1.0)
    d, k = power.decide(1.2, 1.0)
    assert d == "more data" and k == pytest.approx(1.44)
    d, k = power.decide(3.0, 1.0)
    assert d == "underpowered" and k == pytest.approx(9.0)
    assert power.decide(3.0, 1.0, affordable=10.0)[0] == "more data"


def test_the_plan_covers_every_interval_comparison_whatever_its_verdict():
    rules = {"won": IntervalAbove(0.0), "lost": IntervalAbove(0.0), "mid": IntervalAbove(0.0), "set": IntervalAbove(0)}
    claims = [
        claim("won", (3.0, 2.0, 4.0), 3.5, verdict="reproduced"),
        claim("lost", (-3.0, -4.0, -2.0), 3.5, verdict="not reproduced"),
        claim("mid", (0.5, -1.5, 2.5), 3.5),
        claim("set", (1.0, 0.5, 1.5), 3.5, kind="setup"),
        claim("norule", (1.0, 0.5, 1.5), 3.5),
        claim("sentence", (1.0, 0.5, 1.5), "an effect"),
    ]
    rules["sentence"] = IntervalAbove(0.0)
    plans = {p.id: p for p in power.plan(claims, rules)}
    assert set(plans) == {"won", "lost", "mid", "sentence"}  # setup checks and unruled claims left out
    assert plans["won"].mde == pytest.approx(FACTOR * 1.0) and plans["won"].decision == "powered"
    assert plans["mid"].mde == pytest.approx(FACTOR * 2.0)
    assert plans["mid"].decision == "powered"  # 2.86 <= 3.5: it could have seen the paper's effect
    assert plans["sentence"].decision == "no paper number" and plans["sentence"].margin is None
    assert plans["mid"].design == "seeds 3 × test examples 250"
    # four times the seeds and items halve the MDE
    assert power.plan(claims, rules, scale=4.0)[2].mde == pytest.approx(plans["mid"].mde / 2)


def test_a_plan_that_cannot_see_the_papers_effect_is_underpowered_with_its_multiple():
    c = claim("weak", (0.5, -6.5, 7.5), 1.5)
    (p,) = power.plan([c], {"weak": IntervalAbove(0.0)})
    assert p.decision == "underpowered"
    assert p.needed == pytest.approx((FACTOR * 7.0 / 1.5) ** 2)
    lines = "\n".join(power.plan_markdown([p]))
    assert "<b>underpowered</b> (1)" in lines and "`weak`" in lines and "seeds 3 × test examples 250" in lines
    assert "**1** underpowered" in lines and "**0** powered" not in lines  # the counts line


def test_bound_claims_are_sized_at_no_effect_not_at_the_bound():
    loss = claim("loss", (-1.28, -3.01, 0.45), -1.0)  # the paper: at most one point lost; the bar is that bound
    ratio = claim("ratio", (0.968, 0.931, 1.0), 0.97, unit="of the teacher")
    other = claim("other", (0.5, 0.1, 0.9), 0.5, unit="cosine")  # a bound on a scale with no known no-effect value
    assert co.no_effect_bound(loss, IntervalAbove(-1.0)) == 0.0
    assert co.paper_margin(loss, IntervalAbove(-1.0)) == pytest.approx(1.0)
    assert co.no_effect_bound(ratio, IntervalAbove(0.97)) == 1.0
    assert co.paper_margin(ratio, IntervalAbove(0.97)) == pytest.approx(0.03)
    assert co.no_effect_bound(other, IntervalAbove(0.5)) is None
    assert co.paper_margin(other, IntervalAbove(0.5)) == 0.0  # on the bar: untestable as stated
    # a paper value beyond the bar is not a bound: its own value sizes it
    effect = claim("effect", (0.5, -1.0, 2.0), 0.6)
    assert co.no_effect_bound(effect, IntervalAbove(0.0)) is None
    assert co.paper_margin(effect, IntervalAbove(0.0)) == pytest.approx(0.6)
    text = co.power_sentence(loss, IntervalAbove(-1.0))
    assert "sized at no effect (0)" in text and "had there been no effect" in text
    assert "whatever the sample" not in text


@pytest.mark.parametrize("bad", [0, -1.0, math.nan, True, "2"])
def test_a_bad_scale_is_refused(bad):
    with pytest.raises(ParameterError, match="scale="):
        power.plan([], {}, scale=bad)


@pytest.mark.slow  # runs the bertology command in a subprocess
def test_the_power_command_prints_the_plan_of_the_executed_notebooks():
    r = subprocess.run(
        [sys.executable, "-m", "bertology_lib.book.cli", "power"], capture_output=True, text=True, cwd=ROOT, timeout=300
    )
    assert r.returncode == 0, r.stderr
    assert "comparisons read an interval" in r.stdout and "underpowered" in r.stdout
    assert "size.heads_40pct" in r.stdout  # a bound claim, sized at no effect
