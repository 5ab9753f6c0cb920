package executor

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/results/measure"
	"github.com/quadrant-bench/quadrant/spec"
)

// iteration runs one matrix cell and returns its status; info is updated in place.
func (r *runner) iteration(ctx context.Context, it *spec.Iteration, info *results.IterationInfo) string {
	info.Start = time.Now().UTC()
	info.Status = results.StatusRunning
	info.Error, info.Failed, info.Warnings = "", nil, nil
	r.saveInfo()
	r.logf("iteration %d/%d%s", it.Index, len(r.plan.Iterations), describeCell(it))

	name := it.Target
	if name == "" {
		name = defaultTarget(r.plan)
	}
	s := r.servers[name]
	metrics := map[string]float64{}
	watched := []string{name}
	var measured *measurement // what the workload measured, also when a later step fails
	sc := stepScope{phase: "before", target: name, it: it, metrics: metrics}

	fail := func(err error) string {
		end := time.Now().UTC()
		info.End = &end
		if errors.Is(err, errInterrupted) || ctx.Err() != nil {
			info.Status = results.StatusInterrupted
			info.Error = "interrupted"
		} else {
			info.Status = results.StatusFailed
			info.Error = r.redact(err.Error())
		}
		r.logf("iteration %d: %s: %v", it.Index, info.Status, err)
		if measured == nil {
			measured = &measurement{}
		}
		r.writeSummary(it, info, name, watched, measured, metrics)
		return info.Status
	}
	if s == nil {
		return fail(fmt.Errorf("no target: set iteration.target (the plan has %d targets)", len(r.servers)))
	}
	if err := r.prepareServer(ctx, s, it); err != nil {
		return fail(err)
	}
	if err := r.steps(ctx, it.Before, sc); err != nil {
		return fail(err)
	}
	watched = r.watchedTargets(it, name)
	info.Variables = r.variablesNow(ctx, watched)

	m, err := r.measure(ctx, it, s, watched, sc)
	measured = m
	if err != nil {
		return fail(err)
	}
	sc.phase = "after"
	if err := r.steps(ctx, it.After, sc); err != nil {
		return fail(err)
	}
	end := time.Now().UTC()
	info.End = &end
	info.Failed = r.assertions(it, m, metrics)
	info.Status = results.StatusDone
	if len(info.Failed) > 0 {
		info.Status = results.StatusFailed
		r.logf("iteration %d: assertions failed: %s", it.Index, strings.Join(info.Failed, "; "))
	}
	r.writeSummary(it, info, name, watched, m, metrics)
	return info.Status
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

// prepareServer applies the iteration's server_config (a sandbox restarts only when its
// effective config changes) and its globals.
func (r *runner) prepareServer(ctx context.Context, s *server, it *spec.Iteration) error {
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

// watchedTargets are the targets sampled during the workload: watch.targets when the plan
// names them, else the workload's target, its replicas and every target the iteration's
// steps use.
func (r *runner) watchedTargets(it *spec.Iteration, main string) []string {
	if len(r.plan.Watch.Targets) > 0 {
		return r.plan.Watch.Targets
	}
	want := map[string]bool{main: true}
	for _, name := range r.order {
		if r.primaryOf(name) == main {
			want[name] = true
		}
	}
	for _, list := range [][]spec.Step{it.Before, it.During, it.After} {
		for _, st := range list {
			if st.Target != "" {
				want[st.Target] = true
			}
			if st.Wait != nil && st.Wait.Target != "" {
				want[st.Wait.Target] = true
			}
		}
	}
	var out []string
	for _, name := range r.order {
		if want[name] {
			out = append(out, name)
		}
	}
	return out
}

// measurement is what one measured workload produced.
type measurement struct {
	total    *measure.Total
	summary  map[string]map[string]float64 // per target: status.NAME increases, gauges' last values...
	duration time.Duration
}

// measure runs the iteration's workload with its watchers and `during` steps; every
// interval becomes a time-series row per watched target as soon as it is sampled.
func (r *runner) measure(ctx context.Context, it *spec.Iteration, s *server, watched []string, sc stepScope) (*measurement, error) {
	w := r.watch
	w.use(ctx, watched, r.logf)
	hl, err := r.sink.OpenHistogramLog(s.Name(), it.Index, time.Now())
	if err != nil {
		return nil, fmt.Errorf("histogram log: %w", err)
	}
	defer hl.Close()

	rows := newRowWriter(r, it, s.Name(), w, hl)
	during := r.startDuring(ctx, it, sc)
	r.logf("iteration %d: %s on %s", it.Index, it.Workload, s.Name())
	began := time.Now()
	total, werr := r.runWorkload(ctx, s, it.Workload, it, rows.interval)
	rows.close()
	derr := during.stop()
	m := &measurement{total: total, summary: w.summaries(), duration: time.Since(began)}
	if total != nil {
		m.duration = total.End.Sub(total.Start)
	}
	if werr != nil {
		if ctx.Err() != nil {
			return m, errInterrupted
		}
		return m, fmt.Errorf("workload: %w", werr)
	}
	if derr != nil {
		return m, derr
	}
	return m, nil
}

// rowWriter turns intervals into time-series rows. The workload's ticker hands over an
// interval and goes on at once; samplers read their sources right away, concurrently,
// and a single goroutine writes rows in tick order.
type rowWriter struct {
	cell    string        // the iteration's matrix values, for the status line
	left    time.Duration // workload time of the iterations after this one
	r       *runner
	it      *spec.Iteration
	main    string
	w       *watchers
	hl      *results.HistogramLog
	ticks   chan *tick
	done    chan struct{}
	downAt  time.Time // start of a window with no successful event, for the log
	downErr int64
}

type tick struct {
	iv      *measure.Interval
	samples []sampled
	wg      sync.WaitGroup
}

func newRowWriter(r *runner, it *spec.Iteration, main string, w *watchers, hl *results.HistogramLog) *rowWriter {
	rw := &rowWriter{r: r, it: it, main: main, w: w, hl: hl, ticks: make(chan *tick, 1024), done: make(chan struct{}),
		cell: strings.TrimPrefix(describeCell(it), ": "), left: r.remaining(it.Index)}
	go rw.loop()
	return rw
}

func (rw *rowWriter) interval(iv *measure.Interval) {
	t := &tick{iv: iv}
	t.samples = rw.w.sample(iv.End, iv.End.Sub(iv.Start), &t.wg)
	select {
	case rw.ticks <- t:
	default:
		// The writer is more than 1024 intervals behind (a stalled disk): keep the
		// workload's clock running and say so rather than block it.
		rw.r.logFile("warning: iteration %d: time-series writer behind, interval %d dropped", rw.it.Index, iv.Index)
	}
}

func (rw *rowWriter) close() {
	close(rw.ticks)
	<-rw.done
}

func (rw *rowWriter) loop() {
	defer close(rw.done)
	defer func() {
		if p := recover(); p != nil {
			rw.r.logf("warning: iteration %d: internal error writing the time series: %v (rows from here on are lost)", rw.it.Index, p)
			for range rw.ticks { // keep the workload's clock from blocking
			}
		}
	}()
	for t := range rw.ticks {
		t.wg.Wait()
		rw.write(t)
	}
}

func (rw *rowWriter) write(t *tick) {
	iv := t.iv
	rates := iv.Rates()
	base := func() results.Record {
		var rec results.Record
		rec.AddInt("iteration", int64(rw.it.Index))
		rec.AddFloat("elapsed_s", gridSeconds(iv.Elapsed, rw.it.Workload.ReportInterval))
		rec.Add("time", iv.End.UTC().Format("2006-01-02T15:04:05.000Z"))
		return rec
	}
	for _, name := range rw.w.targets {
		rec := base()
		if name == rw.main {
			// The contract's columns first (time, tps, qps, ..., latency), then ours.
			rec.AddFloat("tps", rates.TPS)
			rec.AddFloat("qps", rates.QPS)
			rec.AddFloat("reads", rates.Reads)
			rec.AddFloat("writes", rates.Writes)
			rec.AddFloat("other", rates.Other)
			rec.AddFloat("errors", rates.Errors)
			rec.AddFloat("reconnects", rates.Reconnects)
			addLatency(&rec, iv.Lat)
			rec.AddInt("threads", int64(iv.Threads))
			warm := int64(0)
			if iv.Warmup {
				warm = 1
			}
			rec.AddInt("warmup", warm)
			rec.AddInt("backlog", iv.Backlog)
			for _, code := range iv.ErrorCodes() {
				rec.AddFloat("error."+strconv.Itoa(code), float64(iv.ErrorsByCode[code])/iv.Seconds())
			}
			rw.downtime(iv)
			if rw.r.opts.OnTick != nil {
				rw.r.opts.OnTick(Tick{
					Iteration: rw.it.Index, Of: len(rw.r.plan.Iterations), Cell: rw.cell,
					Elapsed: iv.Elapsed, Length: rw.it.Workload.Duration, Left: rw.left,
					TPS: rates.TPS, P95ms: ms(iv.Lat.P95),
				})
			}
		}
		for _, smp := range t.samples {
			if smp.target != name {
				continue
			}
			for i, c := range smp.cols {
				rec.AddFloat(c.Name, smp.values[i])
			}
		}
		if err := rw.r.sink.AppendSample(name, rec); err != nil {
			rw.r.logf("warning: write timeseries/%s.csv: %v", name, err)
		}
	}
	for _, smp := range t.samples {
		if smp.warn != nil {
			rw.r.logf("warning: iteration %d: %v", rw.it.Index, smp.warn)
		}
	}
	if err := rw.hl.Write(iv); err != nil {
		rw.r.logf("warning: histogram log: %v", err)
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
			rw.r.logf("iteration %d: %s unreachable from about %s (errors by code %v)", rw.it.Index, rw.main, iv.Start.UTC().Format("15:04:05.000"), iv.ErrorsByCode)
		}
		rw.downErr += iv.Errors
	case iv.Events > 0 && !rw.downAt.IsZero():
		rw.r.logf("iteration %d: %s answering again at about %s, after at most %.1fs (%d errors in the window)",
			rw.it.Index, rw.main, iv.End.UTC().Format("15:04:05.000"), iv.End.Sub(rw.downAt).Seconds(), rw.downErr)
		rw.downAt, rw.downErr = time.Time{}, 0
	}
}

// gridSeconds puts a tick on the report-interval grid (1, 2, 3 s...): a tick delivered a
// few milliseconds late on a busy machine still joins the rows of other iterations and
// targets for the same second. The real end of the interval is in the time column.
func gridSeconds(elapsed, interval time.Duration) float64 {
	if interval <= 0 {
		interval = time.Second
	}
	k := math.Round(float64(elapsed) / float64(interval))
	return math.Round(k*interval.Seconds()*1000) / 1000
}

func addLatency(rec *results.Record, l measure.Latency) {
	rec.AddFloat("lat_avg_ms", ms(l.Avg))
	rec.AddFloat("p50_ms", ms(l.P50))
	rec.AddFloat("p95_ms", ms(l.P95))
	rec.AddFloat("p99_ms", ms(l.P99))
	rec.AddFloat("p999_ms", ms(l.P999))
	rec.AddFloat("lat_max_ms", ms(l.Max))
}

// ms is milliseconds, NaN (an empty cell) for an unknown value.
func ms(d time.Duration) float64 {
	if d < 0 {
		return math.NaN()
	}
	return measure.Ms(d)
}

// during starts the iteration's `during` steps at their offsets into the measured part.
type duringSteps struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup
	mu     sync.Mutex
	err    error
}

