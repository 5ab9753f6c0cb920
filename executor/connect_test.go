package executor

import (
	"testing"

	"github.com/quadrant-bench/quadrant/results"
)

// connect: per_transaction logs in before every transaction and times it apart, and
// idle_connections hold logged-in connections for the whole workload: the server's own
// counters see both.
func TestConnectPatterns(t *testing.T) {
	plan := `
version: 1
name: connect
targets:
  db:
    sandbox:
      config: {innodb_buffer_pool_size: 64M}
setup:
  - workload: {builtin: oltp_point_select, action: prepare, options: {tables: 1, table_size: 1000}}
iteration:
  workload:
    builtin: oltp_point_select
    options: {tables: 1, table_size: 1000}
    threads: 2
    duration: 3s
    connect: per_transaction
    idle_connections: 20
  assert: ["connect_p99_ms > 0", "tps > 0"]
watch:
  status: [Connections, Threads_connected]
`
	run, out, err := runPlan(t, plan, nil, Options{})
	if err != nil || out.Status != results.StatusDone {
		t.Fatalf("run: %v, outcome %+v", err, out)
	}
	S := run.Summary
	tx := col(t, S, 0, "transactions")
	logins := col(t, S, 0, "status.Connections")
	// A login per transaction (and the workload's and samplers' own few).
	if tx <= 0 || logins < tx {
		t.Fatalf("%v transactions but %v logins", tx, logins)
	}
	for _, c := range []string{"connect_ms", "connect_p50_ms", "connect_p99_ms", "connect_max_ms"} {
		if v := col(t, S, 0, c); v <= 0 {
			t.Fatalf("%s = %v", c, v)
		}
	}
	h, err := results.ReadHistograms(run.Dir, "db", 1, "connect")
	if err != nil || h.Count() < int64(tx) {
		t.Fatalf("connect histograms: %v logins for %v transactions (%v)", h.Count(), tx, err)
	}
	// The idle connections stay logged in all along: every sample sees them but the last,
	// read as the workload ends and closes them.
	ts := run.Timeseries["db"]
	if len(ts.Rows) < 3 {
		t.Fatalf("%d time-series rows, want 3", len(ts.Rows))
	}
	for i := range ts.Rows {
		if n := col(t, ts, i, "status.Threads_connected"); n < 20+2 && i < len(ts.Rows)-1 {
			t.Fatalf("row %d: %v threads connected, want the 20 idle ones and the 2 workers", i, n)
		}
		if ts.Value(i, "connect_ms") == "" && ts.Value(i, "tps") != "0" {
			t.Fatalf("row %d has transactions and no connect_ms", i)
		}
	}
}
