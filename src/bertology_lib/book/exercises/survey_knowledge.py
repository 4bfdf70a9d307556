"""Checkers of the survey notebooks' exercises (Rogers et al. 2020): what BERT knows, §2–§3.3.

Every truth is computed here from the library and its generators, at a configuration the exercise fixes
(the quick profile's probe sentences, suites and corpus, the knowledge base of seed 0), so a notebook
passes its check at any profile. Function answers are run on hidden cases. The §3.4 and §4 checkers live
in :mod:`bertology_lib.book.exercises.survey_knowledge2`, which shares the helpers defined here.

Used by the exercises of ``survey_02_architecture`` and ``survey_03_1``–``survey_03_3``.
"""

from __future__ import annotations

import functools
from collections import Counter, deque

from bertology_lib.book.exercises.checks import as_number, as_whole_number, checker

TRAIN_SENTENCES = 1125  # the probes' split of the quick profile's 1,500 probe sentences (75%)


# --------------------------------------------------------------------------- shared helpers


def near(value: float | None, target: float, tol: float) -> bool:
    return value is not None and abs(value - target) <= tol


def as_share(answer) -> float | None:
    """``answer`` as a number in [0, 1], or None."""
    v = as_number(answer)
    return v if v is not None and 0.0 <= v <= 1.0 else None


def as_shares(answer, keys: tuple[str, ...]) -> tuple[dict[str, float] | None, str]:
    """``answer`` (a dict, or a pandas Series) as shares with exactly ``keys``; else None and what is wrong."""
    if hasattr(answer, "to_dict") and not isinstance(answer, dict):
        answer = answer.to_dict()
    if not isinstance(answer, dict):
        return None, f"expected a dict {{{', '.join(repr(k) for k in keys)}: accuracy}}, got {type(answer).__name__}."
    if set(answer) != set(keys):
        return None, (f"expected the keys {', '.join(repr(k) for k in keys)}; got "
                      f"{', '.join(repr(k) for k in answer) or 'none'}.")
    values = {k: as_share(answer[k]) for k in keys}
    bad = [k for k, v in values.items() if v is None]
    if bad:
        return None, f"every value must be an accuracy between 0 and 1; not so for {', '.join(map(repr, bad))}."
    return values, ""


def call(fn, *args):
    """``(fn(*args), "")``, or ``(None, a message)`` when ``fn`` is not callable or raises."""
    if not callable(fn):
        return None, f"expected a function, got {type(fn).__name__}: pass the function itself, not its result."
    try:
        return fn(*args), ""
    except Exception as e:  # noqa: BLE001 (the student's code: report any error, do not crash the check)
        return None, f"your function raised {type(e).__name__}: {e}"


@functools.lru_cache(maxsize=1)
def quick_config():
    """The quick profile's mini-BERT config (its corpus config is what every suite here is drawn from)."""
    from bertology_lib.models import minibert

    return minibert.MiniBertConfig.for_profile("quick")


@functools.lru_cache(maxsize=1)
def quick_probe_table():
    """Word table of the quick profile's 1,500 probe sentences and its (train, test) rows (1,125 / 375)."""
    from bertology_lib.data import word_labels
    from bertology_lib.models import minibert

    table = word_labels.word_table(minibert.fresh_sentences(quick_config(), 1500))
    tr, te = word_labels.sentence_split(table, TRAIN_SENTENCES)
    return table, tr, te


def quick_suite(name: str, n_items: int = 240):
    from bertology_lib.data import suites

    return suites.make_suite(name, quick_config().corpus_config(), n_items)


# --------------------------------------------------------------------------- §2 architecture


def _tiny_berts():
    """Small random BERTs in eval mode, LayerNorm weights and embedding tables scaled so that every term counts."""
    import torch
    from transformers import BertConfig, BertModel

    out = []
    for seed, (d, n_pos) in enumerate(((16, 24), (24, 40), (8, 16))):
        torch.manual_seed(1000 + seed)
        m = BertModel(BertConfig(vocab_size=60, hidden_size=d, num_hidden_layers=1, num_attention_heads=2,
                                 intermediate_size=2 * d, max_position_embeddings=n_pos, type_vocab_size=2)).eval()
        e = m.embeddings
        with torch.no_grad():
            for table in (e.word_embeddings, e.position_embeddings, e.token_type_embeddings):
                table.weight.normal_(0, 1)
            e.LayerNorm.weight.uniform_(0.5, 1.5)
            e.LayerNorm.bias.normal_(0, 0.5)
        g = torch.Generator().manual_seed(2000 + seed)
        B, T = 3, n_pos - 5
        ids = torch.randint(0, 60, (B, T), generator=g)
        seg = (torch.arange(T)[None, :] >= torch.randint(2, T - 2, (B, 1), generator=g)).long()
        out.append((e, ids, seg))
    return out


