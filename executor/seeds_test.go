package executor

// The seed experiments (../shared/seeds), end to end on real sandboxes at small sizes:
// each test is the experiment a DBA ran by hand, written as a plan.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quadrant-bench/quadrant/executor/kinds"
	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
	"github.com/quadrant-bench/quadrant/executor/watch/snmptest"
	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/spec"
	"github.com/quadrant-bench/quadrant/spec/plantest"
	"github.com/quadrant-bench/quadrant/spec/trust"
)

func saved(t *testing.T, run *results.Run, name string, it int) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(run.Dir, "saved", fmt.Sprintf("%s-iteration-%d.csv", name, it)))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(data))
}

func requireDone(t *testing.T, run *results.Run, out *Outcome, err error, iterations int) {
	t.Helper()
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if out.Status != results.StatusDone {
		for _, it := range run.Info.Iterations {
			t.Logf("iteration %d: %s %s %v", it.Index, it.Status, it.Error, it.Failed)
		}
		t.Fatalf("outcome %+v", out)
	}
	if len(run.Summary.Rows) < iterations {
		t.Fatalf("%d summary rows, want at least %d", len(run.Summary.Rows), iterations)
	}
}

// Seed 002 (3): general log off / FILE / TABLE x read-only and read-write.
func TestSeedLoggingOverhead(t *testing.T) {
	run, out, err := runPlan(t, plantest.Sandbox("logging", "", `setup:
  - workload: {builtin: oltp_read_write, action: prepare, options: {table_size: 1000}}
matrix:
  log: ["off", FILE, TABLE]
  test: [oltp_read_only, oltp_read_write]
iteration:
  globals:
    log_output: "${{ matrix.log == 'off' ? 'FILE' : matrix.log }}"
    general_log: "${{ matrix.log == 'off' ? 'OFF' : 'ON' }}"
  before:
    - sql: "TRUNCATE TABLE mysql.general_log"
  workload: {builtin: "${{ matrix.test }}", options: {table_size: 1000}, threads: 2, duration: 1s}
  after:
    - sql: "SELECT COUNT(*) AS n FROM mysql.general_log"
      save_as: general_log_rows
  assert: ["tps > 0"]
`), nil, Options{})
	requireDone(t, run, out, err, 6)
	for _, it := range run.Info.Iterations {
		rows := saved(t, run, "general_log_rows", it.Index)
		table := it.Matrix[0].Value == "TABLE"
		if table == (rows == "n\n0") {
			t.Errorf("iteration %d (%v): general_log table holds %q", it.Index, it.Matrix, rows)
		}
	}
	if v := run.Info.Targets[0].VariablesAfter["general_log"]; v != "OFF" {
		t.Errorf("general_log %s after the run, want it restored to OFF", v)
	}
}

// Seed 002 (3) and 000: the binary log off and on, a restart in between.
func TestSeedBinlogThroughRestart(t *testing.T) {
	run, out, err := runPlan(t, plantest.Sandbox("binlog", "{config: {server_id: 1}}", `setup:
  - workload: {builtin: oltp_write_only, action: prepare, options: {table_size: 1000}}
matrix:
  log_bin: [false, true]
iteration:
  server_config: {log_bin: "${{ matrix.log_bin }}"}
  workload: {builtin: oltp_write_only, options: {table_size: 1000}, threads: 2, duration: 1s}
  after:
    - sql: "SELECT @@log_bin AS log_bin"
      save_as: log_bin
watch:
  status: [Com_commit, Binlog_commits]
`), nil, Options{})
	requireDone(t, run, out, err, 2)
	for i, want := range []string{"0", "1"} {
		if got := saved(t, run, "log_bin", i+1); got != "log_bin\n"+want {
			t.Errorf("iteration %d ran with %q, want log_bin %s", i+1, got, want)
		}
	}
	off, _ := run.Summary.Float(0, "status.Binlog_commits")
	on, _ := run.Summary.Float(1, "status.Binlog_commits")
	commits, _ := run.Summary.Float(1, "status.Com_commit")
	if off != 0 || on < commits*0.9 || commits == 0 {
		t.Errorf("Binlog_commits %v with the log off, %v with it on for %v commits", off, on, commits)
	}
	if got := run.Info.Iterations[1].Variables["db"]["log_bin"]; got != "ON" {
		t.Errorf("run.json: iteration 2 variables log_bin %q, want ON", got)
	}
}

