"""Checked exercises of the survey's training notebooks (§5, §5.2, §5.3, §6, §7) and of the duplication
notebooks: for every exercise, the checker's truth agrees with an independent computation, the notebook's
solution cell passes its check, and typical wrong answers fail with their specific hint.

``SOLUTIONS`` holds the solution cells exactly as the notebooks carry them. They run here on the notebook's
variables rebuilt small (tiny random BERTs, smoke sizes, or the exercise's fixed configuration); once a
notebook carries a cell, :func:`test_notebook_solution_cells_are_the_tested_ones` keeps the two identical.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest
import torch
import exercise_cells as cells

from bertology_lib.book import exercises as ex
from bertology_lib.book.exercises import duplication as du
from bertology_lib.book.exercises import survey_size as ss
from bertology_lib.book.exercises import survey_training as st

torch.set_num_threads(1)
ROOT = Path(__file__).resolve().parents[1]

# -------------------------------------------------------------------------------- the solution cells

SOLUTIONS: dict[str, str] = {}

SOLUTIONS["ex-survey5-lora-params"] = '''\
# Exercise: ex-survey5-lora-params
# Write lora_trainable(n_layers, d_model, rank, n_labels): how many weights train when LoRA of rank `rank`
# adapts the query and value projections of every block of a BERT of that shape, under this notebook's
# classification head. Check it with check("ex-survey5-lora-params", lora_trainable).
from bertology_lib.book.exercises import check


def lora_trainable(n_layers, d_model, rank, n_labels):
    adapters = n_layers * 2 * (rank * d_model + d_model * rank)  # query and value: A (rank x d), B (d x rank)
    head = (d_model * d_model + d_model) + (d_model * n_labels + n_labels)  # dense (then tanh), output layer
    return adapters + head


enc_cfg = strategies.pretrained.config
trainable = lora_trainable(enc_cfg.num_hidden_layers, enc_cfg.hidden_size, sizes.lora_rank, task.n_labels)
counted = lora_runs[strategy_seeds[0]].train["n_trainable"]  # what the fine-tuning counted
rank1 = lora_trainable(enc_cfg.num_hidden_layers, enc_cfg.hidden_size, 1, task.n_labels)
print(f"LoRA r={sizes.lora_rank}: {trainable:,} trainable weights (the fine-tuning counted {counted:,}) of "
      f"{n_params:,}; r=1 would train {rank1:,}")
print(check("ex-survey5-lora-params", lora_trainable))'''

SOLUTIONS["ex-survey5-paired"] = '''\
# Exercise: ex-survey5-paired
# Write paired_interval(a, b): for two sweeps {seed: accuracy}, the mean of a[s] - b[s] over the seeds of a
# with its 95% t interval, in accuracy points: (mean, low, high).
# Check it with check("ex-survey5-paired", paired_interval).
import math

from scipy import stats as scipy_stats

from bertology_lib.book.exercises import check


def paired_interval(a, b):
    d = [100 * (a[s] - b[s]) for s in sorted(a)]  # paired by seed, in points
    n = len(d)
    mean = sum(d) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in d) / (n - 1))
    half = float(scipy_stats.t.ppf(0.975, n - 1)) * sd / math.sqrt(n)
    return mean, mean - half, mean + half


print("full - frozen (last layer), points:", tuple(round(x, 1) for x in paired_interval(full_s, frozen_last)),
      "| stats.paired_points:", stats.paired_points(full_s, frozen_last))
print(check("ex-survey5-paired", paired_interval))'''

SOLUTIONS["ex-survey52-block-params"] = '''\
# Exercise: ex-survey52-block-params
# Write block_params(n_layers, d_model, n_heads): the parameters of a lab BERT's blocks (the table's
# block_params: no embeddings, no MLM head; feed-forward width 4 x d_model).
# Check it with check("ex-survey52-block-params", block_params).
from bertology_lib.book.exercises import check


def block_params(n_layers, d_model, n_heads):
    d = d_model
    attention = 4 * (d * d + d) + 2 * d  # query, key, value and output projections with biases; a LayerNorm
    feed_forward = (d * 4 * d + 4 * d) + (4 * d * d + d) + 2 * d  # d -> 4d -> d with biases; a LayerNorm
    return n_layers * (attention + feed_forward)  # n_heads only splits the projections into slices


for name, cfgs in grid.items():
    c = cfgs[0]
    assert block_params(c.n_layers, c.d_model, c.n_heads) == lab[lab.variant == name].block_params.iloc[0], name
print(check("ex-survey52-block-params", block_params))'''

SOLUTIONS["ex-survey52-width"] = '''\
# Exercise: ex-survey52-width
# Write equal_width(n_layers, base_layers, base_d, n_heads): the width d, a multiple of n_heads, whose
# n_layers blocks hold the number of parameters closest to base_layers blocks of width base_d (on a tie,
# the narrower); use your block_params. Check it with check("ex-survey52-width", equal_width).
from bertology_lib.book.exercises import check


def equal_width(n_layers, base_layers, base_d, n_heads):
    target = block_params(base_layers, base_d, n_heads)
    best, d = None, n_heads
    while True:  # one head's width wider at a time, until the blocks hold more than the target
        p = block_params(n_layers, d, n_heads)
        best = min(best or (abs(p - target), d), (abs(p - target), d))
        if p > target:
            return best[1]
        d += n_heads


b = grid[base][0]
for name in depths:
    c = grid[name][0]
    print(f"{name}: grid width {c.d_model}, closest in parameters "
          f"{equal_width(c.n_layers, b.n_layers, b.d_model, b.n_heads)}")
print(check("ex-survey52-width", equal_width))'''

SOLUTIONS["ex-survey53-partial"] = '''\
# Exercise: ex-survey53-partial
# Write partly_masked_share(pieces_per_word, p): when token masking picks every piece independently with
# probability p, the expected number of masked pieces whose word is only partly masked, divided by the
# expected number of masked pieces. Check it with check("ex-survey53-partial", partly_masked_share).
from bertology_lib.book.exercises import check


def partly_masked_share(pieces_per_word, p):
    # a word of k pieces has k p masked pieces on average, k p^k of them in words masked completely
    masked = sum(k * p for k in pieces_per_word)
    in_whole_words = sum(k * p ** k for k in pieces_per_word)
    return (masked - in_whole_words) / masked


per_word = [len(tok.tokenize(w)) for t in held_texts[:500] for w in t.split()]
print(f"{sum(k > 1 for k in per_word) / len(per_word):.1%} of the held-out words take 2+ pieces; "
      f"{partly_masked_share(per_word, 0.15):.1%} of the pieces token masking hides are in a partly masked word")
print(check("ex-survey53-partial", partly_masked_share))'''

SOLUTIONS["ex-survey53-span"] = '''\
# Exercise: ex-survey53-span
# Write mean_span_length(p, max_len): the mean number of words in a span that
# bertology_lib.training.masking.span_groups draws (Geometric(p) lengths clipped at max_len), before a
# sentence end cuts it. Check it with check("ex-survey53-span", mean_span_length).
from bertology_lib.book.exercises import check


def mean_span_length(p, max_len):
    # span_groups clamps a longer draw to max_len: E[min(L, max_len)] = sum over l < max_len of P(L > l)
    return sum((1 - p) ** l for l in range(max_len))


print(f"span masking (p = {pre.SPAN_P}, at most 10 words): {mean_span_length(pre.SPAN_P, 10):.2f} words per span")
print(check("ex-survey53-span", mean_span_length))'''

SOLUTIONS["ex-survey54-nsp-params"] = '''\
# Exercise: ex-survey54-nsp-params
# Write nsp_head_params(d_model): the parameters next-sentence prediction adds to a lab BERT of width d_model
# (the pooler, a dense layer on [CLS], and the two-way classifier on top of it).
# Check it with check("ex-survey54-nsp-params", nsp_head_params).
from transformers import BertForPreTraining

from bertology_lib.book.exercises import check
from bertology_lib.models.registry import quiet_hf


def nsp_head_params(d_model):
    pooler = d_model * d_model + d_model  # dense d -> d with bias (then tanh)
    return pooler + d_model * 2 + 2  # and the is-next / not-next classifier with bias


with quiet_hf():  # no per-shard loading bar
    trained = BertForPreTraining.from_pretrained(pre.pretrain_lab(grid[nsp][0], mb_cfg) / "final")
added = sum(p.numel() for m in (trained.bert.pooler, trained.cls.seq_relationship) for p in m.parameters())
assert added == nsp_head_params(sizes.lab_d_model)
print(f"width {sizes.lab_d_model}: NSP adds {added:,} parameters to a lab BERT of {int(lab.params.iloc[0]):,}")
print(check("ex-survey54-nsp-params", nsp_head_params))'''

SOLUTIONS["ex-survey54-overlap"] = '''\
# Exercise: ex-survey54-overlap
# Write noun_overlap_rate(sentences): the share of ordered pairs of distinct toy sentences that share a NOUN or
# PROPN lemma. Check it with check("ex-survey54-overlap", noun_overlap_rate).
from bertology_lib.book.exercises import check


def noun_overlap_rate(sentences):
    nouns = [{lem for lem, u in zip(s.lemmas, s.upos) if u in ("NOUN", "PROPN")} for s in sentences]
    shared = sum(bool(a & b) for i, a in enumerate(nouns) for j, b in enumerate(nouns) if i != j)
    return shared / (len(nouns) * (len(nouns) - 1))


rate = noun_overlap_rate(minibert.corpus(mb_cfg)[1][:300])
print(f"{rate:.3f} of random pairs share a noun: the shared-noun detector scores {1 - rate / 2:.3f}; "
      f"the NSP head's training accuracy is {lab[lab.variant == nsp].nsp_acc.mean():.3f}")
print(check("ex-survey54-overlap", noun_overlap_rate))'''

SOLUTIONS["ex-survey6-head-params"] = '''\
# Exercise: ex-survey6-head-params
# Write params_removed(d_model, n_heads, n_removed): how many parameters heads.prune_heads deletes when
# n_removed heads go from a BERT of width d_model with n_heads heads per layer.
# Check it with check("ex-survey6-head-params", params_removed).
from bertology_lib.book.exercises import check


def params_removed(d_model, n_heads, n_removed):
    width = d_model // n_heads  # one head's slice
    qkv = 3 * (width * d_model + width)  # its rows of the query, key and value projections, with their biases
    out = d_model * width  # its columns of the output projection (whose bias is shared and stays)
    return n_removed * (qkv + out)


d_model = m0.encoder.config.hidden_size
removed = params_removed(d_model, H, k40)
assert removed == heads.count_parameters(m0) - heads.count_parameters(pruned0)
print(f"{k40} heads removed: {removed:,} parameters, {removed / heads.count_parameters(m0):.1%} of the teacher; "
      f"all {L * H} heads: {params_removed(d_model, H, L * H) / heads.count_parameters(m0):.1%}")
print(check("ex-survey6-head-params", params_removed))'''

SOLUTIONS["ex-survey6-magnitude"] = '''\
# Exercise: ex-survey6-magnitude
# Write global_masks(weights, sparsity): given {name: weight} of the blocks' Linear layers, the bool masks
# (True = keep) that zero the `sparsity` share of all those weights with the smallest |w|, one threshold for
# all the matrices. Check it with check("ex-survey6-magnitude", global_masks).
import torch

from bertology_lib.book.exercises import check


def global_masks(weights, sparsity):
    flat = torch.cat([w.abs().flatten() for w in weights.values()])
    n_prune = round(sparsity * flat.numel())
    if n_prune == 0:
        return {n: torch.ones_like(w, dtype=torch.bool) for n, w in weights.items()}
    threshold = flat.kthvalue(n_prune).values  # the n_prune-th smallest magnitude over all the matrices
    return {n: w.abs() > threshold for n, w in weights.items()}


block_weights = {n: m.weight.detach() for n, m in comp.prunable_weights(m0).items()}
masks = global_masks(block_weights, 0.4)
assert all(torch.equal(masks[n], m) for n, m in comp.magnitude_masks(m0, 0.4).items())
kept = pd.Series({n: float(m.float().mean()) for n, m in masks.items()})
print(f"at 40% sparsity the matrices keep between {kept.min():.0%} and {kept.max():.0%} of their weights")
print(check("ex-survey6-magnitude", global_masks))'''

SOLUTIONS["ex-survey7-bow-rates"] = '''\
# Exercise: ex-survey7-bow-rates
# The rule "negated iff the sentence contains not, never or no" (P(negated) = 1 or 0): its failure rate on
# every test of checklist.negation_suite(book_world, 50, seed=0), with
# book_world = minibert.MiniBertConfig.for_profile("quick").corpus_config(), as {test name: rate}.
# Check it with check("ex-survey7-bow-rates", bow_rates).
from bertology_lib.book.exercises import check


def bow(text):
    return int(any(w in ("not", "never", "no") for w in text.split()))


book_world = minibert.MiniBertConfig.for_profile("quick").corpus_config()  # the same world at every profile
bow_rates = {}
for t in checklist.negation_suite(book_world, 50, seed=0):
    failed = []
    for it in t.items:
        row = {"pred": bow(it.text), "label": it.label}
        if it.perturbed is not None:  # INV compares the predicted labels, DIR the probability of "negated"
            row.update(pred_perturbed=bow(it.perturbed), p_before=bow(it.text), p_after=bow(it.perturbed))
        failed.append(bh.item_failed(t, row))
    bow_rates[t.name] = sum(failed) / len(failed)
print(pd.Series(bow_rates).round(2).to_string())
print(check("ex-survey7-bow-rates", bow_rates))'''

SOLUTIONS["ex-survey7-overlap"] = '''\
# Exercise: ex-survey7-overlap
# Toy NLI without the conjunction kind, in the book's world:
# tasks.toy_nli(kinds=("paraphrase", "negation", "chain"), n_train=2000, world_seed=0, vocab_size=3000).
# The share of its training pairs with full lexical overlap, and the share of those labelled entailment.
# Check it with check("ex-survey7-overlap", (overlap_share, entailed_share)).
from bertology_lib.book.exercises import check

quick = minibert.MiniBertConfig.for_profile("quick")  # the book's world: world_seed 0, vocab_size 3000
no_conjunction = tasks.toy_nli(kinds=("paraphrase", "negation", "chain"), n_train=2000,
                               world_seed=quick.corpus_seed, vocab_size=quick.vocab_size)
train_pairs = no_conjunction.examples("train")
full_pairs = [e for e in train_pairs if hans.full_overlap(e.text, e.text_pair)]
overlap_share = len(full_pairs) / len(train_pairs)
entailed_share = sum(e.label == tasks.ENTAILMENT for e in full_pairs) / len(full_pairs)
display(hans.overlap_table(train_pairs).round(3))
print(check("ex-survey7-overlap", (overlap_share, entailed_share)))'''

SOLUTIONS["ex-dup1-reconstruction"] = '''\
# Exercise: ex-dup1-reconstruction
# Write reconstruction(mlm, tok, texts): for every layer (0 = embeddings), the share of the input tokens
# (special tokens and padding excluded) that the MLM head's argmax recovers from that layer's hidden states.
# Check it with check("ex-dup1-reconstruction", reconstruction).
import torch

from bertology_lib.book.exercises import check


@torch.no_grad()
def reconstruction(mlm, tok, texts):
    enc = tok(texts, return_tensors="pt", padding=True)
    ids = enc["input_ids"]
    keep = enc["attention_mask"].bool() & ~torch.isin(ids, torch.tensor(tok.all_special_ids))
    hidden = mlm(input_ids=ids, attention_mask=enc["attention_mask"], output_hidden_states=True).hidden_states
    head = getattr(mlm, "cls", None) or mlm.predictions  # BERT's MLM head (ALBERT calls it predictions)
    return [float(((head(h).argmax(-1) == ids) & keep).sum() / keep.sum()) for h in hidden]


mine = reconstruction(mlm, tok, texts[:200])
library = reconstruction_by_layer(mlm, tok, texts[:200]).reconstruction.tolist()
assert max(abs(a - b) for a, b in zip(mine, library)) < 0.005
print("reconstruction per layer:", [round(x, 3) for x in mine])
print(check("ex-dup1-reconstruction", reconstruction))'''

SOLUTIONS["ex-dup1-cka"] = '''\
# Exercise: ex-dup1-cka
# Write linear_cka(X, Y) for two representations (n, d1) and (n, d2) of the same n items.
# Check it with check("ex-dup1-cka", linear_cka).
from bertology_lib.book.exercises import check


def linear_cka(X, Y):
    X = X.double() - X.double().mean(0)  # centre every unit over the items
    Y = Y.double() - Y.double().mean(0)
    return float((Y.T @ X).norm() ** 2 / ((X.T @ X).norm() * (Y.T @ Y).norm()))


with_last = [linear_cka(acts.resid[i], acts.resid[-1]) for i in range(len(acts.resid))]
assert all(abs(v - float(cka[i, -1])) < 1e-6 for i, v in enumerate(with_last))
print("CKA of every layer with the last:", [round(v, 3) for v in with_last])
print(check("ex-dup1-cka", linear_cka))'''

SOLUTIONS["ex-dup2-seeds-needed"] = '''\
# Exercise: ex-dup2-seeds-needed
# Write seeds_needed(sd_diff, gain): the fewest seeds (at least 2) for which a mean paired gain `gain`, whose
# per-seed differences have standard deviation sd_diff, gets a 95% t interval entirely above 0.
# Check it with check("ex-dup2-seeds-needed", seeds_needed).
import math

from scipy import stats as scipy_stats

from bertology_lib.book.exercises import check


def seeds_needed(sd_diff, gain):
    n = 2
    while gain - scipy_stats.t.ppf(0.975, n - 1) * sd_diff / math.sqrt(n) <= 0:  # the interval's lower end
        n += 1
    return n


qa = toy_results["toy QA (SQuAD 2.0 style)"]
gains = [a.score("test") - b.score("test") for a, b in zip(qa[first], qa["baseline"])]  # paired by seed
sd_gain = float(pd.Series(gains).std())
print(f"toy QA, {first} - baseline: the paired F1 gain varies by {100 * sd_gain:.2f} points (sd) over seeds; "
      f"a true gain of the paper's +1.5 F1 would need {seeds_needed(sd_gain, 0.015)} seeds")
print(check("ex-dup2-seeds-needed", seeds_needed))'''

SOLUTIONS["ex-dup2-ensemble"] = '''\
# Exercise: ex-dup2-ensemble
# Write ensemble_accuracy(member_probs, golds): one (N, C) probability tensor per member and the N gold
# labels -> the accuracy of the ensemble that sums the members' probabilities.
# Check it with check("ex-dup2-ensemble", ensemble_accuracy).
import torch

from bertology_lib.book.exercises import check


def ensemble_accuracy(member_probs, golds):
    total = sum(torch.as_tensor(p).double() for p in member_probs)
    return float((total.argmax(-1) == torch.as_tensor(golds)).double().mean())


first_seed = [toy_results["toy classification"][m][0].predictions["test"] for m in members]
mine = ensemble_accuracy([p.probs["probs"] for p in first_seed], first_seed[0].golds)
row = ens[(ens.task == "toy classification") & (ens.seed_index == 0)]
assert abs(mine - float(row.duplicated_ensemble.iloc[0])) < 1e-9
print(f"toy classification, first seed: the duplicated ensemble scores {mine:.3f}")
print(check("ex-dup2-ensemble", ensemble_accuracy))'''

NOTEBOOKS = {
    "survey_05_training": ("ex-survey5-lora-params", "ex-survey5-paired"),
    "survey_05b_architecture": ("ex-survey52-block-params", "ex-survey52-width"),
    "survey_05c_objectives": ("ex-survey53-partial", "ex-survey53-span"),
    "survey_05d_nsp": ("ex-survey54-nsp-params", "ex-survey54-overlap"),
    "survey_06_model_size": ("ex-survey6-head-params", "ex-survey6-magnitude"),
    "survey_07_directions": ("ex-survey7-bow-rates", "ex-survey7-overlap"),
    "duplication_01_reconstruction": ("ex-dup1-reconstruction", "ex-dup1-cka"),
    "duplication_02_boost": ("ex-dup2-seeds-needed",),
    "duplication_02b_nli_classification": ("ex-dup2-ensemble",),
}
LABELS = [label for pair in NOTEBOOKS.values() for label in pair]


# -------------------------------------------------------------------------------- conventions


def test_every_exercise_has_a_checker_and_a_solution_cell_that_follows_the_conventions():
    cells.assert_conventions(SOLUTIONS, LABELS, 16)


def test_notebook_solution_cells_are_the_tested_ones():
    cells.assert_notebook_cells(NOTEBOOKS, SOLUTIONS)


@pytest.mark.parametrize("label", [lb for lb in LABELS if lb not in ("ex-survey7-bow-rates", "ex-survey7-overlap")])
def test_function_answers_need_a_function_and_survive_its_errors(label):
    cells.assert_function_answer_needed(label)


def test_patches_carry_the_tested_solution_cells():
    """The notebook patches (applied by hand, outside the repository) hold these cells verbatim."""
    patches = ROOT.parent / "patches"
    found = 0
    for nb_name, labels in NOTEBOOKS.items():
        path = patches / f"{nb_name}.json"
        if not path.is_file():
            continue
        cells = [c for entry in json.loads(path.read_text()) for c in entry["cells"]]
        code = {c["source"].splitlines()[0]: c for c in cells if c["cell_type"] == "code"}
        for label in labels:
            cell = code[f"# Exercise: {label}"]
            assert cell["source"] == SOLUTIONS[label] and cell["tags"] == ["solution", "hide-cell"]
            assert any(f":label: {label}" in c["source"] for c in cells if c["cell_type"] == "markdown")
            found += 1
    if not found:
        pytest.skip("no patch files next to the repository")


def test_checking_never_moves_the_global_random_state(toy_dir):
    state = torch.random.get_rng_state()
    for label in ("ex-survey5-lora-params", "ex-survey52-block-params", "ex-survey6-head-params",
                  "ex-survey6-magnitude", "ex-dup1-reconstruction"):
        ex.check(label, lambda *a: 0)
    assert torch.equal(state, torch.random.get_rng_state())


# ================================================================================ survey_05_training


def test_survey5_lora_truth_is_the_adapters_plus_the_head():
    for n_layers, d, r, c in st.SURVEY5_LORA_CASES:
        assert st.survey5_lora_truth(n_layers, d, r, c) == n_layers * 2 * 2 * r * d + d * d + d + d * c + c


def test_survey5_lora_wrong_answers():
    cells.fails("ex-survey5-lora-params", lambda L, d, r, c: L * 4 * r * d, "task head")
    cells.fails("ex-survey5-lora-params", lambda L, d, r, c: L * 6 * r * d + d * d + d + d * c + c, "key")
    cells.fails("ex-survey5-lora-params", lambda L, d, r, c: L * 2 * r * d + d * d + d + d * c + c, "two low-rank")
    cells.fails("ex-survey5-lora-params", lambda L, d, r, c: L * 4 * r * d + d * c + c, "dense layer")
    cells.fails("ex-survey5-lora-params", lambda L, d, r, c: 2 * L * (d * d + d) + d * d + d + d * c + c, "freezes")
    cells.fails("ex-survey5-lora-params", lambda L, d, r, c: L * 4 * r * d + d * d + d * c + c + 1, "too few")
    cells.fails("ex-survey5-lora-params", lambda L, d, r, c: 0.5, "whole number")


def test_survey5_paired_truth_is_the_paired_t_interval():
    from scipy import stats as sst

    from bertology_lib import stats

    for a, b in st.SURVEY5_PAIRED_CASES:
        seeds = sorted(a)
        res = sst.ttest_rel([a[s] for s in seeds], [b[s] for s in seeds])
        ci = res.confidence_interval(0.95)
        mean, lo, hi = st.survey5_paired_truth(a, b)
        assert (lo, hi) == pytest.approx((100 * ci.low, 100 * ci.high), abs=1e-9)
        assert mean == pytest.approx(100 * sum(a[s] - b[s] for s in seeds) / len(seeds))
        assert stats.paired_points(a, b) == tuple(round(x, 1) for x in (mean, lo, hi))
    # the cases catch every typical mistake: b is in another order, sometimes with more seeds
    assert any(list(b) != list(a) for a, b in st.SURVEY5_PAIRED_CASES)
    assert any(len(b) > len(a) for a, b in st.SURVEY5_PAIRED_CASES)


def test_survey5_solutions_pass(toy_dir, tmp_cache, capsys):
    from bertology_lib import stats
    from bertology_lib.data import tasks
    from bertology_lib.experiments.survey import training as tv
    from bertology_lib.training import finetune as ft

    task = tasks.toy_classification(n_train=16, n_dev=8, n_test=8)
    sizes = tv.TrainingSizes.for_profile("smoke")
    lora_runs = {0: ft.finetune(task, toy_dir, sizes.finetune_config("smoke", "lora"), 0, strategy="lora",
                                lora_rank=sizes.lora_rank)}
    names = {"strategies": SimpleNamespace(pretrained=ft.as_source(toy_dir).load_model()), "sizes": sizes,
             "task": task, "lora_runs": lora_runs, "strategy_seeds": [0, 1], "n_params": lora_runs[0].train["n_params"]}
    out = cells.solve(SOLUTIONS, "ex-survey5-lora-params", capsys, **names)
    counted = lora_runs[0].train["n_trainable"]
    assert f"{counted:,} trainable weights (the fine-tuning counted {counted:,})" in out
    full_s, frozen_last = {0: 0.905, 1: 0.88, 2: 0.9}, {2: 0.85, 0: 0.84, 1: 0.845, 3: 0.83}
    out = cells.solve(SOLUTIONS, "ex-survey5-paired", capsys, stats=stats, full_s=full_s, frozen_last=frozen_last)
    assert out.count(str(stats.paired_points(full_s, frozen_last))) == 2  # the solution's interval is the library's


def test_survey5_paired_wrong_answers():
    import numpy as np
    from scipy import stats as sst

    def interval(d, q):
        m, sd = float(np.mean(d)), float(np.std(d, ddof=1))
        return m, m - q * sd / math.sqrt(len(d)), m + q * sd / math.sqrt(len(d))

    def by_seed(a, b):
        return [100 * (a[s] - b[s]) for s in sorted(a)]

    cells.fails("ex-survey5-paired", lambda a, b: interval([a[s] - b[s] for s in sorted(a)],
                                                      sst.t.ppf(0.975, len(a) - 1)), "points")
    cells.fails("ex-survey5-paired", lambda a, b: interval([100 * (b[s] - a[s]) for s in sorted(a)],
                                                      sst.t.ppf(0.975, len(a) - 1)), "a - b")
    cells.fails("ex-survey5-paired", lambda a, b: interval([100 * (x - y) for x, y in zip(a.values(), b.values())],
                                                      sst.t.ppf(0.975, len(a) - 1)), "by seed")
    cells.fails("ex-survey5-paired", lambda a, b: interval(by_seed(a, b), 1.959964), "Student")
    def ddof0(a, b):
        d = by_seed(a, b)
        half = sst.t.ppf(0.975, len(d) - 1) * np.std(d) / math.sqrt(len(d))
        return np.mean(d), np.mean(d) - half, np.mean(d) + half

    cells.fails("ex-survey5-paired", ddof0, "n - 1")

    def welch(a, b):
        seeds = sorted(a)
        x, y = np.array([a[s] for s in seeds]), np.array([b[s] for s in seeds])
        ci = sst.ttest_ind(x, y, equal_var=False).confidence_interval(0.95)
        return 100 * (x.mean() - y.mean()), 100 * ci.low, 100 * ci.high

    cells.fails("ex-survey5-paired", welch, "independent")
    cells.fails("ex-survey5-paired", lambda a, b: (1.0, 2.0), "three numbers")


# ================================================================================ survey_05b_architecture


def test_survey52_block_truth_is_12d2_plus_13d_per_block_and_the_real_model():
    from transformers import BertConfig, BertForMaskedLM

    for n_layers, d, h in st.SURVEY52_BLOCK_CASES:
        assert st.survey52_block_truth(n_layers, d, h) == n_layers * (12 * d * d + 13 * d)
    cfg = BertConfig(vocab_size=30, hidden_size=64, num_hidden_layers=4, num_attention_heads=4, intermediate_size=256)
    assert st.survey52_block_truth(4, 64, 4) == sum(p.numel() for p in BertForMaskedLM(cfg).bert.encoder.parameters())
    assert st.survey52_block_truth(4, 64, 4) == 199_936  # the quick table's block_params


def test_survey52_width_truth_is_the_closest_multiple_of_the_heads():
    def params(n_layers, d):
        return n_layers * (12 * d * d + 13 * d)

    for n_layers, base_layers, base_d, h in st.SURVEY52_WIDTH_CASES:
        target = params(base_layers, base_d)
        widths = range(h, 8 * base_d + 1, h)
        best = min(widths, key=lambda d: (abs(params(n_layers, d) - target), d))
        assert st.survey52_width_truth(n_layers, base_layers, base_d, h) == best
    assert st.survey52_width_truth(2, 4, 64, 4) == 92 and st.survey52_width_truth(8, 4, 64, 4) == 44  # the quick grid
    # the cases include shapes where the grid's rule of thumb (equal 12 L d^2) misses
    assert any(st.survey52_width_truth(*c) != st._width_rule_of_thumb(*c) for c in st.SURVEY52_WIDTH_CASES)


def test_survey52_solutions_pass(capsys):
    from bertology_lib.experiments.survey import pretraining as pre
    from bertology_lib.experiments.survey import training as tv
    from bertology_lib.models import minibert

    grid = pre.architecture_grid(tv.TrainingSizes.for_profile("smoke"), [0, 1])
    names = list(grid)
    lab = pd.DataFrame([{"variant": name, "seed": c.seed, "block_params": sum(
        p.numel() for p in minibert.new_bert(50, c.n_layers, c.n_heads, c.d_model).bert.encoder.parameters())}
        for name, cs in grid.items() for c in cs])  # what evaluate_labs counts on the trained lab BERTs
    ns = {"grid": grid, "lab": lab, "base": names[0], "depths": [names[3], names[0], names[4]], "pre": pre}
    cells.solve(SOLUTIONS, "ex-survey52-block-params", capsys, **ns)
    ns_width = {**ns, "block_params": lambda n, d, h: n * (12 * d * d + 13 * d)}  # the first cell's function
    out = cells.solve(SOLUTIONS, "ex-survey52-width", capsys, **ns_width)
    assert "1 block, d=46: grid width 46, closest in parameters 46" in out


def test_survey52_wrong_answers():
    cells.fails("ex-survey52-block-params", lambda n, d, h: 12 * n * d * d, "approximation")
    cells.fails("ex-survey52-block-params", lambda n, d, h: n * (12 * d * d + 9 * d), "LayerNorms")
    cells.fails("ex-survey52-block-params", lambda n, d, h: n * (12 * d * d + 4 * d), "bias")
    cells.fails("ex-survey52-block-params", lambda n, d, h: n * (8 * d * d + 9 * d), "4 x d")
    cells.fails("ex-survey52-block-params", lambda n, d, h: n * (12 * d * d + 13 * d + h), "n_heads")
    cells.fails("ex-survey52-width", st._width_rule_of_thumb, "rule of thumb")
    cells.fails("ex-survey52-width", lambda n, bn, bd, h: round(bd * math.sqrt(bn / n)) * h + 1, "multiple of n_heads")
    cells.fails("ex-survey52-width", lambda n, bn, bd, h: st.survey52_width_truth(n, bn, bd, h) + h, "too wide")


# ================================================================================ survey_05c_objectives


def test_survey53_partial_truth_matches_token_masking_by_simulation():
    from bertology_lib.training.masking import mask_tokens

    g = torch.Generator().manual_seed(0)
    for pieces, p in (((1, 1, 2, 3), 0.15), ((2, 2, 2, 5, 1, 1, 3), 0.5)):
        word_of = torch.tensor([w for w, k in enumerate(pieces) for _ in range(k)])
        ids = torch.arange(10, 10 + len(word_of)).repeat(40_000, 1)
        _, labels = mask_tokens(ids, mask_id=1, candidate_ids=torch.arange(5, 9), mask_prob=p, generator=g)
        picked = labels != -100  # token masking: every piece is its own unit
        per_word = torch.zeros(len(ids), len(pieces)).index_add_(1, word_of, picked.float())
        whole = per_word == torch.tensor(pieces, dtype=torch.float)
        partial_pieces = (picked & ~whole[:, word_of]).sum()
        sim = float(partial_pieces / picked.sum())
        assert sim == pytest.approx(st.survey53_partial_truth(pieces, p), abs=0.004)
    assert st.survey53_partial_truth([1] * 10, 0.15) == pytest.approx(0.0, abs=1e-12)


def test_survey53_span_truth_matches_span_groups_by_simulation():
    from bertology_lib.training.masking import span_groups

    g = torch.Generator().manual_seed(1)
    for p, max_len in st.SURVEY53_SPAN_CASES:
        groups = span_groups(torch.arange(400_000).repeat(2, 1), p, max_len, g)
        lengths = torch.cat([torch.bincount(r)[:-1] for r in groups]).float()
        assert float(lengths.mean()) == pytest.approx(st.survey53_span_truth(p, max_len), abs=0.03)
        assert int(lengths.max()) <= max_len
    assert st._span_rule() in ("clamped", "redrawn")
    assert st._span_mean_redrawn(0.2, 10) == pytest.approx(3.8, abs=0.01)  # SpanBERT's reported mean


def test_survey53_solutions_pass(tmp_cache, capsys):
    from bertology_lib.experiments.survey import pretraining as pre
    from bertology_lib.experiments.survey import training as tv
    from bertology_lib.models import minibert

    mb_cfg = minibert.MiniBertConfig.for_profile("smoke")
    grid = pre.objective_grid(tv.TrainingSizes.for_profile("smoke"), [0])
    tok = pre.lab_tokenizer(grid["token"][0], mb_cfg)
    held_texts = [s.text for s in minibert.corpus(mb_cfg)[1]]
    cells.solve(SOLUTIONS, "ex-survey53-partial", capsys, tok=tok, held_texts=held_texts)
    cells.solve(SOLUTIONS, "ex-survey53-span", capsys, pre=pre)


def test_survey53_wrong_answers():
    cells.fails("ex-survey53-partial", lambda ks, p: sum(1 - (1 - p) ** k - p ** k for k in ks) / len(ks), "share of words")
    cells.fails("ex-survey53-partial", lambda ks, p: sum(1 - (1 - p) ** k - p ** k for k in ks) / sum(1 - (1 - p) ** k
                                                                                                 for k in ks),
           "any masked piece")
    cells.fails("ex-survey53-partial", lambda ks, p: sum(k * (p - p ** k) for k in ks) / sum(ks), "masked pieces")
    cells.fails("ex-survey53-partial", lambda ks, p: (sum(k * (p - p ** k) for k in ks if k > 1)
                                                 / (p * sum(k for k in ks if k > 1))) if max(ks) > 1 else 0.0,
           "single-piece")
    other = st._span_mean_redrawn if st._span_rule() == "clamped" else st._span_mean_clamped
    cells.fails("ex-survey53-span", other, "longer than max_len")
    cells.fails("ex-survey53-span", lambda p, m: 1 / p, "unclipped")
    cells.fails("ex-survey53-span", lambda p, m: st._span_mean_clamped(p, m) - 1, "at least one word")
    cells.fails("ex-survey53-span", lambda p, m: st.survey53_span_truth(p, m) + 0.5, "too long")


# ================================================================================ survey_06_model_size


def test_survey6_head_truth_counts_the_rows_and_columns_of_a_head():
    for d, h, n in ss.SURVEY6_HEAD_CASES:
        w = d // h
        assert ss.survey6_head_truth(d, h, n) == n * (3 * (w * d + w) + w * d)
    assert ss.survey6_head_truth(128, 4, 10) == 2_080_130 - 1_915_330  # the quick teacher, printed in the notebook


def test_survey6_magnitude_truth_keeps_the_largest_weights_globally():
    for weights, s, masks in ss._magnitude_cases():
        flat = torch.cat([w.abs().flatten() for w in weights.values()])
        kept = torch.cat([masks[n].flatten() for n in weights])
        assert int(kept.sum()) == flat.numel() - round(s * flat.numel())
        assert float(flat[kept].min()) > float(flat[~kept].max())  # every kept weight outweighs every pruned one
        per_matrix = ss._per_matrix(weights, s)
        assert ss._mask_disagreement(per_matrix, masks) > 0.01  # the cases tell global from per-matrix


def test_survey6_solutions_pass(toy_dir, capsys):
    from bertology_lib.data import tasks
    from bertology_lib.interventions import compression as comp
    from bertology_lib.interventions import heads
    from bertology_lib.training import finetune as ft

    task = tasks.toy_classification(n_train=8, n_dev=4, n_test=4)
    m0 = ft.build_model(task, ft.as_source(toy_dir).load_model(), 0).eval()
    n_layers, n_heads = heads.head_shape(m0)
    k40 = round(0.4 * n_layers * n_heads)
    mask = torch.ones(n_layers, n_heads)
    mask.view(-1)[:k40] = 0  # at this size a whole layer loses its heads
    ns = {"m0": m0, "pruned0": heads.prune_heads(m0, mask), "k40": k40, "L": n_layers, "H": n_heads, "heads": heads,
          "comp": comp, "pd": pd, "torch": torch}
    cells.solve(SOLUTIONS, "ex-survey6-head-params", capsys, **ns)
    cells.solve(SOLUTIONS, "ex-survey6-magnitude", capsys, **ns)


def test_survey6_wrong_answers():
    cells.fails("ex-survey6-head-params", lambda d, h, n: n * 4 * (d // h) * d, "biases")
    cells.fails("ex-survey6-head-params", lambda d, h, n: n * (4 * (d // h) * d + 4 * (d // h)), "shared")
    cells.fails("ex-survey6-head-params", lambda d, h, n: n * 3 * ((d // h) * d + d // h), "output projection")
    cells.fails("ex-survey6-head-params", lambda d, h, n: n * (4 * d * d + 3 * d), "d / n_heads")

    def global_masks(weights, s, keep_smallest=False):
        flat = torch.cat([w.abs().flatten() for w in weights.values()])
        k = round(s * flat.numel())
        thr = flat.kthvalue(k).values
        if keep_smallest:
            thr = flat.kthvalue(flat.numel() - k).values
            return {n: w.abs() <= thr for n, w in weights.items()}
        return {n: w.abs() > thr for n, w in weights.items()}

    assert ex.check("ex-survey6-magnitude", global_masks).ok
    cells.fails("ex-survey6-magnitude", ss._per_matrix, "per-matrix")
    cells.fails("ex-survey6-magnitude", lambda w, s: {n: ~m for n, m in global_masks(w, s).items()}, "share set to zero")
    cells.fails("ex-survey6-magnitude", lambda w, s: global_masks(w, s, keep_smallest=True), "largest magnitudes")
    cells.fails("ex-survey6-magnitude", lambda w, s: {n: m.float().numpy() for n, m in global_masks(w, 0.1).items()},
           "not yet")
    cells.fails("ex-survey6-magnitude", lambda w, s: list(w.values()), "same names")


# ================================================================================ survey_07_directions


class _BagOfWords(torch.nn.Module):
    """A fake classifier: P(negated) = 1 when the text has a licensor (not, never, no), else 0."""

    def __init__(self, tok):
        super().__init__()
        self.ids = torch.tensor(tok.convert_tokens_to_ids(list(ss.LICENSORS)))
        self.encoder = torch.nn.Module()
        self.encoder.config = SimpleNamespace(max_position_embeddings=128)

    def forward(self, input_ids, attention_mask=None, token_type_ids=None, labels=None):
        has = torch.isin(input_ids, self.ids).any(-1).float()
        return SimpleNamespace(logits=torch.stack([(1 - has) * 30.0, has * 30.0], -1), loss=None)


def test_survey7_bow_truth_is_what_the_suite_runner_gives_a_bag_of_words_model(toy_dir):
    from bertology_lib.data import checklist
    from bertology_lib.experiments.survey import behaviour as bh
    from bertology_lib.training import finetune as ft

    tok = ft.as_source(toy_dir).load_tokenizer()
    suite = checklist.negation_suite(ss.book_world(), 50, seed=0)
    table = bh.failure_table(bh.run_tests(_BagOfWords(tok), tok, suite, ("affirmative", "negated")))
    assert dict(zip(table.test, table.failure_rate)) == pytest.approx(ss.survey7_bow_truth(), abs=1e-9)
    truth = ss.survey7_bow_truth()
    assert truth["negated relative clause only"] == 1.0 and truth["not in the main clause"] == 0.0
    assert 0.3 < truth["add a negated relative clause"] < 0.7


def test_survey7_overlap_truth_counts_full_overlap_pairs():
    from bertology_lib.data import hans, tasks

    pool = tasks.toy_nli(kinds=("paraphrase", "negation", "chain"), n_train=2000, world_seed=0, vocab_size=3000)
    train = pool.examples("train")
    full = [e for e in train if hans.full_overlap(e.text, e.text_pair)]
    share, entailed = ss.survey7_overlap_truth()
    assert share == pytest.approx(len(full) / 2000)
    assert entailed == pytest.approx(sum(e.label == tasks.ENTAILMENT for e in full) / len(full))
    assert ss.book_world().seed == 0 and ss.book_world().vocab_size == 3000  # what the exercise text says


def test_survey7_solutions_pass(capsys):
    from bertology_lib.data import checklist, hans, tasks
    from bertology_lib.experiments.survey import behaviour as bh
    from bertology_lib.models import minibert

    ns = {"minibert": minibert, "checklist": checklist, "bh": bh, "tasks": tasks, "hans": hans, "pd": pd}
    cells.solve(SOLUTIONS, "ex-survey7-bow-rates", capsys, **ns)
    cells.solve(SOLUTIONS, "ex-survey7-overlap", capsys, **ns)


def test_survey7_wrong_answers():
    truth = dict(ss.survey7_bow_truth())
    cells.fails("ex-survey7-bow-rates", {**truth, "add a negated relative clause": 1.0}, "prediction changes")
    cells.fails("ex-survey7-bow-rates", {**truth, "negated relative clause only": 0.0}, "anywhere in the sentence")
    cells.fails("ex-survey7-bow-rates", {**truth, "affirmative": 0.1}, "1 test(s) off", "'affirmative'")
    cells.fails("ex-survey7-bow-rates", {k: 100 * v for k, v in truth.items()}, "percentages")
    cells.fails("ex-survey7-bow-rates", {k: v for k, v in truth.items() if k != "affirmative"}, "missing")
    cells.fails("ex-survey7-bow-rates", 0.2, "dict")
    share, entailed = ss.survey7_overlap_truth()
    cells.fails("ex-survey7-overlap", (entailed, share), "wrong order")
    cells.fails("ex-survey7-overlap", (0.338, 0.3269), "all four kinds")  # toy NLI without kinds=: the four kinds
    cells.fails("ex-survey7-overlap", (share, 0.5), "among the full-overlap pairs")
    cells.fails("ex-survey7-overlap", (100 * share, 100 * entailed), "percentages")
    cells.fails("ex-survey7-overlap", 0.11, "two numbers")


# ================================================================================ duplication_01_reconstruction


def test_dup1_reconstruction_truth_counts_real_tokens_layer_by_layer():
    for mlm, tok, texts in du.dup1_mlms():
        hits = torch.zeros(mlm.config.num_hidden_layers + 1)
        n = 0
        with torch.no_grad():
            for t in texts:  # one sentence at a time: no padding at all
                enc = tok(t, return_tensors="pt")
                ids = enc["input_ids"][0, 1:-1]  # without [CLS] and [SEP]
                hs = mlm(**enc, output_hidden_states=True).hidden_states
                hits += torch.tensor([float((mlm.cls(h)[0, 1:-1].argmax(-1) == ids).sum()) for h in hs])
                n += len(ids)
        assert (hits / n).tolist() == pytest.approx(du.dup1_reconstruction_truth(mlm, tok, texts), abs=1e-6)
        rates = du.dup1_reconstruction_truth(mlm, tok, texts)
        assert 0.3 < min(rates) and max(rates) - min(rates) > 0.05  # decodable, and the layers differ
        mistakes = du._reconstruction_mistakes(mlm, tok, texts)
        assert all(max(abs(a - b) for a, b in zip(mistakes[key], rates)) > 0.01 for key in ("specials", "everything"))


def test_dup1_cka_truth_is_linear_cka():
    import numpy as np

    for x, y in du._cka_cases():
        a, b = x.double().numpy(), y.double().numpy()
        a, b = a - a.mean(0), b - b.mean(0)
        ref = np.linalg.norm(b.T @ a) ** 2 / (np.linalg.norm(a.T @ a) * np.linalg.norm(b.T @ b))
        assert du.dup1_cka_truth(x, y) == pytest.approx(ref, abs=1e-9)
    x, y = du._cka_cases()[0]
    assert du.dup1_cka_truth(x, y) == pytest.approx(1.0, abs=1e-9)  # a rotated, rescaled, shifted copy


def test_dup1_solutions_pass(toy_dir, capsys):
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
    ns = {"mlm": mlm, "tok": tok, "texts": [s.text for s in sentences], "acts": acts, "cka": cka_matrix(acts.resid),
          "reconstruction_by_layer": reconstruction_by_layer}
    cells.solve(SOLUTIONS, "ex-dup1-reconstruction", capsys, **ns)
    cells.solve(SOLUTIONS, "ex-dup1-cka", capsys, **ns)


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

    for sd, gain in du.DUP2_SEEDS_CASES:
        n = du.dup2_seeds_truth(sd, gain)
        low = [gain - sst.t.ppf(0.975, k - 1) * sd / math.sqrt(k) for k in (n - 1, n)]
        assert n >= 2 and low[1] > 0 and (n == 2 or low[0] <= 0)
    assert du.dup2_seeds_truth(0.0, 0.01) == 2


def test_dup2_ensemble_truth_sums_probabilities():
    for members, golds in du._ensemble_cases():
        total = sum(m.double() for m in members)
        assert du.dup2_ensemble_truth(members, golds) == pytest.approx(
            float((total.argmax(-1) == torch.tensor(golds)).double().mean()))
    members, golds = du._ensemble_cases()[-1]  # one confident member outweighs two hesitant ones
    assert du.dup2_ensemble_truth(members, golds) != du._ensemble_mistakes(members, golds)["vote"]


def test_dup2_solutions_pass(toy_dir, tmp_cache, capsys):
    from bertology_lib import stats
    from bertology_lib.data import tasks
    from bertology_lib.experiments.duplication import boost as dup
    from bertology_lib.training import finetune as ft

    base = ft.as_source(toy_dir)
    sources = dup.variants(base, n_blocks=2, k=1, second="last")
    cfg = ft.FinetuneConfig.for_profile("smoke", max_steps=3)
    toy = {"toy QA (SQuAD 2.0 style)": tasks.toy_qa(n_train=16, n_dev=8, n_test=8),
           "toy classification": tasks.toy_classification(n_train=16, n_dev=8, n_test=16)}
    toy_results = {name: dup.run(task, sources, [0, 1], cfg) for name, task in toy.items()}
    members = [v for v in sources if v != "baseline"]
    ens = pd.concat([dup.fair_ensembles(r, members).assign(task=name) for name, r in toy_results.items()],
                    ignore_index=True)
    ns = {"toy_results": toy_results, "first": "first 1 duplicated", "members": members, "ens": ens, "pd": pd,
          "stats": stats}
    cells.solve(SOLUTIONS, "ex-dup2-seeds-needed", capsys, **ns)
    cells.solve(SOLUTIONS, "ex-dup2-ensemble", capsys, **ns)


def test_dup2_wrong_answers():
    from scipy import stats as sst

    def first(ok):
        n = 2
        while not ok(n):
            n += 1
        return n

    assert ex.check("ex-dup2-seeds-needed", lambda sd, g: first(
        lambda n: g - sst.t.ppf(0.975, n - 1) * sd / math.sqrt(n) > 0)).ok
    cells.fails("ex-dup2-seeds-needed", lambda sd, g: first(lambda n: g - 1.959964 * sd / math.sqrt(n) > 0), "1.96")
    cells.fails("ex-dup2-seeds-needed", lambda sd, g: first(lambda n: g - 2 * sst.t.ppf(0.975, n - 1) * sd / math.sqrt(n)
                                                       > 0), "lower end")
    cells.fails("ex-dup2-seeds-needed", lambda sd, g: first(lambda n: g - sst.t.ppf(0.975, n) * sd / math.sqrt(n) > 0),
           "n - 1 degrees")
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
    cells.fails("ex-dup2-ensemble", lambda m, g: float((sum(torch.as_tensor(x).log() for x in m).argmax(-1)
                                                   == torch.as_tensor(g)).double().mean()), "log-probabilities")
    cells.fails("ex-dup2-ensemble", lambda m, g: 100.0, "share")


# ================================================================================ survey_05d_nsp


def test_survey54_solutions_pass(tmp_cache, capsys):
    from bertology_lib.experiments.survey import pretraining as pre
    from bertology_lib.experiments.survey import training as tv
    from bertology_lib.models import minibert

    sizes = tv.TrainingSizes.for_profile("smoke")
    mb_cfg = minibert.MiniBertConfig.for_profile("smoke")
    grid = pre.objective_grid(sizes, [0])
    nsp = "whole word + NSP"
    lab = pd.DataFrame({"variant": [nsp], "params": [1000], "nsp_acc": [0.5]})
    out = cells.solve(SOLUTIONS, "ex-survey54-nsp-params", capsys, pre=pre, grid=grid, nsp=nsp, mb_cfg=mb_cfg,
                      sizes=sizes, lab=lab)
    assert f"NSP adds {sizes.lab_d_model ** 2 + 3 * sizes.lab_d_model + 2:,} parameters" in out
    out = cells.solve(SOLUTIONS, "ex-survey54-overlap", capsys, minibert=minibert, mb_cfg=mb_cfg, lab=lab, nsp=nsp)
    assert "the shared-noun detector scores" in out


def test_survey54_wrong_answers():
    from bertology_lib.book.exercises import survey_training2 as st2

    cells.fails("ex-survey54-nsp-params", lambda d: 2 * d + 2, "pooler")
    cells.fails("ex-survey54-nsp-params", lambda d: d * d + 2 * d, "biases")
    cells.fails("ex-survey54-nsp-params", lambda d: d * d + d, "not yet")
    cells.fails("ex-survey54-nsp-params", lambda d: 0.5, "whole number")
    cells.fails("ex-survey54-overlap", lambda s: st2.survey54_overlap_truth(s) * (len(s) - 1) / len(s), "distinct")
    cells.fails("ex-survey54-overlap", lambda s: st2.survey54_overlap_truth(s) + 0.01, "not yet")
    cells.fails("ex-survey54-overlap", lambda s: "x", "number")
