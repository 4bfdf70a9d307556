import pytest
import torch

from bertology_lib.analysis.reconstruction import reconstruction_by_layer
from bertology_lib.interventions import duplication as dup
from bertology_lib.interventions import hooks as iv
from bertology_lib.analysis.similarity import adjacent_similarity, cka_matrix, linear_cka
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


def test_adjacent_similarity_against_shuffled_words_and_a_null_model():
    from bertology_lib.book.claims import BeatsBaseline, Verdict

    g = torch.Generator().manual_seed(0)
    n_sent, per, d = 120, 6, 16
    offsets = list(range(0, n_sent * per + 1, per))
    states = [torch.randn(n_sent * per, d, generator=g)]
    for _ in range(3):  # a residual stream: each layer is the previous one plus an update
        states.append(states[-1] + 0.5 * torch.randn(n_sent * per, d, generator=g))
    layers = torch.stack(states)
    r = adjacent_similarity(layers, offsets, n_blocks=20)
    assert r["cka"] == pytest.approx([linear_cka(layers[i], layers[i + 1]) for i in (1, 2)])  # full sample: exact
    assert r["pair"] == 1 and r["gap"] == pytest.approx(r["cka"][0] - r["shuffled"][0])
    assert max(r["shuffled"]) < 0.1 and r["low"] > 0.5 and r["low"] < r["gap"] < r["high"]
    rule = BeatsBaseline("the same pair with its words shuffled")
    assert rule.verdict(None, (r["gap"], r["low"], r["high"])) is Verdict.REPRODUCED
    # a null model: layers that share nothing score what shuffled words score, and the rule does not pass it
    unrelated = adjacent_similarity(torch.randn(4, n_sent * per, d, generator=g), offsets, n_blocks=20)
    assert abs(unrelated["gap"]) < 0.02 and unrelated["low"] < 0.01
    assert rule.verdict(None, (unrelated["gap"], unrelated["low"], unrelated["high"])) is not Verdict.REPRODUCED
    with pytest.raises(ValueError, match="offsets over >= 2 sentences"):
        adjacent_similarity(layers, offsets[:-1])


def test_reconstruction_counts_per_sentence_sum_to_the_pooled_rates(tiny_bert_dir):
    from bertology_lib.analysis.reconstruction import reconstruction_counts

    m, tok = load_model(str(tiny_bert_dir), head="mlm"), load_tokenizer(str(tiny_bert_dir))
    texts = ["the chef tipped the waiter", "a robin is a bird", "the waiter"]
    r = reconstruction_counts(m, tok, texts, batch_size=2)  # two batches of different padding
    assert r.hits.shape == (3, 3) and list(r.tokens) == [5, 5, 2]
    df = reconstruction_by_layer(m, tok, texts)
    assert r.frame().reconstruction.tolist() == pytest.approx(df.reconstruction.tolist())
    assert (r.hits <= r.tokens[:, None]).all() and (r.agree[:, -1] == r.tokens).all()
    with pytest.raises(ValueError, match="texts is empty"):
        reconstruction_counts(m, tok, [])


def test_reconstruction_counts_match_the_head_over_every_position(tiny_bert_dir):
    """The head runs only at counted positions (no padding, no specials); the counts are those of the head run
    over every position and masked afterwards, as Kao et al. read it."""
    from bertology_lib.analysis.reconstruction import reconstruction_counts

    m, tok = load_model(str(tiny_bert_dir), head="mlm"), load_tokenizer(str(tiny_bert_dir))
    texts = ["the chef tipped the waiter", "a robin is a bird", "the waiter", "a bird"]
    r = reconstruction_counts(m, tok, texts, batch_size=3)
    enc = tok(texts, return_tensors="pt", padding=True)
    with torch.no_grad():
        hs = m(**enc, output_hidden_states=True).hidden_states
        preds = [m.cls(h).argmax(-1) for h in hs]
    keep = enc["attention_mask"].bool() & ~torch.isin(enc["input_ids"], torch.tensor(tok.all_special_ids))
    hits = torch.stack([((p == enc["input_ids"]) & keep).sum(1) for p in preds], 1)
    agree = torch.stack([((p == preds[-1]) & keep).sum(1) for p in preds], 1)
    assert (r.hits == hits.numpy()).all() and (r.agree == agree.numpy()).all()


def test_reconstruction_gap_against_a_null_model():
    import numpy as np

    from bertology_lib.analysis.reconstruction import Reconstruction, reconstruction_gap

    rng = np.random.default_rng(0)
    tokens = np.full(200, 10)
    good = Reconstruction(rng.binomial(10, [0.6, 0.9, 0.8], size=(200, 3)), np.zeros((200, 3)), tokens)
    null = Reconstruction(rng.binomial(10, [0.0, 0.01, 0.01], size=(200, 3)), np.zeros((200, 3)), tokens)
    g = reconstruction_gap(good, null)
    assert g["layer"] == 2 and g["low"] < g["gap"] < g["high"] and g["low"] > 0.7  # worst hidden layer, not 0
    same = reconstruction_gap(null, null)
    assert same["gap"] == 0 and same["low"] <= 0 <= same["high"]  # the null against itself: no gap
    with pytest.raises(ValueError, match="differ"):
        reconstruction_gap(good, Reconstruction(good.hits[:, :2], good.agree[:, :2], tokens))


def test_unigram_baseline_is_what_a_context_blind_mlm_scores(tiny_bert_dir):
    from bertology_lib.training.pretrain import unigram_accuracy

    tok = load_tokenizer(str(tiny_bert_dir))
    texts = ["the the the chef", "the robin the the"] * 20
    acc = unigram_accuracy(texts, tok, texts, seed=0)
    assert 0.5 <= acc <= 1.0  # 'the' is 3/4 of the words
    assert unigram_accuracy(["chef chef chef"], tok, texts, seed=0) < acc
    with pytest.raises(ValueError, match="non-empty"):
        unigram_accuracy([], tok, texts)
    with pytest.raises(ValueError, match="no token outside"):
        unigram_accuracy(["zzz qqq"], tok, texts)


def test_across_variants_one_row_per_model_against_its_own_twin(tiny_bert_dir):
    from bertology_lib.experiments.duplication import reconstruction as recon
    from bertology_lib.models.baselines import random_init_like

    m, tok = load_model(str(tiny_bert_dir), head="mlm"), load_tokenizer(str(tiny_bert_dir))
    texts = ["the chef tipped the waiter", "a robin is a bird", "the waiter tipped a chef"] * 4
    table = recon.across_variants({"tiny": (m, tok), "twin": (random_init_like(m), tok)}, texts, seed=0)
    assert list(table.index) == ["tiny", "twin"]
    assert {"gap", "low", "high", "layer", "mlm_accuracy", "unigram_accuracy"} <= set(table.columns)
    assert (table["low"] <= table["gap"]).all() and (table["gap"] <= table["high"]).all()
    from bertology_lib.training.pretrain import masked_accuracy

    assert table.loc["tiny", "mlm_accuracy"] == pytest.approx(masked_accuracy(m, tok, texts))
    assert (table["gap"].abs() < 0.3).all()  # tiny_bert_dir is untrained too: random vs random, no real gap
    with pytest.raises(ValueError, match="models is empty"):
        recon.across_variants({}, texts)
