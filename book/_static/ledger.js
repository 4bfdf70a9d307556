// Claims ledger: filter rows by part, verdict, instrument status, model class and what the null model (the
// random-init twin) gave, sort by a column (offline, no CDN). The page's query string presets them, so a filtered
// view can be linked: claims_ledger.html?verdict=inconclusive&model=English%20lab%20BERT&sort=ours&order=desc
(function () {
  "use strict";
  var FILTERS = [["part", "part"], ["verdict", "verdict"], ["instrument", "instrument"], ["model", "model"],
                 ["null model", "null"]];
  function query() {
    var out = {};
    window.location.search.replace(/^\?/, "").split("&").forEach(function (kv) {
      if (!kv) { return; }
      var i = kv.indexOf("=");
      var k = decodeURIComponent(i < 0 ? kv : kv.slice(0, i));
      out[k] = decodeURIComponent((i < 0 ? "" : kv.slice(i + 1)).replace(/\+/g, " "));
    });
    return out;
  }
  function values(rows, key) {
    var seen = {};
    rows.forEach(function (r) { if (r.dataset[key] !== undefined) { seen[r.dataset[key]] = true; } });
    return Object.keys(seen).sort();
  }
  function select(label, key, options, preset, onChange) {
    var wrap = document.createElement("label");
    wrap.className = "ledger-filter";
    wrap.appendChild(document.createTextNode(label + " "));
    var s = document.createElement("select");
    s.dataset.key = key;
    ["all"].concat(options).forEach(function (v) {
      var o = document.createElement("option");
      o.value = v; o.textContent = v; s.appendChild(o);
    });
    if (preset && options.indexOf(preset) >= 0) { s.value = preset; }
    s.addEventListener("change", onChange);
    wrap.appendChild(s);
    return wrap;
  }
  function setup(box, q) {
    var table = document.getElementById(box.dataset.table);
    if (!table || table.tagName !== "TABLE") { return; }
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var count = document.createElement("span");
    count.className = "ledger-count";
    function apply() {
      var shown = 0;
      var wanted = {};
      box.querySelectorAll("select").forEach(function (s) { wanted[s.dataset.key] = s.value; });
      rows.forEach(function (r) {
        var ok = Object.keys(wanted).every(function (k) { return wanted[k] === "all" || r.dataset[k] === wanted[k]; });
        r.style.display = ok ? "" : "none";
        if (ok) { shown += 1; }
      });
      count.textContent = shown + " of " + rows.length + " claims shown";
    }
    FILTERS.forEach(function (f) {
      var options = values(rows, f[1]);
      if (options.length) { box.appendChild(select(f[0], f[1], options, q[f[1]], apply)); }
    });
    box.appendChild(count);
    apply();
  }
  function firstNumber(text) {  // "(0.878, 0.822, 0.918) accuracy" -> 0.878 (the estimate); NaN for text
    var m = text.replace(/\u2212/g, "-").match(/[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?/i);
    return m ? parseFloat(m[0]) : NaN;
  }
  function sortBy(table, th, asc) {
    var col = Number(th.dataset.sort);
    th.dataset.order = asc ? "asc" : "desc";
    var numeric = /^(paper|ours)$/.test(th.textContent.trim());  // the estimates; other columns sort as text
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = a.cells[col].textContent.trim(), y = b.cells[col].textContent.trim();
      var nx = numeric ? firstNumber(x) : NaN, ny = numeric ? firstNumber(y) : NaN;
      var xn = !isNaN(nx), yn = !isNaN(ny);
      if (xn !== yn) { return xn ? -1 : 1; }  // numbers before text ("n/a") in either order
      var c = xn ? nx - ny : x.localeCompare(y);
      return asc ? c : -c;
    });
    rows.forEach(function (r) { body.appendChild(r); });
  }
  function sortable(table, q) {
    table.querySelectorAll("th[data-sort]").forEach(function (th) {
      th.title = "sort by " + th.textContent;
      th.addEventListener("click", function () { sortBy(table, th, th.dataset.order !== "asc"); });
      if (q.sort && q.sort === th.textContent.trim()) { sortBy(table, th, q.order !== "desc"); }
    });
  }
  document.addEventListener("DOMContentLoaded", function () {
    var q = query();
    document.querySelectorAll(".ledger-filters[data-table]").forEach(function (box) { setup(box, q); });
    document.querySelectorAll("table.ledger").forEach(function (t) { sortable(t, q); });
  });
})();
