// Package executor runs a resolved plan: it starts or connects the targets, runs setup,
// every iteration (server config, globals, steps, the measured workload with its
// watchers, assertions) and teardown, and writes every measurement into the results
// folder (package results) as it is taken. It never reads a plan file; spec does that.
package executor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/quadrant-bench/quadrant/executor/barrier"
	"github.com/quadrant-bench/quadrant/executor/collect"
	"github.com/quadrant-bench/quadrant/executor/kinds"
	"github.com/quadrant-bench/quadrant/executor/target"
	"github.com/quadrant-bench/quadrant/executor/watch"
	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/spec"
	"github.com/quadrant-bench/quadrant/spec/shard"
	"github.com/quadrant-bench/quadrant/spec/trust"
)

// Options tune a run.
type Options struct {
	// Allow is what the user allowed the plan beyond its folder and targets (--allow-shell,
	// --allow-path, ...); a plan with any effect it does not allow is refused before
	// anything runs (spec/trust; the CLI asks on a terminal first for --allow-shell).
	Allow trust.Allow
	// Observer is told what the run does as it goes (the CLI's console); nil: nobody.
	Observer Observer
	// Version is quadrant's version, for run.json.
	Version string
	// PlanFile, PlanYAML and PlanSHA describe the resolved plan for the results folder.
	PlanFile string
	PlanYAML []byte
	PlanSHA  string
	// PlanIdentity and Overrides go to run.json as they are (see results.RunInfo).
	PlanIdentity string
	Overrides    *results.Overrides
	Command      []string
	// SandboxDir is where sandboxes live ("" = the system temp dir); KeepSandboxes keeps them.
	SandboxDir    string
	KeepSandboxes bool
	// SandboxRunAs is the OS user sandboxes run as when quadrant runs as root and the plan's
	// sandbox names none ("" = the sandbox package's default, mysql).
	SandboxRunAs string
	// Previous is the run.json of an interrupted run being resumed: its finished
	// iterations are kept and skipped.
	Previous *results.RunInfo
	// StopTimeout bounds teardown, global restore and sandbox stop after an interrupt.
	StopTimeout time.Duration
	// Shard is this process's share of a sharded run (--shard K/N; zero: all of it);
	// RunID names the run all its shards share; the shards meet on BarrierDSN (default:
	// the workload's target) and give up on a missing one after BarrierTimeout.
	Shard          shard.Shard
	RunID          string
	BarrierDSN     string
	BarrierTimeout time.Duration
	// Samplers are the samplers a run may open (nil: kinds.Samplers()); a test
	// adds its own with kinds.SamplersWith.
	Samplers []*watch.SamplerKind
	// watchVia, in tests, gives the address a target's samplers connect to instead of the
	// target's (a fault proxy in front of the samplers only); nil: the target's.
	watchVia func(target, addr string) string
}

// Outcome is how a run ended.
type Outcome struct {
	Status string // results.StatusDone / StatusFailed / StatusError / StatusInterrupted
	// AssertionsFailed counts iterations whose assertions were false; ErrorsFailed those
	// that failed with an error.
	AssertionsFailed int
	ErrorsFailed     int
}

// PlanError is a run stopped before setup because the plan names what the server does not
// have (a status variable in watch.status or an assertion): the plan is invalid for this
// server, and the CLI exits as for any invalid plan.
type PlanError struct{ Err error }

func (e *PlanError) Error() string { return e.Err.Error() }
func (e *PlanError) Unwrap() error { return e.Err }

type runner struct {
	plan  *spec.Plan
	out   *results.Writer
	opts  Options
	obs   Observer
	fleet *fleet
	// targets is the fleet's (by name), for preflight.go and shards.go.
	targets  map[string]*liveTarget
	globals  *globals
	steps    *stepRunner
	watch    *collect.Watchers
	collect  collect.Run      // what the collection gets of the run: its results folder and log
	barrier  *barrier.Barrier // sharded runs only
	restore  *restorer        // after setup: what iterations' restore: put back
	prepares int              // split prepares run so far: they name their meeting points
	// stopRun cancels the run with a cause (a results write error); ctx is the run's.
	stopRun context.CancelCauseFunc
	ctx     context.Context
	info    *results.RunInfo
	log     *runLog
}

