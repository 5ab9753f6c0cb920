package tpcc

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/quadrant-bench/quadrant/executor/workload"
	"github.com/quadrant-bench/quadrant/executor/workload/engine"
	"github.com/quadrant-bench/quadrant/results/measure"
	"github.com/quadrant-bench/quadrant/spec"
)

// Keying and mean think times of clause 5.2.5.7, by transaction index.
var (
	keying = [5]time.Duration{18 * time.Second, 3 * time.Second, 2 * time.Second, 2 * time.Second, 2 * time.Second}
	think  = [5]time.Duration{12 * time.Second, 12 * time.Second, 10 * time.Second, 5 * time.Second, 5 * time.Second}
)

type loopConfig struct {
	w          *spec.Workload
	p          Params
	dc         *mysql.Config
	threads    int
	onInterval func(*measure.Interval)
	logf       func(format string, args ...any)
	env        workload.Env // its Shard: terminals keep their global ids (warehouse, district, seed)
}

// run is one tpcc run. tpcc has its own loop rather than the engine's: a terminal's
// response time must leave out its keying and think times, and a NewOrder rolled back on
// purpose is a completed transaction counted as a rollback, never an error.
type run struct {
	cfg      loopConfig
	lc       engine.Config // the plan's loop settings, read as every other kind reads them
	col      *measure.Collector
	start    time.Time
	measured time.Time
	end      time.Time // zero: no time limit
	*engine.Halt
	claimed atomic.Int64
	active  atomic.Int64
	cum     [5]int // cumulative weights
}

func runLoop(ctx context.Context, cfg loopConfig) (*measure.Total, error) {
	lc := cfg.env.Split(workload.Loop(cfg.w, cfg.onInterval))
	if lc.ReportInterval <= 0 {
		lc.ReportInterval = time.Second
	}
	seed := uint64(time.Now().UnixNano())
	k := runConstants(newRng(seed))
	if cfg.logf != nil {
		cfg.logf("tpcc: %d terminal(s) over %d warehouse(s), NURand C: last name %d (load %d), customer id %d, item id %d",
			cfg.threads, cfg.p.Warehouses, k.cLast, loadCLast, k.cID, k.olIID)
	}
	terms := make([]*terminal, cfg.threads)
	defer func() {
		for _, t := range terms {
			if t != nil {
				t.c.close()
			}
		}
	}()
	var wg sync.WaitGroup
	dialErrs := make([]error, cfg.threads)
	// Connecting hundreds of terminals one by one would take long; a few at a time is enough.
	sem := make(chan struct{}, 32)
	for i := range cfg.threads {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			c, err := dial(ctx, cfg.dc)
			if err != nil {
				dialErrs[i] = fmt.Errorf("tpcc terminal %d: %w", i+1, err)
				return
			}
			W, g := cfg.p.Warehouses, cfg.env.Shard.Global(i)
			terms[i] = &terminal{c: c, g: newRng(seed + uint64(g+1)*0x9e3779b97f4a7c15), k: k,
				w: g%W + 1, d: (g/W)%districtsPerWarehouse + 1, warehouses: W}
		}()
	}
	wg.Wait()
	if err := errors.Join(dialErrs...); err != nil {
		return nil, err
	}
	if lc.Ready != nil {
		if err := lc.Ready(ctx); err != nil {
			return nil, err
		}
	}

	r := &run{cfg: cfg, lc: lc, Halt: engine.NewHalt(lc.MaxErrors)}
	sum := 0
	for i, w := range cfg.p.Weights {
		sum += w
		r.cum[i] = sum
	}
	r.start = time.Now()
	r.measured = r.start.Add(lc.Warmup)
	if lc.Duration > 0 {
		r.end = r.measured.Add(lc.Duration)
	}
	r.col = measure.NewCollector(measure.CollectorOptions{
		Workers: cfg.threads, Names: Transactions, Start: r.start, MeasuredStart: r.measured,
		TPCC: &measure.TPCC{Warehouses: cfg.p.Warehouses, WaitTimes: cfg.p.WaitTimes},
	})
	done := make(chan struct{})
	r.active.Store(int64(cfg.threads))
	var tw sync.WaitGroup
	for i, t := range terms {
		tw.Add(1)
		go func() {
			defer tw.Done()
			defer r.active.Add(-1)
			defer func() {
				if p := recover(); p != nil {
					r.Fail(&engine.AbortError{Reason: fmt.Sprintf("internal error in tpcc terminal %d: %v", i+1, p)})
				}
			}()
			r.terminal(ctx, i, t)
		}()
	}
	go func() { tw.Wait(); close(done) }()
	r.tick(ctx, done)
	if err := r.Err(); err != nil {
		return r.col.Total(), err
	}
	if err := ctx.Err(); err != nil {
		return r.col.Total(), fmt.Errorf("workload interrupted: %w", err)
	}
	return r.col.Total(), nil
}

