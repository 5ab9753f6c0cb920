package executor

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/quadrant-bench/quadrant/executor/collect"
	"github.com/quadrant-bench/quadrant/executor/internal/loadavg"
	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/results/measure"
	"github.com/quadrant-bench/quadrant/spec"
	"github.com/quadrant-bench/quadrant/spec/verdict"
)

// iteration is one run of a matrix cell: its line in run.json, the record_as metrics its
// steps fill, the targets watched while its workload runs, and what the workload measured.
// Its life: prepare the server, before steps, measure, after steps, assert, summarize.
type iteration struct {
	r       *runner
	it      *spec.Iteration
	info    *results.IterationInfo
	target  string // the workload's
	watched []string
	records map[string]float64
	marks   *marks
	m       *measurement // nil until the workload started
}

// measurement is what one measured workload produced.
type measurement struct {
	total    *measure.Total
	summary  map[string][]measure.Value // per target: counters' increases, gauges' last values
	duration time.Duration
	// stageCosts are the cost.* columns of each stage of a load shape (by stage), on the
	// workload's target: what a transaction cost at each level of load.
	stageCosts map[int][]measure.Value
}

// runIteration runs one matrix cell and returns its status; info is updated in place.
func (r *runner) runIteration(ctx context.Context, it *spec.Iteration, info *results.IterationInfo) string {
	x := &iteration{r: r, it: it, info: info, target: r.plan.TargetOf(it), records: map[string]float64{}, marks: &marks{}}
	x.watched = []string{x.target}
	info.Start = time.Now().UTC()
	info.Status = results.StatusRunning
	info.Error, info.Failed, info.Warnings, info.Stall, info.Behind, info.Events = "", nil, nil, nil, nil, nil
	info.WatchGaps = nil
	r.saveInfo()
	r.logf("iteration %d/%d%s", it.Index, len(r.plan.Iterations), describeCell(it))
	err := x.run(ctx)
	x.end(ctx, err)
	if o, ok := r.obs.(IterationObserver); ok {
		var total *measure.Total
		if x.m != nil {
			total = x.m.total
		}
		o.IterationEnded(Progress{Measured: total != nil, Iteration: it.Index, Of: len(r.plan.Iterations),
			Cell: strings.TrimPrefix(describeCell(it), ": "), Target: x.target, Figures: x.figures()}, *info, total)
	}
	return info.Status
}

// run does the iteration's work up to its after steps; the error is the first failure.
func (x *iteration) run(ctx context.Context) error {
	r, it := x.r, x.it
	s := r.fleet.targets[x.target]
	if s == nil {
		return fmt.Errorf("no target: set iteration.target (the plan has %d targets)", len(r.fleet.targets))
	}
	if err := x.prepare(ctx, s); err != nil {
		return err
	}
	sc := x.scope(spec.PhaseBefore)
	if err := r.steps.run(ctx, it.Before, sc); err != nil {
		return err
	}
	x.watched = r.fleet.watched(it, x.target)
	if !r.leader() {
		x.watched = []string{x.target} // only the leader watches; this shard's rows carry its workload
	}
	x.info.Variables = r.fleet.variablesNow(ctx, x.watched)
	x.info.HostLoad = nil
	start := hostLoad()
	sampler := loadavg.Sample()
	links := r.fleet.markLinks()
	err := x.measure(ctx, s)
	runnable, sampled := sampler.Stop()
	r.fleet.linkUsage(it.Index, x.info.Links, links)
	if end := hostLoad(); start != nil && end != nil {
		x.info.HostLoad = &results.HostLoad{CPUs: loadavg.CPUs(), Start: start, End: end}
		if sampled {
			x.info.HostLoad.Runnable = runnable
		}
	}
	if err != nil {
		return err
	}
	return r.steps.run(ctx, it.After, x.scope(spec.PhaseAfter))
}

func (x *iteration) scope(phase string) stepScope {
	return stepScope{phase: phase, target: x.target, it: x.it, metrics: x.records, marks: x.marks}
}

