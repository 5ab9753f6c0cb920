package executor

import (
	"context"
	"fmt"
	"sync"

	"github.com/quadrant-bench/quadrant/executor/generate"
	"github.com/quadrant-bench/quadrant/spec"
)

// generate runs a generate: step on s, its rows counted like a data load's. In a sharded
// run every shard fills its part of each table's rows (split); during steps are the
// leader's alone and fill the tables whole.
func (sr *stepRunner) generate(ctx context.Context, s *liveTarget, g *spec.Generate, where string, split bool) error {
	o := generate.FromSpec(g)
	o.Logf = sr.log.logf
	o.Open = sr.fleet.plan.Roots().Open
	if split && sr.shard.Sharded() {
		sr.generates++
		n := sr.generates
		o.Shard = sr.shard
		o.Meet = func(ctx context.Context, point string) error {
			return sr.meet(ctx, fmt.Sprintf("generate %d: %s", n, point))
		}
	}
	var mu sync.Mutex // the load's ticker and its end may report at once
	t := sr.log.track(where, "rows", 0)
	defer t.finish()
	o.Loaded = func(done, total int64) {
		mu.Lock()
		defer mu.Unlock()
		t.update(func(w *Work) { w.Done, w.Total = float64(done), float64(total) })
	}
	if o.Shard.Sharded() {
		sr.log.logf("%s: generating shard %s's part of %d tables on %s", where, o.Shard, len(g.Tables), s.Name())
	} else {
		sr.log.logf("%s: generating %d tables on %s", where, len(g.Tables), s.Name())
	}
	res, err := generate.Run(ctx, s.db, o)
	if err != nil {
		return err
	}
	sr.log.logf("%s: generated %d rows in %s (%d tables)", where, res.Rows, res.Database, len(res.Filled))
	return nil
}
