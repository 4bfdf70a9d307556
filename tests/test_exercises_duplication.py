"""Checked exercises of the duplication notebooks (Kao et al. 2020: ``duplication_01_reconstruction``,
``duplication_02_boost``, ``duplication_02b_nli_classification``, ``duplication_03_real_encoder``,
``duplication_04_english_bert``; checkers in the modules of the same names under ``bertology_lib.book.exercises``).

For every exercise the checker's truth agrees with an independent computation, the notebook's solution cell passes
its check, and typical wrong answers fail with their specific hint. The teacher solution of each exercise is read
from its notebook (``exercise_cells.solution``) and run here on the notebook's variables rebuilt small (a tiny
random BERT, smoke sizes; for SST-2, a toy classification task in its place).
"""

from __future__ import annotations

import copy
import math
from types import SimpleNamespace

import pandas as pd
import pytest
import torch

import exercise_cells as cells
from bertology_lib.book import exercises as ex
from bertology_lib.book.exercises import duplication_01_reconstruction as d1
from bertology_lib.book.exercises import duplication_02_boost as d2
from bertology_lib.book.exercises import duplication_02b_nli_classification as d2b
from bertology_lib.book.exercises import duplication_03_real_encoder as d3
from bertology_lib.book.exercises import duplication_04_english_bert as d4

torch.set_num_threads(1)

NOTEBOOKS = {
    "duplication_01_reconstruction": ("ex-dup1-reconstruction", "ex-dup1-cka"),
    "duplication_02_boost": ("ex-dup2-seeds-needed", "ex-dup2-duplicate"),
    "duplication_02b_nli_classification": ("ex-dup2-ensemble", "ex-dup2-floor-gap"),
    "duplication_03_real_encoder": ("ex-dup3-no-gain", "ex-dup3-detectable"),
    "duplication_04_english_bert": ("ex-dup4-added-params", "ex-dup4-needed-data"),
}
LABELS = [label for labels in NOTEBOOKS.values() for label in labels]


# -------------------------------------------------------------------------------- conventions


def test_every_exercise_has_a_checker_and_a_solution_cell_that_follows_the_conventions():
    cells.assert_conventions(LABELS, 10)


@pytest.mark.parametrize("label", LABELS)
def test_function_answers_need_a_function_and_survive_its_errors(label):
    cells.assert_function_answer_needed(label)


def test_checking_never_moves_the_global_random_state():
    state = torch.random.get_rng_state()
    for label in LABELS:
        ex.check(label, lambda *a: 0)
    ex.check("ex-dup2-duplicate", lambda m, k: d2.dup2_duplicate_truth(m, k))
    assert torch.equal(state, torch.random.get_rng_state())


@pytest.mark.parametrize("label", LABELS)
def test_null_answers_fail(label):
    for null in (lambda *a: None, lambda *a: 0, lambda *a: float("nan")):
        assert not ex.check(label, null).ok


# ================================================================================ duplication_01_reconstruction


def test_dup1_reconstruction_truth_counts_real_tokens_layer_by_layer():
    for mlm, tok, texts in d1.dup1_mlms():
        hits = torch.zeros(mlm.config.num_hidden_layers + 1)
        n = 0
        with torch.no_grad():
            for t in texts:  # one sentence at a time: no padding at all
                enc = tok(t, return_tensors="pt")
                ids = enc["input_ids"][0, 1:-1]  # without [CLS] and [SEP]
                hs = mlm(**enc, output_hidden_states=True).hidden_states
                hits += torch.tensor([float((mlm.cls(h)[0, 1:-1].argmax(-1) == ids).sum()) for h in hs])
                n += len(ids)
        assert (hits / n).tolist() == pytest.approx(d1.dup1_reconstruction_truth(mlm, tok, texts), abs=1e-6)
        rates = d1.dup1_reconstruction_truth(mlm, tok, texts)
        assert 0.3 < min(rates) and max(rates) - min(rates) > 0.05  # decodable, and the layers differ
        mistakes = d1._reconstruction_mistakes(mlm, tok, texts)
        assert all(max(abs(a - b) for a, b in zip(mistakes[key], rates)) > 0.01 for key in ("specials", "everything"))


def test_dup1_cka_truth_is_linear_cka():
    import numpy as np

    for x, y in d1._cka_cases():
        a, b = x.double().numpy(), y.double().numpy()
        a, b = a - a.mean(0), b - b.mean(0)
        ref = np.linalg.norm(b.T @ a) ** 2 / (np.linalg.norm(a.T @ a) * np.linalg.norm(b.T @ b))
        assert d1.dup1_cka_truth(x, y) == pytest.approx(ref, abs=1e-9)
    x, y = d1._cka_cases()[0]
    assert d1.dup1_cka_truth(x, y) == pytest.approx(1.0, abs=1e-9)  # a rotated, rescaled, shifted copy


def test_dup1_solutions_pass(toy_dir):
    from transformers import AutoModelForMaskedLM

    from bertology_lib.analysis.activations import run_with_cache
    from bertology_lib.analysis.reconstruction import reconstruction_by_layer
    from bertology_lib.analysis.similarity import cka_matrix
    from bertology_lib.models import minibert
    from bertology_lib.training import finetune as ft

    src = ft.as_source(toy_dir)
    tok = src.load_tokenizer()
    sentences = minibert.fresh_sentences(minibert.MiniBertConfig.for_profile("smoke"), 60)
    mlm = AutoModelForMaskedLM.from_pretrained(toy_dir).eval()
    acts = run_with_cache(src.load_model().eval(), tok, [s.words for s in sentences], batch_size=64)
    ns = {
        "mlm": mlm,
        "tok": tok,
        "texts": [s.text for s in sentences],
        "acts": acts,
        "cka": cka_matrix(acts.resid),
        "reconstruction_by_layer": reconstruction_by_layer,
    }
    cells.solve("ex-dup1-reconstruction", **ns)
    cells.solve("ex-dup1-cka", **ns)


