"""Calibration of the English lab BERT (#37): how far does each recipe get in N minutes on this CPU?

Trains through the library's one MLM pipeline (whole-word masking, masked-only head, length buckets; sentence
pairs with NSP where asked) on the train documents of Brown + State of the Union + Moby Dick
(:mod:`bertology_lib.data.english`), and at every evaluation prints, on held-out documents:

* masked-word accuracy on 1,500 held-out sentences (the same masks every time) beside a two-sided n-gram model
  counted on the same training text (:class:`bertology_lib.analysis.mlm_strength.NGramMLM`);
* agreement: right vs wrong verb form at the masked verb of the held-out Brown agreement items
  (:func:`bertology_lib.data.english.agreement_items`), without and with attractors.

    python benchmarks/english_bert_calibration.py --route minilm --minutes 20 --eval-every 200
    python benchmarks/english_bert_calibration.py --route scratch --minutes 20

Routes: ``minilm`` (all-MiniLM-L6-v2's encoder + a new tied MLM head, every weight trained), ``scratch`` (a
BERT of --layers x --d-model trained from a fresh WordPiece vocabulary of the same text).
"""

from __future__ import annotations

import argparse
import random
import time

import torch


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--route", choices=("minilm", "scratch"), default="minilm")
    ap.add_argument("--minutes", type=float, default=20)
    ap.add_argument("--eval-every", type=int, default=200, help="steps between evaluations")
    ap.add_argument("--lr", type=float, default=1e-4)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--seq-len", type=int, default=64)
    ap.add_argument("--pairs", action="store_true", help="sentence pairs with NSP (BertForPreTraining)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--warmup", type=int, default=100)
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--d-model", type=int, default=256)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)

    from transformers import AutoTokenizer, BertForMaskedLM, BertForPreTraining

    from bertology_lib.analysis import mlm_strength as strength
    from bertology_lib.data import english as en
    from bertology_lib.models.registry import model_path
    from bertology_lib.training.loop import TrainConfig, train
    from bertology_lib.training.pretrain import MLMObjective, mlm_batches, training_view

    t0 = time.time()
    docs = {c: en.load_english(c) for c in en.CORPORA}
    train_docs = [d for ds in docs.values() for d in ds if d.split == "train"]
    texts, partners = [], []
    for d in train_docs:
        sents = d.texts()
        base = len(texts)
        texts += sents
        partners += [[base + k + 1] if k + 1 < len(sents) else [] for k in range(len(sents))]
    held = [s for c in en.CORPORA for d in docs[c] if d.split == "test" for s in d.texts()]
    random.Random(0).shuffle(held)
    held = held[:1500]
    items = en.agreement_items([d for d in docs["brown"] if d.split == "test"])
    print(f"{len(texts)} training sentences ({sum(d.n_words for d in train_docs)} words), {len(held)} held-out, "
          f"{len(items)} agreement items ({sum(i.n_attractors > 0 for i in items)} with attractors); "
          f"read in {time.time() - t0:.1f} s", flush=True)

    if args.route == "minilm":
        path = model_path("minilm")
        tok = AutoTokenizer.from_pretrained(path)
        cls = BertForPreTraining if args.pairs else BertForMaskedLM
        model = cls.from_pretrained(path)
    else:
        from transformers import BertConfig

        from bertology_lib.models.wordpiece import train_wordpiece

        tok = train_wordpiece(texts, vocab_size=8000)
        cfg = BertConfig(vocab_size=len(tok), hidden_size=args.d_model, num_hidden_layers=args.layers,
                         num_attention_heads=args.d_model // 64, intermediate_size=4 * args.d_model,
                         max_position_embeddings=128)
        torch.manual_seed(0)
        model = (BertForPreTraining if args.pairs else BertForMaskedLM)(cfg)
    print(f"{args.route}: {sum(p.numel() for p in model.parameters()) / 1e6:.1f}M parameters", flush=True)

    t0 = time.time()
    ngram = strength.NGramMLM(texts, tok)
    print(f"n-gram counted in {time.time() - t0:.0f} s", flush=True)
    mlm_view = model if isinstance(model, BertForMaskedLM) else _AsMLM(model)

    verb_ids = {w: tok.convert_tokens_to_ids(w) for w in en.AGREEMENT_PAIRS}

    ngram_hits = strength.hits(strength.masked_predictions({"ngram": ngram}, tok, held), "ngram")

    def evaluate() -> dict:
        model.eval()
        with torch.no_grad():
            preds = strength.masked_predictions({"model": strength.model_predictor(mlm_view)}, tok, held)
            right = {0: [], 1: []}
            for k in range(0, len(items), 64):
                chunk = items[k: k + 64]
                enc = tok([list(i.words) for i in chunk], is_split_into_words=True, truncation=True, max_length=96,
                          padding=True, return_tensors="pt")
                pos = []
                for b, it in enumerate(chunk):
                    t = enc.word_ids(b).index(it.verb)
                    enc["input_ids"][b, t] = tok.mask_token_id
                    pos.append(t)
                logits = mlm_view(input_ids=enc["input_ids"], attention_mask=enc["attention_mask"]).logits
                for b, it in enumerate(chunk):
                    lg = logits[b, pos[b]]
                    right[int(it.n_attractors > 0)].append(float(lg[verb_ids[it.right]] > lg[verb_ids[it.wrong]]))
        model.train()
        return {"masked_acc": float(strength.hits(preds, "model").mean()),
                "ngram_acc": float(ngram_hits.mean()),
                "agree_0": sum(right[0]) / len(right[0]), "agree_attr": sum(right[1]) / max(1, len(right[1]))}

    print("step 0", {k: round(v, 3) for k, v in evaluate().items()}, flush=True)
    obj = MLMObjective(mask_prob=0.15, unit="word", nsp=args.pairs, seq_len=args.seq_len)
    batches = mlm_batches(texts, tok, obj, args.batch_size, seed=0, partners=partners if args.pairs else None)
    max_steps = 100_000
    cfg = TrainConfig(lr=args.lr, weight_decay=0.01, warmup_steps=args.warmup, max_steps=max_steps,
                      batch_size=args.batch_size, seq_len=args.seq_len, schedule="constant")
    clock = {"train_s": 0.0, "since": time.time()}

    class Clock:
        def on_step_end(self, step, loss, view):
            clock["train_s"] += time.time() - clock["since"]
            done = clock["train_s"] >= args.minutes * 60
            if step % args.eval_every == 0 or done:
                m = evaluate()
                print(f"step {step} {clock['train_s'] / 60:.1f} min of training, loss {loss:.3f}",
                      {k: round(v, 3) for k, v in m.items()}, flush=True)
            clock["since"] = time.time()
            return done

    train(training_view(model, batches), batches, cfg, callbacks=[Clock()], progress=False)


class _AsMLM(torch.nn.Module):
    """A BertForPreTraining read as a masked LM (its MLM logits only)."""

    def __init__(self, model) -> None:
        super().__init__()
        self.model = model

    def forward(self, input_ids, attention_mask=None, **kw):
        out = self.model(input_ids=input_ids, attention_mask=attention_mask)
        return type("Out", (), {"logits": out.prediction_logits})()


if __name__ == "__main__":
    main()
