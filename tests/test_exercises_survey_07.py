"""Checked exercises of the survey's §7 notebooks, behavioural tests (``survey_07_directions``,
``survey_07b_real_encoder``; checkers in the modules of the same names under ``bertology_lib.book.exercises``).

For every exercise the checker's truth agrees with an independent computation, the notebook's solution cell passes
its check, and typical wrong answers fail with their specific hint. The teacher solution of each exercise is read
from its notebook (``exercise_cells.solution``) and run here on the notebook's variables rebuilt small (the book's
toy world; a toy task standing in for SST-2).
"""

from __future__ import annotations

import math
from types import SimpleNamespace

import pandas as pd
import pytest
import torch

import exercise_cells as cells
from bertology_lib.book import exercises as ex
from bertology_lib.book.exercises import survey_07_directions as s7
from bertology_lib.book.exercises import survey_07b_real_encoder as s7b

torch.set_num_threads(1)

NOTEBOOKS = {
    "survey_07_directions": ("ex-survey7-bow-rates", "ex-survey7-overlap"),
    "survey_07b_real_encoder": ("ex-s7r-wilson", "ex-s7r-typo-variants"),
}
LABELS = [label for labels in NOTEBOOKS.values() for label in labels]


# -------------------------------------------------------------------------------- conventions


def test_every_exercise_has_a_checker_and_a_solution_cell_that_follows_the_conventions():
    cells.assert_conventions(LABELS, 4)


@pytest.mark.parametrize("label", ["ex-s7r-wilson", "ex-s7r-typo-variants"])
def test_function_answers_need_a_function_and_survive_its_errors(label):
    cells.assert_function_answer_needed(label)


# ================================================================================ survey_07_directions


class _BagOfWords(torch.nn.Module):
    """A fake classifier: P(negated) = 1 when the text has a licensor (not, never, no), else 0."""

    def __init__(self, tok):
        super().__init__()
        self.ids = torch.tensor(tok.convert_tokens_to_ids(list(s7.LICENSORS)))
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
    suite = checklist.negation_suite(s7.book_world(), 50, seed=0)
    table = bh.failure_table(bh.run_tests(_BagOfWords(tok), tok, suite, ("affirmative", "negated")))
    assert dict(zip(table.test, table.failure_rate)) == pytest.approx(s7.survey7_bow_truth(), abs=1e-9)
    truth = s7.survey7_bow_truth()
    assert truth["negated relative clause only"] == 1.0 and truth["not in the main clause"] == 0.0
    assert 0.3 < truth["add a negated relative clause"] < 0.7


def test_survey7_overlap_truth_counts_full_overlap_pairs():
    from bertology_lib.data import hans, tasks

    pool = tasks.toy_nli(kinds=("paraphrase", "negation", "chain"), n_train=2000, world_seed=0, vocab_size=3000)
    train = pool.examples("train")
    full = [e for e in train if hans.full_overlap(e.text, e.text_pair)]
    share, entailed = s7.survey7_overlap_truth()
    assert share == pytest.approx(len(full) / 2000)
    assert entailed == pytest.approx(sum(e.label == tasks.ENTAILMENT for e in full) / len(full))
    assert s7.book_world().seed == 0 and s7.book_world().vocab_size == 3000  # what the exercise text says


def test_survey7_solutions_pass():
    from bertology_lib.data import checklist, hans, tasks
    from bertology_lib.experiments.survey import behaviour as bh
    from bertology_lib.models import minibert

    ns = {"minibert": minibert, "checklist": checklist, "bh": bh, "tasks": tasks, "hans": hans, "pd": pd}
    cells.solve("ex-survey7-bow-rates", **ns)
    cells.solve("ex-survey7-overlap", **ns)