def test_dup1_wrong_answers():
    def rates(keep_special=False, everything=False, final=False, skip0=False):
        @torch.no_grad()
        def f(mlm, tok, texts):
            enc = tok(texts, return_tensors="pt", padding=True)
            ids = enc["input_ids"]
            keep = enc["attention_mask"].bool()
            if everything:
                keep = torch.ones_like(keep)
            elif not keep_special:
                keep &= ~torch.isin(ids, torch.tensor(tok.all_special_ids))
            hs = mlm(**enc, output_hidden_states=True).hidden_states
            preds = [mlm.cls(h).argmax(-1) for h in hs]
            target = preds[-1] if final else ids
            out = [float(((p == target) & keep).sum() / keep.sum()) for p in preds]
            return out[1:] if skip0 else out

        return f

    assert ex.check("ex-dup1-reconstruction", rates()).ok
    cells.fails("ex-dup1-reconstruction", rates(keep_special=True), "special tokens")
    cells.fails("ex-dup1-reconstruction", rates(everything=True), "padding")
    cells.fails("ex-dup1-reconstruction", rates(final=True), "logit-lens")
    cells.fails("ex-dup1-reconstruction", rates(skip0=True), "layer 0")
    cells.fails("ex-dup1-reconstruction", lambda m, t, x: "high", "one number per layer")

    def cka(x, y, centre=True, frob=False, root=False):
        x, y = x.double(), y.double()
        if centre:
            x, y = x - x.mean(0), y - y.mean(0)
        if frob:
            return float((y.T @ x).norm() ** 2 / (x.norm() ** 2 * y.norm() ** 2))
        v = float((y.T @ x).norm() ** 2 / ((x.T @ x).norm() * (y.T @ y).norm()))
        return math.sqrt(v) if root else v

    cells.fails("ex-dup1-cka", lambda x, y: cka(x, y, centre=False), "centre")
    cells.fails("ex-dup1-cka", lambda x, y: cka(x, y, frob=True), "Gram")
    cells.fails("ex-dup1-cka", lambda x, y: cka(x, y, root=True), "squared")
    cells.fails("ex-dup1-cka", lambda x, y: 0.5, "rotated")


# ================================================================================ duplication_02_boost


def test_dup2_seeds_truth_is_where_the_lower_end_clears_zero():
    from scipy import stats as sst

    for sd, gain in d2.DUP2_SEEDS_CASES:
        n = d2.dup2_seeds_truth(sd, gain)
        low = [gain - sst.t.ppf(0.975, k - 1) * sd / math.sqrt(k) for k in (n - 1, n)]
        assert n >= 2 and low[1] > 0 and (n == 2 or low[0] <= 0)
    assert d2.dup2_seeds_truth(0.0, 0.01) == 2


def _forward_by_hand(model, pattern, ids):
    """The encoder's last hidden state with its blocks applied in ``pattern`` order (no padding, so no mask)."""
    with torch.no_grad():
        h = model.embeddings(input_ids=ids)
        for i in pattern:
            out = model.encoder.layer[i](h)
            h = out[0] if isinstance(out, tuple) else out
    return h


def test_dup2_duplicate_truth_repeats_the_first_blocks_in_place_with_their_own_parameters():
    ids = torch.arange(4, 18).view(2, 7)
    for (model, k), (n, _, k_case) in zip(d2.dup2_duplicate_cases(), d2.DUP2_DUPLICATE_CASES):
        assert k == k_case and len(model.encoder.layer) == n
        pattern = [i for i in range(n) for _ in range(2 if i < k else 1)]
        deeper = d2.dup2_duplicate_truth(model, k).eval()
        assert len(deeper.encoder.layer) == deeper.config.num_hidden_layers == n + k
        for blk, i in zip(deeper.encoder.layer, pattern):
            src = model.encoder.layer[i].state_dict()
            assert all(torch.equal(t, src[name]) for name, t in blk.state_dict().items())
        ptrs = [p.data_ptr() for _, p in deeper.named_parameters(remove_duplicate=False)]
        assert len(set(ptrs)) == len(ptrs) and not set(ptrs) & {p.data_ptr() for p in model.parameters()}
        with torch.no_grad():
            got = deeper(input_ids=ids).last_hidden_state
        assert torch.allclose(got, _forward_by_hand(model, pattern, ids), atol=1e-5)
    # the hidden blocks differ from one another, so a block's source can be told from its weights
    for model, _ in d2.dup2_duplicate_cases():
        states = [b.state_dict() for b in model.encoder.layer]
        assert all(not d2._same_state(a, b) for i, a in enumerate(states) for b in states[i + 1 :])


def test_dup2_duplicate_cases_tell_every_mistake_from_the_truth():
    for n, _, k in d2.DUP2_DUPLICATE_CASES:
        assert d2._duplicate_mistakes(n, k)  # a dict of patterns per mistake
    for key in ("appended", "one more", "one fewer", "last"):
        assert any(
            d2._duplicate_mistakes(n, k)[key] != [i for i in range(n) for _ in range(2 if i < k else 1)]
            for n, _, k in d2.DUP2_DUPLICATE_CASES
        ), key


def test_dup2_duplicate_solution_passes(toy_dir):
    from bertology_lib.experiments.duplication import boost as dup
    from bertology_lib.training import finetune as ft

    base = ft.as_source(toy_dir)
    sources = dup.variants(base, n_blocks=2, k=1, second="last")
    ns = {
        "base": base,
        "sources": sources,
        "sizes": SimpleNamespace(duplicate_k=1),
        "first": "first 1 duplicated",
        "n_blocks": 2,
    }
    out = cells.solve("ex-dup2-duplicate", **ns)
    assert "first 1 duplicated: 3 blocks instead of 2" in out


