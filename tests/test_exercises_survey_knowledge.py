"""The checked exercises of the survey's §2–§4 notebooks (``survey_knowledge`` and ``survey_knowledge2`` checkers).

For each exercise: the truth agrees with an independent computation, the notebook's solution cell (pasted
below as ``SOLUTIONS``; :func:`test_notebook_cells_are_the_tested_solutions` keeps the two equal) passes its
check with the notebook's variables rebuilt at the smoke profile, and typical wrong answers fail with their
hint, without the answer in the message.
"""

from __future__ import annotations

import contextlib
import io
import math
import re
import types
from collections import Counter
from pathlib import Path

import nbformat
import numpy as np
import pandas as pd
import pytest
import torch

from bertology_lib.book import exercises as ex
from bertology_lib.book.exercises import survey_knowledge as sk
from bertology_lib.book.exercises import survey_knowledge2 as sk2

ROOT = Path(__file__).resolve().parents[1]

# The solution cells, exactly as in the notebooks ("# Exercise: <label>" first); notebook -> label -> code.
SOLUTIONS: dict[str, dict[str, str]] = {
    "survey_02_architecture": {
        "ex-survey2-embed": '''\
# Exercise: ex-survey2-embed
# Write bert_input(emb, input_ids, token_type_ids): LayerNorm(token + position + segment embeddings) from the
# tables of an embedding module, without calling the module; check it with
# bertology_lib.book.exercises.check("ex-survey2-embed", bert_input).
import torch

from bertology_lib.book.exercises import check


def bert_input(emb, input_ids, token_type_ids):
    positions = torch.arange(input_ids.shape[1], device=input_ids.device)  # 0, 1, ..., seq-1 in every row
    x = (emb.word_embeddings(input_ids) + emb.position_embeddings(positions)[None]
         + emb.token_type_embeddings(token_type_ids))  # (batch, seq, d_model)
    return emb.LayerNorm(x)


enc = tokenizer(*pairs[0], return_tensors="pt")
segments = enc.get("token_type_ids", torch.zeros_like(enc["input_ids"]))
with torch.no_grad():
    ours = bert_input(encoder.embeddings, enc["input_ids"], segments)
    module = encoder.embeddings(input_ids=enc["input_ids"], token_type_ids=segments)
print(f"{params.model}, first example pair: largest difference from the module's output "
      f"{float((ours - module).abs().max()):.1e}")
print(check("ex-survey2-embed", bert_input))''',
    },
    "survey_03_1_syntax": {
        "ex-survey31-ceiling": '''\
# Exercise: ex-survey31-ceiling
# The best UPOS accuracy a classifier of word types alone can reach on the ambiguous test tokens of the quick probe
# sentences; check it with bertology_lib.book.exercises.check("ex-survey31-ceiling", answer).
from bertology_lib.book.exercises import check
from bertology_lib.data import word_labels

quick_table = word_labels.word_table(minibert.fresh_sentences(minibert.MiniBertConfig.for_profile("quick"), 1500))
quick_train, quick_test = word_labels.sentence_split(quick_table, 1125)
ambiguous = word_labels.ambiguous_mask(quick_table, quick_train)
amb_test = quick_table.iloc[quick_test[ambiguous[quick_test]]]
# every occurrence of a type gets the same tag: at best the type's most frequent tag among its test tokens
answer = amb_test.groupby(["word", "upos"]).size().groupby(level="word").max().sum() / len(amb_test)
print(f"{len(amb_test)} ambiguous test tokens of {amb_test.word.nunique()} types: type-level ceiling {answer:.3f}")
print(check("ex-survey31-ceiling", answer))''',
        "ex-survey31-npi": '''\
# Exercise: ex-survey31-npi
# Accuracy by condition of "prefer the NPI whenever a licensor occurs in the sentence" on the quick NPI suite;
# check it with bertology_lib.book.exercises.check("ex-survey31-npi", answer).
from bertology_lib.book.exercises import check

npi_items = toy_suites.make_suite("npi", minibert.MiniBertConfig.for_profile("quick").corpus_config(), 240)
hits = {}
for item in npi_items:
    prefers_npi = any(w in toy_english.LICENSORS for w in item.words)
    hits.setdefault(item.meta["condition"], []).append(prefers_npi == (item.correct in toy_english.NPIS))
answer = {condition: sum(h) / len(h) for condition, h in hits.items()}
print({condition: round(acc, 3) for condition, acc in answer.items()})
print(check("ex-survey31-npi", answer))''',
    },
    "survey_03_2_semantics": {
        "ex-survey32-clear": '''\
# Exercise: ex-survey32-clear
# The fewest right answers out of 80 whose 95% Wilson interval lies above chance (0.5); check it with
# bertology_lib.book.exercises.check("ex-survey32-clear", answer).
from bertology_lib import stats
from bertology_lib.book.exercises import check

answer = next(k for k in range(81) if stats.wilson_interval(k, 80)[0] > 0.5)
low, high = stats.wilson_interval(answer, 80)
print(f"{answer}/80 = {answer / 80:.3f}, 95% interval ({low:.3f}, {high:.3f})")
print(check("ex-survey32-clear", answer))''',
        "ex-survey32-objprior": '''\
# Exercise: ex-survey32-objprior
# A verb-blind baseline on the quick selectional suite: prefer the noun seen more often as an object in the quick
# training split; check it with bertology_lib.book.exercises.check("ex-survey32-objprior", answer).
from collections import Counter

from bertology_lib.book.exercises import check

quick = minibert.MiniBertConfig.for_profile("quick")
as_object = Counter(w for s in minibert.corpus(quick)[0] for w, rel in zip(s.words, s.deprels) if rel == "obj")
selectional_items = toy_suites.make_suite("selectional", quick.corpus_config(), 240)
answer = sum(as_object[it.correct] > as_object[it.incorrect] for it in selectional_items) / len(selectional_items)
print(f"object-frequency baseline: {answer:.3f} on {len(selectional_items)} items")
print(check("ex-survey32-objprior", answer))''',
    },
    "survey_03_3_world_knowledge": {
        "ex-survey33-freq": '''\
# Exercise: ex-survey33-freq
# Petroni et al.'s frequency baseline on the quick knowledge suite: prefer the candidate that more stated facts of
# the relation have as their object; check it with bertology_lib.book.exercises.check("ex-survey33-freq", answer).
from collections import Counter

from bertology_lib.book.exercises import check

quick_items = toy_suites.make_suite("knowledge", minibert.MiniBertConfig.for_profile("quick").corpus_config(), 240)
answer = {}
for relation in ("lives_in", "occupation"):
    n_facts = Counter(f.object for f in kb.stated_facts() if f.relation == relation)
    scores = []
    for it in (it for it in quick_items if it.meta["relation"] == relation):
        a, b = n_facts[it.correct], n_facts[it.incorrect]
        scores.append(1.0 if a > b else 0.5 if a == b else 0.0)  # a tie is a coin flip
    answer[relation] = sum(scores) / len(scores)
print({relation: round(acc, 3) for relation, acc in answer.items()})
print(check("ex-survey33-freq", answer))''',
        "ex-survey33-chain": '''\
# Exercise: ex-survey33-chain
# The mean number of stated size comparisons a held-out comparison needs (the shortest chain); check it with
# bertology_lib.book.exercises.check("ex-survey33-chain", answer).
from collections import deque

from bertology_lib.book.exercises import check

bigger = {}  # thing -> the things the corpus states to be bigger than it
for small, big in kb.stated_size_pairs:
    bigger.setdefault(small, []).append(big)


def chain_length(small, big):
    """Fewest stated comparisons from small to big (breadth-first search)."""
    steps, queue = {small: 0}, deque([small])
    while queue:
        x = queue.popleft()
        for y in bigger.get(x, []):
            if y not in steps:
                steps[y] = steps[x] + 1
                queue.append(y)
    return steps[big]


lengths = [chain_length(small, big) for small, big in sorted(kb.heldout_size_pairs)]
answer = sum(lengths) / len(lengths)
print(f"{len(lengths)} held-out pairs: chains of {min(lengths)} to {max(lengths)} stated comparisons, "
      f"mean {answer:.2f}")
print(check("ex-survey33-chain", answer))''',
    },
    "survey_03_4_probing_limits": {
        "ex-survey34-memorise": '''\
# Exercise: ex-survey34-memorise
# Accuracy of a perfect memoriser on the control task of the quick probe sentences; check it with
# bertology_lib.book.exercises.check("ex-survey34-memorise", answer).
from collections import Counter

from bertology_lib.book.exercises import check

quick_table = word_labels.word_table(minibert.fresh_sentences(minibert.MiniBertConfig.for_profile("quick"), 1500))
quick_train, quick_test = word_labels.sentence_split(quick_table, 1125)
quick_words = quick_table.word.tolist()
control = probing.control_labels(quick_words, quick_table.upos.tolist(), seed=0)
memory = {quick_words[i]: control[i] for i in quick_train}  # a type has one control label
fallback = Counter(control[i] for i in quick_train).most_common(1)[0][0]  # for types never seen in training
answer = sum(memory.get(quick_words[i], fallback) == control[i] for i in quick_test) / len(quick_test)
seen = sum(quick_words[i] in memory for i in quick_test) / len(quick_test)
print(f"{len(quick_test)} test words, {seen:.3f} of them of a type seen in training: memoriser accuracy {answer:.3f}")
print(check("ex-survey34-memorise", answer))''',
        "ex-survey34-prior-code": '''\
# Exercise: ex-survey34-prior-code
# Compression of a feature-free code that knows only the tag frequencies of the training words of the quick probe
# sentences; check it with bertology_lib.book.exercises.check("ex-survey34-prior-code", answer).
import math

from bertology_lib.book.exercises import check

quick_table = word_labels.word_table(minibert.fresh_sentences(minibert.MiniBertConfig.for_profile("quick"), 1500))
quick_train, _ = word_labels.sentence_split(quick_table, 1125)
freq = quick_table.upos.iloc[quick_train].value_counts(normalize=True)
entropy_bits = -sum(p * math.log2(p) for p in freq)  # bits per tag of the frequency code
uniform_bits = math.log2(quick_table.upos.nunique())  # bits per tag of the uniform code
answer = uniform_bits / entropy_bits
print(f"{entropy_bits:.3f} bits per tag vs {uniform_bits:.3f} uniform: compression {answer:.3f}")
print(check("ex-survey34-prior-code", answer))''',
    },
    "survey_04_1_embeddings": {
        "ex-survey41-selfsim": '''\
# Exercise: ex-survey41-selfsim
# Write self_sim(V): the mean cosine between different occurrences (the rows of V, shape (k, d)) of one word;
# check it with bertology_lib.book.exercises.check("ex-survey41-selfsim", self_sim).
import torch

from bertology_lib.book.exercises import check


def self_sim(V):
    U = V.double() / V.double().norm(dim=-1, keepdim=True)  # (k, d) unit vectors
    k = U.shape[0]
    return float(((U @ U.T).sum() - k) / (k * (k - 1)))  # leave out the k cosines of 1 on the diagonal


word = toy_table.word.value_counts().index[0]  # the most frequent toy word, through the layers
rows = torch.as_tensor(np.flatnonzero(toy_table.word == word)[:100])
print(f"'{word}':", [round(self_sim(toy_cache.resid[layer, rows]), 3) for layer in range(toy_cache.resid.shape[0])])
print(check("ex-survey41-selfsim", self_sim))''',
        "ex-survey41-mev": '''\
# Exercise: ex-survey41-mev
# Write word_mev(V): the share of the variance of a word's occurrence matrix V (k, d) that its first principal
# direction explains; check it with bertology_lib.book.exercises.check("ex-survey41-mev", word_mev).
import torch

from bertology_lib.book.exercises import check


def word_mev(V):
    s = torch.linalg.svdvals(V.double())  # singular values of the uncentred matrix, largest first
    return float(s[0] ** 2 / (s ** 2).sum())


word = toy_table.word.value_counts().index[0]
rows = torch.as_tensor(np.flatnonzero(toy_table.word == word)[:100])
print(f"'{word}':", [round(word_mev(toy_cache.resid[layer, rows]), 3) for layer in range(toy_cache.resid.shape[0])])
print(check("ex-survey41-mev", word_mev))''',
    },
    "survey_04_2_attention_heads": {
        "ex-survey42-uniform": '''\
# Exercise: ex-survey42-uniform
# The mean attention to [SEP] of a head that attends uniformly, on the quick held-out toy sentences; check it with
# bertology_lib.book.exercises.check("ex-survey42-uniform", answer).
from bertology_lib.book.exercises import check

quick_held_out = minibert.fresh_sentences(minibert.MiniBertConfig.for_profile("quick"), 1500)[1125:]
n_tokens = [len(s.words) + 2 for s in quick_held_out]  # [CLS] words [SEP]
# each of a sentence's T query rows gives 1/T to [SEP]: one unit per sentence, spread over all query rows
answer = len(n_tokens) / sum(n_tokens)
print(f"{len(n_tokens)} sentences, {sum(n_tokens)} query tokens: uniform attention to [SEP] {answer:.3f}")
print(check("ex-survey42-uniform", answer))''',
        "ex-survey42-normshare": '''\
# Exercise: ex-survey42-normshare
# Write norm_share(weights, value_norms, special): one head's attention share on [CLS]/[SEP] weighted by the norms
# of the transformed vectors; check it with
# bertology_lib.book.exercises.check("ex-survey42-normshare", norm_share).
import torch

from bertology_lib.book.exercises import check


def norm_share(weights, value_norms, special):
    m = weights * value_norms[None, :]  # (T, T): alpha_ij * ||f(x_j)||
    m = m / m.sum(-1, keepdim=True)  # each query row read as shares again
    return float(m[:, special].sum(-1).mean())


m_ud = maps["ud"]
special = torch.as_tensor(att.token_roles(m_ud.tokens[0])["special"])
layer = len(m_ud.weights) // 2
heads = range(m_ud.weights[layer][0].shape[0])
by_weight = [float(m_ud.weights[layer][0][h][:, special].sum(-1).mean()) for h in heads]
by_norm = [norm_share(m_ud.weights[layer][0][h], m_ud.value_norms[layer][0][h], special) for h in heads]
print(f"{params.real_model}, layer {layer}, first held-out sentence, mean over heads: [CLS]/[SEP] share "
      f"{sum(by_weight) / len(by_weight):.2f} by weight, {sum(by_norm) / len(by_norm):.2f} by norm")
print(check("ex-survey42-normshare", norm_share))''',
    },
    "survey_04_3_layers": {
        "ex-survey43-expected": '''\
# Exercise: ex-survey43-expected
# Write expected_layer(scores): Tenney et al.'s expected layer from one probe's scores at layers 0..L, as
# emb.centre_of_gravity computes it; check it with
# bertology_lib.book.exercises.check("ex-survey43-expected", expected_layer).
import numpy as np

from bertology_lib.book.exercises import check


def expected_layer(scores):
    best = np.maximum.accumulate(np.asarray(scores, dtype=float))  # what layers 0..l make available
    gain = np.diff(best)  # the gain of layers 1..L, never negative
    return float((np.arange(1, len(best)) * gain).sum() / gain.sum()) if gain.sum() > 0 else 0.0


upos = report[(report.data == "toy") & (report.model == "trained") & (report.target == "upos")].sort_values("layer")
print(f"toy UPOS: expected layer {expected_layer(upos.accuracy.tolist()):.3f}; centre_of_gravity "
      f"{float(cog[(cog.data == 'toy') & (cog.target == 'upos')].expected_layer.iloc[0]):.3f}")
print(check("ex-survey43-expected", expected_layer))''',
        "ex-survey43-distance": '''\
# Exercise: ex-survey43-distance
# Write tree_distance(heads): the number of edges between every two words of a dependency tree (heads 1-based,
# 0 = root), the structural probe's target; check it with
# bertology_lib.book.exercises.check("ex-survey43-distance", tree_distance).
from collections import deque

import numpy as np

from bertology_lib.book.exercises import check


def tree_distance(heads):
    n = len(heads)
    neighbours = [[] for _ in range(n)]
    for i, h in enumerate(heads):
        if h != 0:  # word i hangs from word h - 1
            neighbours[i].append(h - 1)
            neighbours[h - 1].append(i)
    D = np.zeros((n, n), dtype=int)
    for start in range(n):  # breadth-first search from every word
        seen, queue = {start}, deque([start])
        while queue:
            i = queue.popleft()
            for j in neighbours[i]:
                if j not in seen:
                    seen.add(j)
                    D[start, j] = D[start, i] + 1
                    queue.append(j)
    return D


D = tree_distance(toy[0].heads)
print(" ".join(toy[0].words))
print(D)
print("the minimum spanning tree of the gold distances is the gold tree:", sp.mst_edges(D) == sp.gold_edges(toy[0].heads))
print(check("ex-survey43-distance", tree_distance))''',
    },
}
LABELS = [label for per in SOLUTIONS.values() for label in per]


