import math

import numpy as np
import pytest
import torch

from bertology_lib.analysis.activations import run_with_cache
from bertology_lib.analysis import attention as att
from bertology_lib.analysis import attention_norms as norms
from bertology_lib.models.registry import load_model, load_tokenizer

TOKS = ["[CLS]", "the", "chef", "tipped", "the", "waiter", ".", "[SEP]"]


def _rows(T, cols):
    """(1, T, T) map whose row i puts all attention on column cols(i)."""
    a = torch.zeros(1, T, T)
    for i in range(T):
        a[0, i, cols(i)] = 1.0
    return a


def test_token_roles_and_punctuation():
    r = att.token_roles(TOKS)
    assert r["cls"].tolist() == [True] + [False] * 7
    assert r["sep"][-1] and r["special"].sum() == 2
    assert r["punct"].tolist() == [False] * 6 + [True, False]
    assert att.is_punctuation("##,") and not att.is_punctuation("##s") and not att.is_punctuation("[SEP]")


def test_head_stats_on_known_maps():
    T = len(TOKS)
    maps = torch.cat(
        [
            _rows(T, lambda i: 0),
            _rows(T, lambda i: i),
            _rows(T, lambda i: max(i - 1, 0)),
            torch.full((1, T, T), 1 / T),
            _rows(T, lambda i: 6),
        ]
    )  # (5 heads, T, T)
    df = att.head_stats([[maps]], [TOKS]).set_index("head")
    assert df.loc[0, "cls"] == pytest.approx(1.0)
    assert df.loc[1, "self"] == pytest.approx(1.0) and df.loc[1, "prev"] == pytest.approx(0.0)
    assert df.loc[2, "prev"] == pytest.approx(1.0)  # rows 1..T-1 attend to i-1
    assert df.loc[3, "entropy"] == pytest.approx(math.log(T)) == df.loc[3, "uniform_entropy"]
    assert df.loc[3, "sep"] == pytest.approx(1 / T)
    assert df.loc[4, "punct"] == pytest.approx(1.0) and df.loc[0, "entropy"] == pytest.approx(0.0, abs=1e-9)


def test_taxonomy_rules_on_synthetic_maps():
    # a pair: [CLS] w x8 [SEP] v x8 [SEP]
    toks = ["[CLS]", *["w"] * 8, "[SEP]", *["v"] * 8, "[SEP]"]
    seg = [0] * 10 + [1] * 9
    T = len(toks)
    vertical = _rows(T, lambda i: 0)
    diagonal = _rows(T, lambda i: i)
    mixed = 0.5 * vertical + 0.5 * diagonal
    block = torch.zeros(1, T, T)
    for i in range(T):
        cols = [j for j in range(T) if seg[j] == seg[i] and toks[j] not in ("[CLS]", "[SEP]")]
        block[0, i, cols] = 1 / len(cols)
    far = _rows(T, lambda i: 17 if i < 10 else 1)  # always into the *other* sentence, far away
    maps = torch.cat([vertical, diagonal, mixed, block, far])
    feats = att.map_features([[maps]], [toks], [seg])
    types = att.classify_maps(feats).type.astype(str).tolist()
    assert types == ["vertical", "diagonal", "vertical+diagonal", "block", "heterogeneous"]
    # single sentences have no segments: broad attention is heterogeneous, never block
    single = att.classify_maps(att.map_features([[block]], [toks]))
    assert single.own_segment.isna().all() and single.type.astype(str).tolist() == ["heterogeneous"]
    shares = att.type_shares(att.classify_maps(feats))
    assert shares.shape == (1, 5) and shares.sum(1).iloc[0] == pytest.approx(1.0)
    assert att.head_types(att.classify_maps(feats)).type.tolist()[:2] == ["vertical", "diagonal"]
    typical = att.typical_maps(att.classify_maps(feats))
    assert typical.type.astype(str).tolist() == list(att.PATTERN_TYPES) and typical["head"].tolist() == [0, 1, 2, 3, 4]