def _duplicate(model, k, mode=None):
    """A student's duplicate_first, right (mode None) or with one typical mistake."""
    deeper = model if mode == "in place" else copy.deepcopy(model)
    old = deeper.encoder.layer
    n = len(old)
    pattern = {
        "appended": list(range(n)) + list(range(k)),
        "one more": [i for i in range(n) for _ in range(2 if i <= k else 1)],
        "last": [i for i in range(n) for _ in range(2 if i >= n - k else 1)],
        "grouped": list(range(k)) * 2 + list(range(k, n)),
    }.get(mode, [i for i in range(n) for _ in range(2 if i < k else 1)])
    blocks = [old[i] if mode == "shared" else copy.deepcopy(old[i]) for i in pattern]
    deeper.encoder.layer = torch.nn.ModuleList(blocks)
    if mode != "no config":
        deeper.config.num_hidden_layers = len(pattern)
    if mode == "reinit":
        torch.nn.init.zeros_(deeper.encoder.layer[0].output.dense.weight)
    if mode == "shares the input":
        deeper.embeddings = model.embeddings
    return deeper


def test_dup2_duplicate_wrong_answers():
    assert ex.check("ex-dup2-duplicate", _duplicate).ok
    cells.fails("ex-dup2-duplicate", lambda m, k: _duplicate(m, k, "appended"), "right after their originals")
    cells.fails("ex-dup2-duplicate", lambda m, k: _duplicate(m, k, "one more"), "off by one")
    cells.fails("ex-dup2-duplicate", lambda m, k: _duplicate(m, k, "last"), "*first* k")
    cells.fails("ex-dup2-duplicate", lambda m, k: _duplicate(m, k, "grouped"), "right after their originals")
    cells.fails("ex-dup2-duplicate", lambda m, k: _duplicate(m, k, "shared"), "share their parameters")
    cells.fails(
        "ex-dup2-duplicate", lambda m, k: _duplicate(m, k, "shares the input"), "shares parameters with the input"
    )
    cells.fails("ex-dup2-duplicate", lambda m, k: _duplicate(m, k, "in place"), "changed the input model")
    cells.fails("ex-dup2-duplicate", lambda m, k: _duplicate(m, k, "no config"), "num_hidden_layers")
    cells.fails("ex-dup2-duplicate", lambda m, k: _duplicate(m, k, "reinit"), "not an exact copy")
    cells.fails("ex-dup2-duplicate", lambda m, k: m, "the input model itself")
    cells.fails("ex-dup2-duplicate", lambda m, k: list(copy.deepcopy(m).encoder.layer), "return the deeper model")

    def different_heads(m, k):  # the right blocks in a model that computes something else
        out = _duplicate(m, k)
        out.pooler = None
        out.embeddings.LayerNorm.eps = 10.0
        return out

    cells.fails("ex-dup2-duplicate", different_heads, "computes something else")

    def broken_forward(m, k):  # the right blocks, but the model cannot run
        out = _duplicate(m, k)
        out.embeddings.forward = None
        return out

    cells.fails("ex-dup2-duplicate", broken_forward, "running the deeper model raised TypeError")


# ================================================================================ duplication_02b_nli_classification


def test_dup2_ensemble_truth_sums_probabilities():
    for members, golds in d2b._ensemble_cases():
        total = sum(m.double() for m in members)
        assert d2b.dup2_ensemble_truth(members, golds) == pytest.approx(
            float((total.argmax(-1) == torch.tensor(golds)).double().mean())
        )
    members, golds = d2b._ensemble_cases()[-1]  # one confident member outweighs two hesitant ones
    assert d2b.dup2_ensemble_truth(members, golds) != d2b._ensemble_mistakes(members, golds)["vote"]


def test_dup2_floor_gap_truth_is_the_t_interval_above_the_training_majority():
    import numpy as np
    from scipy import stats as sst

    for scores, train, test, n_labels in d2b._floor_cases():
        majority = int(np.bincount(train, minlength=n_labels).argmax())  # the first (smallest) of the most frequent
        floor = float(np.mean(np.array(test) == majority))
        gaps = np.array(scores) - floor
        ci = sst.ttest_1samp(gaps, 0.0).confidence_interval(0.95)
        assert d2b.dup2_floor_gap_truth(scores, train, test, n_labels) == pytest.approx(
            (gaps.mean(), ci.low, ci.high), abs=1e-12
        )
    truth = [d2b.dup2_floor_gap_truth(*c) for c in d2b._floor_cases()]
    for key in d2b._FLOOR_HINTS:  # the cases tell every typical mistake from the truth
        assert any(
            m[key] != pytest.approx(t, abs=1e-6)
            for m, t in zip((d2b._floor_mistakes(*c) for c in d2b._floor_cases()), truth)
        ), key


def test_dup2_floor_gap_solution_passes(toy_dir, tmp_cache):
    from bertology_lib.data import tasks
    from bertology_lib.experiments.duplication import boost as dup
    from bertology_lib.training import finetune as ft

    cfg = ft.FinetuneConfig.for_profile("smoke", max_steps=3)
    toy = {
        "toy NLI": tasks.toy_nli(n_train=16, n_dev=8, n_test=16),
        "toy classification": tasks.toy_classification(n_train=16, n_dev=8, n_test=16),
    }
    toy_results = {name: dup.run(task, {"baseline": ft.as_source(toy_dir)}, [0, 1], cfg) for name, task in toy.items()}
    out = cells.solve("ex-dup2-floor-gap", toy=toy, toy_results=toy_results, dup=dup, tasks=tasks)
    assert "toy NLI: baseline - always" in out and "toy classification: baseline - always" in out


def _floor_gap(scores, train, test, q=None, majority_of=None, floor=None):
    """A student's floor_gap: right by default, or with the floor, the majority or the quantile given."""
    from collections import Counter

    from scipy import stats as sst

    counts = Counter(train if majority_of is None else majority_of)
    top = min(counts, key=lambda c: (-counts[c], c))
    floor = sum(y == top for y in test) / len(test) if floor is None else floor
    d = [s - floor for s in scores]
    n, m = len(d), sum(d) / len(d)
    half = (sst.t.ppf(0.975, n - 1) if q is None else q) * math.sqrt(sum((x - m) ** 2 for x in d) / (n - 1))
    return m, m - half / math.sqrt(n), m + half / math.sqrt(n)


