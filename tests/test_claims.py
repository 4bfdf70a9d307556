import json

import nbformat

from bertology_lib.claims import (METADATA_KEY, AtLeast, AtMost, IntervalAbove, Verdict, WithinRelative,
                                  claims_in_notebook, fmt, ledger_frame, ledger_markdown, make_claim,
                                  summary)


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


def test_claim_round_trip_through_notebook_outputs(tmp_path):
    import numpy as np

    c = make_claim("x.one", "a claim", "Paper §1", paper=1.0, ours=np.float64(0.98),
                   rule=WithinRelative(0.05), unit="acc")
    assert c.verdict == "reproduced" and isinstance(c.ours, float)
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("record_claim(...)")
    cell.outputs = [nbformat.v4.new_output("display_data", data={"text/plain": c.line()},
                                           metadata={METADATA_KEY: c.to_dict()})]
    nb.cells = [cell]
    path = tmp_path / "nb.ipynb"
    nbformat.write(nb, path)
    [back] = claims_in_notebook(path)
    assert back.id == "x.one" and back.verdict == "reproduced" and back.details["cell_id"] == cell.id
    assert summary([back]) == {"reproduced": 1, "not reproduced": 0, "inconclusive": 0}
    assert ledger_frame([back]).loc[0, "ours"] == "0.98 acc"
    md = ledger_markdown([back])
    assert "| ✅ reproduced | a claim (`x.one`)" in md and "1 claims" in md
    json.dumps(back.to_dict())


def test_empty_ledger_page():
    assert "No executed notebook" in ledger_markdown([])


def test_ledger_groups_by_part_and_findings_are_generated():
    from bertology_lib.claims import findings_markdown

    a = make_claim("s.a", "claim a", "P §1", paper=1.0, ours=1.0, rule=WithinRelative(0.1))
    b = make_claim("p.b", "claim b", "Q §2", paper=None, ours=0.1, rule=AtLeast(0.5))
    a = a.__class__(**{**a.to_dict(), "notebook": "nb_s"})
    b = b.__class__(**{**b.to_dict(), "notebook": "nb_p"})
    parts = {"nb_s": "survey", "nb_p": "physics"}
    md = ledger_markdown([a, b], {"nb_s": "S", "nb_p": "P"}, parts)
    assert "## Survey — A Primer in BERTology" in md and "## Physics of language models" in md
    assert "1 claims: 1 reproduced, 0 not reproduced, 0 inconclusive." in md
    f = findings_markdown([a, b], {"nb_s": "S", "nb_p": "P"}, parts)
    assert "### ✅ Reproduced (1)" in f and "### ❌ Not reproduced (1)" in f
    assert "**claim b** (Q §2)" in f and "[P](../notebooks/nb_p.ipynb)" in f
