"""Claim specs live in one module per notebook, with their instrument checks' thresholds (issue 36): notebooks
pass measured values only, and what the smoke copies recorded is what the registered instruments make of them."""

from __future__ import annotations

import importlib
import json
import math
import re
from pathlib import Path

import pytest

from bertology_lib.book.claims import (
    AboveBaseline,
    ClaimSpec,
    Exceeds,
    IntervalAbove,
    Maximum,
    Minimum,
    NoFailures,
    claims_in_notebook,
    load_all,
    make_claim,
)
from bertology_lib.book.claims.registry import SPECS_PACKAGE, spec_modules
from bertology_lib.book.specs import SPECS
from bertology_lib.errors import ParameterError

ROOT = Path(__file__).resolve().parents[1]
REGRESSION = sorted((ROOT / "tests" / "regression").glob("[!.]*.ipynb"))
CELLS = {p.stem: p for p in sorted((ROOT / "notebooks").glob("[!.]*.ipynb"))}


def test_instruments_compare_the_measured_value_with_the_declared_threshold():
    assert Minimum("memorised", 0.95).check(0.97).passed and not Minimum("memorised", 0.95).check(0.94).passed
    assert not Minimum("memorised", 0.95).check(math.nan).passed  # a measurement that could not be made fails
    assert Minimum("three_seeds", 3).check(3).line() == "three_seeds 3 (ok: >= 3)"
    assert Maximum("null_below_half", 0.5).check(0.5).passed and not Maximum("null_below_half", 0.5).check(0.6).passed
    named = AboveBaseline("beats_twin", "random-init twin").check((0.1, 0.02, 0.2))
    assert named.passed and named.requirement == "above random-init twin (interval low > 0)"
    assert not AboveBaseline("beats_twin", "random-init twin").check((0.1, 0.0, 0.2)).passed  # low must be > 0
    floor = AboveBaseline("iid_beats_floor").check(((0.2, 0.1, 0.3), "always 'negative'"))  # named in the run
    assert floor.passed and floor.requirement == "above always 'negative' (interval low > 0)"
    with pytest.raises(ParameterError, match="leaves the baseline to the run"):
        AboveBaseline("iid_beats_floor").check((0.2, 0.1, 0.3))
    with pytest.raises(ParameterError, match="an interval"):
        AboveBaseline("beats_twin", "twin").check(0.3)
    mlm = Exceeds("mlm_beats_unigram", "masked-word accuracy > unigram", digits=3).check((0.11149, 0.1115))
    assert not mlm.passed and mlm.value == [0.111, 0.112]  # compared unrounded, shown rounded
    assert NoFailures("every_variant", "every variant works").check([]).passed
    assert NoFailures("every_variant", "every variant works").check(["2 blocks"]).value == ["2 blocks"]
    for bad in (lambda: Minimum("memorised", math.nan), lambda: Minimum("not a name", 1.0)):
        with pytest.raises(ParameterError):
            bad()


def test_a_spec_declares_instruments_once_each(claim_specs):
    with pytest.raises(ParameterError, match="tuple of instrument checks"):
        ClaimSpec("t.x", "s", "src", 1.0, IntervalAbove(0.0), checks=("memorised",))
    with pytest.raises(ParameterError, match="each name once"):
        ClaimSpec("t.x", "s", "src", 1.0, IntervalAbove(0.0), checks=(Minimum("m", 1), Maximum("m", 2)))
    claim_specs(
        ClaimSpec("t.order", "s", "src", None, IntervalAbove(0.0), checks=(Minimum("a", 1), AboveBaseline("b", "twin")))
    )
    c = make_claim("t.order", ours=(0.1, 0.05, 0.2), checks={"b": (0.0, -0.1, 0.1), "a": 0})
    assert [x["name"] for x in c.checks] == ["a", "b"]  # the spec's order, whatever the notebook's
    assert c.instrument == "failed: a 0 (failed: >= 1); b (0, -0.1, 0.1) (failed: above twin (interval low > 0))"


def test_one_spec_module_per_notebook_registered_under_its_name():
    reg = load_all()
    modules = spec_modules()
    assert modules == sorted(SPECS) and "shared" not in modules  # every notebook records claims
    for name in modules:
        claims = importlib.import_module(f"{SPECS_PACKAGE}.{name}").CLAIMS
        assert claims and all(reg[s.id] is s and s.notebook == name for s in claims), name
    assert sum(len(importlib.import_module(f"{SPECS_PACKAGE}.{n}").CLAIMS) for n in modules) == len(
        [i for i in reg if reg[i].notebook in SPECS]
    )


@pytest.mark.parametrize("path", REGRESSION, ids=lambda p: p.stem)
def test_a_notebook_records_its_modules_claims_in_order(path):
    claims = importlib.import_module(f"{SPECS_PACKAGE}.{path.stem}").CLAIMS
    assert [c.id for c in claims_in_notebook(path)] == [s.id for s in claims]


def _measured(row: dict, instrument) -> object:
    """The value a notebook passed for ``row``, read back from what it recorded."""
    value = math.nan if row["value"] is None else row["value"]
    if isinstance(instrument, AboveBaseline) and instrument.baseline is None:
        return value, re.fullmatch(r"above (.*) \(interval low > 0\)", row["requirement"]).group(1)
    return value


@pytest.mark.parametrize("path", REGRESSION, ids=lambda p: p.stem)
def test_recorded_checks_are_the_registered_instruments(path):
    """The smoke copies are regenerated with every change: their recorded instrument checks (names, order,
    values, requirements, status) are what the registered instruments make of the values measured."""
    reg = load_all()
    for c in claims_in_notebook(path):
        s = reg[c.id]
        by_name = {i.name: i for i in s.checks}
        assert [r["name"] for r in c.checks] == list(by_name), c.id
        measured = {r["name"]: _measured(r, by_name[r["name"]]) for r in c.checks}
        again = make_claim(c.id, ours=c.ours, checks=measured)
        assert (again.checks, again.instrument) == (c.checks, c.instrument), c.id


@pytest.mark.parametrize("name", sorted(CELLS))
def test_notebooks_state_no_threshold_rule_or_statement(name):
    """Thresholds, rules and statements are the registry's: a notebook builds no Check and names no rule."""
    code = "\n".join(
        "".join(c["source"]) for c in json.loads(CELLS[name].read_text())["cells"] if c["cell_type"] == "code"
    )
    assert not re.search(r"\bCheck\b(?!\s+it with)|\brule=|\bstatement=|from bertology_lib\.book\.claims\.rules", code)


def test_physics_thresholds_are_the_experiments_constants():
    """The physics tables and prose show ``MEMORISED``, ``CLASSES_SEEN`` and ``POSITIVE_CONTROL``; the specs
    judge with the same numbers."""
    from bertology_lib.book.claims.specs import physics_05_probing, shared
    from bertology_lib.experiments.physics import evaluation, instruments

    probe = {i.name: i for i in physics_05_probing.CLAIMS[0].checks}
    assert shared.MEMORISED.threshold == evaluation.MEMORISED
    assert probe["classes_seen"].threshold == instruments.CLASSES_SEEN
    assert probe["probe_positive_control"].threshold == instruments.POSITIVE_CONTROL
    for s in load_all().values():
        if s.notebook.startswith("physics_"):
            assert all(i == shared.MEMORISED for i in s.checks if i.name == "memorised"), s.id