def test_dup2_floor_gap_wrong_answers():
    from collections import Counter

    def first_met(s, tr, te):  # Counter.most_common breaks a tie by the order it met the labels
        top = Counter(tr).most_common(1)[0][0]
        return _floor_gap(s, tr, te, floor=sum(y == top for y in te) / len(te))

    def share(s, tr, te):  # the majority label's share of the training set
        return _floor_gap(s, tr, te, floor=max(Counter(tr).values()) / len(tr))

    def ddof0(s, tr, te):
        m, lo, hi = _floor_gap(s, tr, te)
        shrink = math.sqrt((len(s) - 1) / len(s))
        return m, m - (m - lo) * shrink, m + (hi - m) * shrink

    def wide(s, tr, te):
        m, lo, hi = _floor_gap(s, tr, te)
        return m, lo - 0.01, hi + 0.01

    def reversed_gap(s, tr, te):  # floor - score
        m, lo, hi = _floor_gap(s, tr, te)
        return -m, -hi, -lo

    assert ex.check("ex-dup2-floor-gap", _floor_gap).ok
    cells.fails("ex-dup2-floor-gap", lambda s, tr, te: _floor_gap(s, tr, te, majority_of=te), "*training* label")
    cells.fails("ex-dup2-floor-gap", lambda s, tr, te: _floor_gap(s, tr, te, q=1.959964), "Student's t")
    cells.fails("ex-dup2-floor-gap", first_met, "smallest label")
    cells.fails("ex-dup2-floor-gap", lambda s, tr, te: _floor_gap(s, tr, te, floor=1 / len(set(tr))), "not chance")
    cells.fails("ex-dup2-floor-gap", share, "share of the training set")
    cells.fails("ex-dup2-floor-gap", reversed_gap, "minus the floor")
    cells.fails("ex-dup2-floor-gap", lambda s, tr, te: tuple(100 * x for x in _floor_gap(s, tr, te)), "not in points")
    cells.fails("ex-dup2-floor-gap", ddof0, "n - 1")
    cells.fails("ex-dup2-floor-gap", wide, "mean gap is right")
    cells.fails("ex-dup2-floor-gap", lambda s, tr, te: 0.1, "three numbers")
    cells.fails("ex-dup2-floor-gap", lambda s, tr, te: (0.1, 0.0, 0.2), "not yet")


# ================================================================================ duplication_02 and _02b: first solutions


def test_dup2_solutions_pass(toy_dir, tmp_cache):
    from bertology_lib import stats
    from bertology_lib.data import tasks
    from bertology_lib.experiments.duplication import boost as dup
    from bertology_lib.training import finetune as ft

    base = ft.as_source(toy_dir)
    sources = dup.variants(base, n_blocks=2, k=1, second="last")
    cfg = ft.FinetuneConfig.for_profile("smoke", max_steps=3)
    toy = {
        "toy QA (SQuAD 2.0 style)": tasks.toy_qa(n_train=16, n_dev=8, n_test=8),
        "toy classification": tasks.toy_classification(n_train=16, n_dev=8, n_test=16),
    }
    toy_results = {name: dup.run(task, sources, [0, 1], cfg) for name, task in toy.items()}
    members = [v for v in sources if v != "baseline"]
    ens = pd.concat(
        [dup.fair_ensembles(r, members).assign(task=name) for name, r in toy_results.items()], ignore_index=True
    )
    ns = {
        "toy_results": toy_results,
        "first": "first 1 duplicated",
        "members": members,
        "ens": ens,
        "pd": pd,
        "stats": stats,
    }
    cells.solve("ex-dup2-seeds-needed", **ns)
    cells.solve("ex-dup2-ensemble", **ns)


def test_dup2_wrong_answers():
    from scipy import stats as sst

    def first(ok):
        n = 2
        while not ok(n):
            n += 1
        return n

    assert ex.check(
        "ex-dup2-seeds-needed", lambda sd, g: first(lambda n: g - sst.t.ppf(0.975, n - 1) * sd / math.sqrt(n) > 0)
    ).ok
    cells.fails("ex-dup2-seeds-needed", lambda sd, g: first(lambda n: g - 1.959964 * sd / math.sqrt(n) > 0), "1.96")
    cells.fails(
        "ex-dup2-seeds-needed",
        lambda sd, g: first(lambda n: g - 2 * sst.t.ppf(0.975, n - 1) * sd / math.sqrt(n) > 0),
        "lower end",
    )
    cells.fails(
        "ex-dup2-seeds-needed",
        lambda sd, g: first(lambda n: g - sst.t.ppf(0.975, n) * sd / math.sqrt(n) > 0),
        "n - 1 degrees",
    )
    cells.fails("ex-dup2-seeds-needed", lambda sd, g: 1, "at least 2")
    cells.fails("ex-dup2-seeds-needed", lambda sd, g: 1000, "too many")

    def accs(members, golds):
        g = torch.as_tensor(golds)
        return [float((torch.as_tensor(m).argmax(-1) == g).double().mean()) for m in members]

    def vote(members, golds):
        p = torch.stack([torch.as_tensor(m) for m in members])
        v = torch.nn.functional.one_hot(p.argmax(-1), p.shape[-1]).sum(0)
        return float((v.argmax(-1) == torch.as_tensor(golds)).double().mean())

    cells.fails("ex-dup2-ensemble", vote, "majority vote")
    cells.fails("ex-dup2-ensemble", lambda m, g: sum(accs(m, g)) / len(m), "mean accuracy")
    cells.fails("ex-dup2-ensemble", lambda m, g: max(accs(m, g)), "best member")
    cells.fails(
        "ex-dup2-ensemble",
        lambda m, g: float((sum(torch.as_tensor(x).log() for x in m).argmax(-1) == torch.as_tensor(g)).double().mean()),
        "log-probabilities",
    )
    cells.fails("ex-dup2-ensemble", lambda m, g: 100.0, "share")


# ================================================================================ duplication_03_real_encoder


