package collect

import (
	"sync"
	"time"

	"github.com/quadrant-bench/quadrant/executor/workload/engine"
	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/results/measure"
)

// RowInputs is everything a Rows uses: where rows go, who samples, who is told.
type RowInputs struct {
	Out            *results.Writer
	Watchers       *Watchers
	Histograms     *results.HistogramLog
	Logf           func(string, ...any)
	Iteration      int
	Target         string // the workload's: its rows get the workload's figures
	ReportInterval time.Duration
	// OnInterval is told every interval first, as it is handed over (the console's
	// progress); OnWatched, when set, every target's watched values of each interval once
	// written.
	OnInterval func(*measure.Interval)
	OnWatched  func(iv *measure.Interval, target string, values []measure.Value)
	Failed     func(error) // a row could not be written: the run stops
}

// Rows turns intervals into time-series rows. The workload's ticker hands over an
// interval and goes on at once; samplers read their sources right away, concurrently,
// and a single goroutine writes rows in interval order.
type Rows struct {
	RowInputs
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

// NewRows starts the writer of an iteration's rows; Close ends it.
func NewRows(in RowInputs) *Rows {
	rw := &Rows{RowInputs: in, queue: make(chan *pending, 1024), done: make(chan struct{}), costs: map[string]*measure.CostMeter{},
		stageCosts: map[int]*measure.CostMeter{}, stall: stallWatch{every: in.ReportInterval},
		behind: behindWatch{logf: in.Logf, iteration: in.Iteration}}
	go rw.loop()
	return rw
}

// Interval is the workload's OnInterval.
func (rw *Rows) Interval(iv *measure.Interval) {
	rw.stall.see(iv)
	rw.behind.see(iv)
	if rw.OnInterval != nil {
		rw.OnInterval(iv)
	}
	t := &pending{iv: iv}
	measuredFrom := rw.warm && !iv.Warmup
	rw.warm = iv.Warmup
	t.samples = rw.Watchers.sample(iv.End, iv.End.Sub(iv.Start), measuredFrom, &t.wg)
	select {
	case rw.queue <- t:
	default:
		// The writer is more than 1024 intervals behind (a stalled disk): keep the
		// workload's clock running and say so rather than block it.
		rw.Out.Logf("warning: iteration %d: time-series writer behind, interval %d dropped", rw.Iteration, iv.Index)
	}
}

// Close waits for the rows still queued and says whether the workload's target was still
// unreachable at the end.
func (rw *Rows) Close() {
	close(rw.queue)
	<-rw.done
	if !rw.downAt.IsZero() {
		rw.Logf("iteration %d: %s still unreachable when the workload ended (%d errors since about %s)",
			rw.Iteration, rw.Target, rw.downErr, rw.downAt.UTC().Format("15:04:05.000"))
	}
}

// Costs are the cost.* columns over the workload, per target; StageCosts the workload's
// target's per stage of a load shape (by stage). Read once closed.
func (rw *Rows) Costs() map[string][]measure.Value {
	out := map[string][]measure.Value{}
	for name, cm := range rw.costs {
		out[name] = cm.Total()
	}
	return out
}

// StageCosts: see Costs.
func (rw *Rows) StageCosts() map[int][]measure.Value {
	out := map[int][]measure.Value{}
	for stage, cm := range rw.stageCosts {
		out[stage] = cm.Total()
	}
	return out
}

// Stall is the iteration's stall (stall.go), nil when it ran as planned; Behind its lag
// behind an open loop's schedule (behind.go), nil when on schedule. Read once closed.
func (rw *Rows) Stall(planned time.Duration, total *measure.Total) *results.Stall {
	return rw.stall.result(planned, total)
}

// Behind: see Stall.
func (rw *Rows) Behind(total *measure.Total) *results.Behind { return rw.behind.result(total) }

func (rw *Rows) loop() {
	defer close(rw.done)
	defer func() {
		if p := recover(); p != nil {
			rw.Logf("warning: iteration %d: internal error writing the time series: %v (rows from here on are lost)", rw.Iteration, p)
			for range rw.queue { // keep the workload's clock from blocking
			}
		}
	}()
	for t := range rw.queue {
		t.wg.Wait()
		rw.write(t)
	}
}

func (rw *Rows) write(t *pending) {
	iv := t.iv
	rw.downtime(iv)
	for _, name := range rw.Watchers.targets {
		row := &results.TimeseriesRow{Iteration: rw.Iteration, Interval: iv, ReportInterval: rw.ReportInterval, Workload: name == rw.Target}
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
		if name == rw.Target && iv.Stage > 0 {
			sm := rw.stageCosts[iv.Stage]
			if sm == nil {
				sm = measure.NewCostMeter()
				rw.stageCosts[iv.Stage] = sm
			}
			sm.Interval(iv, row.Watched)
		}
		row.Watched = append(row.Watched, cm.Interval(iv, row.Watched)...)
		if err := rw.Out.AppendTimeseries(name, row); err != nil {
			rw.Failed(err)
			return
		}
		if rw.OnWatched != nil && len(row.Watched) > 0 {
			rw.OnWatched(iv, name, row.Watched)
		}
	}
	for _, smp := range t.samples {
		if smp.warn != nil {
			rw.Logf("warning: iteration %d: %v", rw.Iteration, smp.warn)
		}
		if smp.note != "" {
			rw.Logf("iteration %d: %s", rw.Iteration, smp.note)
		}
	}
	if err := rw.Histograms.Write(iv); err != nil {
		rw.Failed(err)
	}
}

// downtime logs the window in which the workload's target was unreachable: from the first
// interval with errors no server answered (engine.Lost) to the first later one that
// completed transactions (to the report interval's precision), whether or not its
// reconnecting workers met more refusals before the server came back: on a busy host a
// restart can end in the iteration's last interval, which holds both. An interval of
// nothing but server errors (a replay whose every session gets 1049) is a server
// answering, not down.
func (rw *Rows) downtime(iv *measure.Interval) {
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
		rw.Logf("iteration %d: %s unreachable from about %s (errors by code %v)", rw.Iteration, rw.Target, iv.Start.UTC().Format("15:04:05.000"), iv.ErrorsByCode)
	case iv.Events > 0 && !rw.downAt.IsZero():
		rw.downErr += iv.Errors
		rw.Logf("iteration %d: %s answering again at about %s, after at most %.1fs (%d errors in the window)",
			rw.Iteration, rw.Target, iv.End.UTC().Format("15:04:05.000"), iv.End.Sub(rw.downAt).Seconds(), rw.downErr)
		rw.downAt, rw.downErr = time.Time{}, 0
	case lost > 0:
		rw.downErr += iv.Errors
	}
}
