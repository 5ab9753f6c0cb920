package executor

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/results/measure"
)

// The cost columns on a sandbox: a write workload writes to storage on every transaction, point selects on
// a warm buffer pool about never; with the binary log on each transaction also writes its events there.
func TestCostPerTransaction(t *testing.T) {
	plan := `
version: 1
name: executor-cost
targets:
  db:
    sandbox:
      config: {innodb_buffer_pool_size: 64M, server_id: 1, innodb_flush_log_at_trx_commit: 1}
setup:
  - workload: {builtin: oltp_write_only, action: prepare, options: {tables: 1, table_size: 2000}}
matrix:
  builtin: [oltp_point_select, oltp_write_only]
  log_bin: [false, true]
iteration:
  server_config: {log_bin: "${{ matrix.log_bin }}", sync_binlog: 1}
  before:
    - sql: "SELECT COUNT(*), SUM(LENGTH(c)) FROM sbtest.sbtest1"
  workload:
    builtin: "${{ matrix.builtin }}"
    options: {tables: 1, table_size: 2000}
    threads: 2
    duration: 3s
    warmup: 1s
watch:
  host: [load1, cpu_util, disk_write_kbs]
`
	run, _, err := runPlan(t, plan, nil, Options{})
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	S := run.Summary
	if len(S.Rows) != 4 {
		t.Fatalf("summary rows %d, want 4", len(S.Rows))
	}
	cost := map[string]map[string]float64{}
	for i := range S.Rows {
		key := S.Value(i, "builtin") + " log_bin=" + S.Value(i, "log_bin")
		cost[key] = map[string]float64{}
		for _, c := range []string{"cost.server_cpu_us", "cost.client_cpu_us", "cost.ctx_switches", "cost.read_kb", "cost.write_kb", "cost.fsyncs", "transactions"} {
			cost[key][c] = col(t, S, i, c)
		}
		t.Logf("%s: %v", key, cost[key])
		if cost[key]["cost.server_cpu_us"] <= 0 || cost[key]["cost.client_cpu_us"] <= 0 || cost[key]["cost.ctx_switches"] <= 0 {
			t.Errorf("%s: CPU and context switches per transaction should be above zero: %v", key, cost[key])
		}
	}
	for _, lb := range []string{"false", "true"} {
		w, p := cost["oltp_write_only log_bin="+lb], cost["oltp_point_select log_bin="+lb]
		if w["cost.write_kb"] <= 0 || w["cost.fsyncs"] <= 0 {
			t.Errorf("log_bin=%s: a write workload should write and fsync per transaction: %v", lb, w)
		}
		if p["cost.write_kb"] > w["cost.write_kb"]/20 || p["cost.write_kb"] > 1 {
			t.Errorf("log_bin=%s: point selects wrote %.3f KiB per transaction, the write workload %.3f", lb, p["cost.write_kb"], w["cost.write_kb"])
		}
	}
	off, on := cost["oltp_write_only log_bin=false"], cost["oltp_write_only log_bin=true"]
	if on["cost.write_kb"] <= off["cost.write_kb"] {
		t.Errorf("the binary log should add writes per transaction: %.2f KiB with it, %.2f without", on["cost.write_kb"], off["cost.write_kb"])
	}
	// The time series has the costs per interval, and run.json says where each comes from.
	ts := run.Timeseries["db"]
	if ts.Col("cost.server_cpu_us") < 0 || ts.Col("proc.cpu_us") < 0 || ts.Col("client.cpu_us") < 0 {
		t.Fatalf("timeseries header %v", ts.Header)
	}
	src := map[string]results.Column{}
	for _, c := range run.Info.Targets[0].Watched {
		src[c.Name] = c
	}
	if c := src["cost.server_cpu_us"]; c.Kind != measure.PerTransaction || c.Source != "(proc.cpu_us) / transactions" {
		t.Errorf("run.json cost.server_cpu_us: %+v", c)
	}
	if c := src["proc.cpu_us"]; c.Kind != measure.Counter || c.Source == "" {
		t.Errorf("run.json proc.cpu_us: %+v", c)
	}
	// Host metrics of a sandbox come from /proc, under the same names as over SNMP, and say so.
	if c := src["host.cpu_util"]; !strings.Contains(c.Source, "/proc") || strings.Contains(c.Source, "process") {
		t.Errorf("run.json host.cpu_util: %+v", c)
	}
	if v := col(t, S, 3, "host.cpu_util"); v <= 0 || v > 100 {
		t.Errorf("summary host.cpu_util %v", v)
	}
	if ts.Col("host.load1") < 0 {
		t.Errorf("no host.load1 in the time series: %v", ts.Header)
	}
}

// A dsn target on this machine is measured from /proc through its pid_file; a pid that is not a database
// server is refused before anything runs.
func TestCostOfDSNTargetByPidFile(t *testing.T) {
	c := sandboxtest.Start(t, sandbox.Options{Name: "pidfile"})
	pidFile := filepath.Join(t.TempDir(), "mysqld.pid")
	if err := os.WriteFile(pidFile, []byte(strconv.Itoa(c.Primary.Pid())+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	plan := func(pid string) string {
		return fmt.Sprintf(`
version: 1
name: executor-pidfile
targets:
  db: {dsn: "%s", %s}
setup:
  - workload: {builtin: oltp_point_select, action: prepare, options: {table_size: 500}}
iteration:
  workload: {builtin: oltp_point_select, options: {table_size: 500}, duration: 2s}
watch:
  host: [cpu_util]
`, c.Primary.DSN(""), pid)
	}
	run, out, err := runPlan(t, plan("pid_file: "+pidFile), nil, Options{})
	requireDone(t, run, out, err, 1)
	if v := col(t, run.Summary, 0, "cost.server_cpu_us"); v <= 0 {
		t.Errorf("cost.server_cpu_us %v on a dsn target with pid_file", v)
	}
	if run.Timeseries["db"].Col("host.cpu_util") < 0 {
		t.Errorf("a dsn target on 127.0.0.1 has no host metrics from /proc: %v", run.Timeseries["db"].Header)
	}
	for _, c := range run.Info.Targets[0].Watched {
		if c.Name == "proc.cpu_us" && !strings.Contains(c.Source, "pid_file "+pidFile) {
			t.Errorf("proc.cpu_us source %q does not name the pid file", c.Source)
		}
	}
	_, _, err = runPlan(t, plan(fmt.Sprintf("pid: %d", os.Getpid())), nil, Options{})
	if err == nil || !strings.Contains(err.Error(), "not a mysqld or mariadbd") {
		t.Fatalf("run with the pid of the test binary: %v", err)
	}
}
