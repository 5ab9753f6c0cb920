package tpcc

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/quadrant-bench/quadrant/executor/workload"
	"github.com/quadrant-bench/quadrant/executor/workload/engine"
	"github.com/quadrant-bench/quadrant/results/measure"
)

// Keying and mean think times of clause 5.2.5.7, by transaction index.
var (
	keying = [5]time.Duration{18 * time.Second, 3 * time.Second, 2 * time.Second, 2 * time.Second, 2 * time.Second}
	think  = [5]time.Duration{12 * time.Second, 12 * time.Second, 10 * time.Second, 5 * time.Second, 5 * time.Second}
)

// runTerminals runs the terminals on the engine's loop. Each terminal is a Scheduler whose
// Next picks the transaction and sleeps its keying time (and the previous one's think time):
// the loop times the transaction from when Next returns, so a response time leaves the waits
// out, and retries a failed transaction per on_error. A NewOrder rolled back on purpose
// returns engine.ErrRollback: a completed transaction, counted as a rollback, never an error.
func (t *tpcc) runTerminals(ctx context.Context, dc *mysql.Config, threads int, onInterval func(*measure.Interval)) (*measure.Total, error) {
	lc := t.env.Split(workload.Loop(t.w, onInterval))
	lc.Threads = threads
	// The terminals pace themselves: no rate, no stages, one connection each (validate
	// refuses the plan's rate, stages and connect for tpcc).
	lc.Rate, lc.Stages, lc.PerTransaction, lc.Idle, lc.Dial = 0, nil, false, 0, nil
	// A deadlock rolled the transaction back already, a lock wait timeout only the
	// statement: ROLLBACK either way so the retry starts clean.
	lc.Rollback = true
	lc.Names = Transactions
	lc.Own = own(&t.p)
	seed := uint64(time.Now().UnixNano())
	k := runConstants(newRng(seed))
	t.env.Logf("tpcc: %d terminal(s) over %d warehouse(s), NURand C: last name %d (load %d), customer id %d, item id %d",
		threads, t.p.Warehouses, k.cLast, loadCLast, k.cID, k.olIID)
	var cum [5]int // cumulative weights
	sum := 0
	for i, w := range t.p.Weights {
		sum += w
		cum[i] = sum
	}
	prepared := !t.p.WaitTimes
	lc.Setup = func(ctx context.Context, i int) (engine.Worker, *engine.Conn, error) {
		c, err := engine.Dial(ctx, t.env.WorkerConfig(dc, i), prepared)
		if err != nil {
			return nil, nil, fmt.Errorf("tpcc terminal %d: %w", i+1, err)
		}
		W, g := t.p.Warehouses, t.env.Shard.Global(i)
		term := &terminal{c: c, g: newRng(seed + uint64(g+1)*0x9e3779b97f4a7c15), k: k,
			w: g%W + 1, d: (g/W)%districtsPerWarehouse + 1, warehouses: W, cum: cum, waits: t.p.WaitTimes}
		if err := term.prepare(); err != nil {
			_ = c.Close()
			return nil, nil, fmt.Errorf("tpcc terminal %d: %w (did you run action: prepare?)", i+1, err)
		}
		return term, c, nil
	}
	return engine.Run(ctx, lc)
}

// Next picks the terminal's next transaction; with wait times it first sleeps the last
// transaction's think time and the next one's keying time. false when the run stopped.
func (t *terminal) Next(stop <-chan struct{}) (time.Time, bool) {
	next := t.pick()
	if t.waits {
		d := keying[next]
		if t.ran {
			d += thinkTime(t.g, think[t.tx])
		}
		if t.timer == nil {
			t.timer = time.NewTimer(d)
		} else {
			t.timer.Reset(d)
		}
		select {
		case <-t.timer.C:
		case <-stop:
			t.timer.Stop()
			return time.Time{}, false
		}
	}
	t.tx, t.ran = next, true
	return time.Time{}, true // at once: the loop times the transaction from here
}

// Event runs the transaction Next picked.
func (t *terminal) Event(*engine.Conn) (int, error) {
	var err error
	switch t.tx {
	case txNewOrder:
		err = t.newOrder()
	case txPayment:
		err = t.payment()
	case txOrderStatus:
		err = t.orderStatus()
	case txDelivery:
		err = t.delivery()
	default:
		err = t.stockLevel()
	}
	if err != nil && err != engine.ErrRollback {
		err = fmt.Errorf("%s: %w", txTitles[t.tx], err)
	}
	return t.tx, err
}

var txTitles = [5]string{"NewOrder", "Payment", "OrderStatus", "Delivery", "StockLevel"}

func (t *terminal) pick() int {
	x := t.g.between(1, t.cum[4])
	for i, c := range t.cum {
		if x <= c {
			return i
		}
	}
	return txNewOrder
}

// thinkTime is clause 5.2.5.4's negative exponential, capped at ten times its mean.
func thinkTime(g *rng, mean time.Duration) time.Duration {
	x := -math.Log(max(g.r.Float64(), 1e-12))
	return time.Duration(min(x, 10) * float64(mean))
}
