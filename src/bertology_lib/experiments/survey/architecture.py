"""BERT's architecture in numbers (survey §2): tokenization, the embedding sum,
head shapes and parameter counts.

Used by ``notebooks/survey_02_architecture.ipynb``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Sequence

import pandas as pd
import torch

from bertology_lib.errors import ParameterError
from bertology_lib.profiles import SizeTable


@dataclass(frozen=True)
class ArchitectureSizes(SizeTable):
    """Sizes of the §2 notebook per profile."""

    n_examples: int  # example sentences shown (half of them as pairs)

    SIZES: ClassVar[dict[str, dict[str, Any]]] = {
        "smoke": dict(n_examples=4),
        "quick": dict(n_examples=16),
        "full": dict(n_examples=64),
    }


# The two sizes of Devlin et al. (2019), Table/§3: L=12, H=768, A=12 and L=24, H=1024, A=16.
BERT_SIZES: dict[str, dict[str, int]] = {
    "bert-base": dict(num_hidden_layers=12, hidden_size=768, num_attention_heads=12, intermediate_size=3072),
    "bert-large": dict(num_hidden_layers=24, hidden_size=1024, num_attention_heads=16, intermediate_size=4096),
}


def bert_config(size: str):
    """A :class:`transformers.BertConfig` for ``bert-base`` or ``bert-large`` (vocab 30,522)."""
    from transformers import BertConfig

    if size not in BERT_SIZES:
        raise ParameterError(f"size={size!r} is not known; allowed: {', '.join(BERT_SIZES)}")
    return BertConfig(**BERT_SIZES[size])


def param_breakdown(config, heads: bool = False) -> dict[str, int]:
    """Parameter count of a BERT from its config, by component, computed analytically.

    Components: token/position/segment embeddings (+ LayerNorm), per-layer
    self-attention (Q, K, V, output projection, LayerNorm), feed-forward
    (two linear maps, LayerNorm), the pooler, and with ``heads=True`` the MLM
    head (transform + LayerNorm + output bias; its output weights are tied to
    the token embeddings) and the NSP head. :func:`count_parameters` on the
    real HF module is the independent check (see ``tests/test_architecture.py``).
    """
    V, H, P, T = config.vocab_size, config.hidden_size, config.max_position_embeddings, config.type_vocab_size
    I, L = config.intermediate_size, config.num_hidden_layers  # noqa: E741 - the paper's symbols
    ln = 2 * H
    out = {
        "token embeddings": V * H,
        "position embeddings": P * H,
        "segment embeddings": T * H,
        "embedding LayerNorm": ln,
        "self-attention (all layers)": L * (4 * (H * H + H) + ln),
        "feed-forward (all layers)": L * (H * I + I + I * H + H + ln),
        "pooler": H * H + H,
    }
    if heads:
        out["MLM head (tied decoder)"] = H * H + H + ln + V
        out["NSP head"] = 2 * H + 2
    return out


def count_parameters(module: torch.nn.Module) -> int:
    """Number of distinct parameters of a module (tied weights counted once)."""
    return sum(p.numel() for p in module.parameters())


def instantiated_count(config, heads: bool = False) -> int:
    """Count parameters of the real HF module, built on the meta device (no memory)."""
    from transformers import BertForPreTraining, BertModel

    with torch.device("meta"):
        model = BertForPreTraining(config) if heads else BertModel(config)
    return count_parameters(model)


def tokenization_table(tokenizer, sentence: str, pair: str | None = None) -> pd.DataFrame:
    """WordPiece tokens of one sentence (or pair) with ids, segment ids and word ids."""
    enc = tokenizer(sentence, pair) if pair is not None else tokenizer(sentence)
    ids = enc["input_ids"]
    toks = tokenizer.convert_ids_to_tokens(ids)
    return pd.DataFrame(
        {
            "position": range(len(ids)),
            "token": toks,
            "id": ids,
            "segment": enc.get("token_type_ids", [0] * len(ids)),
            "word": [("" if w is None else w) for w in enc.word_ids()],
            "continuation": [t.startswith("##") for t in toks],
        }
    )


@dataclass(frozen=True)
class EmbeddingSum:
    """The three embeddings of each input position, their sum and BERT's output."""

    tokens: list[str]
    token: torch.Tensor  # (T, d_model)
    position: torch.Tensor  # (T, d_model)
    segment: torch.Tensor  # (T, d_model)
    summed: torch.Tensor  # (T, d_model) token + position + segment
    normed: torch.Tensor  # (T, d_model) LayerNorm(summed): what layer 0 receives
    module_output: torch.Tensor  # (T, d_model) model.embeddings(...) itself

    @property
    def max_abs_diff(self) -> float:
        """How far our recomputation is from the module's output (should be ~1e-6)."""
        return float((self.normed - self.module_output).abs().max())

    def norms(self) -> pd.DataFrame:
        """Per-position L2 norms of each component (long format, for plotting)."""
        rows = []
        for name, t in (
            ("token", self.token),
            ("position", self.position),
            ("segment", self.segment),
            ("sum", self.summed),
            ("after LayerNorm", self.normed),
        ):
            for i, v in enumerate(t.norm(dim=-1).tolist()):
                rows.append({"position": i, "token": self.tokens[i], "component": name, "norm": v})
        return pd.DataFrame(rows)


