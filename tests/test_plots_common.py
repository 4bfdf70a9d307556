"""The plots package: its shared helpers draw what they are given, and the package keeps its shape
(every name the notebooks call is exported, modules by book part stay small and pure, no copied blocks)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from bertology_lib import plots
from figure_helpers import texts
from bertology_lib.plots import common

ROOT = Path(__file__).resolve().parents[1]
PLOTS = ROOT / "src" / "bertology_lib" / "plots"
MODULES = sorted(p for p in PLOTS.glob("*.py") if p.name != "__init__.py")


def test_finish_titles_the_axes_or_the_figure():
    fig, ax = plt.subplots()
    assert common.finish(fig, "on the axes", ax, fontsize=10) is fig
    assert ax.get_title() == "on the axes" and ax.title.get_fontsize() == 10
    fig, ax = plt.subplots()
    common.finish(fig, "on the figure")
    assert fig.texts[0].get_text() == "on the figure" and ax.get_title() == ""
    fig, ax = plt.subplots()
    common.finish(fig, "", ax)
    assert ax.get_title() == "" and not fig.texts


def test_style_is_the_white_grid_theme():
    common.style()
    assert matplotlib.rcParams["axes.grid"] and matplotlib.rcParams["axes.facecolor"] == "white"


def test_accuracy_heatmap_values_and_readable_column_names():
    table = pd.DataFrame([[0.1, 0.2], [0.3, 1.0]], index=["a", "b"], columns=["birth_city", "major"])
    _, ax = plt.subplots()
    common.accuracy_heatmap(ax, table, fmt=".1f")
    assert np.allclose(ax.collections[0].get_array().reshape(2, 2), table.to_numpy())
    assert texts(ax.get_xticklabels()) == ["birth city", "major"]
    assert texts(ax.texts) == ["0.1", "0.2", "0.3", "1.0"]
    assert ax.collections[0].get_clim() == (0, 1.0)


@pytest.mark.parametrize("horizontal", [False, True])
def test_mean_bars_with_seeds(horizontal):
    table = pd.DataFrame({"variant": ["b", "b", "a", "a"], "seed": [0, 1, 0, 1], "acc": [0.2, 0.4, 0.6, 0.8]})
    _, ax = plt.subplots()
    common.mean_bars_with_seeds(ax, table, "variant", "acc", ["a", "b"], horizontal=horizontal)
    size = [p.get_width() if horizontal else p.get_height() for p in ax.patches]
    assert size == pytest.approx([0.7, 0.3])  # in the given order, not the table's
    value = 0 if horizontal else 1
    assert [sorted(c.get_offsets()[:, value]) for c in ax.collections] == [[0.6, 0.8], [0.2, 0.4]]
    ticks = ax.get_yticklabels() if horizontal else ax.get_xticklabels()
    assert texts(ticks) == ["a", "b"]


def test_every_plot_name_the_notebooks_and_tests_call_is_exported():
    used = set()
    for path in [*ROOT.glob("notebooks/*.ipynb"), *ROOT.glob("tests/*.py")]:
        used |= set(re.findall(r"\bplots\.([a-z_][a-z0-9_]*)\s*\(", path.read_text()))
    assert used, "no plots.<name>( calls found"
    assert sorted(used - set(plots.__all__)) == []
    assert all(callable(getattr(plots, name)) for name in plots.__all__)


def test_all_lists_exactly_the_public_functions_of_the_plot_modules():
    defined = {}
    for path in MODULES:
        if path.name == "common.py":
            continue  # helpers for the plot modules, not figures
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.FunctionDef) and not node.name.startswith("_"):
                assert node.name not in defined, f"{node.name} defined in {path.name} and {defined.get(node.name)}"
                defined[node.name] = path.name
    assert sorted(defined) == sorted(plots.__all__)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_plot_modules_are_small_pure_and_import_no_private_names(path):
    source = path.read_text()
    assert len(source.splitlines()) <= 450
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("bertology_lib"):
            assert node.module == "bertology_lib.errors" or node.module.startswith("bertology_lib.plots"), (
                f"{path.name} imports {node.module}: plots take results, they import no library code"
            )
            assert not any(a.name.startswith("_") for a in node.names), f"{path.name} imports a private name"
        if isinstance(node, ast.Import):
            assert not any(a.name.startswith("bertology_lib") for a in node.names)


def test_no_block_of_six_lines_is_copied_between_plot_functions():
    seen: dict[tuple[str, ...], str] = {}
    for path in MODULES:
        # code lines only: imports are alike by design, comments and docstring edges say nothing
        code = [ln.strip() for ln in path.read_text().splitlines()]
        code = [ln for ln in code if ln and not ln.startswith(("#", '"""', "import ", "from "))]
        for i in range(len(code) - 5):
            window = tuple(code[i : i + 6])
            assert window not in seen or seen[window] == f"{path.name}:{i}", (
                f"{path.name} repeats a block of {seen[window]}: {window[0]} ..."
            )
            seen.setdefault(window, f"{path.name}:{i}")
