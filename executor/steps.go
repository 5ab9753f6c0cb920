package executor

import (
	"context"
	"errors"
	"fmt"
	"github.com/quadrant-bench/quadrant/executor/step"
	"sync"
	"time"

	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/results/measure"
	"github.com/quadrant-bench/quadrant/spec"
	"github.com/quadrant-bench/quadrant/spec/shard"
)

// stepScope is where a list of steps runs: its phase (setup, before, after, during,
// teardown), the default target, and the iteration (nil in setup and teardown) whose
// record_as metrics the steps fill.
type stepScope struct {
	phase   string
	target  string
	it      *spec.Iteration
	metrics map[string]float64
	marks   *marks // nil outside an iteration
}

func (sc stepScope) where(st *spec.Step) string {
	if sc.it != nil {
		return fmt.Sprintf("iteration %d: %s: %s (%s)", sc.it.Index, sc.phase, st.KindKey(), st.Src.Pos)
	}
	return fmt.Sprintf("%s: %s (%s)", sc.phase, st.KindKey(), st.Src.Pos)
}

// stepRunner runs a plan's steps on the fleet's targets: the skeleton every step shares
// (its target, its timeout, its place in the log and errors), then its kind's runner
// (spec.StepKind.Impl, a step.Runner) with what the kind may use of the run (step.Env,
// stepenv.go): the log, the globals it restores, the results folder for save_as, how to run
// a workload, the shards.
type stepRunner struct {
	fleet   *fleet
	log     *runLog
	globals *globals
	out     *results.Writer // save_as results
	// runs reports whether this process runs a step: a shard other than the leader runs
	// only the prepares split between the shards.
	runs func(*spec.Step) bool
	// workload runs a workload on a target (see runner.runWorkload).
	workload func(ctx context.Context, s *liveTarget, w *spec.Workload, step string, onInterval func(*measure.Interval), ready func(context.Context) error) (*measure.Total, error)
	// shard is this process's part of a sharded run, and meet its rendezvous with the
	// others (see runner.meet): a generate step splits its rows between the shards.
	shard shard.Shard
	meet  func(ctx context.Context, point string) error
	// splits counts the split steps run so far by kind, which names their meeting points
	// (see shardOf).
	mu     sync.Mutex
	splits map[string]int
}

// declared runs a step through its kind's declared runner (spec.StepKind.Impl, a
// step.Runner): the executor knows no kind.
func (sr *stepRunner) declared(ctx context.Context, st *spec.Step, sc stepScope, s *liveTarget) error {
	if st.Kind == nil {
		return fmt.Errorf("step of no kind")
	}
	r, ok := st.Kind.Impl.(step.Runner)
	if !ok {
		return fmt.Errorf("step kind %s declares nothing that runs it (its Impl is not a step.Runner)", st.Kind.Key)
	}
	if st.Kind.Target && s == nil {
		return fmt.Errorf("no target: give the step a target: (the plan has %d)", len(sr.fleet.targets))
	}
	return r.Run(ctx, st, sr.env(st, sc, s))
}

// run runs list in order and stops at the first failure.
func (sr *stepRunner) run(ctx context.Context, list []spec.Step, sc stepScope) error {
	for i := range list {
		if err := ctx.Err(); err != nil {
			return errInterrupted
		}
		if !sr.runs(&list[i]) {
			continue
		}
		if list[i].Skipped() {
			sr.log.logFile("%s: skipped (when: false)", sc.where(&list[i]))
			continue
		}
		if err := sr.step(ctx, &list[i], sc); err != nil {
			return err
		}
	}
	return nil
}

func (sr *stepRunner) step(ctx context.Context, st *spec.Step, sc stepScope) error {
	where := sc.where(st)
	name := st.Target
	if name == "" {
		name = sc.target
	}
	var s *liveTarget
	if name != "" {
		s = sr.fleet.targets[name]
	}
	if st.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, st.Timeout)
		defer cancel()
	}
	began := time.Now()
	if err := sr.declared(ctx, st, sc, s); err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, errInterrupted) {
			return errInterrupted
		}
		if errors.Is(err, context.DeadlineExceeded) && st.Timeout > 0 {
			return fmt.Errorf("%s: did not finish within its timeout of %s", where, st.Timeout)
		}
		return fmt.Errorf("%s: %w", where, err)
	}
	sr.log.logFile("%s: done in %.3fs", where, time.Since(began).Seconds())
	return nil
}
