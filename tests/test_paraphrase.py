"""The bioR-like paraphrase generator (data.bios.paraphrase) and its physics runs (experiments.physics.paraphrase)."""

from __future__ import annotations

import pytest

from bertology_lib.data import bios
from bertology_lib.data.bios import paraphrase
from bertology_lib.errors import ParameterError
from bertology_lib.experiments.physics import jobs, training
from bertology_lib.experiments.physics import paraphrase as pp
from bertology_lib.experiments.physics.config import PhysicsConfig


def _config(aug: str = "multi5", n: int = 60, seed: int = 0) -> bios.BioConfig:
    return bios.BioConfig.from_augmentation(aug, n, seed=seed, people_per_value=10)


def test_every_span_names_its_value_and_the_full_name_is_in_the_first_sentence() -> None:
    ds = paraphrase.generate(_config())
    for e in ds.bios:
        w, p = bios.words(e.text), ds.people[e.person]
        labels = [lab for lab, _, _ in e.spans]
        assert labels.count("name") == 1 and sorted(lab for lab in labels if lab != "name") == sorted(bios.ATTRIBUTES)
        assert e.span("name")[0] < w.index(".")  # named in full in the first sentence (a value may precede it)
        for lab, s, t in e.spans:
            assert w[s:t] == bios.words(p.full_name if lab == "name" else p.value(lab))
        assert [s for _, s, _ in e.spans] == sorted(s for _, s, _ in e.spans)


def test_same_people_questions_and_split_as_bios_and_distinct_rewrites() -> None:
    cfg = _config()
    ds, base = paraphrase.generate(cfg), bios.generate_dataset(cfg)
    assert ds.people == base.people and ds.qa_train == base.qa_train and ds.qa_test == base.qa_test
    assert ds.split_people("val") == base.split_people("val")
    assert len(ds.bios) == len(base.bios) == 5 * 60
    for i in range(60):
        texts = [e.text for e in ds.bios_of(i)]
        assert len(set(texts)) == 5
        assert not set(texts) & {e.text for e in base.bios_of(i)}  # none is a bioS biography


def test_deterministic_per_seed() -> None:
    a, b = paraphrase.generate(_config()), paraphrase.generate(_config())
    assert a.texts() == b.texts()
    assert paraphrase.generate(_config(seed=1)).texts() != a.texts()


def test_rewrites_vary_structure_order_and_reference() -> None:
    ds = paraphrase.generate(_config(n=100))
    orders = {tuple(a for a, _ in e.sentence_starts) for e in ds.bios}
    assert len(orders) > 100  # random group order and joint / split sentences
    firsts = {ds.people[e.person].first for e in ds.bios}
    later_first_names = sum(
        bios.words(e.text)[e.span("name")[1] :].count(ds.people[e.person].first) > 0 for e in ds.bios
    )
    assert firsts and later_first_names > len(ds.bios) // 4  # a quarter of later sentences use the first name
    n_sentences = [e.text.count(".") for e in ds.bios]
    assert min(n_sentences) < max(n_sentences)


def test_vocabulary_covers_every_rewrite_and_extends_bios() -> None:
    tok = pp.tokenizer()
    ds = paraphrase.generate(_config())
    unk = tok.unk_token_id
    assert all(unk not in ids for ids in tok(ds.texts(), add_special_tokens=False)["input_ids"])
    assert set(bios.vocabulary()) < set(paraphrase.vocabulary())
    assert paraphrase.added_words() and not set(paraphrase.added_words()) & set(bios.vocabulary())


@pytest.mark.parametrize("aug", ["multi5+permute", "permute1", "fullname"])
def test_augmentations_without_a_paraphrase_version_are_refused(aug: str) -> None:
    with pytest.raises(ParameterError, match=r"augmentation=.*allowed: 'single' or 'multiM'"):
        paraphrase.generate(_config(aug))
    with pytest.raises(ParameterError, match="allowed: 'single' or 'multiM'"):
        pp.dataset(PhysicsConfig.for_profile("smoke", augmentation=aug))


def test_bad_templates_are_refused() -> None:
    with pytest.raises(ParameterError, match="one subject reference"):
        paraphrase.compile_rewrite("{S} met {s} in {birth_city}.", ("birth_city",))
    with pytest.raises(ParameterError, match="glues a placeholder"):
        paraphrase.compile_rewrite("{S} lived in{birth_city}.", ("birth_city",))
    with pytest.raises(ParameterError, match="misplaces its subject"):
        paraphrase.compile_rewrite("In {birth_city} {S} lived.", ("birth_city",))


def test_keys_leave_bios_runs_unchanged_and_set_paraphrase_runs_apart() -> None:
    cfg = PhysicsConfig.for_profile("quick", augmentation="single")
    bio_key, para_key = training.pretrain_key(cfg), pp.pretrain_key(cfg)
    assert "style" not in bio_key["bio"] and bio_key["tokenizer"]["name"] == "word"
    assert para_key["bio"]["style"] == "paraphrase" and para_key["tokenizer"]["name"] == pp.TOKENIZER
    assert {k: v for k, v in para_key.items() if k not in ("bio", "tokenizer")} == {
        k: v for k, v in bio_key.items() if k not in ("bio", "tokenizer")
    }
    with pytest.raises(ParameterError, match="filler_bios=0"):
        pp.pretrain_key(cfg.replace(filler_bios=10))


def test_units_train_the_paraphrase_cells_for_physics_03() -> None:
    names = {u.name: u for u in jobs.units("quick")}
    for cell in pp.ParaphrasePlan.for_profile("quick").cells:
        for s in (0, 1):
            assert names[f"paraphrase-{cell}-s{s}"].readers == ("physics_03_pretrain_finetune",)


def test_paraphrase_cells_pretrain_for_as_many_passes_over_their_text_as_bios(monkeypatch) -> None:
    cfg = PhysicsConfig.for_profile("quick", augmentation="multi5")
    ratio = pp._tokens(cfg.bio_config(), True) / pp._tokens(cfg.bio_config(), False)
    eq = pp.equal_passes(cfg)
    assert 1.05 < ratio < 1.3  # the rewrites are longer than bioS's biographies
    assert eq.pretrain_steps == round(cfg.pretrain_steps * ratio) > cfg.pretrain_steps
    assert eq.replace(pretrain_steps=cfg.pretrain_steps) == cfg  # nothing else moves
    assert pp.pretrain_key(eq) != pp.pretrain_key(cfg)
    monkeypatch.setattr(pp, "_tokens", lambda config, rewritten: 90 if rewritten else 100)
    assert pp.equal_passes(cfg).pretrain_steps == cfg.pretrain_steps  # shorter rewrites: never fewer steps
    with pytest.raises(ParameterError, match="filler_bios=0"):
        pp.equal_passes(cfg.replace(filler_bios=10))