def _tree_patterns(heads_list, n_layers=2, n_heads=3, seed=0):
    """Random word-level maps in which layer 1, head 2 attends from each word to its gold head."""
    g = torch.Generator().manual_seed(seed)
    pats = [[] for _ in range(n_layers)]
    for hs in heads_list:
        n = len(hs)
        for L in range(n_layers):
            a = torch.rand(n_heads, n, n, generator=g)
            if L == 1:
                for i, h in enumerate(hs):
                    if h:
                        a[2, i, h - 1] = 10.0
            pats[L].append(a / a.sum(-1, keepdim=True))
    return pats


def test_syntactic_heads_find_the_planted_head_and_beat_the_offset_baseline():
    heads = [[2, 0, 2, 5, 3], [0, 1, 4, 1], [3, 3, 0, 3, 4, 5]] * 10
    rels = [
        ["det", "root", "obj", "det", "nmod"],
        ["root", "obj", "det", "obl"],
        ["det", "nsubj", "root", "obj", "nmod", "nmod"],
    ] * 10
    pats = _tree_patterns(heads)
    out = att.syntactic_heads(pats, heads, rels, select=range(15), evaluate=range(15, 30), min_arcs=5)
    row = out.set_index("relation").loc["all"]
    assert (row.layer, row["head"], row.direction) == (1, 2, "dependent->head")
    assert row.accuracy == 1.0 and row.baseline_accuracy < 1.0
    det = out.set_index("relation").loc["det"]
    assert det.baseline_offset == 1  # determiners precede their noun
    # independent count: share of det arcs whose head is the next word
    offs = [h - 1 - i for hs, rs in zip(heads[15:], rels[15:]) for i, (h, r) in enumerate(zip(hs, rs)) if r == "det"]
    assert det.baseline_accuracy == pytest.approx(np.mean([o == 1 for o in offs]))
    M = att.relation_head_matrix(pats, heads, rels, "all")
    assert M.shape == (2, 3) and M.loc[1, 2] == 1.0 and M.loc[0].max() < 1.0
    with pytest.raises(KeyError, match="nosuch"):
        att.relation_head_matrix(pats, heads, rels, "nosuch")


@pytest.fixture(scope="module")
def tiny(tiny_bert_dir):
    return load_model(str(tiny_bert_dir), head="mlm"), load_tokenizer(str(tiny_bert_dir))


SENTS = [["the", "chef", "tipped", "the", "waiter", "."], ["a", "robin", "is", "a", "bird"]]


def test_attention_maps_match_run_with_cache_and_take_pairs(tiny):
    model, tok = tiny
    calls = []
    hook = model.register_forward_hook(lambda *a: calls.append(1))
    maps = norms.attention_maps(model, tok, SENTS, batch_size=8)
    hook.remove()
    assert len(calls) == 1 == maps.n_forward_calls
    cache = run_with_cache(model, tok, SENTS, with_attention=True, keep_subword_attention=True)
    for L in range(maps.n_layers):
        for s in range(2):
            assert torch.allclose(maps.weights[L][s], cache.subword_patterns[L][s], atol=1e-6)
    assert maps.tokens == cache.tokens and maps.segments[0] == [0] * len(maps.tokens[0])
    pairs = norms.attention_maps(model, tok, SENTS[:1], [SENTS[1]])
    assert pairs.tokens[0].count("[SEP]") == 2 and set(pairs.segments[0]) == {0, 1}
    assert pairs.value_norms[0][0].shape == (model.config.num_attention_heads, len(pairs.tokens[0]))


def test_value_norms_parity_with_an_independent_computation(tiny):
    """‖f^h(x_j)‖ from the hooks equals (x W_V^h + b_V^h) W_O^h computed from the block's input and
    weights; Σ_h Σ_j α_ij f^h(x_j) + b_O reproduces the output projection's output."""
    model, tok = tiny
    maps = norms.attention_maps(model, tok, SENTS[:1])
    enc = tok(SENTS[0], is_split_into_words=True, return_tensors="pt")
    seen = {}
    block = model.bert.encoder.layer[1]
    h = block.attention.output.dense.register_forward_hook(lambda m, i, o: seen.__setitem__("dense", o.detach()))
    with torch.no_grad():
        hs = model(**enc, output_hidden_states=True).hidden_states
    h.remove()
    x = hs[1][0]  # input of block 1: (T, d)
    H = model.config.num_attention_heads
    dh = x.shape[-1] // H
    sa, Wo = block.attention.self, block.attention.output.dense
    total = Wo.bias.clone()
    for head in range(H):
        v = x @ sa.value.weight[head * dh : (head + 1) * dh].T + sa.value.bias[head * dh : (head + 1) * dh]
        f = v @ Wo.weight[:, head * dh : (head + 1) * dh].T  # (T, d)
        assert torch.allclose(maps.value_norms[1][0][head], f.norm(dim=-1), atol=1e-5)
        total = total + maps.weights[1][0][head] @ f
    assert torch.allclose(total, seen["dense"][0], atol=1e-5)


