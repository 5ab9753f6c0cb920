package executor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quadrant-bench/quadrant/results"
)

// A verify: step whose targets return different rows does not fail the plan (the
// difference is in queries.csv); the next one, whose traffic has a malformed record, does,
// naming the step and the file's line.
func TestVerifyStepDifferencesAreNotAFailure(t *testing.T) {
	create := `CREATE DATABASE v; CREATE TABLE v.t (id INT PRIMARY KEY); INSERT INTO v.t VALUES (1), (2)`
	run, _, err := runPlan(t, `
version: 1
name: verify-step
targets:
  a: {sandbox: {}}
  b: {sandbox: {}}
setup:
  - {target: a, sql: "`+create+`, (3)"}
  - {target: b, sql: "`+create+`"}
  - verify: {traffic: reads.sql}
  - verify: {traffic: broken.sql, targets: [b, a]}
iteration:
  target: a
  workload:
    transactions: [{name: one, statements: [{sql: "SELECT 1"}]}]
    events: 1
`, map[string]string{
		"reads.sql":  "SELECT COUNT(*) FROM v.t;\nSELECT id FROM v.t WHERE id = 1;\n",
		"broken.sql": "SELECT 1;\nSELECT 'unterminated;\n",
	}, Options{})
	if err == nil || !strings.Contains(err.Error(), "setup: verify (") || !strings.Contains(err.Error(), "verify broken.sql: ") {
		t.Fatalf("run error %v; want the second verify step's, naming it and its traffic", err)
	}
	t.Logf("run error: %v", err)
	rows, rerr := results.ReadQueries(run.Dir)
	if rerr != nil {
		t.Fatal(rerr)
	}
	if len(rows) != 2 {
		t.Fatalf("%d rows in queries.csv, want the first step's 2: %+v", len(rows), rows)
	}
	for _, r := range rows {
		want := results.VerifySame
		if strings.Contains(r.Fingerprint, "count(*)") {
			want = results.VerifyDifferent
		}
		if r.Target != "b" || r.Results != want {
			t.Errorf("%s: target %s, results %s; want b, %s", r.Fingerprint, r.Target, r.Results, want)
		}
	}
	log, _ := os.ReadFile(filepath.Join(run.Dir, results.LogFile))
	if !strings.Contains(string(log), "verify: 2 fingerprints (2 statements), 1 differ, ") {
		t.Errorf("log.txt lacks the first step's result:\n%s", log)
	}
}
