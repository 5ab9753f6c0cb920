package executor

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/quadrant-bench/quadrant/executor/step"
	"github.com/quadrant-bench/quadrant/spec"
	"github.com/quadrant-bench/quadrant/spec/shard"
)

// The executor's side of step.Env: each part hands a step kind's runner one thing of the
// run, and the runner names no executor type.

// stepTarget is a liveTarget as a step reaches it.
type stepTarget struct{ s *liveTarget }

func (t stepTarget) Name() string                                       { return t.s.Name() }
func (t stepTarget) DB() *sql.DB                                        { return t.s.db }
func (t stepTarget) Host() string                                       { return t.s.Host() }
func (t stepTarget) Port() int                                          { return t.s.Port() }
func (t stepTarget) Status(ctx context.Context) (map[string]any, error) { return t.s.status(ctx) }

func (t stepTarget) Sandbox() (step.Sandbox, bool) {
	if t.s.sb == nil {
		return step.Sandbox{}, false
	}
	return step.Sandbox{ClientConfig: t.s.sb.ClientConfigFile(), RunAs: t.s.sb.RunAs(), CA: t.s.sb.CAFile()}, true
}

// live is the liveTarget behind a step's target (every step.Target the executor hands out
// is a stepTarget).
func live(t step.Target) (*liveTarget, error) {
	st, ok := t.(stepTarget)
	if !ok || st.s == nil {
		return nil, fmt.Errorf("target %v is not one of the run's", t)
	}
	return st.s, nil
}

// stepTargets are the fleet's targets by name.
type stepTargets struct{ f *fleet }

func (ts stepTargets) Names() []string { return ts.f.order }

func (ts stepTargets) Target(name string) step.Target {
	if s := ts.f.targets[name]; s != nil {
		return stepTarget{s}
	}
	return nil
}

// stepGlobals sets globals through the run's globals, which restore them at its end.
type stepGlobals struct{ g *globals }

func (sg stepGlobals) Set(ctx context.Context, t step.Target, name string, value any) error {
	s, err := live(t)
	if err != nil {
		return err
	}
	return sg.g.set(ctx, s, name, value)
}

func (sg stepGlobals) Keep(ctx context.Context, t step.Target, names []string) func() {
	s, err := live(t)
	if err != nil {
		return func() {}
	}
	return sg.g.keep(ctx, s, names)
}

// stepRestarter restarts through the fleet.
type stepRestarter struct{ f *fleet }

func (r stepRestarter) Restart(ctx context.Context, t step.Target, config spec.Settings) error {
	s, err := live(t)
	if err != nil {
		return err
	}
	return r.f.restart(ctx, s, config)
}

// stepWorkloads runs a step's workload as runner.runWorkload does.
type stepWorkloads struct{ sr *stepRunner }

func (w stepWorkloads) Run(ctx context.Context, t step.Target, wl *spec.Workload, where string) error {
	s, err := live(t)
	if err != nil {
		return err
	}
	_, err = w.sr.workload(ctx, s, wl, where, nil, nil)
	return err
}

// stepProgress is a tracker as a step updates it.
type stepProgress struct{ t *tracker }

func (p stepProgress) Update(done, total float64, state string) {
	p.t.update(func(w *Work) { w.Done, w.Total, w.State = done, total, state })
}
func (p stepProgress) Deadline(at time.Time) { p.t.update(func(w *Work) { w.Deadline = at }) }
func (p stepProgress) Finish()               { p.t.finish() }

// stepShard is a split step's part of a sharded run; its meeting points are named by the
// step's key and how many split steps of that key ran before it, the same in every shard
// since every shard runs them in the same order.
type stepShard struct {
	part   shard.Shard
	prefix string
	meet   func(ctx context.Context, point string) error
}

func (s stepShard) Part() shard.Shard { return s.part }

func (s stepShard) Meet(ctx context.Context, point string) error {
	if s.meet == nil {
		return nil
	}
	return s.meet(ctx, s.prefix+point)
}

// shardOf is st's Env.Shard: this process's part when its kind splits it (a during step,
// the leader's alone, runs whole).
func (sr *stepRunner) shardOf(st *spec.Step, sc stepScope) step.Shard {
	k := st.Kind
	if !sr.shard.Sharded() || sc.phase == spec.PhaseDuring || k == nil || k.Splits == nil || !k.Splits(st) {
		return stepShard{}
	}
	sr.mu.Lock()
	if sr.splits == nil {
		sr.splits = map[string]int{}
	}
	sr.splits[k.Key]++
	n := sr.splits[k.Key]
	sr.mu.Unlock()
	return stepShard{part: sr.shard, prefix: fmt.Sprintf("%s %d: ", k.Key, n), meet: sr.meet}
}

// env is what st's runner gets of the run; s is its target (nil: none).
func (sr *stepRunner) env(st *spec.Step, sc stepScope, s *liveTarget) step.Env {
	env := step.Env{
		Where: sc.where(st), Phase: sc.phase, Logf: sr.log.logf, LogFile: sr.log.logFile, Redact: sr.log.redact,
		Show:    func(format string, args ...any) { sr.log.obs.Logged(sr.log.redact(fmt.Sprintf(format, args...))) },
		Targets: stepTargets{sr.fleet}, Servers: stepServers{sr.fleet}, Plan: sr.fleet.plan, Iteration: sc.it, Roots: sr.fleet.plan.Roots(), Out: sr.out,
		Globals: stepGlobals{sr.globals}, Restarter: stepRestarter{sr.fleet}, Workloads: stepWorkloads{sr},
		Track: func(what, unit string, total float64) step.Progress {
			return stepProgress{sr.log.track(what, unit, total)}
		},
		Shard: sr.shardOf(st, sc),
	}
	if s != nil {
		env.Target = stepTarget{s}
	}
	if sc.metrics != nil {
		env.Record = func(name string, v float64) { sc.metrics[name] = v }
	}
	if sc.marks != nil {
		env.Mark = sc.marks.add
		if sc.phase == spec.PhaseDuring {
			env.Intervals = sc.marks.seen
		}
	}
	return env
}
