package failover_test

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/executor"
	"github.com/quadrant-bench/quadrant/executor/kinds"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
	"github.com/quadrant-bench/quadrant/executor/step/failover"
	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/spec"
	"github.com/quadrant-bench/quadrant/spec/trust"
)

// runPlan runs plan (a file in a new folder) and loads its results folder.
func runPlan(t *testing.T, plan string, set ...string) *results.Run {
	t.Helper()
	return runWithin(t, 5*time.Minute, plan, trust.Allow{}, set...)
}

// runPlanWithin is runPlan for a plan that may take up to limit.
func runPlanWithin(t *testing.T, limit time.Duration, plan string, set ...string) *results.Run {
	t.Helper()
	return runWithin(t, limit, plan, trust.Allow{}, set...)
}

// runAllowed is runPlan with what the command line would allow (--allow-shell).
func runAllowed(t *testing.T, plan string, allow trust.Allow, set ...string) *results.Run {
	t.Helper()
	return runWithin(t, 5*time.Minute, plan, allow, set...)
}

// runWithin runs plan with what allow allows, for up to limit.
func runWithin(t *testing.T, limit time.Duration, plan string, allow trust.Allow, set ...string) *results.Run {
	t.Helper()
	sandboxtest.SkipShort(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "plan.yaml")
	if err := os.WriteFile(path, []byte(plan), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := spec.Load(path, spec.Options{Kinds: kinds.Registry(), Set: set})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "results")
	w, err := results.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	yaml, _ := p.Redacted()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	_, runErr := executor.Run(ctx, p, w, executor.Options{PlanYAML: yaml, Version: "test", SandboxDir: sandboxtest.Dir(t), Allow: allow})
	w.Close()
	if log, err := os.ReadFile(filepath.Join(out, results.LogFile)); err == nil {
		t.Logf("log.txt:\n%s", log)
	}
	if runErr != nil {
		t.Fatalf("run: %v", runErr)
	}
	run, err := results.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// The drill must end before the workload (a during: step still running is cancelled then):
// a short lead keeps the replica's backlog, which it applies before its promotion, small on
// a loaded machine.

// A drill as a during: step of a real run: the workload connects through the front,
// goes on on the promoted replica after a partition (its connections reconnect, counted),
// and the drill's figures are summary.csv columns the plan's assertions read. The second
// iteration, a switchover, starts from the cluster restore: put back (the replica
// replicating from the primary directly again) and the front on its primary again; the
// third cuts the primary off from its replica only, the clients following the front to the
// promoted one. A kill runs in the template's test, a kill behind a cut link in
// TestLinkCutBeforeAKill.
func TestDrillDuringAWorkload(t *testing.T) {
	run := runPlan(t, `version: 1
name: drill
targets:
  db: {sandbox: {replicas: 1}}
setup:
  - sql: "CREATE DATABASE IF NOT EXISTS bench; CREATE TABLE bench.t (id BIGINT PRIMARY KEY)"
matrix:
  fault: [partition, switchover, partition_replicas]
iteration:
  restore: setup
  workload:
    transactions:
      - name: ins
        statements:
          - sql: "INSERT IGNORE INTO bench.t VALUES (?)"
            args: ["seq()"]
    threads: 2
    duration: 8s
    on_error: {reconnect: [2013, 2006, 2003]}
  during:
    - at: 1s
      failover: {fault: "${{ matrix.fault }}", lead: 500ms, writers: 1}
  assert:
    - "failover_acked > 0 && failover_unavailable_s > 0 && reconnects > 0"
    # a planned switchover waits for the replica: it loses nothing
    - "matrix.fault != 'switchover' || failover_acked_lost == 0"
`)
	for i, it := range run.Info.Iterations {
		if it.Status != results.StatusDone {
			t.Fatalf("iteration %d: %s (%s)", i+1, it.Status, it.Error)
		}
	}
	checkEvents(t, run)
	// Throughput may not be back to 90% before the workload ends on a loaded host (then the
	// figure is missing); when it is, it comes after the first commit, with the cut's errors.
	for i := range run.Summary.Rows {
		if run.Summary.Value(i, results.ColTarget) != "db" {
			continue
		}
		rec, ok := run.Summary.Float(i, failover.MetricRecovery)
		if !ok {
			t.Logf("summary row %d: throughput not back before the workload ended", i+1)
			continue
		}
		unavail, _ := run.Summary.Float(i, failover.MetricUnavailable)
		errs, _ := run.Summary.Float(i, failover.MetricErrors)
		if rec < unavail || errs == 0 {
			t.Errorf("summary row %d: back to full throughput %.2fs after the fault, before its first commit (%.2fs), or with no error (%v)", i+1, rec, unavail, errs)
		}
	}
	for _, col := range []string{"failover_unavailable_s", "failover_acked", "failover_acked_lost", "failover_unacked_present", "failover_lag_s", "failover_catchup_s"} {
		if _, ok := run.Summary.Float(0, col); !ok {
			t.Errorf("summary.csv has no %s", col)
		}
	}
	// run.json describes the drill's figures: the report and compare lead with them.
	for _, m := range []string{"failover_tps_before", "failover_unavailable_s", "failover_acked_lost"} {
		if !slices.Contains(run.Headline(), m) {
			t.Errorf("headline %v lacks %s", run.Headline(), m)
		}
	}
	checkIDs(t, run)
	// The workload wrote on the new primary: its last interval committed.
	ts := run.Timeseries["db"]
	if ts == nil || len(ts.Rows) == 0 {
		t.Fatal("no time series for db")
	}
	if n, ok := ts.Float(len(ts.Rows)-1, "tps"); !ok || n == 0 {
		t.Errorf("last interval: %v tps, want some: the workload did not follow the primary", n)
	}
	checkSamplersFollow(t, run)
}

// checkSamplersFollow: the target's watched columns follow its primary as the workload does:
// each iteration's last interval on db counts the inserts of the workload, now on the promoted
// replica (the old primary, partitioned or switched away from, has none).
func checkSamplersFollow(t *testing.T, run *results.Run) {
	t.Helper()
	ts := run.Timeseries["db"]
	last := map[string]int{}
	for i := range ts.Rows {
		last[ts.Value(i, results.ColIteration)] = i
	}
	for it, i := range last {
		if n, ok := ts.Float(i, "status.Com_insert"); !ok || n <= 0 {
			t.Errorf("iteration %s: db's last interval has status.Com_insert %q: its samplers read the old primary, not the one the workload writes to", it, ts.Value(i, "status.Com_insert"))
		}
	}
}

// checkEvents: each iteration's run.json marks the fault, the promotion and the first commit,
// in that order, inside its measured part (after it began: the step's at: 1s and lead are
// from the workload's launch, which its connections delay a little; before its last interval
// ended), for the report's over-time charts.
func checkEvents(t *testing.T, run *results.Run) {
	t.Helper()
	ts := run.Timeseries["db"]
	if ts == nil || len(ts.Rows) == 0 {
		t.Fatal("no time series for db")
	}
	for i, it := range run.Info.Iterations {
		var names []string
		for _, e := range it.Events {
			names = append(names, e.Name)
		}
		want := []string{failover.EventFault, failover.EventPromoted, failover.EventFirstCommit}
		if !slices.Equal(names, want) {
			t.Errorf("iteration %d: events %v, want %v", i+1, names, want)
			continue
		}
		if e := it.Events; e[0].AtS <= 0 || e[1].AtS < e[0].AtS || e[2].AtS < e[1].AtS {
			t.Errorf("iteration %d: events %+v: the fault before the measured part began, or out of order", i+1, e)
		}
		if end, ok := ts.Float(len(ts.Rows)-1, "elapsed_s"); ok && it.Events[2].AtS > end {
			t.Errorf("iteration %d: first commit at %.2fs, after the measured part ended (%.2fs)", i+1, it.Events[2].AtS, end)
		}
	}
}

// checkIDs: the folder keeps the ids behind each iteration's acknowledged and lost counts
// (ids/METRIC-iteration-N.txt), as many as summary.csv says, and run.json marks what a drill
// came to (Outcome) and which count is a loss (Loss), for the console and the report.
func checkIDs(t *testing.T, run *results.Run) {
	t.Helper()
	for i := range run.Summary.Rows {
		if run.Summary.Value(i, results.ColTarget) != "db" {
			continue
		}
		it, _ := strconv.Atoi(run.Summary.Value(i, results.ColIteration))
		for _, m := range []string{failover.MetricAcked, failover.MetricAckedLost} {
			want, _ := run.Summary.Float(i, m)
			rs, err := results.ReadIDs(run.Dir, m, it)
			if err != nil || float64(results.CountIDs(rs)) != want {
				t.Errorf("iteration %d: %s file: %d ids (%v), summary.csv says %v", it, m, results.CountIDs(rs), err, want)
			}
		}
	}
	marked := map[string]string{}
	for _, mi := range run.Info.Metrics {
		if mi.Outcome {
			marked[mi.Name] += "outcome"
		}
		if mi.Loss != "" {
			marked[mi.Name] += "+" + mi.Loss
		}
	}
	want := map[string]string{failover.MetricUnavailable: "outcome", failover.MetricAckedLost: "outcome+lost acknowledged commits", failover.MetricRecovery: "outcome"}
	if !maps.Equal(marked, want) {
		t.Errorf("run.json marks %v, want %v", marked, want)
	}
}
