package replay

import (
	"context"
	"fmt"

	"github.com/quadrant-bench/quadrant/executor/workload"
	"github.com/quadrant-bench/quadrant/executor/workload/engine"
	"github.com/quadrant-bench/quadrant/results/measure"
	"github.com/quadrant-bench/quadrant/spec"
)

// Kind is `workload: {replay: {file: ...}}`: a SQL file executed in order, timed.
var Kind = workload.Kind{Name: "replay", Validate: workload.Validate, New: newReplay}

type fileReplay struct {
	w   *spec.Workload
	env workload.Env
}

func newReplay(w *spec.Workload, env workload.Env) (workload.Workload, error) {
	return &fileReplay{w: w, env: env}, nil
}

func (r *fileReplay) Prepare(context.Context) error { return workload.ErrNoAction }
func (r *fileReplay) Cleanup(context.Context) error { return workload.ErrNoAction }

func (r *fileReplay) Run(ctx context.Context, onInterval func(*measure.Interval)) (*measure.Total, error) {
	src, err := Open(r.w.Replay.Path)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	lc := workload.Loop(r.w, onInterval)
	lc.Rollback = false // the file decides its transactions
	dc := engine.DialConfig(r.env.Server, false, r.env.Timeout(), lc.Threads)
	lc.Setup = func(ctx context.Context, i int) (engine.Worker, *engine.Conn, error) {
		c, err := engine.Dial(ctx, dc, false)
		if err != nil {
			return nil, nil, fmt.Errorf("replay connection %d: %w", i+1, err)
		}
		return src.NewWorker(), c, nil
	}
	return engine.Run(ctx, lc)
}
