import pytest

from bertology_lib.errors import ParameterError
from bertology_lib.book.specs import SPECS, get_spec
from bertology_lib.profiles import PROFILE_NAMES, Param, get_profile, resolve, validate_values


def test_every_profile_resolves_to_concrete_sizes():
    for name in PROFILE_NAMES:
        p = get_profile(name)
        assert p.name == name and p.n_examples > 0 and p.max_steps > 0
    assert get_profile("smoke").n_train < get_profile("quick").n_train < get_profile("full").n_train


@pytest.mark.parametrize("bad", ["bogus", "", "QUICK", None, 3])
def test_unknown_profile_names_value_and_allowed(bad):
    with pytest.raises(ParameterError) as e:
        get_profile(bad)
    msg = str(e.value)
    assert repr(bad) in msg and all(n in msg for n in PROFILE_NAMES)


def test_param_type_range_and_choices():
    p = Param("n", 3, "how many", int, minimum=1, maximum=10)
    assert p.validate(5) == 5
    for bad, word in [(0, "out of range"), (11, "out of range"), (2.5, "type float"), ("3", "type str"),
                      (True, "type bool")]:
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


def test_resolve_returns_profile_seed_and_values():
    r = resolve("survey_02_architecture", profile="smoke", seed=3, model="minilm")
    assert r.profile.name == "smoke" and r.seed == 3 and r.model == "minilm"


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