def run_solution(label: str, namespace: dict) -> str:
    """Execute a solution cell in ``namespace`` (the notebook's variables); return what it printed."""
    code = next(per[label] for per in SOLUTIONS.values() if label in per)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, f"<{label}>", "exec"), namespace)  # noqa: S102 (the notebook cell itself)
    return out.getvalue()


def assert_passes(label: str, namespace: dict) -> str:
    printed = run_solution(label, namespace)
    assert f"✅ {label}" in printed and "❌" not in printed, printed
    return printed


def assert_fails(label: str, answer, hint: str | None = None, secret: str | None = None):
    fb = ex.check(label, answer)
    assert not fb.ok and "❌" in str(fb), (answer, fb)
    if hint is not None:
        assert hint in fb.message, (answer, fb.message)
    if secret is not None:
        assert secret not in fb.message, f"gives the answer away: {fb.message}"
    return fb


def smoke_minibert():
    """The smoke mini-BERT's shape with random weights (the code paths, not the numbers), its tokenizer and config."""
    from bertology_lib.models import minibert

    cfg = minibert.MiniBertConfig.for_profile("smoke")
    tok = minibert.tokenizer_for(cfg)
    model = minibert.build_model(cfg, len(tok)).bert.eval()
    model.config._attn_implementation = "eager"
    return model, tok, cfg


