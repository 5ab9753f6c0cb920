package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/quadrant-bench/quadrant/results/measure"
)

// Worker runs events on its own connection.
type Worker interface {
	// Event runs one event; tx is the index of the named transaction it ran
	// (custom workloads), 0 otherwise. Statements are counted in c.T.
	Event(c *Conn) (tx int, err error)
}

// ErrDone, returned by Event, ends the worker normally (a replay file is exhausted).
var ErrDone = errors.New("no more events")

// ErrRollback, returned by Event, says the event rolled its transaction back on purpose (tpcc's
// NewOrder with an unused item): a completed event, counted as a rollback of its transaction
// (measure.Recorder.Rollback), never as an error.
var ErrRollback = errors.New("transaction rolled back on purpose")

// Scheduler is implemented by workers that decide when their next event starts. With
// Config.Scheduled, events carry their own intended start (a replay at the captured timing):
// the loop waits until then and counts latency from it, so a server that falls behind shows as
// queueing and the schedule lag (actual minus intended start) is recorded, and a failed event
// is counted and not retried: the next one comes at its own time. Without it, Next paces the
// worker (tpcc's keying and think times, slept in Next): latency starts when Next returns, so
// the waits are left out, and a failed event is retried per on_error as any other.
type Scheduler interface {
	// Next blocks until the worker's next event is known and returns its intended start (the
	// zero time: as soon as possible); false ends the worker. stop is closed when the
	// workload stops.
	Next(stop <-chan struct{}) (time.Time, bool)
}

// Finisher is implemented by workers with work to flush at the end (bulk_insert).
type Finisher interface {
	Finish(c *Conn) error
}

// Config drives Run.
type Config struct {
	Threads        int
	Duration       time.Duration // 0: no time limit (then Events must be set)
	Events         int64         // 0: no event limit
	Warmup         time.Duration
	Rate           float64 // events/s over all workers; 0 closed loop
	ReportInterval time.Duration
	Ignore         []int // error codes that restart the event
	// Tolerate, if set, says of an error code not in Ignore that the event is counted and
	// the worker goes on as for Ignore (a replay goes on after any server error but a
	// lost connection, which a list would have to spell out code by code).
	Tolerate  func(code int) bool
	Reconnect []int // error codes that reconnect, re-prepare and restart the event
	MaxErrors int64 // abort when more errors than this; 0 = no limit
	Names     []string
	// Statements are the statement classes the workers' connections time (Conn.TimeStatements):
	// a Lap's class indexes them.
	Statements []string
	// Stages shape the measured part (all with threads, or all with a rate); Duration
	// is then their sum when not set. Closed loop opens the largest stage's connections
	// before the clock starts and lets as many run as the stage says; open loop moves the
	// arrivals' rate. Linear ramps from one stage's level to the next.
	Stages []Stage
	Linear bool
	// PerTransaction opens a new connection (Conn.Reconnect) before every event, timed
	// apart (measure.Recorder.Connect): connect: per_transaction.
	PerTransaction bool
	// Idle connections are opened with Dial before the clock starts and held, unused,
	// until the workload ends: idle_connections.
	Idle int
	Dial func(ctx context.Context) (*Conn, error)
	// Rollback sends ROLLBACK (uncounted) after an ignored error, so a statement-level
	// error (1205) does not leave a half transaction that the next BEGIN commits.
	Rollback bool
	// Scheduled says the workers are Schedulers whose events have an intended start: service
	// time and schedule lag are kept, failed events are not retried (see Scheduler).
	Scheduled bool
	// Own, set for a kind with metrics of its own (workload.Kind.Metrics) and the settings
	// they are relative to, goes on every Interval and the Total.
	Own *measure.Own
	// Nodes, set when the workers connect to several servers (a workload spread over a
	// Galera cluster's nodes: workload.Env.Nodes), name them, and NodeOf says which one
	// worker i's Setup connects to: each node's counts are kept apart (measure.Stats.Nodes).
	// The kind's Setup does the connecting; the loop only counts.
	Nodes  []string
	NodeOf func(worker int) int
	// Certifies says the workers' servers are Galera nodes (wsrep_on=ON), which certify each
	// transaction against the other nodes': a deadlock error there is counted as a
	// certification failure too (CertFailure).
	Certifies bool
	// Setup connects worker i and prepares its statements. Called for all workers
	// before the clock starts.
	Setup      func(ctx context.Context, i int) (Worker, *Conn, error)
	OnInterval func(*measure.Interval)
	// Ready, if set, is called once every worker is set up, just before the clock
	// starts: shards of one run wait there for each other, so that connecting and
	// preparing (which take each shard its own time) happen before their common start.
	Ready func(ctx context.Context) error
}

