package executor

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/quadrant-bench/quadrant/spec"
)

// duringSteps are an iteration's `during` steps, started at their offsets into the measured
// part of its workload.
type duringSteps struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup
	mu     sync.Mutex
	err    error
}

// during starts the `during` steps of iteration it, whose workload starts now.
func (sr *stepRunner) during(ctx context.Context, it *spec.Iteration, sc stepScope) *duringSteps {
	d := &duringSteps{}
	if len(it.During) == 0 {
		d.cancel = func() {}
		return d
	}
	ctx, d.cancel = context.WithCancel(ctx)
	measured := time.Now().Add(it.Workload.Warmup)
	sc.phase = "during"
	for i := range it.During {
		st := &it.During[i]
		if st.Skipped() {
			sr.log.logFile("%s: skipped (when: false)", sc.where(st))
			continue
		}
		d.wg.Add(1)
		go func() {
			defer d.wg.Done()
			defer func() {
				if p := recover(); p != nil {
					d.mu.Lock()
					d.err = fmt.Errorf("internal error in during step %s: %v", st.Src.Pos, p)
					d.mu.Unlock()
				}
			}()
			select {
			case <-ctx.Done():
				sr.log.logf("iteration %d: during step at %s (%s) did not run: the workload ended first", it.Index, st.At, st.Src.Pos)
				return
			case <-time.After(time.Until(measured.Add(st.At))):
			}
			if err := sr.step(ctx, st, sc); err != nil && ctx.Err() == nil {
				d.mu.Lock()
				if d.err == nil {
					d.err = err
				}
				d.mu.Unlock()
			}
		}()
	}
	return d
}

// stop cancels steps not started yet (or still running) once the workload is over.
func (d *duringSteps) stop() error {
	d.cancel()
	d.wg.Wait()
	return d.err
}