def test_survey7_wrong_answers():
    truth = dict(s7.survey7_bow_truth())
    cells.fails("ex-survey7-bow-rates", {**truth, "add a negated relative clause": 1.0}, "prediction changes")
    cells.fails("ex-survey7-bow-rates", {**truth, "negated relative clause only": 0.0}, "anywhere in the sentence")
    cells.fails("ex-survey7-bow-rates", {**truth, "affirmative": 0.1}, "1 test(s) off", "'affirmative'")
    cells.fails("ex-survey7-bow-rates", {k: 100 * v for k, v in truth.items()}, "percentages")
    cells.fails("ex-survey7-bow-rates", {k: v for k, v in truth.items() if k != "affirmative"}, "missing")
    cells.fails("ex-survey7-bow-rates", 0.2, "dict")
    share, entailed = s7.survey7_overlap_truth()
    cells.fails("ex-survey7-overlap", (entailed, share), "wrong order")
    cells.fails("ex-survey7-overlap", (0.338, 0.3269), "all four kinds")  # toy NLI without kinds=: the four kinds
    cells.fails("ex-survey7-overlap", (share, 0.5), "among the full-overlap pairs")
    cells.fails("ex-survey7-overlap", (100 * share, 100 * entailed), "percentages")
    cells.fails("ex-survey7-overlap", 0.11, "two numbers")


# ================================================================================ survey_07b_real_encoder


def _wilson(k, n, z):
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return centre - half, centre + half


def test_s7r_wilson_truth_is_the_score_interval():
    from scipy.stats import norm

    z = float(norm.ppf(0.975))
    for k, n in s7b.S7R_WILSON_CASES:
        lo, hi = s7b.s7r_wilson_truth(k, n)
        assert (lo, hi) == pytest.approx(_wilson(k, n, z), abs=1e-9)
        # the score interval: the proportions p0 whose score test |k - n p0| / sqrt(n p0 (1 - p0)) = z
        for p0 in (lo, hi):
            if 0 < p0 < 1:
                assert abs(k - n * p0) / math.sqrt(n * p0 * (1 - p0)) == pytest.approx(z, abs=1e-6)
    assert s7b.s7r_wilson_truth(0, 8)[0] == pytest.approx(0.0, abs=1e-12)
    assert s7b.s7r_wilson_truth(0, 8)[1] == pytest.approx(z * z / (8 + z * z))


def test_s7r_wilson_wrong_answers():
    from scipy.stats import binomtest

    assert ex.check("ex-s7r-wilson", lambda k, n: _wilson(k, n, 1.96)).ok

    def wald(k, n, clip=False):
        p = k / n
        half = 1.96 * math.sqrt(p * (1 - p) / n)
        return (max(0.0, p - half), min(1.0, p + half)) if clip else (p - half, p + half)

    def scipy_ci(method):
        def f(k, n):
            ci = binomtest(k, n).proportion_ci(0.95, method=method)
            return ci.low, ci.high

        return f

    cells.fails("ex-s7r-wilson", wald, "normal (Wald)", "collapses")
    cells.fails("ex-s7r-wilson", lambda k, n: wald(k, n, clip=True), "clipped")
    cells.fails("ex-s7r-wilson", lambda k, n: _wilson(k, n, 2.0), "z = 1.96")
    cells.fails("ex-s7r-wilson", lambda k, n: _wilson(k, n, 1.645), "90%")
    cells.fails("ex-s7r-wilson", scipy_ci("wilsoncc"), "continuity correction")
    cells.fails("ex-s7r-wilson", scipy_ci("exact"), "Clopper-Pearson")
    cells.fails("ex-s7r-wilson", lambda k, n: _wilson(k, n, 1.96)[::-1], "lower bound first")
    cells.fails("ex-s7r-wilson", lambda k, n: tuple(100 * x for x in _wilson(k, n, 1.96)), "percent")
    cells.fails("ex-s7r-wilson", lambda k, n: (k / n, k / n), "not yet")
    cells.fails("ex-s7r-wilson", lambda k, n: k / n, "two numbers")


def _every_typo(text):
    """The typo rule as the exercise states it, enumerated: every word of 4+ letters, every adjacent swap."""
    words = text.split()
    out = {
        " ".join(words[:i] + [w[:j] + w[j + 1] + w[j] + w[j + 2 :]] + words[i + 1 :])
        for i, w in enumerate(words)
        if len(w) >= 4 and w.isalpha()
        for j in range(len(w) - 1)
    }
    return out or {text}