// AbortError says why a workload stopped before its end.
type AbortError struct {
	Reason string
	Err    error
}

func (e *AbortError) Error() string { return "workload aborted: " + e.Reason }
func (e *AbortError) Unwrap() error { return e.Err }

type run struct {
	cfg      Config
	col      *measure.Collector
	start    time.Time
	measured time.Time
	end      time.Time // zero: no time limit
	*Halt
	claimed  atomic.Int64
	active   atomic.Int64
	arrivals *arrivals      // open loop
	shape    *shape         // stages; nil for one flat level
	gate     *gate          // closed-loop stages: how many workers run now
	state    []atomic.Int32 // each worker's: working, finishing, exited (for reap)
	killed   []atomic.Bool  // reap has killed, or is about to kill, the worker's statement (kill.go)
}

// Run sets up the workers, runs them and returns the Total of the measured
// part. The Total is returned (possibly partial) together with any error.
func Run(ctx context.Context, cfg Config) (*measure.Total, error) {
	if cfg.Threads < 1 {
		return nil, fmt.Errorf("threads must be at least 1, got %d", cfg.Threads)
	}
	if cfg.ReportInterval <= 0 {
		cfg.ReportInterval = time.Second
	}
	// One scheduler slot per worker lets workers read replies without a context switch.
	ensureProcs(cfg.Threads)
	var sh *shape
	if len(cfg.Stages) > 0 {
		sh = newShape(cfg.Stages, cfg.Linear)
		if cfg.Duration == 0 {
			cfg.Duration = sh.total()
		}
		if sh.open() {
			cfg.Rate = sh.level(-1)
		} else {
			for _, st := range cfg.Stages {
				cfg.Threads = max(cfg.Threads, st.Threads)
			}
		}
	}
	workers := make([]Worker, cfg.Threads)
	conns := make([]*Conn, cfg.Threads)
	defer func() {
		for _, c := range conns {
			if c != nil {
				_ = c.Close()
			}
		}
	}()
	// Setup in parallel: preparing many statements per connection adds up.
	var wg sync.WaitGroup
	setupErrs := make([]error, cfg.Threads)
	for i := range cfg.Threads {
		wg.Add(1)
		go func() {
			defer wg.Done()
			workers[i], conns[i], setupErrs[i] = cfg.Setup(ctx, i)
		}()
	}
	wg.Wait()
	if err := errors.Join(setupErrs...); err != nil {
		return nil, err
	}
	idle, err := openIdle(ctx, cfg)
	defer func() {
		for _, c := range idle {
			_ = c.Close()
		}
	}()
	if err != nil {
		return nil, err
	}
	ctl := openControl(ctx, conns)
	if cfg.Ready != nil {
		if err := cfg.Ready(ctx); err != nil {
			ctl.close()
			return nil, err
		}
	}

	r := &run{cfg: cfg, Halt: NewHalt(cfg.MaxErrors), shape: sh, state: make([]atomic.Int32, cfg.Threads), killed: make([]atomic.Bool, cfg.Threads)}
	r.start = time.Now()
	r.measured = r.start.Add(cfg.Warmup)
	if cfg.Duration > 0 {
		r.end = r.measured.Add(cfg.Duration)
	}
	r.col = measure.NewCollector(measure.CollectorOptions{
		Workers: cfg.Threads, OpenLoop: cfg.Rate > 0 || cfg.Scheduled, Names: cfg.Names, Statements: cfg.Statements, Start: r.start, MeasuredStart: r.measured,
		StageEnds: stageEnds(sh), Connect: cfg.PerTransaction, Own: cfg.Own, Nodes: cfg.Nodes, NodeOf: cfg.NodeOf,
	})
	if cfg.Rate > 0 {
		r.arrivals = newArrivals(cfg.Rate)
	}
	if sh != nil {
		if !sh.open() {
			r.gate = newGate(int(math.Round(sh.level(-1))))
		}
		go r.steer()
	}
	done := make(chan struct{})
	r.active.Store(int64(cfg.Threads))
	var wwg sync.WaitGroup
	for i := range cfg.Threads {
		wwg.Add(1)
		go func() {
			defer wwg.Done()
			defer r.active.Add(-1)
			defer r.state[i].Store(exited)
			// A bug in a worker ends the workload with a reason, not the process with a
			// stack trace: what was measured so far is kept.
			defer func() {
				if p := recover(); p != nil {
					r.Fail(&AbortError{Reason: fmt.Sprintf("internal error in worker %d: %v", i+1, p)})
				}
			}()
			r.work(ctx, i, workers[i], conns[i])
		}()
	}
	go func() { wwg.Wait(); close(done) }()
	// The killer owns the control connection and closes it; Run does not wait for it: a
	// KILL to a server that stopped answering ends with the read timeout, after the workers.
	go r.reap(ctx, ctl, conns, done)
	r.tick(ctx, done)
	if err := r.Err(); err != nil {
		return r.col.Total(), err
	}
	if err := ctx.Err(); err != nil {
		return r.col.Total(), fmt.Errorf("workload interrupted: %w", err)
	}
	return r.col.Total(), nil
}