// Run runs plan p and writes everything it measures into out. The returned error is for a run that
// could not go on (a target could not start, setup failed); failed iterations are in
// the Outcome. Cancelling ctx is an interrupt: the workload stops now, teardown and the
// restore of globals still run (bounded by StopTimeout), and the Outcome says interrupted.
func Run(ctx context.Context, p *spec.Plan, out *results.Writer, o Options) (outcome *Outcome, err error) {
	if ref := trust.Check(p, o.Allow); ref != nil {
		return nil, ref
	}
	if o.StopTimeout <= 0 {
		o.StopTimeout = 2 * time.Minute
	}
	if o.Samplers == nil {
		o.Samplers = kinds.Samplers()
	}
	ctx, stopRun := context.WithCancelCause(ctx)
	defer stopRun(nil)
	r := &runner{plan: p, out: out, opts: o, obs: o.Observer, globals: newGlobals(), stopRun: stopRun}
	if r.obs == nil {
		r.obs = quiet{}
	}
	r.log = &runLog{out: out, obs: r.obs, plan: p}
	r.collect = collect.Run{Out: out, Logf: r.logf, LogFile: r.logFile, Redact: r.log.redact, Failed: r.resultsFailed}
	r.fleet = newFleet(p, r.log, r.obs, o)
	r.targets = r.fleet.targets
	r.steps = &stepRunner{fleet: r.fleet, log: r.log, globals: r.globals, out: out, runs: r.shardRuns, workload: r.runWorkload, shard: o.Shard, meet: r.meet}
	r.ctx = ctx
	r.info = newRunInfo(p, o)
	if err := out.WritePlan(o.PlanYAML); err != nil {
		return nil, fmt.Errorf("write plan.yaml: %w", err)
	}
	r.saveInfo()
	for _, n := range p.OverrideNotes() {
		r.log.logf("%s", n)
	}
	outcome = &Outcome{Status: results.StatusDone}

	// Whatever happens below, the servers quadrant started are stopped and the
	// globals it changed are restored, even after an interrupt.
	defer func() {
		if rec := recover(); rec != nil {
			err = fmt.Errorf("internal error: %v", rec)
			outcome.Status = results.StatusError
		}
		stopCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), o.StopTimeout)
		defer cancel()
		err = r.log.redactErr(err) // the caller prints it
		r.finish(stopCtx, outcome, err)
	}()

	if err := r.open(ctx); err != nil {
		outcome.Status = results.StatusError
		return outcome, err
	}
	if err := r.setup(ctx); err != nil {
		outcome.Status = statusOf(ctx, results.StatusError)
		return outcome, err
	}
	r.iterations(ctx, outcome)
	if werr := writeFailure(ctx); werr != nil {
		outcome.Status = results.StatusError
		return outcome, werr
	}
	return outcome, nil
}

// resultsFailed stops the run when the results folder cannot be written (a full disk):
// what is measured from then on could not be kept. Teardown and the restore of globals
// still run; the error says which file and why.
func (r *runner) resultsFailed(err error) {
	var we *results.WriteError
	if !errors.As(err, &we) {
		we = &results.WriteError{Dir: r.out.Dir, File: "the results folder", Err: err}
	}
	if context.Cause(r.ctx) == nil || !errors.As(context.Cause(r.ctx), new(*results.WriteError)) {
		r.logf("error: %v: stopping the run (teardown and the restore of globals still run)", we)
	}
	r.stopRun(we)
}

// writeFailure is the results folder's write error that stopped the run, if one did.
func writeFailure(ctx context.Context) *results.WriteError {
	var we *results.WriteError
	if errors.As(context.Cause(ctx), &we) {
		return we
	}
	return nil
}

// statusOf is StatusInterrupted when ctx was cancelled, else s.
func statusOf(ctx context.Context, s string) string {
	if ctx.Err() != nil {
		return results.StatusInterrupted
	}
	return s
}

