package collect

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/quadrant-bench/quadrant/executor/watch/mysqlwatch"
	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/spec"
)

// Evidence is the performance_schema snapshot taken as an iteration's workload starts, on
// its target, and what the end's is compared with.
type Evidence struct {
	run       Run
	watch     *spec.Watch
	iteration int
	target    Target

	digests  map[string]mysqlwatch.DigestStats
	waits    map[string]mysqlwatch.WaitStats
	executes float64 // prepared statement executions, which MariaDB does not digest
	prepared *mysqlwatch.PreparedPoll
}

// preparedPollEvery is how often MariaDB's prepared_statements_instances is read during the workload:
// its rows go when their connections close, before the end's snapshot.
const preparedPollEvery = time.Second

// StartEvidence snapshots digests and waits on iteration's workload's target t, when watch
// wp asks for them (nil when it asks for neither). A failed read is a warning: the
// iteration's measurements do not depend on it.
func StartEvidence(ctx context.Context, run Run, wp *spec.Watch, iteration int, t Target) *Evidence {
	if wp.Digests == nil && wp.Waits == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	ev := &Evidence{run: run, watch: wp, iteration: iteration, target: t}
	db, name, logf, index := t.DB, t.Name, run.Logf, iteration
	var err error
	if wp.Digests != nil {
		if ev.digests, err = mysqlwatch.Digests(ctx, db); err != nil {
			logf("warning: iteration %d: %s: digests at the start: %v (no digests.csv rows for this iteration)", index, name, err)
		}
		ev.executes, _ = mysqlwatch.PreparedExecutions(ctx, db)
		// MySQL 8 digests COM_STMT_EXECUTE itself: polling there would count executions twice.
		if ev.digests != nil && strings.Contains(ev.target.Flavor, "MariaDB") {
			if ev.prepared, err = mysqlwatch.StartPreparedPoll(context.WithoutCancel(ctx), db, preparedPollEvery); err != nil {
				logf("warning: iteration %d: %s: prepared statements: %v (digests.csv will not have them)", index, name, err)
			}
		}
	}
	if wp.Waits != nil {
		if ev.waits, err = mysqlwatch.Waits(ctx, db); err != nil {
			logf("warning: iteration %d: %s: waits at the start: %v (no waits.csv rows for this iteration)", index, name, err)
		}
	}
	return ev
}

// Finish snapshots again and writes the top digests and waits over the workload. The span includes
// the warmup: performance_schema cannot be read at the warmup's end without a pause in the load.
// A nil Evidence does nothing.
func (ev *Evidence) Finish(ctx context.Context) {
	if ev == nil {
		return
	}
	db, name, logf, index := ev.target.DB, ev.target.Name, ev.run.Logf, ev.iteration
	// The run's context may be cancelled (an interrupt): what was measured is still worth keeping.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	defer func() {
		if ev.prepared != nil { // the end's digests failed: only stop the poll
			ev.prepared.Stop(ctx)
		}
	}()
	wp := ev.watch
	if ev.digests != nil {
		after, err := mysqlwatch.Digests(ctx, db)
		if err != nil {
			logf("warning: iteration %d: %s: digests at the end: %v", index, name, err)
		} else {
			ev.addPrepared(ctx, after)
			var rows []results.DigestRow
			for i, d := range mysqlwatch.TopDigests(ev.digests, after, wp.Digests.Top) {
				rows = append(rows, results.DigestRow{
					Iteration: index, Target: name, Rank: i + 1, Schema: ev.run.Redact(d.Schema), Digest: d.Digest, Text: ev.run.Redact(d.Text),
					Count: int64(d.Count), TotalMs: d.TimerPs / 1e9, AvgMs: d.TimerPs / 1e9 / d.Count,
					RowsExamined: int64(d.RowsExamined), RowsSent: int64(d.RowsSent), NoIndexUsed: int64(d.NoIndexUsed),
					NoGoodIndexUsed: int64(d.NoGoodIndexUsed), Errors: int64(d.Errors),
				})
			}
			if err := ev.run.Out.AppendDigests(rows); err != nil {
				ev.run.Failed(err)
			}
		}
	}
	if ev.waits != nil {
		after, err := mysqlwatch.Waits(ctx, db)
		if err != nil {
			logf("warning: iteration %d: %s: waits at the end: %v", index, name, err)
		} else {
			var rows []results.WaitRow
			for i, w := range mysqlwatch.TopWaits(ev.waits, after, wp.Waits.Top) {
				rows = append(rows, results.WaitRow{
					Iteration: index, Target: name, Rank: i + 1, Event: w.Event,
					Count: int64(w.Count), TotalMs: w.TimerPs / 1e9, AvgUs: w.TimerPs / 1e6 / w.Count,
				})
			}
			if err := ev.run.Out.AppendWaits(rows); err != nil {
				ev.run.Failed(err)
			}
		}
	}
}

// addPrepared stops the prepared-statement poll and adds its per-class sums to the end's digests, then
// says how many of the server's prepared executions (statement/com/Execute) they cover: those after an
// instance's last poll, on a connection that closed, are not seen.
func (ev *Evidence) addPrepared(ctx context.Context, after map[string]mysqlwatch.DigestStats) {
	db, name, logf, index := ev.target.DB, ev.target.Name, ev.run.Logf, ev.iteration
	if ev.prepared == nil {
		return
	}
	sums, seen, polls, err := ev.prepared.Stop(ctx)
	ev.prepared = nil
	if err != nil {
		logf("warning: iteration %d: %s: prepared statements: %v (digests.csv has what the other polls saw)", index, name, err)
	}
	for k, d := range sums {
		after[k] = d
	}
	n, err := mysqlwatch.PreparedExecutions(ctx, db)
	if err != nil || n-ev.executes <= 0 {
		return
	}
	total := n - ev.executes
	msg := fmt.Sprintf("iteration %d: %s: digests.csv's prepared statements (digest %s...) hold %.0f of the server's %.0f prepared executions (%.1f%%), read from performance_schema.prepared_statements_instances %d times, every %s; executions after a statement's last read are not seen",
		index, name, mysqlwatch.PreparedDigestPrefix, seen, total, 100*seen/total, polls, preparedPollEvery)
	if seen < 0.9*total {
		msg = "warning: " + msg
	}
	logf("%s", msg)
}