func (r *run) clock() *Clock {
	return &Clock{Start: r.start, Measured: r.measured, End: r.end, Interval: r.cfg.ReportInterval,
		Active: r.threads, Cut: r.cut, Halt: r.Stop, Pending: r.col.Pending}
}

// threads are the workers running events now: those the shape lets run, of those still there.
func (r *run) threads() int {
	n := int(r.active.Load())
	if r.gate != nil {
		n = min(n, r.gate.threads())
	}
	return n
}

func stageEnds(s *shape) []time.Duration {
	if s == nil {
		return nil
	}
	return s.ends
}

// tick runs the interval clock until all workers have exited.
func (r *run) tick(ctx context.Context, done <-chan struct{}) {
	final := r.cfg.Threads
	if r.gate != nil {
		final = r.gate.threads()
	}
	r.clock().Run(ctx, done, final)
}

// nextTick is the clock's first tick after t.
func (r *run) nextTick(t time.Time) time.Time { return r.clock().Next(t) }

func (r *run) cut(now time.Time, threads int) {
	if r.gate != nil {
		// The shape's level in the middle of the interval, not at its end: a step
		// that lands on the tick belongs to the next interval.
		lv := r.shape.level(now.Sub(r.measured) - r.cfg.ReportInterval/2)
		level := max(1, int(math.Round(lv)))
		if n := int(r.active.Load()); n > 0 { // none in the last interval, cut once all have ended
			level = min(n, level)
		}
		threads = level
	}
	backlog := int64(0)
	if r.arrivals != nil {
		backlog = r.arrivals.due(now.Sub(r.start))
	}
	iv := r.col.Cut(now, threads, backlog)
	if r.cfg.OnInterval != nil {
		r.cfg.OnInterval(iv)
	}
}

// arrivals is the open loop's schedule: Poisson arrivals at a rate, as
// offsets from the start, generated ahead of need and handed out in order to
// whichever worker is free. Times are scheduled, not observed, so a slow
// worker shows up as latency instead of silently lowering the rate. A worker
// takes its next arrival itself and sleeps until it is due: no dispatcher
// goroutine wakes, and hands over to, a worker for every event.
type arrivals struct {
	mu   sync.Mutex
	rng  *rand.Rand
	mean float64
	last time.Duration   // the latest arrival generated
	todo []time.Duration // generated, not yet taken, in order
	head int
}

func newArrivals(rate float64) *arrivals {
	return &arrivals{rng: rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64())), mean: float64(time.Second) / rate}
}

// setRate changes the rate of the arrivals generated from now on (a load shape's stage).
func (a *arrivals) setRate(rate float64) {
	a.mu.Lock()
	a.mean = float64(time.Second) / rate
	a.mu.Unlock()
}

func (a *arrivals) gen() time.Duration {
	a.last += time.Duration(a.rng.ExpFloat64() * a.mean)
	return a.last
}

// take returns the next arrival.
func (a *arrivals) take() time.Duration {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.head < len(a.todo) {
		at := a.todo[a.head]
		a.head++
		if a.head == len(a.todo) {
			a.todo, a.head = a.todo[:0], 0
		}
		return at
	}
	return a.gen()
}