@pytest.fixture(scope="module")
def minilm():
    from bertology_lib.models.registry import load_model, load_tokenizer

    return load_model("minilm"), load_tokenizer("minilm")


# ---------------------------------------------------------------- every exercise


def test_fifteen_labels_all_registered_with_docstrings():
    assert len(LABELS) == len(set(LABELS)) == 15
    for label in LABELS:
        assert label in ex.CHECKERS and ex.CHECKERS[label].__doc__, label


def _solution_cells(notebook: str) -> dict[str, str]:
    nb = nbformat.read(ROOT / "notebooks" / f"{notebook}.ipynb", as_version=4)
    return {ex.solution_label(c): c.source for c in nb.cells if ex.is_solution_cell(c)}


@pytest.mark.parametrize("notebook", sorted(SOLUTIONS))
def test_notebook_cells_are_the_tested_solutions(notebook):
    cells = _solution_cells(notebook)
    missing = [label for label in SOLUTIONS[notebook] if label not in cells]
    if len(missing) == len(SOLUTIONS[notebook]):
        pytest.skip(f"{notebook}: its exercise patch is not applied yet")
    assert not missing, f"{notebook} lacks the solution cells of {missing}"
    for label, code in SOLUTIONS[notebook].items():
        assert cells[label].strip() == code.strip(), f"{notebook}: the cell of {label} differs from the tested code"


