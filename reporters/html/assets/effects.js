// The headline's effects: what each matrix axis does at each combination of the other axes,
// each value against the axis's first, as sentences and as a chart per axis and metric (the
// change in percent with its 95% CI as an error bar, against the other axes). The data are
// computed in Go (reporters/effects); this only draws them, with textContent throughout.
(function () {
  "use strict";
  var Q = window.quadrant;
  if (!Q || !Q.D.effects || !Q.D.effects.length || Q.D.only) return;
  var E = Q.D.effects, el = Q.el, palette = Q.palette;
  var SVG = "http://www.w3.org/2000/svg";

  function svg(tag, attrs, text) {
    var n = document.createElementNS(SVG, tag);
    for (var k in attrs) n.setAttribute(k, attrs[k]);
    if (text != null) n.textContent = text;
    return n;
  }
  function pct(v) { return (v > 0 ? "+" : "") + (Math.abs(v) >= 10 ? v.toFixed(0) : v.toFixed(1)) + "%"; }
  function uniq(list) { var out = []; list.forEach(function (x) { if (out.indexOf(x) < 0) out.push(x); }); return out; }

  // chart draws, for one axis and metric, each value's change against the axis's first value
  // at each combination of the other axes (the groups), with its 95% CI as an error bar.
  function chart(box, axis, metric, lines) {
    var groups = uniq(lines.map(function (l) { return l.at; }));
    var values = uniq(lines.map(function (l) { return l.value; }));
    var pts = [];
    lines.forEach(function (l) {
      l.effects.forEach(function (e) {
        if (e.metric === metric && e.change != null) pts.push({ g: groups.indexOf(l.at), s: values.indexOf(l.value), e: e, l: l });
      });
    });
    if (!pts.length) return;
    var outer = box;
    box = el("div", { "class": "effect-chart-box" });
    outer.appendChild(box);
    var lo = 0, hi = 0;
    pts.forEach(function (p) {
      [p.e.change, p.e.lo, p.e.hi].forEach(function (v) { if (v != null) { lo = Math.min(lo, v); hi = Math.max(hi, v); } });
    });
    var pad = (hi - lo) * 0.08 || 1; lo -= pad; hi += pad;
    var W = Math.max(420, Math.min(900, 120 + groups.length * values.length * 60)), H = 240, L = 60, R = 12, T = 28, B = 40;
    var pw = W - L - R, ph = H - T - B;
    var y = function (v) { return T + ph * (1 - (v - lo) / (hi - lo)); };
    var s = svg("svg", { width: W, height: H, viewBox: "0 0 " + W + " " + H, "class": "effect-chart", role: "img",
      "data-axis": axis, "data-metric": metric, "data-points": String(pts.length) });
    var title = metric + ": " + axis + " " + values.join(", ") + " vs " + lines[0].base + " (95% CI)";
    s.appendChild(svg("text", { x: W / 2, y: 16, "text-anchor": "middle", "font-weight": "bold", "font-size": 13 }, title));
    var step = (hi - lo) / 4;
    for (var i = 0; i <= 4; i++) {
      var t = lo + i * step;
      s.appendChild(svg("line", { x1: L, x2: L + pw, y1: y(t), y2: y(t), stroke: "rgba(0,0,0,0.07)" }));
      s.appendChild(svg("text", { x: L - 6, y: y(t) + 4, "text-anchor": "end", "font-size": 11 }, pct(t)));
    }
    s.appendChild(svg("line", { x1: L, x2: L + pw, y1: y(0), y2: y(0), stroke: "#1d2330" }));
    var gw = pw / groups.length;
    groups.forEach(function (g, gi) {
      s.appendChild(svg("text", { x: L + gi * gw + gw / 2, y: T + ph + 16, "text-anchor": "middle", "font-size": 12 }, g || "all"));
    });
    pts.forEach(function (p) {
      var cx = L + p.g * gw + gw * (p.s + 1) / (values.length + 1), color = palette[p.s % palette.length];
      if (p.e.lo != null && p.e.hi != null) {
        var y0 = y(p.e.lo), y1 = y(p.e.hi);
        s.appendChild(svg("path", { d: "M" + cx + " " + y0 + "V" + y1 + "M" + (cx - 5) + " " + y0 + "h10M" + (cx - 5) + " " + y1 + "h10",
          stroke: color, "stroke-width": 1.5, fill: "none", "class": "effect-errorbar" }));
      }
      var dot = svg("circle", { cx: cx, cy: y(p.e.change), r: 4, fill: color, "class": "effect" });
      dot.appendChild(svg("title", {}, p.l.axis + " " + p.l.value + " vs " + p.l.base + (p.l.at ? " at " + p.l.at : "") + ": " +
        metric + " " + pct(p.e.change) + ", " + p.e.text));
      s.appendChild(dot);
    });
    var other = lines[0].at ? lines[0].at.split(" ").map(function (f) { return f.split("=")[0]; }).join(", ") : "";
    if (other) s.appendChild(svg("text", { x: L + pw / 2, y: H - 4, "text-anchor": "middle", "font-size": 12, "font-weight": "bold" }, other));
    box.appendChild(s);
    var legend = el("div", { "class": "legend" });
    values.forEach(function (v, i) {
      legend.appendChild(el("span", { "class": "swatch", style: "background:" + palette[i % palette.length] }));
      legend.appendChild(document.createTextNode(" " + axis + "=" + v + " vs " + lines[0].base + "  "));
    });
    box.appendChild(legend);
    Q.counted();
  }

  // reproductions lists, under an effect's sentence, what the folder's recorded reruns
  // (reproductions/) found of each of its metrics: the tally, then each rerun's verdict and
  // where it ran. null when none was recorded.
  function reproductions(l) {
    var ul = null;
    l.effects.forEach(function (e) {
      if (!e.reruns || !e.reruns.length) return;
      ul = ul || el("ul", { "class": "effect-reproductions" });
      var n = {};
      e.reruns.forEach(function (r) { n[r.verdict] = (n[r.verdict] || 0) + 1; });
      var tally = ["reproduced", "not reproduced", "inconclusive"].filter(function (v) { return n[v]; })
        .map(function (v) { return n[v] + " " + v; }).join(", ");
      var li = el("li", { "class": "effect-reruns", "data-metric": e.metric, text: e.metric + ", " + e.reruns.length + " reruns: " + tally });
      var inner = el("ul");
      e.reruns.forEach(function (r) {
        var change = r.here.change == null ? "no value" : pct(r.here.change) +
          (r.here.lo != null && r.here.hi != null ? " (95% CI " + pct(r.here.lo) + " to " + pct(r.here.hi) + ")" : "");
        inner.appendChild(el("li", { "class": "effect-rerun", "data-verdict": r.verdict,
          text: r.verdict + " on " + r.on + ", " + r.when + ": " + change + "; " + r.why +
            (r.differs ? "; settings that differed: " + r.differs : "") }));
      });
      li.appendChild(inner);
      ul.appendChild(li);
    });
    return ul;
  }

  function effects() {
    var root = document.getElementById("report");
    var box = document.getElementById("headline");
    if (!box) {
      box = el("div", { "class": "headline", id: "headline" });
      var h1 = root.querySelector("h1");
      root.insertBefore(box, h1 ? h1.nextSibling : root.firstChild);
    }
    var sec = el("div", { "class": "effects", id: "effects" });
    sec.appendChild(el("p", {}, el("b", { text: "Effect of each axis" }),
      document.createTextNode(" (each value against the axis's first, at each combination of the other axes; 95% CI by bootstrap over repeats):")));
    var ul = el("ul", { "class": "effect-sentences" });
    E.forEach(function (l) {
      var li = el("li", { text: l.sentence });
      var reruns = reproductions(l);
      if (reruns) li.appendChild(reruns);
      ul.appendChild(li);
    });
    sec.appendChild(ul);
    var charts = el("div", { "class": "effect-charts", style: "display:flex;flex-wrap:wrap;gap:4px 16px" });
    sec.appendChild(charts);
    // after the matrix's summary (axes.js put it first), before a knee or stalls
    box.insertBefore(sec, box.firstChild ? box.firstChild.nextSibling : null);
    uniq(E.map(function (l) { return l.axis; })).forEach(function (axis) {
      var lines = E.filter(function (l) { return l.axis === axis; });
      uniq([].concat.apply([], lines.map(function (l) { return l.effects.map(function (e) { return e.metric; }); }))).forEach(function (m) {
        chart(charts, axis, m, lines);
      });
    });
  }

  try {
    effects();
  } catch (e) {
    Q.failed(e);
    document.getElementById("report").appendChild(el("p", { "class": "error", text: "report error (effects): " + e }));
  }
})();
