package replay

import (
	"cmp"
	"fmt"
	"hash/maphash"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/quadrant-bench/quadrant/executor/traffic"
	"github.com/quadrant-bench/quadrant/spec/sqltext"
)

// order: commit keeps the capture's commit order. Oracle's Database Replay lets a statement
// start only once every commit before its start in the capture has happened on the
// target. Measured on contended traffic (four sessions queued on one row lock) that rule
// met a lock wait timeout every few statements: two statements queued on the same lock
// both started before the commit that released it, so the replay let the second take the
// lock first, and then the second's next statement waited for the first's commit, which
// waited for the lock. Who got the lock is told by the ends: the second ended after the
// first's commit began (a commit releases its locks before its statement ends: the log
// is flushed after). So here a statement starts once every transaction end (a commit, or
// a rollback of a transaction that wrote: traffic.Commits) that began before it ended in
// the capture has happened on the target, and a commit itself, once every one that began
// before it began. Every wait still points back in captured time: along any chain of
// waits and session order the captured time (a commit's start, another statement's end)
// decreases, so quadrant's waits cannot close a cycle. Only a lock the replay meets and
// the capture did not can, and order_timeout (or the server's lock wait timeout) breaks it.

// clock is where the positions of the statements come from, as well as the source allows.
type clock int

const (
	clockOwn     clock = iota // the capture's own clock (performance_schema's timer, slow_log's µs)
	clockMicros               // start and duration in µs (a .qcap without clock)
	clockEnds                 // file order is end order (a slow log, written as each statement ends)
	clockArrival              // file order is start order (a general log, written as each arrives): no ends
)

// orderScan derives each statement's position and the commits' during the scan.
type orderScan struct {
	clock    clock
	decided  bool
	endOrder bool
	commits  *traffic.Commits
	rule     *traffic.ReadOnly
	n        int64
	pending  map[uint64]int // clockArrival: each session's last commit, its end not yet known
	ends     []int64        // by commit id
	lines    []int
	sessions []uint64
	workers  []int        // by commit id: the session (worker) that commits it
	locks    lockScan     // the locking statements' spans, where the source gives starts and ends
	keys     *primaryKeys // the target's primary keys, for the locking order per row (keys.go); nil: per table
	seed     maphash.Seed
}

// What a replayed statement is to the order (record.order): a commit's number + 1, or one of
// these.
const (
	orderWaits int64 = 0  // waits for the commits before its end
	orderFree  int64 = -1 // a read that waits for nothing
)

func newOrderScan(f *traffic.File) *orderScan {
	rule := traffic.NewReadOnly()
	return &orderScan{endOrder: f.EndOrder, commits: traffic.NewCommits(rule), rule: rule, pending: map[uint64]int{}, seed: maphash.MakeSeed()}
}

// never is the end of a commit whose end the source does not tell: no one waits for it.
const never = math.MaxInt64

// position is where a statement started and ended, as well as the source says; every
// statement read passes, kept or not, in file order. A slow log tells ends only (its
// order), a general log starts only (its order: a commit ended at the latest when its
// session's next statement arrived, never for a session's last). A statement without a
// position waits for nothing and is never waited for.
func (o *orderScan) position(s *traffic.Statement) (start, end int64) {
	if !o.decided {
		o.decided = true
		switch {
		case s.ClockEnd > 0:
			o.clock = clockOwn
		case o.endOrder:
			o.clock = clockEnds
		case !s.Start.IsZero() && s.Duration >= 0:
			o.clock = clockMicros
		default:
			o.clock = clockArrival
		}
	}
	o.n++
	switch o.clock {
	case clockOwn:
		if s.ClockEnd > 0 {
			return s.ClockStart, s.ClockEnd
		}
	case clockMicros:
		if !s.Start.IsZero() && s.Duration >= 0 {
			return s.Start.UnixMicro(), s.Start.UnixMicro() + s.Duration.Microseconds()
		}
	case clockEnds:
		return o.n, o.n
	case clockArrival:
		if id, ok := o.pending[s.Session]; ok {
			o.ends[id] = o.n
			delete(o.pending, s.Session)
		}
		return o.n, never
	}
	return 0, never
}