@pytest.mark.parametrize("label", LABELS)
def test_solution_starts_with_its_label_and_ends_with_the_check(label):
    code = next(per[label] for per in SOLUTIONS.values() if label in per)
    first, last = code.splitlines()[0], code.strip().splitlines()[-1]
    assert first == f"# Exercise: {label}"
    assert re.fullmatch(rf'print\(check\("{label}", \w+\)\)', last), last


@pytest.mark.parametrize("label", LABELS)
def test_wrong_types_are_refused_politely(label):
    for answer in ("many", None, float("nan"), -1):
        fb = ex.check(label, answer)
        assert not fb.ok and fb.message, (label, answer)


# ---------------------------------------------------------------- §2


def test_survey2_embed(minilm):
    encoder, tokenizer = minilm
    from bertology_lib.experiments.survey import architecture as arch

    ns = {"encoder": encoder, "tokenizer": tokenizer, "pairs": arch.example_pairs(2),
          "params": types.SimpleNamespace(model="minilm")}
    printed = assert_passes("ex-survey2-embed", ns)
    assert float(re.search(r"output (\S+)\n", printed).group(1)) < 1e-4

    def no_layernorm(emb, ids, seg):
        return emb.word_embeddings(ids) + emb.position_embeddings(torch.arange(ids.shape[1]))[None] \
            + emb.token_type_embeddings(seg)

    def no_positions(emb, ids, seg):
        return emb.LayerNorm(emb.word_embeddings(ids) + emb.token_type_embeddings(seg))

    def no_segments(emb, ids, seg):
        return emb.LayerNorm(emb.word_embeddings(ids) + emb.position_embeddings(torch.arange(ids.shape[1]))[None])

    assert_fails("ex-survey2-embed", no_layernorm, "before normalisation")
    assert_fails("ex-survey2-embed", no_positions, "position embeddings are missing")
    assert_fails("ex-survey2-embed", no_segments, "segment embeddings are missing")
    assert_fails("ex-survey2-embed", lambda emb, ids, seg: emb(input_ids=ids, token_type_ids=seg), "calls the embedding")
    assert_fails("ex-survey2-embed", lambda emb, ids, seg: ids[0], "shape")
    assert_fails("ex-survey2-embed", lambda emb, ids, seg: 1 / 0, "ZeroDivisionError")
    assert_fails("ex-survey2-embed", no_layernorm(*sk._tiny_berts()[0]), "expected a function")


# ---------------------------------------------------------------- §3.1


