"""No pickle anywhere: artifacts are safetensors + JSON, remote code is never trusted."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RULES = {
    "pickle import": re.compile(r"^\s*(import|from)\s+(c?pickle|dill|joblib)\b", re.M),
    "torch.load without weights_only=True": re.compile(r"torch\.load\((?![^)]*weights_only\s*=\s*True)[^)]*\)"),
    "trust_remote_code enabled": re.compile(r"trust_remote_code\s*=\s*True"),
    "numpy allow_pickle": re.compile(r"allow_pickle\s*=\s*True"),
    "pandas read_pickle": re.compile(r"read_pickle\("),
}


def violations(text: str) -> list[str]:
    return [name for name, rx in RULES.items() if rx.search(text)]


def _sources():
    for p in sorted((ROOT / "src").rglob("*.py")):
        yield p, p.read_text()
    for p in sorted((ROOT / "notebooks").glob("*.ipynb")):
        yield p, p.read_text()


@pytest.mark.parametrize("path,text", list(_sources()), ids=lambda x: str(x)[-50:] if isinstance(x, Path) else "")
def test_no_unsafe_loading(path, text):
    assert violations(text) == [], f"{path.relative_to(ROOT)}: {violations(text)}"


def test_the_rules_catch_what_they_should():
    assert violations("import pickle") == ["pickle import"]
    assert violations("x = torch.load(path)") == ["torch.load without weights_only=True"]
    assert violations("x = torch.load(path, weights_only=True)") == []
    assert violations("AutoModel.from_pretrained(p, trust_remote_code=True)") == ["trust_remote_code enabled"]
    assert violations("np.load(f, allow_pickle=True)") == ["numpy allow_pickle"]
