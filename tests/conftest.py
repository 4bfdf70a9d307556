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