def _quick_probe_rows():
    """The quick probe sentences, rebuilt here independently of the checker's helpers."""
    from bertology_lib.data.toy_english import ToyEnglishConfig, generate_corpus
    from bertology_lib.models import minibert

    cfg = minibert.MiniBertConfig.for_profile("quick")  # fresh draws in the corpus's words, 1,500 sentences
    sents = minibert.fresh_sentences(cfg, 1500)
    assert sents[0].text not in {x.text for x in generate_corpus(ToyEnglishConfig(
        n_sentences=cfg.n_sentences, seed=cfg.corpus_seed, vocab_size=cfg.vocab_size))}
    return sents[:1125], sents[1125:]


def test_survey31_ceiling_truth_is_the_oracle_over_ambiguous_types():
    train, test = _quick_probe_rows()
    tags: dict[str, Counter] = {}
    for s in train:
        for w, t in zip(s.words, s.upos):
            tags.setdefault(w, Counter())[t] += 1
    amb = {w for w, c in tags.items() if sum(c.values()) >= 5 and sum(n / sum(c.values()) >= 0.05 for n in c.values()) >= 2}
    test_tags: dict[str, Counter] = {}
    for s in test:
        for w, t in zip(s.words, s.upos):
            if w in amb:
                test_tags.setdefault(w, Counter())[t] += 1
    truth = sum(max(c.values()) for c in test_tags.values()) / sum(sum(c.values()) for c in test_tags.values())
    assert sk.survey31_ceiling_truth() == pytest.approx(truth)
    mistakes = sk._survey31_ceiling_mistakes()
    assert 0.6 < mistakes["majority"] < truth < 0.9  # the oracle is above the training-majority baseline


def test_survey31_ceiling_solution_and_hints():
    from bertology_lib.models import minibert

    assert_passes("ex-survey31-ceiling", {"minibert": minibert})
    truth, m = sk.survey31_ceiling_truth(), sk._survey31_ceiling_mistakes()
    secret = f"{truth:.3f}"
    assert_fails("ex-survey31-ceiling", m["majority"], "per-word-majority baseline", secret)
    assert_fails("ex-survey31-ceiling", m["all"], "all test words", secret)
    assert_fails("ex-survey31-ceiling", m["test-marked"], "training rows", secret)
    assert_fails("ex-survey31-ceiling", truth - 0.1, "too low", secret)
    assert_fails("ex-survey31-ceiling", min(1.0, truth + 0.1), "too high", secret)
    assert ex.check("ex-survey31-ceiling", round(truth, 3)).ok
    assert_fails("ex-survey31-ceiling", 1.2, "between 0 and 1")


def test_survey31_npi_truth_by_construction():
    truth = sk.survey31_npi_truth()
    # licensed items contain their licensor, unlicensed ones none, scope items one that does not license the slot
    assert truth == {"licensed": 1.0, "unlicensed": 1.0, "scope": 0.0}
    items = sk.quick_suite("npi")
    assert Counter(it.meta["condition"] for it in items) == {"licensed": 120, "unlicensed": 60, "scope": 60}
    assert all(it.meta["licensor_in_sentence"] == (it.meta["condition"] != "unlicensed") for it in items)


def test_survey31_npi_solution_and_hints():
    from bertology_lib.data import suites as toy_suites
    from bertology_lib.data import toy_english
    from bertology_lib.models import minibert

    assert_passes("ex-survey31-npi", {"minibert": minibert, "toy_suites": toy_suites, "toy_english": toy_english})
    assert_fails("ex-survey31-npi", {"licensed": 1.0, "unlicensed": 1.0, "scope": 0.5}, "scope is off")
    assert_fails("ex-survey31-npi", {"licensed": 0.0, "unlicensed": 0.0, "scope": 1.0}, "gets wrong")
    assert_fails("ex-survey31-npi", {"licensed": 0.5, "unlicensed": 1.0, "scope": 0.0}, "licensed")
    assert_fails("ex-survey31-npi", {"licensed": 1.0, "unlicensed": 1.0}, "expected the keys")
    assert_fails("ex-survey31-npi", 0.75, "expected a dict")
    assert_fails("ex-survey31-npi", {"licensed": 2, "unlicensed": 1.0, "scope": 0.0}, "between 0 and 1")


# ---------------------------------------------------------------- §3.2


def test_survey32_clear_truth_against_the_wilson_formula():
    def wilson_low(k, n, z=1.959963984540054):  # the closed form, independent of scipy
        p = k / n
        return (p + z * z / (2 * n) - z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))) / (1 + z * z / n)

    truth = sk.survey32_clear_truth()
    assert wilson_low(truth, 80) > 0.5 >= wilson_low(truth - 1, 80)
    assert truth == 49


def test_survey32_clear_solution_and_hints():
    assert_passes("ex-survey32-clear", {})
    truth = sk.survey32_clear_truth()
    for wrong, hint in [(41, "too few"), (truth - 1, "too few"), (truth + 1, "too many"), (30, "not even above"),
                        (truth / 80, "not an accuracy"), (81, "between 0 and 80"), (48.5, "whole number")]:
        assert_fails("ex-survey32-clear", wrong, hint)
        assert str(truth) not in re.findall(r"\d+", ex.check("ex-survey32-clear", wrong).message)


@pytest.fixture(scope="module")
def quick_train_counts():
    from bertology_lib.models import minibert

    train, _ = minibert.corpus(minibert.MiniBertConfig.for_profile("quick"))
    return Counter(w for s in train for w, r in zip(s.words, s.deprels) if r == "obj"), \
        Counter(w for s in train for w in s.words)


