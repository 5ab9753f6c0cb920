// Verdicts of a comparison: per cell and metric, each run's noise and whether it is better,
// worse or within noise of the first run; and, when a CI gate judged the comparison
// (--fail-on), its outcome above them. Kept apart from report.js so the two change alone.
(function () {
  "use strict";
  var D = JSON.parse(document.getElementById("quadrant-data").textContent);
  var C = D.compare;
  if (!C) return;
  function el(tag, attrs) {
    var n = document.createElement(tag);
    for (var k in attrs || {}) {
      if (k === "text") n.textContent = attrs[k]; else n.setAttribute(k, attrs[k]);
    }
    for (var i = 2; i < arguments.length; i++) if (arguments[i] != null) n.appendChild(arguments[i]);
    return n;
  }
  var root = document.getElementById("report");
  // after the list of runs and the notes, before the per-metric tables
  var anchor = null;
  root.querySelectorAll("h2").forEach(function (x) { if (!anchor && x.textContent !== "Around the numbers") anchor = x; });
  function put(nodes) { nodes.forEach(function (n) { if (n) root.insertBefore(n, anchor); }); }

  // The gate first: a failed build's reader comes for it. Checks that did not pass are
  // listed (failed, inconclusive, confounded, skipped); passed ones are counted.
  var G = C.gate;
  if (G) {
    var gt = el("table", { "class": "summary", id: "gate-checks" },
      el("tr", {}, el("th", { text: "outcome" }), el("th", { text: "rule" }), el("th", { text: "cell" }), el("th", { text: "why" })));
    (G.checks || []).forEach(function (c) {
      gt.appendChild(el("tr", { "class": "gate-" + c.outcome }, el("td", { text: c.outcome }), el("td", { text: c.rule }),
        el("td", { text: c.cell }), el("td", { "class": "why", text: c.why })));
    });
    put([el("h2", { text: "CI gate: " + G.verdict }), el("p", { "class": "gate-tally gate-" + G.verdict.toLowerCase(), id: "gate", text: G.tally }),
      (G.checks || []).length ? el("div", { "class": "scroll" }, gt) : null]);
  }
  if (!C.verdicts || !C.verdicts.length) return;
  var cls = { better: "up", worse: "down" };
  var table = el("table", { "class": "summary", id: "verdicts" });
  var head = el("tr", {}, el("th", { text: "cell" }), el("th", { text: "metric" }));
  // the verdicts first, wrapped to a readable width; each run's value with its noise below
  // it in one column (its mean and interval on hover), so that two runs fit the page
  C.runs.forEach(function (_, i) {
    if (i > 0) head.appendChild(el("th", { text: "verdict, run " + (i + 1) + " vs run 1" }));
  });
  C.runs.forEach(function (_, i) {
    head.appendChild(el("th", { text: "run " + (i + 1) + ": median, noise" }));
  });
  table.appendChild(head);
  C.verdicts.forEach(function (v) {
    var tr = el("tr", {}, el("td", { text: v.cell }), el("td", { text: v.metric }));
    v.runs.forEach(function (r, i) {
      if (i > 0) tr.appendChild(el("td", { "class": "verdict " + (cls[r.kind] || ""), "data-kind": r.kind, text: r.verdict }));
    });
    v.runs.forEach(function (r) {
      tr.appendChild(el("td", { "class": "value", title: "mean " + r.mean }, el("div", { text: r.value }), el("div", { "class": "noise", text: r.noise })));
    });
    table.appendChild(tr);
  });
  put([el("h2", { text: "Verdicts" }), el("p", { text: C.verdict_note || "" }), el("div", { "class": "scroll" }, table)]);
})();
