package executor

import (
	"context"
	"sync"

	"github.com/quadrant-bench/quadrant/executor/generate"
	"github.com/quadrant-bench/quadrant/spec"
)

// generate runs a generate: step on s, its rows counted like a data load's.
func (sr *stepRunner) generate(ctx context.Context, s *liveTarget, g *spec.Generate, where string) error {
	o := generate.Options{Schema: g.SchemaPath, Database: g.Database, Seed: g.Seed, Threads: g.Threads, Method: g.Method, Logf: sr.log.logf}
	for _, t := range g.Tables {
		gt := generate.Table{Name: t.Name, Rows: t.Rows, Columns: map[string]generate.Settings{}}
		for _, c := range t.Columns {
			gt.Columns[c.Name] = generate.Settings{Distribution: c.Distribution, Values: c.Values, Weights: c.Weights,
				Min: string(c.Min), Max: string(c.Max), NullFraction: c.NullFraction, Length: c.Length}
		}
		o.Tables = append(o.Tables, gt)
	}
	var mu sync.Mutex // the load's ticker and its end may report at once
	t := sr.log.track(where, "rows", 0)
	defer t.finish()
	o.Loaded = func(done, total int64) {
		mu.Lock()
		defer mu.Unlock()
		t.update(func(w *Work) { w.Done, w.Total = float64(done), float64(total) })
	}
	sr.log.logf("%s: generating %d tables on %s", where, len(g.Tables), s.Name())
	res, err := generate.Run(ctx, s.db, o)
	if err != nil {
		return err
	}
	sr.log.logf("%s: generated %d rows in %s (%d tables)", where, res.Rows, res.Database, len(res.Filled))
	return nil
}