def test_survey32_objprior_truth_and_hints(quick_train_counts):
    as_object, anywhere = quick_train_counts
    items = sk.quick_suite("selectional")
    truth = np.mean([as_object[it.correct] > as_object[it.incorrect] for it in items])
    assert sk.survey32_objprior_truth() == pytest.approx(truth) and 0.5 < truth < 0.8
    unigram = np.mean([anywhere[it.correct] > anywhere[it.incorrect] for it in items])
    assert abs(unigram - truth) > 0.01
    secret = f"{truth:.3f}"
    assert_fails("ex-survey32-objprior", unigram, "count only its occurrences as an object", secret)
    assert_fails("ex-survey32-objprior", 1 - truth, "gets wrong", secret)
    assert_fails("ex-survey32-objprior", truth + 0.05, "deprel 'obj'", secret)
    assert ex.check("ex-survey32-objprior", truth + 0.001).ok


def test_survey32_objprior_solution(quick_train_counts):
    from bertology_lib.data import suites as toy_suites
    from bertology_lib.models import minibert

    assert_passes("ex-survey32-objprior", {"minibert": minibert, "toy_suites": toy_suites})


# ---------------------------------------------------------------- §3.3


def _kb():
    from bertology_lib.data.toy_english import knowledge_base
    from bertology_lib.models import minibert

    # the notebook's kb at smoke: knowledge_base(corpus_cfg.seed); the corpus seed is 0 at every profile
    return knowledge_base(minibert.MiniBertConfig.for_profile("smoke").corpus_config().seed)


def test_survey33_freq_truth_counts_people_per_object():
    kb = _kb()
    residents = Counter(kb.lives_in.values())
    workers = Counter(kb.occupation.values())
    items = sk.quick_suite("knowledge")
    expect = {}
    for rel, counts in (("lives_in", residents), ("occupation", workers)):
        its = [it for it in items if it.meta["relation"] == rel]
        assert all(it.correct == it.meta["fact"][2] for it in its)  # the masked word is the fact's object
        expect[rel] = np.mean([0.5 if counts[it.correct] == counts[it.incorrect]
                               else float(counts[it.correct] > counts[it.incorrect]) for it in its])
    assert sk.survey33_freq_truth() == pytest.approx(expect)
    assert all(0.5 < v < 0.8 for v in expect.values())


def test_survey33_freq_solution_and_hints():
    from bertology_lib.data import suites as toy_suites
    from bertology_lib.models import minibert

    assert_passes("ex-survey33-freq", {"minibert": minibert, "toy_suites": toy_suites, "kb": _kb()})
    assert_fails("ex-survey33-freq", sk._survey33_freq(0.0), "ties")
    assert_fails("ex-survey33-freq", sk._survey33_freq(1.0), "ties")
    truth = sk.survey33_freq_truth()
    assert_fails("ex-survey33-freq", {**truth, "occupation": 0.5}, "occupation")
    assert_fails("ex-survey33-freq", {"lives_in": 0.6}, "expected the keys")


def test_survey33_chain_truth_by_a_distance_matrix():
    kb = _kb()
    things = kb.size_order
    idx = {w: i for i, w in enumerate(things)}
    D = np.full((len(things), len(things)), np.inf)
    np.fill_diagonal(D, 0)
    for a, b in kb.stated_size_pairs:
        D[idx[a], idx[b]] = 1
    for k in range(len(things)):  # Floyd-Warshall
        D = np.minimum(D, D[:, [k]] + D[[k], :])
    held = [D[idx[a], idx[b]] for a, b in kb.heldout_size_pairs]
    assert sk.survey33_chain_truth() == pytest.approx(np.mean(held))
    assert min(held) >= 2 and np.isfinite(held).all()


def test_survey33_chain_solution_and_hints():
    kb = _kb()
    assert_passes("ex-survey33-chain", {"kb": kb})
    truth = sk.survey33_chain_truth()
    rank = {w: i for i, w in enumerate(kb.size_order)}
    mean_rank = np.mean([rank[b] - rank[a] for a, b in kb.heldout_size_pairs])
    secret = f"{truth:.2f}"
    assert_fails("ex-survey33-chain", mean_rank, "shortcuts", secret)
    assert_fails("ex-survey33-chain", 1.5, "at least two", secret)
    assert_fails("ex-survey33-chain", truth + 0.5, "breadth-first", secret)
    every = sk._size_chains(sorted(kb.heldout_size_pairs | kb.stated_size_pairs), kb.stated_size_pairs)
    assert_fails("ex-survey33-chain", np.mean(every), "held-out pairs only", secret)


# ---------------------------------------------------------------- §3.4


def test_survey34_memorise_truth_by_hand():
    from bertology_lib.analysis import probing

    train, test = _quick_probe_rows()
    words_tr = [w for s in train for w in s.words]
    words_te = [w for s in test for w in s.words]
    tags = [t for s in train + test for t in s.upos]
    control = probing.control_labels(words_tr + words_te, tags, seed=0)
    c_tr, c_te = control[: len(words_tr)], control[len(words_tr):]
    label_of = dict(zip(words_tr, c_tr))
    fallback = Counter(c_tr).most_common(1)[0][0]
    truth = np.mean([label_of.get(w, fallback) == c for w, c in zip(words_te, c_te)])
    assert sk2.survey34_memorise_truth() == pytest.approx(truth) and 0.85 < truth < 1


def test_survey34_memorise_solution_and_hints():
    from bertology_lib.analysis import probing
    from bertology_lib.data import word_labels
    from bertology_lib.models import minibert

    assert_passes("ex-survey34-memorise", {"minibert": minibert, "word_labels": word_labels, "probing": probing})
    table, tr, te = sk.quick_probe_table()
    secret = f"{sk2.survey34_memorise_truth():.3f}"
    assert_fails("ex-survey34-memorise", probing.majority_baseline(table.word.tolist(), table.upos.tolist(), tr, te),
                 "real POS tags", secret)
    seen = set(table.word.iloc[tr])
    assert_fails("ex-survey34-memorise", np.mean([w in seen for w in table.word.iloc[te]]), "unseen", secret)
    assert_fails("ex-survey34-memorise", 0.5, "control_labels", secret)


