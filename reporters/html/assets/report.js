// Quadrant report: renders the results folder's data (embedded as JSON) with uPlot.
// Everything is inline so the file works offline and can be mailed as is.
(function () {
  "use strict";
  var state = { charts: 0, errors: [] };
  function mark() {
    document.body.setAttribute("data-charts", String(state.charts));
    document.body.setAttribute("data-errors", String(state.errors.length));
    if (state.errors.length) document.body.setAttribute("data-error-text", state.errors.join(" | "));
  }
  window.addEventListener("error", function (e) { state.errors.push(String(e.message)); mark(); });

  var D = JSON.parse(document.getElementById("quadrant-data").textContent);
  var palette = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"];
  // K names the row keys the page reads (a kind's table names its own, T.compare); D.columns says what each
  // column is (results.Describe): the page knows no column by name.
  var K = D.keys || {};
  function isKey(h) { var c = (D.columns || {})[h]; return !!c && c.role === "key"; }

  function el(tag, attrs) {
    var n = document.createElement(tag);
    for (var k in attrs || {}) {
      if (k === "text") n.textContent = attrs[k]; else n.setAttribute(k, attrs[k]);
    }
    for (var i = 2; i < arguments.length; i++) if (arguments[i] != null) n.appendChild(arguments[i]);
    return n;
  }
  function num(s) {
    if (s === "" || s == null) return null;
    var v = Number(s);
    return isFinite(v) ? v : null;
  }
  // fmt writes a figure of the evidence tables short: "-" when unknown, fewer decimals as it grows.
  function fmt(v) {
    if (v == null || !isFinite(v)) return "-";
    var a = Math.abs(v);
    if (a >= 1000) return v.toFixed(0);
    if (a >= 10) return v.toFixed(1);
    if (a >= 0.1) return v.toFixed(2);
    return String(Number(v.toPrecision(2)));
  }
  function col(t, name) { return t.header.indexOf(name); }
  function numericCols(t) {
    return t.header.filter(function (h, i) {
      if (isKey(h)) return false;
      return t.rows.some(function (r) { return num(r[i]) !== null; });
    });
  }

  var info = D.info || {};
  var iterations = info.iterations || [];
  var labels = {};
  iterations.forEach(function (it) {
    var m = (it.matrix || []).map(function (f) { return f.name + "=" + f.value; }).join(" ");
    labels[it.index] = "#" + it.index + (m ? " " + m : "") + (it.repeat > 1 ? " (repeat " + it.repeat + ")" : "");
  });
  function iterLabel(i) { return labels[i] || "#" + i; }

  function ySize(self, values) {
    var longest = 0;
    (values || []).forEach(function (v) { if (v != null && String(v).length > longest) longest = String(v).length; });
    return Math.max(50, 14 + longest * 8);
  }

  // stageMarks draws a dashed vertical line where each stage of a load shape begins, with
  // its label (the stage and its level); the chart's data-stage-marks says how many it drew
  // and data-stage-labels which labels, for tests.
  function stageMarks(box, marks, labels) {
    return {
      hooks: {
        draw: [function (u) {
          var ctx = u.ctx, n = 0, drawn = [];
          ctx.save();
          ctx.strokeStyle = "#555";
          ctx.fillStyle = "#333";
          ctx.font = Math.round(11 * uPlot.pxRatio) + "px system-ui, sans-serif";
          ctx.setLineDash([4, 4]);
          ctx.lineWidth = 1;
          marks.forEach(function (x, i) {
            var px = u.valToPos(x, "x", true);
            if (!(px >= u.bbox.left && px <= u.bbox.left + u.bbox.width)) return;
            ctx.beginPath();
            ctx.moveTo(px, u.bbox.top);
            ctx.lineTo(px, u.bbox.top + u.bbox.height);
            ctx.stroke();
            if (labels[i]) {
              ctx.fillText(labels[i], px + 3 * uPlot.pxRatio, u.bbox.top + 12 * uPlot.pxRatio);
              drawn.push(labels[i]);
            }
            n++;
          });
          ctx.restore();
          box.setAttribute("data-stage-marks", String(n));
          box.setAttribute("data-stage-labels", drawn.join(" | "));
        }]
      }
    };
  }

  // eventMarks draws a vertical line at each event an iteration's step marked (a failover
  // drill's fault, promotion and first commit), coloured and dashed by the event's name and
  // with no label on the chart: a label per line piled up unreadably (three events in each of
  // six iterations are 18). eventLegend names each kind under the chart, with when it
  // happened, and hovering near a line names its events and iterations. data-event-marks says
  // how many lines it drew, for tests.
  function eventMarks(box, events, kinds, hover) {
    return {
      hooks: {
        draw: [function (u) {
          var ctx = u.ctx, n = 0, r = uPlot.pxRatio;
          ctx.save();
          ctx.lineWidth = 1.5 * r;
          events.forEach(function (e) {
            var px = u.valToPos(e.at_s, "x", true);
            if (!(px >= u.bbox.left && px <= u.bbox.left + u.bbox.width)) return;
            var k = kinds[e.name];
            ctx.strokeStyle = k.colour;
            ctx.setLineDash(k.dash.map(function (d) { return d * r; }));
            ctx.beginPath();
            ctx.moveTo(px, u.bbox.top);
            ctx.lineTo(px, u.bbox.top + u.bbox.height);
            ctx.stroke();
            n++;
          });
          ctx.restore();
          box.setAttribute("data-event-marks", String(n));
        }],
        setCursor: [function (u) {
          var x = u.cursor.left;
          var near = x == null || x < 0 ? [] : events.filter(function (e) { return Math.abs(u.valToPos(e.at_s, "x") - x) <= 4; });
          hover.textContent = near.map(function (e) { return e.name + " at " + secs(e.at_s) + " s (" + iterLabel(e.iteration) + ")"; }).join("; ");
        }]
      }
    };
  }
  var EVENT_COLOURS = ["#8a4b00", "#6a1b9a", "#00695c", "#ad1457", "#37474f"], EVENT_DASHES = [[], [6, 3], [2, 3], [8, 3, 2, 3]];

  // secs is a moment in seconds to the hundredth, no trailing zeros: 5.4, 12.25.
  function secs(v) { return String(Math.round(v * 100) / 100); }

  // eventKinds gives each event name, in the order they first happen, its colour and dash.
  function eventKinds(events) {
    var kinds = {}, n = 0;
    events.forEach(function (e) {
      if (kinds[e.name]) return;
      kinds[e.name] = { colour: EVENT_COLOURS[n % EVENT_COLOURS.length], dash: EVENT_DASHES[n % EVENT_DASHES.length], at: [], its: {} };
      n++;
    });
    events.forEach(function (e) { kinds[e.name].at.push(e.at_s); kinds[e.name].its[e.iteration] = 1; });
    return kinds;
  }

  // eventLegend is one line per kind of event under a chart, its line's colour and dash
  // before its name and when it happened: "failover fault: at 4.9-5.3 s in 6 iterations".
  function eventLegend(kinds) {
    var box = el("div", { "class": "event-legend" });
    Object.keys(kinds).forEach(function (name) {
      var k = kinds[name], lo = Math.min.apply(null, k.at), hi = Math.max.apply(null, k.at), its = Object.keys(k.its).length;
      var when = "at " + secs(lo) + (hi > lo ? "-" + secs(hi) : "") + " s" + (its > 1 ? " in " + its + " iterations" : " (" + iterLabel(Number(Object.keys(k.its)[0])) + ")");
      var swatch = el("span", { "class": "event-swatch" });
      swatch.style.borderLeft = "3px " + (k.dash.length ? "dashed " : "solid ") + k.colour;
      box.appendChild(el("span", { "class": "event-kind" }, swatch, el("b", { text: name }), document.createTextNode(": " + when)));
    });
    return box;
  }

  // failedMarks draws a red cross on each point of the given x (iterations that failed) and
  // says how many in data-failed-marks: a failed iteration's figure is a part, not a result.
  function failedMarks(box, failedXs) {
    return {
      hooks: {
        draw: [function (u) {
          var ctx = u.ctx, n = 0, r = 5 * uPlot.pxRatio;
          ctx.save();
          ctx.strokeStyle = FAILED;
          ctx.lineWidth = 2 * uPlot.pxRatio;
          u.data[0].forEach(function (x, j) {
            if (failedXs.indexOf(x) < 0) return;
            for (var si = 1; si < u.data.length; si++) {
              var v = u.data[si][j];
              if (v == null || !u.series[si].show) continue;
              var px = u.valToPos(x, "x", true), py = u.valToPos(v, u.series[si].scale || "y", true);
              ctx.beginPath();
              ctx.moveTo(px - r, py - r); ctx.lineTo(px + r, py + r);
              ctx.moveTo(px - r, py + r); ctx.lineTo(px + r, py - r);
              ctx.stroke();
              n++;
            }
          });
          ctx.restore();
          box.setAttribute("data-failed-marks", String(n));
        }]
      }
    };
  }
  var FAILED = "#b00020";
  // failedWhy is why iteration i failed ("failed: REASON"), "" when it passed.
  function failedWhy(i) { return (D.failed || {})[String(i)] || ""; }

  // chart draws series over xs; a series with failed set is an iteration that did not pass:
  // drawn dashed in red, its legend saying why. opt: marks (stage starts) and their labels,
  // failedXs (points to cross out).
  function chart(parent, title, xLabel, xs, series, marks, opt) {
    opt = opt || {};
    var box = el("div", { "class": "chart" });
    parent.appendChild(box);
    var width = Math.max(480, Math.min(1100, parent.clientWidth || 900));
    var failed = 0;
    var opts = {
      title: title, width: width, height: 260,
      scales: { x: { time: false } },
      // Integer steps on x (iterations, seconds); a y axis wide enough for its longest label.
      axes: [{ label: xLabel, incrs: [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 1800, 3600] }, { size: ySize }],
      cursor: { drag: { x: true, y: false } },
      series: [{ label: xLabel }].concat(series.map(function (s, i) {
        var o = { label: s.label, stroke: palette[i % palette.length], width: 1.5, spanGaps: false, points: { show: xs.length < 40 } };
        if (s.failed) {
          failed++;
          o.label = s.label + " — " + s.failed;
          o.stroke = FAILED;
          o.dash = [6, 4];
        }
        return o;
      }))
    };
    var plugins = [];
    if (marks && marks.length) {
      plugins.push(stageMarks(box, marks, opt.labels || []));
      box.setAttribute("title", "dashed lines: stage starts at " + marks.join(", ") + " s" +
        ((opt.labels || []).length ? " (" + opt.labels.join("; ") + ")" : ""));
    }
    if (opt.failedXs && opt.failedXs.length) plugins.push(failedMarks(box, opt.failedXs));
    var kinds = null, hover = null;
    if (opt.events && opt.events.length) {
      kinds = eventKinds(opt.events);
      hover = el("div", { "class": "event-hover" });
      plugins.push(eventMarks(box, opt.events, kinds, hover));
      box.setAttribute("data-event-kinds", Object.keys(kinds).join(" | "));
    }
    if (plugins.length) opts.plugins = plugins;
    if (failed) box.setAttribute("data-failed-series", String(failed));
    var data = withGaps(xs, series.map(function (s) { return s.values; }));
    if (data.gaps) box.setAttribute("data-gaps", String(data.gaps));
    new uPlot(opts, data.columns, box);
    if (kinds) {
      box.appendChild(eventLegend(kinds));
      box.appendChild(hover);
    }
    state.charts++;
    return box;
  }

  // withGaps puts a null point into every step of xs far wider than the usual one (a host
  // stall: one interval covered several seconds), so that the lines break there instead of
  // drawing a straight line across seconds nobody measured.
  function withGaps(xs, columns) {
    var steps = [];
    for (var i = 1; i < xs.length; i++) steps.push(xs[i] - xs[i - 1]);
    steps.sort(function (a, b) { return a - b; });
    var usual = steps.length ? steps[Math.floor(steps.length / 2)] : 0;
    var outX = [], outCols = columns.map(function () { return []; }), gaps = 0;
    for (var j = 0; j < xs.length; j++) {
      if (j > 0 && usual > 0 && xs[j] - xs[j - 1] > 1.5 * usual) {
        outX.push(xs[j - 1] + usual);
        outCols.forEach(function (c) { c.push(null); });
        gaps++;
      }
      outX.push(xs[j]);
      columns.forEach(function (c, k) { outCols[k].push(c ? c[j] : null); });
    }
    return { columns: [outX].concat(outCols), gaps: gaps };
  }

  // aligned builds one shared x axis from several (x, y) lists, leaving gaps as null.
  function aligned(lists) {
    var xsSet = {};
    lists.forEach(function (l) { l.x.forEach(function (x) { xsSet[x] = 1; }); });
    var xs = Object.keys(xsSet).map(Number).sort(function (a, b) { return a - b; });
    var pos = {};
    xs.forEach(function (x, i) { pos[x] = i; });
    return {
      xs: xs,
      series: lists.map(function (l) {
        var v = new Array(xs.length).fill(null);
        l.x.forEach(function (x, i) { v[pos[x]] = l.y[i]; });
        return { label: l.label, values: v };
      })
    };
  }

  function header(root) {
    root.appendChild(el("h1", { text: (D.only ? D.only + " — " : "") + (info.plan || "quadrant run") }));
    failure(root);
    var meta = [
      [K.status, info.status], ["started", info.start], ["ended", info.end || "(not finished)"],
      ["host", info.host], ["client machine", machineText(info.client_host)], ["quadrant", info.version],
      ["plan sha256", (info.plan_sha256 || "").slice(0, 16)]
    ];
    var dl = el("dl", { "class": "meta" });
    meta.forEach(function (m) { dl.appendChild(el("dt", { text: m[0] })); dl.appendChild(el("dd", { text: m[1] || "" })); });
    root.appendChild(dl);
    var tt = el("table", { "class": "targets" }, el("tr", {}, el("th", { text: K.target }), el("th", { text: "kind" }),
      el("th", { text: "server" }), el("th", { text: "address" }), el("th", { text: "TLS" }), el("th", { text: "TLS version" }),
      el("th", { text: "cipher" }), el("th", { text: "CA (sha256)" }), el("th", { text: "client certificate (sha256)" }),
      el("th", { text: "server machine" })));
    (info.targets || []).forEach(function (t) {
      var tls = t.tls || {};
      tt.appendChild(el("tr", { "class": "target-tls-" + (tls.mode || "none") }, el("td", { text: t.name }), el("td", { text: t.kind }),
        el("td", { text: (t.flavor || "") + " " + (t.server_version || "") }), el("td", { text: t.address || "" }),
        el("td", { "class": "tls-mode", text: tlsMode(tls) }), el("td", { text: tls.version || "-" }), el("td", { text: tls.cipher || "-" }),
        el("td", { "class": "tls-ca", text: tlsFile(tls.ca) }), el("td", { text: tlsFile(tls.cert) }),
        el("td", { "class": "server-machine", text: t.server_host ? machineText(t.server_host) + " (" + t.server_host.source + ")" :
          "not recorded" + (t.server_host_absent ? ": " + t.server_host_absent : "") })));
    });
    root.appendChild(el("div", { "class": "scroll" }, tt));
    storage(root);
  }

  // machineText is a machine of run.json (client_host, a target's server_host) in one line.
  function machineText(h) {
    if (!h) return "not recorded";
    var parts = [];
    if (h.cpu_model) parts.push(h.cpu_model);
    if (h.cpus) parts.push(h.cpus + " CPUs");
    if (h.memory_bytes) parts.push((h.memory_bytes / 1073741824).toFixed(1) + " GiB");
    if (h.kernel) parts.push(h.kernel);
    if (h.virtualization) parts.push("virtualization " + h.virtualization);
    return parts.join(", ") || "nothing readable";
  }

  // tlsMode is how quadrant's connections used TLS: run.json has no tls for plaintext, and a
  // mode with no negotiated version is a "preferred" that the server answered in plaintext.
  function tlsMode(tls) {
    if (!tls.mode) return "none (plaintext)";
    if (!tls.version && tls.mode !== "disabled") return tls.mode + " (plaintext: the server offered no TLS)";
    return tls.mode;
  }
  function tlsFile(f) { return f ? f.name + (f.sha256 ? " (" + f.sha256 + ")" : "") : "-"; }

  // failure says first, above everything else, what went wrong in a run that did not end
  // well: the run's own error (a target that never started, setup) and each failed iteration.
  function failure(root) {
    if (!info.status || info.status === "done" || info.status === "running") return;
    var ul = el("ul");
    if (info.error) ul.appendChild(el("li", { text: info.error }));
    (info.iterations || []).forEach(function (it) {
      if (it.status !== "failed" && it.status !== "interrupted") return;
      var why = it.error || ((it.failed_assertions || []).length ? "assertions failed: " + it.failed_assertions.join("; ") : it.status);
      ul.appendChild(el("li", { text: "iteration " + it.index + ": " + why }));
    });
    var pending = (info.iterations || []).filter(function (it) { return it.status === "pending" || it.status === "skipped"; }).length;
    if (pending) ul.appendChild(el("li", { text: pending + " iteration" + (pending > 1 ? "s" : "") + " did not run" }));
    root.appendChild(el("div", { "class": "failure", id: "failure" }, el("h2", { text: "This run " + (info.status === "error" ? "stopped with an error" : info.status) }), ul));
  }

  // headline is the box under the plan's name with what the run is judged by: the headline
  // figures (tpcc: tpmC and each transaction's p90) when there is no matrix to pick a best
  // and worst from (axes.js adds those to this box), and a load shape's knee chart.
  function headline(root) {
    var H = D.headline;
    if (!H && !D.matrix) return;
    var box = el("div", { "class": "headline", id: "headline" });
    var h1 = root.querySelector("h1");
    root.insertBefore(box, h1 ? h1.nextSibling : root.firstChild);
    if (!H) return;
    if (H.figures && H.figures.length) {
      var many = {};
      H.figures.forEach(function (f) { many[f.target] = 1; });
      var ul = el("ul", { "class": "figures" });
      H.figures.forEach(function (f) {
        ul.appendChild(el("li", {}, el("b", { text: f.metric + (Object.keys(many).length > 1 ? " @" + f.target : "") }),
          document.createTextNode(": " + fmt(f.value) + (f.n > 1 ? " (median of " + f.n + " iterations)" : ""))));
      });
      box.appendChild(ul);
    }
    if (H.knee) knee(box, H.knee);
    if (H.stalls && H.stalls.length) {
      var st = el("ul", { "class": "stalls", id: "stalls" });
      H.stalls.forEach(function (s) { st.appendChild(el("li", { text: s })); });
      box.appendChild(el("p", { "class": "stalled", text: "Stalled iterations: their figures average over a stop; run those cells again (repeat: shows how often it happens)." }));
      box.appendChild(st);
    }
    if (H.behind && H.behind.length) {
      var bh = el("ul", { "class": "stalls", id: "behind" });
      H.behind.forEach(function (s) { bh.appendChild(el("li", { text: s })); });
      box.appendChild(el("p", { "class": "stalled", text: "Behind their schedule: these iterations' events started late, so their load was slower than planned (latency still counts from the schedule). A client short of CPU does this (run it on a quieter host), or events slower than planned holding up the next ones on their connection." }));
      box.appendChild(bh);
    }
  }

  // knee draws each stage row's throughput (left axis) and p95 (right axis, dashed) against
  // the stage's level: where throughput stops growing and latency bends.
  function knee(box, Kn) {
    var lists = [], meta = [];
    Kn.series.forEach(function (s, si) {
      Kn.metrics.forEach(function (m, mi) {
        lists.push({ label: iterLabel(Number(s.iteration)) + " " + m, x: s.x, y: s.values[m] });
        meta.push({ metric: m, mi: mi, si: si });
      });
    });
    var a = aligned(lists);
    var xs = a.xs, log = xs.length > 1 && xs[0] > 0 && xs[xs.length - 1] / xs[0] >= 8;
    var points = 0;
    a.series.forEach(function (s) { s.values.forEach(function (v) { if (v != null) points++; }); });
    var area = el("div", { "class": "chart knee", id: "knee", "data-knee-x": Kn.x, "data-knee-points": String(points) });
    box.appendChild(area);
    var scales = { x: log ? { time: false, distr: 3, log: 2 } : { time: false } };
    var axes = [{ label: Kn.x + (log ? " (log scale)" : "") }];
    Kn.metrics.forEach(function (m, mi) {
      scales[m] = {};
      axes.push({ scale: m, label: m, side: mi === 0 ? 3 : 1, size: ySize, grid: { show: mi === 0 } });
    });
    var opts = {
      title: "Knee: " + Kn.metrics.join(" and ") + " against the stage's " + Kn.x, width: Math.max(480, Math.min(1100, box.clientWidth || 900)), height: 300,
      scales: scales, axes: axes,
      series: [{ label: Kn.x }].concat(a.series.map(function (s, i) {
        var mt = meta[i];
        return { label: s.label, scale: mt.metric, stroke: palette[mt.si % palette.length], width: 1.5, dash: mt.mi > 0 ? [6, 4] : undefined,
          spanGaps: true, points: { show: true, size: 6 } };
      }))
    };
    new uPlot(opts, [xs].concat(a.series.map(function (s) { return s.values; })), area);
    state.charts++;
  }

  // storage lists where each sandbox's data directory was, and on which filesystem: the
  // storage under test when a plan moves it (sandbox.dir) across the matrix.
  function storage(root) {
    var seen = {}, rows = [];
    (info.iterations || []).forEach(function (it) {
      (it.storage || []).forEach(function (s) {
        var key = s.target + "\u0000" + s.datadir;
        if (!seen[key]) { seen[key] = { s: s, its: [] }; rows.push(seen[key]); }
        seen[key].its.push(it.index);
      });
    });
    if (!rows.length) return;
    var t = el("table", { "class": "targets", id: "storage" }, el("tr", {}, el("th", { text: K.target }), el("th", { text: "iterations" }),
      el("th", { text: "data directory" }), el("th", { text: "filesystem" }), el("th", { text: "device" }), el("th", { text: "mounted at" }),
      el("th", { text: "free at start" })));
    rows.forEach(function (r) {
      var s = r.s;
      t.appendChild(el("tr", {}, el("td", { text: s.target }), el("td", { text: r.its.join(", ") }), el("td", { text: s.datadir }),
        el("td", { text: s.filesystem || "" }), el("td", { text: s.device || "" }), el("td", { text: s.mount || "" }),
        el("td", { text: s.free_bytes ? (s.free_bytes / 1073741824).toFixed(1) + " GiB" : "" })));
    });
    root.appendChild(el("h2", { text: "Storage" }));
    root.appendChild(t);
  }

  // sortableTable is T (header, rows) as a table sorted by a click on a column's heading;
  // rowClass, when given, names each row's class.
  function sortableTable(T, cls, rowClass) {
    var table = el("table", { "class": cls + " sortable" });
    var tr = el("tr");
    T.header.forEach(function (h, i) {
      var th = el("th", { text: h, title: "click to sort" });
      th.addEventListener("click", function () { sortBy(i); });
      tr.appendChild(th);
    });
    table.appendChild(tr);
    var body = el("tbody");
    table.appendChild(body);
    var dir = 1;
    function fill(rows) {
      body.textContent = "";
      rows.forEach(function (r) {
        var row = el("tr", rowClass ? { "class": rowClass(r) } : {});
        r.forEach(function (c) { row.appendChild(el("td", { text: c })); });
        body.appendChild(row);
      });
    }
    function sortBy(i) {
      dir = -dir;
      fill(T.rows.slice().sort(function (a, b) {
        var x = num(a[i]), y = num(b[i]);
        if (x !== null && y !== null) return dir * (x - y);
        return dir * String(a[i]).localeCompare(String(b[i]));
      }));
    }
    fill(T.rows);
    return el("div", { "class": "scroll" }, table);
  }
  function summaryTable(root) {
    var S = D.summary;
    if (!S || !S.header || !S.header.length) { root.appendChild(el("p", { text: "No iteration finished yet." })); return; }
    root.appendChild(el("h2", { text: "Summary (one row per iteration and target)" }));
    var status = col(S, K.status);
    root.appendChild(sortableTable(S, "summary", function (r) { return "st-" + (r[status] || ""); }));

    var failed = iterations.filter(function (it) { return it.status !== "done"; });
    if (failed.length) {
      var ul = el("ul", { "class": "failures" });
      failed.forEach(function (it) {
        var why = (it.failed_assertions || []).join("; ") || it.error || "";
        ul.appendChild(el("li", { text: iterLabel(it.index) + ": " + it.status + (why ? " — " + why : "") }));
      });
      root.appendChild(el("h3", { text: "Iterations that did not pass" }));
      root.appendChild(ul);
    }
  }

  function byIteration(root) {
    var S = D.summary;
    if (!S || !S.rows || !S.rows.length) return;
    var cols = numericCols(S);
    if (!cols.length) return;
    var ii0 = col(S, K.iteration), its = {};
    S.rows.forEach(function (r) { its[r[ii0]] = 1; });
    if (Object.keys(its).length < 2) return; // one iteration: a chart of one dot says nothing the summary does not
    root.appendChild(el("h2", { text: "By iteration" }));
    var pick = el("select", { "aria-label": "summary metric" });
    cols.forEach(function (c) { pick.appendChild(el("option", { value: c, text: c })); });
    var area = el("div");
    root.appendChild(el("p", {}, document.createTextNode("Metric: "), pick));
    root.appendChild(area);
    var ti = col(S, K.target), ii = col(S, K.iteration);
    function draw(metric) {
      area.textContent = "";
      var byTarget = {};
      S.rows.forEach(function (r) {
        var t = r[ti], l = byTarget[t] || (byTarget[t] = { label: t, x: [], y: [] });
        l.x.push(num(r[ii])); l.y.push(num(r[col(S, metric)]));
      });
      var a = aligned(Object.keys(byTarget).map(function (k) { return byTarget[k]; }));
      chart(area, metric + " by " + K.iteration, K.iteration, a.xs, a.series, null,
        { failedXs: a.xs.filter(function (x) { return failedWhy(x) !== ""; }) });
      var legend = el("ol", { "class": "iterlabels" });
      a.xs.forEach(function (x) {
        var why = failedWhy(x);
        legend.appendChild(el("li", why ? { value: String(x), "class": "failed", text: iterLabel(x) + " — ✗ " + why } : { value: String(x), text: iterLabel(x) }));
      });
      area.appendChild(legend);
    }
    pick.addEventListener("change", function () { draw(pick.value); });
    var first = (D.charts || []).filter(function (c) { return cols.indexOf(c) >= 0; });
    var def = first.length ? first[0] : cols[0];
    pick.value = def;
    draw(def);
  }

  // overTime draws the time series as the report builder prepared them: one shared x
  // axis per target and, per column, one line per iteration aligned on it. A long run
  // comes downsampled (buckets > 0): each bucket of elapsed time keeps its minimum and
  // maximum, and the page says so; the CSV has every sample.
  function overTime(root) {
    var targets = Object.keys(D.series || {}).sort();
    if (!targets.length) return;
    root.appendChild(el("h2", { text: "Over time (one line per iteration; drag to zoom, double-click to reset)" }));
    targets.forEach(function (t) {
      var T = D.series[t];
      var cols = T.columns || [];
      if (D.only) cols = cols.filter(function (c) { return c === D.only; });
      if (!cols.length) return;
      var sec = el("section", { "class": "target" });
      sec.appendChild(el("h3", { text: "Target " + t }));
      root.appendChild(sec);
      if (T.buckets > 0) {
        sec.appendChild(el("p", { "class": "downsampled", text: "Downsampled for display: each line shows the minimum and maximum of each of " +
          T.buckets + " slices of elapsed time, " + T.x.length + " points for up to " + T.positions + " samples, so spikes stay visible. " +
          T.file + " has every sample (" + T.rows + ")." }));
      }
      var area = el("div");
      var defaults = D.only ? [D.only] : (D.charts || []).filter(function (c) { return cols.indexOf(c) >= 0; })
        .concat(cols.filter(function (c) { return (D.watched || []).indexOf(c) >= 0; }).slice(0, 4));
      if (!defaults.length) defaults = cols.slice(0, 2);
      if (!D.only) {
        var pick = el("select", { "aria-label": "add a chart for " + t });
        pick.appendChild(el("option", { value: "", text: "add a chart…" }));
        cols.forEach(function (c) { pick.appendChild(el("option", { value: c, text: c })); });
        pick.addEventListener("change", function () { if (pick.value) { draw(pick.value); pick.value = ""; } });
        sec.appendChild(el("p", {}, pick));
      }
      sec.appendChild(area);
      function draw(metric) {
        var v = T.values[metric] || "[]";
        if (typeof v === "string") v = T.values[metric] = JSON.parse(v);
        chart(area, metric + (T.buckets > 0 ? " (downsampled: min/max of " + T.buckets + " slices)" : ""), "elapsed s", T.x,
          T.iterations.map(function (it, i) { return { label: iterLabel(Number(it)), values: v[i], failed: failedWhy(it) }; }), D.stage_marks,
          { labels: D.stage_labels, events: (D.events || []).filter(function (e) { return T.iterations.map(Number).indexOf(e.iteration) >= 0; }) });
      }
      defaults.forEach(draw);
    });
  }

  // latency draws, per target, each iteration's latency percentiles recomputed from its
  // histograms: the whole distribution, where the summary has a few points.
  function latency(root) {
    var L = D.latency || {};
    var targets = Object.keys(L).sort();
    if (!targets.length) return;
    root.appendChild(el("h2", { text: "Latency distribution (from the histograms; log scale)" }));
    targets.forEach(function (t) {
      var sp = L[t];
      var names = sp.percentiles.map(function (p) { return p === 100 ? "max" : "p" + p; });
      var xs = sp.percentiles.map(function (_, i) { return i; });
      var its = Object.keys(sp.iterations).sort(function (a, b) { return a - b; });
      var box = el("div", { "class": "chart" });
      root.appendChild(box);
      var opts = {
        title: "Target " + t + ": latency (ms) at each percentile", width: Math.max(480, Math.min(1100, root.clientWidth || 900)), height: 280,
        scales: { x: { time: false }, y: { distr: 3 } },
        axes: [{ label: "percentile", values: function (u, vals) { return vals.map(function (v) { return names[v] || ""; }); }, incrs: [1] }, { size: ySize, label: "ms" }],
        series: [{ label: "percentile", value: function (u, v) { return v == null ? "--" : names[v]; } }].concat(its.map(function (k, i) {
          return { label: iterLabel(Number(k)), stroke: palette[i % palette.length], width: 1.5, points: { show: true } };
        }))
      };
      new uPlot(opts, [xs].concat(its.map(function (k) { return sp.iterations[k].map(function (v) { return v > 0 ? v : null; }); })), box);
      state.charts++;
    });
  }

  function variables(root) {
    var rows = [];
    iterations.forEach(function (it) {
      var v = it.variables || {};
      Object.keys(v).sort().forEach(function (t) {
        Object.keys(v[t]).sort().forEach(function (name) { rows.push([iterLabel(it.index), t, name, v[t][name]]); });
      });
    });
    if (!rows.length) return;
    root.appendChild(el("h2", { text: "Settings that differed from the start of the run" }));
    var table = el("table", { "class": "vars" }, el("tr", {}, el("th", { text: K.iteration }), el("th", { text: K.target }),
      el("th", { text: "variable" }), el("th", { text: "value" })));
    rows.forEach(function (r) { table.appendChild(el("tr", {}, el("td", { text: r[0] }), el("td", { text: r[1] }), el("td", { text: r[2] }), el("td", { text: r[3] }))); });
    root.appendChild(el("div", { "class": "scroll" }, table));
  }

  // ownTables: the workloads' own tables run.json declares (a replay's fidelity and its
  // statement fingerprints among them), each under its declared title; a table that declares
  // a comparison (a replay's fingerprints) also gets its value per row across iterations.
  function ownTables(root) {
    (D.tables || []).forEach(function (T) {
      root.appendChild(el("h2", { text: T.title }));
      root.appendChild(sortableTable(T, T.class));
      if (T.compare && col(T, T.compare.row) >= 0 && col(T, T.compare.value) >= 0) rowsAcrossIterations(root, T);
    });
  }
  // rowsAcrossIterations: one row per row id and target, its value in each iteration and the change
  // against the first: the per-query comparison of a matrix of replays.
  function rowsAcrossIterations(root, F) {
    var c = F.compare;
    var ci = col(F, K.iteration), ct = col(F, K.target), cid = col(F, c.row), cv = col(F, c.value), cf = c.text ? col(F, c.text) : -1;
    var its = [], rows = {}, order = [];
    F.rows.forEach(function (r) {
      var it = r[ci];
      if (its.indexOf(it) < 0) its.push(it);
      var k = r[ct] + " " + r[cid];
      if (!rows[k]) { rows[k] = { target: r[ct], id: r[cid], text: cf >= 0 ? r[cf] : "", v: {} }; order.push(k); }
      rows[k].v[it] = r[cv];
    });
    if (its.length < 2) return;
    its.sort(function (a, b) { return a - b; });
    var T = { header: [K.target, c.row_head], rows: [] };
    its.forEach(function (it, i) {
      T.header.push(c.value + " " + iterLabel(Number(it)));
      if (i > 0) T.header.push("Δ% " + iterLabel(Number(it)));
    });
    if (cf >= 0) T.header.push(c.text_head);
    order.forEach(function (k) {
      var x = rows[k], row = [x.target, x.id], base = num(x.v[its[0]]);
      its.forEach(function (it, i) {
        var v = num(x.v[it]);
        row.push(v === null ? "" : String(v));
        if (i > 0) row.push(v === null || base === null || base === 0 ? "" : (100 * (v - base) / base).toFixed(1));
      });
      if (cf >= 0) row.push(x.text);
      T.rows.push(row);
    });
    root.appendChild(el("h3", { text: c.value_name + " per " + c.row_head + " across iterations (change against the first)" }));
    root.appendChild(sortableTable(T, F.class + "-by-iteration"));
  }

  function plan(root) {
    if (!D.plan) return;
    root.appendChild(el("details", {}, el("summary", { text: "Resolved plan (plan.yaml)" }), el("pre", { text: D.plan })));
  }

  function comparison(root, C) {
    root.appendChild(el("h1", { text: "Comparison of " + C.runs.length + " runs" }));
    var ol = el("ol");
    C.runs.forEach(function (r) { ol.appendChild(el("li", { text: r })); });
    root.appendChild(ol);
    (C.tables || []).forEach(function (T) {
      root.appendChild(el("h2", { text: T.title }));
      root.appendChild(sortableTable(T, T["class"]));
    });
    (C.differences || []).forEach(function (d) {
      root.appendChild(el("h2", { text: d.title }));
      if (d.table) root.appendChild(sortableTable(d.table, "differences"));
      else root.appendChild(el("p", { "class": "note", text: "Nothing recorded differs: settings, storage, machines, load and version." }));
      if (d.hidden) root.appendChild(el("p", { "class": "note", text: d.hidden }));
    });
    if (C.notes && C.notes.length) {
      root.appendChild(el("h2", { text: "Around the numbers" }));
      var ul = el("ul");
      C.notes.forEach(function (n) { ul.appendChild(el("li", { text: n })); });
      root.appendChild(ul);
    }
    var xs = C.cells.map(function (_, i) { return i + 1; });
    C.metrics.forEach(function (m) {
      root.appendChild(el("h2", { text: m }));
      var table = el("table", { "class": "summary" });
      var head = el("tr", {}, el("th", { text: "#" }), el("th", { text: "cell" }));
      C.runs.forEach(function (_, i) {
        head.appendChild(el("th", { text: "run " + (i + 1) }));
        if (i > 0) head.appendChild(el("th", { text: "Δ% vs run 1" }));
      });
      table.appendChild(head);
      C.cells.forEach(function (c, ci) {
        var tr = el("tr", {}, el("td", { text: String(ci + 1) }), el("td", { text: c.key }));
        var v = c.values[m] || [];
        var reps = (c.repeats || {})[m] || [];
        var dir = (C.better || {})[m] || 0;
        v.forEach(function (x, i) {
          var text = x == null ? "-" : String(x);
          if (x != null && reps[i] > 1) text += " (median of " + reps[i] + " repeats)";
          tr.appendChild(el("td", { text: text }));
          if (i > 0) {
            var d = (x == null || v[0] == null || v[0] === 0) ? null : 100 * (x - v[0]) / v[0];
            // coloured by what the change means for this metric (tps up is better, latency
            // up is worse), not by its sign; a metric with no better direction stays plain
            var cls = (d == null || d === 0 || dir === 0) ? "" : (d * dir > 0 ? "better" : "worse");
            tr.appendChild(el("td", { "class": cls, text: d == null ? "-" : d.toFixed(1) }));
          }
        });
        table.appendChild(tr);
      });
      root.appendChild(el("div", { "class": "scroll" }, table));
      chart(root, m + " by cell", "cell", xs, C.runs.map(function (r, i) {
        return { label: "run " + (i + 1), values: C.cells.map(function (c) { var v = (c.values[m] || [])[i]; return v == null ? null : v; }) };
      }));
    });
  }

  // scrollable puts every table in a box of its own that scrolls both ways (75% of the window
  // high, so its horizontal scroll bar is in view, not under a long table's last row) and says
  // above a table wider than the page that it scrolls: a table cut at the page's edge looks
  // whole. data-page-overflow is how far the page itself is wider than the window, for tests.
  function scrollable() {
    document.querySelectorAll("#report table").forEach(function (t) {
      var box = t.parentNode;
      if (!box.classList || !box.classList.contains("scroll")) {
        box = el("div", { "class": "scroll" });
        t.parentNode.insertBefore(box, t);
        box.appendChild(t);
      }
      if (box.scrollWidth > box.clientWidth + 1 && !box.hasAttribute("data-scrolls")) {
        var cols = (t.rows[0] || { cells: [] }).cells.length;
        box.setAttribute("data-scrolls", "x");
        box.parentNode.insertBefore(el("p", { "class": "scroll-hint", text: "↔ wider than the page: scroll sideways for all " + cols + " columns" }), box);
      }
    });
    var doc = document.documentElement;
    document.body.setAttribute("data-page-overflow", String(Math.max(0, doc.scrollWidth - doc.clientWidth)));
  }

  // data-render-ms: milliseconds from the start of navigation until every chart has
  // drawn (uPlot draws in a microtask queued before this one), read by
  // bench/report_scale.sh from the DOM; nothing asserts it.
  function rendered() {
    mark();
    Promise.resolve().then(function () {
      document.body.setAttribute("data-render-ms", String(Math.round(performance.now())));
    });
  }

  // The sections in their own files (axes.js, evidence.js, servers.js) draw with these and
  // count their charts and errors here, so data-charts and data-errors cover the whole page.
  window.quadrant = {
    D: D, el: el, chart: chart, palette: palette, ySize: ySize, iterLabel: iterLabel, num: num, fmt: fmt, aligned: aligned,
    counted: function () { state.charts++; mark(); },
    refresh: function () { scrollable(); mark(); },
    failed: function (e) { state.errors.push(String(e && e.stack || e)); mark(); }
  };

  var root = document.getElementById("report");
  // after every section's script (axes.js, evidence.js...) has drawn its tables
  window.addEventListener("load", function () { scrollable(); mark(); });
  try {
    if (D.compare) { comparison(root, D.compare); rendered(); return; }
    // a verify folder's page, or two compared: check.js draws them
    if (D.check || D.check_compare || D.across) { rendered(); return; }
    header(root);
    if (!D.only) { headline(root); summaryTable(root); byIteration(root); }
    overTime(root);
    if (!D.only) { latency(root); ownTables(root); variables(root); plan(root); }
  } catch (e) {
    state.errors.push(String(e && e.stack || e));
    root.appendChild(el("p", { "class": "error", text: "report error: " + e }));
  }
  rendered();
})();
