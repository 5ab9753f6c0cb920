package failover_test

import (
	"fmt"
	"slices"
	"strings"
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
//
// The drill must end inside the workload (a during: step still running then is cancelled).
// A killed node rejoins in 9 to 16 s on a quiet host; on a busy one (a make test-busy round
// beside another Galera cluster) it was not back 49 s after the kill, and the run said so
// ("cut short"): the case then runs again with a workload three times as long rather than
// fail on the host's speed.
func TestGaleraDrillDuringAWorkload(t *testing.T) {
	duration := 50 * time.Second
	for attempt := 1; ; attempt++ {
		run := runPlanWithin(t, 6*time.Minute+2*duration, fmt.Sprintf(galeraDrillPlan, duration))
		if attempt == 1 && cutShort(run) {
			duration *= 3
			t.Logf("the drill was cut short by the workload's end (the node rejoined late: a busy host); again with a %s workload", duration)
			continue
		}
		checkGaleraDrillRun(t, run)
		return
	}
}

// cutShort says whether a during: step of the first iteration was still running when its
// workload ended (the run's warning).
func cutShort(run *results.Run) bool {
	for _, w := range run.Info.Iterations[0].Warnings {
		if strings.Contains(w, "cut short") {
			return true
		}
	}
	return false
}

const galeraDrillPlan = `version: 1
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
    duration: %s
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
`

func checkGaleraDrillRun(t *testing.T, run *results.Run) {
	t.Helper()
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
