package executor

import (
	"context"

	"github.com/quadrant-bench/quadrant/executor/workload"
	"github.com/quadrant-bench/quadrant/executor/workload/kinds"
	"github.com/quadrant-bench/quadrant/results/measure"
	"github.com/quadrant-bench/quadrant/spec"
)

// runWorkload runs a plan workload on s: its action (prepare, cleanup) or its load.
// Every interval goes to the observer; a measured workload also gives them to onInterval.
func (r *runner) runWorkload(ctx context.Context, s *liveTarget, w *spec.Workload, onInterval func(*measure.Interval)) (*measure.Total, error) {
	if onInterval == nil {
		openLoop := w.Rate > 0
		onInterval = func(iv *measure.Interval) { r.obs.Interval(Progress{Interval: iv, OpenLoop: openLoop}) }
	}
	env := workload.Env{Server: s.Config(), Log: func(msg string) { r.logf("%s", msg) }, Vars: r.varsMap()}
	return kinds.Do(ctx, w, env, onInterval)
}

func (r *runner) varsMap() map[string]any {
	m := make(map[string]any, len(r.plan.Vars))
	for _, v := range r.plan.Vars {
		m[v.Name] = v.Value
	}
	return m
}