class _CalledTheModule(Exception):
    pass


@checker("ex-survey2-embed")
def _check_survey2_embed(answer):
    """``answer``: a function ``(emb, input_ids, token_type_ids) -> (batch, seq, d_model)`` tensor equal to
    ``emb(input_ids=..., token_type_ids=...)`` within 1e-5, computed from ``emb``'s three tables and its
    LayerNorm; it runs on three hidden random BERTs and may not call ``emb`` itself."""
    import torch

    for emb, ids, seg in _tiny_berts():
        with torch.no_grad():
            truth = emb(input_ids=ids, token_type_ids=seg)
            pos = emb.position_embeddings(torch.arange(ids.shape[1]))[None]
            tok, typ = emb.word_embeddings(ids), emb.token_type_embeddings(seg)

            def forbidden(*args, **kwargs):
                raise _CalledTheModule

            emb.forward = forbidden  # an instance attribute: emb(...) now raises
            try:
                out, err = call(answer, emb, ids, seg)
            finally:
                del emb.forward
        if err and _CalledTheModule.__name__ in err:
            return False, ("your function calls the embedding module itself; compute the sum from "
                           "emb.word_embeddings, emb.position_embeddings, emb.token_type_embeddings and emb.LayerNorm.")
        if err:
            return False, err
        if not isinstance(out, torch.Tensor) or tuple(out.shape) != tuple(truth.shape):
            shape = tuple(out.shape) if isinstance(out, torch.Tensor) else type(out).__name__
            return False, f"expected a tensor of shape (batch, seq, d_model) = {tuple(truth.shape)}, got {shape}."
        out = out.detach().float()
        if torch.allclose(out, truth, atol=1e-5):
            continue
        ln = emb.LayerNorm
        if torch.allclose(out, tok + pos + typ, atol=1e-5):
            return False, "that is the sum before normalisation: BERT applies emb.LayerNorm to it."
        if torch.allclose(out, ln(tok + typ), atol=1e-5):
            return False, "the position embeddings are missing: position i of every sequence adds its own row."
        if torch.allclose(out, ln(tok + pos), atol=1e-5):
            return False, "the segment embeddings are missing: each token adds the row of its token_type_id."
        if torch.allclose(out, ln(tok) + ln(pos) + ln(typ), atol=1e-5):
            return False, "LayerNorm comes once, after the three embeddings are added, not on each of them."
        return False, ("not the module's output: look up the three tables (positions are 0, 1, ..., seq-1 in every "
                       "row of the batch), add them, then apply emb.LayerNorm.")
    return True, "correct: BERT's first layer reads LayerNorm(token + position + segment) at every position."


# --------------------------------------------------------------------------- §3.1 syntax


def _type_ceiling(table, rows) -> float:
    d = table.iloc[rows]
    return float(d.groupby(["word", "upos"]).size().groupby(level="word").max().sum() / len(d))


def survey31_ceiling_truth() -> float:
    """Best UPOS accuracy of any word-type classifier on the ambiguous test tokens of the quick probe sentences.

    Ambiguous words as the probes mark them (:func:`~bertology_lib.data.word_labels.ambiguous_mask` on the
    training rows); each type's tag is its most frequent one *among its test tokens* (an oracle), so no
    representation that ignores context can do better.
    """
    from bertology_lib.data import word_labels

    table, tr, te = quick_probe_table()
    amb = word_labels.ambiguous_mask(table, tr, "upos")
    return _type_ceiling(table, te[amb[te]])


def _survey31_ceiling_mistakes() -> dict[str, float]:
    from bertology_lib.analysis import probing
    from bertology_lib.data import word_labels

    table, tr, te = quick_probe_table()
    words, tags = table.word.tolist(), table.upos.tolist()
    amb = word_labels.ambiguous_mask(table, tr, "upos")
    amb_test = word_labels.ambiguous_mask(table, te, "upos")
    return {
        "majority": probing.majority_baseline(words, tags, tr, te[amb[te]]),
        "all": _type_ceiling(table, te),
        "all majority": probing.majority_baseline(words, tags, tr, te),
        "test-marked": _type_ceiling(table, te[amb_test[te]]),
    }