def test_dup3_no_gain_truth_is_the_equivalence_rule_on_the_t_interval():
    import numpy as np
    from scipy import stats as sst

    seen = set()
    for gains, margin in d3.DUP3_NO_GAIN_CASES:
        ci = sst.ttest_1samp(np.array(gains), 0.0).confidence_interval(0.95)
        inside = -margin <= ci.low and ci.high <= margin
        beyond = ci.low > margin or ci.high < -margin
        want = "reproduced" if inside else "not reproduced" if beyond else "inconclusive"
        assert d3.dup3_no_gain_truth(gains, margin) == want
        seen.add(want)
    assert seen == {"reproduced", "not reproduced", "inconclusive"}
    truth = [d3.dup3_no_gain_truth(*c) for c in d3.DUP3_NO_GAIN_CASES]
    for key in d3._NO_GAIN_HINTS:  # the cases tell every typical mistake from the truth
        assert [d3._no_gain_mistakes(*c)[key] for c in d3.DUP3_NO_GAIN_CASES] != truth, key


def _result(seed: int, accuracy: float):
    """A fine-tuning result carrying only its test accuracy (what the SST-2 cells read)."""
    from bertology_lib.training import finetune as ft

    return ft.FinetuneResult(
        task="sst2",
        model="m",
        seed=seed,
        config={},
        metrics={"test": {"accuracy": accuracy}},
        predictions={"test": SimpleNamespace(kind="classification")},
        train={},
    )


def _sst2_names(sst2_results, sst2, seeds, claim_id: str = "dup.no_gain_sst2") -> dict:
    """The notebook's SST-2 variables from its results, built as its cells build them (``claim_id``: the claim
    the notebook records, MiniLM's or the English lab BERT's)."""
    from bertology_lib.book.claims import make_claim, spec
    from bertology_lib.data import tasks
    from bertology_lib.experiments.duplication import boost as dup

    first = "first 1 duplicated"
    row = dup.table(sst2_results).set_index("variant").loc[first]
    checks = {
        "baseline_beats_floor": (dup.floor_gap(sst2_results, sst2), tasks.floor_scores(sst2)["name"]),
        "three_seeds": len(seeds),
    }
    claim = make_claim(claim_id, ours=[100 * float(row[k]) for k in ("gain", "ci_low", "ci_high")], checks=checks)
    power = pd.DataFrame([{"comparison": claim_id, **dup.detectable_gain(sst2_results, first)}])
    power = power.set_index("comparison")
    power[["sd_gain", "detectable"]] *= 100
    return {
        "sst2_results": sst2_results,
        "first": first,
        "row": row,
        "claim_sst2": claim,
        "power": power,
        "spec": spec,
        "pd": pd,
    }


def test_dup3_detectable_truth_is_the_t_formula_and_has_about_80_percent_power():
    import numpy as np
    from scipy import stats as sst

    for sd, n in d3.DUP3_DETECTABLE_CASES:
        t = sst.t.ppf(0.975, n - 1) + sst.t.ppf(0.8, n - 1)
        assert d3.dup3_detectable_truth(sd, n) == pytest.approx(t * sd / math.sqrt(n), rel=1e-12)
    for n in (5, 10, 30):  # the exact power of the paired t test at that true gain (noncentral t)
        crit = sst.t.ppf(0.975, n - 1)
        delta = d3.dup3_detectable_truth(1.0, n) / (1.0 / np.sqrt(n))
        power = sst.nct.sf(crit, n - 1, delta) + sst.nct.cdf(-crit, n - 1, delta)
        assert 0.78 < power < 0.83, (n, power)


def test_dup3_solutions_pass(toy_dir, tmp_cache):
    from bertology_lib.data import tasks
    from bertology_lib.experiments.duplication import boost as dup
    from bertology_lib.interventions.duplication import duplicated, duplication_pattern
    from bertology_lib.training import finetune as ft

    # a real sweep on the tiny BERT, a toy classification task in SST-2's place
    task = tasks.toy_classification(n_train=16, n_dev=8, n_test=32)
    base = ft.as_source(toy_dir)
    sources = {"baseline": base, "first 1 duplicated": duplicated(base, duplication_pattern(2, "first", k=1))}
    seeds = [0, 1, 2]
    results = dup.run(task, sources, seeds, ft.FinetuneConfig.for_profile("smoke", max_steps=3, eval_splits=("test",)))
    names = _sst2_names(results, task, seeds)
    cells.solve("ex-dup3-no-gain", **names)
    cells.solve("ex-dup3-detectable", **names)
    # results with a known spread: the verdict and the detectable gain are the library's, printed
    verdicts = set()
    for accs in (
        (0.80, 0.802, 0.799, 0.801, 0.80),
        (0.80, 0.84, 0.76, 0.83, 0.78),
        (0.83, 0.835, 0.825, 0.84, 0.83),
    ):  # reproduced, inconclusive, not reproduced
        fake = {
            "baseline": [_result(s, 0.8) for s in range(5)],
            "first 1 duplicated": [_result(s, a) for s, a in enumerate(accs)],
        }
        names = _sst2_names(fake, task, list(range(5)))
        out = cells.solve("ex-dup3-no-gain", **names)
        assert f"{names['claim_sst2'].verdict} against ±1.0" in out  # the instrument is judged on the toy task
        verdicts.add(names["claim_sst2"].verdict)
        out = cells.solve("ex-dup3-detectable", **names)
        assert f"a true gain of {float(names['power'].detectable.iloc[0]):.2f} points" in out
    assert verdicts == {"reproduced", "inconclusive", "not reproduced"}


