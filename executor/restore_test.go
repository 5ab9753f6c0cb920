package executor

import (
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quadrant-bench/quadrant/results"
)

// savedValue is the last column of the first row of a save_as result set of iteration i.
func savedValue(t *testing.T, run *results.Run, name string, i int) string {
	t.Helper()
	f, err := os.Open(filepath.Join(run.Dir, results.SavedDir, fmt.Sprintf("%s-iteration-%d.csv", name, i)))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) < 2 {
		t.Fatalf("saved %s of iteration %d: %v %v", name, i, rows, err)
	}
	return rows[1][len(rows[1])-1]
}

// Two settings x two repeats of a write workload with restore: setup: every iteration starts
// from the table setup loaded (the same CHECKSUM TABLE before each workload), though each
// workload changed it (the checksum after it differs), and each iteration runs with its
// own server_config, applied after the restore.
func TestRestoreSetupStartsEveryIterationFromTheSameData(t *testing.T) {
	var rows []string
	for i := 1; i <= 200; i++ {
		rows = append(rows, fmt.Sprintf("(%d, %d)", i, i))
	}
	plan := `
version: 1
name: restore
targets:
  db:
    sandbox: {config: {innodb_buffer_pool_size: 64M}}
setup:
  - sql: "CREATE DATABASE app; CREATE TABLE app.t (id INT PRIMARY KEY, v INT NOT NULL); INSERT INTO app.t VALUES ` + strings.Join(rows, ", ") + `"
matrix:
  flush: [1, 2]
repeat: 2
iteration:
  restore: setup
  server_config: {innodb_flush_log_at_trx_commit: "${{ matrix.flush }}"}
  before:
    - {sql: "CHECKSUM TABLE app.t", save_as: start}
    - {sql: "SELECT @@GLOBAL.innodb_flush_log_at_trx_commit AS flush", save_as: flush}
  workload:
    events: 100
    transactions:
      - name: write
        statements:
          - {sql: "UPDATE app.t SET v = v + 1 WHERE id = ?", args: ["rand_int(1, 200)"]}
          - {sql: "INSERT INTO app.t (id, v) VALUES (?, 0) ON DUPLICATE KEY UPDATE v = v + 7", args: ["rand_int(150, 400)"]}
  after:
    - {sql: "CHECKSUM TABLE app.t", save_as: end}
`
	run, out, err := runPlan(t, plan, nil, Options{})
	requireDone(t, run, out, err, 4)
	first := savedValue(t, run, "start", 1)
	for i := 1; i <= 4; i++ {
		start, end := savedValue(t, run, "start", i), savedValue(t, run, "end", i)
		if start != first {
			t.Errorf("iteration %d started from checksum %s, iteration 1 from %s: not the data setup left", i, start, first)
		}
		if end == start {
			t.Errorf("iteration %d: the workload left checksum %s unchanged: the test cannot tell a restore", i, end)
		}
		it := run.Info.Iterations[i-1]
		if want := fmt.Sprint(it.Matrix[0].Value); savedValue(t, run, "flush", i) != want {
			t.Errorf("iteration %d ran with innodb_flush_log_at_trx_commit %s, its server_config says %s", i, savedValue(t, run, "flush", i), want)
		}
		switch {
		case i == 1 && len(it.Restore) != 0:
			t.Errorf("iteration 1 restored %+v: it starts from setup's end as it is", it.Restore)
		case i > 1 && (len(it.Restore) != 1 || it.Restore[0].Target != "db" || it.Restore[0].Bytes <= 0 || it.Restore[0].Method == ""):
			t.Errorf("iteration %d: run.json restore %+v, want sandbox db's with its method and bytes", i, it.Restore)
		}
	}
	if len(run.Info.Snapshots) != 1 || run.Info.Snapshots[0].Target != "db" || run.Info.Snapshots[0].Bytes <= 0 {
		t.Errorf("run.json snapshots %+v, want sandbox db's copy", run.Info.Snapshots)
	}
	log, err := os.ReadFile(filepath.Join(run.Dir, "log.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(log), "restore: sandbox db back:"); n != 3 {
		t.Errorf("log.txt says %d restores, want 3 (before iterations 2 to 4):\n%s", n, log)
	}
}
