package executor

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/quadrant-bench/quadrant/results"
)

// Digests and waits of a sandbox running oltp_read_write: its statement classes are the top digests, with
// counts that match the transactions the workload ran, and the waits have time.
func TestDigestsAndWaits(t *testing.T) {
	plan := `
version: 1
name: executor-evidence
targets:
  db:
    sandbox:
      config: {innodb_buffer_pool_size: 64M}
setup:
  - workload: {builtin: oltp_read_write, action: prepare, options: {tables: 1, table_size: 2000}}
matrix:
  ps_mode: [disable, auto]
iteration:
  workload:
    builtin: oltp_read_write
    options: {tables: 1, table_size: 2000, ps_mode: "${{ matrix.ps_mode }}"}
    threads: 2
    duration: 3s
watch:
  digests: {top: 12}
  waits: {}
`
	run, out, err := runPlan(t, plan, nil, Options{})
	requireDone(t, run, out, err, 2)
	tx := col(t, run.Summary, 0, "transactions")
	header, rows, err := results.ReadTable(filepath.Join(run.Dir, results.DigestsFile))
	if err != nil {
		t.Fatalf("digests.csv: %v", err)
	}
	d := results.NewData(header, rows)
	if len(rows) == 0 || len(rows) > 24 {
		t.Fatalf("digests.csv has %d rows, want 1 to 12 per iteration", len(rows))
	}
	count := map[string]float64{}
	for i := range rows {
		if d.Value(i, "iteration") != "1" {
			continue
		}
		// MariaDB writes keywords such as ID in capitals and without backquotes: compare plain lower case.
		text := strings.TrimSpace(strings.ToLower(strings.ReplaceAll(d.Value(i, "digest_text"), "`", "")))
		n := col(t, d, i, "count")
		t.Logf("%s  count %s  total %s ms  examined %s", text, d.Value(i, "count"), d.Value(i, "total_ms"), d.Value(i, "rows_examined"))
		switch {
		case text == "select c from sbtest1 where id = ?":
			count["point"] += n
		case strings.HasPrefix(text, "update sbtest1 set k = k + ?"):
			count["index_update"] += n
		case strings.HasPrefix(text, "delete from sbtest1"):
			count["delete"] += n
		case text == "commit":
			count["commit"] += n
		}
	}
	// Ten point selects and one of each write per transaction; a deadlock's rollback cuts a few short.
	for class, per := range map[string]float64{"point": 10, "index_update": 1, "delete": 1, "commit": 1} {
		if got := count[class]; got < per*tx*0.95 || got > per*tx*1.05+20 {
			t.Errorf("%s: digest count %.0f for %.0f transactions, want about %.0f", class, got, tx, per*tx)
		}
	}
	header, rows, err = results.ReadTable(filepath.Join(run.Dir, results.WaitsFile))
	if err != nil || len(rows) == 0 {
		t.Fatalf("waits.csv: %d rows, %v", len(rows), err)
	}
	w := results.NewData(header, rows)
	if v := col(t, w, 0, "total_ms"); v <= 0 {
		t.Errorf("top wait %s has %v ms", w.Value(0, "event"), v)
	}
	for i := range rows {
		t.Logf("wait %s count %s total %s ms", w.Value(i, "event"), w.Value(i, "count"), w.Value(i, "total_ms"))
	}
	if n, _ := strconv.Atoi(w.Value(len(rows)-1, "rank")); n > 10 {
		t.Errorf("waits ranks 1..%d, want at most the default 10", n)
	}
	// Prepared statements (ps_mode auto) are not digested by MariaDB: the log says how many the polled rows cover.
	log, _ := os.ReadFile(filepath.Join(run.Dir, results.LogFile))
	if !strings.Contains(string(log), "iteration 2: db: digests.csv's prepared statements") {
		t.Errorf("log.txt lacks the coverage of prepared statements")
	}
}