def test_survey34_prior_code_truth_and_hints():
    train, _ = _quick_probe_rows()
    tags = [t for s in train for t in s.upos]
    p = np.array(list(Counter(tags).values())) / len(tags)
    entropy = float(-(p * np.log2(p)).sum())
    truth = np.log2(14) / entropy
    assert sk2.survey34_prior_code_truth() == pytest.approx(truth) and 1 < truth < 2
    assert_fails("ex-survey34-prior-code", truth / math.log(2), "nats")
    assert_fails("ex-survey34-prior-code", 1 / truth, "uniform bits over")
    assert_fails("ex-survey34-prior-code", truth + 0.1, "log2(C)")
    assert ex.check("ex-survey34-prior-code", round(truth, 3)).ok


def test_survey34_prior_code_solution():
    from bertology_lib.data import word_labels
    from bertology_lib.models import minibert

    assert_passes("ex-survey34-prior-code", {"minibert": minibert, "word_labels": word_labels})


# ---------------------------------------------------------------- §4.1


@pytest.fixture(scope="module")
def toy_states():
    """The 4.1 notebook's toy_table and toy_cache at smoke, from the smoke mini-BERT's shape (random weights)."""
    from bertology_lib.analysis.activations import run_with_cache
    from bertology_lib.data import word_labels
    from bertology_lib.models import minibert

    model, tok, cfg = smoke_minibert()
    toy = minibert.fresh_sentences(cfg, 120)
    return word_labels.word_table(toy), run_with_cache(model, tok, [s.words for s in toy], batch_size=64), toy


def test_survey41_truths_agree_with_the_library():
    from bertology_lib.analysis import embeddings as emb

    for V in sk2._occurrence_matrices():
        X = V[None].float()  # one layer, one word type of k occurrences
        words = ["w"] * V.shape[0]
        assert sk2.self_similarity_truth(V) == pytest.approx(float(emb.self_similarity(X, words, min_count=2)[0]),
                                                             abs=1e-5)
        assert sk2.mev_truth(V) == pytest.approx(float(emb.mev(X, words, min_count=2)[0][0]), abs=1e-5)


def test_survey41_solutions(toy_states):
    toy_table, toy_cache, _ = toy_states
    ns = {"toy_table": toy_table, "toy_cache": toy_cache, "np": np}
    assert_passes("ex-survey41-selfsim", dict(ns))
    assert_passes("ex-survey41-mev", dict(ns))


def test_survey41_hints():
    def with_diagonal(V):
        U = V / V.norm(dim=-1, keepdim=True)
        return float((U @ U.T).mean())

    def dots(V):
        G = V @ V.T
        k = len(V)
        return float((G.sum() - G.trace()) / (k * (k - 1)))

    def centred(V):
        return sk2.self_similarity_truth(V - V.mean(0))

    assert_fails("ex-survey41-selfsim", with_diagonal, "with itself")
    assert_fails("ex-survey41-selfsim", dots, "not dot products")
    assert_fails("ex-survey41-selfsim", centred, "do not centre")
    assert_fails("ex-survey41-selfsim", lambda V: 0.5, "normalise the rows")
    assert_fails("ex-survey41-selfsim", lambda V: V, "return a number")
    assert_fails("ex-survey41-mev", lambda V: sk2.mev_truth(V - V.mean(0)), "uncentred")
    assert_fails("ex-survey41-mev", lambda V: float(torch.linalg.svdvals(V)[0] / torch.linalg.svdvals(V).sum()),
                 "square of the singular values")
    assert_fails("ex-survey41-mev", lambda V: 1 - sk2.mev_truth(V), "does *not* explain")
    assert_fails("ex-survey41-mev", lambda V: V.shape[0] / 0, "ZeroDivisionError")


# ---------------------------------------------------------------- §4.2


def test_survey42_uniform_truth_is_head_stats_of_a_uniform_head():
    from bertology_lib.analysis import attention as att

    _, test = _quick_probe_rows()
    patterns = [[torch.full((1, len(s) + 2, len(s) + 2), 1.0 / (len(s) + 2)) for s in test]]
    tokens = [["[CLS]", *s.words, "[SEP]"] for s in test]
    stats = att.head_stats(patterns, tokens)
    assert sk2.survey42_uniform_truth() == pytest.approx(float(stats.sep.iloc[0]))


def test_survey42_uniform_solution_and_hints():
    from bertology_lib.models import minibert

    assert_passes("ex-survey42-uniform", {"minibert": minibert})
    truth = sk2.survey42_uniform_truth()
    T = sk2._quick_held_out_lengths()
    secret = f"{truth:.3f}"
    assert_fails("ex-survey42-uniform", np.mean([1 / t for t in T]), "per sentence", secret)
    assert_fails("ex-survey42-uniform", 2 * truth, "together", secret)
    assert_fails("ex-survey42-uniform", len(T) / sum(t - 2 for t in T), "among the T tokens", secret)
    assert_fails("ex-survey42-uniform", truth + 0.01, "each of a sentence's T query rows", secret)


def test_survey42_normshare_truth_agrees_with_special_focus():
    from bertology_lib.analysis import attention_norms as norms

    for w, n, s in sk2._attention_cases():
        T = len(s)
        toks = ["[CLS]" if i == 0 else "[SEP]" if s[i] else f"w{i}" for i in range(T)]
        maps = norms.AttentionMaps(weights=[[w[None].float()]], value_norms=[[n[None].float()]], tokens=[toks])
        focus = norms.special_focus(maps)
        assert sk2.norm_share_truth(w, n, s) == pytest.approx(float(focus.norm_share.iloc[0]), abs=1e-5)
        assert float(w[:, s].sum(-1).mean()) == pytest.approx(float(focus.weight_share.iloc[0]), abs=1e-5)


