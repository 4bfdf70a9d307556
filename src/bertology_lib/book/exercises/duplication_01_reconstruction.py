"""Checkers of the exercises of ``duplication_01_reconstruction`` (Reconstructing the input from every layer, Kao et
al. 2020):

* ``ex-dup1-reconstruction``: the measurement itself, every layer through the MLM head;
* ``ex-dup1-cka``: linear CKA, the similarity that explains it.

Every answer is a function, run on hidden cases; the truths come from the library (``analysis.reconstruction``,
``analysis.similarity``) on inputs built here, so none depends on the profile the notebook runs at. Models are built
inside ``torch.random.fork_rng``, so checking never moves a notebook's random state. Used by that notebook's
exercise cells.
"""

from __future__ import annotations

import math
from typing import Any

from bertology_lib.book.exercises.cases import judge_function, within
from bertology_lib.book.exercises.checks import as_number, checker


def _as_floats(x: Any) -> list[float] | None:
    """``x`` (a list, tuple, array or tensor) as a list of finite floats, or None."""
    try:
        seq = x.tolist() if hasattr(x, "tolist") else list(x)
    except TypeError:
        return None
    vals = [as_number(v) for v in seq]
    return None if any(v is None for v in vals) else vals  # type: ignore[return-value]


def dup1_mlms() -> tuple:
    """Two small BERT MLMs in eval mode, each with its word-level tokenizer and 40 sentences of 2 to 12 words
    (so batches are padded): random blocks, one of them scaled so the layers drift apart, and a head whose
    transform is the identity, so that tied embeddings let it recover most input tokens. Built afresh for
    every check, so nothing a student's function does to a model outlives it."""
    import random

    import torch

    from bertology_lib.models import minibert
    from bertology_lib.models.tokenization import build_word_tokenizer

    out = []
    for seed, (n_layers, d) in enumerate(((3, 32), (2, 48))):
        rng = random.Random(seed)
        words = [f"w{i}" for i in range(60)]
        tok = build_word_tokenizer(words, kind="bert")
        texts = [" ".join(rng.choice(words) for _ in range(rng.randint(2, 12))) for _ in range(40)]

        def build(n_layers=n_layers, d=d, seed=seed, tok=tok):
            mlm = minibert.new_bert(len(tok), n_layers, 2, d, seed=seed).eval()
            with torch.no_grad():
                mlm.bert.encoder.layer[1].output.dense.weight.mul_(40.0)
                tr = mlm.cls.predictions.transform
                tr.dense.weight.copy_(torch.eye(d))
                tr.dense.bias.zero_()
            tr.transform_act_fn = torch.nn.Identity()
            return mlm

        with torch.random.fork_rng(devices=[]):  # model inits draw from the global random state
            out.append((build(), tok, texts))
    return tuple(out)


def dup1_reconstruction_truth(mlm, tok, texts: list[str]) -> list[float]:
    """Per layer (0 = embeddings), the share of input tokens the MLM head's argmax recovers, special tokens
    excluded: ``analysis.reconstruction.reconstruction_by_layer``."""
    from bertology_lib.analysis.reconstruction import reconstruction_by_layer

    return [float(x) for x in reconstruction_by_layer(mlm, tok, texts).reconstruction]


def _reconstruction_mistakes(mlm, tok, texts: list[str]) -> dict[str, list[float]]:
    import torch

    with torch.no_grad():
        enc = tok(texts, return_tensors="pt", padding=True, truncation=True)
        enc = {k: v for k, v in enc.items() if k in ("input_ids", "attention_mask", "token_type_ids")}
        hs = mlm(**enc, output_hidden_states=True).hidden_states
        ids, real = enc["input_ids"], enc["attention_mask"].bool()
        special = torch.isin(ids, torch.tensor(sorted(set(tok.all_special_ids))))
        preds = [mlm.cls(h).argmax(-1) for h in hs]

    def rate(hit, keep):
        return [float((h & keep).sum() / keep.sum()) for h in hit]

    keep = real & ~special
    return {
        "specials": rate([p == ids for p in preds], real),
        "everything": rate([p == ids for p in preds], torch.ones_like(real)),
        "final": rate([p == preds[-1] for p in preds], keep),
        "hidden only": rate([p == ids for p in preds], keep)[1:],
    }


_RECONSTRUCTION_HINTS = {
    "specials": "[CLS] and [SEP] are not part of the input sentence: leave the special tokens out of the count.",
    "everything": "padding and special tokens are not input words: count only real, non-special tokens (the "
    "attention mask says which positions are real).",
    "final": "that is the logit-lens agreement with the final layer's prediction; reconstruction compares each "
    "layer's prediction with the input token.",
    "hidden only": "layer 0 (the embedding output) counts too: return one rate per layer, embeddings first.",
}