// classify says what a replayed statement is to the order (record.order: a commit's
// number + 1, 0 a statement that waits, -1 a read that does not) and what it waits for
// (record.at: the commits that began before it). A commit is kept at its start, and waits
// for the commits before it; any other statement waits for the commits before its end.
// Without starts (a slow log) both are the end; without ends (a general log) the start,
// and a commit counts from its session's next statement.
func (o *orderScan) classify(w int, s *traffic.Statement, fp string, start, end int64) (order, at int64, lock bool) {
	commit := o.commits.Ends(s)
	at, key := end, start
	switch o.clock {
	case clockEnds:
		at, key = end, end
	case clockArrival:
		at, key = start, never
	default:
		if commit {
			at = start
		}
	}
	if end == never && o.clock != clockArrival {
		at, key = 0, never // no position
	}
	free := !commit && freeRead(o.rule, s)
	if !free && (o.clock == clockOwn || o.clock == clockMicros) && end != never && takesLocks(s) {
		// A commit is ordered among the locking statements by its start, as it is among the
		// commits: it waits for those that ended before it began (lockorder.go).
		limit := end
		if commit {
			limit = start
		}
		tables, _ := traffic.Tables(fp, s.Schema)
		sp := span{end: end, limit: limit, line: s.Line, tables: tables}
		if len(tables) == 1 {
			sp.rows = o.rowKeys(s, tables[0])
		}
		o.locks.add(w, sp)
		lock = true
	}
	if commit {
		id := len(o.ends)
		o.ends, o.lines, o.sessions, o.workers = append(o.ends, key), append(o.lines, s.Line), append(o.sessions, s.Session), append(o.workers, w)
		if o.clock == clockArrival {
			o.pending[s.Session] = id
		}
		return int64(id) + 1, at, lock
	}
	if free {
		return orderFree, at, false
	}
	return orderWaits, at, lock
}

// freeRead: a read that takes no lock and sets nothing is not held back. It cannot change
// the data the writes meet, so holding it back would only slow the replay; its answer may
// differ from the captured one (rows_mismatches counts it). A locking read (FOR UPDATE,
// FOR SHARE, LOCK IN SHARE MODE) waits like a write, and so does anything that keeps what
// it read (SET, INTO, :=, a temporary table filled from a SELECT).
func freeRead(rule *traffic.ReadOnly, s *traffic.Statement) bool {
	text := strings.ToUpper(sqltext.SkipComments(s.Text))
	first, _, _ := strings.Cut(strings.TrimLeft(strings.TrimSpace(text), "("), " ")
	switch first {
	case "SELECT", "WITH", "SHOW", "DESC", "DESCRIBE", "EXPLAIN":
	default:
		return false
	}
	return !rule.Writes(s) && !strings.Contains(text, ":=") && !strings.Contains(text, " FOR SHARE") && !strings.Contains(text, "LOCK IN SHARE MODE")
}

// commitOrder is the commit order as the sessions keep it while they replay.
type commitOrder struct {
	name     string
	timeout  time.Duration
	logf     func(string, ...any)
	ends     []int64 // the commits' ends, in order
	rank     []int   // commit id -> its place in ends
	lines    []int   // by place
	sessions []uint64
	workers  []int // by place: the worker (replayed session) that commits it

	mu       sync.Mutex
	finished []bool
	mark     int           // the commits before it have all happened
	moved    chan struct{} // closed when mark moves
	waits    atomic.Int64
	waited   atomic.Int64 // ns
	timeouts atomic.Int64
	byCommit waitCount // of the waits, those for the commits (the log's breakdown)
	byLock   waitCount // and those for the locking statements
	locks    *lockOrder
	released *releases // the stall watchdog's (stall.go)
}

// logged is how many order timeouts the log names one by one.
const logged = 5