// end settles the iteration's status (interrupted, failed, or what its assertions say)
// and writes its summary rows.
func (x *iteration) end(ctx context.Context, err error) {
	info := x.info
	endAt := time.Now().UTC()
	info.End = &endAt
	switch {
	case err != nil && writeFailure(ctx) != nil:
		info.Status, info.Error = results.StatusFailed, writeFailure(ctx).Error()
	case err != nil && (errors.Is(err, errInterrupted) || ctx.Err() != nil):
		info.Status, info.Error = results.StatusInterrupted, "interrupted"
	case err != nil:
		info.Status, info.Error = results.StatusFailed, x.r.log.redact(err.Error())
	case x.r.opts.Shard.Sharded():
		// One shard's numbers are a part: assertions hold over the merged run (quadrant merge).
		info.Status = results.StatusDone
	default:
		// The iteration's assert: expressions, on its summary row as the folder will have it;
		// quadrant merge judges a sharded run's merged row with the same evaluator.
		info.Failed = verdict.Failed(x.r.plan, x.it, x.summaryRow(x.target).Figures())
		info.Status = results.StatusDone
		if len(info.Failed) > 0 {
			info.Status = results.StatusFailed
			x.r.logf("iteration %d: assertions failed: %s", x.it.Index, strings.Join(info.Failed, "; "))
		}
	}
	x.r.log.ended(x.it, len(x.r.plan.Iterations), info, err, x.m)
	x.summarize()
}

// prepare moves the sandboxes (sandbox.dir), restores the targets (restore:), applies the
// iteration's server_config (a sandbox restarts only when its effective config changes)
// and its globals, and shapes and probes the sandboxes' links (sandbox.links).
func (x *iteration) prepare(ctx context.Context, s *liveTarget) error {
	r, it := x.r, x.it
	if !r.leader() {
		return nil // the server is the leader's to configure
	}
	x.info.Storage = nil
	storage, err := r.fleet.place(ctx, it)
	x.info.Storage = storage
	if err != nil {
		return err
	}
	if err := x.restore(ctx); err != nil {
		return err
	}
	r.fleet.resetFronts()
	if s.sb != nil || len(it.ServerConfig) > 0 {
		r.fleet.exited(it.Index, s)
		restarted, err := s.restart(ctx, it.ServerConfig)
		if err != nil {
			return fmt.Errorf("server_config: %w", err)
		}
		if restarted {
			r.logf("iteration %d: %s restarted with its server_config", it.Index, s.Name())
		}
	}
	for _, kv := range it.Globals {
		r.logFile("iteration %d: SET GLOBAL %s = %v on %s", it.Index, kv.Name, kv.Value, s.Name())
		if err := r.globals.set(ctx, s, kv.Name, kv.Value); err != nil {
			return fmt.Errorf("globals: %w", err)
		}
	}
	x.info.Storage = r.fleet.storage(ctx, it.Index, x.info.Storage)
	x.info.Links = r.fleet.shapeLinks(ctx, it)
	return nil
}

