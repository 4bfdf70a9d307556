"""Crash safety and determinism (hardening issue).

* A mini-BERT training run without resuming (``resume_every=0``) killed with
  SIGKILL after it has written checkpoints leaves nothing a later run uses; the
  later run rebuilds and ends with exactly the weights of an uninterrupted run.
  (The resuming path is tested in ``test_resume.py``.)
* A notebook run twice with the same profile and seed, each time on an empty
  cache (so everything is retrained), records identical ledger numbers.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import papermill as pm
import pytest
import torch

from bertology_lib.cache import ArtifactCache, load_tensors
from bertology_lib.book.claims import claims_in_notebook
from bertology_lib.models.minibert import MiniBertConfig, history
from bertology_lib.training.minibert import KIND, minibert_key, train_minibert

pytestmark = pytest.mark.slow  # notebook reruns and killed training runs

ROOT = Path(__file__).resolve().parents[1]
STEPS = 120  # long enough to kill after the first checkpoint, short enough for CI


def _weights(folder: Path) -> dict[str, torch.Tensor]:
    return load_tensors(folder / "final" / "model.safetensors")


def test_training_killed_midway_rebuilds_to_the_uninterrupted_result(tmp_path):
    cfg = MiniBertConfig.for_profile("smoke", max_steps=STEPS)
    killed, clean = tmp_path / "killed", tmp_path / "clean"
    script = textwrap.dedent(f"""
        import torch
        torch.set_num_threads(1)
        from bertology_lib.cache import ArtifactCache
        from bertology_lib.models.minibert import MiniBertConfig
        from bertology_lib.training.minibert import train_minibert
        train_minibert(MiniBertConfig.for_profile("smoke", max_steps={STEPS}), ArtifactCache({str(killed)!r}),
                       progress=False, resume_every=0)
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], env={**os.environ, "OMP_NUM_THREADS": "1"})
    deadline = time.monotonic() + 180
    try:
        while not list(killed.glob(f"{KIND.name}/.tmp-*/checkpoints/step_*/model.safetensors")):
            assert proc.poll() is None, "training finished before it could be killed; raise STEPS"
            assert time.monotonic() < deadline, "no checkpoint written within 180 s"
            time.sleep(0.05)
    finally:
        proc.kill()  # SIGKILL: no cleanup handlers run
        proc.wait()
    assert proc.returncode == -9
    cache = ArtifactCache(killed)
    assert cache.get(KIND, minibert_key(cfg)) is None  # the half-written run is not an entry
    assert list(cache.entries()) == []
    rebuilt = train_minibert(cfg, cache, progress=False, resume_every=0)
    assert history(rebuilt)["resumed_from"] == 0
    assert cache.prune() == 1  # the dead run's folder is swept, never read
    reference = train_minibert(cfg, ArtifactCache(clean), progress=False, resume_every=0)
    a, b = _weights(rebuilt), _weights(reference)
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
    assert history(rebuilt)["losses"] == history(reference)["losses"]


def _ledger_numbers(path: Path) -> dict[str, object]:
    return {c.id: (c.ours, c.verdict) for c in claims_in_notebook(path)}


# survey_05d_nsp: WordPiece lab BERTs, whose tokenizer the library trainer numbered in per-process hash order
# until models.wordpiece (its train_seconds column is wall time and no ledger number)
@pytest.mark.parametrize("name,kind", [("duplication_01_reconstruction", KIND.name), ("survey_05d_nsp", "lab-bert")])
def test_notebook_rerun_on_a_fresh_cache_gives_identical_ledger_numbers(name, kind, tmp_path, monkeypatch):
    numbers = []
    for run in ("first", "second"):
        monkeypatch.setenv("BERTOLOGY_CACHE", str(tmp_path / f"cache-{run}"))  # inherited by the kernel
        out = tmp_path / f"{run}.ipynb"
        pm.execute_notebook(
            str(ROOT / "notebooks" / f"{name}.ipynb"),
            str(out),
            parameters={"profile": "smoke", "seed": 3},
            progress_bar=False,
            cwd=str(ROOT / "notebooks"),
        )
        assert any((tmp_path / f"cache-{run}").glob(f"{kind}/*/final")), "the run did not train its own model"
        numbers.append(_ledger_numbers(out))
    assert numbers[0] and numbers[0] == numbers[1]
