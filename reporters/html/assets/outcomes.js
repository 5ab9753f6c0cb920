// What the steps came to, leading the page (a drill plan's losses): one sentence per axis on
// each count of losses ("replication=async lost acknowledged commits in 3 of 3 repeats,
// 12-40; semisync in 0 of 3 repeats"), then a table per cell: each figure a step kind marks
// as its outcome, its median and every repeat, and in how many repeats the cell lost
// anything. The data are computed in Go (reporters/outcomes); this only draws them, with
// textContent throughout.
(function () {
  "use strict";
  var Q = window.quadrant;
  if (!Q || !Q.D.outcomes || Q.D.only) return;
  var O = Q.D.outcomes, el = Q.el, fmt = Q.fmt;

  // a count whole (12, not 12.0), else as the page writes numbers
  function text(v, m) { return v == null ? "-" : m.unit === "count" && Number.isInteger(v) ? String(v) : fmt(v); }

  function cellTable(c) {
    var head = el("tr", {}, el("th", { text: "figure" }), el("th", { text: "median" }));
    c.iterations.forEach(function (i) { head.appendChild(el("th", { text: "#" + i })); });
    var table = el("table", { "class": "outcomes" }, head);
    O.metrics.forEach(function (m) {
      var vals = c.values[m.name] || [];
      var name = el("td", { text: m.name + (m.unit ? " (" + m.unit + ")" : "") });
      if (m.doc) name.setAttribute("title", m.doc);
      var tr = el("tr", {}, name, el("td", { "class": "median", text: text(c.medians[m.name], m) }));
      vals.forEach(function (v) {
        var td = el("td", { text: text(v, m) });
        if (m.loss && v != null && v > 0) td.className = "lost";
        tr.appendChild(td);
      });
      table.appendChild(tr);
    });
    return table;
  }

  function outcomes() {
    var root = document.getElementById("report");
    var sec = el("section", { "class": "outcomes", id: "outcomes" });
    sec.appendChild(el("h2", { text: "What the steps came to, per cell" }));
    if (O.sentences && O.sentences.length) {
      var ul = el("ul", { "class": "outcome-sentences" });
      O.sentences.forEach(function (s) { ul.appendChild(el("li", { text: s })); });
      sec.appendChild(ul);
    }
    O.cells.forEach(function (c) {
      var box = el("div", { "class": "outcome-cell" });
      box.appendChild(el("h3", { text: c.label }));
      box.appendChild(cellTable(c));
      (c.losses || []).forEach(function (l) { box.appendChild(el("p", { "class": "outcome-loss", text: l })); });
      sec.appendChild(box);
    });
    // at the top, under the plan's name, before the headline
    var h1 = root.querySelector("h1");
    root.insertBefore(sec, h1 ? h1.nextSibling : root.firstChild);
  }

  try {
    outcomes();
    Q.refresh();
  } catch (e) {
    Q.failed(e);
    document.getElementById("report").appendChild(el("p", { "class": "error", text: "report error (outcomes): " + e }));
  }
})();
