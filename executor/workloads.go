package executor

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/quadrant-bench/quadrant/executor/kinds"
	"github.com/quadrant-bench/quadrant/executor/workload"
	"github.com/quadrant-bench/quadrant/results/measure"
	"github.com/quadrant-bench/quadrant/spec"
	"github.com/quadrant-bench/quadrant/spec/shard"
)

// runWorkload runs a plan workload on s: its action (prepare, cleanup) or its load.
// Every interval goes to the observer; a measured workload also gives them to onInterval.
// step says where the workload stands in the plan, for a data load's progress.
// ready, if set, is called when the workload's connections are up, just before its clock
// starts (the shards' barrier).
func (r *runner) runWorkload(ctx context.Context, s *liveTarget, w *spec.Workload, step string, onInterval func(*measure.Interval), ready func(context.Context) error) (*measure.Total, error) {
	if onInterval == nil {
		openLoop := w.OpenLoop()
		onInterval = func(iv *measure.Interval) { r.obs.Interval(Progress{Interval: iv, OpenLoop: openLoop}) }
	}
	env := workload.Env{Server: r.fleet.workloadConfig(s), Log: func(msg string) { r.logf("%s", msg) }, Vars: r.varsMap(), Shard: r.opts.Shard, Ready: ready, Open: r.fleet.plan.Roots().Open}
	// A Galera node's deadlock errors are its certification failures (engine.CertFailure).
	env.Certifies = r.fleet.vars[s.Name()]["wsrep_on"] == "ON"
	if w.Action == "run" || w.Action == "" {
		nodes, err := r.fleet.spreadNodes(s, w)
		if err != nil {
			return nil, err
		}
		if nodes != nil {
			env.SpreadOver(nodes, w.Connections())
		}
		if line := w.Nodes.Describe(nodeNames(nodes), w.Connections()); line != "" {
			r.logf("workload on %s: %s", s.Name(), line)
		}
	}
	if step != "" && !splitStep(w) {
		// A step's workload that is not split (the leader runs it alone) does all of its work.
		env.Shard = shard.Shard{}
	}
	if step != "" && splitStep(w) && r.barrier != nil {
		// Every shard runs the same split prepares in the same order: their count names
		// the points, whatever path each shard was given the plan by.
		r.prepares++
		n := r.prepares
		env.Meet = func(ctx context.Context, point string) error {
			return r.meet(ctx, fmt.Sprintf("prepare %d: %s", n, point))
		}
	}
	if w.Action == "prepare" {
		// Only kinds that count their rows report them; the others' loads show no figures.
		var t *tracker
		var mu sync.Mutex // a load's ticker and its end may report at once
		began := time.Now()
		env.Loaded = func(done, total int64) {
			mu.Lock()
			defer mu.Unlock()
			if t == nil {
				t = r.track(step, "rows", 0)
				t.w.Started = began
			}
			t.update(func(w *Work) { w.Done, w.Total = float64(done), float64(total) })
		}
		defer func() {
			mu.Lock()
			defer mu.Unlock()
			if t != nil {
				t.finish()
			}
		}()
	}
	return kinds.Do(ctx, w, env, onInterval)
}

func (r *runner) varsMap() map[string]any {
	m := make(map[string]any, len(r.plan.Vars))
	for _, v := range r.plan.Vars {
		m[v.Name] = v.Value
	}
	return m
}