// Seed 002 (1): replay of single-row INSERTs, async vs semi-sync replication.
func TestSeedSemisyncReplay(t *testing.T) {
	var b strings.Builder
	const n = 300
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "INSERT INTO bench.t VALUES (%d, 'row %d');\n", i, i)
	}
	run, out, err := runPlan(t, plantest.Sandbox("semisync", "{replicas: 1}", `setup:
  - sql: "CREATE DATABASE IF NOT EXISTS bench"
matrix:
  replication: [async, semisync]
iteration:
  globals:
    rpl_semi_sync_master_enabled: "${{ matrix.replication == 'semisync' ? 'ON' : 'OFF' }}"
    rpl_semi_sync_master_timeout: 10000
  before:
    - set_global: {rpl_semi_sync_slave_enabled: "${{ matrix.replication == 'semisync' ? 'ON' : 'OFF' }}"}
      target: db_replica1
    - sql: "STOP SLAVE IO_THREAD; START SLAVE IO_THREAD"
      target: db_replica1
    - wait: {target: db, until: "matrix.replication == 'async' || status.Rpl_semi_sync_master_clients == 1", timeout: 30s}
    - sql: "DROP TABLE IF EXISTS bench.t; CREATE TABLE bench.t (id INT PRIMARY KEY, v VARCHAR(20))"
  workload:
    replay: {file: inserts.sql}
  assert: ["errors == 0"]
watch:
  status: [Com_insert, Rpl_semi_sync_master_yes_tx, Rpl_semi_sync_master_no_tx]
  replication: true
`), map[string]string{"inserts.sql": b.String()}, Options{})
	requireDone(t, run, out, err, 2)
	rowsOf := func(target string) []int {
		var idx []int
		for i := range run.Summary.Rows {
			if run.Summary.Value(i, "target") == target {
				idx = append(idx, i)
			}
		}
		return idx
	}
	primary := rowsOf("db")
	if len(primary) != 2 || len(rowsOf("db_replica1")) != 2 {
		t.Fatalf("summary rows %v", run.Summary.Rows)
	}
	async, semi := primary[0], primary[1]
	if ins, _ := run.Summary.Float(async, "status.Com_insert"); ins != n {
		t.Errorf("async: Com_insert increased by %v, want %d", ins, n)
	}
	if yes, _ := run.Summary.Float(async, "status.Rpl_semi_sync_master_yes_tx"); yes != 0 {
		t.Errorf("async iteration acknowledged %v transactions semi-synchronously", yes)
	}
	if yes, _ := run.Summary.Float(semi, "status.Rpl_semi_sync_master_yes_tx"); yes < n {
		t.Errorf("semisync iteration: Rpl_semi_sync_master_yes_tx increased by %v, want >= %d", yes, n)
	}
	if tx, _ := run.Summary.Float(semi, "transactions"); tx != n {
		t.Errorf("replay counted %v statements, want %d", tx, n)
	}
	if lag := run.Timeseries["db_replica1"].Col("repl.lag_s"); lag < 0 {
		t.Errorf("no replication columns in the replica's time series: %v", run.Timeseries["db_replica1"].Header)
	}
}

