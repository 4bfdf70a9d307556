"""constraints.txt pins the environment that every committed notebook's stamp records."""

from __future__ import annotations

from pathlib import Path

from bertology_lib.book import stamps

ROOT = Path(__file__).resolve().parents[1]


def _pins() -> dict[str, str]:
    lines = (ln.split("#")[0].strip() for ln in (ROOT / "constraints.txt").read_text().splitlines())
    return dict(ln.split("==") for ln in lines if ln)


def test_constraints_pin_what_every_stamp_records():
    pins = _pins()
    assert set(pins) == {"numpy", "transformers"}
    notebooks = sorted((ROOT / "notebooks").glob("*.ipynb"))
    assert notebooks
    recorded = {nb.stem: {k: stamps.read_stamp(nb)["environment"][k] for k in pins} for nb in notebooks}
    assert {name: env for name, env in recorded.items() if env != pins} == {}


def test_the_makefile_installs_under_the_constraints():
    assert '-c constraints.txt -e ".[book,test]"' in (ROOT / "Makefile").read_text()
