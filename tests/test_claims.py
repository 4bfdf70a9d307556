import json

import nbformat
import pytest

from bertology_lib.book.claims import (
    ClaimSpec,
    METADATA_KEY,
    AtLeast,
    AtMost,
    IntervalAbove,
    Verdict,
    WithinRelative,
    claims_in_notebook,
    fmt,
    ledger_frame,
    ledger_markdown,
    make_claim,
    summary,
)


def test_rules_compute_verdicts():
    assert WithinRelative(0.05).verdict(110e6, 109.5e6) is Verdict.REPRODUCED
    assert WithinRelative(0.05).verdict(110e6, 90e6) is Verdict.NOT_REPRODUCED
    assert AtLeast(0.6).verdict(None, 0.7) is Verdict.REPRODUCED
    assert AtLeast(0.6).verdict(None, 0.5) is Verdict.NOT_REPRODUCED
    assert AtMost(0.2).verdict(None, 0.1) is Verdict.REPRODUCED
    assert IntervalAbove(0).verdict(None, (0.3, 0.1, 0.5)) is Verdict.REPRODUCED
    assert IntervalAbove(0).verdict(None, (-0.3, -0.5, -0.1)) is Verdict.NOT_REPRODUCED
    assert IntervalAbove(0).verdict(None, (0.1, -0.2, 0.4)) is Verdict.INCONCLUSIVE


def test_fmt_is_rounded_and_deterministic():
    assert fmt(109482240) == "109M" and fmt(0.123456) == "0.123" and fmt(12) == "12"
    assert fmt((0.5, 0.25, 0.75)) == "(0.5, 0.25, 0.75)"


@pytest.fixture(autouse=True)
def _specs(claim_specs):
    claim_specs(
        ClaimSpec("x.one", "a claim", "Paper §1", 1.0, WithinRelative(0.05), unit="acc"),
        ClaimSpec("s.a", "claim a", "P §1", 1.0, WithinRelative(0.1)),
        ClaimSpec("p.b", "claim b", "Q §2", None, AtLeast(0.5)),
        ClaimSpec("survey9.x/y", "S", "src", 1, AtLeast(1)),
        ClaimSpec("x.nan", "s", "src", 1.0, AtLeast(0.5)),
        ClaimSpec("x.ok", "s", "src", 1.0, AtLeast(0.5)),
    )


def test_claim_round_trip_through_notebook_outputs(tmp_path):
    import numpy as np

    c = make_claim("x.one", ours=np.float64(0.98))
    assert c.verdict == "reproduced" and isinstance(c.ours, float)
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("record_claim(...)")
    cell.outputs = [
        nbformat.v4.new_output("display_data", data={"text/plain": c.line()}, metadata={METADATA_KEY: c.to_dict()})
    ]
    nb.cells = [cell]
    path = tmp_path / "nb.ipynb"
    nbformat.write(nb, path)
    [back] = claims_in_notebook(path)
    assert back.id == "x.one" and back.verdict == "reproduced" and back.details["cell_id"] == cell.id
    assert summary([back]) == {"reproduced": 1, "not reproduced": 0, "inconclusive": 0}
    assert ledger_frame([back]).loc[0, "ours"] == "0.98 acc"
    md = ledger_markdown([back])
    assert "<td>✅ reproduced</td><td>a claim <code>x.one</code>" in md and "**1 claims tested**" in md
    assert 'data-verdict="reproduced" data-instrument="not checked" data-kind="reproduction"' in md
    json.dumps(back.to_dict())


def test_empty_ledger_page():
    assert "No executed notebook" in ledger_markdown([])