// due counts the arrivals at or before now that no worker has taken: the backlog.
func (a *arrivals) due(now time.Duration) int64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	for a.last <= now {
		a.todo = append(a.todo, a.gen())
	}
	n := 0
	for _, at := range a.todo[a.head:] {
		if at > now {
			break
		}
		n++
	}
	return int64(n)
}

// yieldEvery: a worker on a blocking socket never parks, so the scheduler
// never sees it reschedule, and sysmon preempts it with a signal that
// interrupts whatever read it is in; an occasional yield between events is
// cheaper. But every yield (runtime.Gosched) queues the goroutine globally and
// wakes an idle thread, which often takes the goroutine to another OS thread
// and so to another CPU than its server thread: a cross-CPU wake-up (an IPI) for
// every round trip until they meet again. Measured on 2 quiet cores,
// oltp_point_select at 8 threads, runs alternated with sysbench's (medians of
// 4 rounds; perf sched_wakeup for the CPUs): yielding every 5 ms (chosen
// earlier on a loaded machine) put half the wake-ups across CPUs
// (sysbench: 2%) and gave ~66k tps at 8.6 µs of client CPU per transaction;
// every 50 ms, 11% across and ~81k tps at 6.5 µs; never, ~76k at 7.0 µs;
// every 9 ms, ~74k; every 200 ms, ~77k. With two busy loops competing for the
// cores, 50 ms still beat 5 ms (medians of 3: 49.9k vs 43.6k tps, 8.4 vs
// 10.7 µs; sysbench 51.5k at 8.2 µs). Locking each worker to its thread
// instead (runtime.LockOSThread) did no better (~82k at 6.4 µs point_select,
// 5% less tps than this on read_only) and makes every park cost two hand-offs.
// Re-measured with the full table (4 ABBA pairs each): locking brought
// oltp_update_index from 0.87 to 0.92 of sysbench's tps (its server CPU per
// update is 12-20% above sysbench's without it), but point_select fell to 0.90
// and read_only stayed at 0.95 at more client CPU; locking and never yielding
// was no better (0.92, 0.90, 0.93).
const yieldEvery = 50 * time.Millisecond

func (r *run) work(ctx context.Context, id int, w Worker, c *Conn) {
	rec := r.col.Recorder(id)
	var wait *time.Timer
	yield := r.cfg.Threads <= maxBlockingThreads
	lastYield := time.Now()
	sched, _ := w.(Scheduler)
	retry := !r.cfg.Scheduled // a scheduled event's time has passed once it failed
	for !r.Stopped() {
		if r.gate != nil && !r.gate.wait(id, r.Done()) {
			return
		}
		var intended time.Time
		if sched != nil {
			var more bool
			if intended, more = sched.Next(r.Done()); !more {
				return
			}
		} else if r.arrivals != nil {
			intended = r.start.Add(r.arrivals.take())
		}
		if !intended.IsZero() {
			if d := time.Until(intended); d > 0 {
				if wait == nil {
					wait = time.NewTimer(d)
				} else {
					wait.Reset(d)
				}
				select {
				case <-wait.C:
				case <-r.Done():
					return
				}
			}
		}
		if r.cfg.PerTransaction && !r.connect(ctx, id, rec, c) {
			return
		}
		start := time.Now()
		if r.cfg.Events > 0 && !start.Before(r.measured) && r.claimed.Add(1) > r.cfg.Events {
			r.Stop()
			return
		}
		if intended.IsZero() {
			intended = start
		}
		var tx int
		failed, rolledBack := false, false
		for {
			c.T = Tally{}
			var err error
			tx, err = w.Event(c)
			if err != nil && err != ErrDone && err != ErrRollback && r.killed[id].Load() {
				// quadrant killed a statement of this event at the stop (kill.go): the event
				// is not measured, none of its statements either, so every BEGIN counted
				// belongs to a transaction that committed, rolled back or failed.
				c.Laps = c.Laps[:0]
				return
			}
			rec.Statements(c.T.Reads, c.T.Writes, c.T.Other, tx)
			if len(c.Laps) > 0 {
				rec.Laps(c.Laps)
				c.Laps = c.Laps[:0]
			}
			if err == nil {
				break
			}
			if err == ErrDone {
				return
			}
			if err == ErrRollback {
				rolledBack = true
				break
			}
			if !r.handle(ctx, id, rec, c, tx, err) || r.Stopped() {
				return
			}
			if !retry {
				failed = true
				break
			}
		}
		if failed {
			continue
		}
		end := time.Now()
		if rolledBack {
			rec.Rollback(tx)
		}
		rec.Event(measure.Event{Latency: end.Sub(intended), Service: end.Sub(start), Tx: tx})
		if yield && end.Sub(lastYield) >= yieldEvery {
			runtime.Gosched()
			lastYield = end
		}
		if !r.end.IsZero() && !end.Before(r.end) {
			r.Stop()
		}
	}
	if f, ok := w.(Finisher); ok {
		r.state[id].Store(finishing)
		c.T = Tally{}
		err := f.Finish(c)
		rec.Statements(c.T.Reads, c.T.Writes, c.T.Other, 0)
		if err != nil && !r.killed[id].Load() {
			rec.Error(Code(err), 0)
			r.Fail(&AbortError{Reason: fmt.Sprintf("worker %d: %v", id+1, err), Err: err})
		}
	}
}

