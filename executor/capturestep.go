package executor

import (
	"context"
	"fmt"
	"time"

	"github.com/quadrant-bench/quadrant/executor/capture"
	"github.com/quadrant-bench/quadrant/executor/traffic"
	"github.com/quadrant-bench/quadrant/spec"
)

// capture records what s runs for the step's duration into its capture file, with its
// while: workload running meanwhile (started once recording has, so its connections are
// recorded). The file is written beside and renamed: a failed capture leaves none.
func (sr *stepRunner) capture(ctx context.Context, s *liveTarget, c *spec.Capture, where string) error {
	// Through the plan's roots: a symlink planted at out or in its directory leads nowhere.
	tmp, err := sr.fleet.plan.Roots().Replace(c.Path)
	if err != nil {
		return fmt.Errorf("capture: %w", err)
	}
	defer tmp.Abort()
	w, err := traffic.NewWriter(tmp, traffic.QCapHeader{Created: time.Now().UTC(), Target: s.Name(), Timed: true})
	if err != nil {
		return err
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	load := make(chan error, 1)
	started := func() {
		if c.While == nil {
			load <- nil
			return
		}
		sr.log.logf("%s: %s on %s while capturing", where, c.While, s.Name())
		go func() {
			_, err := sr.workload(wctx, s, c.While, where, nil, nil)
			load <- err
		}()
	}
	// The while: workload ends with the recording, before the capture's end checksums: one
	// that ended by itself says how, one stopped there ended as planned.
	var werr error
	var ended bool
	stopped := func() {
		select {
		case werr = <-load:
		default:
			cancel()
			if werr = <-load; wctx.Err() != nil {
				werr = nil
			}
		}
		ended = true
	}
	sr.log.logf("%s: capturing %s for %s into %s", where, s.Name(), c.Duration, c.Out)
	res, err := capture.Run(ctx, s.db, w, capture.Options{Duration: c.Duration, Method: c.Method,
		Filter: capture.Filter{Schemas: c.Schemas, Users: c.Users}, Logf: sr.log.logf, Started: started, Stopped: stopped})
	cancel()
	if err != nil {
		return err
	}
	if !ended {
		werr = <-load
	}
	if werr != nil && ctx.Err() == nil && (ended || wctx.Err() == nil) {
		return fmt.Errorf("while: %w", werr)
	}
	if err := tmp.Commit(); err != nil {
		return fmt.Errorf("capture: %w", err)
	}
	sr.log.logf("%s: captured %d statements from %d sessions through %s", where, res.Statements, res.Sessions, res.Method)
	return nil
}
