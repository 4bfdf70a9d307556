"""Checkers of the exercises of ``survey_07_directions`` (§7 Directions: behavioural tests and shallow
heuristics, Rogers et al. 2020):

* ``ex-survey7-bow-rates``: the failure rates of a bag-of-words rule on the CheckList negation suite;
* ``ex-survey7-overlap``: lexical overlap in toy NLI without conjunctions.

Every truth is computed here from the library in the book's toy-English world (:func:`book_world`), never typed
in, and none depends on the profile the notebook runs at. Used by that notebook's exercise cells.
"""

from __future__ import annotations

from functools import lru_cache

from bertology_lib.book.exercises.cases import Mistake, judge_value, numbers, within
from bertology_lib.book.exercises.checks import as_number, checker


def book_world():
    """The toy-English world of the book (the quick profile's mini-BERT corpus: seed and vocabulary): the same
    at smoke and quick, and fixed here so that an exercise's truth never depends on the profile."""
    from bertology_lib.models import minibert

    return minibert.MiniBertConfig.for_profile("quick").corpus_config()


LICENSORS = ("not", "never", "no")


def _bow(text: str) -> int:
    return int(any(w in LICENSORS for w in text.split()))


def survey7_bow_truth() -> dict[str, float]:
    """Failure rate per test of the rule "negated iff the sentence contains not, never or no" (P(negated) 1 or
    0) on ``checklist.negation_suite(book_world(), 50, seed=0)``, scored with the suite's own
    ``experiments.survey.behaviour.item_failed``."""
    return dict(_bow_rates())


@lru_cache(maxsize=1)
def _bow_rates() -> tuple[tuple[str, float], ...]:
    from bertology_lib.data import checklist
    from bertology_lib.experiments.survey import behaviour as bh

    out = {}
    for t in checklist.negation_suite(book_world(), 50, seed=0):
        fails = []
        for it in t.items:
            row = {"pred": _bow(it.text), "label": it.label}
            if it.perturbed is not None:
                row.update(
                    pred_perturbed=_bow(it.perturbed), p_before=float(_bow(it.text)), p_after=float(_bow(it.perturbed))
                )
            fails.append(bool(bh.item_failed(t, row)))
        out[t.name] = sum(fails) / len(fails)
    return tuple(out.items())


@checker("ex-survey7-bow-rates")
def _check_survey7_bow(answer):
    """``answer``: a dict {test name: failure rate in [0, 1]} of the bag-of-words rule on every test of the
    suite ``checklist.negation_suite(book_world(), 50, seed=0)``; +-0.005 per test (one item is 0.02)."""
    truth = survey7_bow_truth()
    if not isinstance(answer, dict):
        return False, (
            f"expected a dict {{test name: failure rate}} with one entry per test of the suite, got "
            f"{type(answer).__name__}."
        )
    missing = [n for n in truth if n not in answer]
    if missing:
        return False, f"{len(missing)} test(s) missing, e.g. {missing[0]!r}: give a rate for every test of the suite."
    vals = {n: as_number(answer[n]) for n in truth}
    if any(v is None for v in vals.values()):
        return False, "every rate should be a number."
    if any(v > 1 for v in vals.values()):
        return False, "give failure rates as shares in [0, 1], not percentages."
    wrong = [n for n in truth if abs(vals[n] - truth[n]) > 0.005]
    if not wrong:
        return True, (
            "correct: a licensor detector passes every plain negation and fails exactly where scope "
            "matters; a trained model whose scope bars sit lower has learned more than that."
        )
    inv_scope = [n for n in wrong if n.startswith("add a negated") and vals[n] > 0.9]
    if inv_scope:
        return False, (
            f"{inv_scope[0]!r}: an INV item fails only when the prediction changes; what does the rule "
            "predict before and after the clause is added when the base sentence is already negated?"
        )
    if any(n.endswith("clause only") and vals[n] < 0.1 for n in wrong):
        return False, (
            "the rule looks for a licensor anywhere in the sentence, whichever clause it is in; what does "
            "it say about a sentence whose only 'not' is in a relative clause?"
        )
    return False, (
        f"{len(wrong)} test(s) off, e.g. {wrong[0]!r}: score each item the way "
        "bh.item_failed does, with the rule's prediction (and P(negated) = 1 or 0 for DIR tests)."
    )


