"""The physics notebooks' checked exercises (Allen-Zhu & Li 2023; checkers in
``bertology_lib.book.exercises.physics_01_biographies`` ... ``physics_06_bert``): each checker's truth against an
independent computation, the notebooks' solution cells (read from the notebooks and run with the notebook variables
they need rebuilt) pass, and typical wrong answers fail with their hint without giving the answer away.

Every truth is computed at the configuration the exercise names (the quick sizes, seed 0), so nothing here depends
on the profile; each test takes about a second (tokenising a few thousand biographies at most).
"""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter

import nbformat
import numpy as np
import pandas as pd
import pytest

import exercise_cells as cells
from bertology_lib.book import exercises as ex
from bertology_lib.book.exercises import physics_01_biographies as p1
from bertology_lib.book.exercises import physics_02_mixed_training as p2
from bertology_lib.book.exercises import physics_03_pretrain_finetune as p3
from bertology_lib.book.exercises import physics_04_celebrities as p4
from bertology_lib.book.exercises import physics_05_probing as p5
from bertology_lib.book.exercises import physics_06_bert as p6
from bertology_lib.book.exercises.quick_physics import bio_exposures
from bertology_lib.data import bios
from bertology_lib.experiments.physics import grid as px
from bertology_lib.experiments.physics.config import PhysicsConfig, bios_tokenizer

NOTEBOOKS = {
    "physics_01_biographies": ("ex-physics01-windows", "ex-physics01-match"),
    "physics_02_mixed_training": ("ex-physics02-qa-reads", "ex-physics02-lag"),
    "physics_03_pretrain_finetune": ("ex-physics03-bits", "ex-physics03-exposures"),
    "physics_04_celebrities": ("ex-physics04-majority", "ex-physics04-exposures"),
    "physics_05_probing": ("ex-physics05-ceiling", "ex-physics05-chance"),
    "physics_06_bert": ("ex-physics06-length", "ex-physics06-targets"),
}
LABELS = [label for labels in NOTEBOOKS.values() for label in labels]
RUN = [label for label in LABELS if label != "ex-physics03-bits"]  # bits reads a trained grid: nbval runs it


def quick() -> PhysicsConfig:
    return PhysicsConfig.for_profile("quick")


def wrong(label: str, answer, hint: str, truth: float | None = None) -> None:
    """``answer`` fails with a message containing ``hint`` and not the true value."""
    fb = ex.check(label, answer)
    assert not fb.ok and hint in fb.message, (answer, fb)
    if truth is not None:
        shown = {float(x) for x in re.findall(r"\d+\.?\d*", fb.message)}
        assert not any(math.isclose(x, truth, rel_tol=0.02) for x in shown if x), f"gives the answer away: {fb}"


# ---------------------------------------------------------------- the notebooks' solution cells and conventions


@pytest.mark.parametrize("label", RUN)
def test_solution_code_passes_its_check(label):
    source = cells.solution(label)
    assert source.splitlines()[0] == f"# Exercise: {label}"
    assert source.rstrip().splitlines()[-1].startswith(f'print(check("{label}", ')
    cells.solve(label, **_namespace(cells.notebook_of(label)))


def test_every_label_has_a_checker_with_a_docstring():
    for label in LABELS:
        assert label in ex.CHECKERS and ex.CHECKERS[label].__doc__, label


def test_student_stubs_keep_the_instructions():
    for label in LABELS:
        cell = nbformat.v4.new_code_cell(cells.solution(label), metadata={"tags": ["solution", "hide-cell"]})
        stub = ex.student_stub(cell)
        assert stub.startswith(f"# Exercise: {label}") and "check(" in stub
        assert re.fullmatch(rf'print\(check\("{label}", [A-Za-z_]\w*\)\)', stub.splitlines()[-1])  # on the placeholder