def test_norm_maps_and_special_focus(tiny):
    model, tok = tiny
    maps = norms.attention_maps(model, tok, SENTS)
    nm = norms.norm_maps(maps)
    assert torch.allclose(nm[0][1].sum(-1), torch.ones_like(nm[0][1][:, :, 0]), atol=1e-5)
    raw = norms.norm_maps(maps, normalize=False)
    assert torch.allclose(raw[1][0], maps.weights[1][0] * maps.value_norms[1][0][:, None, :])
    sf = norms.special_focus(maps)
    assert list(sf.columns) == ["layer", "weight_share", "norm_share", "disappears"] and len(sf) == 2
    assert ((sf.weight_share >= 0) & (sf.weight_share <= 1)).all()
    roles = norms.value_norms_by_role(maps)
    assert set(roles.token) == {"[CLS]", "[SEP]", "punctuation", "other"}
    with pytest.raises(ValueError, match="with_norms=False"):
        norms.norm_maps(norms.attention_maps(model, tok, SENTS, with_norms=False))


def test_bad_inputs_name_the_problem(tiny):
    model, tok = tiny
    with pytest.raises(ValueError, match="do not match|does not match"):
        att.head_stats([[torch.ones(1, 3, 3)]], [["[CLS]", "a"]])
    with pytest.raises(ValueError, match="text_pairs"):
        norms.attention_maps(model, tok, SENTS, [SENTS[0]])
    with pytest.raises(TypeError, match="BERT-family"):
        norms.attention_maps(torch.nn.Linear(2, 2), tok, SENTS)


# -- Clark et al. 2019 §6: heads that attend alike ---------------------------------------------------


def test_head_similarity_parity_with_scipy_jensen_shannon():
    """1 - JS / ln 2 per query row, averaged over rows, against scipy's Jensen-Shannon distance (base 2)."""
    from scipy.spatial.distance import jensenshannon

    g = torch.Generator().manual_seed(0)
    pats = [
        [torch.softmax(3 * torch.randn(3, 5, 5, generator=g), -1), torch.softmax(torch.randn(3, 4, 4, generator=g), -1)]
        for _ in range(2)
    ]  # 2 layers x 3 heads, 2 sentences of 5 and 4 tokens
    sim = att.head_similarity(pats)
    assert sim.shape == (2, 6, 6)
    for s in range(2):
        P = torch.cat([pats[L][s] for L in range(2)]).double().numpy()
        for i in range(6):
            for j in range(6):
                want = np.mean([1 - jensenshannon(P[i, t], P[j, t], base=2) ** 2 for t in range(P.shape[1])])
                assert sim[s, i, j] == pytest.approx(want, abs=1e-6)  # float32 rows sum to 1 within ~1e-7
    assert np.allclose(sim, sim.transpose(0, 2, 1)) and np.allclose(sim[:, range(6), range(6)], 1.0)


