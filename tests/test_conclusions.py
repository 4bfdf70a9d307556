"""The chapters' conclusions and the closing synthesis are computed from the recorded claims."""

import dataclasses
from pathlib import Path

import nbformat
import pytest

from bertology_lib.book import conclusions as co
from bertology_lib.book.claims import METADATA_KEY
from bertology_lib.book.claims.record import Claim
from bertology_lib.book.claims.rules import BeatsBaseline, Equivalent, IntervalAbove, IntervalWithin

ROOT = Path(__file__).resolve().parents[1]


def claim(cid, verdict, ours, model="mini-bert", source="P §1", paper="an effect", instrument="ok", checks=(), nb="nb"):
    return Claim(
        cid,
        f"the measured statement of claim {cid} (with details)",
        source,
        paper,
        ours,
        "rule",
        verdict,
        unit="acc",
        notebook=nb,
        profile="quick",
        model=model,
        instrument=instrument,
        checks=list(checks),
        scale={"items": 240},
    )


def test_a_failed_instrument_is_named_with_its_value():
    c = claim(
        "p.x",
        "inconclusive",
        0.1,
        instrument="failed: memorised 0.944 (failed: >= 0.95)",
        checks=[{"name": "memorised", "value": 0.944, "passed": False, "requirement": ">= 0.95"}],
    )
    r = co.reason(c, [c], IntervalAbove(0))
    assert r.kind == "instrument" and "memorised 0.944 (needs >= 0.95)" in r.text


def test_power_says_which_side_and_how_much_more_data():
    c = claim("s.a", "inconclusive", (0.817, 0.754, 0.866))
    r = co.reason(c, [c], IntervalAbove(0.8))
    assert r.kind == "power" and "contains the rule's bar 0.8" in r.text and "lies above it" in r.text
    # half below the estimate 0.063, distance 0.017: (0.063 / 0.017)^2 = 13.7 -> 14x
    assert "about 14× the items" in r.text
    on_bar = claim("s.b", "inconclusive", (0.0, -0.1, 0.1))
    assert "sits on the bar" in co.reason(on_bar, [on_bar], BeatsBaseline("twin")).text
    # an equivalence rule: the nearer of its two bars
    eq = claim("s.c", "inconclusive", (0.03, -0.01, 0.07))
    assert "bar 0.05" in co.reason(eq, [eq], Equivalent(0.05)).text


def test_mde_is_read_off_the_interval_on_the_bars_side():
    # half on the bar's side 0.063: MDE = (1.96 + 0.84) / 1.96 * 0.063 = 0.090
    c = claim("s.a", "inconclusive", (0.817, 0.754, 0.866))
    assert co.mde(c, IntervalAbove(0.8)) == pytest.approx(0.063 * (co.Z95 + co.Z80) / co.Z95)
    assert co.mde(c, IntervalAbove(0.7)) is None  # the bar lies outside the interval: nothing to detect
    assert co.mde(claim("s.b", "inconclusive", 0.3), IntervalAbove(0.2)) is None  # no interval


def test_underpowered_when_the_mde_exceeds_the_papers_margin():
    # paper 1.5 points above the bar 0; the interval half below the estimate is 5.3: MDE 7.56 > 1.5
    c = claim("d.boost", "inconclusive", (0.65, -4.64, 5.94), paper=1.5)
    r = co.reason(c, [c], IntervalAbove(0))
    assert r.kind == "underpowered" and "minimal detectable effect is 7.56" in r.text
    assert "margin over the bar (1.5; its value 1.5)" in r.text and "probability 8% only" in r.text
    # (7.56 / 1.5)^2 = 25.4: the data a run needs for 80% power at the paper's value
    assert "needs 26× the data" in r.text


def test_needed_scale_follows_the_square_root_law():
    assert co.needed_scale(2.0, 1.0) == pytest.approx(4.0)
    assert co.needed_scale(0.5, 1.0) == 1.0  # already enough: never less than the run itself
    with pytest.raises(ValueError, match="must be positive, got 0"):
        co.needed_scale(1.0, 0.0)


def test_enough_power_and_a_smaller_effect_is_not_called_underpowered():
    # a tight interval straddling the bar while the paper lies far beyond it: the run could have seen the effect
    c = claim("d.small", "inconclusive", (0.05, -0.01, 0.11), paper=0.5)
    r = co.reason(c, [c], IntervalAbove(0))
    assert r.kind == "smaller here" and "It had the power" in r.text
    assert co.power_kind(c, IntervalAbove(0))[0] == "smaller here"
    # the same interval against a paper effect it cannot resolve
    c2 = dataclasses.replace(c, paper=0.05)
    assert co.reason(c2, [c2], IntervalAbove(0)).kind == "underpowered"