// Seed 002 (2): how long a replica takes to catch up, timed with a marker table.
func TestSeedReplicaCatchup(t *testing.T) {
	run, out, err := runPlan(t, plantest.Sandbox("catchup", "{replicas: 1}", `setup:
  - workload: {builtin: oltp_write_only, action: prepare, options: {table_size: 1000}}
  - wait:
      target: db_replica1
      sql: "SELECT COUNT(*) AS n FROM information_schema.tables WHERE table_schema = 'sbtest' AND table_name = 'sbtest1'"
      until: "row.n == 1"
      timeout: 60s
iteration:
  before:
    - sql: "STOP SLAVE SQL_THREAD"
      target: db_replica1
    - sql: "DROP TABLE IF EXISTS sbtest.last_table"
  workload: {builtin: oltp_write_only, options: {table_size: 1000}, threads: 2, duration: 2s}
  after:
    - sql: "CREATE TABLE sbtest.last_table (i INT)"
    - sql: "START SLAVE SQL_THREAD"
      target: db_replica1
    - wait:
        target: db_replica1
        sql: "SELECT COUNT(*) AS n FROM information_schema.tables WHERE table_schema = 'sbtest' AND table_name = 'last_table'"
        until: "row.n == 1"
        interval: 100ms
        timeout: 2m
        record_as: catchup_s
  assert: ["catchup_s > 0", "catchup_s < 120"]
watch:
  replication: true
`), nil, Options{})
	requireDone(t, run, out, err, 1)
	v, ok := run.Summary.Float(0, "catchup_s")
	if !ok || v <= 0 {
		t.Fatalf("catchup_s %q in summary.csv", run.Summary.Value(0, "catchup_s"))
	}
}

// Seed 004 (1): innodb_flush_method through restarts, a restart only when it changes.
func TestSeedFlushMethodMatrix(t *testing.T) {
	run, out, err := runPlan(t, plantest.Sandbox("flush", "", `setup:
  - workload: {builtin: oltp_read_write, action: prepare, options: {table_size: 1000}}
matrix:
  flush: [fsync, O_DIRECT]
  threads: [1, 2]
iteration:
  server_config: {innodb_flush_method: "${{ matrix.flush }}"}
  workload: {builtin: oltp_read_write, options: {table_size: 1000}, threads: "${{ matrix.threads }}", duration: 1s}
  after:
    - sql: "SELECT @@innodb_flush_method AS m"
      save_as: flush
`), nil, Options{})
	requireDone(t, run, out, err, 4)
	for i, want := range []string{"fsync", "fsync", "O_DIRECT", "O_DIRECT"} {
		if got := saved(t, run, "flush", i+1); got != "m\n"+want {
			t.Errorf("iteration %d ran with %q, want %s", i+1, got, want)
		}
	}
	log, _ := os.ReadFile(filepath.Join(run.Dir, results.LogFile))
	if n := strings.Count(string(log), "restarted with its server_config"); n != 2 {
		t.Errorf("%d restarts for 4 iterations over 2 flush methods, want 2 (first cell and the change):\n%s", n, log)
	}
}

// The server goes away in the middle of a measured workload (a restart as a `during`
// step): the workload reconnects, errors are counted by code, and the log has the window.
func TestServerGoneMidIterationIsReconnected(t *testing.T) {
	run, out, err := runPlan(t, plantest.Sandbox("gone", "", `setup:
  - workload: {builtin: oltp_point_select, action: prepare, options: {table_size: 1000}}
iteration:
  workload:
    builtin: oltp_point_select
    options: {table_size: 1000}
    threads: 2
    duration: 8s
    on_error: {reconnect: [2013, 2006, 2003, 1927, 1053]}
  during:
    - {at: 2s, restart: {}}
  assert: ["tps > 0", "reconnects > 0"]
`), nil, Options{})
	requireDone(t, run, out, err, 1)
	if e, _ := run.Summary.Float(0, "errors"); e == 0 {
		t.Errorf("no errors counted while the server restarted: %v", run.Summary.Rows[0])
	}
	codes := 0
	for _, h := range run.Summary.Header {
		if strings.HasPrefix(h, "error.") {
			codes++
		}
	}
	if codes == 0 {
		t.Errorf("no error.CODE column in summary.csv: %v", run.Summary.Header)
	}
	log, _ := os.ReadFile(filepath.Join(run.Dir, results.LogFile))
	if !strings.Contains(string(log), "db unreachable from about") || !strings.Contains(string(log), "db answering again at about") {
		t.Errorf("log.txt lacks the downtime window:\n%s", log)
	}
}