// measure runs the iteration's workload with its watchers and `during` steps; every
// interval becomes a time-series row per watched target as soon as it is sampled.
func (x *iteration) measure(ctx context.Context, s *liveTarget) error {
	r, it := x.r, x.it
	r.watch.Use(ctx, x.target, x.watched, r.logf)
	hl, err := r.out.OpenHistogramLog(s.Name(), it.Index, time.Now())
	if err != nil {
		return fmt.Errorf("histogram log: %w", err)
	}
	defer hl.Close()

	progress := Progress{Measured: true, Iteration: it.Index, Of: len(r.plan.Iterations), Cell: strings.TrimPrefix(describeCell(it), ": "), Target: s.Name(),
		OpenLoop: it.Workload.OpenLoop(), Length: it.Workload.Duration, Left: remaining(r.plan, it.Index), Stages: it.Workload.Stages}
	rows := collect.NewRows(collect.RowInputs{
		Out: r.out, Watchers: r.watch, Histograms: hl, Logf: r.logf, Failed: r.resultsFailed,
		Iteration: it.Index, Target: s.Name(), ReportInterval: it.Workload.ReportInterval,
		OnInterval: func(iv *measure.Interval) { p := progress; p.Interval = iv; r.obs.Interval(p) },
		OnWatched:  watchedBy(r.obs, progress),
	})
	var ev *collect.Evidence
	if r.leader() { // a sharded run's evidence is the leader's, as its watchers are
		ev = collect.StartEvidence(ctx, r.collect, &r.plan.Watch, it.Index, r.watch.Target(s.Name()))
	}
	var during *duringSteps
	var ready func(context.Context) error
	if r.barrier == nil {
		during = r.steps.during(ctx, it, x.scope(spec.PhaseDuring))
	} else {
		// during steps' offsets count from the common start, which comes after the barrier.
		ready = func(ctx context.Context) error {
			if err := r.meet(ctx, fmt.Sprintf("iteration %d start", it.Index)); err != nil {
				return err
			}
			if r.leader() { // steps are the leader's
				during = r.steps.during(ctx, it, x.scope(spec.PhaseDuring))
			}
			return nil
		}
	}
	r.logf("iteration %d: %s on %s", it.Index, it.Workload, s.Name())
	began := time.Now()
	onInterval := func(iv *measure.Interval) { x.marks.interval(iv); rows.Interval(iv) }
	total, werr := r.runWorkload(ctx, s, it.Workload, "", onInterval, ready)
	rows.Close()
	var derr error
	if during != nil {
		derr = during.stop()
	}
	if werr == nil && r.barrier != nil {
		// The leader's after steps must see every shard's load finished.
		werr = r.meet(ctx, fmt.Sprintf("iteration %d end", it.Index))
	}
	ev.Finish(ctx)
	r.watch.Settle(ctx, r.logf)
	x.m = &measurement{total: total, summary: r.watch.Summaries(), duration: time.Since(began)}
	x.clientBound(x.m.summary[x.target], time.Since(began))
	for name, costs := range rows.Costs() {
		x.m.summary[name] = append(x.m.summary[name], costs...)
	}
	x.m.stageCosts = rows.StageCosts()
	if total != nil {
		x.m.duration = total.End.Sub(total.Start)
	}
	if total != nil {
		x.info.Events = x.marks.events(total.Start)
	}
	gaps, warnings, gerr := r.watch.GapWarnings(r.plan.Watch.OnError)
	x.info.WatchGaps = gaps
	for _, w := range warnings {
		x.info.Warnings = append(x.info.Warnings, w)
		r.logf("warning: iteration %d: %s", it.Index, w)
	}
	if st := rows.Stall(it.Workload.Duration, total); st != nil {
		x.info.Stall = st
		w := fmt.Sprintf("stalled: %s; the figures average over the stop: run the cell again (repeat: shows how often it happens)", st)
		x.info.Warnings = append(x.info.Warnings, w)
		r.logf("warning: iteration %d: %s", it.Index, w)
	}
	if b := rows.Behind(total); b != nil {
		x.info.Behind = b
		w := collect.BehindWarning(b)
		x.info.Warnings = append(x.info.Warnings, w)
		r.logf("warning: iteration %d: %s", it.Index, w)
	}
	switch {
	case werr != nil && ctx.Err() != nil:
		return errInterrupted
	case werr != nil:
		return fmt.Errorf("workload: %w", groupWorkerErrors(werr, it.Workload.Threads))
	case derr != nil:
		return derr
	}
	return gerr
}

// clientBound warns when quadrant itself used 80% of a core or more while the workload ran: then the
// client, not the server, may be what limits throughput, and a faster server would not show.
func (x *iteration) clientBound(summary []measure.Value, took time.Duration) {
	for _, v := range summary {
		if v.Name != "client.cpu_us" || took <= 0 {
			continue
		}
		if cores := v.Value / float64(took.Microseconds()); cores >= 0.8 {
			x.r.logf("warning: iteration %d: quadrant used %.0f%% of a core while the workload ran: results may be client-bound (fewer threads, a lighter workload or a client on another machine tell)", x.it.Index, cores*100)
		}
	}
}

// summaryRow is the iteration's summary row of target name, with the status known so far;
// the workload's target's row has the workload's figures and the record_as values.
func (x *iteration) summaryRow(name string) *results.SummaryRow {
	m := x.m
	if m == nil {
		m = &measurement{}
	}
	o := &results.SummaryRow{
		Iteration: x.it.Index, Repeat: x.it.Repeat, Matrix: matrixFields(*x.it), Target: name,
		Status: x.info.Status, Duration: m.duration, Watched: m.summary[name],
		NotMeasured: m.total == nil, // never started: what the samplers saw meanwhile is not the workload's
	}
	if name == x.target {
		o.Total = m.total
		for _, k := range sortedKeys(x.records) {
			o.Records = append(o.Records, measure.Value{Name: k, Value: x.records[k]})
		}
	}
	return o
}

