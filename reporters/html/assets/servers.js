// A comparison cell by cell, run against run (servers, settings, versions): the throughput's
// verdict with where the time went beside it, the latency distributions overlaid and the time
// series overlaid on elapsed time. Kept apart from report.js so the two change alone.
(function () {
  "use strict";
  var Q = window.quadrant;
  var C = Q && Q.D.compare;
  if (!C || (!C.servers && !(C.evidence || []).length)) return;
  var S = C.servers || { runs: [], cells: [], metrics: [], percentiles: [] }, el = Q.el, palette = Q.palette;
  var root = document.getElementById("report");

  var fmt = Q.fmt;
  function find(list, key) { return (list || []).filter(function (x) { return x.key === key || x.cell === key; }); }
  function runLabel(i) { return S.runs[i] || "run " + (i + 1); }

  function verdictLine(panel, key) {
    find(C.verdicts, key).forEach(function (v) {
      if (!C.throughput || v.metric !== C.throughput) return;
      v.runs.forEach(function (r, i) {
        if (i > 0 && r.verdict) panel.appendChild(el("p", { "class": "cell-verdict", text: C.throughput + ", run " + (i + 1) + " vs run 1: " + r.verdict }));
      });
    });
  }

  function evidence(panel, key) {
    var ev = find(C.evidence, key)[0];
    if (!ev) return;
    panel.appendChild(el("h3", { text: "Where the time went (medians of the repeats)" }));
    var t = el("table", { "class": "summary compare-evidence" });
    var head = el("tr", {}, el("th", { text: "" }), el("th", { text: "unit" }));
    C.runs.forEach(function (_, i) {
      head.appendChild(el("th", { text: "run " + (i + 1) }));
      if (i > 0) head.appendChild(el("th", { text: "Δ% vs run 1" }));
    });
    t.appendChild(head);
    ev.rows.forEach(function (r) {
      var name = r.kind === "cost" ? r.name : r.kind + " " + r.name;
      var tr = el("tr", {}, el("td", { title: name, text: name.length > 80 ? name.slice(0, 79) + "…" : name }), el("td", { text: r.unit }));
      r.values.forEach(function (v, i) {
        tr.appendChild(el("td", { text: fmt(v) }));
        if (i > 0) {
          var b = r.values[0], d = (v == null || b == null || b === 0) ? null : 100 * (v - b) / Math.abs(b);
          tr.appendChild(el("td", { text: d == null ? "-" : (d > 0 ? "+" : "") + d.toFixed(1) }));
        }
      });
      t.appendChild(tr);
    });
    panel.appendChild(el("div", { "class": "scroll" }, t));
  }

  function latency(panel, cell) {
    var runs = [];
    cell.latency.forEach(function (l, i) { if (l && l.length) runs.push(i); });
    if (!runs.length) return;
    var names = S.percentiles.map(function (p) { return p === 100 ? "max" : "p" + p; });
    var xs = S.percentiles.map(function (_, i) { return i; });
    var box = el("div", { "class": "chart overlay-latency" });
    panel.appendChild(box);
    var opts = {
      title: "Latency (ms) at each percentile, runs overlaid (from the histograms; log scale)",
      width: Math.max(480, Math.min(1100, panel.clientWidth || 900)), height: 280,
      scales: { x: { time: false }, y: { distr: 3 } },
      axes: [{ label: "percentile", values: function (u, vals) { return vals.map(function (v) { return names[v] || ""; }); }, incrs: [1] }, { size: Q.ySize, label: "ms" }],
      series: [{ label: "percentile", value: function (u, v) { return v == null ? "--" : names[v]; } }].concat(runs.map(function (ri) {
        return { label: runLabel(ri), stroke: palette[ri % palette.length], width: 1.5, points: { show: true } };
      }))
    };
    new uPlot(opts, [xs].concat(runs.map(function (ri) { return cell.latency[ri].map(function (v) { return v > 0 ? v : null; }); })), box);
    Q.counted();
  }

  function overTime(panel, cell) {
    S.metrics.forEach(function (m) {
      var lists = [];
      (cell.series[m] || []).forEach(function (o, i) { if (o.x && o.x.length) lists.push({ label: runLabel(i), x: o.x, y: o.y }); });
      if (!lists.length) return;
      var a = Q.aligned(lists);
      Q.chart(panel, m + " over elapsed time, runs overlaid (mean of the cell's repeats)", "elapsed s", a.xs, a.series);
    });
    Q.refresh();
  }

  try {
    var keys = C.cells.map(function (c) { return c.key; }).filter(function (k) {
      return find(S.cells, k).length || find(C.evidence, k).length;
    });
    if (!keys.length) return;
    var sec = el("section", { id: "cell-by-cell" });
    sec.appendChild(el("h2", { text: "Cell by cell, run against run" }));
    if (S.runs.length) {
      var ol = el("ul", { "class": "server-runs" });
      S.runs.forEach(function (r) { ol.appendChild(el("li", { text: r })); });
      sec.appendChild(ol);
    }
    var pick = el("select", { "aria-label": "cell" });
    keys.forEach(function (k) { pick.appendChild(el("option", { value: k, text: k })); });
    sec.appendChild(el("p", {}, document.createTextNode("Cell: "), pick));
    var panel = el("div", { "class": "cell-panel" });
    sec.appendChild(panel);
    var anchor = null;
    root.querySelectorAll("h2").forEach(function (h) { if (!anchor && C.metrics.indexOf(h.textContent) >= 0) anchor = h; });
    root.insertBefore(sec, anchor);
    var show = function (key) {
      panel.textContent = "";
      verdictLine(panel, key);
      evidence(panel, key);
      var cell = find(S.cells, key)[0];
      if (cell) { latency(panel, cell); overTime(panel, cell); }
    };
    pick.addEventListener("change", function () { show(pick.value); });
    show(keys[0]);
  } catch (e) {
    Q.failed(e);
    root.appendChild(el("p", { "class": "error", text: "report error (cell by cell): " + e }));
  }
})();
