"""Golden fingerprints of the data generators: the same configs give byte-for-byte the same data.

The hashes below were computed with the generators as they were before the data layer was
split into packages (issue #15), and checked again after it. A change here means the corpus,
a suite, the knowledge base, a toy task, the bioS people/biographies or a CheckList/HANS item
set changed for an existing seed, which silently invalidates every cached model and result
built from it. If that is intended, bump the generator's version (``TASKS_VERSION``,
``bios.GENERATOR_VERSION``, ...) and update the hash here in the same change.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json

import pytest

from bertology_lib.data import bios, checklist, hans, suites
from bertology_lib.data import tasks as T
from bertology_lib.data import toy_english as te


def _canon(obj):
    """JSON-able form that does not depend on the hash seed (sets are sorted)."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return _canon({f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)})
    if isinstance(obj, dict):
        return {str(k): _canon(v) for k, v in sorted(obj.items(), key=lambda kv: repr(kv[0]))}
    if isinstance(obj, (set, frozenset)):
        return sorted((_canon(x) for x in obj), key=repr)
    if isinstance(obj, (list, tuple)):
        return [_canon(x) for x in obj]
    return obj


def _h(obj) -> str:
    return hashlib.sha256(json.dumps(_canon(obj), sort_keys=True).encode()).hexdigest()[:16]


def _sentences(sents):
    return [
        (s.words, s.lemmas, s.upos, s.heads, s.deprels, s.depth, s.chunks, s.roles, s.number, s.meta) for s in sents
    ]


def _items(items):
    return [(i.suite, i.words, i.mask_index, i.correct, i.incorrect, i.meta, _sentences([i.sentence])) for i in items]


def _task(task):
    return [task.key(), {s: [e.to_dict() for e in task.examples(s)] for s in T.SPLITS}]


CFG = te.ToyEnglishConfig(n_sentences=1000, seed=0)
SMALL = dict(n_train=60, n_dev=20, n_test=20)

FINGERPRINTS = {
    "corpus": (lambda: _sentences(te.generate_corpus(CFG)), "d9ef6bba3a1b3035"),
    "corpus_seed3": (
        lambda: _sentences(
            te.generate_corpus(te.ToyEnglishConfig(n_sentences=300, seed=3, vocab_size=800, p_fact=0.3))
        ),
        "e3fc02fde99c3a17",
    ),
    "vocabulary": (lambda: te.vocabulary(CFG), "eb159dde731c5fb1"),
    "knowledge_base": (
        lambda: [te.knowledge_base(0), te.knowledge_base(0).stated_facts(), te.knowledge_base(0).heldout_facts()],
        "8dc19a1306574a5e",
    ),
    "suites": (lambda: {n: _items(suites.make_suite(n, CFG, 60)) for n in te.SUITES}, "d1d4873bf65c51f6"),
    "toy_classification": (lambda: _task(T.toy_classification(**SMALL)), "ef2a5460d0c5210c"),
    "toy_nli": (lambda: _task(T.toy_nli(world="random", **SMALL)), "2ed923323b030196"),
    "toy_qa": (lambda: _task(T.toy_qa(**SMALL)), "5913e15624f2ca87"),
    "bios": (
        lambda: [
            (ds.people, ds.bios, ds.qa_train, ds.qa_test)
            for ds in (
                bios.generate_dataset(bios.BioConfig.from_augmentation("multi2+permute", n_people=50, seed=1)),
                bios.celebrity_dataset(20, 10, seed=2),
            )
        ],
        "d840e24e3d8d4421",
    ),
    "checklist": (  # the SST-2 suite's first seven tests: the two negation MFTs appended on 2026-12-05 change none
        lambda: [checklist.negation_suite(CFG, 4, 0), checklist.sst2_suite(["a fine film .", "it rained ."], 4, 0)[:7]],
        "5e78618fbffa37cc",
    ),
    "checklist_sst2_negation": (  # the appended negation MFTs (neutral words between, negated negative)
        lambda: checklist.sst2_suite(["a fine film .", "it rained ."], 4, 0)[7:],
        "8b7c8c22a0312868",
    ),
    "hans": (lambda: [e.to_dict() for e in hans.hans_like(CFG, 4, 0)], "611c51b08d265a94"),
}


@pytest.mark.parametrize("name", sorted(FINGERPRINTS))
def test_generated_data_is_unchanged(name):
    make, golden = FINGERPRINTS[name]
    assert _h(make()) == golden
