import pytest
import torch

from bertology_lib.analysis.reconstruction import reconstruction_by_layer
from bertology_lib.interventions import duplication as dup
from bertology_lib.interventions import hooks as iv
from bertology_lib.analysis.similarity import cka_matrix, linear_cka
from bertology_lib.models.registry import load_model, load_tokenizer


def test_patterns():
    assert dup.duplication_pattern(3, "first", k=2) == [0, 0, 1, 1, 2]
    assert dup.duplication_pattern(2, "every") == [0, 0, 1, 1]
    assert dup.duplication_pattern(3, "set", layers=[2]) == [0, 1, 2, 2]
    assert dup.duplication_pattern(3, "none") == [0, 1, 2]
    with pytest.raises(ValueError, match="k=5 is out of range"):
        dup.duplication_pattern(3, "first", k=5)
    with pytest.raises(ValueError, match="kind='all'"):
        dup.duplication_pattern(3, "all")


def test_duplicated_model_roundtrips_and_has_independent_copies(tiny_bert_dir, tmp_path):
    from transformers import AutoModelForMaskedLM

    m, tok = load_model(str(tiny_bert_dir), head="mlm"), load_tokenizer(str(tiny_bert_dir))
    deep = dup.duplicate_layers(m, [0, 0, 1, 1])
    assert deep.config.num_hidden_layers == 4 and len(iv.blocks(m)) == 2
    b = iv.blocks(deep)
    assert torch.equal(b[0].attention.self.query.weight, b[1].attention.self.query.weight)
    assert b[0].attention.self.query.weight.data_ptr() != b[1].attention.self.query.weight.data_ptr()
    deep.save_pretrained(tmp_path)
    back = AutoModelForMaskedLM.from_pretrained(tmp_path).eval()
    enc = tok("the chef tipped the waiter", return_tensors="pt")
    with torch.no_grad():
        assert torch.allclose(back(**enc).logits, deep(**enc).logits, atol=1e-6)
    # identity pattern: same function as the original
    same = dup.duplicate_layers(m, [0, 1])
    with torch.no_grad():
        assert torch.allclose(same(**enc).logits, m(**enc).logits, atol=1e-6)


def test_reconstruction_by_layer(tiny_bert_dir):
    m, tok = load_model(str(tiny_bert_dir), head="mlm"), load_tokenizer(str(tiny_bert_dir))
    df = reconstruction_by_layer(m, tok, ["the chef tipped the waiter", "a robin is a bird"])
    assert list(df.layer) == [0, 1, 2] and df.n_tokens[0] == 10
    assert df.agrees_with_final.iloc[-1] == 1.0
    assert ((0 <= df.reconstruction) & (df.reconstruction <= 1)).all()
    base = load_model(str(tiny_bert_dir), head="base")
    with pytest.raises(ValueError, match="no MLM head"):
        reconstruction_by_layer(base, tok, ["a"])


def test_linear_cka_parity_and_invariances():
    g = torch.Generator().manual_seed(0)
    X = torch.randn(50, 8, generator=g)
    Q = torch.linalg.qr(torch.randn(8, 8, generator=g)).Q
    assert linear_cka(X, X @ Q * 3.0) == pytest.approx(1.0)  # rotation and scale invariant
    assert linear_cka(X, torch.randn(50, 8, generator=g)) < 0.5
    # independent computation: CKA via centred Gram matrices (Kornblith et al. eq. 4)
    Y = torch.randn(50, 5, generator=g)
    H = torch.eye(50) - 1 / 50
    K, L = H @ X @ X.T @ H, H @ Y @ Y.T @ H
    ref = float((K * L).sum() / (K.norm() * L.norm()))
    assert linear_cka(X, Y) == pytest.approx(ref, rel=1e-5)
    M = cka_matrix(torch.stack([X, X @ Q, torch.randn(50, 8, generator=g)]))
    assert M.shape == (3, 3) and M[0, 1] == pytest.approx(1.0) and torch.allclose(M, M.T)
    with pytest.raises(ValueError, match="same items"):
        linear_cka(X, Y[:10])
