"""Scale-out: the training loop runs unchanged under `accelerate launch` (DDP, gloo on CPU).

Two processes, each training on its half of every batch, must end with the same weights as one
process on the whole batches (same effective batch), with gradient accumulation on; and each
process must really see only its half.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import torch

from bertology_lib.training.loop import TrainConfig, shard_batch

pytestmark = pytest.mark.slow  # two processes with gloo

WORKER = textwrap.dedent("""
    import json, os, sys
    import torch
    torch.set_num_threads(1)
    from transformers import LlamaConfig, LlamaForCausalLM
    from bertology_lib.training.loop import TrainConfig, train

    out = sys.argv[1]
    torch.manual_seed(0)
    model = LlamaForCausalLM(LlamaConfig(vocab_size=50, hidden_size=32, intermediate_size=64,
                                         num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=4,
                                         max_position_embeddings=32, attention_dropout=0.0))
    g = torch.Generator().manual_seed(1)
    batches = []
    for _ in range(6):
        ids = torch.randint(0, 50, (8, 16), generator=g)
        batches.append({"input_ids": ids, "labels": ids.clone()})
    rows = []
    model.register_forward_pre_hook(lambda m, a, kw: rows.append(int(kw["input_ids"].shape[0])), with_kwargs=True)
    cfg = TrainConfig(lr=1e-2, max_steps=3, batch_size=8, seq_len=16, grad_accum=2, warmup_steps=1)
    result = train(model, batches, cfg, progress=False)
    rank = int(os.environ.get("RANK", "0"))
    json.dump({"rows": rows, "losses": result.losses, "world": int(os.environ.get("WORLD_SIZE", "1"))},
              open(f"{out}.rank{rank}.json", "w"))
    if rank == 0:
        from safetensors.torch import save_file
        save_file({k: v.contiguous() for k, v in model.state_dict().items()}, f"{out}.safetensors")
""")


def _run(cmd: list[str], tmp_path: Path) -> None:
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MASTER_PORT": "29533"}
    r = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]


def test_two_process_ddp_matches_one_process(tmp_path):
    from safetensors.torch import load_file

    script = tmp_path / "worker.py"
    script.write_text(WORKER)
    _run([sys.executable, str(script), str(tmp_path / "single")], tmp_path)
    # the multi-process launcher (torch.distributed.run underneath); with device="cpu" the
    # processes form a gloo group, exactly as `accelerate launch --multi_gpu` does on GPUs with nccl
    _run(
        [
            sys.executable,
            "-m",
            "accelerate.commands.launch",
            "--multi_gpu",
            "--num_processes",
            "2",
            "--num_machines",
            "1",
            "--mixed_precision",
            "no",
            "--dynamo_backend",
            "no",
            "--main_process_port",
            "29533",
            str(script),
            str(tmp_path / "ddp"),
        ],
        tmp_path,
    )
    single = json.loads((tmp_path / "single.rank0.json").read_text())
    ranks = [json.loads((tmp_path / f"ddp.rank{r}.json").read_text()) for r in (0, 1)]
    assert single["world"] == 1 and all(r["world"] == 2 for r in ranks)
    assert single["rows"] == [8] * 6  # 3 steps x 2 accumulated micro-batches of 8 rows
    assert all(r["rows"] == [4] * 6 for r in ranks)  # each process trains on its half of every batch
    assert ranks[0]["losses"] == pytest.approx(single["losses"], abs=1e-5)  # logged loss: mean over processes
    a, b = load_file(tmp_path / "single.safetensors"), load_file(tmp_path / "ddp.safetensors")
    assert a.keys() == b.keys()
    for k in a:
        assert torch.allclose(a[k], b[k], atol=1e-5), k


def test_shard_batch_splits_rows_and_refuses_uneven_batches():
    batch = {"input_ids": torch.arange(12).view(6, 2), "labels": torch.arange(12).view(6, 2)}
    assert shard_batch(batch, 1, 3)["input_ids"].tolist() == [[4, 5], [6, 7]]
    with pytest.raises(ValueError, match="batch of 6 rows cannot be split evenly over 4 processes"):
        shard_batch(batch, 0, 4)
    assert TrainConfig().batch_size % 2 == 0
