package executor

import (
	"context"
	"fmt"
	"time"

	"github.com/quadrant-bench/quadrant/executor/barrier"
	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/spec"
)

// leader reports whether this process runs what happens once per run: setup, globals,
// server_config restarts, steps and waits, watchers. An unsharded run is its own leader.
func (r *runner) leader() bool { return r.opts.Shard.Leader() }

// shardRuns reports whether this shard runs step st: the leader runs every step, the
// other shards only the prepares, whose tables (tpcc: warehouses) are split between the
// shards, and the generate steps, whose tables' rows are (so a big load goes N times as
// fast).
func (r *runner) shardRuns(st *spec.Step) bool {
	if r.leader() {
		return true
	}
	return st.Kind != nil && st.Kind.Splits != nil && st.Kind.Splits(st)
}

// openBarrier connects the shards' rendezvous: --barrier-dsn, or the first measured
// workload's target, which every shard reaches anyway.
func (r *runner) openBarrier(ctx context.Context) error {
	sh := r.opts.Shard
	r.info.Shard = &results.ShardInfo{RunID: r.opts.RunID, Index: sh.Index, Count: sh.Count}
	if !sh.Sharded() {
		return nil
	}
	dsn := r.opts.BarrierDSN
	if dsn == "" {
		for i := range r.plan.Iterations {
			if s := r.targets[r.plan.TargetOf(&r.plan.Iterations[i])]; s != nil {
				dsn = s.Config().FormatDSN()
				break
			}
		}
	}
	if dsn == "" {
		return fmt.Errorf("shard %s: no server to meet the other shards on: give --barrier-dsn", sh)
	}
	db, database, err := barrier.Open(dsn)
	if err != nil {
		return err
	}
	r.barrier = &barrier.Barrier{DB: db, Database: database, RunID: r.opts.RunID, Shard: sh, Timeout: r.opts.BarrierTimeout}
	return r.barrier.Init(ctx)
}

// meet waits at point for every shard and until their common start; unsharded, at once.
func (r *runner) meet(ctx context.Context, point string) error {
	if r.barrier == nil {
		return nil
	}
	m, err := r.barrier.Wait(ctx, point)
	if err != nil {
		return fmt.Errorf("shard %s: %w", r.opts.Shard, err)
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	r.info.Shard.Meetings = append(r.info.Shard.Meetings, results.Meeting{
		Point: point, Start: m.Start.UTC(), Woke: m.Woke.UTC(), LateMs: ms(m.Late), OffsetMs: ms(m.Offset), RTTMs: ms(m.RTT), WaitedMs: ms(m.Waited),
	})
	r.logFile("shard %s: met at %s: start %s (server clock), offset %.3f ms (rtt %.3f ms), late %.3f ms, waited %.0f ms",
		r.opts.Shard, point, m.Start.UTC().Format(time.RFC3339Nano), ms(m.Offset), ms(m.RTT), ms(m.Late), ms(m.Waited))
	r.saveInfo()
	return nil
}

// closeBarrier removes this shard's rows once the last point's start has passed.
func (r *runner) closeBarrier(ctx context.Context) {
	if r.barrier == nil {
		return
	}
	// The others poll every few ms: after the margin, they have all seen the last point.
	time.Sleep(r.barrier.Margin)
	if err := r.barrier.Clean(ctx); err != nil {
		r.logf("warning: shard %s: clean %s: %v", r.opts.Shard, barrier.Table, err)
	}
	r.barrier.DB.Close()
}

// splitStep reports whether a step's workload is split between the shards: the prepares
// of the kinds that say so (each shard loads its tables, or its warehouses); any other
// step's workload is run whole by the leader.
func splitStep(w *spec.Workload) bool {
	return w.Action == "prepare" && w.Kind != nil && w.Kind.SplitsPrepare
}