// oltp_read_only with its default ps_mode (prepared statements) on MariaDB, which does not digest them:
// digests.csv has the point select and the four ranges from prepared_statements_instances, with about the
// workload's own counts, and log.txt says how many of the server's prepared executions they hold.
func TestDigestsOfPreparedStatements(t *testing.T) {
	plan := `
version: 1
name: executor-prepared-digests
targets:
  db:
    sandbox:
      config: {innodb_buffer_pool_size: 64M}
setup:
  - workload: {builtin: oltp_read_only, action: prepare, options: {tables: 1, table_size: 2000}}
iteration:
  workload:
    builtin: oltp_read_only
    options: {tables: 1, table_size: 2000}
    threads: 2
    duration: 4s
watch:
  digests: {top: 10}
`
	run, out, err := runPlan(t, plan, nil, Options{})
	requireDone(t, run, out, err, 1)
	tx := col(t, run.Summary, 0, "transactions")
	header, rows, err := results.ReadTable(filepath.Join(run.Dir, results.DigestsFile))
	if err != nil {
		t.Fatalf("digests.csv: %v", err)
	}
	d := results.NewData(header, rows)
	count := map[string]float64{}
	for i := range rows {
		text, digest := d.Value(i, "digest_text"), d.Value(i, "digest")
		t.Logf("%s %s  count %s  total %s ms  examined %s sent %s", digest, text, d.Value(i, "count"), d.Value(i, "total_ms"), d.Value(i, "rows_examined"), d.Value(i, "rows_sent"))
		if !strings.HasPrefix(digest, "ps:") {
			continue
		}
		if col(t, d, i, "total_ms") <= 0 || col(t, d, i, "rows_sent") <= 0 {
			t.Errorf("%s: no time or rows", text)
		}
		switch text {
		case "select c from sbtest1 where id=?":
			count["point"] += col(t, d, i, "count")
		case "select c from sbtest1 where id between ? and ?", "select sum(k) from sbtest1 where id between ? and ?",
			"select c from sbtest1 where id between ? and ? order by c", "select distinct c from sbtest1 where id between ? and ? order by c":
			count[text] += col(t, d, i, "count")
		}
	}
	if len(count) != 5 {
		t.Fatalf("digests.csv has prepared classes %v, want the point select and four ranges", count)
	}
	// Executions after a connection's last poll (at most a second of it) are not seen.
	for class, n := range count {
		per := 1.0
		if class == "point" {
			per = 10
		}
		if n < per*tx*0.6 || n > per*tx*1.05+20 {
			t.Errorf("%s: count %.0f for %.0f transactions, want about %.0f", class, n, tx, per*tx)
		}
		t.Logf("%s: %.0f of %.0f (%.1f%%)", class, n, per*tx, 100*n/(per*tx))
	}
	log, _ := os.ReadFile(filepath.Join(run.Dir, results.LogFile))
	if i := strings.Index(string(log), "digests.csv's prepared statements"); i < 0 {
		t.Errorf("log.txt lacks the coverage of prepared statements")
	} else {
		t.Logf("log: %s", strings.SplitN(string(log[i:]), "\n", 2)[0])
	}
}

// A dsn server without performance_schema fails the run before setup with one message naming the setting.
func TestDigestsNeedPerformanceSchema(t *testing.T) {
	dir := t.TempDir()
	_ = os.WriteFile(filepath.Join(dir, "x"), nil, 0o644)
	plan := `
version: 1
name: executor-evidence-off
targets:
  db:
    sandbox:
      config: {performance_schema: "OFF"}
setup:
  - sql: "SELECT 1"
iteration:
  workload: {builtin: oltp_point_select, options: {table_size: 10}, duration: 1s}
watch:
  digests: {top: 5}
`
	_, _, err := runPlan(t, plan, nil, Options{})
	if err == nil || !strings.Contains(err.Error(), "performance_schema=ON") || !strings.Contains(err.Error(), "watch.digests") {
		t.Fatalf("run error %v, want one naming performance_schema=ON and watch.digests", err)
	}
}