// summarize appends the iteration's summary rows, one per watched target, once its status
// is known (after the after steps, whose record_as metrics they carry, and the assertions).
func (x *iteration) summarize() {
	m := x.m
	if m == nil {
		m = &measurement{}
	}
	for _, name := range x.watched {
		o := x.summaryRow(name)
		if name == x.target {
			if err := x.r.out.AppendTables(x.it.Index, name, m.total); err != nil {
				x.r.resultsFailed(err)
			}
		}
		if err := x.r.out.AppendSummary(o); err != nil {
			x.r.resultsFailed(err)
		}
		if name != x.target || m.total == nil {
			continue
		}
		// A load shape's stages: a row each, with the workload's figures and the costs per
		// transaction over the stage (watched counters are summarized per iteration only).
		for _, st := range m.total.Stages {
			so := &results.SummaryRow{
				Iteration: x.it.Index, Repeat: x.it.Repeat, Matrix: matrixFields(*x.it), Target: name, Stage: st.Stage,
				Status: x.info.Status, Duration: st.End.Sub(st.Start), Total: st, Watched: m.stageCosts[st.Stage],
			}
			if k := st.Stage - 1; k < len(x.it.Workload.Stages) {
				so.StageThreads, so.StageRate = x.it.Workload.Stages[k].Threads, x.it.Workload.Stages[k].Rate
			}
			if err := x.r.out.AppendSummary(so); err != nil {
				x.r.resultsFailed(err)
			}
		}
	}
	if err := x.r.out.Sync(); err != nil {
		x.r.logf("warning: sync results: %v", err)
	}
}

// remaining is the workload time (durations and warmups) of p's iterations after index;
// restarts, steps and event-bounded workloads come on top.
func remaining(p *spec.Plan, index int) time.Duration {
	var d time.Duration
	for _, it := range p.Iterations[index:] {
		if it.Workload != nil {
			d += it.Workload.Duration + it.Workload.Warmup
		}
	}
	return d
}

func describeCell(it *spec.Iteration) string {
	var parts []string
	for _, av := range it.Matrix {
		parts = append(parts, fmt.Sprintf("%s=%v", av.Axis, av.Value))
	}
	if it.Repeat > 1 {
		parts = append(parts, fmt.Sprintf("repeat %d", it.Repeat))
	}
	if len(parts) == 0 {
		return ""
	}
	return ": " + strings.Join(parts, " ")
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// workerErrors is a workload's failure to start many workers, told once per distinct reason with how many
// workers had it, not once per worker: 400 lines of "Too many connections" hide the one that differs.
type workerErrors struct {
	msg  string
	errs error
}

func (e *workerErrors) Error() string { return e.msg }
func (e *workerErrors) Unwrap() error { return e.errs }

// groupWorkerErrors groups a joined error of workers ("NAME worker N: REASON") by reason, most frequent
// first: "398 of 400 workers could not connect: Error 1040 (08004): Too many connections (x398), ...".
// Any other error is returned as it is.
func groupWorkerErrors(err error, threads int) error {
	joined, ok := err.(interface{ Unwrap() []error })
	if !ok || len(joined.Unwrap()) < 2 {
		return err
	}
	errs := joined.Unwrap()
	count := map[string]int{}
	var order []string
	connect := true
	for _, e := range errs {
		reason := e.Error()
		if i := strings.Index(reason, "worker "); i >= 0 {
			if j := strings.Index(reason[i:], ": "); j >= 0 {
				reason = reason[i+j+2:]
			}
		}
		connect = connect && strings.HasPrefix(reason, "connect: ")
		if count[reason] == 0 {
			order = append(order, reason)
		}
		count[reason]++
	}
	// Most frequent first; ties in order of appearance.
	for i := 1; i < len(order); i++ {
		for j := i; j > 0 && count[order[j]] > count[order[j-1]]; j-- {
			order[j], order[j-1] = order[j-1], order[j]
		}
	}
	what := "could not start"
	var parts []string
	for _, reason := range order {
		shownAs := reason
		if connect {
			shownAs = strings.TrimPrefix(reason, "connect: ")
		}
		parts = append(parts, fmt.Sprintf("%s (x%d)", shownAs, count[reason]))
	}
	if connect {
		what = "could not connect"
	}
	const shown = 5
	if len(parts) > shown {
		parts = append(parts[:shown], fmt.Sprintf("and %d other reasons", len(parts)-shown))
	}
	total := max(threads, len(errs))
	return &workerErrors{msg: fmt.Sprintf("%d of %d workers %s: %s", len(errs), total, what, strings.Join(parts, ", ")), errs: err}
}
