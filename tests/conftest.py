"""Shared fixtures: tiny models saved to a local folder, a private cache."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from exercise_plugin import pytest_runtest_call  # noqa: F401  (nbval: every solution cell passes its checker)
from regression_tolerance import install as _tolerate_cpu_digits

ROOT = Path(__file__).resolve().parents[1]
# Real data for checks lives beside the project (never copied into it).
SHARED_DATA = Path(os.environ.get("BERTOLOGY_SHARED_DATA", ROOT.parent / "shared" / "data"))


def pytest_sessionstart(session):
    """The environment the smoke regression copies were made in (:func:`bertology_lib.book.execution.
    pin_regression_environment`: 1 thread, the AVX2 code paths), for this process and every nbval kernel: with
    the free cores as thread count, a copy compared while the load average happened to be low ran at 2 threads
    and moved a verdict; then the thread policy of every entry point."""
    from bertology_lib.book.execution import pin_regression_environment
    from bertology_lib.runtime import apply_thread_policy

    pin_regression_environment()
    apply_thread_policy()
    _tolerate_cpu_digits()  # nbval: decimals may move by machine noise, nothing else may (regression_tolerance)


def pytest_report_header(config):
    """The CPU and the pinned environment, so that a regression mismatch on another machine can be read."""
    import platform

    from bertology_lib.book.execution import PORTABLE_KERNELS
    from bertology_lib.runtime import THREADS_ENV

    model = next(
        (line.split(":", 1)[1].strip() for line in _cpuinfo().splitlines() if line.startswith("model name")),
        platform.processor() or platform.machine(),
    )
    pins = ", ".join(f"{k}={os.environ[k]}" for k in (THREADS_ENV, *PORTABLE_KERNELS) if k in os.environ)
    return f"cpu: {model}; {pins or 'no pinned code paths'}"


def _cpuinfo() -> str:
    try:
        return Path("/proc/cpuinfo").read_text()
    except OSError:
        return ""


def pytest_collection_modifyitems(config, items):
    """Mark what is not the quick library loop: nbval notebooks and notebook runs (``notebook``), the
    headless-browser book test (``browser``); both are ``slow`` too."""
    for item in items:
        path = Path(str(item.fspath))
        if path.suffix == ".ipynb" or "notebook" in item.keywords:
            item.add_marker(pytest.mark.notebook)
            item.add_marker(pytest.mark.slow)
        if path.name == "test_book_browser.py":
            item.add_marker(pytest.mark.browser)
            item.add_marker(pytest.mark.slow)


COLUMN_WIDTH_IN = 784 / 72  # the book's text column at the inline backend's 72 dpi


def figure_fits_the_column(fig) -> list[str]:
    """What makes ``fig`` hard to read at the book's width: wider than the column, more than two panels in a row
    (colour bars aside), or text below 9 pt. Empty when it reads."""
    from matplotlib.text import Text

    problems = []
    if fig.get_size_inches()[0] > COLUMN_WIDTH_IN + 1e-6:
        problems.append(f"{fig.get_size_inches()[0]:.1f} in wide (column: {COLUMN_WIDTH_IN:.1f} in)")
    rows: dict[float, int] = {}
    for ax in fig.axes:
        if ax.get_label() == "<colorbar>" or not ax.get_visible():
            continue
        y = round(ax.get_position().y0, 2)
        rows[y] = rows.get(y, 0) + 1
    if rows and max(rows.values()) > 2:
        problems.append(f"{max(rows.values())} panels in one row (at most 2)")
    small = sorted({round(t.get_fontsize(), 1) for t in fig.findobj(Text) if t.get_text() and t.get_fontsize() < 9})
    if small:
        problems.append(f"text at {small} pt (at least 9)")
    return problems


@pytest.fixture(autouse=True)
def _figures_read_at_the_books_width(request, monkeypatch):
    """In the plot tests, every figure a plot function finishes must read at the book's column width
    (:func:`figure_fits_the_column`)."""
    if not request.node.path.name.startswith("test_plots"):
        yield
        return
    import bertology_lib.plots as plots_pkg
    from bertology_lib.plots import common

    original = common.finish

    def checked(fig, *a, **kw):
        out = original(fig, *a, **kw)
        problems = figure_fits_the_column(out)
        assert not problems, f"figure does not read at the book's width: {'; '.join(problems)}"
        return out

    import importlib
    import pkgutil

    for info in pkgutil.iter_modules(plots_pkg.__path__):
        module = importlib.import_module(f"bertology_lib.plots.{info.name}")
        if getattr(module, "finish", None) is original:
            monkeypatch.setattr(module, "finish", checked)
    yield


@pytest.fixture(autouse=True)
def _close_figures():
    """No figure outlives its test (matplotlib keeps every open figure in memory)."""
    yield
    import matplotlib.pyplot as plt

    plt.close("all")


@pytest.fixture
def tmp_cache(tmp_path, monkeypatch):
    """Point the artifact cache at a fresh folder for this test."""
    root = tmp_path / "cache"
    monkeypatch.setenv("BERTOLOGY_CACHE", str(root))
    return root


@pytest.fixture(scope="session")
def tiny_bert_dir(tmp_path_factory) -> Path:
    """A 2-layer BERT with an MLM head and a WordPiece tokenizer, saved with save_pretrained."""
    import torch
    from transformers import BertConfig, BertForMaskedLM, BertTokenizerFast

    folder = tmp_path_factory.mktemp("tiny-bert")
    vocab = [
        "[PAD]",
        "[UNK]",
        "[CLS]",
        "[SEP]",
        "[MASK]",
        "the",
        "chef",
        "waiter",
        "tipped",
        "a",
        "robin",
        "is",
        "bird",
        ".",
        "##s",
        "un",
        "##believ",
        "##ably",
    ]
    # transformers 5 fast tokenizers take the vocabulary itself
    tok = BertTokenizerFast(vocab={w: i for i, w in enumerate(vocab)}, do_lower_case=True)
    tok.save_pretrained(folder)
    torch.manual_seed(0)
    cfg = BertConfig(
        vocab_size=len(vocab),
        hidden_size=16,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=32,
    )
    BertForMaskedLM(cfg).save_pretrained(folder)
    return folder


def save_toy_bert(folder: Path, world=None) -> str:
    """A tiny random BERT with the toy-English word-level tokenizer of ``world`` (no [UNK] on toy items)."""
    import torch
    from transformers import BertConfig, BertForMaskedLM

    from bertology_lib.data.toy_english import ToyEnglishConfig, vocabulary
    from bertology_lib.models.tokenization import build_word_tokenizer

    tok = build_word_tokenizer(vocabulary(world or ToyEnglishConfig(n_sentences=1)), kind="bert")
    tok.save_pretrained(folder)
    torch.manual_seed(0)
    cfg = BertConfig(
        vocab_size=len(tok),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=64,
    )
    BertForMaskedLM(cfg).save_pretrained(folder)
    return str(folder)


@pytest.fixture
def claim_specs():
    """Register claim specs for one test (``claim_specs(spec, ...)``); they are removed afterwards."""
    from bertology_lib.book.claims import registry

    registry.load_all()
    added: list[str] = []

    def add(*specs):
        for s in specs:
            registry.register("test_notebook", s)
            added.append(s.id)

    yield add
    for cid in added:
        registry.REGISTRY.pop(cid, None)


@pytest.fixture(scope="module")
def toy_dir(tmp_path_factory) -> str:
    """A tiny random BERT (2 blocks x 2 heads, d = 32, MLM head) with the toy world's word-level tokenizer (the
    exercise tests' stand-in for a notebook's model)."""
    return save_toy_bert(tmp_path_factory.mktemp("toy-bert"), None)
