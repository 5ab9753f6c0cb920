package executor

import (
	"context"
	"strings"
	"time"

	"github.com/quadrant-bench/quadrant/executor/watch/mysqlwatch"
	"github.com/quadrant-bench/quadrant/results"
)

// evidence is the performance_schema snapshot taken as an iteration's workload starts.
type evidence struct {
	digests  map[string]mysqlwatch.DigestStats
	waits    map[string]mysqlwatch.WaitStats
	executes float64 // prepared statement executions, which MariaDB does not digest
}

// evidenceBefore snapshots digests and waits on the workload's target, when the plan asks for them. A failed
// read is a warning: the iteration's measurements do not depend on it.
func (x *iteration) evidenceBefore(ctx context.Context, s *liveTarget) *evidence {
	wp := x.r.plan.Watch
	if wp.Digests == nil && wp.Waits == nil || !x.r.leader() {
		return nil // a sharded run's evidence is the leader's, as its watchers are
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	ev := &evidence{}
	var err error
	if wp.Digests != nil {
		if ev.digests, err = mysqlwatch.Digests(ctx, s.db); err != nil {
			x.r.logf("warning: iteration %d: %s: digests at the start: %v (no digests.csv rows for this iteration)", x.it.Index, s.Name(), err)
		}
		ev.executes, _ = mysqlwatch.PreparedExecutions(ctx, s.db)
	}
	if wp.Waits != nil {
		if ev.waits, err = mysqlwatch.Waits(ctx, s.db); err != nil {
			x.r.logf("warning: iteration %d: %s: waits at the start: %v (no waits.csv rows for this iteration)", x.it.Index, s.Name(), err)
		}
	}
	return ev
}

// evidenceAfter snapshots again and writes the top digests and waits over the workload. The span includes
// the warmup: performance_schema cannot be read at the warmup's end without a pause in the load.
func (x *iteration) evidenceAfter(ctx context.Context, s *liveTarget, ev *evidence) {
	if ev == nil {
		return
	}
	// The run's context may be cancelled (an interrupt): what was measured is still worth keeping.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	wp := x.r.plan.Watch
	if ev.digests != nil {
		after, err := mysqlwatch.Digests(ctx, s.db)
		if err != nil {
			x.r.logf("warning: iteration %d: %s: digests at the end: %v", x.it.Index, s.Name(), err)
		} else {
			var rows []results.DigestRow
			for i, d := range mysqlwatch.TopDigests(ev.digests, after, wp.Digests.Top) {
				rows = append(rows, results.DigestRow{
					Iteration: x.it.Index, Target: s.Name(), Rank: i + 1, Schema: x.r.log.redact(d.Schema), Digest: d.Digest, Text: x.r.log.redact(d.Text),
					Count: int64(d.Count), TotalMs: d.TimerPs / 1e9, AvgMs: d.TimerPs / 1e9 / d.Count,
					RowsExamined: int64(d.RowsExamined), RowsSent: int64(d.RowsSent), NoIndexUsed: int64(d.NoIndexUsed),
					NoGoodIndexUsed: int64(d.NoGoodIndexUsed), Errors: int64(d.Errors),
				})
			}
			if err := x.r.out.AppendDigests(rows); err != nil {
				x.r.resultsFailed(err)
			}
			if n, err := mysqlwatch.PreparedExecutions(ctx, s.db); err == nil && n-ev.executes > 0 && strings.Contains(s.info.Flavor, "MariaDB") {
				x.r.logf("warning: iteration %d: %s: %.0f prepared statement executions are not in digests.csv: MariaDB's performance_schema does not digest them; the workload option ps_mode: disable sends the same statements as text, which it digests", x.it.Index, s.Name(), n-ev.executes)
			}
		}
	}
	if ev.waits != nil {
		after, err := mysqlwatch.Waits(ctx, s.db)
		if err != nil {
			x.r.logf("warning: iteration %d: %s: waits at the end: %v", x.it.Index, s.Name(), err)
		} else {
			var rows []results.WaitRow
			for i, w := range mysqlwatch.TopWaits(ev.waits, after, wp.Waits.Top) {
				rows = append(rows, results.WaitRow{
					Iteration: x.it.Index, Target: s.Name(), Rank: i + 1, Event: w.Event,
					Count: int64(w.Count), TotalMs: w.TimerPs / 1e9, AvgUs: w.TimerPs / 1e6 / w.Count,
				})
			}
			if err := x.r.out.AppendWaits(rows); err != nil {
				x.r.resultsFailed(err)
			}
		}
	}
}
