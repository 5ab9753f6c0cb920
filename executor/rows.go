package executor

import (
	"sync"
	"time"

	"github.com/quadrant-bench/quadrant/executor/workload/engine"
	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/results/measure"
)

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
	stall      stallWatch
	behind     behindWatch
}

// pending is an interval waiting for its samplers.
type pending struct {
	iv      *measure.Interval
	samples []sampled
	wg      sync.WaitGroup
}

func newRowWriter(in rowInputs) *rowWriter {
	rw := &rowWriter{rowInputs: in, queue: make(chan *pending, 1024), done: make(chan struct{}), costs: map[string]*measure.CostMeter{},
		stageCosts: map[int]*measure.CostMeter{}, stall: stallWatch{every: in.reportInterval},
		behind: behindWatch{logf: in.logf, iteration: in.iteration}}
	go rw.loop()
	return rw
}

// interval is the workload's OnInterval.
func (rw *rowWriter) interval(iv *measure.Interval) {
	rw.stall.see(iv)
	rw.behind.see(iv)
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
	if !rw.downAt.IsZero() {
		rw.logf("iteration %d: %s still unreachable when the workload ended (%d errors since about %s)",
			rw.iteration, rw.target, rw.downErr, rw.downAt.UTC().Format("15:04:05.000"))
	}
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
		if smp.note != "" {
			rw.logf("iteration %d: %s", rw.iteration, smp.note)
		}
	}
	if err := rw.histograms.Write(iv); err != nil {
		rw.failed(err)
	}
}

// downtime logs the window in which the workload's target was unreachable: from the first
// interval with errors no server answered (engine.Lost) to the first later one that
// completed transactions (to the report interval's precision), whether or not its
// reconnecting workers met more refusals before the server came back: on a busy host a
// restart can end in the iteration's last interval, which holds both. An interval of
// nothing but server errors (a replay whose every session gets 1049) is a server
// answering, not down.
func (rw *rowWriter) downtime(iv *measure.Interval) {
	var lost int64
	for code, n := range iv.ErrorsByCode {
		if engine.Lost(code) {
			lost += n
		}
	}
	switch {
	case lost > 0 && rw.downAt.IsZero():
		rw.downAt = iv.Start
		rw.downErr = iv.Errors
		rw.logf("iteration %d: %s unreachable from about %s (errors by code %v)", rw.iteration, rw.target, iv.Start.UTC().Format("15:04:05.000"), iv.ErrorsByCode)
	case iv.Events > 0 && !rw.downAt.IsZero():
		rw.downErr += iv.Errors
		rw.logf("iteration %d: %s answering again at about %s, after at most %.1fs (%d errors in the window)",
			rw.iteration, rw.target, iv.End.UTC().Format("15:04:05.000"), iv.End.Sub(rw.downAt).Seconds(), rw.downErr)
		rw.downAt, rw.downErr = time.Time{}, 0
	case lost > 0:
		rw.downErr += iv.Errors
	}
}