def _namespace(notebook: str) -> dict:
    """The notebook variables the solution cells use, rebuilt at smoke size (the truths do not depend on it)."""
    from bertology_lib.experiments.physics import bert as pbert
    from bertology_lib.experiments.physics import biographies as pdata
    from bertology_lib.experiments.physics import training as ptrain

    ns: dict = {"bios": bios, "PhysicsConfig": PhysicsConfig, "px": px, "pd": pd}
    if notebook == "physics_01_biographies":
        single = bios.generate_dataset(bios.BioConfig(20, seed=0))
        ns.update(tokenizer=bios_tokenizer(), pdata=pdata, qa=pdata.qa_table(single, 0))
    elif notebook == "physics_02_mixed_training":  # curves: one learning curve per (augmentation, seed) run
        steps = np.arange(3, 31, 3)
        rows = [
            {
                "step": int(s),
                "bio": min(1.0, s / 20),
                "qa_train": min(1.0, s / 15),
                "qa_test": max(0.0, (s - 12) / 40),
                "augmentation": a,
                "seed": seed,
                "n_people": 20,
                "qa_share": 0.5,
            }
            for a in ("single", "multi5+permute")
            for seed in (0, 1)
            for s in steps
        ]
        ns["curves"] = pd.DataFrame(rows)
    elif notebook == "physics_03_pretrain_finetune":
        ns["ptrain"] = ptrain
    elif notebook == "physics_05_probing":
        from bertology_lib.experiments.physics.probing import people_split

        ns["people_split"] = people_split
    elif notebook == "physics_06_bert":
        ns.update(ptrain=ptrain, pbert=pbert)
    return ns


# ================================================================================ physics_01_biographies


def test_windows_truth_by_reading_the_token_stream():
    """Count, window by window, the runs of one biography between EOS marks (not the checker's sets)."""
    tok = bios_tokenizer()
    shares = []
    for shuffle in (False, True):
        ds = bios.generate_dataset(bios.BioConfig(200, multi=5, shuffle=shuffle))
        stream = []
        for b, ids in zip(ds.bios, tok(ds.texts(), add_special_tokens=False)["input_ids"]):
            stream += [b.person] * len(ids) + [None]
        windows = [stream[i : i + 128] for i in range(0, len(stream), 128)]
        repeated = 0
        for w in windows:
            runs = [p for k, p in enumerate(w) if p is not None and (k == 0 or w[k - 1] is None)]
            repeated += max(Counter(runs).values(), default=0) > 1
        shares.append(repeated / len(windows))
    truth = p1.physics_windows_truth()
    assert truth == pytest.approx(tuple(shares))
    assert truth[0] > 0.9 and truth[1] < 0.1  # unshuffled copies share windows; shuffled hardly ever
    assert ex.check("ex-physics01-windows", (truth[0] - 0.008, truth[1] + 0.008)).ok
    assert ex.check("ex-physics01-windows", np.array(truth)).ok


def test_windows_wrong_answers():
    u, s = p1.physics_windows_truth()
    wrong("ex-physics01-windows", (s, u), "swapped")
    wrong("ex-physics01-windows", (0.2, 0.5), "lower the share")
    wrong("ex-physics01-windows", (u, s + 0.05), "shuffled share is off")
    wrong("ex-physics01-windows", (u - 0.2, s), "unshuffled share is off")
    for bad in (0.5, (0.5,), (0.5, 0.2, 0.1), ("a", "b"), (1.5, 0.0)):
        wrong("ex-physics01-windows", bad, "expected two shares")


def test_match_checker_accepts_the_library_rule_and_names_each_mistake():
    assert ex.check("ex-physics01-match", bios.exact_match).ok
    assert ex.check("ex-physics01-match", lambda p, g: np.bool_(bios.exact_match(p, g))).ok
    cases = [
        (lambda p, g: p == g, "full stop"),
        (lambda p, g: p.strip().rstrip(".").strip() == g, "whitespace"),
        (lambda p, g: bios.exact_match(p.lower(), g.lower()), "case counts"),
        (lambda p, g: " ".join(p.split()).rstrip(". ") == g, "only one trailing full stop"),
        (lambda p, g: bool(p.strip()) and (p.strip() in g or g in p), "partial"),
        (lambda p, g: True, "partial"),
        (lambda p, g: False, "identical"),
        (lambda p, g: bios.normalize_answer(p), "True or False"),
        (lambda p: True, "raised TypeError"),
        ("Paris", "expected a function"),
    ]
    for answer, hint in cases:
        wrong("ex-physics01-match", answer, hint)


