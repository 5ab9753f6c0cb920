package executor

import (
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

// On MariaDB the prepared statements' poll of a digests watch holds one control connection
// more during the workload: the pre-flight counts it.
func TestPreflightCountsThePreparedPoll(t *testing.T) {
	plan := func(watch string) string {
		return `
version: 1
name: executor-preflight-poll
targets:
  db:
    sandbox:
      config: {max_connections: 20}
` + watch + `
iteration:
  workload: {transactions: [{name: a, statements: [{sql: "SELECT 1"}]}], threads: 30, duration: 1s}
`
	}
	others := func(watch string) string {
		_, _, err := runPlan(t, plan(watch), nil, Options{})
		if err == nil {
			t.Fatal("the run started with 30 threads against max_connections 20")
		}
		_, rest, _ := strings.Cut(err.Error(), "30 workload threads + ")
		n, _, _ := strings.Cut(rest, " ")
		return n
	}
	without, with := others(""), others("watch: {digests: {}}")
	if without == "" || with == "" || with == without {
		t.Errorf("other connections: %q without digests, %q with them; want one more with", without, with)
	}
}
