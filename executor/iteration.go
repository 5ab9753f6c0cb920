package executor

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/results/measure"
	"github.com/quadrant-bench/quadrant/spec"
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
	x := &iteration{r: r, it: it, info: info, target: r.plan.TargetOf(it), records: map[string]float64{}}
	x.watched = []string{x.target}
	info.Start = time.Now().UTC()
	info.Status = results.StatusRunning
	info.Error, info.Failed, info.Warnings = "", nil, nil
	r.saveInfo()
	r.logf("iteration %d/%d%s", it.Index, len(r.plan.Iterations), describeCell(it))
	err := x.run(ctx)
	x.end(ctx, err)
	return info.Status
}

// run does the iteration's work up to its after steps; the error is the first failure.
func (x *iteration) run(ctx context.Context) error {
	r, it := x.r, x.it
	s := r.fleet.servers[x.target]
	if s == nil {
		return fmt.Errorf("no target: set iteration.target (the plan has %d targets)", len(r.fleet.servers))
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
	if err := x.measure(ctx, s); err != nil {
		return err
	}
	return r.steps.run(ctx, it.After, x.scope(spec.PhaseAfter))
}

func (x *iteration) scope(phase string) stepScope {
	return stepScope{phase: phase, target: x.target, it: x.it, metrics: x.records}
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
		info.Failed = x.assertions()
		info.Status = results.StatusDone
		if len(info.Failed) > 0 {
			info.Status = results.StatusFailed
			x.r.logf("iteration %d: assertions failed: %s", x.it.Index, strings.Join(info.Failed, "; "))
		}
	}
	if err != nil {
		x.r.logf("iteration %d: %s: %v", x.it.Index, info.Status, err)
	}
	x.summarize()
}

// prepare applies the iteration's server_config (a sandbox restarts only when its
// effective config changes) and its globals.
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
	if s.sb != nil || len(it.ServerConfig) > 0 {
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
	return nil
}