func (o *orderScan) build(name string, sessions int, timeout time.Duration, logf func(string, ...any), group func(string) string) *commitOrder {
	ids := make([]int, len(o.ends))
	for i := range ids {
		ids[i] = i
	}
	slices.SortStableFunc(ids, func(a, b int) int { return cmp.Compare(o.ends[a], o.ends[b]) })
	co := &commitOrder{name: name, timeout: timeout, logf: logf, ends: make([]int64, len(ids)), rank: make([]int, len(ids)),
		lines: make([]int, len(ids)), sessions: make([]uint64, len(ids)), workers: make([]int, len(ids)), finished: make([]bool, len(ids)), moved: make(chan struct{})}
	for place, id := range ids {
		co.rank[id], co.ends[place], co.lines[place], co.sessions[place], co.workers[place] = place, o.ends[id], o.lines[id], o.sessions[id], o.workers[id]
	}
	co.released = newReleases()
	co.locks = o.locks.build(name, sessions, timeout, logf, co, group)
	return co
}

// wait returns once every commit that ended before at has happened on the target, or
// after the timeout (logged, counted: the replay goes on); false when stop closes first. p,
// when not nil, shows the watchdog which session it waits for.
func (o *commitOrder) wait(at int64, stop <-chan struct{}, line int, session uint64, p *progress) bool {
	need := sort.Search(len(o.ends), func(i int) bool { return o.ends[i] >= at })
	blocker := func() int {
		if o.mark >= need {
			return -1
		}
		return o.workers[o.mark]
	}
	return o.await(&o.byCommit, &o.mu, blocker, func() chan struct{} { return o.moved }, stop, p, func() {
		o.mu.Lock()
		m := o.mark
		o.mu.Unlock()
		o.logf("replay %s:%d (captured session %d): waited %s (order_timeout) for the captured commits before it; commit %d of %d, %s:%d of captured session %d, has not happened on the target (a lock the replay meets and the capture did not?); it goes on without them",
			o.name, line, session, o.timeout, m+1, len(o.ends), o.name, o.lines[m], o.sessions[m])
	})
}

// await is the wait of both orders: until blocker says -1 (checked under mu whenever the
// channel moved gives closes; else it is the session waited for, shown to the watchdog in
// p), stop closes (false), the stall watchdog releases the waits, or order_timeout passes
// (timedOut logs the first few). Every wait is counted, and its time.
func (o *commitOrder) await(kind *waitCount, mu *sync.Mutex, blocker func() int, moved func() chan struct{}, stop <-chan struct{}, p *progress, timedOut func()) bool {
	mu.Lock()
	b := blocker()
	if b < 0 {
		mu.Unlock()
		return true
	}
	ch := moved()
	mu.Unlock()
	p.waitingFor(b)
	o.waits.Add(1)
	kind.n.Add(1)
	t0 := time.Now()
	defer func() {
		d := int64(time.Since(t0))
		o.waited.Add(d)
		kind.ns.Add(d)
	}()
	timer := time.NewTimer(o.timeout)
	defer timer.Stop()
	released := o.released.current()
	for {
		select {
		case <-ch:
		case <-stop:
			return false
		case <-released:
			o.timeouts.Add(1)
			return true
		case <-timer.C:
			if o.timeouts.Add(1) <= logged {
				timedOut()
			}
			return true
		}
		mu.Lock()
		b = blocker()
		ch = moved()
		mu.Unlock()
		if b < 0 {
			return true
		}
		p.waitingFor(b)
	}
}

// done says commit id has happened on the target (whatever its outcome: a commit that
// failed here must not hold the others).
func (o *commitOrder) done(id int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.finished[o.rank[id]] = true
	moved := false
	for o.mark < len(o.finished) && o.finished[o.mark] {
		o.mark++
		moved = true
	}
	if moved {
		close(o.moved)
		o.moved = make(chan struct{})
	}
}

// String sums the waits up for the log.
func (o *commitOrder) String() string {
	return fmt.Sprintf("%d commits and %s: %d statements waited %.3fs in all (%s for the commits, %s for the locking statements), %d waits timed out",
		len(o.ends), o.locks, o.waits.Load(), time.Duration(o.waited.Load()).Seconds(), &o.byCommit, &o.byLock, o.timeouts.Load())
}

// waitCount counts one kind of wait and its time.
type waitCount struct{ n, ns atomic.Int64 }

func (c *waitCount) String() string {
	return fmt.Sprintf("%d waited %.3fs", c.n.Load(), time.Duration(c.ns.Load()).Seconds())
}
