"""Notebook hygiene: parameters cells match the specs, regression copies stay in step."""

from __future__ import annotations

import json
import re
from pathlib import Path

import papermill as pm
import pytest

from bertology_lib.book.specs import SPECS, notebook_paths

ROOT = Path(__file__).resolve().parents[1]
REGRESSION = ROOT / "tests" / "regression"
NOTEBOOKS = notebook_paths(ROOT)


def _code_cells(path: Path, skip_injected: bool = True) -> list[str]:
    nb = json.loads(path.read_text())
    return [
        "".join(c["source"])
        for c in nb["cells"]
        if c["cell_type"] == "code" and not (skip_injected and "injected-parameters" in c["metadata"].get("tags", []))
    ]


def test_every_notebook_is_registered_and_in_the_book():
    from bertology_lib.book.specs import toc_order

    files = sorted(p.stem for p in (ROOT / "notebooks").glob("*.ipynb") if not p.name.startswith("."))
    assert files == sorted(p.stem for p in NOTEBOOKS), "a notebook is missing from _toc.yml or the specs"
    missing = [n for n in toc_order(ROOT) if not (ROOT / "notebooks" / f"{n}.ipynb").is_file()]
    assert missing == [], f"_toc.yml lists notebooks that do not exist: {missing}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_parameters_cell_matches_spec(path):
    spec = SPECS[path.stem]
    found = pm.inspect_notebook(str(path))
    assert list(found) == [p.name for p in spec.params], "parameters cell and spec disagree"
    for p in spec.params:
        assert eval(found[p.name]["default"]) == p.default, p.name  # literals only
        assert found[p.name]["help"], f"{p.name} needs a one-line comment"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_is_executed_in_order_without_errors(path):
    nb = json.loads(path.read_text())
    counts = [c.get("execution_count") for c in nb["cells"] if c["cell_type"] == "code"]
    assert None not in counts and counts == sorted(counts), "restart and run all"
    for c in nb["cells"]:
        for o in c.get("outputs", []):
            assert o["output_type"] != "error", f"a cell ends in {o.get('ename')}"
    assert nb["metadata"].get("papermill", {}).get("parameters", {}).get("profile", "quick") == "quick"
    assert all(
        c.get("metadata", {}).get("papermill", {}).get("status", "completed") == "completed" for c in nb["cells"]
    ), "a cell did not complete"


NOTEBOOK_CELL_LINES = 25  # logic lines (not blank, not comments) in one code cell


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebooks_are_thin(path):
    """Notebooks hold parameters, calls, figures and prose: no code cell over the limit, no function
    longer than a few lines (a longer one belongs in ``experiments/`` with a test). Exercise solutions
    (cells tagged ``solution``) are exempt: writing the function is the exercise."""
    import ast

    for c in json.loads(path.read_text())["cells"]:
        if c["cell_type"] != "code" or "solution" in c["metadata"].get("tags", []):
            continue
        src = "".join(c["source"])
        logic = [ln for ln in src.splitlines() if ln.strip() and not ln.strip().startswith("#")]
        assert len(logic) <= NOTEBOOK_CELL_LINES, f"a {len(logic)}-line cell: {logic[0][:60]}"
        code = "\n".join(ln for ln in src.splitlines() if not ln.lstrip().startswith(("%", "!")))
        for node in ast.walk(ast.parse(code)):
            if isinstance(node, ast.FunctionDef):
                assert node.end_lineno - node.lineno < 5, f"def {node.name} belongs in the library"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebooks_import_only_what_they_use(path):
    """An unused import is not harmless here: every library module a notebook imports is in its stamp's
    closure, so a change to it would re-execute the notebook for nothing."""
    import ast

    cells = [c for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "code"]
    code = "\n".join(
        ln for c in cells for ln in "".join(c["source"]).splitlines() if not ln.lstrip().startswith(("%", "!"))
    )
    tree = ast.parse(code)
    imported = {
        (a.asname or a.name).split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for a in node.names
    }
    used = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    assert not imported - used, f"imported and never used: {sorted(imported - used)}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_regression_copy_in_step_with_notebook(path):
    copy = REGRESSION / path.name
    assert copy.is_file(), f"missing {copy}: run `make regression`"
    assert _code_cells(copy) == _code_cells(path), f"{copy.name} drifted from its notebook: run `make regression`"
    injected = [
        c for c in json.loads(copy.read_text())["cells"] if "injected-parameters" in c["metadata"].get("tags", [])
    ]
    assert len(injected) == 1 and 'profile = "smoke"' in "".join(injected[0]["source"])
    assert any("NBVAL_CHECK_OUTPUT" in src for src in _code_cells(copy)), "nothing is checked"


FOLDED = {"hide-input", "hide-cell", "remove-input"}


def _is_setup(source: str) -> bool:
    """A set-up cell: the ``resolve(...)`` call that validates the parameters, or imports only."""
    lines = [ln for ln in source.splitlines() if ln.strip() and not ln.strip().startswith("#")]
    if not lines:
        return False
    if "resolve(" in source and len(lines) <= 4:
        return True
    return all(re.match(r"\s*(import |from \S+ import )", ln) or ln.startswith((" ", ")")) for ln in lines)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_claim_and_setup_cells_fold_their_code(path):
    """Claim-recording and set-up cells show their output and fold their code (``hide-input``: one click
    opens it), so the page reads as findings, not as imports and long ``record_claim(...)`` calls cut at the
    column's edge. The parameters cell stays open: it is what a reader changes."""
    nb = json.loads(path.read_text())
    unfolded = [
        i
        for i, c in enumerate(nb["cells"])
        if c["cell_type"] == "code"
        and not {"parameters", "injected-parameters"} & set(c["metadata"].get("tags", []))
        and ("record_claim(" in "".join(c["source"]) or _is_setup("".join(c["source"])))
        and not FOLDED & set(c["metadata"].get("tags", []))
    ]
    assert unfolded == [], f"cells {unfolded} record claims or set up with their code unfolded; tag them hide-input"
