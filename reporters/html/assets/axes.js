// Charts by matrix axis and the headline. Per metric: the metric against one axis, one series
// per combination of the other axes; a numeric axis is drawn as lines on its value scale, a
// categorical one as grouped bars; a point is the median of a cell's repeats and its error bar
// their range. Kept apart from report.js so the two change alone.
(function () {
  "use strict";
  var Q = window.quadrant;
  if (!Q || !Q.D.matrix || Q.D.only) return;
  var M = Q.D.matrix, el = Q.el, info = Q.D.info || {}, palette = Q.palette;
  var root = document.getElementById("report");
  var SVG = "http://www.w3.org/2000/svg", CATEGORICAL_MAX = M.categorical_max || 3;
  document.head.appendChild(el("style", { text: ".headline { background: #fff; border: 1px solid #e3e7ee; padding: 4px 12px; margin: 12px 0; } " +
    ".headline .description { font-size: 15px; } .legend { font-size: 12px; padding: 2px 8px 6px; } " +
    ".swatch { display: inline-block; width: 10px; height: 10px; margin-left: 8px; } table.relative { margin: 4px 8px 8px; }" }));

  // firstH2 is the first section heading starting with prefix, null when there is none.
  function firstH2(prefix) {
    var found = null;
    root.querySelectorAll("h2").forEach(function (h) { if (!found && h.textContent.indexOf(prefix) === 0) found = h; });
    return found;
  }
  function fmt(v) {
    if (v == null || !isFinite(v)) return "-";
    var a = Math.abs(v);
    if (a >= 100) return v.toFixed(0);
    if (a >= 10) return v.toFixed(1);
    if (a >= 1) return v.toFixed(2);
    return String(Number(v.toPrecision(3)));
  }
  function cellKeys() {
    var seen = {}, n = 0;
    M.cells.forEach(function (c) { if (!seen[c.key]) { seen[c.key] = 1; n++; } });
    return n;
  }
  function targetsOf(cells) {
    var out = [];
    cells.forEach(function (c) { if (out.indexOf(c.target) < 0) out.push(c.target); });
    return out;
  }

  function headline() {
    // report.js made the box (with a knee, when the plan has stages); the matrix's part goes first
    var box = document.getElementById("headline"), existing = !!box, first = box && box.firstChild;
    if (!box) box = el("div", { "class": "headline", id: "headline" });
    var top = el("div");
    if (M.description) top.appendChild(el("p", { "class": "description", text: M.description }));
    var swept = M.axes.map(function (a) { return a.name + " " + a.values.join(", "); }).join(" × ");
    top.appendChild(el("p", { text: "Swept: " + swept + " (" + cellKeys() + " cells, " + (info.iterations || []).length + " iterations)." }));
    var many = targetsOf(M.cells).length > 1;
    if (M.headline && M.headline.length) {
      var ul = el("ul", { "class": "best-worst" });
      M.headline.forEach(function (h) {
        ul.appendChild(el("li", {}, el("b", { text: h.metric + (many ? " @" + h.target : "") }),
          document.createTextNode(": best " + h.best + " (" + fmt(h.best_value) + "), worst " + h.worst + " (" + fmt(h.worst_value) + ")")));
      });
      top.appendChild(ul);
    }
    var kept = [];
    M.cells.forEach(function (c) { (c.failed || []).forEach(function (f) { kept.push(c.key + (many ? " @" + c.target : "") + ": " + f); }); });
    if (kept.length) {
      var ko = el("ul", { "class": "kept-out" });
      kept.forEach(function (k) { ko.appendChild(el("li", { text: k })); });
      top.appendChild(el("p", { text: "Kept out of best and worst (not a whole measurement):" }));
      top.appendChild(ko);
    }
    box.insertBefore(top, first || null);
    if (!existing) {
      var h1 = root.querySelector("h1"); // the top, under the plan's name
      root.insertBefore(box, h1 ? h1.nextSibling : root.firstChild);
    }
  }

  // seriesOf groups the cells that have metric m by the values of every axis but ax (and by
  // target when several have it): one series each, its cells by their value on ax.
  function seriesOf(m, ax) {
    var cells = M.cells.filter(function (c) { return c.stats[m]; });
    var many = targetsOf(cells).length > 1;
    var out = [], byLabel = {};
    cells.forEach(function (c) {
      var parts = [];
      M.axes.forEach(function (a, i) { if (i !== ax) parts.push(a.name + "=" + c.values[i]); });
      if (many) parts.push("@" + c.target);
      var label = parts.join(" ") || m;
      var s = byLabel[label];
      if (!s) { s = byLabel[label] = { label: label, target: c.target, cells: {} }; out.push(s); }
      s.cells[c.values[ax]] = c.stats[m];
    });
    return out;
  }

  function range(series) {
    var lo = Infinity, hi = -Infinity;
    series.forEach(function (s) {
      Object.keys(s.cells).forEach(function (k) { lo = Math.min(lo, s.cells[k].min); hi = Math.max(hi, s.cells[k].max); });
    });
    return [lo, hi];
  }

  function lines(box, m, a, series, width) {
    var xs = a.values.map(Number);
    var log = xs[0] > 0 && xs[xs.length - 1] / xs[0] >= 8;
    var r = range(series), pad = (r[1] - r[0]) * 0.08 || Math.abs(r[1]) * 0.1 || 1;
    var opts = {
      title: m + " by " + a.name, width: width, height: 260,
      scales: { x: log ? { time: false, distr: 3, log: 2 } : { time: false }, y: { range: function () { return [r[0] - pad, r[1] + pad]; } } },
      // ticks at the axis's values only: 1, 4, 16 threads, never 2.5 of them
      axes: [{ label: a.name + (log ? " (log scale)" : ""), splits: function () { box.setAttribute("data-x-ticks", xs.join(",")); return xs; } }, { size: Q.ySize }],
      series: [{ label: a.name }].concat(series.map(function (s, i) {
        return { label: s.label, stroke: palette[i % palette.length], width: 1.5, points: { show: true, size: 6 } };
      })),
      hooks: { draw: [function (u) { whiskers(u, xs, a, series); }] }
    };
    var data = [xs].concat(series.map(function (s) {
      return a.values.map(function (v) { return s.cells[v] ? s.cells[v].median : null; });
    }));
    new uPlot(opts, data, box);
    Q.counted();
  }

  function whiskers(u, xs, a, series) {
    var ctx = u.ctx, w = 4 * uPlot.pxRatio, n = 0;
    ctx.save();
    ctx.lineWidth = uPlot.pxRatio;
    series.forEach(function (s, i) {
      if (!u.series[i + 1].show) return;
      ctx.strokeStyle = palette[i % palette.length];
      ctx.beginPath();
      xs.forEach(function (x, j) {
        var st = s.cells[a.values[j]];
        if (!st || st.n < 2) return;
        var px = u.valToPos(x, "x", true), y0 = u.valToPos(st.min, "y", true), y1 = u.valToPos(st.max, "y", true);
        ctx.moveTo(px, y0); ctx.lineTo(px, y1);
        ctx.moveTo(px - w, y0); ctx.lineTo(px + w, y0);
        ctx.moveTo(px - w, y1); ctx.lineTo(px + w, y1);
        n++;
      });
      ctx.stroke();
    });
    ctx.restore();
    u.root.parentNode.setAttribute("data-errorbars", String(n)); // what a test can see of a canvas
  }

  function svg(tag, attrs, text) {
    var n = document.createElementNS(SVG, tag);
    for (var k in attrs) n.setAttribute(k, attrs[k]);
    if (text != null) n.textContent = text;
    return n;
  }

  // ticks are about five round values from lo to hi.
  function ticks(lo, hi) {
    var span = hi - lo || 1, step = Math.pow(10, Math.floor(Math.log10(span / 5)));
    [1, 2, 2.5, 5, 10].some(function (f) { if (span / (step * f) <= 6) { step *= f; return true; } return false; });
    var out = [];
    for (var v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(Number(v.toPrecision(12)));
    return out;
  }

  function bars(box, m, a, series, width) {
    var H = 280, L = 64, R = 12, T = 30, B = 36, pw = width - L - R, ph = H - T - B;
    var r = range(series), lo = Math.min(0, r[0]), hi = Math.max(0, r[1]);
    hi += (hi - lo) * 0.05 || 1;
    var y = function (v) { return T + ph * (1 - (v - lo) / (hi - lo)); };
    var s = svg("svg", { width: width, height: H, viewBox: "0 0 " + width + " " + H, "class": "bars", role: "img" });
    s.appendChild(svg("text", { x: width / 2, y: 18, "text-anchor": "middle", "font-weight": "bold", "font-size": 14 }, m + " by " + a.name));
    ticks(lo, hi).forEach(function (t) {
      s.appendChild(svg("line", { x1: L, x2: L + pw, y1: y(t), y2: y(t), stroke: "rgba(0,0,0,0.07)" }));
      s.appendChild(svg("text", { x: L - 6, y: y(t) + 4, "text-anchor": "end", "font-size": 11 }, fmt(t)));
    });
    var gw = pw / a.values.length, bw = gw * 0.8 / series.length;
    a.values.forEach(function (v, ci) {
      var gx = L + ci * gw + gw * 0.1;
      s.appendChild(svg("text", { x: L + ci * gw + gw / 2, y: T + ph + 16, "text-anchor": "middle", "font-size": 12 }, v));
      series.forEach(function (se, si) {
        var st = se.cells[v];
        if (!st) return;
        var x = gx + si * bw, top = y(Math.max(st.median, 0)), bottom = y(Math.min(st.median, 0));
        var rect = svg("rect", { x: x + 1, y: top, width: Math.max(1, bw - 2), height: Math.max(0, bottom - top), fill: palette[si % palette.length] });
        rect.appendChild(svg("title", {}, se.label + ", " + a.name + "=" + v + ": " + fmt(st.median) +
          (st.n > 1 ? " (median of " + st.n + " repeats, " + fmt(st.min) + "–" + fmt(st.max) + ")" : "")));
        s.appendChild(rect);
        if (st.n > 1) {
          var cx = x + bw / 2, y0 = y(st.min), y1 = y(st.max);
          s.appendChild(svg("path", { d: "M" + cx + " " + y0 + "V" + y1 + "M" + (cx - 4) + " " + y0 + "h8M" + (cx - 4) + " " + y1 + "h8",
            stroke: "#1d2330", "stroke-width": 1, fill: "none", "class": "errorbar" }));
        }
      });
    });
    s.appendChild(svg("line", { x1: L, x2: L + pw, y1: y(0), y2: y(0), stroke: "#1d2330" }));
    s.appendChild(svg("text", { x: L + pw / 2, y: H - 4, "text-anchor": "middle", "font-size": 12, "font-weight": "bold" }, a.name));
    box.appendChild(s);
    var legend = el("div", { "class": "legend" });
    series.forEach(function (se, si) {
      legend.appendChild(el("span", { "class": "swatch", style: "background:" + palette[si % palette.length] }));
      legend.appendChild(document.createTextNode(" " + se.label + "  "));
    });
    box.appendChild(legend);
    Q.counted();
  }

  // relative is the small view beside each chart: every cell as a change from the first cell
  // of its target, in the run's order.
  function relative(box, m, a, series) {
    var first = {};
    M.cells.forEach(function (c) { if (c.stats[m] && !first[c.target]) first[c.target] = c; });
    var t0 = first[series[0].target];
    var table = el("table", { "class": "relative" });
    var head = el("tr", {}, el("th", { text: "relative to the first cell (" + t0.key + ")" }));
    a.values.forEach(function (v) { head.appendChild(el("th", { text: a.name + "=" + v })); });
    table.appendChild(head);
    var better = (M.better || {})[m] || 0;
    series.forEach(function (s) {
      var base = first[s.target].stats[m].median;
      var tr = el("tr", {}, el("td", { text: s.label }));
      a.values.forEach(function (v) {
        var st = s.cells[v];
        if (!st || !base) { tr.appendChild(el("td", { text: "-" })); return; }
        var d = 100 * (st.median - base) / Math.abs(base);
        if (Math.abs(d) < 0.05) d = 0;
        var cls = d === 0 || !better ? "" : (d * better > 0 ? "up" : "down");
        tr.appendChild(el("td", { "class": cls, text: (d > 0 ? "+" : "") + d.toFixed(1) + "%" }));
      });
      table.appendChild(tr);
    });
    box.appendChild(el("div", { "class": "scroll" }, table));
  }

  // axisCharts draws each default metric along every axis (more from the picker): along one
  // axis, one series per combination of the others.
  function axisCharts() {
    // Along an axis of one value every series is one point: a one-cell plan's summary and
    // charts over time say all of it.
    var along = M.axes.filter(function (a) { return a.values.length > 1; });
    if (!along.length) return;
    var sec = el("section", { id: "by-axis" });
    sec.appendChild(el("h2", { text: "By matrix axis" }));
    sec.appendChild(el("p", { text: "A point is the median of a cell's repeats; its error bar spans their lowest to highest value. " +
      "Axes of quantities (threads, connections, a rate, or more than " + CATEGORICAL_MAX + " numbers) are drawn as lines on their value scale, " +
      "settings (few distinct values: flush_log 1 and 2, O_DIRECT and fsync) as grouped bars." }));
    var drawn = (M.defaults || []).slice();
    if (!drawn.length && M.metrics.length) drawn = [M.metrics[0]];
    var pick = el("select", { "aria-label": "add a chart by axis" });
    pick.appendChild(el("option", { value: "", text: "add a chart…" }));
    M.metrics.forEach(function (m) { pick.appendChild(el("option", { value: m, text: m })); });
    pick.addEventListener("change", function () {
      if (pick.value && drawn.indexOf(pick.value) < 0) { drawn.push(pick.value); draw(pick.value); }
      pick.value = "";
    });
    sec.appendChild(el("p", {}, pick));
    var area = el("div");
    sec.appendChild(area);
    // the answer to what the matrix asked, before the table of every iteration
    root.insertBefore(sec, firstH2("Summary") || firstH2("By iteration") || firstH2("Over time"));
    function draw(m) {
      M.axes.forEach(function (a, ax) {
        if (along.indexOf(a) < 0) return;
        var series = seriesOf(m, ax);
        if (!series.length) return;
        var box = el("div", { "class": "chart axis-chart", "data-metric": m, "data-axis": a.name });
        area.appendChild(box);
        var width = Math.max(480, Math.min(1100, area.clientWidth || 900));
        if (a.numeric) lines(box, m, a, series, width); else bars(box, m, a, series, width);
        var kept = M.cells.filter(function (c) { return (c.failed || []).length; });
        if (kept.length) {
          box.setAttribute("data-kept-out", String(kept.length));
          box.appendChild(el("p", { "class": "kept-out", text: "✗ kept out (not a whole measurement): " +
            kept.map(function (c) { return c.key + " " + c.failed.join(", "); }).join("; ") }));
        }
        relative(box, m, a, series);
      });
    }
    drawn.forEach(draw);
  }

  try {
    headline();
    axisCharts();
  } catch (e) {
    Q.failed(e);
    root.appendChild(el("p", { "class": "error", text: "report error (by matrix axis): " + e }));
  }
})();
