"""bioS evaluation helpers: answer normalisation, exact match, per-attribute QA accuracy and
the majority baseline.

Used by the physics experiments (QA accuracy of generated answers, baselines in the tables).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from bertology_lib.data.bios.dataset import Person, QAPair
from bertology_lib.data.bios.pools import ATTRIBUTES
from bertology_lib.errors import ParameterError


def normalize_answer(s: str) -> str:
    """Collapse whitespace, strip, and drop one trailing '.' (answers never end in '.')."""
    s = " ".join(s.split())
    return s[:-1].rstrip() if s.endswith(".") else s


def exact_match(prediction: str, gold: str) -> bool:
    """Equal after :func:`normalize_answer`."""
    return normalize_answer(prediction) == normalize_answer(gold)


def qa_accuracy(pairs: Sequence[QAPair], predictions: Sequence[str]) -> dict[str, float]:
    """Exact-match accuracy per attribute (only attributes present) plus 'overall'."""
    if len(pairs) != len(predictions):
        raise ParameterError(
            f"len(predictions)={len(predictions)} differs from len(pairs)={len(pairs)}; "
            "allowed: one prediction per pair"
        )
    hits: Counter[str] = Counter()
    totals: Counter[str] = Counter()
    for pair, pred in zip(pairs, predictions):
        totals[pair.attribute] += 1
        hits[pair.attribute] += exact_match(pred, pair.answer)
    out = {a: hits[a] / totals[a] for a in ATTRIBUTES if totals[a]}
    out["overall"] = sum(hits.values()) / max(1, sum(totals.values()))
    return out


def majority_baseline(people: Sequence[Person], attributes: Sequence[str] = ATTRIBUTES) -> dict[str, tuple[str, float]]:
    """Per attribute: (most frequent answer among people, its frequency = accuracy of always guessing it).

    Ties go to the alphabetically first answer. For company_city this is the most common city among
    companies weighted by people (company_city is a function of company_name).
    """
    if not people:
        raise ParameterError("people=[] is empty; allowed: at least one Person")
    out = {}
    for a in attributes:
        counts = Counter(p.value(a) for p in people)
        best, c = min(counts.items(), key=lambda kv: (-kv[1], kv[0]))
        out[a] = (best, c / len(people))
    return out
