import json
import os
import signal
import subprocess
import sys
import textwrap

import pytest
import torch

from bertology_lib.cache import (
    ArtifactCache,
    ArtifactKind,
    cache_key,
    config_key,
    default_root,
    load_state,
    load_tensors,
    save_json,
    save_state,
    save_tensors,
)
from bertology_lib.errors import CacheError, ParameterError

MODEL, PROBE, A, B = (ArtifactKind(n, 1) for n in ("model", "probe", "a", "b"))
M, N = ArtifactKind("m", 1), ArtifactKind("n", 1)


def _builder(calls):
    def build(folder):
        calls.append(folder)
        save_tensors(folder / "w.safetensors", {"w": torch.arange(6.0).reshape(2, 3)})
        save_json(folder / "meta.json", {"acc": 0.5})

    return build


def test_key_is_stable_and_order_independent():
    assert cache_key(M, {"a": 1, "b": [1, 2]}) == cache_key(M, {"b": [1, 2], "a": 1})
    assert cache_key(M, {"a": 1}) != cache_key(M, {"a": 2})
    assert cache_key(M, {"a": 1}) != cache_key(N, {"a": 1})


def test_the_kinds_version_is_part_of_every_key_and_recorded_in_the_entry(tmp_path):
    assert cache_key(M, {"a": 1}) != cache_key(ArtifactKind("m", 2), {"a": 1})  # a bump retires every entry
    c = ArtifactCache(tmp_path)
    p1 = c.get_or_create(MODEL, {"n": 1}, _builder([]))
    p2 = c.get_or_create(ArtifactKind("model", 2), {"n": 1}, _builder([]))
    assert p1 != p2 and p1.parent == p2.parent  # the same kind's folder
    recorded = json.loads((p2 / "artifact.json").read_text())
    assert (recorded["kind"], recorded["version"]) == ("model", 2)
    for e in c.entries():
        assert e.key == cache_key(e.artifact_kind, e.config)  # a key is recomputable from its entry


def test_config_key_holds_every_field_at_any_value_but_those_left_out():
    from dataclasses import dataclass

    @dataclass(frozen=True)
    class Cfg:
        d_model: int = 64
        n_layers: int = 2
        device: str = "cpu"

    assert config_key(Cfg()) == {"d_model": 64, "n_layers": 2, "device": "cpu"}  # defaults included
    assert config_key(Cfg(), leave_out=("device",)) == {"d_model": 64, "n_layers": 2}
    with pytest.raises(CacheError, match="devise"):
        config_key(Cfg(), leave_out=("devise",))


def test_default_root_honours_env(tmp_cache):
    assert default_root() == tmp_cache


def test_builds_once_then_reuses(tmp_path):
    c, calls = ArtifactCache(tmp_path), []
    p1 = c.get_or_create(MODEL, {"n": 1}, _builder(calls))
    p2 = c.get_or_create(MODEL, {"n": 1}, _builder(calls))
    assert p1 == p2 and len(calls) == 1
    assert torch.equal(load_tensors(p1 / "w.safetensors")["w"], torch.arange(6.0).reshape(2, 3))
    assert json.loads((p1 / "artifact.json").read_text())["config"] == {"n": 1}
    assert [e.kind for e in c.entries()] == ["model"]


def test_corrupt_entry_is_rebuilt_not_used(tmp_path):
    c, calls = ArtifactCache(tmp_path), []
    p = c.get_or_create(MODEL, {"n": 1}, _builder(calls))
    data = bytearray((p / "w.safetensors").read_bytes())
    data[-1] ^= 0xFF  # same size, different content
    (p / "w.safetensors").write_bytes(bytes(data))
    assert c.get(MODEL, {"n": 1}) is None  # detected and removed
    c.get_or_create(MODEL, {"n": 1}, _builder(calls))
    assert len(calls) == 2
    # a missing manifest (e.g. copied by hand) is corrupt too
    (p / "MANIFEST.json").unlink()
    assert c.get(MODEL, {"n": 1}) is None


def test_failed_build_leaves_nothing(tmp_path):
    c = ArtifactCache(tmp_path)

    def boom(folder):
        (folder / "half.bin").write_bytes(b"xx")
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError):
        c.get_or_create(MODEL, {"n": 2}, boom)
    assert c.get(MODEL, {"n": 2}) is None
    assert not list((tmp_path / "model").iterdir())