// A dsn target's server_config goes to its restart command (quadrant does not own that
// server's my.cnf), once per change, and only with --allow-shell.
func TestDSNServerConfigGoesToRestartCommand(t *testing.T) {
	c := sandboxtest.Start(t, sandbox.Options{Name: "dsncfg"})
	log := filepath.Join(t.TempDir(), "restarts")
	plan := fmt.Sprintf(`
version: 1
name: dsncfg
targets:
  db:
    dsn: "%s"
    restart: 'echo "$QUADRANT_CONFIG_INNODB_FLUSH_METHOD" >> %s'
matrix:
  flush: [fsync, O_DSYNC]
repeat: 2
order: sequential
iteration:
  server_config: {innodb_flush_method: "${{ matrix.flush }}"}
  workload: {builtin: oltp_point_select, options: {table_size: 100}, duration: 1s}
setup:
  - workload: {builtin: oltp_point_select, action: prepare, options: {table_size: 100}}
`, c.Primary.DSN(""), log)
	p, err := spec.LoadBytes(filepath.Join(t.TempDir(), "plan.yaml"), []byte(plan), spec.Options{Kinds: kinds.Registry()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), p, nil, Options{}); err == nil {
		t.Fatal("a restart command ran without AllowShell")
	}
	run, out, err := runPlan(t, plan, nil, Options{Allow: trust.Allow{Shell: true}})
	requireDone(t, run, out, err, 4)
	got, _ := os.ReadFile(log)
	if string(got) != "fsync\nO_DSYNC\n" {
		t.Fatalf("restart command ran with %q, want one restart per flush method", got)
	}
}

// Shell steps run with --allow-shell and see the iteration, its matrix values and the
// targets' addresses; drop_caches really drops the page cache (as root, which CI is).
func TestShellAndDropCachesSteps(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("drop_caches needs root; CI runs as root")
	}
	out := filepath.Join(t.TempDir(), "env")
	run, o, err := runPlan(t, plantest.Sandbox("shell", "", `matrix:
  size: [small]
iteration:
  before:
    - shell: 'echo "$QUADRANT_ITERATION $QUADRANT_MATRIX_SIZE $QUADRANT_TARGET_DB_HOST" > `)+out+`'
    - drop_caches: true
    - sleep: 100ms
  workload: {builtin: oltp_point_select, options: {table_size: 100}, duration: 1s}
setup:
  - workload: {builtin: oltp_point_select, action: prepare, options: {table_size: 100}}
`, nil, Options{Allow: trust.Allow{Shell: true}})
	requireDone(t, run, o, err, 1)
	got, _ := os.ReadFile(out)
	if string(got) != "1 small 127.0.0.1\n" {
		t.Fatalf("the shell step saw %q", got)
	}
}

// Host metrics over SNMP (v3, authPriv) from a real snmpd land in the target's time
// series next to throughput, and the plan's secrets stay out of the results.
func TestSNMPHostMetricsInTheTimeSeries(t *testing.T) {
	agent := snmptest.Start(t)
	run, out, err := runPlan(t, fmt.Sprintf(`
version: 1
name: snmp
targets:
  db:
    sandbox: {}
    snmp: {address: "%s", version: "3", user: %s, auth_protocol: SHA, auth_password: %s, priv_protocol: AES, priv_password: %s}
setup:
  - workload: {builtin: oltp_point_select, action: prepare, options: {table_size: 100}}
iteration:
  workload: {builtin: oltp_point_select, options: {table_size: 100}, duration: 3s}
watch:
  snmp: [load1, mem_total, mem_avail]
`, agent.Addr, snmptest.User, snmptest.AuthPassword, snmptest.PrivPassword), nil, Options{})
	requireDone(t, run, out, err, 1)
	ts := run.Timeseries["db"]
	for _, c := range []string{"host.load1", "host.mem_total", "host.mem_avail", "tps"} {
		if ts.Col(c) < 0 {
			t.Fatalf("time series lacks %s: %v", c, ts.Header)
		}
	}
	if v, ok := ts.Float(len(ts.Rows)-1, "host.mem_total"); !ok || v <= 0 {
		t.Fatalf("host.mem_total %q", ts.Value(len(ts.Rows)-1, "host.mem_total"))
	}
	plan, _ := os.ReadFile(filepath.Join(run.Dir, results.PlanFile))
	if strings.Contains(string(plan), snmptest.PrivPassword) || strings.Contains(string(plan), snmptest.AuthPassword) {
		t.Fatalf("plan.yaml holds the SNMP passwords:\n%s", plan)
	}
}
