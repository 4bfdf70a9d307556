"""The floor of a task: what a model that learned nothing from the inputs scores."""

import pytest

from bertology_lib.data import tasks


def test_floor_is_the_majority_label_or_always_no_answer():
    qa = tasks.toy_qa(n_train=60, n_dev=30, n_test=30)
    f = tasks.floor_scores(qa)
    unanswerable = sum(not ex.answerable for ex in qa.examples("test")) / 30
    assert f["name"] == "always no answer" and f["f1"] == pytest.approx(unanswerable) and 0 < f["f1"] < 1
    nli = tasks.toy_nli(n_train=60, n_dev=30, n_test=30)
    g = tasks.floor_scores(nli)
    assert g["accuracy"] == pytest.approx(1 / 3) and g["name"].startswith("always ")  # balanced: one class in three
    with pytest.raises(ValueError, match="no 'dev' examples"):
        tasks.floor_scores(tasks.toy_nli(n_train=60, n_dev=0, n_test=30), "dev")


def test_floor_gap_over_seeds():
    task = tasks.toy_nli(n_train=60, n_dev=30, n_test=30)
    m, low, high = tasks.floor_gap({0: 0.6, 1: 0.7, 2: 0.65}, task)
    assert m == pytest.approx(0.65 - 1 / 3, abs=1e-6) and low < m < high and low > 0
    at_floor = tasks.floor_gap([1 / 3, 1 / 3 + 0.01, 1 / 3 - 0.01], task)
    assert at_floor[1] < 0 < at_floor[2]  # a model at the floor: the check fails
    with pytest.raises(ValueError, match="at least 2"):
        tasks.floor_gap({0: 0.9}, task)
