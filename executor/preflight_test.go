package executor

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quadrant-bench/quadrant/results"
)

// More threads than the server's max_connections fail the run before setup, with both numbers; an
// iteration whose server_config raises the limit passes.
func TestPreflightConnectionsAndPreparedStatements(t *testing.T) {
	plan := `
version: 1
name: executor-preflight
targets:
  db:
    sandbox:
      config: {max_connections: 20, max_prepared_stmt_count: 100}
setup:
  - sql: "CREATE TABLE IF NOT EXISTS test.setup_ran (id int)"
matrix:
  threads: [4, 30]
iteration:
  workload: {builtin: oltp_read_write, options: {tables: 3, table_size: 10}, threads: "${{ matrix.threads }}", duration: 1s}
`
	run, _, err := runPlan(t, plan, nil, Options{})
	if err == nil {
		t.Fatal("the run started with 30 threads against max_connections 20")
	}
	msg := err.Error()
	t.Log(msg)
	if !strings.Contains(msg, "iteration 2: 30 workload threads + ") || !strings.Contains(msg, "over its max_connections of 20") {
		t.Errorf("error does not name threads and max_connections: %v", err)
	}
	// oltp_read_write prepares 9 statements per table: 4 threads x 27 > 100.
	if !strings.Contains(msg, "iteration 1: 4 threads x 27 prepared statements each") || !strings.Contains(msg, "max_prepared_stmt_count 100") {
		t.Errorf("error does not name the prepared statements and max_prepared_stmt_count: %v", err)
	}
	log, _ := os.ReadFile(filepath.Join(run.Dir, results.LogFile))
	if strings.Contains(string(log), "setup_ran") {
		t.Errorf("setup ran after a failed pre-flight check")
	}
}

// Workers that fail to start are told once per reason with a count.
func TestGroupWorkerErrors(t *testing.T) {
	var errs []error
	for i := range 398 {
		errs = append(errs, fmt.Errorf("oltp_point_select worker %d: connect: Error 1040 (08004): Too many connections", i+1))
	}
	errs = append(errs, fmt.Errorf("oltp_point_select worker 399: connect: dial tcp 127.0.0.1:3306: i/o timeout"),
		fmt.Errorf("oltp_point_select worker 400: connect: Error 1040 (08004): Too many connections"))
	err := groupWorkerErrors(errors.Join(errs...), 400)
	want := "400 of 400 workers could not connect: Error 1040 (08004): Too many connections (x399), dial tcp 127.0.0.1:3306: i/o timeout (x1)"
	if err.Error() != want {
		t.Fatalf("got  %s\nwant %s", err, want)
	}
	if !errors.Is(err, errs[0]) {
		t.Fatal("the grouped error lost the workers' errors")
	}
	single := errors.New("workload interrupted")
	if groupWorkerErrors(single, 4) != single {
		t.Fatal("a single error was changed")
	}
}
