package failover_test

import (
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/executor/step/failover"
	"github.com/quadrant-bench/quadrant/results"
)

// The claim, on real sandboxes and the failover-drill template: with the
// replication link cut a few seconds before a kill -9, asynchronous replication loses
// acknowledged commits (what the primary committed since the cut is on no replica), and
// semi-synchronous replication waiting AFTER_SYNC (its timeout an hour: it never falls
// back) loses none, its commits held until the replica acknowledges them. Three drills
// each; losses are lower bounds only (a drill that commits nothing during the cut would
// lose nothing: the host is slow, not the code wrong, so async must lose in 2 of 3). The
// plan is docs/failover.md's: the template, its drill given a link fault. Its semi-sync half
// is also the template's own claim (its assertion fails an iteration that loses an
// acknowledged commit) under a harsher fault than a bare kill.
func TestLinkCutBeforeAKill(t *testing.T) {
	run := runPlanWithin(t, 15*time.Minute, `version: 1
name: linkcut
extends: builtin:failover-drill
vars:
  replication: [async, semisync]
  repeat: 3
  threads: 2
  duration: 14s
  at: 1s
  lead: 4s
iteration:
  during:
    - at: "${{ vars.at }}"
      failover:
        fault: kill
        lead: "${{ vars.lead }}"
        catchup_timeout: 60s
        link: {cut: true, before: 3s}
`)
	lost := map[string][]float64{}
	for i, it := range run.Info.Iterations {
		if it.Status != results.StatusDone {
			t.Fatalf("iteration %d: %s (%s)", i+1, it.Status, it.Error)
		}
		var names []string
		for _, e := range it.Events {
			names = append(names, e.Name)
		}
		if len(names) == 0 || names[0] != failover.EventLinkFault {
			t.Errorf("iteration %d: events %v, want the link fault first", i+1, names)
		}
	}
	for i := range run.Summary.Rows {
		if run.Summary.Value(i, results.ColTarget) != "primary" {
			continue
		}
		mode := run.Summary.Value(i, "replication")
		n, ok := run.Summary.Float(i, failover.MetricAckedLost)
		acked, _ := run.Summary.Float(i, failover.MetricAcked)
		if !ok || acked == 0 {
			t.Fatalf("row %d (%s): no count of acknowledged ids lost, or none acknowledged (%v)", i+1, mode, acked)
		}
		lost[mode] = append(lost[mode], n)
		t.Logf("row %d: %s: %v of %v acknowledged ids lost; lag at the fault %s rows, %s bytes", i+1, mode, n, acked,
			run.Summary.Value(i, failover.MetricLagRows), run.Summary.Value(i, failover.MetricLagBytes))
	}
	if len(lost["async"]) != 3 || len(lost["semisync"]) != 3 {
		t.Fatalf("drills per mode %v, want 3 each", lost)
	}
	losing := 0
	for _, n := range lost["async"] {
		if n > 0 {
			losing++
		}
	}
	if losing < 2 {
		t.Errorf("async lost acknowledged commits in %d of 3 drills with the link cut before the kill, want at least 2: %v", losing, lost["async"])
	}
	for _, n := range lost["semisync"] {
		if n != 0 {
			t.Errorf("semi-sync AFTER_SYNC lost %v acknowledged commits: %v", n, lost["semisync"])
		}
	}
}