def test_killed_writer_leaves_nothing_a_later_run_uses(tmp_path):
    """SIGKILL a process in the middle of a cache write, then use the cache."""
    script = textwrap.dedent(f"""
        import os, time
        from bertology_lib.cache import ArtifactCache, ArtifactKind
        def build(folder):
            (folder / "part.bin").write_bytes(b"x" * 1000)
            print("writing", flush=True)
            time.sleep(60)
        ArtifactCache({str(tmp_path)!r}).get_or_create(ArtifactKind("model", 1), {{"n": 3}}, build)
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "writing"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    c, calls = ArtifactCache(tmp_path), []
    assert c.get(MODEL, {"n": 3}) is None
    assert list(c.entries()) == []  # the temporary folder is not an entry
    c.get_or_create(MODEL, {"n": 3}, _builder(calls))
    assert len(calls) == 1 and c.prune() == 1


def test_clear_by_kind(tmp_path):
    c = ArtifactCache(tmp_path)
    c.get_or_create(A, {"n": 1}, _builder([]))
    c.get_or_create(B, {"n": 1}, _builder([]))
    assert c.clear("a") == 1 and [e.kind for e in c.entries()] == ["b"]
    assert c.clear() == 1 and list(c.entries()) == []


def test_bad_kind_and_unhashable_config(tmp_path):
    c = ArtifactCache(tmp_path)
    with pytest.raises(CacheError, match="kind='../x'"):
        c.path(ArtifactKind("../x", 1), {})
    with pytest.raises(CacheError, match="kind='model' is not an ArtifactKind"):
        c.path("model", {})  # a kind without its version: refused
    with pytest.raises(CacheError, match="version=0"):
        ArtifactKind("model", 0)
    with pytest.raises(TypeError, match="cannot hash"):
        cache_key(M, {"f": object()})


def test_no_pickle_in_artifacts(tmp_path):
    c = ArtifactCache(tmp_path)
    p = c.get_or_create(MODEL, {"n": 1}, _builder([]))
    suffixes = {f.suffix for f in p.rglob("*") if f.is_file()}
    assert suffixes <= {".json", ".safetensors"}
    assert os.listdir(p)


def test_sweep_never_removes_a_live_build(tmp_path):
    """`cache clear` in one process must not delete the folder another process is building into."""
    script = textwrap.dedent(f"""
        import time
        from bertology_lib.cache import ArtifactCache, ArtifactKind
        def build(folder):
            (folder / "part.bin").write_bytes(b"x")
            print("writing", flush=True)
            time.sleep(60)
        ArtifactCache({str(tmp_path)!r}).get_or_create(ArtifactKind("model", 1), {{"n": 4}}, build)
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "writing"
        c = ArtifactCache(tmp_path)
        assert c.clear() == 0 and c.prune() == 0  # the builder is alive: its folder stays
        assert len(list(tmp_path.glob("model/.tmp-*/part.bin"))) == 1
    finally:
        proc.kill()
        proc.wait()
    assert ArtifactCache(tmp_path).prune() == 1  # now it is an orphan


# -- temporary folders: listing, pruning, resumable scratch (#19) ----------------------------------------


def _sleeping_builder(root, n, scratch=False):
    """A subprocess building entry ``model/{n: n}`` that writes a file (into its scratch folder too) and hangs."""
    script = textwrap.dedent(f"""
        import time
        from bertology_lib.cache import ArtifactCache, ArtifactKind
        def build(folder, scratch=None):
            (folder / "part.bin").write_bytes(b"x" * 1000)
            if scratch is not None:
                (scratch / "state.bin").write_bytes(b"s" * 500)
            print("writing", flush=True)
            time.sleep(60)
        ArtifactCache({str(root)!r}).get_or_create(ArtifactKind("model", 1), {{"n": {n}}}, build, scratch={scratch})
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "writing"
    return proc


def test_temp_entries_report_size_owner_and_liveness_and_prune_removes_only_dead_ones(tmp_path):
    proc = _sleeping_builder(tmp_path, 5)
    try:
        c = ArtifactCache(tmp_path)
        (live,) = c.temp_entries()
        assert live.path.name.startswith(".tmp-") and live.pid == proc.pid and live.alive and live.size == 1000
        assert c.prune() == 0 and c.temp_entries() == [live]  # a live build is never pruned
    finally:
        proc.kill()
        proc.wait()
    (dead,) = c.temp_entries()
    assert dead.path == live.path and dead.pid == proc.pid and not dead.alive
    (tmp_path / "model" / ".tmp-junk").mkdir()  # no pid in the name: nobody owns it
    assert [(t.pid, t.alive) for t in c.temp_entries()] == [(proc.pid, False), (None, False)]
    assert list(c.entries()) == [] and c.prune() == 2 and c.temp_entries() == []


def test_entry_size_is_the_manifest_total(tmp_path):
    c = ArtifactCache(tmp_path)
    p = c.get_or_create(MODEL, {"n": 1}, _builder([]))
    manifest = json.loads((p / "MANIFEST.json").read_text())
    (entry,) = c.entries()
    assert entry.size == sum(m["size"] for m in manifest["files"].values()) > 0


def test_clear_rejects_an_unknown_kind_before_removing_anything(tmp_path):
    c = ArtifactCache(tmp_path)
    with pytest.raises(ParameterError, match=r"kind='model' is not in the cache .*allowed: none"):
        c.clear("model")
    c.get_or_create(MODEL, {"n": 1}, _builder([]))
    c.get_or_create(PROBE, {"n": 1}, _builder([]))
    with pytest.raises(ParameterError, match=r"kind='modle' is not in the cache .*allowed: 'model', 'probe'"):
        c.clear("modle")
    assert len(list(c.entries())) == 2
    assert c.clear("probe") == 1 and [e.kind for e in c.entries()] == ["model"]


def test_scratch_survives_a_failed_build_and_is_handed_to_the_next_then_removed(tmp_path):
    c, seen = ArtifactCache(tmp_path), []

    def fail(folder, scratch):
        seen.append(scratch)
        (scratch / "ckpt.bin").write_bytes(b"c" * 10)
        raise KeyboardInterrupt  # Ctrl-C in the middle of a long build

    with pytest.raises(KeyboardInterrupt):
        c.get_or_create(MODEL, {"n": 1}, fail, scratch=True)
    assert seen == [c.scratch_path(MODEL, {"n": 1})] and seen[0].name.startswith(".partial-")
    assert list(c.entries()) == []
    (partial,) = c.temp_entries()
    assert partial.path == seen[0] and partial.pid == os.getpid() and not partial.alive and partial.size > 10

    def resume(folder, scratch):
        seen.append(scratch)
        assert (scratch / "ckpt.bin").read_bytes() == b"c" * 10  # what the failed build left
        _builder([])(folder)

    p = c.get_or_create(MODEL, {"n": 1}, resume, scratch=True)
    assert seen[1] == seen[0] and c.get(MODEL, {"n": 1}) == p
    assert not seen[0].exists() and c.temp_entries() == []  # published: the scratch is spent
    assert not any(f.name in ("ckpt.bin", "LOCK") for f in p.iterdir())


def test_scratch_of_a_live_build_is_never_taken_over_nor_pruned(tmp_path):
    proc = _sleeping_builder(tmp_path, 6, scratch=True)
    c, seen = ArtifactCache(tmp_path), []
    try:
        partial = next(t for t in c.temp_entries() if t.path.name.startswith(".partial-"))
        assert partial.alive and partial.pid == proc.pid
        assert c.prune() == 0 and c.clear() == 0 and (partial.path / "state.bin").exists()

        def no_scratch(folder, scratch):
            seen.append(scratch)
            raise RuntimeError("stop")

        with pytest.raises(RuntimeError):
            c.get_or_create(MODEL, {"n": 6}, no_scratch, scratch=True)
        assert seen == [None] and (partial.path / "state.bin").exists()
    finally:
        proc.kill()
        proc.wait()

    def taken_over(folder, scratch):
        seen.append(scratch)
        assert (scratch / "state.bin").read_bytes() == b"s" * 500
        raise RuntimeError("stop again")

    with pytest.raises(RuntimeError):
        c.get_or_create(MODEL, {"n": 6}, taken_over, scratch=True)
    assert seen[1] == partial.path
    assert c.prune() == 2 and c.temp_entries() == []  # the dead .tmp- folder and the scratch


def test_saved_state_round_trips_and_a_corrupt_or_torn_one_is_none(tmp_path):
    state = {
        "step": 3,
        "losses": [1.5, 0.25],
        "model": {"w": torch.arange(4.0)},
        "opt": {0: {"step": torch.tensor(3.0)}},
        "rng": torch.get_rng_state(),
        "none": None,
    }
    save_state(tmp_path / "s", state)
    back = load_state(tmp_path / "s")
    assert back["step"] == 3 and back["losses"] == [1.5, 0.25] and back["none"] is None
    assert torch.equal(back["model"]["w"], torch.arange(4.0)) and torch.equal(back["rng"], state["rng"])
    assert back["rng"].dtype == torch.uint8 and torch.equal(back["opt"]["0"]["step"], torch.tensor(3.0))
    assert {f.suffix for f in tmp_path.iterdir()} == {".json", ".safetensors"}  # nothing pickled, no temp left
    data = bytearray((tmp_path / "s.safetensors").read_bytes())
    data[-1] ^= 0xFF
    (tmp_path / "s.safetensors").write_bytes(bytes(data))
    assert load_state(tmp_path / "s") is None
    save_state(tmp_path / "t", state)
    (tmp_path / "t.json").unlink()  # killed before the JSON (the commit) was written
    assert load_state(tmp_path / "t") is None and load_state(tmp_path / "missing") is None
