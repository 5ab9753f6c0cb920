package failover_test

import (
	"slices"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/executor/step/failover"
	"github.com/quadrant-bench/quadrant/results"
)

// A Galera drill as a during: step of a real run, the plan as a DBA writes it: node 1, the
// target the workload writes through, killed; the workload's connections fail until it is
// back (reconnects), its figures are summary.csv columns the plan's assertions read, the
// moments are run.json's events in order, the ids behind the counts are in the folder, and
// an after: step finds every node Synced in a cluster of three.
func TestGaleraDrillDuringAWorkload(t *testing.T) {
	run := runPlanWithin(t, 8*time.Minute, `version: 1
name: galera-drill
targets:
  db: {sandbox: {galera: 3}}
setup:
  - sql: "CREATE DATABASE IF NOT EXISTS bench; CREATE TABLE bench.t (id BIGINT PRIMARY KEY)"
iteration:
  workload:
    transactions:
      - name: ins
        statements:
          - sql: "INSERT IGNORE INTO bench.t VALUES (?)"
            args: ["seq()"]
    threads: 2
    duration: 50s
    on_error: {reconnect: [2013, 2006, 2003, 1047, 1927, 1053]}
  during:
    - at: 2s
      failover: {fault: kill, lead: 1s, down: 2s}
  after:
    - sql: "SELECT IF((SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'wsrep_cluster_size') = 3, 1, (SELECT 1 UNION SELECT 2))"
      target: db_node2
  assert:
    - "failover_acked > 0 && failover_acked_lost == 0 && failover_rejoin_s > 0 && failover_primary_s > 0"
    - "failover_unavailable_s >= 2 && reconnects > 0"
`)
	it := run.Info.Iterations[0]
	if it.Status != results.StatusDone {
		t.Fatalf("iteration: %s (%s)", it.Status, it.Error)
	}
	var names []string
	for _, e := range it.Events {
		names = append(names, e.Name)
	}
	want := []string{failover.EventFault, failover.EventPrimary, failover.EventRejoined, failover.EventFirstCommit}
	if !slices.Equal(names, want) {
		t.Errorf("events %v, want %v", names, want)
	}
	for _, col := range []string{failover.MetricPrimary, failover.MetricRejoin, failover.MetricSST, failover.MetricUnavailable, failover.MetricTPSBefore} {
		v, ok := run.Summary.Float(0, col)
		if !ok {
			t.Errorf("summary.csv has no %s", col)
		}
		t.Logf("%s = %v", col, v)
	}
	checkIDs(t, run)
}