// newRunInfo is run.json as a run of p starts: a resumed run's finished iterations are kept.
func newRunInfo(p *spec.Plan, o Options) *results.RunInfo {
	host, _ := os.Hostname()
	ri := &results.RunInfo{
		Tool: "quadrant", Version: o.Version, Plan: p.Name, PlanFile: o.PlanFile,
		PlanSHA256: o.PlanSHA, PlanIdentity: o.PlanIdentity, Overrides: o.Overrides, Host: host, Command: o.Command, Start: time.Now().UTC(),
		Status: results.StatusRunning, Report: results.ReportOptions{Formats: p.Report.Formats, PerVariable: p.Report.PerVariable},
	}
	if p.Order != "" {
		ri.Order = &results.RunOrder{Kind: p.Order}
		if p.Order == spec.OrderRandom {
			ri.Order.Seed = p.OrderSeed
		}
	}
	if len(p.Labels) > 0 {
		ri.Labels = map[string]string{}
		for _, l := range p.Labels {
			ri.Labels[l.Name] = fmt.Sprint(l.Value)
		}
	}
	if len(p.Iterations) > 0 {
		for _, av := range p.Iterations[0].Matrix {
			ri.Axes = append(ri.Axes, av.Axis)
		}
	}
	// The kinds' own columns, described so that the folder reads without the kinds.
	for pw := range p.Workloads() {
		if k, err := kinds.Of(pw.Workload); err == nil {
			ri.AddMetrics(k.Metrics)
			ri.AddTables(k.Tables)
		}
	}
	// The step kinds' (a failover drill's figures).
	for ps := range p.Steps() {
		if k := ps.Step.Kind; k != nil {
			ri.AddMetrics(k.Metrics)
		}
	}
	prev := map[int]results.IterationInfo{}
	if o.Previous != nil {
		ri.Start = o.Previous.Start
		for _, it := range o.Previous.Iterations {
			prev[it.Index] = it
		}
	}
	for _, it := range p.Iterations {
		if pi, ok := prev[it.Index]; ok && results.Finished(pi.Status) {
			ri.Iterations = append(ri.Iterations, pi)
			continue
		}
		ri.Iterations = append(ri.Iterations, results.IterationInfo{Index: it.Index, Repeat: it.Repeat, Matrix: matrixFields(it), Status: "pending"})
	}
	return ri
}

func matrixFields(it spec.Iteration) []results.Field {
	var out []results.Field
	for _, av := range it.Matrix {
		out = append(out, results.Field{Name: av.Axis, Value: fmt.Sprint(av.Value)})
	}
	return out
}

func (r *runner) saveInfo() {
	if err := r.out.WriteRunInfo(r.info); err != nil {
		r.logf("warning: write run.json: %v", err)
	}
}

// logf, logFile and track are the run log's, for the parts that have the runner.
func (r *runner) logf(format string, args ...any)    { r.log.logf(format, args...) }
func (r *runner) logFile(format string, args ...any) { r.log.logFile(format, args...) }
func (r *runner) track(step, unit string, total float64) *tracker {
	return r.log.track(step, unit, total)
}

// firstPending is the first iteration of p this run will run (nil when all are finished).
func firstPending(p *spec.Plan, info *results.RunInfo) *spec.Iteration {
	for i := range p.Iterations {
		if i >= len(info.Iterations) || !results.Finished(info.Iterations[i].Status) {
			return &p.Iterations[i]
		}
	}
	return nil
}

// iterations runs every iteration not finished by a previous run, in order.
func (r *runner) iterations(ctx context.Context, out *Outcome) {
	stop := false
	for i := range r.plan.Iterations {
		it := &r.plan.Iterations[i]
		info := &r.info.Iterations[i]
		if results.Finished(info.Status) {
			r.logf("iteration %d: kept from the interrupted run (%s)", it.Index, info.Status)
			continue
		}
		if ctx.Err() != nil || stop {
			if stop || writeFailure(ctx) != nil {
				info.Status = results.StatusSkipped
			} else {
				info.Status = results.StatusInterrupted
			}
			continue
		}
		status := r.runIteration(ctx, it, info)
		switch status {
		case results.StatusFailed:
			if len(info.Failed) > 0 && info.Error == "" {
				out.AssertionsFailed++
			} else {
				out.ErrorsFailed++
			}
			if r.plan.OnFailure == "stop" {
				r.logf("on_failure: stop: skipping the remaining iterations")
				stop = true
			}
		case results.StatusInterrupted:
			out.Status = results.StatusInterrupted
		}
		r.saveInfo()
	}
	switch {
	case writeFailure(ctx) != nil:
		out.Status = results.StatusError
	case out.Status == results.StatusInterrupted || ctx.Err() != nil:
		out.Status = results.StatusInterrupted
	case out.ErrorsFailed > 0 || out.AssertionsFailed > 0:
		out.Status = results.StatusFailed
	}
}

