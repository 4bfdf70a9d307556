"""Where and how computation runs: the device, the thread policy, and the stack that numbers depend on.

Threads. Two torch threads on a busy 2-core machine stall at every barrier (measured: a smoke
mini-BERT 20x slower than with one thread), so every entry point (the ``bertology`` CLI, a notebook's
:func:`~bertology_lib.book.specs.resolve`, the test suite) calls :func:`apply_thread_policy`:
``BERTOLOGY_THREADS`` when set, else the cores that are free now (CPU count minus the 1-minute load,
at least 1). Results are deterministic for a given thread count and stack; :func:`environment` names
both, and execution stamps record it.
"""

from __future__ import annotations

import os

from bertology_lib.errors import ParameterError
from bertology_lib.validation import check_choice

DEVICES: tuple[str, ...] = ("cpu", "cuda", "auto")
DTYPES: tuple[str, ...] = ("float32", "bfloat16", "auto")  # of a training's forward pass (auto: resolve_dtype)
THREADS_ENV = "BERTOLOGY_THREADS"


def resolve_device(device: str) -> str:
    """``auto`` -> ``cuda`` when available, else ``cpu``; ``cpu``/``cuda`` as given."""
    check_choice("device", device, DEVICES)
    if device == "auto":
        import torch

        return "cuda" if torch.cuda.is_available() else "cpu"
    return device


def bf16_units(device: str) -> bool:
    """Whether ``device`` (after :func:`resolve_device`) runs bfloat16 products on units of its own: a CUDA GPU that
    supports bfloat16, or a CPU with AVX512-BF16 or AMX tiles (elsewhere torch converts them to float32 and a
    bfloat16 step is no faster, benchmarks/README.md "The English lab BERT in bfloat16")."""
    import torch

    if resolve_device(device) == "cuda":
        return bool(torch.cuda.is_bf16_supported())
    cpu = torch.cpu
    return any(
        bool(getattr(cpu, probe, lambda: False)()) for probe in ("_is_avx512_bf16_supported", "_is_amx_tile_supported")
    )


def resolve_dtype(dtype: str, device: str) -> str:
    """The precision a training runs its forward pass in: ``auto`` -> ``bfloat16`` where ``device`` has bfloat16
    units (:func:`bf16_units`), else ``float32``; ``float32``/``bfloat16`` as given. A cache key records the
    resolved precision, so a machine without bfloat16 units trains (and caches) another model, not the same
    one more slowly."""
    check_choice("dtype", dtype, DTYPES)
    if dtype == "auto":
        return "bfloat16" if bf16_units(device) else "float32"
    return dtype


def thread_count() -> int:
    """The torch intra-op threads to use: ``BERTOLOGY_THREADS`` if set (an int >= 1), else the free cores."""
    raw = os.environ.get(THREADS_ENV, "").strip()
    n_cpu = os.cpu_count() or 1
    if raw:
        try:
            n = int(raw)
        except ValueError:
            n = 0
        if n < 1:
            raise ParameterError(
                f"{THREADS_ENV}={raw!r} is not allowed; allowed: an int >= 1 (or unset: the free "
                f"cores, now {free_cores()})"
            )
        return n
    return free_cores() if n_cpu > 1 else 1


def free_cores() -> int:
    """CPU cores not busy right now: CPU count minus the 1-minute load average, rounded, at least 1."""
    n_cpu = os.cpu_count() or 1
    try:
        load = os.getloadavg()[0]
    except (OSError, AttributeError):  # pragma: no cover - not on this platform
        return n_cpu
    return max(1, min(n_cpu, round(n_cpu - load)))


def apply_thread_policy(n: int | None = None) -> int:
    """Set torch's intra-op threads (and ``OMP_NUM_THREADS`` for child processes) to ``n`` (default
    :func:`thread_count`); returns the number set."""
    import torch

    n = thread_count() if n is None else n
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ParameterError(f"threads={n!r} is not allowed; allowed: an int >= 1")
    torch.set_num_threads(n)
    os.environ.setdefault("OMP_NUM_THREADS", str(n))
    return n


def cpu_model() -> str:
    """The processor's model name (``/proc/cpuinfo`` on Linux, else :func:`platform.processor`), or the
    machine type when neither names it: the same code and threads give other float digits on another CPU."""
    import platform

    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def build_record() -> dict[str, str | int]:
    """What built an artifact, kept beside it in the cache (never part of its key, so a model is shared
    across machines): :func:`environment` and the CPU model."""
    return {**environment(), "cpu": cpu_model()}


def environment() -> dict[str, str | int]:
    """What the book's numbers depend on besides code and parameters: package versions and threads."""
    import numpy
    import torch
    import transformers

    return {
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "numpy": numpy.__version__,
        "threads": torch.get_num_threads(),
    }