def test_a_paper_value_on_the_bar_is_underpowered_whatever_the_sample():
    c = claim("s.prune", "inconclusive", (-1.04, -2.23, 0.15), paper=-1.0)
    r = co.reason(c, [c], IntervalAbove(-1.0))
    assert r.kind == "underpowered" and "own value (-1) lies on the rule's bar" in r.text


def test_paper_margin_reads_the_rules_scale_only():
    assert co.paper_margin(claim("a", "inconclusive", (0, -1, 1), paper=0.0), Equivalent(1.0)) == 1.0
    assert co.paper_margin(
        claim("a", "inconclusive", (0, -1, 1), paper=0.7), IntervalWithin(0.5, 0.9)
    ) == pytest.approx(0.2)
    assert co.paper_margin(claim("a", "inconclusive", (0, -1, 1), paper="an effect"), IntervalAbove(0)) is None
    assert co.paper_margin(claim("a", "inconclusive", (0, -1, 1), paper=3.0), BeatsBaseline("twin")) is None
    # no paper number: the MDE is stated alone, the kind says so
    c = claim("s.t", "inconclusive", (0.1, -0.2, 0.4))
    r = co.reason(c, [c], IntervalAbove(0))
    assert r.kind == "power" and "minimal detectable effect is" in r.text and "no number" in r.text


def test_not_reproduced_splits_model_dependence_from_failing_here():
    toy = claim("s.toy", "not reproduced", (-0.1, -0.2, -0.05), source="Clark §3", paper="heads")
    real = claim("s.real", "reproduced", (0.2, 0.1, 0.3), model="minilm", source="Clark §3", paper="heads")
    other = claim("s.other", "not reproduced", (-0.1, -0.2, -0.05), source="Kao §2", paper="boost")
    assert co.reason(real, [toy, real, other]) is None
    r = co.reason(toy, [toy, real, other], IntervalAbove(0))
    assert r.kind == "model" and "reproduces on the MiniLM (contrastive encoder)" in r.text
    r = co.reason(other, [toy, real, other], IntervalAbove(0))
    assert r.kind == "fails here" and "items: 240" in r.text and "only a larger run can tell" in r.text


def test_chapter_counts_and_groups_by_reason(claim_specs):
    a = claim("s.a", "reproduced", (0.3, 0.2, 0.4))
    b = claim("s.b", "inconclusive", (0.1, -0.1, 0.3))
    ch = co.chapter([a, b], [a, b], stale="its cells changed")
    assert ch.lead.startswith("2 claims tested: 1 reproduced, 1 inconclusive.")
    assert "the toy lab BERT (2)" in ch.lead and "its cells changed" in ch.stale
    [(title, items)] = ch.groups
    assert title == "Too little power, and no paper number to size it against (1)" and items[0][0].id == "s.b"
    assert co.chapter([], []) is None
    only = co.chapter([a], [a])
    assert only.groups == [] and only.stale == ""


def test_findings_synthesise_instead_of_listing():
    toy = claim("s.toy", "not reproduced", (-0.1, -0.2, -0.05), source="Clark §3", paper="heads", nb="s1")
    real = claim("s.real", "reproduced", (0.2, 0.1, 0.3), model="minilm", source="Clark §3", paper="heads", nb="s1")
    dec = claim(
        "p.x",
        "inconclusive",
        0.1,
        model="decoder (physics)",
        nb="p1",
        instrument="failed: memorised 0.9",
        checks=[{"name": "memorised", "value": 0.9, "passed": False, "requirement": ">= 0.95"}],
    )
    md = co.findings_markdown([toy, real, dec], {"s1": "S1", "p1": "P1"}, {"s1": "survey", "p1": "physics"})
    assert "(estimate, low, high)" in md  # the notation, explained once
    assert "| Survey | MiniLM (contrastive encoder) | 1 | 1 | 0 | 0 | 0 |" in md
    assert "| Physics of language models | decoder | 1 | 0 | 0 | 1 | 1 |" in md
    assert (
        "| Clark §3: heads | <a " in md
        and "| splits |" in md
        and 'title="the measured statement of claim s.toy">❌</a>' in md
    )
    assert "Failed checks: `memorised` (1)." in md
    assert "claim s.real (with details)" not in md  # one-line titles, the ledger keeps the rest
    assert '<a href="../notebooks/s1.html">the measured statement of claim s.toy</a>' in md


def test_no_claims_no_conclusion():
    assert "No executed notebook" in co.findings_markdown([])


def test_a_finding_inconclusive_on_every_model_is_undecided_not_split():
    a = claim("s.m", "inconclusive", (0.1, -1.0, 1.2), model="minilm", source="Kao §4", paper="0", nb="s1")
    b = claim("s.e", "inconclusive", (-1.1, -3.7, 1.4), model="english-bert", source="Kao §4", paper="0", nb="s1")
    md = co.findings_markdown([a, b], {"s1": "S1"}, {"s1": "duplication"})
    assert "| undecided on every model |" in md and "| splits |" not in md


