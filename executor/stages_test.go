package executor

import (
	"math"
	"testing"

	"github.com/quadrant-bench/quadrant/results"
)

// A closed-loop load shape climbs 1 -> 3 threads in steps, an open-loop one (on the one
// connection threads defaults to) 50 -> 200 events/s: the time series says each interval's stage and threads, summary.csv has the
// iteration's row and one per stage, and the stages add up to the iteration.
func TestStages(t *testing.T) {
	plan := `
version: 1
name: stages
targets:
  db:
    sandbox:
      config: {innodb_buffer_pool_size: 64M}
setup:
  - workload: {builtin: oltp_point_select, action: prepare, options: {tables: 1, table_size: 1000}}
matrix:
  shape: [closed, open]
iteration:
  workload:
    builtin: oltp_point_select
    options: {tables: 1, table_size: 1000}
    warmup: 1s
    stages: "${{ matrix.shape == 'open' ? [{duration: '2s', rate: 50}, {duration: '2s', rate: 200}] : [{duration: '2s', threads: 1}, {duration: '2s', threads: 3}] }}"
  assert: ["tps > 0"]
`
	run, out, err := runPlan(t, plan, nil, Options{})
	if err != nil || out.Status != results.StatusDone {
		t.Fatalf("run: %v, outcome %+v", err, out)
	}
	S, St := run.Summary, run.Stages
	if len(S.Rows) != 2 || len(St.Rows) != 4 {
		t.Fatalf("summary: %d iteration rows, %d stage rows; want 2 and 4\n%v\n%v", len(S.Rows), len(St.Rows), S.Rows, St.Rows)
	}
	for i := range S.Rows {
		iteration := S.Value(i, "iteration")
		var sum, secs float64
		var tps []float64
		for j := range St.Rows {
			if St.Value(j, "iteration") != iteration {
				continue
			}
			if want := []string{"1", "2"}[len(tps)]; St.Value(j, "stage") != want {
				t.Fatalf("iteration %s: stage rows out of order: %v", iteration, St.Rows)
			}
			// The stage's level as the plan gives it: what the report's knee is drawn against.
			level := St.Value(j, "threads") + "/" + St.Value(j, "rate")
			if want := map[string][]string{"open": {"/50", "/200"}, "closed": {"1/", "3/"}}[S.Value(i, "shape")][len(tps)]; level != want {
				t.Errorf("iteration %s (%s) stage %s: threads/rate %q, want %q", iteration, S.Value(i, "shape"), St.Value(j, "stage"), level, want)
			}
			sum += col(t, St, j, "transactions")
			tps = append(tps, col(t, St, j, "tps"))
			secs += col(t, St, j, "duration_s")
			// What a transaction cost the client and the server, at this stage's level.
			if v := col(t, St, j, "cost.client_cpu_us"); v <= 0 {
				t.Fatalf("iteration %s stage %s: cost.client_cpu_us %v", iteration, St.Value(j, "stage"), v)
			}
			if v := col(t, St, j, "cost.server_cpu_us"); v <= 0 {
				t.Fatalf("iteration %s stage %s: cost.server_cpu_us %v", iteration, St.Value(j, "stage"), v)
			}
		}
		if total := col(t, S, i, "transactions"); len(tps) != 2 || sum != total {
			t.Fatalf("iteration %s: stages have %v transactions, the iteration %v", iteration, sum, total)
		}
		// The stages follow each other: their lengths add up to the measured part's.
		if d := col(t, S, i, "duration_s"); math.Abs(secs-d) > 0.0025 {
			t.Fatalf("iteration %s: stages last %vs, the iteration %vs", iteration, secs, d)
		}
		if S.Value(i, "shape") == "open" && !(tps[1] > tps[0]) {
			t.Fatalf("open loop: stage tps %v, want the 200/s stage above the 50/s one", tps)
		}
	}
	ts := run.Timeseries["db"]
	var stages []string
	for i := range ts.Rows {
		if ts.Value(i, "iteration") != "1" {
			continue
		}
		stage, threads := ts.Value(i, "stage"), ts.Value(i, "threads")
		stages = append(stages, stage)
		if ts.Value(i, "warmup") == "1" && stage != "" || stage == "1" && threads != "1" || stage == "2" && threads != "3" {
			t.Fatalf("closed loop row %d: warmup %s stage %q threads %s", i, ts.Value(i, "warmup"), stage, threads)
		}
	}
	if len(stages) != 5 || stages[0] != "" || stages[1] != "1" || stages[2] != "1" || stages[3] != "2" || stages[4] != "2" {
		t.Fatalf("closed loop stages by interval %q, want warmup then 1 1 2 2", stages)
	}
}
