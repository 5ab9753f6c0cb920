// The reproduction of the first folder's effects, at the top of a comparison: for each later
// run, the tally, then each effect the first folder states with its verdict (reproduced, not
// reproduced, inconclusive), why, and a chart of the effect published and here, each with its
// 95% CI, over the band the two may differ by. Computed in Go (reporters/reproduce); this only
// draws, with textContent throughout.
(function () {
  "use strict";
  var D = JSON.parse(document.getElementById("quadrant-data").textContent);
  var C = D.compare;
  if (!C || !C.reproductions || !C.reproductions.length) return;
  var SVG = "http://www.w3.org/2000/svg";
  var colour = { "reproduced": "#1a7f37", "not reproduced": "#b00020", "inconclusive": "#7a5a00" };
  function el(tag, attrs) {
    var n = document.createElement(tag);
    for (var k in attrs || {}) {
      if (k === "text") n.textContent = attrs[k]; else n.setAttribute(k, attrs[k]);
    }
    for (var i = 2; i < arguments.length; i++) if (arguments[i] != null) n.appendChild(arguments[i]);
    return n;
  }
  function svg(tag, attrs, text) {
    var n = document.createElementNS(SVG, tag);
    for (var k in attrs) n.setAttribute(k, attrs[k]);
    if (text != null) n.textContent = text;
    return n;
  }
  function pct(v) { return (v > 0 ? "+" : "") + (Math.abs(v) >= 10 ? v.toFixed(0) : v.toFixed(1)) + "%"; }
  function range(r) {
    if (r.change == null) return "none";
    return pct(r.change) + (r.lo != null && r.hi != null ? " (95% CI " + pct(r.lo) + " to " + pct(r.hi) + ")" : " (no interval)");
  }

  // chart draws one effect: published and here as a dot at the change with its 95% CI as a
  // bar, on one axis with 0 marked and the band around the published change shaded.
  function chart(e) {
    var vals = [0];
    [e.published, e.here].forEach(function (r) { [r.change, r.lo, r.hi].forEach(function (v) { if (v != null) vals.push(v); }); });
    if (e.published.change != null) vals.push(e.published.change - e.band, e.published.change + e.band);
    var lo = Math.min.apply(null, vals), hi = Math.max.apply(null, vals);
    var pad = (hi - lo) * 0.06 || 1; lo -= pad; hi += pad;
    var W = 560, H = 86, L = 80, R = 14, T = 10;
    var x = function (v) { return L + (W - L - R) * (v - lo) / (hi - lo); };
    var s = svg("svg", { width: W, height: H, viewBox: "0 0 " + W + " " + H, "class": "repro-chart", role: "img",
      "data-verdict": e.verdict, "data-effect": e.effect, "data-metric": e.metric });
    if (e.published.change != null) {
      s.appendChild(svg("rect", { x: x(e.published.change - e.band), y: T, width: x(e.published.change + e.band) - x(e.published.change - e.band),
        height: 52, fill: "rgba(31,119,180,0.10)", "class": "repro-band" }));
    }
    s.appendChild(svg("line", { x1: x(0), x2: x(0), y1: T, y2: T + 52, stroke: "#1d2330" }));
    [["published", e.published, T + 14, "#1f77b4"], ["here", e.here, T + 38, "#ff7f0e"]].forEach(function (row) {
      var r = row[1], y = row[2];
      s.appendChild(svg("text", { x: L - 8, y: y + 4, "text-anchor": "end", "font-size": 12 }, row[0]));
      if (r.change == null) return;
      if (r.lo != null && r.hi != null) {
        s.appendChild(svg("path", { d: "M" + x(r.lo) + " " + y + "H" + x(r.hi) + "M" + x(r.lo) + " " + (y - 5) + "v10M" + x(r.hi) + " " + (y - 5) + "v10",
          stroke: row[3], "stroke-width": 1.5, fill: "none", "class": "repro-interval", "data-side": row[0] }));
      }
      var dot = svg("circle", { cx: x(r.change), cy: y, r: 4, fill: row[3], "class": "repro-effect", "data-side": row[0] });
      dot.appendChild(svg("title", {}, row[0] + ": " + e.metric + " " + range(r)));
      s.appendChild(dot);
    });
    for (var i = 0; i <= 4; i++) {
      var t = lo + i * (hi - lo) / 4;
      s.appendChild(svg("text", { x: x(t), y: H - 8, "text-anchor": i === 0 ? "start" : i === 4 ? "end" : "middle", "font-size": 11 }, pct(t)));
    }
    return s;
  }

  function section(rep) {
    var box = el("div", { "class": "reproduction", id: "reproduction-run-" + rep.run });
    box.appendChild(el("h2", { text: "Reproduction of the effects run 1 states, in run " + rep.run }));
    box.appendChild(el("p", {}, el("b", { text: rep.tally }),
      document.createTextNode(" — each effect published and here with its 95% CI; the shaded band is how far they may differ (" + rep.rule + ")")));
    ["not reproduced", "inconclusive", "reproduced"].forEach(function (v) {
      rep.effects.forEach(function (e) {
        if (e.verdict !== v) return;
        var item = el("div", { "class": "repro-item", "data-verdict": e.verdict, style: "margin:8px 0 14px" });
        item.appendChild(el("p", { style: "margin:2px 0" },
          el("b", { text: e.verdict.toUpperCase(), style: "color:" + colour[e.verdict] }),
          document.createTextNode(" " + e.effect + ", " + e.metric + ": published " + range(e.published) + ", here " + range(e.here) + "; " + e.why)));
        (e.marks || []).forEach(function (m) { item.appendChild(el("p", { "class": "note", style: "margin:0", text: "marked: " + m })); });
        item.appendChild(chart(e));
        box.appendChild(item);
      });
    });
    return box;
  }

  try {
    var root = document.getElementById("report");
    var list = root.querySelector("ol");
    var anchor = list ? list.nextSibling : root.firstChild;
    C.reproductions.forEach(function (rep) { root.insertBefore(section(rep), anchor); });
    document.body.setAttribute("data-reproductions", String(root.querySelectorAll("svg.repro-chart").length));
  } catch (e) {
    if (window.quadrant) window.quadrant.failed(e);
    document.getElementById("report").appendChild(el("p", { "class": "error", text: "report error (reproduction): " + e }));
  }
})();
