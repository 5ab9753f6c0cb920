package executor

import (
	"testing"
)

// TestCaptureStepThenReplay: a capture: step records what its while: workload runs on one
// sandbox, and each iteration replays the capture on another, per session, from the data the
// capture started from (restored: the replay checks it before sending): every statement
// succeeds, the replay counts what was captured, it ends as the capture did, and
// fingerprints.csv and replay.csv say so.
func TestCaptureStepThenReplay(t *testing.T) {
	run, out, err := runPlan(t, `
version: 1
name: capture-replay
targets:
  source: {sandbox: {}}
  candidate: {sandbox: {}}
setup:
  - {target: source, sql: "CREATE DATABASE shop; CREATE TABLE shop.t (id INT PRIMARY KEY, v INT); INSERT INTO shop.t VALUES (1, 0), (2, 0), (3, 0)"}
  - {target: candidate, sql: "CREATE DATABASE shop; CREATE TABLE shop.t (id INT PRIMARY KEY, v INT); INSERT INTO shop.t VALUES (1, 0), (2, 0), (3, 0)"}
  - target: source
    capture:
      out: traffic.qcap
      duration: 4s
      while:
        transactions:
          - name: touch
            statements:
              - {sql: "SELECT v FROM shop.t WHERE id = ?", args: ["rand_int(1, 3)"]}
              - {sql: "UPDATE shop.t SET v = v + 1 WHERE id = ?", args: ["rand_int(1, 3)"]}
        threads: 2
        events: 200
matrix:
  speed: [1, 2]
iteration:
  target: candidate
  restore: {targets: [candidate]}
  workload:
    replay: {file: traffic.qcap, timing: original, speed: "${{ matrix.speed }}"}
  assert: ["errors == 0"]
`, nil, Options{})
	requireDone(t, run, out, err, 2)
	if len(run.Table("replay.csv").Rows) != 2 {
		t.Fatalf("replay.csv rows %v", run.Table("replay.csv").Rows)
	}
	for i := range run.Table("replay.csv").Rows {
		captured, replayed := run.Table("replay.csv").Value(i, "statements_captured"), run.Table("replay.csv").Value(i, "statements_replayed")
		// 200 transactions of a SELECT and an UPDATE on 2 connections, autocommit.
		if captured != "400" || replayed != "400" || run.Table("replay.csv").Value(i, "sessions_replayed") != "2" || run.Table("replay.csv").Value(i, "errors") != "0" ||
			run.Table("replay.csv").Value(i, "end_state") != "same" {
			t.Errorf("iteration %s: %v", run.Table("replay.csv").Value(i, "iteration"), run.Table("replay.csv").Rows[i])
		}
	}
	counts := map[string]string{}
	for i := range run.Table("fingerprints.csv").Rows {
		counts[run.Table("fingerprints.csv").Value(i, "fingerprint")] = run.Table("fingerprints.csv").Value(i, "count")
	}
	if counts["select v from shop.t where id=?"] != "200" || counts["update shop.t set v=v + ? where id=?"] != "200" {
		t.Errorf("fingerprints %v", counts)
	}
}
