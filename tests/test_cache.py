import json
import os
import signal
import subprocess
import sys
import textwrap

import pytest
import torch

from bertology_lib.cache import ArtifactCache, cache_key, default_root, load_tensors, save_json, save_tensors
from bertology_lib.errors import CacheError


def _builder(calls):
    def build(folder):
        calls.append(folder)
        save_tensors(folder / "w.safetensors", {"w": torch.arange(6.0).reshape(2, 3)})
        save_json(folder / "meta.json", {"acc": 0.5})
    return build


def test_key_is_stable_and_order_independent():
    assert cache_key("m", {"a": 1, "b": [1, 2]}) == cache_key("m", {"b": [1, 2], "a": 1})
    assert cache_key("m", {"a": 1}) != cache_key("m", {"a": 2})
    assert cache_key("m", {"a": 1}) != cache_key("n", {"a": 1})


def test_default_root_honours_env(tmp_cache):
    assert default_root() == tmp_cache


def test_builds_once_then_reuses(tmp_path):
    c, calls = ArtifactCache(tmp_path), []
    p1 = c.get_or_create("model", {"n": 1}, _builder(calls))
    p2 = c.get_or_create("model", {"n": 1}, _builder(calls))
    assert p1 == p2 and len(calls) == 1
    assert torch.equal(load_tensors(p1 / "w.safetensors")["w"], torch.arange(6.0).reshape(2, 3))
    assert json.loads((p1 / "artifact.json").read_text())["config"] == {"n": 1}
    assert [e.kind for e in c.entries()] == ["model"]


def test_corrupt_entry_is_rebuilt_not_used(tmp_path):
    c, calls = ArtifactCache(tmp_path), []
    p = c.get_or_create("model", {"n": 1}, _builder(calls))
    data = bytearray((p / "w.safetensors").read_bytes())
    data[-1] ^= 0xFF  # same size, different content
    (p / "w.safetensors").write_bytes(bytes(data))
    assert c.get("model", {"n": 1}) is None  # detected and removed
    c.get_or_create("model", {"n": 1}, _builder(calls))
    assert len(calls) == 2
    # a missing manifest (e.g. copied by hand) is corrupt too
    (p / "MANIFEST.json").unlink()
    assert c.get("model", {"n": 1}) is None


def test_failed_build_leaves_nothing(tmp_path):
    c = ArtifactCache(tmp_path)

    def boom(folder):
        (folder / "half.bin").write_bytes(b"xx")
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError):
        c.get_or_create("model", {"n": 2}, boom)
    assert c.get("model", {"n": 2}) is None
    assert not list((tmp_path / "model").iterdir())


def test_killed_writer_leaves_nothing_a_later_run_uses(tmp_path):
    """SIGKILL a process in the middle of a cache write, then use the cache."""
    script = textwrap.dedent(f"""
        import os, time
        from bertology_lib.cache import ArtifactCache
        def build(folder):
            (folder / "part.bin").write_bytes(b"x" * 1000)
            print("writing", flush=True)
            time.sleep(60)
        ArtifactCache({str(tmp_path)!r}).get_or_create("model", {{"n": 3}}, build)
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "writing"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    c, calls = ArtifactCache(tmp_path), []
    assert c.get("model", {"n": 3}) is None
    assert list(c.entries()) == []  # the temporary folder is not an entry
    c.get_or_create("model", {"n": 3}, _builder(calls))
    assert len(calls) == 1 and c.sweep_tmp() == 1


def test_clear_by_kind(tmp_path):
    c = ArtifactCache(tmp_path)
    c.get_or_create("a", {"n": 1}, _builder([]))
    c.get_or_create("b", {"n": 1}, _builder([]))
    assert c.clear("a") == 1 and [e.kind for e in c.entries()] == ["b"]
    assert c.clear() == 1 and list(c.entries()) == []


def test_bad_kind_and_unhashable_config(tmp_path):
    c = ArtifactCache(tmp_path)
    with pytest.raises(CacheError, match="kind='../x'"):
        c.path("../x", {})
    with pytest.raises(TypeError, match="cannot hash"):
        cache_key("m", {"f": object()})


def test_no_pickle_in_artifacts(tmp_path):
    c = ArtifactCache(tmp_path)
    p = c.get_or_create("model", {"n": 1}, _builder([]))
    suffixes = {f.suffix for f in p.rglob("*") if f.is_file()}
    assert suffixes <= {".json", ".safetensors"}
    assert os.listdir(p)


def test_sweep_never_removes_a_live_build(tmp_path):
    """`cache clear` in one process must not delete the folder another process is building into."""
    script = textwrap.dedent(f"""
        import time
        from bertology_lib.cache import ArtifactCache
        def build(folder):
            (folder / "part.bin").write_bytes(b"x")
            print("writing", flush=True)
            time.sleep(60)
        ArtifactCache({str(tmp_path)!r}).get_or_create("model", {{"n": 4}}, build)
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "writing"
        c = ArtifactCache(tmp_path)
        assert c.clear() == 0 and c.sweep_tmp() == 0  # the builder is alive: its folder stays
        assert len(list(tmp_path.glob("model/.tmp-*/part.bin"))) == 1
    finally:
        proc.kill()
        proc.wait()
    assert ArtifactCache(tmp_path).sweep_tmp() == 1  # now it is an orphan