func (r *run) pick(g *rng) int {
	x := g.between(1, r.cum[4])
	for i, c := range r.cum {
		if x <= c {
			return i
		}
	}
	return txNewOrder
}

// sleep waits d unless the run stops first; false when it stopped.
func (r *run) sleep(timer *time.Timer, d time.Duration) bool {
	timer.Reset(d)
	select {
	case <-timer.C:
		return true
	case <-r.Done():
		timer.Stop()
		return false
	}
}

// thinkTime is clause 5.2.5.4's negative exponential, capped at ten times its mean.
func thinkTime(g *rng, mean time.Duration) time.Duration {
	x := -math.Log(max(g.r.Float64(), 1e-12))
	return time.Duration(min(x, 10) * float64(mean))
}

func (r *run) terminal(ctx context.Context, id int, t *terminal) {
	rec := r.col.Recorder(id)
	waits := r.cfg.p.WaitTimes
	var timer *time.Timer
	if waits {
		timer = time.NewTimer(time.Hour)
		timer.Stop()
	}
	for !r.Stopped() {
		tx := r.pick(t.g)
		if waits && !r.sleep(timer, keying[tx]) {
			return
		}
		start := time.Now()
		if lc := r.lc; lc.Events > 0 && !start.Before(r.measured) && r.claimed.Add(1) > lc.Events {
			r.Stop()
			return
		}
		rolledBack := false
		for {
			err := t.do(tx)
			c := t.c
			rec.Statements(c.reads, c.writes, c.other, tx)
			c.reads, c.writes, c.other = 0, 0, 0
			if err == nil {
				break
			}
			if err == errRollback {
				rolledBack = true
				break
			}
			if !r.handle(ctx, id, rec, t, tx, err) || r.Stopped() {
				return
			}
		}
		end := time.Now()
		if rolledBack {
			rec.Rollback(tx)
		}
		rec.Event(measure.Event{Latency: end.Sub(start), Service: end.Sub(start), Tx: tx})
		if !r.end.IsZero() && !end.Before(r.end) {
			r.Stop()
		}
		if waits && !r.sleep(timer, thinkTime(t.g, think[tx])) {
			return
		}
	}
}

func (t *terminal) do(tx int) error {
	switch tx {
	case txNewOrder:
		return t.newOrder()
	case txPayment:
		return t.payment()
	case txOrderStatus:
		return t.orderStatus()
	case txDelivery:
		return t.delivery()
	}
	return t.stockLevel()
}

var txTitles = [5]string{"NewOrder", "Payment", "OrderStatus", "Delivery", "StockLevel"}

// handle applies the plan's on_error to a failed transaction; false means stop the terminal.
func (r *run) handle(ctx context.Context, id int, rec *measure.Recorder, t *terminal, tx int, err error) bool {
	code := engine.Code(err)
	rec.Error(code, tx)
	if !r.CountError(code, err) {
		return false
	}
	ignore, reconnect := slices.Contains(r.lc.Ignore, code), slices.Contains(r.lc.Reconnect, code)
	switch {
	case reconnect || ignore && engine.Broken(err):
		return r.Reconnect(ctx, rec, t.c.reconnect)
	case ignore:
		// A deadlock rolled the transaction back already, a lock wait timeout only the
		// statement: ROLLBACK either way so the retry starts clean.
		if rerr := t.c.exec("ROLLBACK"); rerr != nil && engine.Broken(rerr) {
			return r.Reconnect(ctx, rec, t.c.reconnect)
		}
		t.c.reads, t.c.writes, t.c.other = 0, 0, 0
		return true
	}
	r.Fail(&engine.AbortError{Reason: fmt.Sprintf("tpcc terminal %d, %s: error %d: %v%s", id+1, txTitles[tx], code, err, engine.LostHint(code, err)), Err: err})
	return false
}

// tick runs the engine's interval clock until every terminal has stopped.
func (r *run) tick(ctx context.Context, done <-chan struct{}) {
	c := &engine.Clock{Start: r.start, Measured: r.measured, End: r.end, Interval: r.lc.ReportInterval,
		Active: func() int { return int(r.active.Load()) }, Cut: r.cut, Halt: r.Stop, Pending: r.col.Pending}
	c.Run(ctx, done, r.cfg.threads)
}

func (r *run) cut(now time.Time, threads int) {
	iv := r.col.Cut(now, threads, 0)
	if r.cfg.onInterval != nil {
		r.cfg.onInterval(iv)
	}
}