def test_survey42_normshare_solution_and_hints(minilm):
    from bertology_lib.analysis import attention as att
    from bertology_lib.analysis import attention_norms as norms

    real, real_tok = minilm
    held_out = [["The", "chef", "tipped", "the", "waiter", "."], ["Nobody", "has", "ever", "found", "them", "."]]
    ns = {"maps": {"ud": norms.attention_maps(real, real_tok, held_out)}, "att": att,
          "params": types.SimpleNamespace(real_model="minilm")}
    assert_passes("ex-survey42-normshare", ns)

    def rownorm(w, n):
        m = w * n[None, :]
        return m / m.sum(-1, keepdim=True)

    assert_fails("ex-survey42-normshare", lambda w, n, s: float(w[:, s].sum(-1).mean()), "share by weight")
    assert_fails("ex-survey42-normshare", lambda w, n, s: float((w * n)[:, s].sum(-1).mean()), "divide each row")
    assert_fails("ex-survey42-normshare", lambda w, n, s: float((w * n)[:, s].sum() / (w * n).sum()), "per query row")
    assert_fails("ex-survey42-normshare", lambda w, n, s: float(rownorm(w, n)[~s][:, s].sum(-1).mean()),
                 "own rows included")
    assert_fails("ex-survey42-normshare", lambda w, n, s: float(rownorm(w, n)[:, s].sum(-1).mean()) + 0.1,
                 "renormalise each row")


# ---------------------------------------------------------------- §4.3


def test_survey43_expected_truth_by_hand():
    assert sk2.expected_layer_truth([0.5, 0.6, 0.8, 0.85, 0.86]) == pytest.approx(
        (1 * 0.1 + 2 * 0.2 + 3 * 0.05 + 4 * 0.01) / 0.36)
    assert sk2.expected_layer_truth([0.7, 0.9, 0.95, 0.92, 0.8, 0.85, 0.97]) == pytest.approx(
        (1 * 0.2 + 2 * 0.05 + 6 * 0.02) / 0.27)
    assert sk2.expected_layer_truth([0.9, 0.8, 0.7]) == 0.0


def test_survey43_expected_solution_and_hints():
    from bertology_lib.analysis import embeddings as emb

    rng = np.random.default_rng(0)  # a smoke-sized report: 3 layers, the notebook's columns
    report = pd.DataFrame([{"data": d, "model": m, "target": t, "subset": "all", "layer": layer,
                            "accuracy": float(rng.uniform(0.5, 1))}
                           for d, m in (("toy", "trained"), ("ud", "minilm")) for t in ("upos", "deprel")
                           for layer in range(3)])
    cog = emb.centre_of_gravity(report, by=("data", "target", "model"))
    printed = assert_passes("ex-survey43-expected", {"report": report, "cog": cog})
    ours, lib = re.search(r"expected layer (\S+); centre_of_gravity (\S+)", printed).groups()
    assert ours == lib

    def raw(s):
        gain = np.diff(s)
        return float((np.arange(1, len(s)) * gain).sum() / gain.sum()) if gain.sum() > 0 else 0.0

    assert_fails("ex-survey43-expected", raw, "running maximum")
    assert_fails("ex-survey43-expected", lambda s: sk2._gain_weighted(s, shift=1), "0-based")
    assert_fails("ex-survey43-expected", lambda s: float(np.argmax(s)), "best layer")
    assert_fails("ex-survey43-expected", lambda s: float((np.arange(len(s)) * np.asarray(s)).sum() / np.sum(s)),
                 "not by the scores")

    def nan_when_flat(s):
        best = np.maximum.accumulate(np.asarray(s, float))
        gain = np.diff(best)
        return float((np.arange(1, len(best)) * gain).sum() / gain.sum())

    with np.errstate(invalid="ignore"):
        assert_fails("ex-survey43-expected", nan_when_flat, "is 0")


def test_survey43_distance_truth_by_hand():
    # the, keys, to, the, cabinet, are: keys <- are (root); the <- keys; cabinet <- keys; to, the <- cabinet
    heads = (2, 6, 5, 5, 2, 0)
    D = sk2.tree_distance_truth(heads)
    assert D[0, 5] == 2 and D[2, 3] == 2 and D[0, 2] == 3 and D[2, 5] == 3 and (D == D.T).all()
    for heads in sk2._hidden_trees():  # every tree: distances obey the triangle rule along each arc
        D = sk2.tree_distance_truth(heads)
        for i, h in enumerate(heads):
            if h:
                assert D[i, h - 1] == 1 and (np.abs(D[i] - D[h - 1]) == 1).all()


def test_survey43_distance_solution_and_hints():
    from bertology_lib.analysis import structural_probe as sp
    from bertology_lib.models import minibert

    toy = minibert.fresh_sentences(minibert.MiniBertConfig.for_profile("smoke"), 120)
    printed = assert_passes("ex-survey43-distance", {"toy": toy, "sp": sp})
    assert "gold tree: True" in printed

    def depth_difference(heads):
        d = sp.tree_depths(heads)
        return np.abs(d[:, None] - d[None, :])

    assert_fails("ex-survey43-distance", depth_difference, "depths")
    assert_fails("ex-survey43-distance", lambda h: np.abs(np.arange(len(h))[:, None] - np.arange(len(h))[None, :]),
                 "word order")
    assert_fails("ex-survey43-distance", lambda h: np.zeros((2, 2)), "shape")
    assert_fails("ex-survey43-distance", lambda h: sp.tree_distances(h) + (len(h) > 3), "breadth-first")
