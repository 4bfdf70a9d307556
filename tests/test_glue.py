"""The prose-number helpers publish plain Python values under predictable keys."""

from __future__ import annotations

import numpy as np

from bertology_lib.book import prose as glue
from bertology_lib.book.claims import Claim


def test_glue_claims_and_values(monkeypatch):
    published = {}
    monkeypatch.setattr(glue, "_publish", lambda name, value: published.__setitem__(name, value))
    claims = [
        Claim("s.gain", "a gain", "paper", 1.0, (np.float64(2.5), -0.5, 5.0), "rule", "inconclusive"),
        Claim("s.sub.rho", "a rho", "paper", 0.7, np.float64(0.61), "rule", "not reproduced"),
    ]
    keys = glue.glue_claims(claims, "x_")
    assert published == {
        "x_gain": 2.5,
        "x_gain_lo": -0.5,
        "x_gain_hi": 5.0,
        "x_gain_v": "inconclusive",
        "x_sub.rho": 0.61,
        "x_sub.rho_v": "not reproduced",
    }
    assert type(published["x_gain"]) is float and set(keys) == set(published)
    glue.glue_value("n", np.int64(3))
    assert type(published["n"]) is int


def test_bar_reading_says_which_verdicts_hang_on_the_draw_of_models():
    assert (
        glue.bar_reading([], 2, 14)
        == "Neither interval holds the bar, so neither verdict hangs on this draw of the models"
    )
    assert glue.bar_reading(["the linear probe's"], 2, 14) == (
        "Only the linear probe's interval holds the bar, so that verdict could move with another training of the "
        "same recipes"
    )
    assert glue.bar_reading(["a's", "b's"], 2, 14).startswith("Both intervals hold the bar")
    assert glue.bar_reading(["a's", "b's"], 3, 14).startswith("Only a's and b's intervals hold the bar, so those")
    assert glue.bar_reading([], 3, 14).startswith("None of the intervals holds")
    assert glue.bar_reading(["a's"], 2, 3) == "With 3 models no interval can be drawn (it needs 4)"
