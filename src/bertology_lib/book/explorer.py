"""An offline, interactive attention-head explorer for the rendered book (HTML, inline JSON and script).

:func:`attention_explorer` returns one self-contained HTML fragment (no CDN, no kernel, works from ``file://``):
a layer x head grid, each cell coloured by what its head attends to most on average ([CLS], [SEP],
punctuation, the previous, the same or the next token, or broadly), and beside it the selected head's
attention over one sentence drawn as lines from each token (left) to the tokens it attends to (right), the
line's opacity its weight. Clicking a grid cell selects a head; clicking a token on the left keeps only its
lines; a menu switches between sentences. A notebook displays it (``IPython.display.HTML``) and the book keeps
it as the cell's output. A view of the rendered book, not a matplotlib figure (so it lives beside the book's other
machinery rather than in :mod:`bertology_lib.plots`); it imports nothing from the library but :mod:`bertology_lib.errors`.
"""

from __future__ import annotations

import hashlib
import html
import json
from typing import Any, Sequence

import numpy as np

from bertology_lib.errors import ParameterError

TARGETS = ("cls", "sep", "punct", "prev", "self", "next")
LABELS = {
    "cls": "[CLS]",
    "sep": "[SEP]",
    "punct": "punctuation",
    "prev": "previous",
    "self": "itself",
    "next": "next",
    "broad": "broad",
}
COLOURS = {
    "cls": "#d62728",
    "sep": "#9467bd",
    "punct": "#8c564b",
    "prev": "#1f77b4",
    "self": "#7f7f7f",
    "next": "#2ca02c",
    "broad": "#e0e0e0",
}
BROAD = 0.3  # a head whose strongest average target takes less than this share is drawn as "broad"


def dominant_targets(stats: Any, n_layers: int, n_heads: int) -> list[list[list]]:
    """Per layer and head: ``[target, share]``, the target of :data:`TARGETS` the head attends to most on
    average (``stats``: one row per layer and head with a column per target, as
    :func:`bertology_lib.analysis.attention.head_stats` returns), or ``"broad"`` below :data:`BROAD`."""
    missing = {"layer", "head", *TARGETS} - set(stats.columns)
    if missing:
        raise ParameterError(f"stats lacks columns {sorted(missing)}; allowed: a table of head_stats")
    out = [[["broad", 0.0] for _ in range(n_heads)] for _ in range(n_layers)]
    for row in stats.itertuples(index=False):
        layer, head = int(row.layer), int(row.head)
        if not (0 <= layer < n_layers and 0 <= head < n_heads):
            raise ParameterError(
                f"stats has layer {layer}, head {head}; allowed: < {n_layers} layers, < {n_heads} heads"
            )
        shares = {t: float(getattr(row, t)) for t in TARGETS}
        best = max(shares, key=shares.get)
        out[layer][head] = [best if shares[best] >= BROAD else "broad", round(shares[best], 3)]
    return out


def explorer_data(
    weights: Sequence[Sequence[Any]], tokens: Sequence[Sequence[str]], sentences: Sequence[int], stats: Any
) -> dict[str, Any]:
    """The explorer's JSON: ``weights[L][s]`` (heads, T, T) attention of sentence ``s`` in layer ``L`` (as in
    :class:`bertology_lib.analysis.attention_norms.AttentionMaps`), the chosen ``sentences``' tokens and maps
    as integer percentages (rows are queries), and each head's :func:`dominant_targets`."""
    if not weights or not sentences:
        raise ParameterError("weights and sentences must not be empty; allowed: attention maps and sentence indices")
    n_layers = len(weights)
    n_heads = int(np.asarray(weights[0][0]).shape[0])
    out = []
    for s in sentences:
        if not 0 <= s < len(tokens):
            raise ParameterError(f"sentence {s} is out of range; allowed: 0 to {len(tokens) - 1}")
        maps = [
            np.rint(100 * np.asarray(weights[layer][s], dtype=float)).astype(int).tolist() for layer in range(n_layers)
        ]
        out.append({"tokens": list(tokens[s]), "maps": maps})
    return {
        "layers": n_layers,
        "heads": n_heads,
        "targets": dominant_targets(stats, n_layers, n_heads),
        "labels": LABELS,
        "colours": COLOURS,
        "sentences": out,
    }


