"""Checkers of the exercises of ``survey_03_3_world_knowledge`` (§3.3 World knowledge, Rogers et al. 2020):

* ``ex-survey33-freq``: Petroni et al.'s frequency baseline on the knowledge suite, per relation;
* ``ex-survey33-chain``: how many stated size comparisons a held-out pair needs, on average.

Every truth is computed here from the library and its generators at a configuration the exercise fixes (the quick
profile's knowledge base and knowledge suite: :mod:`bertology_lib.book.exercises.quick_survey`), so the notebook
passes its checks at any profile. Used by that notebook's exercise cells.
"""

from __future__ import annotations

from collections import Counter, deque

from bertology_lib.book.exercises.cases import Mistake, judge_value, within
from bertology_lib.book.exercises.checks import as_number, as_shares, checker
from bertology_lib.book.exercises.quick_survey import minibert_config, prefer_more_frequent, suite_items


SURVEY33_RELATIONS = ("lives_in", "occupation")


def _survey33_freq(tie: float) -> dict[str, float]:
    from bertology_lib.data.toy_english import knowledge_base

    facts = knowledge_base(minibert_config().corpus_seed).stated_facts()
    items = suite_items("knowledge")
    out = {}
    for rel in SURVEY33_RELATIONS:
        counts = Counter(f.object for f in facts if f.relation == rel)
        out[rel] = prefer_more_frequent([it for it in items if it.meta["relation"] == rel], counts, tie)
    return out


def survey33_freq_truth() -> dict[str, float]:
    """Petroni et al.'s frequency baseline on the quick knowledge suite (240 items), for ``lives_in`` and
    ``occupation``: prefer the candidate that is the object of more stated facts of the relation; a tie is a
    coin flip (half an item)."""
    return _survey33_freq(0.5)


@checker("ex-survey33-freq")
def _check_survey33_freq(answer):
    """``answer``: ``{"lives_in": accuracy, "occupation": accuracy}`` (+-0.005 each)."""
    values, err = as_shares(answer, SURVEY33_RELATIONS)
    if values is None:
        return False, err
    truth = survey33_freq_truth()
    if all(within(0.005)(values[r], truth[r]) for r in SURVEY33_RELATIONS):
        return True, (
            "correct: a model's recall of these facts means something only above this baseline; "
            "compare the accuracy by relation above."
        )
    for tie in (0.0, 1.0):
        alt = _survey33_freq(tie)
        if all(within(0.005)(values[r], alt[r]) for r in SURVEY33_RELATIONS):
            return (
                False,
                "check your ties: when both candidates are equally common, the baseline flips a coin (half an item).",
            )
    wrong = [r for r in SURVEY33_RELATIONS if not within(0.005)(values[r], truth[r])]
    return False, (
        f"not quite for {', '.join(wrong)}: count, per relation, how many stated facts have each "
        "object (Counter of fact.object), then compare the counts of item.correct and item.incorrect."
    )


def _size_chains(pairs, stated) -> list[int]:
    up: dict[str, list[str]] = {}
    for a, b in stated:
        up.setdefault(a, []).append(b)
    out = []
    for a, b in pairs:
        steps, queue = {a: 0}, deque([a])
        while queue:
            x = queue.popleft()
            for y in up.get(x, ()):
                if y not in steps:
                    steps[y] = steps[x] + 1
                    queue.append(y)
        out.append(steps[b])
    return out


def survey33_chain_truth() -> float:
    """Mean over held-out size pairs of the fewest stated comparisons whose chain derives them (knowledge base of
    the quick corpus, seed 0): breadth-first search along stated (smaller, bigger) pairs."""
    from bertology_lib.data.toy_english import knowledge_base

    kb = knowledge_base(minibert_config().corpus_seed)
    chains = _size_chains(sorted(kb.heldout_size_pairs), kb.stated_size_pairs)
    return sum(chains) / len(chains)


@checker("ex-survey33-chain")
def _check_survey33_chain(answer):
    """``answer``: a mean number of stated comparisons (+-0.01)."""
    from bertology_lib.data.toy_english import knowledge_base

    def held_out_pairs():
        kb = knowledge_base(minibert_config().corpus_seed)
        return kb, sorted(kb.heldout_size_pairs)

    def order_distance(truth):  # steps apart in the size order, without the stated shortcuts
        kb, held = held_out_pairs()
        rank = {w: i for i, w in enumerate(kb.size_order)}
        return sum(rank[b] - rank[a] for a, b in held) / len(held)

    def with_stated_pairs(truth):
        kb, held = held_out_pairs()
        both = _size_chains(held + sorted(kb.stated_size_pairs), kb.stated_size_pairs)
        return sum(both) / len(both)

    return judge_value(
        answer,
        read=as_number,
        refuse="expected a number of comparisons, got {answer!r}.",
        truth=survey33_chain_truth,
        match=within(0.01),
        ok="correct: that is how many stated facts a model must combine, on average, to answer a held-out pair.",
        mistakes=[
            Mistake(
                "that is the mean distance in the size order; the corpus also states some pairs two steps "
                "apart, and a chain can use those shortcuts.",
                order_distance,
            ),
            Mistake("average over the held-out pairs only; a stated pair needs no chain.", with_stated_pairs),
        ],
        not_yet=lambda v, t: (
            "too few: a held-out pair is never stated, so it needs at least two stated comparisons."
            if v < 2
            else "not quite: for each held-out (smaller, bigger) pair, search the stated pairs breadth-first from the "
            "smaller thing and count the steps to the bigger one; then average."
        ),
    )