@checker("ex-survey31-ceiling")
def _check_survey31_ceiling(answer):
    """``answer``: a share in [0, 1] (+-0.005 accepted); the quick probe sentences, first 1,125 for training."""
    v = as_share(answer)
    if v is None:
        return False, f"expected an accuracy between 0 and 1, got {answer!r}."
    truth = survey31_ceiling_truth()
    if near(v, truth, 0.005):
        return True, ("correct: no representation of the word alone can do better on these tokens; a probe "
                      "above this line reads context.")
    m = _survey31_ceiling_mistakes()
    if near(v, m["majority"], 0.002):
        return False, ("that is the per-word-majority baseline (each type's most frequent *training* tag, the "
                       "notebook's `majority`). The ceiling may pick each type's tag on its test tokens.")
    if near(v, m["all"], 0.002) or near(v, m["all majority"], 0.002):
        return False, "that is over all test words; keep only the ambiguous ones (ambiguous_mask, then the test rows)."
    if near(v, m["test-marked"], 0.002):
        return False, "mark the ambiguous words on the training rows, as the probes do (ambiguous_mask(table, train_rows))."
    if v < truth:
        return False, ("too low: for each ambiguous word type, count its test tokens per tag and keep the largest "
                       "count; the ceiling is the sum of those over the number of ambiguous test tokens.")
    return False, "too high: a type-level classifier gives every occurrence of a word the same tag."


SURVEY31_CONDITIONS = ("licensed", "unlicensed", "scope")


def survey31_npi_truth() -> dict[str, float]:
    """Accuracy per condition of "prefer the NPI iff a licensor word occurs anywhere in the sentence" on the
    quick NPI suite (240 items): a licensing rule with no notion of structure."""
    from bertology_lib.data.toy_english import LICENSORS, NPIS

    hits: dict[str, list[bool]] = {}
    for it in quick_suite("npi"):
        prefers_npi = any(w in LICENSORS for w in it.words)
        hits.setdefault(it.meta["condition"], []).append(prefers_npi == (it.correct in NPIS))
    return {c: sum(h) / len(h) for c, h in hits.items()}


@checker("ex-survey31-npi")
def _check_survey31_npi(answer):
    """``answer``: ``{condition: accuracy}`` for licensed, unlicensed and scope (+-0.005 each)."""
    values, err = as_shares(answer, SURVEY31_CONDITIONS)
    if values is None:
        return False, err
    truth = survey31_npi_truth()
    wrong = [c for c in SURVEY31_CONDITIONS if not near(values[c], truth[c], 0.005)]
    if not wrong:
        return True, ("correct: the linear rule fails exactly where structure decides; compare the model's "
                      "accuracy by condition above.")
    if all(near(values[c], 1 - truth[c], 0.005) for c in SURVEY31_CONDITIONS):
        return False, "those are the shares of items the rule gets wrong; the question asks for its accuracy."
    if wrong == ["scope"]:
        return False, ("scope is off: there a licensor sits in a relative clause on the subject. It is in the "
                       "sentence, so what does a rule that only looks for the word choose, and is that right?")
    return False, (f"not quite for {', '.join(wrong)}: the rule prefers the NPI when a word of "
                   "toy_english.LICENSORS occurs in item.words and the other filler otherwise; it is right when "
                   "that choice is item.correct.")


# --------------------------------------------------------------------------- §3.2 semantics


def survey32_clear_truth(n: int = 80) -> int:
    """The fewest right answers out of ``n`` whose 95% Wilson interval lies above 0.5 (the selectional rule)."""
    from bertology_lib.stats import wilson_interval

    return next(k for k in range(n + 1) if wilson_interval(k, n)[0] > 0.5)


@checker("ex-survey32-clear")
def _check_survey32_clear(answer):
    """``answer``: a whole number of items out of 80 (exact; an accuracy or a fraction is refused with a hint)."""
    v = as_number(answer)
    if v is not None and 0 < v < 1:
        return False, "give a number of items out of 80, not an accuracy."
    k = as_whole_number(answer)
    if k is None or not 0 <= k <= 80:
        return False, f"expected a whole number of items between 0 and 80, got {answer!r}."
    truth = survey32_clear_truth()
    if k == truth:
        return True, "correct: compare it with the weakest contrast above, and read its verdict again."
    if k <= 40:
        return False, f"{k} of 80 is not even above chance; the interval must lie entirely above 0.5."
    if k < truth:
        return False, (f"too few: with {k} of 80 right the accuracy is above 0.5, but its 95% interval still "
                       "reaches 0.5; the rule needs the interval's low end above it.")
    return False, f"too many: {k} of 80 clears chance, but fewer already do; the question asks for the smallest."


@functools.lru_cache(maxsize=1)
def _quick_word_counts() -> tuple[Counter, Counter]:
    """(object counts, all counts) of words in the quick mini-BERT's training split."""
    from bertology_lib.models import minibert

    as_object, anywhere = Counter(), Counter()
    for s in minibert.corpus(quick_config())[0]:
        anywhere.update(s.words)
        as_object.update(w for w, rel in zip(s.words, s.deprels) if rel == "obj")
    return as_object, anywhere