@pytest.mark.parametrize(
    "text, head",
    [
        ("BERT prefers the agreeing verb form (items, 95% interval)", "BERT prefers the agreeing verb form"),
        ("Short", "Short"),
        ("A long statement that is cut at its colon here: and more", "A long statement that is cut at its colon here"),
        (
            "The English lab BERT fine-tuned on SST-2: int8 quantisation costs less than 1 point",
            "The English lab BERT fine-tuned on SST-2: int8 quantisation costs less than 1 point",
        ),
    ],
)
def test_short_titles(text, head):
    assert co.short(text) == head


def test_the_extension_puts_the_conclusion_under_what_we_found(tmp_path):
    from docutils import nodes
    from docutils.core import publish_doctree

    from bertology_lib.book import sphinx_conclusions as sc

    c = claim("s.b", "inconclusive", (0.1, -0.1, 0.3))
    ch = co.chapter([c], [c])
    doctree = publish_doctree(
        "Title\n=====\n\nWhat we found\n-------------\n\nHow to read it.\n",
        settings_overrides={"doctitle_xform": False},
    )
    section = [s for s in doctree.findall(nodes.section) if s.next_node(nodes.title).astext() == "What we found"][0]
    for k, node in enumerate(sc.nodes_for(ch), start=1):
        section.insert(k, node)
    text = section.astext()
    assert text.index("Computed from this page's claims") < text.index("How to read it.")
    [ref] = [r for r in section.findall(nodes.reference)]
    assert ref["refuri"] == "#claim-s.b"
    # a notebook never executed in place is said to be stale
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("x")
    cell.outputs = [
        nbformat.v4.new_output("display_data", data={"text/markdown": "x"}, metadata={METADATA_KEY: c.to_dict()})
    ]
    nb.cells = [cell]
    path = tmp_path / "nb.ipynb"
    nbformat.write(nb, path)
    assert co.stale_note(path) == "it was never executed in place"


def test_findings_summarise_the_undecided_by_side_and_data_needed(claim_specs):
    from bertology_lib.book.claims import ClaimSpec

    claim_specs(
        ClaimSpec("t.p1", "a claim one", "P §1", 0.9, IntervalAbove(0.8), unit="acc"),
        ClaimSpec("t.p2", "a claim two", "P §1", 0.9, IntervalAbove(0.0), unit="acc"),
    )
    a = claim("t.p1", "inconclusive", (0.817, 0.754, 0.866))  # above the bar, about 14x
    b = claim("t.p2", "inconclusive", (-0.05, -0.2, 0.1))  # below the bar, (0.15 / 0.05)^2 = 9x
    md = co.findings_markdown([a, b], {"nb": "N"}, {"nb": "survey"})
    assert "1 estimates lie above the bar, 1 below it" in md
    assert "the median claim would need about 14× its items or seeds" in md


def test_findings_name_the_pages_whose_outputs_predate_the_code():
    a = claim("s.a", "reproduced", (0.3, 0.2, 0.4), nb="nb1")
    md = co.findings_markdown([a], {"nb1": "Page one"}, {"nb1": "survey"}, {"nb1": "its cells changed"})
    assert "<b>1 of the pages' outputs predate" in md and '<a href="../notebooks/nb1.html">Page one</a>' in md
    assert "predate" not in co.findings_markdown([a], {"nb1": "Page one"}, {"nb1": "survey"}, {})


def test_a_zero_width_interval_is_no_measurement_and_a_huge_multiple_is_capped():
    flat = claim("s.flat", "not reproduced", (-0.4, -0.4, -0.4))
    r = co.reason(flat, [flat], IntervalAbove(0))
    assert r.kind == "instrument" and "zero width" in r.text
    edge = claim("s.edge", "inconclusive", (0.981, 0.844, 1.12))
    assert "over 100× the items" in co.reason(edge, [edge], IntervalAbove(0.98)).text