def test_match_cases_cover_both_verdicts_and_every_kind():
    cases = p1._match_cases()
    verdicts = Counter((kind, bios.exact_match(p, g)) for p, g, kind in cases)
    assert {k for k, _ in verdicts} == {"same", "stop", "space", "case", "stops", "partial"}
    assert verdicts[("stop", True)] and verdicts[("space", True)] and verdicts[("case", False)]
    assert not verdicts[("partial", True)] and not verdicts[("stops", True)]


# ================================================================================ physics_02_mixed_training


def test_qa_reads_truth_counts_tokens():
    """QA windows = all QA-train tokens (question, answer, full stop, EOS) // seq_len, counted by hand."""
    cfg, tok = quick(), bios_tokenizer()
    ds = cfg.dataset()
    n_tokens = sum(
        len(tok(f"{q.question} {q.answer}.", add_special_tokens=False)["input_ids"]) + 1 for q in ds.qa_pairs("train")
    )
    truth = cfg.mixed_steps * cfg.batch_size * cfg.qa_share / (n_tokens // cfg.seq_len)
    assert p2.physics_qa_reads_truth() == pytest.approx(truth)
    assert ex.check("ex-physics02-qa-reads", truth * 1.02).ok


def test_qa_reads_wrong_answers():
    t, cfg = p2.physics_qa_reads_truth(), quick()
    rows = cfg.mixed_steps * cfg.batch_size * cfg.qa_share
    wrong("ex-physics02-qa-reads", t / cfg.qa_share, "qa_share", t)
    wrong("ex-physics02-qa-reads", rows / (len(cfg.dataset().qa_train) * 6), "packed with many questions", t)
    wrong("ex-physics02-qa-reads", t / 2, "QA-test stays unseen", t)
    facts = bio_exposures(cfg.replace(augmentation="multi5+permute"), steps=cfg.mixed_steps) * 0.5 * 5
    wrong("ex-physics02-qa-reads", facts, "biography fact", t)
    wrong("ex-physics02-qa-reads", t * 1.5, "not quite", t)
    wrong("ex-physics02-qa-reads", "many", "expected a positive number")


def test_lag_hidden_cases_by_hand_and_against_the_library():
    cases = dict(p2._lag_cases()[:6])
    assert px.curve_lag(cases["rising"]) == 1680 - 960  # halves 0.49 and 0.31
    assert px.curve_lag(cases["final"]) == 960 - 480  # half of the final 0.6, not of the peak 0.9
    assert px.curve_lag(cases["equal"]) == 1680 - 720  # exactly 0.25 counts
    assert math.isnan(px.curve_lag(cases["zero"]))
    assert px.curve_lag(cases["negative"]) == 720 - 1440  # QA-test gets to 0.15 first
    assert px.curve_lag(cases["steps"]) == 200 - 50
    assert ex.check("ex-physics02-lag", px.curve_lag).ok


def test_lag_wrong_answers():
    def by_max(curve):
        def first(c):
            hit = curve[curve[c] >= 0.5 * curve[c].max()]
            return float(hit["step"].iloc[0]) if curve[c].max() > 0 else math.nan

        return first("qa_test") - first("qa_train")

    def no_nan(curve):
        out = px.curve_lag(curve)
        return 0.0 if math.isnan(out) else out

    def by_label(curve):  # .loc with a position: wrong once the index does not start at 0
        def first(c):
            target = 0.5 * curve[c].iloc[-1]
            pos = int(np.argmax(curve[c].to_numpy() >= target))
            return float(curve["step"].loc[pos]) if target > 0 else math.nan

        return first("qa_test") - first("qa_train")

    wrong("ex-physics02-lag", by_max, "final")
    wrong("ex-physics02-lag", p2._lag_variant("strict"), ">=")
    wrong("ex-physics02-lag", p2._lag_variant("position"), "'step' column")
    wrong("ex-physics02-lag", p2._lag_variant("sign"), "reversed")
    wrong("ex-physics02-lag", no_nan, "ends at 0")
    wrong("ex-physics02-lag", by_label, "raised KeyError")
    wrong("ex-physics02-lag", lambda c: "late", "return a number")
    wrong("ex-physics02-lag", 720, "expected a function")


# ================================================================================ physics_03_pretrain_finetune


def test_physics_bits_checker():
    import math

    from bertology_lib.experiments.physics import biographies as physics_data

    counts = physics_data.possible_values()
    truth = sum(math.log2(counts[a]) for a in ("birth_date", "birth_city", "university", "major", "company_name"))
    assert p3.physics_bits_truth() == pytest.approx(truth) and 40 < truth < 60
    assert ex.check("ex-physics03-bits", truth + 0.05).ok
    with_city = ex.check("ex-physics03-bits", truth + math.log2(counts["company_city"]))
    assert not with_city.ok and "company city" in with_city.message
    assert not ex.check("ex-physics03-bits", "many").ok
    assert not ex.check("ex-physics03-bits", truth - 5).ok


def _epochs_by_tokens(cfg: PhysicsConfig) -> float:
    """Pretraining epochs from the token counts: stream packing makes (tokens + one EOS per biography) // seq_len
    windows; whole packing starts a new window when a biography, its EOS and a closing EOS no longer fit."""
    ds, tok = cfg.dataset(), bios_tokenizer()
    lengths = [len(x) for x in tok(ds.texts(), add_special_tokens=False)["input_ids"]]
    if cfg.packing == "stream":
        n_windows = sum(n + 1 for n in lengths) // cfg.seq_len
    else:
        n_windows, used = 1, 0
        for n in lengths:
            if used and used + n + 2 > cfg.seq_len:
                n_windows, used = n_windows + 1, 0
            used += n + 1
    return cfg.pretrain_steps * cfg.batch_size / n_windows


def test_exposures_truth_and_wrong_answers():
    single = _epochs_by_tokens(quick().replace(augmentation="single"))
    multi = 5 * _epochs_by_tokens(quick().replace(augmentation="multi5+permute"))
    truth = p3.physics_exposures_truth()
    assert truth == pytest.approx((single, multi))
    assert 0.8 < truth[0] / truth[1] < 1.25  # as many readings per fact: the difference is variety, not exposure
    assert ex.check("ex-physics03-exposures", [single * 1.015, multi * 0.985]).ok
    cfg = quick()
    per_bio = cfg.pretrain_steps * cfg.batch_size / cfg.n_people
    wrong("ex-physics03-exposures", (per_bio, per_bio), "packed windows", truth[0])
    wrong("ex-physics03-exposures", (single, multi / 5), "five biographies", truth[1])
    wrong("ex-physics03-exposures", (single * 1.2, multi), "single number is off", truth[0])
    wrong("ex-physics03-exposures", (single, multi * 0.8), "multi5+permute number is off", truth[1])
    wrong("ex-physics03-exposures", 144, "expected two positive numbers")


# ================================================================================ physics_04_celebrities


def test_minority_majority_truth_is_the_notebooks_grey_tick():
    """The evaluation's own majority column (accuracy_table, as celebrity_grid reports it) on the minority."""
    from bertology_lib.experiments.physics.evaluation import accuracy_table

    ds = px.celebrity_config(quick()).dataset()
    preds = pd.DataFrame(
        [
            {"person": i, "attribute": a, "answer": ds.people[i].value(a), "correct": False}
            for i in ds.qa_test
            for a in bios.ATTRIBUTES
        ]
    )
    tick = float(accuracy_table(preds, ds).loc["mean", "majority"])
    truth = p4.physics_minority_majority_truth()
    assert truth == pytest.approx(tick) and 0 < truth < 0.1
    assert ex.check("ex-physics04-majority", truth + 0.0004).ok


def test_minority_majority_wrong_answers():
    t = p4.physics_minority_majority_truth()
    wrong("ex-physics04-majority", p4._in_sample_majority("majority"), "score that answer on the minority", t)
    wrong("ex-physics04-majority", p4._in_sample_majority("minority"), "guess comes from QA-train", t)
    wrong("ex-physics04-majority", t + 0.002, "not quite", t)
    wrong("ex-physics04-majority", 2.5, "expected a share")


def test_minority_exposures_truth_and_wrong_answers():
    celeb = px.celebrity_config(quick())
    assert celeb.pretrain_steps == round(quick().pretrain_steps * 6 / 5)  # 1,500 celebrity + 300 minority bios
    truth = p4.physics_minority_exposures_truth()
    assert truth == pytest.approx(_epochs_by_tokens(celeb))
    without = _epochs_by_tokens(quick().replace(augmentation="permute1"))
    assert 3 < without / truth < 7  # the minority is read several times less often than without celebrities
    assert ex.check("ex-physics04-exposures", truth * 0.985).ok
    wrong("ex-physics04-exposures", 5 * truth, "a single biography", truth)
    wrong("ex-physics04-exposures", without, "a single biography", truth)
    wrong("ex-physics04-exposures", truth * quick().pretrain_steps / celeb.pretrain_steps, "pretrain_steps", truth)
    wrong("ex-physics04-exposures", truth * 1.5, "not quite", truth)
    wrong("ex-physics04-exposures", -3, "expected a positive number")


# ================================================================================ physics_05_probing


def test_physics_unseen_checker_matches_the_probe_split():
    from bertology_lib.experiments.physics import config as pcfg
    from bertology_lib.experiments.physics.probing import people_split

    ds = pcfg.PhysicsConfig.for_profile("quick", people_per_value=0).dataset()  # quick's N, seed 0, the paper's pools
    tr, te = people_split(len(ds.people), None, 0.5, 0)
    seen = {ds.people[i].university for i in tr}
    truth = sum(ds.people[i].university not in seen for i in te) / len(te)
    assert p5.physics_unseen_truth() == pytest.approx(truth) and 0 < truth < 1
    assert ex.check("ex-physics05-ceiling", truth).ok
    opposite = ex.check("ex-physics05-ceiling", 1 - truth)
    assert not opposite.ok and "opposite" in opposite.message
    assert not ex.check("ex-physics05-ceiling", 1.5).ok


def test_spearman_null_tail_by_hand_and_by_simulation():
    from scipy.stats import spearmanr

    assert p5.spearman_null_tail(4) == pytest.approx(4 / 24)  # rho 1 (identity) or 0.8 (3 adjacent swaps)
    assert p5.spearman_null_tail(4, two_sided=True) == pytest.approx(8 / 24)
    orders = list(itertools.permutations(range(6)))
    by_scipy = np.mean([spearmanr(range(6), o).statistic >= 0.7 - 1e-9 for o in orders])
    assert p5.spearman_null_tail(6) == pytest.approx(by_scipy)
    assert 0.010 < p5.spearman_null_tail(10) < 0.025  # sampled; tables: rho 0.745 at 1%, 0.648 at 2.5%
    n = sum(len(s) for s in px.Plan.for_profile("quick").grid_seeds.values())
    rng = np.random.default_rng(0)
    shuffles = rng.permuted(np.tile(np.arange(n), (200_000, 1)), axis=1)
    rho = 1 - 6 * ((shuffles - np.arange(n)) ** 2).sum(1) / (n * (n * n - 1))
    simulated = float(np.mean(rho >= 0.7 - 1e-9))
    truth = p5.physics_chance_truth()
    assert abs(simulated - truth) < 0.0005 and 0.001 < truth < 0.1
    assert ex.check("ex-physics05-chance", simulated).ok  # a Monte Carlo answer of this size passes


def test_chance_wrong_answers():
    n = sum(len(s) for s in px.Plan.for_profile("quick").grid_seeds.values())
    t = p5.physics_chance_truth()
    wrong("ex-physics05-chance", p5.spearman_null_tail(n, two_sided=True), "one-sided", t)
    if not p5.spearman_null_tail(n, strict=True) == pytest.approx(t):  # at some n no order has rho = 0.7
        wrong("ex-physics05-chance", p5.spearman_null_tail(n, strict=True), ">=, not >", t)
    wrong("ex-physics05-chance", 1 - t, "chance of failing", t)
    wrong("ex-physics05-chance", p5.spearman_null_tail(len(px.GRID)), "number of points", t)
    wrong("ex-physics05-chance", 0.2, "not quite", t)
    wrong("ex-physics05-chance", -0.1, "expected a probability")


# ================================================================================ physics_06_bert


def test_length_hint_truth_with_the_bert_tokenizer():
    """Group values by their number of BERT tokens (the [MASK]s it is given) with pandas, not bios.words."""
    from bertology_lib.experiments.physics import bert as pbert

    btok = pbert.bert_tokenizer()
    pools = {
        "birth_city": bios.CITIES,
        "university": bios.UNIVERSITIES,
        "major": bios.MAJORS,
        "company_name": bios.COMPANIES,
        "company_city": [bios.COMPANY_CITY[c] for c in bios.COMPANIES],
    }
    total = 1 / (200 * 12 * 28)  # birth date: every date has the same length
    assert len(btok("March 3, 1950", add_special_tokens=False)["input_ids"]) == len(
        btok("December 28, 2001", add_special_tokens=False)["input_ids"]
    )
    for values in pools.values():
        df = pd.DataFrame({"value": list(values)})
        df["masks"] = [len(btok(v, add_special_tokens=False)["input_ids"]) for v in df["value"]]
        prob = df.groupby(["masks", "value"]).size() / len(df)
        total += prob.groupby(level="masks").max().sum()
    truth = p6.physics_length_hint_truth()
    assert truth == pytest.approx(total / 6)
    blind = sum(p6.best_guess(a, False) for a in bios.ATTRIBUTES) / 6
    assert blind < truth < 2 * blind  # the hint helps, a little
    assert ex.check("ex-physics06-length", truth * 1.015).ok


def test_length_hint_wrong_answers():
    t = p6.physics_length_hint_truth()
    blind = sum(p6.best_guess(a, False) for a in bios.ATTRIBUTES) / 6
    wrong("ex-physics06-length", blind, "without the hint", t)
    cities = set(bios.COMPANY_CITY.values())
    uniform_city = len({len(bios.words(c)) for c in cities}) / len(cities)
    rest = sum(p6.best_guess(a, True) for a in bios.ATTRIBUTES if a != "company_city")
    wrong("ex-physics06-length", (rest + uniform_city) / 6, "company city is not uniform", t)
    wrong("ex-physics06-length", t * 1.5, "not quite", t)
    wrong("ex-physics06-length", "small", "expected a share")


def test_bert_targets_truth_against_the_batches_bert_trains_on():
    """Biographies per epoch from the MLM batch builder itself (bucketed batches, short ones included)."""
    from bertology_lib.experiments.physics import bert as pbert
    from bertology_lib.training.pretrain import MLMObjective, mlm_batches

    cfg = quick().replace(augmentation="multi5+permute")
    ds, tok = cfg.dataset(), pbert.bert_tokenizer()
    rows = pbert.bert_rows(ds, tok, cfg)
    p = cfg.bert_mask_prob
    batches = mlm_batches(ds.texts(), tok, MLMObjective(mask_prob=p, unit="word", seq_len=512, bucket=20), rows)
    per_epoch = len(batches._batches())
    exact = cfg.bert_steps / per_epoch * 5 * p  # epochs x five biographies x mask probability
    truth = p6.physics_bert_targets_truth()
    assert truth == pytest.approx(exact, rel=0.03)
    assert ex.check("ex-physics06-targets", exact).ok
    decoder = p3.physics_exposures_truth()[1]
    at_decoder_steps = truth * cfg.pretrain_steps / cfg.bert_steps * 0.15 / p  # the calibration's first BERT
    assert 4 < decoder / at_decoder_steps < 10  # several times fewer training signals per fact than the decoder
    assert 3 < truth / decoder < 5  # the quick recipe (16,600 steps, 40%): nearly four times the decoder's


def test_bert_targets_wrong_answers():
    t, cfg = p6.physics_bert_targets_truth(), quick()
    wrong("ex-physics06-targets", t / cfg.bert_mask_prob, "only when it is masked", t)
    wrong("ex-physics06-targets", t * 0.8, "not only the 80%", t)
    wrong("ex-physics06-targets", t / 5, "five biographies", t)
    wrong(
        "ex-physics06-targets",
        t * cfg.pretrain_steps / cfg.bert_steps * 0.15 / cfg.bert_mask_prob,
        "decoder's 2000 steps",
        t,
    )
    wrong(
        "ex-physics06-targets", cfg.bert_steps * cfg.batch_size / cfg.n_people * cfg.bert_mask_prob, "as many tokens", t
    )
    wrong("ex-physics06-targets", t * 1.3, "not quite", t)
    wrong("ex-physics06-targets", None, "expected a positive number")
