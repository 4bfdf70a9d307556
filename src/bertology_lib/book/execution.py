"""Running one of the book's notebooks: papermill with the thread policy, a heartbeat and clear failures.

Used by the ``bertology`` command (:mod:`bertology_lib.book.cli`):

* :func:`apply_threads` applies :func:`bertology_lib.runtime.apply_thread_policy` and hands the same count to
  every kernel (``BERTOLOGY_THREADS`` and ``OMP_NUM_THREADS`` in the environment kernels inherit);
* :func:`execute` runs a notebook atomically into its output, with a :class:`Heartbeat` naming the running
  cell at most every ``BERTOLOGY_HEARTBEAT_S`` seconds (default 30), over a CurveZMQ-encrypted kernel
  connection (which is also why ipykernel's "running over TCP without encryption" warning is gone), and
  turns a failed cell, a dead kernel or Ctrl-C into one line (:class:`NotebookRunError`,
  :class:`RunInterrupted`) that says where the partial notebook is;
* :func:`pin_regression_environment` fixes the thread count and the CPU code paths the smoke regression copies
  are made and compared in, so that they match on another CPU model;
* :func:`run_folder` names the folder ``bertology run`` writes to: ``_build/runs/<notebook>-<param=value,...>``;
  :func:`run_comparison` reads the executed runs back beside the book's claims (``bertology claims --runs``);
* :func:`execute_parallel` runs several notebooks at a time, each in its own ``bertology run`` process, in the
  order :data:`AFTER` allows (a notebook that reads another's cached models starts when that one is done);
* :func:`confirm_full` refuses the ``full`` profile without a GPU unless confirmed, saying roughly how long it
  would take on this CPU (:func:`full_profile_estimate`).
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import shutil
import sys
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from bertology_lib.errors import BertologyError, ParameterError

HEARTBEAT_ENV = "BERTOLOGY_HEARTBEAT_S"
RUNS = Path("_build") / "runs"  # relative to the checkout
FAILED = Path("_build") / "failed"
# The kernel's own log (protocol warnings, and a ZMQ traceback when Ctrl-C closes its sockets mid-reply) is
# not the notebook's output: the notebook records errors in its cells, and we report a dead kernel ourselves.
KERNEL_ARGS = ["--IPKernelApp.log_level=CRITICAL"]


class NotebookRunError(BertologyError):
    """A notebook failed in a cell or its kernel died; the message names it and the partial output."""


class RunInterrupted(BertologyError):
    """Ctrl-C while a notebook ran; the message names it and the partial output."""


# -- threads ---------------------------------------------------------------------------------------
def apply_threads() -> int:
    """Apply the thread policy in this process and pass the same count to every kernel it starts."""
    from bertology_lib.runtime import THREADS_ENV, apply_thread_policy

    n = apply_thread_policy()
    os.environ[THREADS_ENV] = str(n)
    os.environ["OMP_NUM_THREADS"] = str(n)
    return n


# -- the regression copies' environment -----------------------------------------------------------
# torch's vectorised kernels, MKL, OpenBLAS and oneDNN pinned to their AVX2 code paths: on a CPU with AVX512
# they would otherwise pick wider kernels that sum in another order (measured here: ATEN_CPU_CAPABILITY alone
# changes a matmul's bits), so a smoke copy made on one CPU model would not match a run on another.
PORTABLE_KERNELS = {
    "ATEN_CPU_CAPABILITY": "avx2",
    "MKL_CBWR": "AVX2",
    "OPENBLAS_CORETYPE": "Haswell",
    "ONEDNN_MAX_CPU_ISA": "AVX2",
}
REGRESSION_THREADS = 1  # the copies' numbers depend on the thread count; 1 is what a busy 2-core CI has free


def has_avx2() -> bool:
    import platform

    if platform.machine().lower() not in ("x86_64", "amd64"):
        return False
    try:
        return " avx2" in Path("/proc/cpuinfo").read_text()
    except OSError:
        return False


def pin_regression_environment() -> dict[str, str]:
    """Fix what the smoke regression copies' numbers depend on besides code, for this process and every kernel
    it starts (``bertology regression`` makes the copies in it, the test suite compares in it): the thread count
    :data:`REGRESSION_THREADS` (overriding ``BERTOLOGY_THREADS``: the copies hold one count) and, on an x86-64
    CPU with AVX2, the AVX2 code paths :data:`PORTABLE_KERNELS` (a value already set is kept). A bad
    ``BERTOLOGY_THREADS`` is still an error (:class:`~bertology_lib.errors.ParameterError`), not silently
    replaced. Call it before any tensor is computed. Returns what it set."""
    from bertology_lib.runtime import THREADS_ENV, thread_count

    thread_count()  # validates the value asked before it is overridden
    env = {THREADS_ENV: str(REGRESSION_THREADS), "OMP_NUM_THREADS": str(REGRESSION_THREADS)}
    if has_avx2():
        env.update({k: os.environ.get(k, v) for k, v in PORTABLE_KERNELS.items()})
    os.environ.update(env)
    return env


# -- run folders -----------------------------------------------------------------------------------
def run_folder(root: Path, notebook: str, params: Mapping[str, Any]) -> Path:
    """``<root>/_build/runs/<notebook>-<param=value,...>``: the non-default parameters in the order given,
    ``defaults`` when none; characters a folder name should not hold become ``_``."""
    label = ",".join(f"{k}={v}" for k, v in params.items()) or "defaults"
    label = re.sub(r"[^A-Za-z0-9._=,+-]", "_", label)
    if len(label) > 120:  # keep it a usable name; the stamp inside records the parameters in full
        import hashlib

        label = label[:100] + "-" + hashlib.sha256(label.encode()).hexdigest()[:12]
    return root / RUNS / f"{notebook}-{label}"


def run_notebooks(folder: Path) -> list[Path]:
    """Executed book notebooks under ``folder``: ``<run>/<name>.ipynb`` (run folders) or ``<name>.ipynb``
    (an ``--output-dir``)."""
    from bertology_lib.book.specs import SPECS

    found = sorted(folder.glob("*/*.ipynb")) + sorted(folder.glob("*.ipynb"))
    return [p for p in found if p.stem in SPECS and not p.name.startswith(".")]


# How far a rerun on another machine (another thread count or package build) moves the book's numbers,
# measured by re-executing notebooks cold and comparing (book/rerun.md, "How far the numbers move"): a claim
# with an interval agrees when the rerun's estimate lies inside the book's 95% interval; a single number
# agrees within this relative tolerance per book part. Same thread count and stack: numbers come back exactly.
RELATIVE_TOLERANCE = {"survey": 0.10, "physics": 0.10, "duplication": 0.10}


def within_tolerance(book: Any, run: Any, part: str) -> bool | None:
    """Does a rerun's value agree with the book's within the measured tolerance? None when either is missing."""
    if book is None or run is None:
        return None
    if isinstance(book, (list, tuple)) and len(book) == 3 and isinstance(run, (list, tuple)) and len(run) == 3:
        if None in book or run[0] is None:
            return None
        return float(book[1]) <= float(run[0]) <= float(book[2])
    if isinstance(book, (int, float)) and isinstance(run, (int, float)):
        tol = RELATIVE_TOLERANCE.get(part, 0.10)
        return abs(float(run) - float(book)) <= tol * max(abs(float(book)), 1e-12)
    return book == run


REFERENCES = {"quick": "the book", "smoke": "the smoke copy"}
"""What a run's claims are compared with, by profile: the book's executed notebooks (quick) and the smoke copies
that nbval compares (``tests/regression``). A run at another profile has no reference: its values stand alone."""


def reference_claims(root: Path) -> dict[str, dict[str, Any]]:
    """profile -> claim id -> claim, from the book's notebooks and the smoke copies (each claim under the profile
    it was recorded at)."""
    from bertology_lib.book import claims
    from bertology_lib.book.specs import notebook_paths

    refs: dict[str, dict[str, Any]] = {}
    smoke = sorted((root / "tests" / "regression").glob("*.ipynb"))
    for c in [*claims.collect(notebook_paths(root)), *claims.collect(smoke)]:
        refs.setdefault(c.profile or "quick", {}).setdefault(c.id, c)
    return refs


def run_comparison(root: Path, folder: Path) -> list[dict[str, Any]]:
    """Every claim of every executed run under ``folder`` beside the reference of the same profile
    (:data:`REFERENCES`: the book at quick, the smoke copy at smoke; none at full), by claim id, with the run's
    folder and parameters (from its stamp, else papermill's record). ``book_*`` hold the reference's value and
    verdict (None, and ``same_verdict`` / ``within_tolerance`` None, where the profile has no reference)."""
    import json

    from bertology_lib.book import claims
    from bertology_lib.book.specs import SPECS
    from bertology_lib.book.stamps import STAMP

    refs = reference_claims(root)
    rows = []
    for nb in run_notebooks(folder):
        meta = json.loads(nb.read_text()).get("metadata", {})
        params = (meta.get(STAMP) or {}).get("params", meta.get("papermill", {}).get("parameters", {}))
        run = str(nb.parent.relative_to(root)) if nb.parent.is_relative_to(root) else str(nb.parent)
        for c in claims.claims_in_notebook(nb):
            profile = c.profile or "quick"
            b = refs.get(profile, {}).get(c.id)
            rows.append(
                {
                    "run": run,
                    "notebook": nb.stem,
                    "params": params,
                    "id": c.id,
                    "profile": profile,
                    "reference": None if b is None else REFERENCES.get(profile),
                    "book_value": None if b is None else b.ours,
                    "book_shown": "-" if b is None else claims.with_unit(b.ours, b.unit),
                    "book_verdict": None if b is None else b.verdict,
                    "run_value": c.ours,
                    "run_shown": claims.with_unit(c.ours, c.unit),
                    "run_verdict": c.verdict,
                    "same_verdict": None if b is None else b.verdict == c.verdict,
                    "within_tolerance": within_tolerance(
                        None if b is None else b.ours, c.ours, SPECS[nb.stem].part if nb.stem in SPECS else ""
                    ),
                }
            )
    return rows


def tag_injected_cell(path: Path) -> None:
    """Tag papermill's injected-parameters cell ``remove-cell`` so that the rendered book hides it."""
    import nbformat

    nb = nbformat.read(path, as_version=4)
    changed = False
    for cell in nb.cells:
        tags = cell.metadata.get("tags", [])
        if "injected-parameters" in tags and "remove-cell" not in tags:
            cell.metadata["tags"] = [*tags, "remove-cell"]
            changed = True
    if changed:
        nbformat.write(nb, path)


# -- the heartbeat ---------------------------------------------------------------------------------
def _clock(secs: float) -> str:
    secs = int(secs)
    return f"{secs // 3600}h{secs % 3600 // 60:02d}m" if secs >= 3600 else f"{secs // 60}m{secs % 60:02d}s"


class Heartbeat:
    """Which cell of a running notebook executes, said at most every ``every`` seconds (and not before
    a cell has run that long), so that a long training inside a notebook is visibly alive."""

    def __init__(
        self,
        name: str,
        every: float | None = None,
        echo: Callable[[str], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if every is None:
            every = float(os.environ.get(HEARTBEAT_ENV, "") or 30)
        self.name, self.every, self.clock = name, every, clock
        self.echo = echo or (lambda line: print(line, flush=True))
        self.t0 = self.last = clock()
        self.cell: int | None = None
        self.done = False
        self.total = 0
        self.what = ""
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def cell_started(self, index: int, total: int, source: str = "") -> None:
        first = next((ln.strip() for ln in source.splitlines() if ln.strip() and not ln.lstrip().startswith("#")), "")
        self.cell, self.total, self.what = index, total, first[:48] + ("..." if len(first) > 48 else "")
        self.done = False

    def cell_done(self, index: int) -> None:
        self.done = index == self.cell

    def where(self) -> str:
        """``cell i/n`` of the cell running now (1-based, counting every cell), ``start-up`` before the
        first, ``after cell i/n`` between cells and after the last."""
        if self.cell is None:
            return "start-up"
        return f"{'after ' if self.done else ''}cell {self.cell + 1}/{self.total}"

    def tick(self) -> str | None:
        """Print (and return) a heartbeat line when one is due."""
        now = self.clock()
        if self.cell is None or now - self.last < self.every:
            return None
        self.last = now
        doing = (
            f"{self.where()}, closing the kernel"
            if self.done and self.cell + 1 == self.total
            else (
                f"{self.where()}" if self.done else f"{self.where()} running" + (f" ({self.what})" if self.what else "")
            )
        )
        line = f"  ... {self.name}: {doing}, {_clock(now - self.t0)} elapsed"
        self.echo(line)
        return line

    def __enter__(self) -> Heartbeat:
        def loop() -> None:
            while not self._stop.wait(min(1.0, self.every)):
                self.tick()

        self._thread = threading.Thread(target=loop, name=f"heartbeat-{self.name}", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()


def _engine():
    """A papermill engine that tells a :class:`Heartbeat` when each cell starts (registered as ``bertology``)."""
    from papermill.engines import NBClientEngine, papermill_engines

    class HeartbeatEngine(NBClientEngine):
        @classmethod
        def execute_managed_notebook(cls, nb_man, kernel_name, heartbeat=None, **kwargs):
            if heartbeat is not None:
                start, complete = nb_man.cell_start, nb_man.cell_complete

                def cell_start(cell, cell_index=None, **kw):
                    heartbeat.cell_started(cell_index, len(nb_man.nb.cells), "".join(cell.source))
                    return start(cell, cell_index, **kw)

                def cell_complete(cell, cell_index=None, **kw):
                    if sys.exc_info()[0] is None:  # papermill calls this in a `finally`, after a dead kernel too
                        heartbeat.cell_done(cell_index)
                    return complete(cell, cell_index, **kw)

                nb_man.cell_start, nb_man.cell_complete = cell_start, cell_complete
            return super().execute_managed_notebook(nb_man, kernel_name, **kwargs)

    papermill_engines.register("bertology", HeartbeatEngine)
    return "bertology"


def kernel_config():
    """Kernel manager settings: CurveZMQ transport encryption where pyzmq supports it (the kernelspec of
    ipykernel declares it), so the kernel's traffic is not plain text and it does not warn about it."""
    import zmq
    from traitlets.config import Config

    return Config({"KernelManager": {"transport_encryption": "auto"}}) if zmq.has("curve") else Config()


# -- executing -------------------------------------------------------------------------------------
class _Quiet(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith("Kernel died")


class _QuietDeadTask(logging.Filter):
    """Drops asyncio's "Task exception was never retrieved" report for nbclient's cell task when the kernel
    died under it (Ctrl-C reaches the kernel too): the task is collected after our one-line message, often
    at interpreter exit, so the filter stays on the ``asyncio`` logger for the life of the process."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        return not (
            str(record.msg).startswith("Task exception was never retrieved") and type(exc).__name__ == "DeadKernelError"
        )


_DEAD_TASK = _QuietDeadTask()


def quiet_dead_cell_tasks() -> None:
    """Install :class:`_QuietDeadTask` on the ``asyncio`` logger (adding it again is a no-op)."""
    logging.getLogger("asyncio").addFilter(_DEAD_TASK)


INLINE_FIGURES = "module://matplotlib_inline.backend_inline"  # the backend a Jupyter kernel shows figures with


@contextlib.contextmanager
def inline_figures():
    """Inside the block, kernels started here draw figures into the notebook: ``MPLBACKEND`` is set to the inline
    backend, then restored. A kernel takes ``MPLBACKEND`` from its environment when set, and ``make`` exports
    ``MPLBACKEND=Agg`` for the test suite, under which ``plt.show()`` in a notebook shows nothing: every figure
    of the book would be missing from a ``make book`` run."""
    before = os.environ.get("MPLBACKEND")
    os.environ["MPLBACKEND"] = INLINE_FIGURES
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("MPLBACKEND", None)
        else:
            os.environ["MPLBACKEND"] = before


def execute(
    path: Path, params: dict[str, Any], output: Path, root: Path, echo: Callable[[str], None] | None = None
) -> float:
    """Execute ``path`` with papermill into ``output`` atomically; return wall seconds.

    The notebook runs with its own folder as the working directory and draws its figures inline
    (:func:`inline_figures`, whatever ``MPLBACKEND`` says). On any failure ``output`` is left
    untouched, a folder created for it is removed again, and the partial notebook is kept at
    ``_build/failed/<name>.ipynb``: a failed cell or a dead kernel raises :class:`NotebookRunError`,
    Ctrl-C :class:`RunInterrupted`, each with one line naming the notebook, the cell and that file.
    """
    import papermill as pm
    from nbclient.exceptions import DeadKernelError
    from papermill.exceptions import PapermillExecutionError

    made = [d for d in (output.parent, *output.parent.parents) if not d.exists()]  # innermost first
    output.parent.mkdir(parents=True, exist_ok=True)
    tmp = output.parent / f".{output.stem}.running.ipynb"
    shown = path.relative_to(root) if path.is_relative_to(root) else path
    t0 = time.perf_counter()
    beat = Heartbeat(path.stem, echo=echo)
    quiet = _Quiet()  # our one line replaces nbclient's "Kernel died while waiting for execute reply."
    logging.getLogger("papermill").addFilter(quiet)
    quiet_dead_cell_tasks()
    try:
        with beat, inline_figures():
            pm.execute_notebook(
                str(path),
                str(tmp),
                parameters=params,
                progress_bar=False,
                cwd=str(path.parent),
                kernel_name="python3",
                engine_name=_engine(),
                heartbeat=beat,
                config=kernel_config(),
                extra_arguments=KERNEL_ARGS,
            )
    except BaseException as e:
        failed = root / FAILED / path.name
        kept = tmp.exists()
        if kept:
            failed.parent.mkdir(parents=True, exist_ok=True)
            shutil.move(str(tmp), failed)
        for d in made:  # the folders made for the output, if still empty
            if d.is_dir() and not any(d.iterdir()):
                d.rmdir()
        partial = f"partial output in {FAILED / path.name}" if kept else "no partial output was written"
        if isinstance(e, PapermillExecutionError):
            first = (str(e.evalue).strip().splitlines() or [""])[0]  # one line, however long the message
            raise NotebookRunError(f"{shown} failed in cell {e.exec_count} ({e.ename}: {first}); {partial}") from None
        if isinstance(e, DeadKernelError):
            raise NotebookRunError(
                f"the kernel running {shown} died ({beat.where()}; out of memory, or killed?); {partial}"
            ) from None
        if isinstance(e, KeyboardInterrupt):
            raise RunInterrupted(f"interrupted: {shown} stopped ({beat.where()}); {partial}") from None
        raise
    finally:
        logging.getLogger("papermill").removeFilter(quiet)
    tag_injected_cell(tmp)
    os.replace(tmp, output)
    return time.perf_counter() - t0


# -- several notebooks at a time -------------------------------------------------------------------
# Notebooks that read models another notebook trains and caches: with several jobs they start only when
# that notebook has finished (run one at a time, the book order already puts it first). The mini-BERT, which
# every survey and duplication notebook reads, is a job of its own that those notebooks wait for
# (``bertology build --jobs``).
AFTER: dict[str, tuple[str, ...]] = {
    "physics_01_biographies": ("physics_03_pretrain_finetune",),
    "physics_04_celebrities": ("physics_03_pretrain_finetune",),
    "physics_05_probing": ("physics_03_pretrain_finetune",),
}
LOGS = Path("_build") / "logs"  # relative to the checkout: one log per job run by execute_parallel


def execute_parallel(
    jobs: list[tuple[str, list[str], tuple[str, ...]]],
    n_jobs: int,
    root: Path,
    echo: Callable[[str], None] = print,
    poll_s: float = 1.0,
) -> list[tuple[str, float]]:
    """Run ``(name, command, after)`` jobs, at most ``n_jobs`` at a time, in the given order except that a job
    waits while a job named in its ``after`` is pending or running; returns ``(name, wall seconds)`` in
    finishing order.

    Each command runs with ``root`` as the working directory and its output in ``_build/logs/<name>.log``.
    A failed job stops new ones from starting; the running ones finish, then :class:`NotebookRunError` names
    every failed job, its log's last line and the log. Ctrl-C stops every job and raises
    :class:`RunInterrupted`.
    """
    import subprocess

    if isinstance(n_jobs, bool) or not isinstance(n_jobs, int) or n_jobs < 1:
        raise ParameterError(f"jobs={n_jobs!r} is not allowed; allowed: an int >= 1")
    (root / LOGS).mkdir(parents=True, exist_ok=True)
    pending = list(jobs)
    running: dict[str, tuple[Any, float, Any]] = {}
    done: list[tuple[str, float]] = []
    failed: list[str] = []
    try:
        while pending or running:
            waiting = {n for n, _, _ in pending} | set(running)
            for job in list(pending):
                if len(running) >= n_jobs or failed:
                    break
                name, cmd, after = job
                if any(dep in waiting for dep in after):
                    continue
                pending.remove(job)
                log = open(root / LOGS / f"{name}.log", "w")  # noqa: SIM115 (closed when the job ends)
                running[name] = (
                    subprocess.Popen(cmd, cwd=root, stdout=log, stderr=subprocess.STDOUT),
                    time.perf_counter(),
                    log,
                )
                echo(f"  started {name} (log: {LOGS / (name + '.log')}; {len(running)} running)")
            if failed and not running:
                break
            for name, (proc, t0, log) in list(running.items()):
                if proc.poll() is None:
                    continue
                log.close()
                del running[name]
                secs = time.perf_counter() - t0
                if proc.returncode == 0:
                    done.append((name, secs))
                    echo(f"  finished {name} in {_clock(secs)}")
                else:
                    lines = (root / LOGS / f"{name}.log").read_text(errors="replace").strip().splitlines()
                    failed.append(
                        f"{name} (exit {proc.returncode}: {lines[-1] if lines else 'no output'}; "
                        f"log {LOGS / (name + '.log')})"
                    )
                    echo(f"  FAILED {name} after {_clock(secs)}; no new job starts")
            time.sleep(poll_s if running else 0)
    except KeyboardInterrupt:
        for proc, _, _ in running.values():
            proc.terminate()
        for proc, _, log in running.values():
            proc.wait()
            log.close()
        raise RunInterrupted(
            f"interrupted: stopped {', '.join(running) or 'nothing'}; "
            f"not started: {', '.join(n for n, _, _ in pending) or 'none'}"
        ) from None
    if failed:
        skipped = f"; not started: {', '.join(n for n, _, _ in pending)}" if pending else ""
        raise NotebookRunError("failed: " + "; ".join(failed) + skipped)
    return done


# -- the full profile on a CPU ---------------------------------------------------------------------
def confirm_full(profiles: set[str], yes: bool) -> None:
    """``full`` on a machine without a CUDA GPU runs only with ``yes`` (``--yes``); otherwise
    :class:`ParameterError` says roughly how long it would take here."""
    if "full" not in profiles or yes:
        return
    import torch

    if not torch.cuda.is_available():
        raise ParameterError(
            f"profile full on a machine without a CUDA GPU: {full_profile_estimate()}. Add --yes to start it anyway"
        )


def full_profile_estimate() -> str:
    """A rough lower bound on the ``full`` profile's time on this CPU: the full mini-BERT's pre-training
    alone, ``6 * parameters * tokens`` FLOPs at the matmul speed this CPU measures now."""
    import torch

    from bertology_lib.models.minibert import MiniBertConfig

    cfg = MiniBertConfig.for_profile("full")
    n_params = cfg.n_layers * 12 * cfg.d_model**2 + cfg.vocab_size * cfg.d_model
    tokens = cfg.max_steps * cfg.batch_size * 64  # the pre-training sequence length
    flops = 6 * n_params * tokens
    a = torch.randn(384, 384)
    n, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < 0.3:
        a @ a
        n += 1
    rate = n * 2 * 384**3 / (time.perf_counter() - t0)
    secs = flops / rate
    took = f"{secs / 86400:,.0f} days" if secs >= 2 * 86400 else f"{secs / 3600:,.1f} hours"
    return (
        f"roughly {took} on this CPU for the full mini-BERT's pre-training alone ({cfg.max_steps:,} "
        f"steps of {cfg.batch_size} x 64 tokens, about {flops:.1e} FLOPs at the {rate / 1e9:.0f} GFLOP/s a "
        f"matmul reaches here now; a rough lower bound, the other experiments add more)"
    )