@checker("ex-dup1-reconstruction")
def _check_dup1_reconstruction(answer):
    """``answer``: a function ``reconstruction(mlm, tok, texts)`` returning, for every layer (0 = embeddings),
    the share of the input tokens (special tokens and padding excluded) that the MLM head's argmax recovers
    from that layer's hidden states; run on hidden small MLMs, +-0.005 per layer."""

    def not_yet(i, v, t):
        if any(len(x) != len(y) for x, y in zip(v, t)):
            return "return one rate per layer: the embedding output and every block's output."
        return (
            "not yet: feed each hidden state (output_hidden_states=True) unchanged to the MLM head (`mlm.cls`), "
            "take the argmax at every position and compare it with the input id there."
        )

    return judge_function(  # the truths first: the answer gets the very models they are computed on
        answer,
        "reconstruction",
        dup1_mlms(),
        show=lambda c: "reconstruction(mlm, tok, texts) on a hidden MLM",
        read=_as_floats,
        refuse="reconstruction should return one number per layer (a list), got {kind}.",
        truth=dup1_reconstruction_truth,
        match=within(0.005),
        mistakes=_reconstruction_mistakes,
        hints=_RECONSTRUCTION_HINTS,
        truth_first=True,
        ok=(
            "correct: run it on `deeper` too — its copied blocks were never trained with the head, yet the head "
            "still reads them."
        ),
        not_yet=not_yet,
    )


def _cka_cases() -> list[tuple]:
    """(X, Y) pairs: offset means (centring matters), a rotated and scaled copy (CKA 1), different widths."""
    import torch

    g = torch.Generator().manual_seed(7)
    x = torch.randn(200, 16, generator=g) + 3.0
    q, _ = torch.linalg.qr(torch.randn(16, 16, generator=g))
    z = torch.randn(200, 8, generator=g)
    w = torch.randn(150, 12, generator=g) * torch.linspace(0.2, 3.0, 12)
    return [
        (x, 2.5 * x @ q + 1.0),
        (x, z - 2.0),
        (x, x[:, :4] + 0.5 * torch.randn(200, 4, generator=g) + 5.0),
        (w, torch.tanh(w @ torch.randn(12, 6, generator=g)) + 0.3),
        (z, z**2),
    ]


def dup1_cka_truth(x, y) -> float:
    """Linear CKA (Kornblith et al. 2019): ``analysis.similarity.linear_cka``."""
    from bertology_lib.analysis.similarity import linear_cka

    return linear_cka(x, y)


def _cka_mistakes(x, y) -> dict[str, float]:
    xd, yd = x.double(), y.double()
    xc, yc = xd - xd.mean(0), yd - yd.mean(0)

    def cka(a, b):
        return float((a.T @ b).norm() ** 2 / ((a.T @ a).norm() * (b.T @ b).norm()))

    return {
        "uncentred": cka(xd, yd),
        "frobenius": float((xc.T @ yc).norm() ** 2 / (xc.norm() ** 2 * yc.norm() ** 2)),
        "square root": math.sqrt(cka(xc, yc)),
    }


_CKA_HINTS = {
    "uncentred": "centre both representations first (subtract each column's mean over the items): without it, a "
    "shared offset makes unrelated layers look alike.",
    "frobenius": "normalise by the norms of the Gram matrices, ||X^T X|| ||Y^T Y|| (Frobenius), not by ||X||^2 ||Y||^2.",
    "square root": "the numerator is the squared Frobenius norm ||X^T Y||^2, not its norm.",
}


@checker("ex-dup1-cka")
def _check_dup1_cka(answer):
    """``answer``: a function ``linear_cka(X, Y)`` of two (n, d) float tensors (the same n items, widths may
    differ) returning their linear CKA; run on hidden pairs, +-1e-4."""
    return judge_function(
        answer,
        "linear_cka",
        _cka_cases(),
        show=lambda c: f"linear_cka(X, Y) with X {tuple(c[0].shape)} and Y {tuple(c[1].shape)}",
        read=as_number,
        refuse="linear_cka should return a number, got {first!r}.",
        truth=dup1_cka_truth,
        match=within(1e-4),
        mistakes=_cka_mistakes,
        hints=_CKA_HINTS,
        ok=(
            "correct: it does not change when a layer is rotated or rescaled, which is why it can compare layers "
            "whose coordinates mean different things."
        ),
        not_yet=lambda i, v, t: (
            "a rotated and rescaled copy of X should score exactly 1: CKA is invariant to orthogonal transforms and "
            "to scale."
            if abs(v[0] - 1.0) > 1e-4
            else "not yet: centre X and Y, then ||Yc^T Xc||^2 / (||Xc^T Xc|| ||Yc^T Yc||) with Frobenius norms."
        ),
    )
