"""The null-model run: model parameters become random-init twins; the record feeds the closing chapter."""

import json
import shutil
from pathlib import Path

from bertology_lib.book import null_run
from bertology_lib.book.specs import SPECS

ROOT = Path(__file__).resolve().parents[1]


def test_null_params_replace_every_model_parameter():
    assert null_run.null_params(SPECS["survey_03_1_syntax"]) == {
        "model": "random-init:mini-bert",
        "real_model": "random-init:minilm",
    }
    assert null_run.null_params(SPECS["duplication_01_reconstruction"]) == {"model": "random-init:mini-bert"}
    assert null_run.null_params(SPECS["physics_01_biographies"]) == {}  # no model parameter: nothing to replace
    names = null_run.default_notebooks(list(SPECS))
    assert {"survey_04_3_layers", "duplication_02_boost", "survey_05_training", "survey_06b_real_encoder"} <= set(names)
    assert not any(n.startswith("physics") for n in names) and "survey_05b_architecture" not in names


def test_record_from_run_folders_and_the_findings_section(tmp_path):
    (tmp_path / "book").mkdir()
    assert "No null-model run is recorded yet" in "\n".join(null_run.findings_section(null_run.load_record(tmp_path)))
    run = tmp_path / null_run.NULL_DIR
    run.mkdir(parents=True)
    shutil.copy(ROOT / "tests" / "regression" / "duplication_01_reconstruction.ipynb", run)
    out = null_run.write_record(tmp_path, "smoke")
    rec = json.loads(out.read_text())
    assert {r["id"] for r in rec["claims"]} == {
        "dup.reconstruction_every_layer",
        "dup.reconstruction_after_duplication",
        "dup.adjacent_layers_similar",
        "dup.reconstruction_across_variants",
    }
    assert rec["profile"] == "smoke" and "duplication_01_reconstruction" in rec["runs"]
    rec["claims"][0]["verdict"] = "reproduced"  # as if a null model had passed it: it must be named, with its note
    text = "\n".join(null_run.findings_section(rec))
    assert "Reproduced by a null model" in text and rec["claims"][0]["id"] in text and "random-init twin" in text
    rec["claims"][0]["verdict"] = "inconclusive"
    assert "No claim came out reproduced" in "\n".join(null_run.findings_section(rec))


def test_a_partial_null_run_updates_the_record_and_keeps_the_other_notebooks(tmp_path):
    """Rerunning one notebook replaces its rows (and an older row of a claim that moved to it), keeps the rest;
    a record at another profile is replaced, not merged."""
    (tmp_path / "book").mkdir()
    run = tmp_path / null_run.NULL_DIR
    run.mkdir(parents=True)
    shutil.copy(ROOT / "tests" / "regression" / "duplication_01_reconstruction.ipynb", run)
    rec = json.loads(null_run.write_record(tmp_path, "smoke").read_text())
    moved = dict(rec["claims"][0], notebook="survey_99_old", verdict="reproduced")  # before a claim moved
    other = dict(rec["claims"][0], id="x.other", notebook="survey_99_old")
    rec["claims"] += [moved, other]
    rec["runs"]["survey_99_old"] = {"model": "random-init:mini-bert"}
    (tmp_path / null_run.RECORD).write_text(json.dumps(rec))
    merged = json.loads(null_run.write_record(tmp_path, "smoke").read_text())
    by = [(r["id"], r["notebook"]) for r in merged["claims"]]
    assert ("x.other", "survey_99_old") in by and (moved["id"], "survey_99_old") not in by
    assert (moved["id"], "duplication_01_reconstruction") in by and len(by) == len(set(by)) == 5
    assert set(merged["runs"]) == {"duplication_01_reconstruction", "survey_99_old"}
    fresh = json.loads(null_run.write_record(tmp_path, "quick").read_text())
    assert {r["notebook"] for r in fresh["claims"]} == {"duplication_01_reconstruction"}