NLI_NO_CONJUNCTION = ("paraphrase", "negation", "chain")


@lru_cache(maxsize=1)
def survey7_overlap_truth() -> tuple[float, float]:
    """(share of training pairs with full lexical overlap, share of those labelled entailment) for
    ``tasks.toy_nli(kinds=("paraphrase", "negation", "chain"), n_train=2000)`` in the book's world, from
    ``data.hans.overlap_table``."""
    from bertology_lib.data import hans, tasks

    w = book_world()
    pool = tasks.toy_nli(kinds=NLI_NO_CONJUNCTION, n_train=2000, world_seed=w.seed, vocab_size=w.vocab_size)
    table = hans.overlap_table(pool.examples("train"))
    n_full = int(table.loc[True, "n"]) if True in table.index else 0
    return n_full / int(table["n"].sum()), float(table.loc[True, "entailment"]) if n_full else 0.0


@lru_cache(maxsize=1)
def _overlap_mistakes() -> dict[str, tuple[float, float]]:
    from bertology_lib.data import hans, tasks

    w = book_world()
    pool = tasks.toy_nli(kinds=NLI_NO_CONJUNCTION, n_train=2000, world_seed=w.seed, vocab_size=w.vocab_size)
    ex = pool.examples("train")
    full = [e.meta.get("overlap", 0.0) >= 1.0 for e in ex]
    ent = [e.label == tasks.ENTAILMENT for e in ex]
    std = hans.overlap_table(
        tasks.toy_nli(n_train=2000, world_seed=w.seed, vocab_size=w.vocab_size).examples("train")
    )  # all four kinds: what forgetting ``kinds=`` gives
    share, entailed = survey7_overlap_truth()
    return {
        "swapped": (entailed, share),
        "reverse": (share, sum(f and e for f, e in zip(full, ent)) / max(1, sum(ent))),
        "standard": (float(std.loc[True, "n"] / std["n"].sum()), float(std.loc[True, "entailment"])),
    }


@checker("ex-survey7-overlap")
def _check_survey7_overlap(answer):
    """``answer``: ``(overlap_share, entailed_share)``: the share of the 2,000 training pairs of toy NLI without
    the conjunction kind whose hypothesis words all occur in the premise, and the share of those pairs
    labelled entailment; +-0.005 each."""
    return judge_value(
        answer,
        read=lambda a: numbers(a, 2),
        refuse="expected two numbers (overlap_share, entailed_share), got {answer!r}.",
        screen=lambda v: "give both as shares in [0, 1], not percentages." if any(x > 1 or x < 0 for x in v) else None,
        truth=survey7_overlap_truth,
        match=within(0.005),
        ok=(
            "correct: without conjunctions, full overlap is rarer and says nothing about entailment; the data gives "
            "the heuristic nothing to learn."
        ),
        mistakes=[
            Mistake("the two numbers are in the wrong order: (overlap_share, entailed_share).", lambda t: (t[1], t[0])),
            Mistake(
                "those are the numbers of toy NLI with all four kinds; build it without the conjunction kind "
                '(kinds=("paraphrase", "negation", "chain")).',
                lambda t: _overlap_mistakes()["standard"],
            ),
            Mistake(
                "that is the share of entailed pairs that have full overlap; the question asks the other way: "
                "among the full-overlap pairs, the share labelled entailment.",
                lambda t: (t[0], _overlap_mistakes()["reverse"][1]),
            ),
        ],
        not_yet=lambda v, t: (
            "the overlap share is right; the entailed share is taken among the full-overlap pairs only."
            if abs(v[0] - t[0]) <= 0.005
            else "not yet: a pair has full overlap when every hypothesis word (except '.') occurs in the premise, as "
            "data.hans.full_overlap and each example's meta['overlap'] say; count over the 2,000 training pairs."
        ),
    )
