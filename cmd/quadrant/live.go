package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/quadrant-bench/quadrant/executor"
	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/results/measure"
)

// latencyBuckets are the upper bounds of quadrant_latency_seconds: 50 µs to 10 s, about
// three per decade, enough for a dashboard's quantiles (the exact ones are in histograms/).
var latencyBuckets = []float64{
	0.00005, 0.0001, 0.0002, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10,
}

// liveMetrics serves a run as it happens in the Prometheus exposition format. It is an
// executor.Observer: every measured interval adds to counters per plan, iteration, cell and
// target, so that at the end they equal summary.csv (warmup is left out, as there).
// Its values are made at scrape time from what the run reported (a prometheus.Collector),
// so nothing here is global and two runs in one process would not mix.
type liveMetrics struct {
	plan string

	mu      sync.Mutex
	series  map[seriesKey]*liveSeries
	order   []seriesKey
	watched map[watchKey]float64
	work    map[string]executor.Work // long steps (data loads, SQL files) by where they stand in the plan
}

type seriesKey struct{ iteration, cell, target string }

type watchKey struct {
	seriesKey
	column string
}

type liveSeries struct {
	// stage is the current stage of a load shape (0 in warmup), level its threads and
	// rate as the plan gives them; shaped is false without stages.
	shaped  bool
	stage   int
	threads float64
	rate    float64
	counts  measure.Counts
	byCode  map[int]int64
	buckets []uint64 // per latencyBuckets, not cumulative
	latSum  float64  // seconds
	latN    uint64
	tps     float64 // the last interval's
}

func newLiveMetrics(plan string) *liveMetrics {
	return &liveMetrics{plan: plan, series: map[seriesKey]*liveSeries{}, watched: map[watchKey]float64{}, work: map[string]executor.Work{}}
}

func (m *liveMetrics) Logged(string) {}

// Working keeps how far each long step with units (rows loaded, bytes of a SQL file) is,
// for a dashboard to show a long data load.
func (m *liveMetrics) Working(w executor.Work) {
	if w.Unit == "" {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.work[w.Step] = w
}
func (m *liveMetrics) SandboxStarted(string) {}

// noMatrix is the cell label of a plan without a matrix (a stages plan, say: its stage is
// quadrant_stage), never an empty label value.
const noMatrix = "(no matrix)"

func cellLabel(cell string) string {
	if cell == "" {
		return noMatrix
	}
	return cell
}

func (m *liveMetrics) Interval(p executor.Progress) {
	iv := p.Interval
	if !p.Measured || iv == nil {
		return
	}
	k := seriesKey{strconv.Itoa(p.Iteration), cellLabel(p.Cell), p.Target}
	m.mu.Lock()
	defer m.mu.Unlock()
	// The series exist from the workload's first interval, warmup's included, every counter
	// at 0: a rate() over them is 0 before the first error, not no data.
	s := m.series[k]
	if s == nil {
		s = &liveSeries{byCode: map[int]int64{}, buckets: make([]uint64, len(latencyBuckets)+1)}
		m.series[k] = s
		m.order = append(m.order, k)
	}
	s.shaped = len(p.Stages) > 0
	s.stage, s.threads, s.rate = iv.Stage, float64(iv.Threads), 0
	if st := iv.Stage - 1; st >= 0 && st < len(p.Stages) {
		if p.Stages[st].Threads > 0 {
			s.threads = float64(p.Stages[st].Threads)
		}
		s.rate = p.Stages[st].Rate
	}
	if iv.Warmup {
		return
	}
	s.counts.Events += iv.Events
	s.counts.Reads += iv.Reads
	s.counts.Writes += iv.Writes
	s.counts.Other += iv.Other
	s.counts.Errors += iv.Errors
	s.counts.Reconnects += iv.Reconnects
	for code, n := range iv.ErrorsByCode {
		s.byCode[code] += n
	}
	s.tps = iv.Rates().TPS
	if iv.Latency != nil {
		for _, bar := range iv.Latency.Hdr().Distribution() {
			if bar.Count == 0 {
				continue
			}
			sec := float64(bar.To) / 1e6
			i := sort.SearchFloat64s(latencyBuckets, sec)
			s.buckets[i] += uint64(bar.Count)
			s.latSum += sec * float64(bar.Count)
			s.latN += uint64(bar.Count)
		}
	}
}

// Watched keeps each watched column's latest value, as the time series has it (a counter
// as a per-second rate, a gauge as its level).
func (m *liveMetrics) Watched(p executor.Progress, target string, values []measure.Value) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, v := range values {
		k := watchKey{seriesKey{strconv.Itoa(p.Iteration), cellLabel(p.Cell), target}, v.Name}
		m.watched[k] = v.Value
	}
}

