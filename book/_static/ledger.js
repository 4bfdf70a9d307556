// Claims ledger: filter rows by part, verdict and instrument status, sort by a column (offline, no CDN).
(function () {
  "use strict";
  function values(rows, key) {
    var seen = {};
    rows.forEach(function (r) { seen[r.dataset[key]] = true; });
    return Object.keys(seen).sort();
  }
  function select(label, key, options, onChange) {
    var wrap = document.createElement("label");
    wrap.className = "ledger-filter";
    wrap.appendChild(document.createTextNode(label + " "));
    var s = document.createElement("select");
    s.dataset.key = key;
    ["all"].concat(options).forEach(function (v) {
      var o = document.createElement("option");
      o.value = v; o.textContent = v; s.appendChild(o);
    });
    s.addEventListener("change", onChange);
    wrap.appendChild(s);
    return wrap;
  }
  function setup(box) {
    var table = document.getElementById(box.dataset.table);
    if (!table) { return; }
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
    box.appendChild(select("part", "part", values(rows, "part"), apply));
    box.appendChild(select("verdict", "verdict", values(rows, "verdict"), apply));
    box.appendChild(select("instrument", "instrument", values(rows, "instrument"), apply));
    box.appendChild(count);
    apply();
  }
  function sortable(table) {
    table.querySelectorAll("th[data-sort]").forEach(function (th) {
      th.title = "sort by " + th.textContent;
      th.addEventListener("click", function () {
        var col = Number(th.dataset.sort);
        var asc = th.dataset.order !== "asc";
        th.dataset.order = asc ? "asc" : "desc";
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = a.cells[col].textContent.trim(), y = b.cells[col].textContent.trim();
          var nx = parseFloat(x), ny = parseFloat(y);
          var c = (!isNaN(nx) && !isNaN(ny)) ? nx - ny : x.localeCompare(y);
          return asc ? c : -c;
        });
        rows.forEach(function (r) { body.appendChild(r); });
      });
    });
  }
  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll(".ledger-filters[data-table]").forEach(setup);
    document.querySelectorAll("table.ledger").forEach(sortable);
  });
})();