def test_dup3_no_gain_wrong_answers():
    import numpy as np
    from scipy import stats as sst

    def interval(g, q=None):
        n, m = len(g), float(np.mean(g))
        half = (sst.t.ppf(0.975, n - 1) if q is None else q) * float(np.std(g, ddof=1)) / math.sqrt(n)
        return m - half, m + half

    def rule(g, margin, q=None):
        lo, hi = interval(g, q)
        if -margin <= lo and hi <= margin:
            return "reproduced"
        return "not reproduced" if lo > margin or hi < -margin else "inconclusive"

    assert ex.check("ex-dup3-no-gain", rule).ok
    assert ex.check("ex-dup3-no-gain", lambda g, m: rule(g, m).upper()).ok  # the wording, not its case

    def from_library(g, margin):
        from bertology_lib import stats
        from bertology_lib.book.claims.rules import Equivalent

        return Equivalent(margin).verdict(None, stats.paired_test(g, [0.0] * len(g)).interval())

    assert ex.check("ex-dup3-no-gain", from_library).ok  # a Verdict is a str enum
    cells.fails(
        "ex-dup3-no-gain",
        lambda g, m: "reproduced" if abs(np.mean(g)) <= m else "not reproduced",
        "mean gain within the margin",
    )
    cells.fails(
        "ex-dup3-no-gain",
        lambda g, m: "reproduced" if interval(g)[0] <= 0 <= interval(g)[1] else "not reproduced",
        "'not significant' is not 'no effect'",
    )
    cells.fails(
        "ex-dup3-no-gain",
        lambda g, m: "reproduced" if -m <= interval(g)[0] and interval(g)[1] <= m else "not reproduced",
        "whole interval lies beyond the margin",
    )

    def above_zero(g, m):
        lo, hi = interval(g)
        return "not reproduced" if lo > 0 else "reproduced" if hi < 0 else "inconclusive"

    cells.fails("ex-dup3-no-gain", above_zero, "claim of *no* gain")

    def one_side(g, m):
        lo, hi = interval(g)
        return "reproduced" if -m <= lo and hi <= m else "not reproduced" if lo > m else "inconclusive"

    cells.fails("ex-dup3-no-gain", one_side, "below -margin")
    cells.fails("ex-dup3-no-gain", lambda g, m: rule(g, m, q=1.959964), "Student's t")
    cells.fails("ex-dup3-no-gain", lambda g, m: rule(g, 1.0), "not yet")  # the margin ignored
    cells.fails("ex-dup3-no-gain", lambda g, m: "no gain", "return one of")
    cells.fails("ex-dup3-no-gain", lambda g, m: True, "return one of")


def test_dup3_detectable_wrong_answers():
    from scipy import stats as sst

    def det(sd, n, alpha_q=0.975, power_q=0.8, df=None, root=True):
        k = n - 1 if df is None else df
        return (sst.t.ppf(alpha_q, k) + sst.t.ppf(power_q, k)) * sd / (math.sqrt(n) if root else 1)

    assert ex.check("ex-dup3-detectable", det).ok
    cells.fails("ex-dup3-detectable", lambda sd, n: (1.959964 + 0.841621) * sd / math.sqrt(n), "large-n")
    cells.fails("ex-dup3-detectable", lambda sd, n: det(sd, n, alpha_q=0.95), "two-sided")
    cells.fails("ex-dup3-detectable", lambda sd, n: sst.t.ppf(0.975, n - 1) * sd / math.sqrt(n), "half of the time")
    cells.fails("ex-dup3-detectable", lambda sd, n: det(sd, n, power_q=0.2), "power quantile adds")
    cells.fails("ex-dup3-detectable", lambda sd, n: det(sd, n, df=n), "n - 1 degrees")
    cells.fails("ex-dup3-detectable", lambda sd, n: det(sd, n, root=False), "sqrt(n)")
    cells.fails("ex-dup3-detectable", lambda sd, n: det(sd, n, root=False) / n, "not sd_diff / n")
    cells.fails("ex-dup3-detectable", lambda sd, n: 1.1 * det(sd, n), "too large")
    cells.fails("ex-dup3-detectable", lambda sd, n: "big", "a number")


# ================================================================================ duplication_04_english_bert


def _block_by_formula(config) -> int:
    """One BERT encoder block counted by hand: Q, K, V and the attention output (weights, biases), the attention
    LayerNorm, the feed-forward d -> f -> d (weights, biases), the output LayerNorm."""
    d, f = config.hidden_size, config.intermediate_size
    return 4 * (d * d + d) + 2 * d + (d * f + f) + (f * d + d) + 2 * d


def _n_params(model) -> int:
    return sum(p.numel() for p in model.parameters())


def test_dup4_block_truth_is_what_each_duplicated_block_adds():
    from transformers import BertModel

    from bertology_lib.interventions.duplication import duplicate_layers, duplication_pattern

    assert any(f != 4 * d for d, f, *_ in d4.DUP4_BLOCK_CASES)  # a formula assuming f = 4d fails
    for case in d4.DUP4_BLOCK_CASES:
        d, f, heads, vocab, n = case
        config = d4._bert_config(*case)
        truth = d4.dup4_block_truth(*case)
        assert truth == _block_by_formula(config) == 4 * d * d + 2 * d * f + 9 * d + f
        with torch.random.fork_rng(devices=[]):
            model = BertModel(config)
        assert all(_n_params(b) == truth for b in model.encoder.layer)
        for k in range(n + 1):  # the library's duplicated copy adds exactly k blocks' parameters, no more
            deeper = duplicate_layers(model, duplication_pattern(n, "first", k=k))
            assert _n_params(deeper) - _n_params(model) == k * truth, (case, k)
    truth = [d4.dup4_block_truth(*c) for c in d4.DUP4_BLOCK_CASES]
    for key in d4._BLOCK_HINTS:  # the cases tell every typical mistake from the truth
        assert [d4._block_mistakes(*c)[key] for c in d4.DUP4_BLOCK_CASES] != truth, key


def test_dup4_block_formula_holds_for_the_lab_encoders_architecture():
    """MiniLM's encoder is the English lab BERT's (6 blocks, d 384, f 1536): duplicating its first 2 blocks adds
    2 blocks' worth, about 16% of its parameters."""
    from bertology_lib.interventions.duplication import duplicate_layers, duplication_pattern

    encoder, _ = cells.minilm()
    block = _block_by_formula(encoder.config)
    assert all(_n_params(b) == block for b in encoder.encoder.layer)
    deeper = duplicate_layers(encoder, duplication_pattern(len(encoder.encoder.layer), "first", k=2))
    assert _n_params(deeper) - _n_params(encoder) == 2 * block
    assert 0.1 < 2 * block / _n_params(encoder) < 0.2