def test_claims_no_null_can_test_are_recorded_as_such_and_never_discount_a_row(tmp_path):
    """A speed-up depends on the architecture: the record keeps the null's row as "not a null test" with the
    reason, the findings list it apart, and the ledger does not treat it as a null that passes."""
    from bertology_lib.book.claims import ledger

    assert {"size.heads_speedup", "size.distil_speedup"} <= set(null_run.NOT_A_NULL_TEST)
    (tmp_path / "book").mkdir()
    run = tmp_path / null_run.NULL_DIR
    run.mkdir(parents=True)
    shutil.copy(ROOT / "tests" / "regression" / "survey_06_model_size.ipynb", run)
    rec = json.loads(null_run.write_record(tmp_path, "smoke").read_text())
    rows = {r["id"]: r for r in rec["claims"]}
    assert rows["size.heads_speedup"]["verdict"] == null_run.NO_TEST
    assert all(
        r["verdict"] != null_run.NO_TEST
        for i, r in rows.items()
        if i not in null_run.NOT_A_NULL_TEST and r["kind"] != "setup"
    )
    assert all(r["verdict"] == null_run.NO_TEST for r in rows.values() if r["kind"] == "setup")  # constants, arithmetic
    stamped = json.loads((run / "survey_06_model_size.ipynb").read_text())["metadata"]["bertology_run"]["environment"]
    assert rec["environment"]["threads"] == stamped["threads"]  # the runs' environment, not the writer's
    text = "\n".join(null_run.findings_section(rec))
    assert "Not a test for a null model" in text and "depends on the architecture" in text
    speed = next(
        c for c in ledger.claims_in_notebook(run / "survey_06_model_size.ipynb") if c.id == "size.heads_speedup"
    )
    import dataclasses

    speed = dataclasses.replace(speed, verdict="reproduced", details={"null_verdict": null_run.NO_TEST})
    assert not ledger.null_passes(speed)


def test_a_row_whose_model_the_twin_does_not_replace_is_not_a_null_test(tmp_path):
    """When the book's own run of a notebook read the same model for a row as its null run (a model the notebook
    trains itself, which no parameter names), the twin never entered the measurement: no null test either way."""
    (tmp_path / "book").mkdir()
    (tmp_path / "notebooks").mkdir()
    run = tmp_path / null_run.NULL_DIR
    run.mkdir(parents=True)
    src = ROOT / "tests" / "regression" / "duplication_01_reconstruction.ipynb"
    shutil.copy(src, run)
    shutil.copy(src, tmp_path / "notebooks")  # the same run twice: every row read the same model
    rec = json.loads(null_run.write_record(tmp_path, "smoke").read_text())
    assert rec["claims"] and all(r["verdict"] == null_run.NO_TEST for r in rec["claims"])
    assert all("does not reach the model" in r["why"] for r in rec["claims"])
    assert "does not reach the model" in "\n".join(null_run.findings_section(rec))


def test_the_record_knows_which_run_of_the_book_each_null_run_matches(tmp_path):
    """A null run is matched to the book's run of its notebook by the book's stamp: current while that stamp is
    the same, behind once the book's run changes (or when the book's run was stale when the null run was
    recorded); the closing chapter names every notebook that is behind and why."""
    from bertology_lib.book import stamps

    (tmp_path / "book").mkdir()
    (tmp_path / "notebooks").mkdir()
    shutil.copy(ROOT / "_toc.yml", tmp_path / "_toc.yml")
    name = "duplication_01_reconstruction"
    book_nb = tmp_path / "notebooks" / f"{name}.ipynb"
    shutil.copy(ROOT / "tests" / "regression" / f"{name}.ipynb", book_nb)
    run = tmp_path / null_run.NULL_DIR
    run.mkdir(parents=True)
    shutil.copy(book_nb, run)
    assert null_run.currency(tmp_path) == {name: "no null run recorded"}

    stamps.stamp(book_nb, {"profile": "smoke"})
    rec = json.loads(null_run.write_record(tmp_path, "smoke").read_text())
    assert rec["book_stamps"][name]["inputs_sha"] == stamps.read_stamp(book_nb)["inputs_sha"]
    assert null_run.currency(tmp_path) == {name: None}
    assert "Every one of the 1 null runs matches" in "\n".join(null_run.findings_section(rec, {name: None}))

    nb = json.loads(book_nb.read_text())  # the book's notebook changes and is executed again: a new stamp
    nb["cells"].append({"cell_type": "markdown", "id": "new-paragraph", "metadata": {}, "source": ["A new paragraph."]})
    book_nb.write_text(json.dumps(nb))
    stamps.stamp(book_nb, {"profile": "smoke"})
    behind = null_run.currency(tmp_path)
    assert behind == {name: "the book's run changed since its null run (new stamp)"}
    text = "\n".join(null_run.findings_section(rec, behind))
    assert "Not current for 1 of 1 notebooks</b>" in text and f"- {name}: the book's run changed" in text

    del rec["book_stamps"]  # a record written before it kept the book's stamps: unknown, so behind
    assert "predates" in null_run.currency(tmp_path, rec)[name]
    nb = json.loads(book_nb.read_text())  # edited after its last run: stale when the null run is recorded
    book_nb.write_text(json.dumps({**nb, "cells": nb["cells"][:-1]}))
    rec = json.loads(null_run.write_record(tmp_path, "smoke").read_text())
    assert rec["book_stamps"][name] is None
    assert null_run.currency(tmp_path)[name] == "the book's run was not up to date when its null run was recorded"
