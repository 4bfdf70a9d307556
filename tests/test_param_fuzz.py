"""Parameter fuzzing: every notebook rejects bad parameters at once, before any work.

Each notebook's cell after its parameters cell is executed with a wrong type,
an out-of-range value and (through real papermill runs) an unknown name; each
must raise a ParameterError naming the parameter and what is allowed, fast,
with the cache left unchanged.
"""

from __future__ import annotations

import json
from pathlib import Path

import papermill as pm
import pytest

from bertology_lib.errors import ParameterError
from bertology_lib.book.specs import SPECS, notebook_paths

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = notebook_paths(ROOT)


def _cells(path: Path) -> tuple[str, str]:
    nb = json.loads(path.read_text())
    code = [
        c
        for c in nb["cells"]
        if c["cell_type"] == "code" and "injected-parameters" not in c["metadata"].get("tags", [])
    ]
    i = next(k for k, c in enumerate(code) if "parameters" in c["metadata"].get("tags", []))
    return "".join(code[i]["source"]), "".join(code[i + 1]["source"])


def _bad_values(p):
    wrong_type = {str: 12345, int: "not-a-number", float: "x", bool: "maybe"}[p.type]
    out = [("wrong type", wrong_type)]
    if p.choices is not None:
        out.append(("out of range", "bogus-value"))
    elif p.minimum is not None:
        out.append(("out of range", p.minimum - 1))
    elif p.maximum is not None:
        out.append(("out of range", p.maximum + 1))
    elif p.name.endswith("model"):
        out.append(("out of range", "not a model name!"))
    return out


CASES = [
    (path, p.name, kind, value) for path in NOTEBOOKS for p in SPECS[path.stem].params for kind, value in _bad_values(p)
]


@pytest.mark.parametrize("path,name,kind,value", CASES, ids=[f"{c[0].stem}-{c[1]}-{c[2]}" for c in CASES])
def test_resolve_cell_rejects(path, name, kind, value, tmp_cache):
    params_src, resolve_src = _cells(path)
    ns: dict = {}
    exec(params_src, ns)
    ns[name] = value
    with pytest.raises(ParameterError) as e:
        exec(resolve_src, ns)
    msg = str(e.value)
    assert f"{name}=" in msg and "allowed" in msg
    assert not tmp_cache.exists() or not any(tmp_cache.iterdir())


@pytest.mark.notebook
@pytest.mark.parametrize("path", NOTEBOOKS[:2], ids=lambda p: p.stem)
def test_papermill_unknown_name_and_wrong_type_fail_fast(path, tmp_path, tmp_cache):
    for params, expect in (({"profle": "smoke"}, "unknown parameter(s) profle"), ({"seed": "zero"}, "seed='zero'")):
        with pytest.raises(pm.PapermillExecutionError) as e:
            pm.execute_notebook(
                str(path),
                str(tmp_path / "out.ipynb"),
                parameters=params,
                progress_bar=False,
                kernel_name="python3",
                cwd=str(path.parent),
            )
        assert e.value.exec_count <= 3  # the resolve cell, right after the parameters: before any work
        assert e.value.ename == "ParameterError" and expect in e.value.evalue
        # one line, not a traceback: the message at the top of the cell output (ParameterError._render_traceback_)
        assert e.value.traceback == [f"ParameterError: {e.value.evalue}"]
        out = json.loads((tmp_path / "out.ipynb").read_text())
        shown = [
            o
            for c in out["cells"]
            if c["cell_type"] == "code"
            for o in c.get("outputs", [])
            if o["output_type"] == "error"
        ]
        assert [o["traceback"] for o in shown] == [[f"ParameterError: {e.value.evalue}"]]
    assert not tmp_cache.exists() or not any(tmp_cache.iterdir())


@pytest.mark.notebook
@pytest.mark.parametrize("name", ["survey_03_4_probing_limits"])
def test_encoder_without_mlm_head_runs_with_skipped_sections(name, tmp_path):
    """model=minilm: the probing sections run, the sections that score masked words explain why they skip."""
    out = tmp_path / f"{name}.ipynb"
    pm.execute_notebook(
        str(ROOT / "notebooks" / f"{name}.ipynb"),
        str(out),
        parameters={"profile": "smoke", "model": "minilm"},
        progress_bar=False,
        cwd=str(ROOT / "notebooks"),
    )
    outputs = [
        o for c in json.loads(out.read_text())["cells"] if c["cell_type"] == "code" for o in c.get("outputs", [])
    ]
    assert any("Skipped for minilm: amnesic probing" in "".join(o.get("text", "")) for o in outputs)
    claims = [o["metadata"]["bertology_claim"]["id"] for o in outputs if "bertology_claim" in o.get("metadata", {})]
    assert "survey3.4.real_mlp_less_selective" in claims  # the encoder-only sections ran
    assert "survey3.4.amnesic_pos" not in claims
