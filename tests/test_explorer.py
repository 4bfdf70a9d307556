"""The offline attention explorer: its data, its errors, and a page that cannot break out of its script."""

import json
import re

import numpy as np
import pandas as pd
import pytest

from bertology_lib.errors import ParameterError
from bertology_lib.book import explorer


def _stats(layers=2, heads=3, prev=0.9):
    rows = []
    for layer in range(layers):
        for head in range(heads):
            rows.append(
                dict(
                    layer=layer,
                    head=head,
                    cls=0.1,
                    sep=0.1,
                    punct=0.05,
                    prev=prev if head == 0 else 0.1,
                    self=0.1,
                    next=0.1,
                )
            )
    return pd.DataFrame(rows)


def _maps(tokens, layers=2, heads=3, seed=0):
    rng = np.random.default_rng(seed)
    return [[rng.dirichlet(np.ones(len(t)), size=(heads, len(t))) for t in tokens] for _ in range(layers)]


def test_heads_are_coloured_by_their_strongest_target_or_broad():
    targets = explorer.dominant_targets(_stats(), 2, 3)
    assert targets[0][0] == ["prev", 0.9] and targets[1][0] == ["prev", 0.9]
    assert targets[0][1][0] == "broad"  # no target reaches explorer.BROAD


def test_maps_travel_as_integer_percentages():
    tokens = [["[CLS]", "a", "b", "[SEP]"], ["[CLS]", "c", "[SEP]"]]
    data = explorer.explorer_data(_maps(tokens), tokens, [1], _stats())
    [sent] = data["sentences"]
    assert sent["tokens"] == tokens[1] and len(sent["maps"]) == 2 and len(sent["maps"][0]) == 3
    rows = np.array(sent["maps"][0][0])
    assert rows.dtype.kind == "i" and np.all(np.abs(rows.sum(-1) - 100) <= 2)


def test_bad_input_names_what_is_allowed():
    tokens = [["[CLS]", "a", "[SEP]"]]
    with pytest.raises(ParameterError, match="sentence 3 is out of range"):
        explorer.explorer_data(_maps(tokens), tokens, [3], _stats())
    with pytest.raises(ParameterError, match="lacks columns"):
        explorer.explorer_data(_maps(tokens), tokens, [0], _stats().drop(columns=["prev"]))
    with pytest.raises(ParameterError, match="layer 2, head 0"):
        explorer.dominant_targets(_stats(layers=3), 2, 3)


def test_the_html_is_self_contained_and_escapes_its_data():
    tokens = [["[CLS]", "</script><b>x", "[SEP]"]]
    out = explorer.attention_explorer(_maps(tokens), tokens, _stats(), [0], title="t").data
    assert "http" not in out.replace("http://www.w3.org/2000/svg", "")  # nothing fetched from a network
    payload = re.search(r'<script type="application/json" id="(bx-\w+)-data">(.*?)</script>', out, re.DOTALL)
    assert payload and json.loads(payload.group(2).replace("<\\/", "</"))["sentences"][0]["tokens"][1].startswith("</")
    assert out == explorer.attention_explorer(_maps(tokens), tokens, _stats(), [0], title="t").data  # stable id