// connect opens the event's own connection; false means the worker must stop.
func (r *run) connect(ctx context.Context, id int, rec *measure.Recorder, c *Conn) bool {
	for !r.Stopped() {
		t0 := time.Now()
		err := c.Reconnect(ctx)
		if err == nil {
			rec.Connect(time.Since(t0))
			return true
		}
		code := Code(err)
		rec.Error(code, -1)
		if !r.CountError(code, err) {
			return false
		}
		if !r.ignores(code) && !slices.Contains(r.cfg.Reconnect, code) {
			r.Fail(&AbortError{Reason: fmt.Sprintf("worker %d: connect: error %d: %v (add %d to on_error.ignore to count it and try again)", id+1, code, err, code), Err: err})
			return false
		}
		select { // a refused login is retried, not hammered
		case <-time.After(50 * time.Millisecond):
		case <-r.Done():
			return false
		}
	}
	return false
}

// openIdle opens cfg.Idle connections, a few at a time, that only log in.
func openIdle(ctx context.Context, cfg Config) ([]*Conn, error) {
	if cfg.Idle <= 0 || cfg.Dial == nil {
		return nil, nil
	}
	conns := make([]*Conn, cfg.Idle)
	errs := make([]error, cfg.Idle)
	sem := make(chan struct{}, 16)
	var wg sync.WaitGroup
	for i := range conns {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			conns[i], errs[i] = cfg.Dial(ctx)
			if errs[i] != nil {
				errs[i] = fmt.Errorf("idle connection %d of %d: %w", i+1, cfg.Idle, errs[i])
			}
		}()
	}
	wg.Wait()
	var live []*Conn
	for _, c := range conns {
		if c != nil {
			live = append(live, c)
		}
	}
	// One reason is enough: a thousand "too many connections" say nothing more.
	for _, err := range errs {
		if err != nil {
			return live, err
		}
	}
	return live, nil
}

// ignores says an error code is counted and gone on after: on_error.ignore's, or the
// kind's Tolerate.
func (r *run) ignores(code int) bool {
	return slices.Contains(r.cfg.Ignore, code) || r.cfg.Tolerate != nil && r.cfg.Tolerate(code)
}

// handle deals with a failed event; false means the worker must stop.
func (r *run) handle(ctx context.Context, id int, rec *measure.Recorder, c *Conn, tx int, err error) bool {
	code := Code(err)
	rec.Error(code, tx)
	if CertFailure(err, r.cfg.Certifies) {
		rec.CertFailure(tx)
	}
	if !r.CountError(code, err) {
		return false
	}
	ignore, reconnect := r.ignores(code), slices.Contains(r.cfg.Reconnect, code)
	switch {
	case reconnect || ignore && Broken(err):
		return r.Reconnect(ctx, rec, c.Reconnect)
	case ignore:
		if r.cfg.Rollback {
			rerr := c.Rollback()
			if rerr != nil && Broken(rerr) {
				return r.Reconnect(ctx, rec, c.Reconnect)
			}
		}
		return true
	}
	r.Fail(&AbortError{Reason: fmt.Sprintf("worker %d: error %d: %v%s", id+1, code, err, LostHint(code, err)), Err: err})
	return false
}
