import pytest
import torch
from transformers import BertConfig

from bertology_lib.experiments.survey import architecture as arch


@pytest.mark.parametrize(
    "kw",
    [
        dict(),
        dict(
            hidden_size=64,
            num_hidden_layers=3,
            num_attention_heads=4,
            intermediate_size=100,
            vocab_size=1000,
            max_position_embeddings=77,
            type_vocab_size=3,
        ),
    ],
)
@pytest.mark.parametrize("heads", [False, True])
def test_analytic_count_matches_hf_module(kw, heads):
    """Parity: our formula against an independent count of the real HF module."""
    cfg = BertConfig(**kw)
    assert sum(arch.param_breakdown(cfg, heads=heads).values()) == arch.instantiated_count(cfg, heads=heads)


def test_bert_sizes_are_the_papers():
    base, large = arch.bert_config("bert-base"), arch.bert_config("bert-large")
    assert (base.num_hidden_layers, base.hidden_size, base.num_attention_heads) == (12, 768, 12)
    assert (large.num_hidden_layers, large.hidden_size, large.num_attention_heads) == (24, 1024, 16)
    with pytest.raises(ValueError, match="bert-huge.*bert-base, bert-large"):
        arch.bert_config("bert-huge")


def test_embedding_sum_matches_module(tiny_bert_dir):
    from bertology_lib.models.registry import load_model, load_tokenizer

    m, tok = load_model(str(tiny_bert_dir)), load_tokenizer(str(tiny_bert_dir))
    es = arch.embedding_sum(m, tok, "the chef tipped", "a robin")
    assert es.tokens[0] == "[CLS]" and es.tokens.count("[SEP]") == 2
    assert es.max_abs_diff < 1e-5
    assert torch.allclose(es.summed, es.token + es.position + es.segment)
    norms = es.norms()
    assert set(norms.component) == {"token", "position", "segment", "sum", "after LayerNorm"}


def test_tokenization_table_marks_pieces_and_segments(tiny_bert_dir):
    from bertology_lib.models.registry import load_tokenizer

    t = arch.tokenization_table(load_tokenizer(str(tiny_bert_dir)), "unbelievably the chef", "a robin")
    assert list(t.token[:4]) == ["[CLS]", "un", "##believ", "##ably"]
    assert t.continuation.sum() == 2 and set(t.segment) == {0, 1}


def test_head_shapes(tiny_bert_dir):
    from bertology_lib.models.registry import load_config, load_tokenizer

    cfg, tok = load_config(str(tiny_bert_dir)), load_tokenizer(str(tiny_bert_dir))
    df = arch.head_shapes(cfg, tok, [("the chef", "a robin"), ("a bird", "the waiter tipped")])
    shapes = dict(zip(df.tensor, df["shape"]))
    assert shapes["MLM logits"][2] == cfg.vocab_size and shapes["NSP logits (from [CLS])"] == (2, 2)


def test_require_bert_and_examples():
    arch.require_bert(BertConfig())
    with pytest.raises(ValueError, match="model_type='llama'"):
        arch.require_bert(type("C", (), {"model_type": "llama"})())
    assert len(arch.example_pairs(10)) == 10
    with pytest.raises(ValueError, match="n=0"):
        arch.example_pairs(0)
