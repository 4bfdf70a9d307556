"""Resumable training (#19): a training stopped mid-way continues from its last complete state and ends
exactly where an uninterrupted run ends (same threads and stack); a corrupt state or one of another run
is ignored; a killed mini-BERT build resumes and leaves nothing that is listed as an entry."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
import torch

from bertology_lib.cache import ArtifactCache, load_tensors
from bertology_lib.errors import ParameterError
from bertology_lib.models.minibert import MiniBertConfig, history, new_bert
from bertology_lib.training.minibert import KIND, minibert_key, train_minibert
from bertology_lib.models.tokenization import build_word_tokenizer
from bertology_lib.training import loop as T
from bertology_lib.training import masking as M
from bertology_lib.training import objectives as O

WORDS = ["the", "chef", "tipped", "a", "waiter", "robin", "is", "bird", "cat", "dog", "sees", "runs"]


@pytest.fixture(scope="module")
def tok():
    return build_word_tokenizer(WORDS, kind="bert")


def _texts(n: int = 50) -> list[str]:
    rng = random.Random(0)
    return [" ".join(rng.choice(WORDS) for _ in range(rng.randint(4, 9))) for _ in range(n)]


class Crash(Exception):
    pass


class Counter:
    """A resumable callback: counts the steps it has seen (crashes at ``crash_at``, like a kill)."""

    def __init__(self, crash_at: int = 0) -> None:
        self.seen, self.crash_at = 0, crash_at

    def on_step_end(self, step, loss, model):
        self.seen += 1
        if step == self.crash_at:
            raise Crash(step)

    def state_dict(self):
        return {"seen": self.seen}

    def load_state_dict(self, state):
        self.seen = state["seen"]


CFG = T.TrainConfig(lr=1e-3, max_steps=20, batch_size=8, warmup_steps=2, schedule="linear", seed=1)


def _run(tok, folder: Path | None, crash_at: int = 0, cfg: T.TrainConfig = CFG, every: int = 3):
    """A tiny BERT (dropout on: the global RNG matters) on MLM batches of 7 per epoch (epochs cross resumes)."""
    model = new_bert(len(tok), 1, 2, 16, seed=0)
    batches = M.MLMBatches(_texts(), tok, cfg.batch_size, seq_len=16, seed=cfg.seed, bucket=2, mask_prob=0.4)
    counter = Counter(crash_at)
    resume = T.Resume(folder, every=every, at=(10,)) if folder is not None else None
    res = T.train(
        M.MaskedOnlyMLM(model),
        batches,
        cfg,
        callbacks=[counter],
        progress=False,
        eval_fn=lambda m: {"n": float(counter.seen)},
        resume=resume,
    )
    return res, model, counter


def _same_weights(a: torch.nn.Module, b: torch.nn.Module) -> bool:
    sa, sb = a.state_dict(), b.state_dict()
    return sa.keys() == sb.keys() and all(torch.equal(sa[k], sb[k]) for k in sa)


def test_a_stopped_training_resumes_from_its_last_state_and_equals_an_uninterrupted_one(tok, tmp_path):
    ref, ref_model, ref_counter = _run(tok, None)
    with pytest.raises(Crash):
        _run(tok, tmp_path, crash_at=14)  # states at 3, 6, 9, 10, 12: only the last is kept
    assert sorted(p.name for p in tmp_path.iterdir()) == ["state-000000012.json", "state-000000012.safetensors"]
    res, model, counter = _run(tok, tmp_path)
    assert res.extra["resumed_from"] == 12 and res.steps == 20 and counter.seen == ref_counter.seen == 20
    assert res.losses == ref.losses and res.lrs == ref.lrs and res.evals == ref.evals
    assert _same_weights(model, ref_model)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["state-000000018.json", "state-000000018.safetensors"]


def test_a_corrupt_state_falls_back_to_an_older_one_or_to_step_0(tok, tmp_path):
    ref, ref_model, _ = _run(tok, None)
    with pytest.raises(Crash):
        _run(tok, tmp_path, crash_at=8)
    (state,) = tmp_path.glob("state-*.safetensors")
    data = bytearray(state.read_bytes())
    data[len(data) // 2] ^= 0xFF  # a flipped bit somewhere in the weights
    state.write_bytes(bytes(data))
    res, model, _ = _run(tok, tmp_path)
    assert "resumed_from" not in res.extra  # ignored: trained from step 0
    assert res.losses == ref.losses and _same_weights(model, ref_model)


def test_a_state_of_another_run_is_ignored(tok, tmp_path):
    with pytest.raises(Crash):
        _run(tok, tmp_path, crash_at=8)
    other = T.TrainConfig(**{**CFG.to_dict(), "lr": 2e-3})
    res, _, _ = _run(tok, tmp_path, cfg=other)
    assert "resumed_from" not in res.extra and res.steps == 20


def test_resume_needs_batches_whose_order_can_be_restored(tok, tmp_path):
    model = new_bert(len(tok), 1, 2, 16)
    one_shot = iter(M.MLMBatches(_texts(), tok, 8, seq_len=16))
    with pytest.raises(ParameterError, match="allowed: a list or a batch builder with state_dict"):
        T.train(M.MaskedOnlyMLM(model), one_shot, CFG, progress=False, resume=T.Resume(tmp_path))
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(ParameterError, match="every=-1"):
        T.Resume(tmp_path, every=-1)
    with pytest.raises(ParameterError, match="at=0"):
        T.Resume(tmp_path, at=(0,))
    assert T.Resume(tmp_path, every=5, at=(7,)).due(7, 20) and not T.Resume(tmp_path, every=5).due(20, 20)


@pytest.mark.parametrize(
    "make",
    [
        lambda tok: O.LMBatches(torch.arange(60).view(10, 6), 3, seed=2),
        lambda tok: O.QABatches([([1, 2, 3], [-100, 2, 3])] * 7, 3, pad_id=0, seed=2),
        lambda tok: M.PairBatches(_texts(12), [[(i + 1) % 12] for i in range(12)], tok, 4, seed=2),
        lambda tok: O.MixedBatches(
            {"a": (torch.arange(40).view(10, 4), None), "b": (torch.arange(24).view(6, 4), None)},
            {"a": 0.7, "b": 0.3},
            4,
            seed=2,
        ),
    ],
    ids=["lm", "qa", "pairs", "mixed"],
)
def test_every_batch_builder_restores_its_stream(tok, make):
    """The loop's contract: the builder's state at the start of an epoch, loaded into a fresh builder,
    gives the same batches from there on."""
    a, b = make(tok), make(tok)
    next(iter(a))  # move a's generator on
    state = a.state_dict()
    b.load_state_dict(state)
    batch_a, batch_b = next(iter(a)), next(iter(b))
    assert batch_a.keys() == batch_b.keys() and all(torch.equal(batch_a[k], batch_b[k]) for k in batch_a)


def test_two_trainings_with_the_same_seed_and_threads_are_identical(tok):
    """Determinism: dropout, masking and data order all follow the seed (on this thread count and stack)."""
    (a, ma, _), (b, mb, _) = _run(tok, None), _run(tok, None)
    assert a.losses == b.losses and _same_weights(ma, mb)
    c, mc, _ = _run(tok, None, cfg=T.TrainConfig(**{**CFG.to_dict(), "seed": 2}))
    assert c.losses != a.losses and not _same_weights(mc, ma)


# -- a killed mini-BERT build (subprocess, SIGKILL) ------------------------------------------------------

STEPS, EVERY = 150, 10


def _weights(folder: Path) -> dict[str, torch.Tensor]:
    return load_tensors(folder / "final" / "model.safetensors")


@pytest.mark.slow
def test_killed_minibert_build_resumes_to_the_uninterrupted_result(tmp_path):
    cfg = MiniBertConfig.for_profile("smoke", max_steps=STEPS)
    killed, clean = tmp_path / "killed", tmp_path / "clean"
    threads = torch.get_num_threads()  # both runs on the same thread count: bit-for-bit
    script = textwrap.dedent(f"""
        from bertology_lib.runtime import apply_thread_policy
        apply_thread_policy()
        from bertology_lib.cache import ArtifactCache
        from bertology_lib.models.minibert import MiniBertConfig
        from bertology_lib.training.minibert import train_minibert
        train_minibert(MiniBertConfig.for_profile("smoke", max_steps={STEPS}), ArtifactCache({str(killed)!r}),
                       progress=False, resume_every={EVERY})
    """)
    env = {**os.environ, "BERTOLOGY_THREADS": str(threads), "OMP_NUM_THREADS": str(threads)}
    proc = subprocess.Popen([sys.executable, "-c", script], env=env)
    states = f"{KIND.name}/.partial-*/train/state-*.json"
    deadline = time.monotonic() + 300
    try:
        while not any(int(p.stem.split("-")[1]) >= 3 * EVERY for p in killed.glob(states)):
            assert proc.poll() is None, "training finished before it could be killed; raise STEPS"
            assert time.monotonic() < deadline, "no resume state within 300 s"
            time.sleep(0.02)
    finally:
        proc.kill()  # SIGKILL: no cleanup handlers run
        proc.wait()
    assert proc.returncode == -9
    cache = ArtifactCache(killed)
    assert cache.get(KIND, minibert_key(cfg)) is None and list(cache.entries()) == []
    left = {t.path.name.split("-")[0]: t for t in cache.temp_entries()}
    assert set(left) == {".tmp", ".partial"} and all(t.pid == proc.pid and not t.alive for t in left.values())
    assert list(left[".partial"].path.glob("checkpoints/step_*/model.safetensors"))  # kept checkpoints

    rebuilt = train_minibert(cfg, cache, progress=False, resume_every=EVERY)
    reference = train_minibert(cfg, ArtifactCache(clean), progress=False, resume_every=EVERY)
    resumed, ref = history(rebuilt), history(reference)
    assert resumed["resumed_from"] >= 3 * EVERY and ref["resumed_from"] == 0
    a, b = _weights(rebuilt), _weights(reference)
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
    assert resumed["losses"] == ref["losses"] and resumed["evals"] == ref["evals"]
    assert sorted(p.name for p in (rebuilt / "checkpoints").iterdir()) == sorted(
        p.name for p in (reference / "checkpoints").iterdir()
    )
    for step in cfg.checkpoint_steps():  # the checkpoints written before the kill are the same too
        ck = f"checkpoints/step_{step:06d}/model.safetensors"
        x, y = load_tensors(rebuilt / ck), load_tensors(reference / ck)
        assert all(torch.equal(x[k], y[k]) for k in x)
    assert [t.path.name.split("-")[0] for t in cache.temp_entries()] == [".tmp"]  # the scratch is spent
    assert cache.prune() == 1 and cache.temp_entries() == []
