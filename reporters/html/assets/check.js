// A verify folder's page (D.check) and the comparison of two (D.check_compare). Everything
// is ranked, worded and formatted by the Go side; this lays it out. Every text goes in by
// textContent: statements and rows hold <, > and &.
(function () {
  "use strict";
  var Q = window.quadrant;
  if (!Q || (!Q.D.check && !Q.D.check_compare)) return;
  var el = Q.el, root = document.getElementById("report");

  function table(T, cls, rowClass) {
    var t = el("table", { "class": cls || "" });
    var head = el("tr");
    T.header.forEach(function (h) { head.appendChild(el("th", { text: h })); });
    t.appendChild(head);
    (T.rows || []).forEach(function (r, i) {
      var tr = el("tr", rowClass ? { "class": rowClass(i) } : {});
      r.forEach(function (c) { tr.appendChild(el("td", { text: c })); });
      t.appendChild(tr);
    });
    return el("div", { "class": "scroll" }, t);
  }

  function meta(pairs) {
    var dl = el("dl", { "class": "meta" });
    pairs.forEach(function (m) { dl.appendChild(el("dt", { text: m[0] })); dl.appendChild(el("dd", { text: m[1] || "" })); });
    return dl;
  }

  // plans draws both reduced plans side by side; a line the other side lacks is marked.
  function plans(d) {
    var base = d.base_plan || [], other = d.plan || [];
    if (!base.length && !other.length) return null;
    function side(title, lines, against) {
      var pre = el("pre", { "class": "plan" });
      if (!lines.length) pre.appendChild(el("span", { text: "(no plan)" }));
      lines.forEach(function (l) {
        pre.appendChild(el("span", { "class": against.indexOf(l) < 0 ? "changed" : "", text: l }));
        pre.appendChild(document.createTextNode("\n"));
      });
      return el("div", { "class": "side" }, el("h4", { text: title }), pre);
    }
    return el("div", { "class": "sidebyside plans" }, side("plan on " + d.base_name, base, other), side("plan on " + d.name, other, base));
  }

  // rowsSide is one side's differing rows; the first difference is marked on both sides.
  function rowsSide(d, title, rows) {
    var t = el("table", { "class": "rows" });
    var head = el("tr");
    (d.columns || []).forEach(function (c) { head.appendChild(el("th", { text: c })); });
    t.appendChild(head);
    rows.forEach(function (r, i) {
      var rowMarked = d.marked && i === d.row;
      var tr = el("tr", { "class": rowMarked && d.col < 0 ? "first-diff" : "" });
      r.forEach(function (c, j) {
        var td = el("td", { text: c === null ? "NULL" : c });
        var cls = (c === null ? "null " : "") + (rowMarked && j === d.col ? "first-diff" : "");
        if (cls) td.setAttribute("class", cls.trim());
        tr.appendChild(td);
      });
      t.appendChild(tr);
    });
    if (!rows.length) t.appendChild(el("tr", {}, el("td", { text: "(no rows)" })));
    return el("div", { "class": "side" }, el("h4", { text: title }), el("div", { "class": "scroll" }, t));
  }

  function rowsBox(d) {
    if (!(d.base_rows || []).length && !(d.rows || []).length) return null;
    var box = el("div", { "class": "differing-rows" });
    if (d.statement) box.appendChild(el("pre", { "class": "statement", text: d.statement }));
    if (d.first_difference) box.appendChild(el("p", { "class": "first-difference", text: "first difference: " + d.first_difference }));
    box.appendChild(el("div", { "class": "sidebyside" }, rowsSide(d, "rows on " + d.base_name, d.base_rows || []),
      rowsSide(d, "rows on " + d.name, d.rows || [])));
    return box;
  }

  function item(it, n) {
    var sec = el("section", { "class": "check-item risk-" + it.class_id },
      el("h3", {}, el("span", { "class": "risk", text: "#" + n + " " + it.class }), el("span", { text: " " + it.title })));
    sec.appendChild(meta(it.facts || []));
    sec.appendChild(el("pre", { "class": "statement", text: it.example }));
    if (it.detail) {
      [plans(it.detail), rowsBox(it.detail)].forEach(function (n) { if (n) sec.appendChild(n); });
    }
    return sec;
  }

  function check(C) {
    root.appendChild(el("h1", { text: C.title }));
    var v = el("div", { id: "verdict" });
    (C.verdicts || []).forEach(function (s) { v.appendChild(el("p", { "class": "verdict", text: s })); });
    root.appendChild(v);
    (C.notes || []).forEach(function (s) { root.appendChild(el("p", { "class": "note", text: s })); });
    root.appendChild(meta(C.meta || []));
    root.appendChild(table(C.targets, "targets"));
    var ranked = C.ranked || [];
    root.appendChild(el("h2", { text: "Fingerprints by risk (" + ranked.length + ")" }));
    if (!ranked.length) root.appendChild(el("p", { text: "Nothing differs." }));
    ranked.forEach(function (it, i) { root.appendChild(item(it, i + 1)); });
    var rest = C.rest.rows || [];
    root.appendChild(el("h2", { text: "Same rows, same plan, not slower (" + rest.length + ")" }));
    if (rest.length) root.appendChild(el("details", { id: "same" }, el("summary", { text: "show all " + rest.length }), table(C.rest, "summary")));
  }

  function comparison(C) {
    root.appendChild(el("h1", { text: "Two checks compared" }));
    (C.checks || []).forEach(function (c) {
      root.appendChild(el("h4", { text: c.label }));
      var ul = el("ul", { "class": "verdict" });
      (c.headlines || []).forEach(function (h) { ul.appendChild(el("li", { text: h })); });
      root.appendChild(ul);
    });
    root.appendChild(el("h2", { text: "What changed (" + C.changes.rows.length + "; " + C.unchanged + " the same in both)" }));
    if (!C.changes.rows.length) { root.appendChild(el("p", { text: "No fingerprint's check changed." })); return; }
    root.appendChild(table(C.changes, "summary", function (i) { return "change-" + (C.kinds[i] || "none"); }));
  }

  try {
    if (Q.D.check) check(Q.D.check); else comparison(Q.D.check_compare);
    Q.refresh();
  } catch (e) {
    Q.failed(e);
    root.appendChild(el("p", { "class": "error", text: "report error: " + e }));
  }
})();
