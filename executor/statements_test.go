package executor

import (
	"math"
	"strings"
	"testing"

	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/results/measure"
)

// An OLTP builtin's statements are timed class by class, on the wire path (BEGIN and
// COMMIT pipelined with a statement, ps_mode auto) and on the driver's (disable): each
// class is counted as the script runs it, its percentiles come from its own histogram,
// and merging that class's tagged lines of the .hlog gives the summary's figure.
func TestOLTPStatementClasses(t *testing.T) {
	plan := `
version: 1
name: statements
targets:
  db:
    sandbox:
      config: {innodb_buffer_pool_size: 64M}
setup:
  - workload: {builtin: oltp_read_write, action: prepare, options: {tables: 1, table_size: 100}}
matrix:
  builtin: [oltp_read_write, oltp_read_only]
  ps_mode: [auto, disable]
iteration:
  workload:
    builtin: "${{ matrix.builtin }}"
    # 100 rows and 4 threads: writers meet, so deadlocks and lock waits are counted by class.
    options: {tables: 1, table_size: 100, ps_mode: "${{ matrix.ps_mode }}", statement_stats: on}
    threads: 4
    duration: 2s
    on_error: {ignore: [1213, 1205, 1062]}
  assert: ["stmt.point_select.p99_ms > 0", "stmt.commit.count > 0"]
`
	run, out, err := runPlan(t, plan, nil, Options{})
	if err != nil || out.Status != results.StatusDone {
		t.Fatalf("run: %v, outcome %+v", err, out)
	}
	S := run.Summary
	if len(S.Rows) != 4 {
		t.Fatalf("summary rows %d, want 4", len(S.Rows))
	}
	for i := range S.Rows {
		builtin, iteration := S.Value(i, "builtin"), i+1
		tx, errs := col(t, S, i, "transactions"), col(t, S, i, "errors")
		begins, commits := col(t, S, i, "stmt.begin.count"), col(t, S, i, "stmt.commit.count")
		points := col(t, S, i, "stmt.point_select.count")
		// Every completed transaction began and committed once and ran 10 point selects; a
		// failed attempt (a deadlock) may add a BEGIN and some selects but never a COMMIT.
		if tx <= 0 || commits != tx || begins < tx || begins > tx+errs || points < 10*tx || points > 10*(tx+errs) {
			t.Fatalf("%s row %d: transactions %v errors %v begin %v commit %v point_select %v", builtin, i, tx, errs, begins, commits, points)
		}
		// Every error of the run was a statement's (no connection was lost), counted in its class.
		var stmtErrs float64
		for _, class := range []string{"begin", "point_select", "simple_range", "sum_range", "order_range", "distinct_range", "commit"} {
			stmtErrs += col(t, S, i, "stmt."+class+".errors")
		}
		if builtin == "oltp_read_write" {
			for _, class := range []string{"index_update", "non_index_update", "delete", "insert"} {
				stmtErrs += col(t, S, i, "stmt."+class+".errors")
			}
		}
		if stmtErrs != errs {
			t.Fatalf("%s row %d: statement classes have %v errors, the run %v", builtin, i, stmtErrs, errs)
		}
		for _, class := range []string{"simple_range", "sum_range", "order_range", "distinct_range"} {
			if n := col(t, S, i, "stmt."+class+".count"); n < tx {
				t.Fatalf("%s row %d: %s count %v < transactions %v", builtin, i, class, n, tx)
			}
		}
		writes := S.Col("stmt.index_update.count") >= 0 && S.Value(i, "stmt.index_update.count") != "" && S.Value(i, "stmt.index_update.count") != "0"
		if writes != (builtin == "oltp_read_write") {
			t.Fatalf("%s row %d: index_update count %q", builtin, i, S.Value(i, "stmt.index_update.count"))
		}
		for _, class := range []string{"begin", "point_select", "commit"} {
			h, err := results.ReadHistograms(run.Dir, "db", iteration, results.HistogramTag("stmt", class))
			if err != nil {
				t.Fatal(err)
			}
			if float64(h.Count()) != col(t, S, i, "stmt."+class+".count") {
				t.Fatalf("%s row %d: %s: %d values in the .hlog, summary count %v", builtin, i, class, h.Count(), col(t, S, i, "stmt."+class+".count"))
			}
			want := col(t, S, i, "stmt."+class+".p99_ms")
			if got := measure.Ms(h.Percentile(99)); math.Abs(got-want) > 1e-9 || want <= 0 {
				t.Fatalf("%s row %d: %s p99 %v ms from the .hlog, %v in the summary", builtin, i, class, got, want)
			}
		}
	}
	ts := run.Timeseries["db"]
	for _, c := range []string{"stmt.point_select.count", "stmt.commit.p95_ms", "stmt.begin.max_ms"} {
		if ts.Col(c) < 0 {
			t.Fatalf("time series has no %s: %v", c, ts.Header)
		}
	}
}

// Per-statement timing is off by default (its cost could not be shown under 3%): no
// stmt.* columns, no stmt-tagged histograms.
func TestOLTPStatementClassesOffByDefault(t *testing.T) {
	plan := `
version: 1
name: statements-off
targets:
  db:
    sandbox:
      config: {innodb_buffer_pool_size: 64M}
setup:
  - workload: {builtin: oltp_read_only, action: prepare, options: {tables: 1, table_size: 1000}}
iteration:
  workload: {builtin: oltp_read_only, options: {tables: 1, table_size: 1000}, threads: 1, duration: 1s}
`
	run, out, err := runPlan(t, plan, nil, Options{})
	if err != nil || out.Status != results.StatusDone {
		t.Fatalf("run: %v, outcome %+v", err, out)
	}
	for _, h := range append(run.Summary.Header, run.Timeseries["db"].Header...) {
		if strings.HasPrefix(h, "stmt.") {
			t.Fatalf("column %s without statement_stats", h)
		}
	}
	if h, err := results.ReadHistograms(run.Dir, "db", 1, "stmt.point_select"); err != nil || h.Count() != 0 {
		t.Fatalf("stmt.point_select histograms without statement_stats: %v (%v)", h.Count(), err)
	}
}
