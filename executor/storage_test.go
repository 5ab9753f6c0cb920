package executor

import (
	"errors"
	"fmt"
	"github.com/quadrant-bench/quadrant/spec/trust"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
	"github.com/quadrant-bench/quadrant/results"
)

// shmDir is a directory on /dev/shm the sandbox's server user can enter, removed after the test.
func shmDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("/dev/shm", "quadrant-test-")
	if err != nil {
		t.Skipf("no /dev/shm: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o711); err != nil {
		t.Fatal(err)
	}
	return dir
}

// The storage under test as a matrix axis: the sandbox starts on the first cell's storage and
// moves, data included (the workload reads the tables setup prepared), once when the value
// changes, not between the repeats of a cell; run.json says where each iteration's data was.
func TestSandboxDirMatrixMovesOncePerChange(t *testing.T) {
	shm, disk := shmDir(t), sandboxtest.Dir(t)
	plan := fmt.Sprintf(`
version: 1
name: storage
matrix:
  storage: [%s, %s]
repeat: 2
order: sequential
targets:
  db:
    sandbox:
      dir: "${{ matrix.storage }}"
setup:
  - workload: {builtin: oltp_point_select, action: prepare, options: {tables: 1, table_size: 100}}
iteration:
  workload:
    builtin: oltp_point_select
    options: {tables: 1, table_size: 100}
    duration: 1s
  assert: ["transactions > 0"]
`, shm, disk)
	run, out, err := runPlan(t, plan, nil, Options{Allow: trust.Allow{Paths: []string{shm, disk}}}) // storage outside the plan's folder, as --allow-path gives it
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if out.Status != results.StatusDone {
		t.Fatalf("outcome %+v; iterations %+v", out, run.Info.Iterations)
	}
	want := []string{shm, shm, disk, disk}
	if len(run.Info.Iterations) != len(want) {
		t.Fatalf("%d iterations, want %d", len(run.Info.Iterations), len(want))
	}
	for i, it := range run.Info.Iterations {
		if len(it.Storage) != 1 {
			t.Fatalf("iteration %d storage %+v, want the one sandbox", it.Index, it.Storage)
		}
		st := it.Storage[0]
		if st.Target != "db" || !strings.HasPrefix(st.DataDir, want[i]+"/") || filepath.Base(st.DataDir) != "data" {
			t.Fatalf("iteration %d: data directory %s, want one under %s", it.Index, st.DataDir, want[i])
		}
		if st.Filesystem == "" || st.Device == "" || st.FreeBytes == 0 {
			t.Fatalf("iteration %d: filesystem not recorded: %+v", it.Index, st)
		}
		if (want[i] == shm) != (st.Filesystem == "tmpfs") {
			t.Fatalf("iteration %d: %s is on %s", it.Index, st.DataDir, st.Filesystem)
		}
	}
	log, err := os.ReadFile(filepath.Join(run.Dir, "log.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(log), "moving sandbox db"); n != 1 {
		t.Fatalf("the sandbox moved %d times, want once (one change of storage):\n%s", n, log)
	}
	if entries, _ := filepath.Glob(filepath.Join(shm, "quadrant-*")); len(entries) != 0 {
		t.Fatalf("the move left %v behind on the first storage", entries)
	}
}

// Names the server does not have are found before setup runs, all of them at once, each
// with the server's closest name: watch.status, then what assertions read.
func TestUnknownStatusNamesBeforeSetup(t *testing.T) {
	for _, c := range []struct {
		name, extra string
		want        []string
	}{
		{"watch.status", `watch: {status: [Com_selct, Innodb_data_fsync, Com_select]}`,
			[]string{`"Com_selct" (did you mean "Com_select"?)`, `"Innodb_data_fsync" (did you mean "Innodb_data_fsyncs"?)`}},
		{"assert", `  assert: ["status.Innodb_data_fsync > 0", "status.Com_selct >= 0"]`,
			[]string{`status.Innodb_data_fsync is not a watched column of target db`, `did you mean "Innodb_data_fsyncs"?`,
				`status.Com_selct is not a watched column of target db`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			plan := `
version: 1
name: unknown-status
targets: {db: {sandbox: {}}}
setup:
  - sql: "CREATE DATABASE setup_ran"
iteration:
  workload: {builtin: oltp_point_select, options: {tables: 1, table_size: 10}, duration: 1s}
` + c.extra + "\n"
			run, _, err := runPlan(t, plan, nil, Options{})
			if err == nil {
				t.Fatal("the run went on")
			}
			if !errors.As(err, new(*PlanError)) {
				t.Errorf("%T is not a PlanError: the CLI would not exit 2 for it", err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %s:\n%v", w, err)
				}
			}
			if run.Info.Status != results.StatusError || run.Info.Iterations[0].Status != "pending" || len(run.Summary.Rows) != 0 {
				t.Errorf("status %s, iteration %s, %d summary rows", run.Info.Status, run.Info.Iterations[0].Status, len(run.Summary.Rows))
			}
			log, _ := os.ReadFile(filepath.Join(run.Dir, "log.txt"))
			if strings.Contains(string(log), "setup_ran") {
				t.Errorf("setup ran:\n%s", log)
			}
		})
	}
}