func (r *runner) startDuring(ctx context.Context, it *spec.Iteration, sc stepScope) *duringSteps {
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
				r.logf("iteration %d: during step at %s (%s) did not run: the workload ended first", it.Index, st.At, st.Src.Pos)
				return
			case <-time.After(time.Until(measured.Add(st.At))):
			}
			if err := r.step(ctx, st, sc); err != nil && ctx.Err() == nil {
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

// writeSummary appends the iteration's summary rows, one per watched target, once its
// status is known (after the after steps, whose record_as metrics they carry, and the
// assertions).
func (r *runner) writeSummary(it *spec.Iteration, info *results.IterationInfo, main string, watched []string, m *measurement, metrics map[string]float64) {
	for _, name := range watched {
		var rec results.Record
		rec.AddInt("iteration", int64(it.Index))
		rec.AddInt("repeat", int64(it.Repeat))
		for _, av := range it.Matrix {
			rec.Add(av.Axis, fmt.Sprint(av.Value))
		}
		rec.Add("target", name)
		rec.Add("status", info.Status)
		rec.AddFloat("duration_s", math.Round(m.duration.Seconds()*1000)/1000)
		if name == main && m.total != nil {
			t := m.total
			for _, f := range totalMetrics(t) {
				rec.AddFloat(f.name, f.value)
			}
			for _, k := range sortedKeys(metrics) {
				rec.AddFloat(k, metrics[k])
			}
			for _, code := range t.ErrorCodes() {
				rec.AddInt("error."+strconv.Itoa(code), t.ErrorsByCode[code])
			}
			for _, tx := range t.Transactions {
				rec.AddInt("tx."+tx.Name+".count", tx.Counts.Events)
				rec.AddFloat("tx."+tx.Name+".p95_ms", ms(tx.Lat.P95))
			}
		}
		sum := m.summary[name]
		for _, k := range sortedKeys(sum) {
			rec.AddFloat(k, sum[k])
		}
		if err := r.sink.AppendSummary(rec); err != nil {
			r.logf("warning: write summary.csv: %v", err)
		}
	}
	if err := r.sink.Sync(); err != nil {
		r.logf("warning: sync results: %v", err)
	}
}

type metric struct {
	name  string
	value float64
}

// totalMetrics are a measured workload's metrics under the contract's names, in
// summary.csv's column order; assertions see the same values. tps and qps are per
// second, the other counts are totals over the measured part.
func totalMetrics(t *measure.Total) []metric {
	r := t.Rates()
	return []metric{
		{"transactions", float64(t.Events)}, {"tps", r.TPS}, {"qps", r.QPS},
		{"reads", float64(t.Reads)}, {"writes", float64(t.Writes)}, {"other", float64(t.Other)},
		{"errors", float64(t.Errors)}, {"reconnects", float64(t.Reconnects)},
		{"lat_avg_ms", ms(t.Lat.Avg)}, {"p50_ms", ms(t.Lat.P50)}, {"p95_ms", ms(t.Lat.P95)},
		{"p99_ms", ms(t.Lat.P99)}, {"p999_ms", ms(t.Lat.P999)}, {"lat_max_ms", ms(t.Lat.Max)},
	}
}

// assertions evaluates the iteration's assert expressions; it returns the false (or
// failing) ones, each with the values it saw.
func (r *runner) assertions(it *spec.Iteration, m *measurement, metrics map[string]float64) []string {
	if len(it.Assert) == 0 {
		return nil
	}
	env := map[string]any{}
	if m != nil && m.total != nil {
		for _, f := range totalMetrics(m.total) {
			env[f.name] = f.value
		}
	}
	status := map[string]float64{}
	if m != nil {
		name := it.Target
		if name == "" {
			name = defaultTarget(r.plan)
		}
		for k, v := range m.summary[name] {
			if n, ok := strings.CutPrefix(k, "status."); ok {
				// MySQL's names are case-insensitive: status.com_select works too.
				status[n] = v
				status[strings.ToLower(n)] = v
			}
		}
	}
	env["status"] = status
	for _, name := range recordNames(r.plan) {
		env[name] = math.NaN()
	}
	for k, v := range metrics {
		env[k] = v
	}
	var failed []string
	for i := range it.Assert {
		a := &it.Assert[i]
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

// seen lists the metric values an assertion used, so a failure says why.
func seen(src string, env map[string]any) string {
	var parts []string
	for _, k := range sortedKeys(env) {
		if k == "status" {
			continue
		}
		if containsWord(src, k) {
			parts = append(parts, fmt.Sprintf("%s=%s", k, results.FormatFloat(env[k].(float64))))
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

// recordNames are the plan's record_as names: an assertion may use one whose wait did
// not run in this iteration, and sees NaN (false in any comparison) for it.
func recordNames(p *spec.Plan) []string {
	var out []string
	add := func(list []spec.Step) {
		for _, st := range list {
			if st.Wait != nil && st.Wait.RecordAs != "" {
				out = append(out, st.Wait.RecordAs)
			}
		}
	}
	add(p.Setup)
	for _, it := range p.Iterations {
		add(it.Before)
		add(it.During)
		add(it.After)
	}
	return out
}