// finish runs teardown, restores globals, records the final variables and stops the
// sandboxes. It runs on a fresh context: an interrupted run still cleans up.
func (r *runner) finish(ctx context.Context, out *Outcome, runErr error) {
	if len(r.fleet.targets) > 0 {
		r.logFile("teardown: %d step(s)", len(r.plan.Teardown))
		if err := r.steps.run(ctx, r.plan.Teardown, stepScope{phase: spec.PhaseTeardown, target: r.plan.DefaultTarget()}); err != nil {
			r.logf("teardown: %v", err)
			if out.Status == results.StatusDone {
				out.Status = results.StatusFailed
				out.ErrorsFailed++
			}
		} else {
			r.logFile("teardown: done")
		}
		if err := r.globals.restore(ctx, r.logFile); err != nil {
			r.logf("warning: %v", err)
		}
		r.fleet.dropCreated(ctx)
		for i := range r.info.Targets {
			ti := &r.info.Targets[i]
			if s := r.fleet.targets[ti.Name]; s != nil {
				if vars, err := target.Variables(ctx, s.db); err == nil {
					ti.VariablesAfter = vars
				}
			}
		}
	}
	if r.watch != nil {
		r.watch.Close()
	}
	r.closeBarrier(ctx)
	r.fleet.stop(ctx)
	end := time.Now().UTC()
	r.info.End = &end
	r.info.Status = out.Status
	if runErr != nil {
		r.info.Error = r.log.redact(runErr.Error())
	}
	r.saveInfo()
	if err := r.out.Sync(); err != nil {
		r.logf("warning: sync results: %v", err)
	}
	r.logFile("run %s after %s: %s; results in %s", out.Status, end.Sub(r.info.Start).Round(time.Second), tally(r.info), r.out.Dir)
}

// tally counts the run's iterations by status: "3 done, 1 failed, 2 skipped". An
// iteration an interrupt kept from starting is "not started", not "interrupted" (run.json
// keeps it interrupted, so that --resume runs it).
func tally(info *results.RunInfo) string {
	n := map[string]int{}
	var order []string
	for _, it := range info.Iterations {
		st := it.Status
		if st == results.StatusInterrupted && it.Start.IsZero() {
			st = "not started"
		}
		if n[st] == 0 {
			order = append(order, st)
		}
		n[st]++
	}
	var parts []string
	for _, st := range order {
		parts = append(parts, fmt.Sprintf("%d %s", n[st], st))
	}
	if len(parts) == 0 {
		return "no iterations"
	}
	return fmt.Sprintf("%d iteration(s): %s", len(info.Iterations), strings.Join(parts, ", "))
}

var errInterrupted = errors.New("interrupted")

// open starts the fleet, binds the plan to the servers' addresses, and checks the accounts,
// the shards' barrier, the watchers and the preflight, before anything runs on a target.
func (r *runner) open(ctx context.Context) error {
	if err := r.fleet.start(ctx, firstPending(r.plan, r.info)); err != nil {
		return err
	}
	var err error
	if r.info.ClientHost == nil {
		r.info.ClientHost = clientHost(r.logFile)
	}
	if r.info.Targets, err = r.fleet.describe(ctx, r.info.ClientHost); err != nil {
		return err
	}
	r.saveInfo()
	if len(r.plan.Unbound) > 0 {
		addrs := map[string]spec.Addr{}
		for name, s := range r.fleet.targets {
			addrs[name] = spec.Addr{Host: s.Host(), Port: s.Port()}
		}
		bound, err := r.plan.Bind(addrs)
		if err != nil {
			return fmt.Errorf("bind target addresses: %w", err)
		}
		r.plan, r.fleet.plan = bound, bound
		r.log.setPlan(bound)
	}
	// What the accounts lack and the status names the servers do not have are both the
	// plan's to fix: one message says them all, so the user does not learn them a run at a time.
	privErr := r.checkPrivileges(ctx)
	if r.opts.RunID != "" || r.opts.Shard.Sharded() {
		if err := errors.Join(privErr, r.openBarrier(ctx)); err != nil {
			return err
		}
	}
	if r.watch, err = collect.Open(ctx, r.plan, r.fleet.watchTargets(r.opts.watchVia), r.leader(), r.collect, r.opts.Samplers); err != nil {
		if errors.Is(err, watch.ErrUnknownName) {
			if privErr != nil {
				err = fmt.Errorf("%w\n  %w", privErr.(*PlanError).Err, err)
			}
			err = &PlanError{Err: err}
		}
		return err
	}
	if privErr != nil {
		return privErr // finish closes the watchers
	}
	r.watch.Record(r.plan, r.info.Targets)
	r.watch.SNMPMachines(ctx, r.info.Targets)
	r.saveInfo()
	return r.preflight(ctx)
}

// setup runs the plan's setup steps, meets the other shards after them, and snapshots what
// the iterations restore.
func (r *runner) setup(ctx context.Context) error {
	if err := r.steps.run(ctx, r.plan.Setup, stepScope{phase: spec.PhaseSetup, target: r.plan.DefaultTarget()}); err != nil {
		return fmt.Errorf("setup: %w", err)
	}
	if err := r.meet(ctx, "setup"); err != nil {
		return err
	}
	return r.snapshot(ctx)
}
