// Verdicts of a comparison: per cell and metric, each run's noise and whether it is better,
// worse or within noise of the first run. Kept apart from report.js so the two change alone.
(function () {
  "use strict";
  var D = JSON.parse(document.getElementById("quadrant-data").textContent);
  var C = D.compare;
  if (!C || !C.verdicts || !C.verdicts.length) return;
  function el(tag, attrs) {
    var n = document.createElement(tag);
    for (var k in attrs || {}) {
      if (k === "text") n.textContent = attrs[k]; else n.setAttribute(k, attrs[k]);
    }
    for (var i = 2; i < arguments.length; i++) if (arguments[i] != null) n.appendChild(arguments[i]);
    return n;
  }
  var cls = { better: "up", worse: "down" };
  var table = el("table", { "class": "summary", id: "verdicts" });
  var head = el("tr", {}, el("th", { text: "cell" }), el("th", { text: "metric" }));
  // the verdicts first: the table is wide and scrolls, what matters should not
  C.runs.forEach(function (_, i) {
    if (i > 0) head.appendChild(el("th", { text: "verdict, run " + (i + 1) + " vs run 1" }));
  });
  C.runs.forEach(function (_, i) {
    head.appendChild(el("th", { text: "run " + (i + 1) + " (median)" }));
    head.appendChild(el("th", { text: "noise" }));
    head.appendChild(el("th", { text: "mean" }));
  });
  table.appendChild(head);
  C.verdicts.forEach(function (v) {
    var tr = el("tr", {}, el("td", { text: v.cell }), el("td", { text: v.metric }));
    v.runs.forEach(function (r, i) {
      if (i > 0) tr.appendChild(el("td", { "class": "verdict " + (cls[r.kind] || ""), "data-kind": r.kind, text: r.verdict }));
    });
    v.runs.forEach(function (r) {
      tr.appendChild(el("td", { text: r.value }));
      tr.appendChild(el("td", { text: r.noise }));
      tr.appendChild(el("td", { text: r.mean }));
    });
    table.appendChild(tr);
  });
  var root = document.getElementById("report");
  var h = el("h2", { text: "Verdicts" });
  var note = el("p", { text: C.verdict_note || "" });
  // after the list of runs and the notes, before the per-metric tables
  var anchor = null;
  root.querySelectorAll("h2").forEach(function (x) { if (!anchor && x.textContent !== "Around the numbers") anchor = x; });
  [h, note, el("div", { "class": "scroll" }, table)].forEach(function (n) { root.insertBefore(n, anchor); });
})();