def test_heads_alike_within_their_layer_show_a_gap_and_null_heads_do_not():
    T = len(TOKS)
    prev, nxt, self_, cls = (
        _rows(T, lambda i: max(i - 1, 0)),
        _rows(T, lambda i: min(i + 1, T - 1)),
        _rows(T, lambda i: i),
        _rows(T, lambda i: 0),
    )
    # layer 0: two previous-token heads, layer 1: two next-token heads, layer 2: two [CLS] heads
    planted = [[torch.cat([prev, prev])], [torch.cat([nxt, nxt])], [torch.cat([cls, cls])]]
    sim = att.head_similarity(planted)
    gap = att.within_across_gap(sim, n_heads=2)
    assert gap.shape == (1,) and gap[0] > 0.5  # identical within a layer, mostly disjoint across layers
    table = att.layer_similarity(sim, n_heads=2)
    assert (
        table.shape == (3, 3)
        and np.allclose(np.diag(table), 1.0)
        and (table.to_numpy()[~np.eye(3, dtype=bool)] < 0.5).all()
    )
    # the same four kinds of head spread evenly over the layers: no layer structure, a gap below 0
    mixed = [[torch.cat([prev, nxt])], [torch.cat([self_, cls])], [torch.cat([prev, nxt])]]
    assert att.within_across_gap(att.head_similarity(mixed), n_heads=2)[0] < 0
    # null models: uniform heads are all alike, independent random heads alike at random: no gap either way
    uniform = [[torch.full((2, T, T), 1 / T)] for _ in range(3)]
    assert att.within_across_gap(att.head_similarity(uniform), 2) == pytest.approx([0.0], abs=1e-12)
    g = torch.Generator().manual_seed(1)
    noise = [[torch.softmax(2 * torch.randn(4, T, T, generator=g), -1) for _ in range(200)] for _ in range(3)]
    gaps = att.within_across_gap(att.head_similarity(noise), 4)
    assert abs(gaps.mean()) < 3 * gaps.std() / np.sqrt(len(gaps))  # a mean within 3 standard errors of 0


def test_head_similarity_rejects_what_it_cannot_compare():
    sim = att.head_similarity([[torch.full((2, 3, 3), 1 / 3)]])  # one layer of two heads
    with pytest.raises(ValueError, match="n_heads=2 for 2 heads"):
        att.within_across_gap(sim, 2)  # no pairs across layers
    with pytest.raises(ValueError, match="n_heads=1"):
        att.within_across_gap(np.ones((1, 4, 4)), 1)  # no pairs within a layer
    with pytest.raises(ValueError, match="shape"):
        att.layer_similarity(np.ones((4, 4)), 2)
    with pytest.raises(ValueError, match="empty"):
        att.head_similarity([])


def test_head_similarity_vs_twin_is_zero_for_the_twin_itself(tiny_bert_dir):
    """End to end on a tiny encoder; the twin measured against itself (a null run) gives exactly 0."""
    from bertology_lib.experiments.survey import model_size as cp
    from bertology_lib.models.sources import ModelSource

    r = cp.head_similarity_vs_twin(ModelSource(str(tiny_bert_dir)), SENTS * 2, seed=0)
    assert r.shape == (2, 2) and r.n_sentences == 4 and r.table.shape == (2, 2)
    assert 0.0 <= r.across_dissimilarity <= 1.0 and r.beyond_twin[1] <= r.beyond_twin[0] <= r.beyond_twin[2]
    null = cp.head_similarity_vs_twin(ModelSource("random-init:" + str(tiny_bert_dir)), SENTS * 2, seed=0)
    assert null.beyond_twin == (0.0, 0.0, 0.0)


def test_a_null_model_does_not_reproduce_heads_alike_within_a_layer():
    """What the twin and a model whose heads stayed near uniform measure: a difference from the twin of 0 (a
    null run) or of a few millionths with a narrow interval, and heads that hardly differ across layers."""
    from bertology_lib.book.claims import make_claim

    uniform = {"heads_differ": 4e-5}  # below the registered 0.05
    for ours in ((0.0, 0.0, 0.0), (3e-6, 2e-6, 4e-6), (-3e-6, -4e-6, -2e-6)):
        c = make_claim("size.heads_alike_within_layer", ours=ours, checks=uniform)
        assert c.verdict == "inconclusive" and c.instrument.startswith("failed: heads_differ")
    null_run = make_claim("size.heads_alike_within_layer", ours=(0.0, 0.0, 0.0), checks={"heads_differ": 0.3})
    assert null_run.verdict == "inconclusive" and null_run.instrument == "ok"
    found = make_claim("size.heads_alike_within_layer", ours=(0.05, 0.03, 0.07), checks={"heads_differ": 0.3})
    assert found.verdict == "reproduced"
