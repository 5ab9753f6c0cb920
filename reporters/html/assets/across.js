// Each effect across several folders of one plan (quadrant report A B C --out FILE): a chart
// per effect with each folder's change as a dot and its 95% CI as a bar, 0 marked, so an
// effect that holds from one run to the next, or does not, shows at a glance. Computed in Go
// (reporters/reproduce.Across); this only draws, with textContent throughout.
(function () {
  "use strict";
  var Q = window.quadrant;
  if (!Q || !Q.D.across) return;
  var A = Q.D.across, el = Q.el, palette = Q.palette;
  var SVG = "http://www.w3.org/2000/svg";
  function svg(tag, attrs, text) {
    var n = document.createElementNS(SVG, tag);
    for (var k in attrs) n.setAttribute(k, attrs[k]);
    if (text != null) n.textContent = text;
    return n;
  }
  function pct(v) { return (v > 0 ? "+" : "") + (Math.abs(v) >= 10 ? v.toFixed(0) : v.toFixed(1)) + "%"; }

  function chart(e) {
    var vals = [0];
    e.points.forEach(function (p) { [p.change, p.lo, p.hi].forEach(function (v) { if (v != null) vals.push(v); }); });
    var lo = Math.min.apply(null, vals), hi = Math.max.apply(null, vals);
    var pad = (hi - lo) * 0.08 || 1; lo -= pad; hi += pad;
    var W = Math.max(360, Math.min(900, 120 + e.points.length * 70)), H = 220, L = 60, R = 12, T = 26, B = 30;
    var ph = H - T - B, gw = (W - L - R) / e.points.length;
    var y = function (v) { return T + ph * (1 - (v - lo) / (hi - lo)); };
    var drawn = e.points.filter(function (p) { return p.change != null; }).length;
    var s = svg("svg", { width: W, height: H, viewBox: "0 0 " + W + " " + H, "class": "across-chart", role: "img",
      "data-effect": e.effect, "data-metric": e.metric, "data-points": String(drawn) });
    s.appendChild(svg("text", { x: W / 2, y: 16, "text-anchor": "middle", "font-weight": "bold", "font-size": 13 }, e.metric + ": " + e.effect + " (95% CI)"));
    for (var i = 0; i <= 4; i++) {
      var t = lo + i * (hi - lo) / 4;
      s.appendChild(svg("line", { x1: L, x2: W - R, y1: y(t), y2: y(t), stroke: "rgba(0,0,0,0.07)" }));
      s.appendChild(svg("text", { x: L - 6, y: y(t) + 4, "text-anchor": "end", "font-size": 11 }, pct(t)));
    }
    s.appendChild(svg("line", { x1: L, x2: W - R, y1: y(0), y2: y(0), stroke: "#1d2330" }));
    e.points.forEach(function (p, i) {
      var cx = L + gw * (i + 0.5), color = palette[i % palette.length];
      s.appendChild(svg("text", { x: cx, y: H - 10, "text-anchor": "middle", "font-size": 12 }, String(i + 1)));
      if (p.change == null) return;
      if (p.lo != null && p.hi != null) {
        s.appendChild(svg("path", { d: "M" + cx + " " + y(p.lo) + "V" + y(p.hi) + "M" + (cx - 5) + " " + y(p.lo) + "h10M" + (cx - 5) + " " + y(p.hi) + "h10",
          stroke: color, "stroke-width": 1.5, fill: "none", "class": "across-interval" }));
      }
      var dot = svg("circle", { cx: cx, cy: y(p.change), r: 4, fill: color, "class": "across-effect" });
      dot.appendChild(svg("title", {}, "folder " + (i + 1) + ": " + pct(p.change) +
        (p.lo != null && p.hi != null ? " (95% CI " + pct(p.lo) + " to " + pct(p.hi) + ")" : "")));
      s.appendChild(dot);
    });
    return s;
  }

  try {
    var root = document.getElementById("report");
    root.appendChild(el("h1", { text: "Effects of " + A.plan + " across " + A.folders.length + " folders" }));
    var ol = el("ol");
    A.folders.forEach(function (f) { ol.appendChild(el("li", { text: f })); });
    root.appendChild(ol);
    root.appendChild(el("p", { text: "Each effect (a value against its axis's first, at the other axes' values) in each folder, numbered as above, with its 95% CI by bootstrap over repeats." }));
    var box = el("div", { style: "display:flex;flex-wrap:wrap;gap:4px 16px" });
    root.appendChild(box);
    A.effects.forEach(function (e) { box.appendChild(chart(e)); Q.counted(); });
  } catch (e) {
    Q.failed(e);
    document.getElementById("report").appendChild(el("p", { "class": "error", text: "report error (across): " + e }));
  }
})();
