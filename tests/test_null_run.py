"""The null-model run: model parameters become random-init twins; the record feeds the closing chapter."""

import json
import shutil
from pathlib import Path

from bertology_lib.book import null_run
from bertology_lib.book.specs import SPECS

ROOT = Path(__file__).resolve().parents[1]


def test_null_params_replace_every_model_parameter():
    assert null_run.null_params(SPECS["survey_03_1_syntax"]) == {"model": "random-init:mini-bert",
                                                                "real_model": "random-init:minilm"}
    assert null_run.null_params(SPECS["duplication_01_reconstruction"]) == {"model": "random-init:mini-bert"}
    assert null_run.null_params(SPECS["physics_01_biographies"]) == {}  # no model parameter: nothing to replace
    names = null_run.default_notebooks(list(SPECS))
    assert "survey_04_3_layers" in names and "duplication_02_boost" in names and "survey_05_training" not in names


def test_record_from_run_folders_and_the_findings_section(tmp_path):
    (tmp_path / "book").mkdir()
    assert "No null-model run is recorded yet" in "\n".join(null_run.findings_section(null_run.load_record(tmp_path)))
    run = tmp_path / null_run.NULL_DIR
    run.mkdir(parents=True)
    shutil.copy(ROOT / "tests" / "regression" / "duplication_01_reconstruction.ipynb", run)
    out = null_run.write_record(tmp_path, "smoke")
    rec = json.loads(out.read_text())
    assert {r["id"] for r in rec["claims"]} == {"dup.reconstruction_every_layer", "dup.reconstruction_after_duplication",
                                              "dup.adjacent_layers_similar", "dup.reconstruction_across_variants"}
    assert rec["profile"] == "smoke" and "duplication_01_reconstruction" in rec["runs"]
    rec["claims"][0]["verdict"] = "reproduced"  # as if a null model had passed it: it must be named, with its note
    text = "\n".join(null_run.findings_section(rec))
    assert "Reproduced by a null model" in text and rec["claims"][0]["id"] in text and "random-init twin" in text
    rec["claims"][0]["verdict"] = "inconclusive"
    assert "No claim came out reproduced" in "\n".join(null_run.findings_section(rec))