def test_ledger_groups_by_part_and_findings_are_generated():
    from bertology_lib.book.claims import findings_markdown

    a = make_claim("s.a", ours=1.0)
    b = make_claim("p.b", ours=0.1)
    a = a.__class__(**{**a.to_dict(), "notebook": "nb_s"})
    b = b.__class__(**{**b.to_dict(), "notebook": "nb_p"})
    parts = {"nb_s": "survey", "nb_p": "physics"}
    md = ledger_markdown([a, b], {"nb_s": "S", "nb_p": "P"}, parts)
    assert 'data-part="survey"' in md and 'data-part="physics"' in md and "<td>Survey</td>" in md
    assert "**2 claims tested**: 1 reproduced, 1 not reproduced, 0 inconclusive." in md
    f = findings_markdown([a, b], {"nb_s": "S", "nb_p": "P"}, parts)
    assert "### ✅ Reproduced (1)" in f and "### ❌ Not reproduced (1)" in f
    assert "**claim b** (Q §2)" in f and "[P](../notebooks/nb_p.ipynb)" in f


def test_ledger_links_to_the_claims_cell_when_its_output_has_the_anchor(tmp_path):
    import json

    import nbformat

    from bertology_lib.book.claims import METADATA_KEY, findings_markdown

    c = make_claim("survey9.x/y", ours=2)
    assert c.anchor == "claim-survey9.x-y" and f'<span id="{c.anchor}"></span>' in c._repr_markdown_()
    d = {**c.to_dict(), "notebook": "nb_a"}
    nb = nbformat.v4.new_notebook()
    new = nbformat.v4.new_code_cell("x")
    new.outputs = [
        nbformat.v4.new_output("display_data", data={"text/markdown": c._repr_markdown_()}, metadata={METADATA_KEY: d})
    ]
    old = nbformat.v4.new_code_cell("y")  # recorded before outputs carried anchors
    old.outputs = [
        nbformat.v4.new_output(
            "display_data",
            data={"text/markdown": "**✅ reproduced**"},
            metadata={METADATA_KEY: {**d, "id": "survey9.old"}},
        )
    ]
    nb.cells = [new, old]
    path = tmp_path / "nb_a.ipynb"
    nbformat.write(nb, path)
    got = claims_in_notebook(path)
    assert got[0].details["anchor"] == "claim-survey9.x-y" and "anchor" not in got[1].details
    md = ledger_markdown(got, {"nb_a": "A"})
    assert '<a href="../notebooks/nb_a.html#claim-survey9.x-y">A</a>' in md
    assert '<a href="../notebooks/nb_a.html">A</a>' in md  # the old output falls back to the page
    assert '#claim-survey9.x-y">A</a>' in findings_markdown(got, {"nb_a": "A"})
    json.dumps([x.to_dict() for x in got])


def test_unmeasurable_values_are_inconclusive_and_json_safe():
    import json
    import math

    for ours in (math.nan, (1.0, math.nan, 2.0), None):
        c = make_claim("x.nan", ours=ours)
        assert c.verdict == "inconclusive"
        json.dumps(c.to_dict(), allow_nan=False)  # no NaN in the notebook's metadata
    assert make_claim("x.ok", ours=0.7).verdict == "reproduced"


def test_setup_checks_are_listed_apart_and_not_counted(claim_specs):
    from bertology_lib.book.claims import counts, findings_markdown

    claim_specs(ClaimSpec("t.gen", "the generator has 200 cities", "P §2", 200, WithinRelative(0.0), kind="setup"))
    gen = make_claim("t.gen", ours=200)
    real = make_claim("x.ok", ours=0.7)
    k = counts([gen, real])
    assert k["verdict"] == {"reproduced": 1, "not reproduced": 0, "inconclusive": 0} and k["setup"] == {
        "setup checks": 1
    }
    md = ledger_markdown([gen, real])
    assert "## Setup checks (not counted)" in md and md.index("t.gen") > md.index("## Setup checks")
    assert "**1 claims tested**" in md and "1 setup checks" in md
    assert "t.gen" not in findings_markdown([gen, real])
    frame = ledger_frame([gen, real])
    assert list(frame["kind"]) == ["setup", "reproduction"] and "instrument" in frame.columns