// measure runs the iteration's workload with its watchers and `during` steps; every
// interval becomes a time-series row per watched target as soon as it is sampled.
func (x *iteration) measure(ctx context.Context, s *liveTarget) error {
	r, it := x.r, x.it
	r.watch.use(ctx, x.target, x.watched, r.logf)
	hl, err := r.out.OpenHistogramLog(s.Name(), it.Index, time.Now())
	if err != nil {
		return fmt.Errorf("histogram log: %w", err)
	}
	defer hl.Close()

	rows := newRowWriter(rowInputs{
		out: r.out, samplers: r.watch, histograms: hl, obs: r.obs, logf: r.logf, failed: r.resultsFailed,
		iteration: it.Index, target: s.Name(), reportInterval: it.Workload.ReportInterval,
		progress: Progress{Measured: true, Iteration: it.Index, Of: len(r.plan.Iterations), Cell: strings.TrimPrefix(describeCell(it), ": "), Target: s.Name(),
			OpenLoop: it.Workload.OpenLoop(), Length: it.Workload.Duration, Left: r.remaining(it.Index)},
	})
	ev := x.evidenceBefore(ctx, s)
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
	total, werr := r.runWorkload(ctx, s, it.Workload, "", rows.interval, ready)
	rows.close()
	var derr error
	if during != nil {
		derr = during.stop()
	}
	if werr == nil && r.barrier != nil {
		// The leader's after steps must see every shard's load finished.
		werr = r.meet(ctx, fmt.Sprintf("iteration %d end", it.Index))
	}
	x.evidenceAfter(ctx, s, ev)
	x.m = &measurement{total: total, summary: r.watch.summaries(), duration: time.Since(began)}
	x.clientBound(x.m.summary[x.target], time.Since(began))
	for name, cm := range rows.costs {
		x.m.summary[name] = append(x.m.summary[name], cm.Total()...)
	}
	x.m.stageCosts = map[int][]measure.Value{}
	for stage, cm := range rows.stageCosts {
		x.m.stageCosts[stage] = cm.Total()
	}
	if total != nil {
		x.m.duration = total.End.Sub(total.Start)
	}
	switch {
	case werr != nil && ctx.Err() != nil:
		return errInterrupted
	case werr != nil:
		return fmt.Errorf("workload: %w", groupWorkerErrors(werr, it.Workload.Threads))
	}
	return derr
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

// summarize appends the iteration's summary rows, one per watched target, once its status
// is known (after the after steps, whose record_as metrics they carry, and the assertions).
func (x *iteration) summarize() {
	m := x.m
	if m == nil {
		m = &measurement{}
	}
	var records []measure.Value
	for _, k := range sortedKeys(x.records) {
		records = append(records, measure.Value{Name: k, Value: x.records[k]})
	}
	for _, name := range x.watched {
		o := &results.SummaryRow{
			Iteration: x.it.Index, Repeat: x.it.Repeat, Matrix: matrixFields(*x.it), Target: name,
			Status: x.info.Status, Duration: m.duration, Watched: m.summary[name],
			NotMeasured: m.total == nil, // never started: what the samplers saw meanwhile is not the workload's
		}
		if name == x.target {
			o.Total, o.Records = m.total, records
			if err := x.r.out.AppendReplay(x.it.Index, name, m.total); err != nil {
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
			if err := x.r.out.AppendSummary(so); err != nil {
				x.r.resultsFailed(err)
			}
		}
	}
	if err := x.r.out.Sync(); err != nil {
		x.r.logf("warning: sync results: %v", err)
	}
}

// remaining is the workload time (durations and warmups) of the iterations after index;
// restarts, steps and event-bounded workloads come on top.
func (r *runner) remaining(index int) time.Duration {
	var d time.Duration
	for _, it := range r.plan.Iterations[index:] {
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

// rowInputs is everything a rowWriter uses: where rows go, who samples, who watches.
type rowInputs struct {
	out            *results.Writer
	samplers       *watchers
	histograms     *results.HistogramLog
	obs            Observer
	logf           func(string, ...any)
	iteration      int
	target         string // the workload's: its rows get the workload's figures
	reportInterval time.Duration
	progress       Progress    // where the run stands, completed with each interval for the observer
	failed         func(error) // a row could not be written: the run stops
}

// rowWriter turns intervals into time-series rows. The workload's ticker hands over an
// interval and goes on at once; samplers read their sources right away, concurrently,
// and a single goroutine writes rows in interval order.
type rowWriter struct {
	rowInputs
	queue chan *pending
	done  chan struct{}
	costs map[string]*measure.CostMeter // per target; read once the writer closed
	// stageCosts: the workload's target's costs per stage of a load shape; read once closed.
	stageCosts map[int]*measure.CostMeter
	downAt     time.Time // start of a window with no successful event, for the log
	downErr    int64
	warm       bool // a warmup interval was seen and the measured part has not begun yet
}

// pending is an interval waiting for its samplers.
type pending struct {
	iv      *measure.Interval
	samples []sampled
	wg      sync.WaitGroup
}

func newRowWriter(in rowInputs) *rowWriter {
	rw := &rowWriter{rowInputs: in, queue: make(chan *pending, 1024), done: make(chan struct{}), costs: map[string]*measure.CostMeter{},
		stageCosts: map[int]*measure.CostMeter{}}
	go rw.loop()
	return rw
}

// interval is the workload's OnInterval.
func (rw *rowWriter) interval(iv *measure.Interval) {
	tk := rw.progress
	tk.Interval = iv
	rw.obs.Interval(tk)
	t := &pending{iv: iv}
	measuredFrom := rw.warm && !iv.Warmup
	rw.warm = iv.Warmup
	t.samples = rw.samplers.sample(iv.End, iv.End.Sub(iv.Start), measuredFrom, &t.wg)
	select {
	case rw.queue <- t:
	default:
		// The writer is more than 1024 intervals behind (a stalled disk): keep the
		// workload's clock running and say so rather than block it.
		rw.out.Logf("warning: iteration %d: time-series writer behind, interval %d dropped", rw.iteration, iv.Index)
	}
}

func (rw *rowWriter) close() {
	close(rw.queue)
	<-rw.done
}

func (rw *rowWriter) loop() {
	defer close(rw.done)
	defer func() {
		if p := recover(); p != nil {
			rw.logf("warning: iteration %d: internal error writing the time series: %v (rows from here on are lost)", rw.iteration, p)
			for range rw.queue { // keep the workload's clock from blocking
			}
		}
	}()
	for t := range rw.queue {
		t.wg.Wait()
		rw.write(t)
	}
}

func (rw *rowWriter) write(t *pending) {
	iv := t.iv
	rw.downtime(iv)
	for _, name := range rw.samplers.targets {
		row := &results.TimeseriesRow{Iteration: rw.iteration, Interval: iv, ReportInterval: rw.reportInterval, Workload: name == rw.target}
		for _, smp := range t.samples {
			if smp.target != name {
				continue
			}
			for i, c := range smp.cols {
				row.Watched = append(row.Watched, measure.Value{Name: c.Name, Value: smp.values[i]})
			}
		}
		cm := rw.costs[name]
		if cm == nil {
			cm = measure.NewCostMeter()
			rw.costs[name] = cm
		}
		if name == rw.target && iv.Stage > 0 {
			sm := rw.stageCosts[iv.Stage]
			if sm == nil {
				sm = measure.NewCostMeter()
				rw.stageCosts[iv.Stage] = sm
			}
			sm.Interval(iv, row.Watched)
		}
		row.Watched = append(row.Watched, cm.Interval(iv, row.Watched)...)
		if err := rw.out.AppendTimeseries(name, row); err != nil {
			rw.failed(err)
			return
		}
		if wo, ok := rw.obs.(WatchObserver); ok && len(row.Watched) > 0 {
			p := rw.progress
			p.Interval = iv
			wo.Watched(p, name, row.Watched)
		}
	}
	for _, smp := range t.samples {
		if smp.warn != nil {
			rw.logf("warning: iteration %d: %v", rw.iteration, smp.warn)
		}
	}
	if err := rw.histograms.Write(iv); err != nil {
		rw.failed(err)
	}
}

// connectionErrors are the client and server codes of a server that went away: lost or
// refused connections, a shutdown in progress.
var connectionErrors = []int{2002, 2003, 2006, 2013, 2055, 1053, 1927}

// downtime logs the window in which the workload's target was unreachable: from the first
// interval with connection errors to the first one that completed transactions without
// any (to the report interval's precision).
func (rw *rowWriter) downtime(iv *measure.Interval) {
	var lost int64
	for _, code := range connectionErrors {
		lost += iv.ErrorsByCode[code]
	}
	switch {
	case lost > 0 || (iv.Events == 0 && iv.Errors > 0):
		if rw.downAt.IsZero() {
			rw.downAt = iv.Start
			rw.logf("iteration %d: %s unreachable from about %s (errors by code %v)", rw.iteration, rw.target, iv.Start.UTC().Format("15:04:05.000"), iv.ErrorsByCode)
		}
		rw.downErr += iv.Errors
	case iv.Events > 0 && !rw.downAt.IsZero():
		rw.logf("iteration %d: %s answering again at about %s, after at most %.1fs (%d errors in the window)",
			rw.iteration, rw.target, iv.End.UTC().Format("15:04:05.000"), iv.End.Sub(rw.downAt).Seconds(), rw.downErr)
		rw.downAt, rw.downErr = time.Time{}, 0
	}
}

// assertions evaluates the iteration's assert expressions; it returns the false (or
// failing) ones, each with the values it saw.
func (x *iteration) assertions() []string {
	it, m := x.it, x.m
	if len(it.Assert) == 0 {
		return nil
	}
	env := map[string]any{}
	txVals := map[string]float64{}
	if m != nil && m.total != nil {
		fixed, family := measure.TotalValues(m.total)
		for _, v := range fixed {
			env[v.Name] = v.Value
		}
		for _, v := range family {
			txVals[v.Name] = v.Value
		}
	}
	if it.Workload != nil && it.Workload.Connect == "per_transaction" {
		for _, n := range measure.ConnectNames {
			env[n] = math.NaN()
			if v, ok := txVals[n]; ok {
				env[n] = v
			}
		}
	}
	if txs := it.Workload.TxNames(); len(txs) > 0 {
		env["tx"] = spec.TxMetrics(txs, func(name, suffix string) float64 {
			if v, ok := txVals["tx."+name+"."+suffix]; ok {
				return v
			}
			return math.NaN()
		})
	}
	if stmts := it.Workload.StmtNames(); len(stmts) > 0 {
		env["stmt"] = spec.StmtMetrics(stmts, func(class, suffix string) float64 {
			if v, ok := txVals["stmt."+class+"."+suffix]; ok {
				return v
			}
			return math.NaN()
		})
	}
	status := map[string]float64{}
	if m != nil {
		for _, v := range m.summary[x.target] {
			if n, ok := strings.CutPrefix(v.Name, "status."); ok {
				// MySQL's names are case-insensitive: status.com_select works too.
				status[n] = v.Value
				status[strings.ToLower(n)] = v.Value
			}
		}
	}
	env["status"] = status
	for _, name := range x.r.plan.RecordNames() {
		env[name] = math.NaN()
	}
	for k, v := range x.records {
		env[k] = v
	}
	var failed []string
	for i := range it.Assert {
		a := &it.Assert[i]
		if miss := missingStatus(a.Source, status); miss != "" {
			failed = append(failed, fmt.Sprintf("%s: %s", a.Source, miss))
			continue
		}
		ok, err := a.EvalBool(env)
		switch {
		case err != nil:
			failed = append(failed, fmt.Sprintf("%s: %v", a.Source, err))
		case !ok:
			failed = append(failed, a.Source+seen(a.Source, env))
		}
	}
	return failed
}

// missingStatus says which status.NAME of an assertion the iteration has no value for
// ("" when it has them all): a missing key would read as 0.
func missingStatus(src string, status map[string]float64) string {
	var miss []string
	for _, m := range spec.StatusRef.FindAllStringSubmatch(src, -1) {
		if _, ok := status[m[1]]; !ok {
			if _, ok := status[strings.ToLower(m[1])]; !ok {
				miss = append(miss, "status."+m[1])
			}
		}
	}
	if len(miss) == 0 {
		return ""
	}
	return "no value for " + strings.Join(miss, ", ") + " (not a watched column of this target)"
}

// seen lists the metric values an assertion used, so a failure says why.
func seen(src string, env map[string]any) string {
	var parts []string
	for _, k := range sortedKeys(env) {
		v, ok := env[k].(float64)
		if ok && containsWord(src, k) {
			parts = append(parts, fmt.Sprintf("%s=%s", k, results.FormatFloat(v)))
		}
	}
	for _, root := range []string{"tx", "stmt"} {
		named, ok := env[root].(map[string]any)
		if !ok {
			continue
		}
		for _, n := range sortedKeys(named) {
			per, _ := named[n].(map[string]any)
			for _, sfx := range sortedKeys(per) {
				if name := root + "." + n + "." + sfx; containsWord(src, name) {
					parts = append(parts, fmt.Sprintf("%s=%s", name, results.FormatFloat(per[sfx].(float64))))
				}
			}
		}
	}
	if st, ok := env["status"].(map[string]float64); ok {
		for _, k := range sortedKeys(st) {
			if strings.Contains(src, "status."+k) {
				parts = append(parts, fmt.Sprintf("status.%s=%s", k, results.FormatFloat(st[k])))
			}
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

func containsWord(s, w string) bool {
	for i := strings.Index(s, w); i >= 0; {
		before := i == 0 || !isIdent(s[i-1])
		after := i+len(w) == len(s) || !isIdent(s[i+len(w)])
		if before && after {
			return true
		}
		j := strings.Index(s[i+1:], w)
		if j < 0 {
			return false
		}
		i += j + 1
	}
	return false
}

func isIdent(c byte) bool {
	return c == '_' || c == '.' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