var (
	seriesLabels = []string{"plan", "iteration", "cell", "target"}
	descTx       = prometheus.NewDesc("quadrant_transactions_total", "Transactions completed in the measured part (summary.csv transactions).", seriesLabels, nil)
	descStmt     = prometheus.NewDesc("quadrant_statements_total", "Statements by sysbench's kind: read, write, other.", append(seriesLabels, "kind"), nil)
	descErr      = prometheus.NewDesc("quadrant_errors_total", "Errors by MySQL error number (code 0: none, e.g. a timeout).", append(seriesLabels, "code"), nil)
	descReconn   = prometheus.NewDesc("quadrant_reconnects_total", "Reconnections after an error.", seriesLabels, nil)
	descLat      = prometheus.NewDesc("quadrant_latency_seconds", "Transaction latency (open loop: from the intended start).", seriesLabels, nil)
	descTPS      = prometheus.NewDesc("quadrant_tps", "Transactions per second over the last report interval.", seriesLabels, nil)
	descWorkDone = prometheus.NewDesc("quadrant_step_done", "How far a long step is: rows loaded by a data load, bytes read of a SQL file.", []string{"plan", "step", "unit"}, nil)
	descWorkAll  = prometheus.NewDesc("quadrant_step_total", "What a long step has to do in all (0: unknown).", []string{"plan", "step", "unit"}, nil)
	descStage    = prometheus.NewDesc("quadrant_stage", "A load shape's current stage (1, 2, ...; 0 in warmup).", seriesLabels, nil)
	descStageThr = prometheus.NewDesc("quadrant_stage_threads", "The current stage's threads as the plan gives them (running threads in warmup and in an open loop's stage without them).", seriesLabels, nil)
	descStageRt  = prometheus.NewDesc("quadrant_stage_rate", "The current stage's rate in transactions per second (open loop; 0 in closed loop and warmup).", seriesLabels, nil)
	descWatched  = prometheus.NewDesc("quadrant_watched", "A watched column's last value as the time series has it: a counter as a per-second rate, a gauge as its level.", append(seriesLabels, "column"), nil)
)

func (m *liveMetrics) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descTx, descStmt, descErr, descReconn, descLat, descTPS, descStage, descStageThr, descStageRt, descWatched, descWorkDone, descWorkAll} {
		ch <- d
	}
}

func (m *liveMetrics) Collect(ch chan<- prometheus.Metric) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, k := range m.order {
		s := m.series[k]
		l := []string{m.plan, k.iteration, k.cell, k.target}
		counter := func(d *prometheus.Desc, v int64, extra ...string) {
			ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v), append(append([]string(nil), l...), extra...)...)
		}
		counter(descTx, s.counts.Events)
		counter(descStmt, s.counts.Reads, "read")
		counter(descStmt, s.counts.Writes, "write")
		counter(descStmt, s.counts.Other, "other")
		counter(descReconn, s.counts.Reconnects)
		// code 0 always, at 0 until an error without a number: the family exists from the start
		counter(descErr, s.byCode[0], "0")
		for code, n := range s.byCode {
			if code != 0 {
				counter(descErr, n, strconv.Itoa(code))
			}
		}
		cum := map[float64]uint64{}
		var run uint64
		for i, b := range latencyBuckets {
			run += s.buckets[i]
			cum[b] = run
		}
		ch <- prometheus.MustNewConstHistogram(descLat, s.latN, s.latSum, cum, l...)
		ch <- prometheus.MustNewConstMetric(descTPS, prometheus.GaugeValue, s.tps, l...)
		if s.shaped {
			ch <- prometheus.MustNewConstMetric(descStage, prometheus.GaugeValue, float64(s.stage), l...)
			ch <- prometheus.MustNewConstMetric(descStageThr, prometheus.GaugeValue, s.threads, l...)
			ch <- prometheus.MustNewConstMetric(descStageRt, prometheus.GaugeValue, s.rate, l...)
		}
	}
	for k, v := range m.watched {
		ch <- prometheus.MustNewConstMetric(descWatched, prometheus.GaugeValue, v, m.plan, k.iteration, k.cell, k.target, k.column)
	}
	for step, w := range m.work {
		ch <- prometheus.MustNewConstMetric(descWorkDone, prometheus.GaugeValue, w.Done, m.plan, step, w.Unit)
		ch <- prometheus.MustNewConstMetric(descWorkAll, prometheus.GaugeValue, w.Total, m.plan, step, w.Unit)
	}
}

// tee sends what a run does to several observers.
type tee []executor.Observer

func (t tee) Logged(line string) {
	for _, o := range t {
		o.Logged(line)
	}
}

func (t tee) Interval(p executor.Progress) {
	for _, o := range t {
		o.Interval(p)
	}
}

func (t tee) Working(w executor.Work) {
	for _, o := range t {
		o.Working(w)
	}
}

func (t tee) SandboxStarted(dir string) {
	for _, o := range t {
		o.SandboxStarted(dir)
	}
}

func (t tee) IterationEnded(p executor.Progress, info results.IterationInfo, total *measure.Total) {
	for _, o := range t {
		if e, ok := o.(executor.IterationObserver); ok {
			e.IterationEnded(p, info, total)
		}
	}
}

func (t tee) Watched(p executor.Progress, target string, values []measure.Value) {
	for _, o := range t {
		if w, ok := o.(executor.WatchObserver); ok {
			w.Watched(p, target, values)
		}
	}
}

// checkMetricsAddr refuses an address that other hosts can reach unless forced: the
// metrics name servers, plans and settings.
func checkMetricsAddr(addr string, remote bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--metrics-addr %q: want HOST:PORT, e.g. 127.0.0.1:9464", addr)
	}
	if remote {
		return nil
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("--metrics-addr %s is reachable from other hosts; use a loopback address such as 127.0.0.1:9464, or add --metrics-allow-remote to serve it there on purpose", addr)
}

// serveMetrics listens on addr and serves m at /metrics until stop is called.
func serveMetrics(addr string, m *liveMetrics) (net.Addr, func(), error) {
	reg := prometheus.NewRegistry()
	if err := reg.Register(m); err != nil {
		return nil, nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, nil, fmt.Errorf("--metrics-addr: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			m.Logged(err.Error())
		}
	}()
	return ln.Addr(), func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	}, nil
}
