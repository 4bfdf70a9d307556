"""The thread policy (#19): ``BERTOLOGY_THREADS`` honoured and validated, else the free cores;
:func:`apply_thread_policy` sets torch's threads (and ``OMP_NUM_THREADS`` for child processes)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from bertology_lib.book import execution
from bertology_lib.errors import ParameterError
from bertology_lib.runtime import (
    THREADS_ENV,
    apply_thread_policy,
    environment,
    free_cores,
    thread_count,
)


@pytest.fixture(autouse=True)
def _restore_threads(monkeypatch):
    before = torch.get_num_threads()
    monkeypatch.delenv(THREADS_ENV, raising=False)
    yield
    torch.set_num_threads(before)


@pytest.mark.parametrize("raw, n", [("3", 3), (" 2 ", 2), ("1", 1)])
def test_bertology_threads_is_honoured(monkeypatch, raw, n):
    monkeypatch.setenv(THREADS_ENV, raw)
    monkeypatch.setattr(os, "getloadavg", lambda: (100.0, 100.0, 100.0))  # a busy machine does not override it
    assert thread_count() == n


@pytest.mark.parametrize("raw", ["0", "-2", "two", "1.5"])
def test_bad_bertology_threads_fails_naming_the_value(monkeypatch, raw):
    monkeypatch.setenv(THREADS_ENV, raw)
    before = torch.get_num_threads()
    with pytest.raises(ParameterError, match=rf"BERTOLOGY_THREADS={raw!r} is not allowed; allowed: an int >= 1"):
        apply_thread_policy()
    assert torch.get_num_threads() == before


@pytest.mark.parametrize("cpus, load, n", [(2, 0.1, 2), (2, 1.2, 1), (2, 5.0, 1), (8, 2.6, 5), (1, 0.0, 1)])
def test_default_is_the_free_cores(monkeypatch, cpus, load, n):
    monkeypatch.setattr(os, "cpu_count", lambda: cpus)
    monkeypatch.setattr(os, "getloadavg", lambda: (load, load, load))
    assert free_cores() == thread_count() == n


def test_apply_thread_policy_sets_torch_and_child_threads(monkeypatch):
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    other = 2 if torch.get_num_threads() == 1 else 1
    assert apply_thread_policy(other) == other and torch.get_num_threads() == other
    assert os.environ["OMP_NUM_THREADS"] == str(other)
    monkeypatch.setenv(THREADS_ENV, "1")
    monkeypatch.setenv("OMP_NUM_THREADS", "7")  # set by the user: kept for child processes
    assert apply_thread_policy() == 1 and torch.get_num_threads() == 1 and os.environ["OMP_NUM_THREADS"] == "7"
    assert environment()["threads"] == 1


@pytest.mark.parametrize("bad", [0, -1, True, 1.0, "2"])
def test_apply_thread_policy_rejects_bad_counts(bad):
    before = torch.get_num_threads()
    with pytest.raises(ParameterError, match=rf"threads={bad!r} is not allowed; allowed: an int >= 1"):
        apply_thread_policy(bad)
    assert torch.get_num_threads() == before


@pytest.mark.slow  # a pytest subprocess
def test_the_test_suite_runs_in_the_regression_environment_whatever_threads_are_asked():
    """conftest pins the environment the smoke copies were made in before collecting (a BERTOLOGY_THREADS of 2
    would move their numbers) and says so in the session header, beside the CPU model."""
    env = {**os.environ, THREADS_ENV: "2"}
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-p", "no:cacheprovider", str(Path(__file__))],
        env=env,
        capture_output=True,
        text=True,
        cwd=Path(__file__).parents[1],
        check=False,
    )
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    header = next(line for line in out.stdout.splitlines() if line.startswith("cpu: "))
    assert f"{THREADS_ENV}=1" in header
    assert ("ATEN_CPU_CAPABILITY=avx2" in header) == execution.has_avx2()


@pytest.mark.slow  # a pytest subprocess
def test_a_bad_thread_count_still_stops_the_session():
    """The pin overrides the count, but a bad BERTOLOGY_THREADS is still named before any test runs."""
    env = {**os.environ, THREADS_ENV: "zero"}
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", str(Path(__file__))],
        env=env,
        capture_output=True,
        text=True,
        cwd=Path(__file__).parents[1],
        check=False,
    )
    assert out.returncode != 0 and "BERTOLOGY_THREADS='zero' is not allowed" in out.stdout + out.stderr


def test_pin_regression_environment(monkeypatch):
    monkeypatch.setenv(THREADS_ENV, "3")
    monkeypatch.setenv("MKL_CBWR", "COMPATIBLE")  # set by the user: kept
    for k in ("ATEN_CPU_CAPABILITY", "OPENBLAS_CORETYPE", "ONEDNN_MAX_CPU_ISA"):
        monkeypatch.delenv(k, raising=False)
    monkeypatch.setattr(execution, "has_avx2", lambda: True)
    env = execution.pin_regression_environment()
    assert os.environ[THREADS_ENV] == "1" and env["MKL_CBWR"] == "COMPATIBLE"
    assert os.environ["ATEN_CPU_CAPABILITY"] == "avx2" and os.environ["OPENBLAS_CORETYPE"] == "Haswell"
    monkeypatch.delenv("ATEN_CPU_CAPABILITY")
    monkeypatch.setattr(execution, "has_avx2", lambda: False)  # an Arm laptop: no x86 code path to pin
    env = execution.pin_regression_environment()
    assert "ATEN_CPU_CAPABILITY" not in env and "ATEN_CPU_CAPABILITY" not in os.environ and env[THREADS_ENV] == "1"
    monkeypatch.setenv(THREADS_ENV, "-2")
    with pytest.raises(ParameterError, match=r"BERTOLOGY_THREADS='-2' is not allowed"):
        execution.pin_regression_environment()
    assert os.environ[THREADS_ENV] == "-2"  # nothing set on the way