def _prefer_more_frequent(items, counts, tie: float = 0.0) -> float:
    score = [1.0 if counts[it.correct] > counts[it.incorrect] else tie if counts[it.correct] == counts[it.incorrect]
             else 0.0 for it in items]
    return sum(score) / len(score)


def survey32_objprior_truth() -> float:
    """Accuracy on the quick selectional suite (240 items) of preferring the candidate that is more often an
    object (deprel ``obj``) in the quick mini-BERT's training split; ties count as wrong."""
    return _prefer_more_frequent(quick_suite("selectional"), _quick_word_counts()[0])


@checker("ex-survey32-objprior")
def _check_survey32_objprior(answer):
    """``answer``: a share in [0, 1] (+-0.002, half an item of 240)."""
    v = as_share(answer)
    if v is None:
        return False, f"expected an accuracy between 0 and 1, got {answer!r}."
    truth = survey32_objprior_truth()
    if near(v, truth, 0.002):
        return True, ("correct: this baseline never looks at the verb; compare it with the model's selectional "
                      "accuracy above.")
    items = quick_suite("selectional")
    as_object, anywhere = _quick_word_counts()
    if any(near(v, _prefer_more_frequent(items, anywhere, t), 0.002) for t in (0.0, 0.5, 1.0)):
        return False, "you counted every occurrence of the word; count only its occurrences as an object (deprel 'obj')."
    if near(v, 1 - truth, 0.002):
        return False, "that is the share of items the baseline gets wrong."
    if any(near(v, _prefer_more_frequent(items, as_object, t), 0.002) for t in (0.5, 1.0)):
        return False, "a tie is not a preference: count it as wrong, as score_items does."
    return False, ("not quite: count, over the quick training split, how often each word has deprel 'obj', then "
                   "score an item right when item.correct has the larger count.")


# --------------------------------------------------------------------------- §3.3 world knowledge

SURVEY33_RELATIONS = ("lives_in", "occupation")


def _survey33_freq(tie: float) -> dict[str, float]:
    from bertology_lib.data.toy_english import knowledge_base

    facts = knowledge_base(quick_config().corpus_seed).stated_facts()
    items = quick_suite("knowledge")
    out = {}
    for rel in SURVEY33_RELATIONS:
        counts = Counter(f.object for f in facts if f.relation == rel)
        out[rel] = _prefer_more_frequent([it for it in items if it.meta["relation"] == rel], counts, tie)
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
    if all(near(values[r], truth[r], 0.005) for r in SURVEY33_RELATIONS):
        return True, ("correct: a model's recall of these facts means something only above this baseline; "
                      "compare the accuracy by relation above.")
    for tie in (0.0, 1.0):
        alt = _survey33_freq(tie)
        if all(near(values[r], alt[r], 0.005) for r in SURVEY33_RELATIONS):
            return False, "check your ties: when both candidates are equally common, the baseline flips a coin (half an item)."
    wrong = [r for r in SURVEY33_RELATIONS if not near(values[r], truth[r], 0.005)]
    return False, (f"not quite for {', '.join(wrong)}: count, per relation, how many stated facts have each "
                   "object (Counter of fact.object), then compare the counts of item.correct and item.incorrect.")


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

    kb = knowledge_base(quick_config().corpus_seed)
    chains = _size_chains(sorted(kb.heldout_size_pairs), kb.stated_size_pairs)
    return sum(chains) / len(chains)


@checker("ex-survey33-chain")
def _check_survey33_chain(answer):
    """``answer``: a mean number of stated comparisons (+-0.01)."""
    from bertology_lib.data.toy_english import knowledge_base

    v = as_number(answer)
    if v is None:
        return False, f"expected a number of comparisons, got {answer!r}."
    truth = survey33_chain_truth()
    if near(v, truth, 0.01):
        return True, "correct: that is how many stated facts a model must combine, on average, to answer a held-out pair."
    kb = knowledge_base(quick_config().corpus_seed)
    rank = {w: i for i, w in enumerate(kb.size_order)}
    held = sorted(kb.heldout_size_pairs)
    if near(v, sum(rank[b] - rank[a] for a, b in held) / len(held), 0.01):
        return False, ("that is the mean distance in the size order; the corpus also states some pairs two steps "
                       "apart, and a chain can use those shortcuts.")
    both = _size_chains(held + sorted(kb.stated_size_pairs), kb.stated_size_pairs)
    if near(v, sum(both) / len(both), 0.01):
        return False, "average over the held-out pairs only; a stated pair needs no chain."
    if v < 2:
        return False, "too few: a held-out pair is never stated, so it needs at least two stated comparisons."
    return False, ("not quite: for each held-out (smaller, bigger) pair, search the stated pairs breadth-first from "
                   "the smaller thing and count the steps to the bigger one; then average.")
