// Where the time went: per iteration, the cost per transaction columns, the top statement
// classes (performance_schema digests) and wait events; for a matrix, the same side by side
// across cells. Kept apart from report.js so the two change alone.
(function () {
  "use strict";
  var Q = window.quadrant;
  if (!Q || !Q.D.evidence || Q.D.only) return;
  var E = Q.D.evidence, el = Q.el;
  var root = document.getElementById("report");

  var fmt = Q.fmt;
  function clip(s, n) { s = String(s || ""); return s.length > n ? s.slice(0, n - 1) + "…" : s; }
  function table(cls, head, rows) {
    var t = el("table", { "class": cls }), tr = el("tr");
    head.forEach(function (h) { tr.appendChild(el("th", { text: h })); });
    t.appendChild(tr);
    rows.forEach(function (r) {
      var row = el("tr");
      r.forEach(function (c) {
        if (c && c.nodeType) row.appendChild(el("td", {}, c));
        else row.appendChild(el("td", { text: c == null ? "-" : String(c) }));
      });
      t.appendChild(row);
    });
    return el("div", { "class": "scroll" }, t);
  }
  function statement(d) {
    var full = (d.schema ? d.schema + ": " : "") + d.text;
    return el("span", { title: full, "class": "statement", text: clip(full, 90) });
  }

  function acrossCells(sec) {
    if (!E.rows || !E.rows.length) return;
    sec.appendChild(el("h3", { text: "Across cells (medians of the repeats)" }));
    var rows = E.rows.map(function (r) {
      var name = r.kind === "cost" ? r.name : el("span", { title: r.name, text: r.kind + " " + clip(r.name, 70) });
      return [name, r.unit].concat(r.values.map(fmt));
    });
    sec.appendChild(table("summary evidence-cells", ["", "unit"].concat(E.cells), rows));
  }

  function perIteration(sec) {
    var its = E.iterations || [];
    if (!its.length) return;
    sec.appendChild(el("h3", { text: "Per iteration" }));
    var pick = el("select", { "aria-label": "iteration for where the time went" });
    its.forEach(function (e, i) { pick.appendChild(el("option", { value: String(i), text: Q.iterLabel(e.iteration) + " @" + e.target })); });
    var panel = el("div", { "class": "evidence-iteration" });
    sec.appendChild(el("p", {}, pick));
    sec.appendChild(panel);
    function show(i) {
      var e = its[i], tx = e.transactions;
      panel.textContent = "";
      var costs = Object.keys(e.costs || {}).sort();
      if (costs.length) {
        panel.appendChild(table("summary evidence-costs", ["cost per transaction", "value"],
          costs.map(function (c) { return [c, fmt(e.costs[c])]; })));
      }
      var per = function (ms) { return tx ? fmt(ms * 1000 / tx) : "-"; };
      if (e.digests && e.digests.length) {
        panel.appendChild(el("h4", { text: "Top statements by total time (performance_schema digests)" }));
        panel.appendChild(table("summary evidence-digests", ["#", "statement", "count", "per tx", "total ms", "µs per tx", "avg ms",
          "rows examined", "rows sent", "no index used", "errors"], e.digests.map(function (d) {
          return [d.rank, statement(d), d.count, tx ? fmt(d.count / tx) : "-", fmt(d.total_ms), per(d.total_ms), fmt(d.avg_ms),
            d.rows_examined, d.rows_sent, d.no_index_used, d.errors];
        })));
      }
      if (e.waits && e.waits.length) {
        panel.appendChild(el("h4", { text: "Top waits by total time" }));
        panel.appendChild(table("summary evidence-waits", ["#", "event", "count", "total ms", "µs per tx", "avg µs"],
          e.waits.map(function (w) { return [w.rank, w.event, w.count, fmt(w.total_ms), per(w.total_ms), fmt(w.avg_us)]; })));
      }
      if (!tx && ((e.digests || []).length || (e.waits || []).length)) {
        panel.appendChild(el("p", { text: "No transactions on this target: nothing to put per transaction." }));
      }
    }
    pick.addEventListener("change", function () { show(Number(pick.value)); });
    show(0);
  }

  try {
    var sec = el("section", { id: "where-time-went" });
    sec.appendChild(el("h2", { text: "Where the time went" }));
    sec.appendChild(el("p", { text: "Costs are the cost.* columns: a watched counter's increase over the transactions. Statements and waits are " +
      "performance_schema's, from the start to the end of each workload (digests.csv, waits.csv), per transaction where the target ran the workload: " +
      "their span includes the warmup, which the transactions do not, so per transaction they read a little high." }));
    if (E.error) sec.appendChild(el("p", { "class": "error", text: "Could not read where the time went: " + E.error }));
    acrossCells(sec);
    perIteration(sec);
    var anchor = null;
    root.querySelectorAll("h2").forEach(function (h) { if (!anchor && h.textContent.indexOf("Over time") === 0) anchor = h; });
    root.insertBefore(sec, anchor);
  } catch (e) {
    Q.failed(e);
    root.appendChild(el("p", { "class": "error", text: "report error (where the time went): " + e }));
  }
})();
