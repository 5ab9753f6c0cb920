package executor

import (
	"context"
	"fmt"
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
	prepared *mysqlwatch.PreparedPoll
}

// preparedPollEvery is how often MariaDB's prepared_statements_instances is read during the workload:
// its rows go when their connections close, before the end's snapshot.
const preparedPollEvery = time.Second

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
		// MySQL 8 digests COM_STMT_EXECUTE itself: polling there would count executions twice.
		if ev.digests != nil && strings.Contains(s.info.Flavor, "MariaDB") {
			if ev.prepared, err = mysqlwatch.StartPreparedPoll(context.WithoutCancel(ctx), s.db, preparedPollEvery); err != nil {
				x.r.logf("warning: iteration %d: %s: prepared statements: %v (digests.csv will not have them)", x.it.Index, s.Name(), err)
			}
		}
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
	defer func() {
		if ev.prepared != nil { // the end's digests failed: only stop the poll
			ev.prepared.Stop(ctx)
		}
	}()
	wp := x.r.plan.Watch
	if ev.digests != nil {
		after, err := mysqlwatch.Digests(ctx, s.db)
		if err != nil {
			x.r.logf("warning: iteration %d: %s: digests at the end: %v", x.it.Index, s.Name(), err)
		} else {
			x.addPrepared(ctx, s, ev, after)
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

// addPrepared stops the prepared-statement poll and adds its per-class sums to the end's digests, then
// says how many of the server's prepared executions (statement/com/Execute) they cover: those after an
// instance's last poll, on a connection that closed, are not seen.
func (x *iteration) addPrepared(ctx context.Context, s *liveTarget, ev *evidence, after map[string]mysqlwatch.DigestStats) {
	if ev.prepared == nil {
		return
	}
	sums, seen, polls, err := ev.prepared.Stop(ctx)
	ev.prepared = nil
	if err != nil {
		x.r.logf("warning: iteration %d: %s: prepared statements: %v (digests.csv has what the other polls saw)", x.it.Index, s.Name(), err)
	}
	for k, d := range sums {
		after[k] = d
	}
	n, err := mysqlwatch.PreparedExecutions(ctx, s.db)
	if err != nil || n-ev.executes <= 0 {
		return
	}
	total := n - ev.executes
	msg := fmt.Sprintf("iteration %d: %s: digests.csv's prepared statements (digest %s...) hold %.0f of the server's %.0f prepared executions (%.1f%%), read from performance_schema.prepared_statements_instances %d times, every %s; executions after a statement's last read are not seen",
		x.it.Index, s.Name(), mysqlwatch.PreparedDigestPrefix, seen, total, 100*seen/total, polls, preparedPollEvery)
	if seen < 0.9*total {
		msg = "warning: " + msg
	}
	x.r.logf("%s", msg)
}