@torch.no_grad()
def embedding_sum(model, tokenizer, sentence: str, pair: str | None = None) -> EmbeddingSum:
    """Recompute BERT's input representation by hand and compare with the module.

    ``model`` is a BERT body (``BertModel``) in eval mode, so dropout is off.
    """
    emb = model.embeddings
    enc = (
        tokenizer(sentence, pair, return_tensors="pt") if pair is not None else tokenizer(sentence, return_tensors="pt")
    )
    ids = enc["input_ids"]  # (1, T)
    seg = enc.get("token_type_ids", torch.zeros_like(ids))
    pos = torch.arange(ids.shape[1]).unsqueeze(0)
    tok_e = emb.word_embeddings(ids)[0]
    pos_e = emb.position_embeddings(pos)[0]
    seg_e = emb.token_type_embeddings(seg)[0]
    summed = tok_e + pos_e + seg_e
    normed = emb.LayerNorm(summed)
    module_out = emb(input_ids=ids, token_type_ids=seg)[0]
    return EmbeddingSum(
        tokens=tokenizer.convert_ids_to_tokens(ids[0].tolist()),
        token=tok_e,
        position=pos_e,
        segment=seg_e,
        summed=summed,
        normed=normed,
        module_output=module_out,
    )


@torch.no_grad()
def head_shapes(
    config, tokenizer, sentences: Sequence[tuple[str, str]], encoder_state: dict | None = None, seed: int = 0
) -> pd.DataFrame:
    """Shapes of the tensors flowing through BERT's pre-training heads.

    Builds ``BertForPreTraining`` from ``config`` (MLM + NSP heads), optionally
    loads an encoder's weights into its body (the heads stay as initialised:
    this shows shapes, not predictions), and runs a batch of sentence pairs.
    """
    from transformers import BertForPreTraining

    torch.manual_seed(seed)
    model = BertForPreTraining(config).eval()
    if encoder_state is not None:
        model.bert.load_state_dict(encoder_state, strict=False)
    a, b = zip(*sentences)
    enc = tokenizer(list(a), list(b), return_tensors="pt", padding=True)
    out = model(**enc, output_hidden_states=True)
    rows = [
        ("input_ids", "(batch, seq)", tuple(enc["input_ids"].shape)),
        ("token_type_ids (segments)", "(batch, seq)", tuple(enc["token_type_ids"].shape)),
        ("hidden states, each of L+1", "(batch, seq, d_model)", tuple(out.hidden_states[-1].shape)),
        ("MLM logits", "(batch, seq, vocab)", tuple(out.prediction_logits.shape)),
        ("NSP logits (from [CLS])", "(batch, 2)", tuple(out.seq_relationship_logits.shape)),
    ]
    return pd.DataFrame(rows, columns=["tensor", "axes", "shape"])


# Example inputs for the §2 notebook: (sentence A, sentence B) pairs chosen to
# show WordPiece splits (rare words, numbers, names) and the two segments.
EXAMPLE_PAIRS: tuple[tuple[str, str], ...] = (
    ("The chef tipped the waiter.", "He was grateful for it."),
    ("Unbelievably, the sheep ran away.", "Nobody has ever found them."),
    ("Anya Briar Forger was born on October 2, 1996.", "She studied communications."),
    ("Paris is the capital of France.", "It lies on the Seine."),
    ("Transformers use self-attention.", "BERT stacks twelve such layers."),
    ("The keys to the cabinet are on the table.", "Is the cabinet locked?"),
    ("She hasn't eaten any anchovies yet.", "They are too salty."),
    ("A robin is a bird.", "A bird can fly."),
)


def example_pairs(n: int) -> list[tuple[str, str]]:
    """The first ``n`` example pairs (repeating if ``n`` exceeds the list)."""
    if n < 1:
        raise ParameterError(f"n={n} is out of range; allowed: n >= 1")
    return [EXAMPLE_PAIRS[i % len(EXAMPLE_PAIRS)] for i in range(n)]


def require_bert(config) -> None:
    """Raise a clear error unless ``config`` describes a BERT-family encoder."""
    allowed = ("bert", "roberta", "albert", "distilbert", "electra")
    if getattr(config, "model_type", None) not in allowed:
        raise ParameterError(
            f"model_type={getattr(config, 'model_type', None)!r}: this notebook needs a "
            f"BERT-family encoder; allowed model types: {', '.join(allowed)}"
        )
