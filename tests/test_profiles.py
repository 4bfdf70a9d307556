import pytest

from bertology_lib.errors import ParameterError
from bertology_lib.book.specs import SPECS, RunContext, get_spec, resolve, validate_values
from bertology_lib.profiles import PROFILE_NAMES, SizeTable, check_profile, size_tables, sizes_frame
from bertology_lib.validation import Param, check_choice, check_float, check_int, check_seeds


def test_every_size_table_has_every_profile_and_full_is_largest():
    from bertology_lib.book.cli import all_size_tables

    tables = all_size_tables()
    assert len(tables) >= 10  # mini-BERT, fine-tuning, physics, every notebook's sizes
    for name, table in tables.items():
        assert issubclass(table, SizeTable)
        frame = sizes_frame(table)
        assert list(frame.columns) == list(PROFILE_NAMES), name
    from bertology_lib.models.minibert import MiniBertConfig

    sizes = [MiniBertConfig.for_profile(p) for p in PROFILE_NAMES]
    assert sizes[0].max_steps < sizes[1].max_steps < sizes[2].max_steps
    assert MiniBertConfig.for_profile("smoke", seed=3, n_layers=1).n_layers == 1


def test_size_tables_come_from_a_registry_and_the_cli_lists_every_module_that_has_one():
    """profiles.size_tables() imports nothing (core imports no package above it): tables register themselves
    on import, and `bertology profiles` (all_size_tables) imports every module that defines one."""
    import ast
    import subprocess
    import sys
    from pathlib import Path

    src = Path(__file__).resolve().parents[1] / "src" / "bertology_lib"
    defining = set()
    for path in src.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef) and any(getattr(b, "id", None) == "SizeTable" for b in node.bases):
                defining.add(f"{'.'.join(path.relative_to(src.parent).with_suffix('').parts)}.{node.name}")
    code = (
        "from bertology_lib import profiles; before = set(profiles.size_tables()); "
        "from bertology_lib.book.cli import all_size_tables; print(sorted(before)); print(sorted(all_size_tables()))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.splitlines()
    assert out[0] == "[]"  # importing profiles registers (and imports) nothing
    assert out[1] == repr(sorted(defining)) and len(defining) >= 10
    assert set(size_tables()) <= defining


def test_size_table_rejects_unknown_profile_and_field():
    from bertology_lib.models.minibert import MiniBertConfig

    with pytest.raises(ParameterError, match="profile='tiny'.*smoke, quick, full"):
        MiniBertConfig.for_profile("tiny")
    with pytest.raises(ParameterError, match="unknown MiniBertConfig field.*n_layerz"):
        MiniBertConfig.for_profile("smoke", n_layerz=2)


@pytest.mark.parametrize("bad", ["bogus", "", "QUICK", None, 3])
def test_unknown_profile_names_value_and_allowed(bad):
    with pytest.raises(ParameterError) as e:
        check_profile(bad)
    msg = str(e.value)
    assert repr(bad) in msg and all(n in msg for n in PROFILE_NAMES)


def test_check_helpers_name_the_value_and_what_is_allowed():
    with pytest.raises(ParameterError, match=r"steps=0 is out of range; allowed: an int >= 1"):
        check_int("steps", 0, minimum=1)
    with pytest.raises(ParameterError, match=r"steps=True has type bool"):
        check_int("steps", True, minimum=1)
    with pytest.raises(ParameterError, match=r"lr=0.0 is out of range; allowed: a float > 0"):
        check_float("lr", 0.0, minimum=0.0, open_min=True)
    with pytest.raises(ParameterError, match=r"p=nan is not finite"):
        check_float("p", float("nan"))
    with pytest.raises(ParameterError, match=r"kind='x' is not allowed; allowed: 'a', 'b'"):
        check_choice("kind", "x", ("a", "b"))
    with pytest.raises(ParameterError, match=r"seeds=\[0, 0\] are invalid"):
        check_seeds([0, 0])
    assert check_seeds((2, 1)) == [2, 1] and check_float("x", 1) == 1.0


def test_param_type_range_and_choices():
    p = Param("n", 3, "how many", int, minimum=1, maximum=10)
    assert p.validate(5) == 5
    for bad, word in [
        (0, "out of range"),
        (11, "out of range"),
        (2.5, "type float"),
        ("3", "type str"),
        (True, "type bool"),
    ]:
        with pytest.raises(ParameterError, match=word) as e:
            p.validate(bad)
        assert "n=" in str(e.value) and "[1, 10]" in str(e.value)
    f = Param("lr", 0.1, "rate", float, minimum=0.0)
    assert f.validate(1) == 1.0 and isinstance(f.validate(1), float)


def test_coerce_from_command_line_strings():
    assert Param("n", 3, "", int).coerce("7") == 7
    assert Param("x", 0.5, "", float).coerce("1e-3") == 1e-3
    assert Param("b", True, "", bool).coerce("false") is False
    with pytest.raises(ParameterError, match="'abc' is not an int"):
        Param("n", 3, "", int).coerce("abc")


def test_unknown_parameter_name_is_rejected():
    spec = get_spec("survey_02_architecture")
    with pytest.raises(ParameterError, match="unknown parameter.*colour.*allowed: profile, seed, model"):
        validate_values(spec.name, spec.params, {"colour": "red"})


def test_resolve_returns_a_run_context():
    r = resolve("survey_02_architecture", profile="smoke", seed=3, model="minilm")
    assert isinstance(r, RunContext)
    assert r.profile == "smoke" and r.seed == 3 and r.model == "minilm" and r.device == "cpu"
    assert r.source().profile == "smoke" and r.source().seed == 3  # profile and seed travel with the model
    from bertology_lib.experiments.survey.architecture import ArchitectureSizes

    assert r.sizes(ArchitectureSizes).n_examples == ArchitectureSizes.for_profile("smoke").n_examples


def test_resolve_rejects_before_any_work(monkeypatch):
    # an unreachable hub must fail fast with the embedded alternatives listed
    monkeypatch.setattr("bertology_lib.models.registry.hub_reachable", lambda timeout=0: False)
    with pytest.raises(ParameterError, match="model='bogus-model'.*minilm"):
        resolve("survey_02_architecture", profile="smoke", seed=0, model="bogus-model")
    with pytest.raises(ParameterError, match="seed=-1 is out of range"):
        resolve("survey_02_architecture", profile="smoke", seed=-1, model="minilm")


def test_unknown_notebook():
    with pytest.raises(ParameterError, match="survey_02_architecture"):
        get_spec("nope")
    assert "survey_02_architecture" in SPECS


def test_the_run_context_loads_the_mini_bert_of_its_profile_and_seed(tmp_cache):
    """#19 item 3: a smoke run with model=mini-bert trains (and loads) the smoke mini-BERT, not the quick one."""
    from bertology_lib.models.minibert import MiniBertConfig

    run = resolve("survey_02_architecture", profile="smoke", seed=1, model="mini-bert")
    model, tok = run.load()
    smoke = MiniBertConfig.for_profile("smoke", seed=1)
    assert model.config.num_hidden_layers == smoke.n_layers and model.config.hidden_size == smoke.d_model
    [folder] = list((tmp_cache / "minibert").iterdir())
    import json

    assert json.loads((folder / "artifact.json").read_text())["config"]["minibert"] == smoke.key()
