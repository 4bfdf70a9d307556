"""Training throughput: our loop vs the HF ``Trainer``, side by side on the same model and data.

Ours: :func:`bertology_lib.training.loop.train` on :class:`~bertology_lib.models.minibert.MaskedOnlyMLM` (vocabulary
logits only at the ~15% scored positions) with :class:`~bertology_lib.training.loop.MLMBatches` (whole-word
masking, length bucketing, ``bucket=50``). Theirs: ``transformers.Trainer`` on the plain
``BertForMaskedLM`` with ``DataCollatorForLanguageModeling`` (80/10/10 masking; the tokenizer is
word-level, so masking tokens is masking whole words; dynamic padding to the longest row of a batch),
once with its default random sampler and once with ``train_sampling_strategy="group_by_length"``
(HF's own length bucketing). Every run: the quick
mini-BERT config, a fresh random init (same seed), the same ``steps x batch_size`` training sentences
(one epoch, so every run sees exactly the same real tokens), same optimiser settings, no eval, no
checkpoints, one process, all CPU threads.

Throughput counts *real* (non-padding) tokens entering the encoder, through a forward pre-hook on
``BertModel`` that both sides go through, over the wall time of the training call (the Trainer's
own setup included, the tokenisation of the texts not).

FLOP model (per step; d = d_model, L = layers, V = vocabulary, n_s = real length of row s):

    useful   = 6 * N_body * sum(n_s) + 12 * L * d * sum(n_s^2) + 6 * (d^2 + d*V) * n_scored
    executed = 6 * N_body * B*T      + 12 * L * d * B*T^2      + 6 * (d^2 + d*V) * n_head

``N_body`` = parameters of the encoder layers (non-embedding); the 12*L*d*T term is the attention
scores and weighted sum (2 matmuls, 2*T*d FLOPs each per token forward, x3 for forward + backward);
the last term is the MLM head (d x d transform + tied d x V decoder), fwd + bwd. ``useful`` is what
the loss needs (real tokens only, head at scored positions only) and is the same for both sides;
``executed`` is what each side actually runs (padded B x T, and ``n_head`` = all B*T positions for
HF, the scored ones for ours). Embedding lookups, layer norms, softmax, GELU and the optimiser are
left out (memory-bound, small). The machine's peak is a timed 2048^3 float32 ``torch.mm`` loop in the
same process.

On a shared machine, run it when the load is low (it prints the 1-minute load average before and
after); ``--repeats N`` interleaves N rounds of all runs and keeps each run's fastest round.

    .venv/bin/python benchmarks/bench_training.py [--steps 200] [--repeats 1] [--no-group-by-length]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
import warnings

import torch

from bertology_lib.models import minibert
from bertology_lib.training.loop import MLMBatches, TrainConfig, train


def loadavg() -> str:
    return f"{os.getloadavg()[0]:.2f}"


def matmul_peak(n: int = 2048, seconds: float = 3.0) -> float:
    """Achieved float32 FLOP/s of a large square ``torch.mm`` loop (the machine's practical peak)."""
    a, b = torch.randn(n, n), torch.randn(n, n)
    for _ in range(3):
        torch.mm(a, b)
    reps, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        torch.mm(a, b)
        reps += 1
    return 2 * n**3 * reps / (time.perf_counter() - t0)


class TokenMeter:
    """Counts what enters ``BertModel.forward``: real tokens, padded positions, sum of squared lengths."""

    def __init__(self, bert, pad_id: int) -> None:
        self.pad_id = pad_id
        self.real = self.padded = self.sq = self.sq_exec = 0
        self.handle = bert.register_forward_pre_hook(self._hook, with_kwargs=True)

    def _hook(self, module, args, kwargs):
        ids = kwargs.get("input_ids", args[0] if args else None)
        mask = kwargs.get("attention_mask")
        if mask is None:
            mask = ids != self.pad_id
        n = mask.sum(1)  # (B,) real length per row
        self.real += int(n.sum())
        self.padded += ids.numel()
        self.sq += int((n * n).sum())
        self.sq_exec += ids.numel() * ids.shape[1]  # B * T^2: attention as executed, padding included


class LossMeter:
    """Counts scored (labelled) positions and records the loss of every training forward."""

    def __init__(self, model) -> None:
        self.scored = 0
        self.losses: list[float] = []
        model.register_forward_pre_hook(self._pre, with_kwargs=True)
        model.register_forward_hook(self._post)

    def _pre(self, module, args, kwargs):
        labels = kwargs.get("labels")
        if labels is not None:
            self.scored += int((labels != -100).sum())

    def _post(self, module, args, output):
        self.losses.append(float(output.loss.detach()))

    def final(self, k: int = 20) -> float:
        return sum(self.losses[-k:]) / len(self.losses[-k:])


def flops(cfg: minibert.MiniBertConfig, vocab: int, n_body: int, tokens: int, sq: int, head_positions: int
          ) -> float:
    d, L = cfg.d_model, cfg.n_layers
    return 6 * n_body * tokens + 12 * L * d * sq + 6 * (d * d + d * vocab) * head_positions


def run_ours(cfg, tok, texts, args) -> dict:
    model = minibert.build_model(cfg, len(tok))
    meter = TokenMeter(model.bert, tok.pad_token_id)
    wrapped = minibert.MaskedOnlyMLM(model)
    losses = LossMeter(wrapped)
    batches = MLMBatches(texts, tok, batch_size=cfg.batch_size, seq_len=64, mask_prob=cfg.mask_prob,
                         whole_word=True, seed=0, bucket=50)
    tc = TrainConfig(lr=cfg.lr, weight_decay=cfg.weight_decay, warmup_steps=args.warmup, max_steps=args.steps,
                     batch_size=cfg.batch_size, seq_len=64, schedule="linear", min_lr_ratio=0.0, seed=0)
    t0 = time.perf_counter()
    result = train(wrapped, batches, tc, progress=False)
    secs = time.perf_counter() - t0
    return dict(seconds=secs, steps=result.steps, real=meter.real, padded=meter.padded, sq=meter.sq,
                scored=losses.scored, head=losses.scored, sq_exec=meter.sq_exec, final_loss=losses.final())


def run_hf(cfg, tok, texts, args, group_by_length: bool) -> dict:
    from transformers import DataCollatorForLanguageModeling, Trainer, TrainingArguments

    model = minibert.build_model(cfg, len(tok))
    meter = TokenMeter(model.bert, tok.pad_token_id)
    losses = LossMeter(model)
    # The tokenizer is word-level (one token per word), so token masking *is* whole-word masking; the
    # collator's own whole_word_mask=True needs offset_mapping, which tokenizer.pad cannot pad.
    data = [{"input_ids": ids} for ids in tok(list(texts), truncation=True, max_length=64)["input_ids"]]
    collator = DataCollatorForLanguageModeling(tok, mlm=True, mlm_probability=cfg.mask_prob, seed=0)
    with tempfile.TemporaryDirectory() as out:
        targs = TrainingArguments(
            output_dir=out, per_device_train_batch_size=cfg.batch_size, max_steps=args.steps,
            learning_rate=cfg.lr, weight_decay=cfg.weight_decay, warmup_steps=args.warmup,
            lr_scheduler_type="linear", adam_beta1=0.9, adam_beta2=0.98, adam_epsilon=1e-6, max_grad_norm=1.0,
            save_strategy="no", eval_strategy="no", logging_strategy="no", report_to=[], use_cpu=True,
            dataloader_num_workers=0, disable_tqdm=True, seed=0,
            train_sampling_strategy="group_by_length" if group_by_length else "random",
        )
        trainer = Trainer(model=model, args=targs, train_dataset=data, data_collator=collator)
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out_ = trainer.train()
        secs = time.perf_counter() - t0
    return dict(seconds=secs, steps=out_.global_step, real=meter.real, padded=meter.padded, sq=meter.sq,
                scored=losses.scored, head=meter.padded, sq_exec=meter.sq_exec, final_loss=losses.final())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--warmup", type=int, default=20, help="lr warmup steps (both sides)")
    ap.add_argument("--no-group-by-length", action="store_true", help="skip the HF group_by_length run")
    ap.add_argument("--repeats", type=int, default=1, help="interleaved rounds; each run's fastest is kept")
    args = ap.parse_args()

    cfg = minibert.MiniBertConfig.for_profile("quick")
    tok = minibert.tokenizer_for(cfg)
    train_s, _ = minibert.corpus(cfg)
    texts = [s.text for s in train_s[: args.steps * cfg.batch_size]]  # exactly one epoch of `steps` batches
    probe = minibert.build_model(cfg, len(tok))
    n_body = sum(p.numel() for p in probe.bert.encoder.parameters())
    n_all = sum(p.numel() for p in probe.parameters())
    del probe
    print(f"quick mini-BERT: {cfg.n_layers} layers, d={cfg.d_model}, vocab={len(tok)}, "
          f"{n_all / 1e6:.2f}M params ({n_body / 1e6:.2f}M in the encoder layers); "
          f"{args.steps} steps x batch {cfg.batch_size}; torch threads={torch.get_num_threads()}")

    print(f"1-min load average at start: {loadavg()}")
    peak = matmul_peak()
    print(f"matmul peak (2048^3 float32 torch.mm): {peak / 1e9:.1f} GFLOP/s")

    contenders = {
        "ours (train + MaskedOnlyMLM + MLMBatches bucket=50)": lambda: run_ours(cfg, tok, texts, args),
        "HF Trainer (default sampler)": lambda: run_hf(cfg, tok, texts, args, group_by_length=False),
    }
    if not args.no_group_by_length:
        contenders["HF Trainer (group_by_length)"] = lambda: run_hf(cfg, tok, texts, args, group_by_length=True)
    runs: dict[str, dict] = {}
    for _ in range(args.repeats):
        for label, fn in contenders.items():
            r = fn()
            if label not in runs or r["seconds"] < runs[label]["seconds"]:
                runs[label] = r
    peak = max(peak, matmul_peak())  # again at the end: the best of the two is the peak
    print(f"matmul peak (best of start and end): {peak / 1e9:.1f} GFLOP/s; "
          f"1-min load average at end: {loadavg()}")

    print(f"\n{'run':<52s} {'steps':>5s} {'s':>7s} {'real tok/s':>10s} {'padding':>7s} "
          f"{'useful GF/s':>11s} {'%peak':>6s} {'exec GF/s':>9s} {'%peak':>6s} {'loss':>6s}")
    for label, r in runs.items():
        useful = flops(cfg, len(tok), n_body, r["real"], r["sq"], r["scored"]) / r["seconds"]
        executed = flops(cfg, len(tok), n_body, r["padded"], r["sq_exec"], r["head"]) / r["seconds"]
        r["tok_s"] = r["real"] / r["seconds"]
        print(f"{label:<52s} {r['steps']:5d} {r['seconds']:7.1f} {r['tok_s']:10.0f} "
              f"{1 - r['real'] / r['padded']:7.1%} {useful / 1e9:11.2f} {useful / peak:6.1%} "
              f"{executed / 1e9:9.2f} {executed / peak:6.1%} {r['final_loss']:6.2f}")
    ours = next(iter(runs.values()))
    for label, r in list(runs.items())[1:]:
        print(f"ratio ours / {label}: {ours['tok_s'] / r['tok_s']:.2f}x real tokens/s")
    print("(loss: mean training MLM loss of the last 20 steps; padding: share of executed positions that are padding)")


if __name__ == "__main__":
    main()