_SCRIPT = r"""
(function () {
  var root = document.getElementById(__BX_ID__);
  var data = JSON.parse(document.getElementById(__BX_ID__ + "-data").textContent);
  var state = {s: 0, layer: data.layers - 1, head: 0, token: -1};
  var grid = root.querySelector(".bx-grid"), view = root.querySelector(".bx-view");
  var menu = root.querySelector(".bx-sentence"), info = root.querySelector(".bx-info");
  data.sentences.forEach(function (sent, i) {
    var o = document.createElement("option"); o.value = i;
    o.textContent = sent.tokens.slice(1, 9).join(" ") + (sent.tokens.length > 9 ? " …" : "");
    menu.appendChild(o);
  });
  menu.onchange = function () { state.s = +menu.value; state.token = -1; draw(); };
  var table = document.createElement("table");
  var head = table.insertRow(); head.insertCell().textContent = "L\\H";
  for (var h = 0; h < data.heads; h++) { head.insertCell().textContent = h; }
  for (var l = 0; l < data.layers; l++) {
    var row = table.insertRow(); row.insertCell().textContent = l;
    for (var h2 = 0; h2 < data.heads; h2++) {
      var t = data.targets[l][h2], c = row.insertCell();
      c.className = "bx-cell"; c.dataset.layer = l; c.dataset.head = h2;
      c.style.background = data.colours[t[0]];
      c.title = "layer " + l + ", head " + h2 + ": " + data.labels[t[0]] + " (" + t[1] + ")";
      c.onclick = function () { state.layer = +this.dataset.layer; state.head = +this.dataset.head; draw(); };
    }
  }
  grid.appendChild(table);
  function draw() {
    var sent = data.sentences[state.s], toks = sent.tokens, m = sent.maps[state.layer][state.head];
    var rowH = 18, w = 360, x0 = 110, x1 = 250, n = toks.length, svgNS = "http://www.w3.org/2000/svg";
    var svg = document.createElementNS(svgNS, "svg");
    svg.setAttribute("width", w); svg.setAttribute("height", n * rowH + 10);
    var lines = 0;
    for (var i = 0; i < n; i++) {
      if (state.token >= 0 && i !== state.token) continue;
      for (var j = 0; j < n; j++) {
        if (m[i][j] < 2) continue;
        var ln = document.createElementNS(svgNS, "line");
        ln.setAttribute("x1", x0 + 4); ln.setAttribute("y1", 14 + i * rowH);
        ln.setAttribute("x2", x1 - 4); ln.setAttribute("y2", 14 + j * rowH);
        ln.setAttribute("stroke", data.colours[data.targets[state.layer][state.head][0]] === "#e0e0e0" ?
                        "#555" : data.colours[data.targets[state.layer][state.head][0]]);
        ln.setAttribute("stroke-opacity", (m[i][j] / 100).toFixed(2)); ln.setAttribute("stroke-width", 2);
        ln.setAttribute("class", "bx-line"); svg.appendChild(ln); lines++;
      }
    }
    for (var k = 0; k < n; k++) {
      [[x0, "end", true], [x1, "start", false]].forEach(function (side) {
        var tx = document.createElementNS(svgNS, "text");
        tx.setAttribute("x", side[0]); tx.setAttribute("y", 18 + k * rowH);
        tx.setAttribute("text-anchor", side[1]); tx.setAttribute("font-size", "13");
        tx.textContent = toks[k];
        if (side[2]) {
          tx.style.cursor = "pointer"; tx.dataset.token = k;
          if (k === state.token) { tx.setAttribute("font-weight", "bold"); }
          tx.onclick = function () { var q = +this.dataset.token; state.token = state.token === q ? -1 : q; draw(); };
        }
        svg.appendChild(tx);
      });
    }
    view.innerHTML = ""; view.appendChild(svg);
    grid.querySelectorAll(".bx-cell").forEach(function (c) {
      c.classList.toggle("bx-on", +c.dataset.layer === state.layer && +c.dataset.head === state.head);
    });
    var t = data.targets[state.layer][state.head];
    info.textContent = "layer " + state.layer + ", head " + state.head + ": on average attends most to " +
      data.labels[t[0]] + " (" + t[1] + ")" + (state.token >= 0 ? "; showing the lines of '" + toks[state.token] + "'" : "");
    root.dataset.selected = state.layer + "," + state.head;
    root.dataset.lines = lines;
  }
  draw();
})();
"""

_STYLE = """
<style>
.bertology-explorer {display: flex; flex-wrap: wrap; gap: 16px; font-size: 13px; align-items: flex-start}
.bertology-explorer .bx-grid table {border-collapse: collapse}
.bertology-explorer .bx-grid td {width: 22px; height: 18px; text-align: center; padding: 0; border: 1px solid #fff}
.bertology-explorer .bx-cell {cursor: pointer}
.bertology-explorer .bx-cell.bx-on {outline: 3px solid #000; outline-offset: -3px}
.bertology-explorer .bx-legend span {display: inline-block; padding: 0 6px; margin: 2px; color: #fff}
.bertology-explorer .bx-info {width: 100%}
</style>
"""


def attention_explorer(
    weights: Sequence[Sequence[Any]],
    tokens: Sequence[Sequence[str]],
    stats: Any,
    sentences: Sequence[int],
    title: str = "",
) -> Any:
    """The explorer as an ``IPython.display.HTML`` object (see the module docstring): ``weights`` and
    ``tokens`` of some sentences (:class:`bertology_lib.analysis.attention_norms.AttentionMaps` fields),
    ``stats`` the heads' average targets (:func:`bertology_lib.analysis.attention.head_stats`), ``sentences``
    the indices shown (keep them short: every map travels in the page)."""
    from IPython.display import HTML

    data = explorer_data(weights, tokens, sentences, stats)
    uid = "bx-" + hashlib.sha1(json.dumps(data, sort_keys=True).encode()).hexdigest()[:8]  # stable across runs
    legend = "".join(
        f'<span style="background:{COLOURS[k]};{"color:#000" if k == "broad" else ""}">{html.escape(v)}</span>'
        for k, v in LABELS.items()
    )
    payload = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
    body = (
        f'{_STYLE}<div class="bertology-explorer" id="{uid}">'
        f'<div class="bx-info"></div>'
        f'<div><div>{html.escape(title)}</div><div class="bx-legend">{legend}</div><div class="bx-grid"></div>'
        f'<div>sentence: <select class="bx-sentence"></select></div></div>'
        f'<div class="bx-view"></div></div>'
        f'<script type="application/json" id="{uid}-data">{payload}</script>'
        f"<script>{_SCRIPT.replace('__BX_ID__', json.dumps(uid))}</script>"
    )
    return HTML(body)