def test_a_reproduction_the_data_can_decide_is_said_so_with_the_row_beyond_it(claim_specs):
    from bertology_lib.book.claims.registry import ClaimSpec

    claim_specs(
        ClaimSpec(
            "s.easy",
            "x",
            "P §1",
            paper="e",
            rule=IntervalAbove(0.0),
            by_construction="the data says so",
            beyond="s.hard",
        ),
        ClaimSpec("s.hard", "y", "P §1", paper="e", rule=IntervalAbove(0.0)),
        ClaimSpec("s.alone", "z", "P §1", paper="e", rule=IntervalAbove(0.0), by_construction="so does this"),
    )
    easy = claim("s.easy", "reproduced", (0.3, 0.2, 0.4))
    hard = claim("s.hard", "not reproduced", (-0.1, -0.2, -0.05))
    alone = claim("s.alone", "reproduced", (0.3, 0.2, 0.4))
    [(c1, t1), (c2, t2)] = co.construction_items([easy, hard, alone])
    assert c1.id == "s.easy" and t1.startswith("reproduced, but the data says so; the row that asks for more")
    assert "reads not reproduced, (-0.1, -0.2, -0.05) acc" in t1
    assert c2.id == "s.alone" and "no row of the book measures beyond the data yet" in t2
    ch = co.chapter([easy, hard, alone], [easy, hard, alone])
    assert ch.groups[-1][0] == "Reproduced, but the data can decide it (2)"
    assert "## Reproduced, but the data can decide it" in co.findings_markdown([easy, hard, alone])
    assert co.construction_items([hard]) == []  # a row that did not reproduce needs no such warning
    with pytest.raises(ValueError, match="beyond='s.x' without by_construction"):
        ClaimSpec("s.bad", "x", "P §1", paper="e", rule=IntervalAbove(0.0), beyond="s.x")


def test_every_beyond_row_is_registered_and_the_ledger_tags_the_rows_the_data_can_decide():
    from bertology_lib.book.claims import ledger
    from bertology_lib.book.claims.registry import load_all

    reg = load_all()
    tagged = {k: s for k, s in reg.items() if s.by_construction}
    assert "survey3.1.npi_licensing" in tagged and all(s.beyond in reg for s in tagged.values() if s.beyond)
    spec = tagged["survey3.1.npi_licensing"]
    c = dataclasses.replace(
        claim(spec.id, "reproduced", (0.3, 0.2, 0.4)),
        details={"by_construction": spec.by_construction, "beyond": spec.beyond},
    )
    page = ledger.ledger_markdown([c, claim("s.x", "reproduced", (0.3, 0.2, 0.4))])
    assert page.count('data-construction="yes"') == 1 and page.count('data-construction="no"') == 1
    assert "the data can decide it</span>" in page and "survey3.1.npi_licensing_beyond_ngram" in page


def test_a_reproduction_the_null_model_passes_too_is_named_and_not_counted(tmp_path):
    """The null-model record reaches every row it covers: a reproduced row whose rule the random-init twin also
    passes is counted apart (not as reproduced), tagged in the ledger and listed in the chapter's conclusion;
    a row whose null fails shows what the null gave."""
    from bertology_lib.book.claims import ledger

    passes = dataclasses.replace(
        claim("a", "reproduced", 0.3), details={"null_verdict": "reproduced", "null_ours": 0.25}
    )
    holds = dataclasses.replace(
        claim("b", "reproduced", 0.3), details={"null_verdict": "not reproduced", "null_ours": 0.01}
    )
    k = ledger.summary([passes, holds])
    assert k["reproduced"] == 1 and k[ledger.NULL_PASSES] == 1
    assert ledger.NULL_PASSES not in ledger.summary([holds])
    assert "1 reproduced by a null model too (not counted as reproduced)" in co._counts_sentence([passes, holds])
    page = ledger.ledger_markdown([passes, holds])
    assert page.count("a null model passes too: not counted") == 1
    assert 'data-null="reproduced"' in page and 'data-null="not reproduced"' in page and "0.01 acc" in page
    ch = co.chapter([passes, holds])
    assert [t for t, _ in ch.groups] == [f"{co.NULL_TITLE.capitalize()} (1)"]
    assert "random-init twin passes the same rule (0.25 acc)" in ch.groups[0][1][0][1]
    assert co.NULL_TITLE.capitalize() in co.findings_markdown([passes, holds])


def test_claims_read_back_carry_the_books_null_record_at_their_profile(tmp_path):
    import json
    import shutil

    from bertology_lib.book.claims import ledger

    src = ROOT / "tests" / "regression" / "duplication_01_reconstruction.ipynb"
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "book").mkdir()
    nb = tmp_path / "notebooks" / src.name
    shutil.copy(src, nb)
    first = ledger.claims_in_notebook(nb)[0]
    assert ledger.null_verdict(first) == ""  # no record: nothing attached
    row = {"id": first.id, "verdict": "reproduced", "ours": 0.5}
    (tmp_path / ledger.NULL_RECORD).write_text(json.dumps({"profile": "quick", "claims": [row]}))
    assert ledger.null_verdict(ledger.claims_in_notebook(nb)[0]) == ""  # another profile (smoke): not this row's null
    (tmp_path / ledger.NULL_RECORD).write_text(json.dumps({"profile": first.profile, "claims": [row]}))
    again = ledger.claims_in_notebook(nb)[0]
    assert ledger.null_verdict(again) == "reproduced" and again.details["null_ours"] == 0.5
