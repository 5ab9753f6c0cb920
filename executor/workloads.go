package executor

import (
	"context"
	"sync"
	"time"

	"github.com/quadrant-bench/quadrant/executor/workload"
	"github.com/quadrant-bench/quadrant/executor/workload/kinds"
	"github.com/quadrant-bench/quadrant/results/measure"
	"github.com/quadrant-bench/quadrant/spec"
)

// runWorkload runs a plan workload on s: its action (prepare, cleanup) or its load.
// Every interval goes to the observer; a measured workload also gives them to onInterval.
// step says where the workload stands in the plan, for a data load's progress.
func (r *runner) runWorkload(ctx context.Context, s *liveTarget, w *spec.Workload, step string, onInterval func(*measure.Interval)) (*measure.Total, error) {
	if onInterval == nil {
		openLoop := w.OpenLoop()
		onInterval = func(iv *measure.Interval) { r.obs.Interval(Progress{Interval: iv, OpenLoop: openLoop}) }
	}
	env := workload.Env{Server: s.Config(), Log: func(msg string) { r.logf("%s", msg) }, Vars: r.varsMap()}
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