def _dup4_claim(estimate, low, high, margin, paper):
    """A recorded claim of no effect with this interval and paper value, and its rule ``Equivalent(margin)``."""
    from bertology_lib.book.claims.record import Claim
    from bertology_lib.book.claims.rules import Equivalent

    rule = Equivalent(margin)
    ours = [estimate, low, high]
    claim = Claim(
        "x", "a hidden claim of no effect", "hidden", paper, ours, rule.describe(), rule.verdict(paper, ours).value
    )
    return claim, rule


def test_dup4_needed_truth_is_the_findings_scale():
    """The checker's own formula is what the findings compute (``conclusions.needed_scale`` of ``mde`` over
    ``paper_margin``), on every hidden case."""
    from bertology_lib.book import conclusions

    for c in d4.DUP4_NEEDED_CASES:
        claim, rule = _dup4_claim(*c)
        want = conclusions.needed_scale(conclusions.mde(claim, rule), conclusions.paper_margin(claim, rule))
        assert d4.dup4_needed_truth(*c) == pytest.approx(want, rel=1e-12)


def test_dup4_needed_truth_is_the_findings_scale_computed_by_hand():
    from scipy import stats as sst

    from bertology_lib.book import conclusions

    factor = (sst.norm.ppf(0.975) + sst.norm.ppf(0.8)) / sst.norm.ppf(0.975)
    leans = set()
    for est, low, high, margin, paper in d4.DUP4_NEEDED_CASES:
        claim, rule = _dup4_claim(est, low, high, margin, paper)
        assert claim.verdict == "inconclusive"  # every hidden interval contains a bar
        bar, lean, _ = conclusions.power_numbers(claim, rule)
        leans.add(lean)
        inside = [b for b in (-margin, margin) if low <= b <= high]
        assert bar == min(inside, key=lambda b: abs(est - b))
        half = {"above": est - low, "below": high - est, "on": (high - low) / 2}[lean]
        want = max(1.0, (factor * half / (margin - abs(paper))) ** 2)
        assert d4.dup4_needed_truth(est, low, high, margin, paper) == pytest.approx(want, rel=1e-9)
    assert leans == {"above", "below", "on"}
    shapes = [
        (sum(low <= b <= high for b in (-m, m)), high - e != e - low) for e, low, high, m, _ in d4.DUP4_NEEDED_CASES
    ]
    assert (2, True) in shapes and all(asym for _, asym in shapes)  # both bars inside once; asymmetric intervals
    assert any(d4.dup4_needed_truth(*c) == 1.0 for c in d4.DUP4_NEEDED_CASES)  # the floor at 1 matters once
    truth = [d4.dup4_needed_truth(*c) for c in d4.DUP4_NEEDED_CASES]
    for key in d4._NEEDED_HINTS:  # the cases tell every typical mistake from the truth
        assert any(
            d4._needed_mistakes(*c)[key] != pytest.approx(t, rel=1e-6) for c, t in zip(d4.DUP4_NEEDED_CASES, truth)
        ), key


def _dup4_names(toy_dir, results, task, seeds) -> dict:
    """The English BERT notebook's variables, rebuilt small: the tiny BERT in the English lab BERT's place, a toy
    classification task in SST-2's, and its claim ``dup.english_no_gain_sst2`` recorded from ``results``."""
    from bertology_lib.book.claims import spec
    from bertology_lib.experiments.duplication import boost as dup
    from bertology_lib.interventions import hooks as iv
    from bertology_lib.interventions.duplication import duplicated, duplication_pattern
    from bertology_lib.training import finetune as ft

    sizes = dup.BoostSizes.for_profile("smoke")
    base = ft.as_source(toy_dir)
    n_blocks = len(iv.blocks(base.load_model()))
    first = f"first {sizes.duplicate_k} duplicated"
    names = _sst2_names(results, task, seeds, claim_id="dup.english_no_gain_sst2")
    return {
        **names,
        "params": SimpleNamespace(model="toy BERT", profile="smoke", seed=0),
        "sizes": sizes,
        "seeds": seeds,
        "sst2": task,
        "real_base": base,
        "real_blocks": n_blocks,
        "real_sources": {"baseline": base, first: duplicated(base, duplication_pattern(n_blocks, "first", k=1))},
        "first": first,
        "spec": spec,
    }


def test_dup4_solutions_pass(toy_dir, tmp_cache):
    from bertology_lib.book import conclusions
    from bertology_lib.data import tasks
    from bertology_lib.experiments.duplication import boost as dup
    from bertology_lib.interventions.duplication import duplicated, duplication_pattern
    from bertology_lib.training import finetune as ft

    # a real sweep on the tiny BERT, a toy classification task in SST-2's place
    task = tasks.toy_classification(n_train=16, n_dev=8, n_test=32)
    base = ft.as_source(toy_dir)
    sources = {"baseline": base, "first 1 duplicated": duplicated(base, duplication_pattern(2, "first", k=1))}
    seeds = [0, 1, 2]
    results = dup.run(task, sources, seeds, ft.FinetuneConfig.for_profile("smoke", max_steps=3, eval_splits=("test",)))
    names = _dup4_names(toy_dir, results, task, seeds)
    assert names["sizes"].duplicate_k == 1 and names["first"] == "first 1 duplicated"
    out = cells.solve("ex-dup4-added-params", **names)
    block = 4 * 32 * 32 + 2 * 32 * 64 + 9 * 32 + 64  # the toy BERT: d 32, f 64, 2 blocks
    assert f"one block of toy BERT: {block:,} parameters; first 1 duplicated adds {block:,}" in out
    assert f"50.0% of its 2 blocks' {2 * block:,}" in out
    cells.solve("ex-dup4-needed-data", **names)
    # results with a known spread: the scale printed is the findings' (1 where the interval settles the rule)
    verdicts = set()
    for accs in (
        (0.80, 0.802, 0.799, 0.801, 0.80),
        (0.80, 0.84, 0.76, 0.83, 0.78),
        (0.83, 0.835, 0.825, 0.84, 0.83),
    ):  # reproduced, inconclusive, not reproduced
        fake = {
            "baseline": [_result(s, 0.8) for s in range(5)],
            "first 1 duplicated": [_result(s, a) for s, a in enumerate(accs)],
        }
        names = _dup4_names(toy_dir, fake, task, list(range(5)))
        claim = names["claim_sst2"]
        verdicts.add(claim.verdict)
        rule = names["spec"]("dup.english_no_gain_sst2").rule
        m = conclusions.mde(claim, rule)
        want = 1.0 if m is None else conclusions.needed_scale(m, conclusions.paper_margin(claim, rule))
        assert (m is None) == (claim.verdict != "inconclusive")
        out = cells.solve("ex-dup4-needed-data", **names)
        assert f"±1.0: {want:.1f}x the data for 80% power at the paper's value (as the findings count it)" in out
        assert f"about {math.ceil(want * 5)} seeds instead of 5 at 32 test sentences" in out
    assert verdicts == {"reproduced", "inconclusive", "not reproduced"}