def test_s7r_typo_truth_is_every_draw_of_the_suites_typo():
    from bertology_lib.data import checklist

    for text in s7b.S7R_TYPO_CASES:
        assert set(s7b.s7r_typo_truth(text)) == _every_typo(text), text  # the draws saturate: none left out
        more = next(t for t in checklist.sst2_suite([text], 4000, seed=11) if t.name == "typo")
        assert {it.perturbed for it in more.items} == set(s7b.s7r_typo_truth(text))  # and nothing else is drawn
    assert s7b.s7r_typo_truth("too bad .") == {"too bad ."}
    assert "the film is n't as good as it should have been ." in s7b.s7r_typo_truth(s7b.S7R_TYPO_CASES[1])  # o <-> o
    # the suite draws the typos of real sentences from these sets
    texts = list(s7b.S7R_TYPO_CASES)
    typo = next(t for t in checklist.sst2_suite(texts, 40, seed=3) if t.name == "typo")
    assert all(it.perturbed in _every_typo(it.text) for it in typo.items)
    # the hidden cases tell every typical mistake from the truth
    for key in s7b._typo_mistakes(texts[0]):
        assert any(s7b._typo_mistakes(t)[key] != set(s7b.s7r_typo_truth(t)) for t in texts), key


def test_s7r_typo_wrong_answers():
    def variants(keep=lambda w: len(w) >= 4 and w.isalpha(), drop_same=False, empty=False, adjacent=True):
        def f(text):
            out = s7b._typo_variants(text, keep, adjacent)
            if drop_same:
                out.discard(text)
            return out if out or empty else {text}

        return f

    assert ex.check("ex-s7r-typo-variants", variants()).ok
    assert ex.check("ex-s7r-typo-variants", lambda t: sorted(variants()(t))).ok  # any collection of sentences
    cells.fails("ex-s7r-typo-variants", variants(drop_same=True), "equal letters")
    cells.fails("ex-s7r-typo-variants", variants(empty=True), "no word qualifies")
    cells.fails("ex-s7r-typo-variants", variants(keep=lambda w: len(w) >= 3 and w.isalpha()), "at least 4 characters")
    cells.fails("ex-s7r-typo-variants", variants(keep=lambda w: len(w) > 4 and w.isalpha()), "exactly 4")
    cells.fails("ex-s7r-typo-variants", variants(keep=lambda w: len(w) >= 4), "letters alone")
    cells.fails("ex-s7r-typo-variants", variants(adjacent=False), "adjacent")
    cells.fails("ex-s7r-typo-variants", lambda t: {t}, "not yet", "misses")
    cells.fails("ex-s7r-typo-variants", lambda t: set(), "not yet")
    cells.fails("ex-s7r-typo-variants", lambda t: t, "a set of sentences")


def test_s7r_solutions_pass(toy_dir):
    from bertology_lib.data import checklist, tasks
    from bertology_lib.experiments.survey import behaviour as bh
    from bertology_lib.training import finetune as ft

    task = tasks.toy_classification(n_train=8, n_dev=4, n_test=24)  # stands in for SST-2
    src = ft.as_source(toy_dir)
    tok = src.load_tokenizer()
    suite = checklist.sst2_suite([e.text for e in task.examples("test")], 8, seed=0)
    seeds = [0, 1]
    results = pd.concat(
        [
            bh.run_tests(ft.build_model(task, src.load_model(), s).eval(), tok, suite, task.label_names).assign(seed=s)
            for s in seeds
        ],
        ignore_index=True,
    )
    iid = pd.DataFrame({"seed": seeds, "accuracy": [0.8, 0.7], "error": [0.2, 0.3]})
    ns = {
        "sst2_results": results,
        "sst2_iid": iid,
        "sst2_summary": bh.summarise_seeds(bh.failure_table(results)),
        "sst2_suite": suite,
        "seeds": seeds,
        "bh": bh,
    }
    out = cells.solve("ex-s7r-wilson", **ns)
    assert "i.i.d. error 0.250" in out and out.count(", whisker ") == len(suite)
    out = cells.solve("ex-s7r-typo-variants", **ns)
    assert "of 8 typo items change nothing" in out