def _block(config, biases=True, norms=2, f=None, extra=0):
    """A student's block_parameters: right by default, or with one typical mistake."""
    d = config.hidden_size
    f = config.intermediate_size if f is None else f(d)
    return 4 * d * d + 2 * d * f + ((5 * d + f) if biases else 0) + norms * 2 * d + extra


def test_dup4_added_params_wrong_answers():
    from transformers import BertModel

    assert ex.check("ex-dup4-added-params", _block).ok
    assert ex.check("ex-dup4-added-params", lambda c: float(_block(c))).ok
    with torch.random.fork_rng(devices=[]):
        assert ex.check("ex-dup4-added-params", lambda c: _n_params(BertModel(c).encoder.layer[0])).ok

    def embeddings(c):
        return (c.vocab_size + c.max_position_embeddings + c.type_vocab_size) * c.hidden_size + 2 * c.hidden_size

    def whole_model(c):
        with torch.random.fork_rng(devices=[]):
            return _n_params(BertModel(c)) / c.num_hidden_layers

    cells.fails(
        "ex-dup4-added-params", lambda c: 4 * c.hidden_size**2 + 2 * c.hidden_size * c.intermediate_size, "bias"
    )
    cells.fails("ex-dup4-added-params", lambda c: _block(c, biases=False), "bias vector")
    cells.fails("ex-dup4-added-params", lambda c: _block(c, norms=0), "two LayerNorms")
    cells.fails("ex-dup4-added-params", lambda c: _block(c, norms=1), "two LayerNorms")
    cells.fails("ex-dup4-added-params", lambda c: _block(c, f=lambda d: 4 * d), "config.intermediate_size")
    cells.fails("ex-dup4-added-params", lambda c: _block(c, extra=embeddings(c)), "embeddings belong")
    cells.fails("ex-dup4-added-params", whole_model, "shared out over its blocks")
    cells.fails("ex-dup4-added-params", lambda c: _block(c) + c.hidden_size**2 + c.hidden_size, "too large")  # pooler
    cells.fails("ex-dup4-added-params", lambda c: _block(c) - 0.5, "whole number")
    cells.fails("ex-dup4-added-params", lambda c: "many", "a number of parameters")

    def changes_the_config(c):  # a fresh config per case: nothing one call does reaches the next
        n = _block(c)
        c.hidden_size = 1
        return n

    assert ex.check("ex-dup4-added-params", changes_the_config).ok


def _needed(est, low, high, margin, paper, half=None, factor=True, power=2, d=None, floor=1.0, on_bar=True):
    """A student's needed_data: right by default, or with one typical mistake."""
    from scipy import stats as sst

    bar = min((b for b in (-margin, margin) if low <= b <= high), key=lambda b: abs(est - b))
    near = est - low if est > bar else high - est
    if half == "whole" or (on_bar and est == bar):
        near = (high - low) / 2
    elif half == "far":
        near = high - est if est > bar else est - low
    z95, z80 = sst.norm.ppf(0.975), sst.norm.ppf(0.8)
    mde = ((z95 + z80) / z95 if factor else 1.0) * near
    return max(floor, (mde / (margin - abs(paper) if d is None else d(margin, paper))) ** power)


def test_dup4_needed_data_wrong_answers():
    assert ex.check("ex-dup4-needed-data", _needed).ok

    def from_the_library(est, low, high, margin, paper):
        from bertology_lib.book import conclusions
        from bertology_lib.book.claims.record import Claim
        from bertology_lib.book.claims.rules import Equivalent

        c = Claim("x", "s", "src", paper, [est, low, high], "rule", "inconclusive")
        rule = Equivalent(margin)
        return conclusions.needed_scale(conclusions.mde(c, rule), conclusions.paper_margin(c, rule))

    assert ex.check("ex-dup4-needed-data", from_the_library).ok
    cells.fails("ex-dup4-needed-data", lambda *c: _needed(*c, half="whole"), "need not be symmetric")
    cells.fails("ex-dup4-needed-data", lambda *c: _needed(*c, half="far"), "not the other half")
    cells.fails("ex-dup4-needed-data", lambda *c: _needed(*c, factor=False), "half of the time")
    cells.fails("ex-dup4-needed-data", lambda *c: _needed(*c, power=1), "square the ratio")
    cells.fails("ex-dup4-needed-data", lambda *c: _needed(*c, d=lambda m, p: m), "margin - |paper|, not the margin")
    cells.fails("ex-dup4-needed-data", lambda *c: _needed(*c, d=lambda m, p: m - p), "can be negative")
    cells.fails("ex-dup4-needed-data", lambda *c: _needed(*c, floor=0.0), "at least 1")
    cells.fails("ex-dup4-needed-data", lambda *c: _needed(*c, on_bar=False), "on neither side")
    cells.fails("ex-dup4-needed-data", lambda *c: 2 * _needed(*c), "too large")
    cells.fails("ex-dup4-needed-data", lambda *c: "more", "a number")
