package replay

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/quadrant-bench/quadrant/executor/internal/authretry"
	"github.com/quadrant-bench/quadrant/executor/workload/engine"
)

// The captured order cannot say which of two overlapping statements took a lock first, and
// when the replay guesses wrong the server's lock and quadrant's order wait for each other:
// on go-tpc's TPC-C a NewOrder's INSERT INTO new_order started 331 µs before a Delivery's FOR
// UPDATE on the next district and ended 416 µs after it (the insert got into the gap first,
// then took long); the locking order sent the FOR UPDATE first, the insert waited for
// Delivery's commit, and Delivery's commit waited (commit order) for NewOrder's, until the
// server's lock wait timeout (20 s) failed the insert. Such a cycle shows from the outside:
// every session is waiting for the order or running a statement far past its captured time,
// and the server says one of those statements waits for a lock (INNODB_TRX, LOCK WAIT). The
// watchdog then lets every waiting statement go (counted and logged as an order timeout),
// which frees the server's lock within milliseconds instead of failing a statement after the
// lock wait timeout. A statement merely slower than captured (a slower server, a SLEEP) is
// not in a lock wait, and the order holds for it.

// stallGrace is how long every session must have been stuck before the watchdog acts, and
// how much longer than twice its captured time a statement must run to count as stuck.
const stallGrace = 20 * time.Millisecond

// Phases of a session, for the watchdog.
const (
	phaseFree    int32 = iota // between statements, sleeping for its schedule, or done
	phaseWaiting              // waiting for the captured order
	phaseRunning              // its statement is on the server
	phaseDone                 // replayed its last statement: stuck on nothing
)

// progress is one session's phase as the watchdog reads it.
type progress struct {
	phase    atomic.Int32
	since    atomic.Int64  // Unix ns the phase began
	captured atomic.Int64  // the running statement's captured duration, ns; -1 unknown
	line     atomic.Int64  // the statement's line in the file, waiting or running
	blocker  atomic.Int32  // waiting: the session (worker) it waits for
	id       func() uint32 // the session's connection id on the server
}

// waitingFor says the session waits for the order on session b; nil p (a test's wait) is none.
func (p *progress) waitingFor(b int) {
	if p != nil {
		p.blocker.Store(int32(b))
	}
}

func (p *progress) set(phase int32, captured time.Duration, line int) {
	p.captured.Store(int64(captured))
	p.line.Store(int64(line))
	p.since.Store(time.Now().UnixNano())
	p.phase.Store(phase)
}

// stuck says the session has been waiting for the order, or running a statement past what
// its captured duration explains, since before limit (Unix ns).
func (p *progress) stuck(now, limit int64) bool {
	since := p.since.Load()
	switch p.phase.Load() {
	case phaseWaiting:
		return since < limit
	case phaseRunning:
		c := p.captured.Load()
		return c >= 0 && since < limit && now-since > 2*c+int64(stallGrace)
	}
	return false
}

// releases lets every wait for the order go at once (release), and tells the waits that
// start after it apart from those it released.
type releases struct {
	mu sync.Mutex
	ch chan struct{}
}

func newReleases() *releases { return &releases{ch: make(chan struct{})} }

// current is the channel the next release closes.
func (r *releases) current() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ch
}

func (r *releases) release() {
	r.mu.Lock()
	defer r.mu.Unlock()
	close(r.ch)
	r.ch = make(chan struct{})
}

// lockWaitsFresh spaces the watchdog's questions to the server: InnoDB refreshes what
// INNODB_TRX shows only when it was last read over 100 ms ago, so a watchdog asking more
// often would read the same stale rows for ever (it did: no lock wait, while one lasted 2 s).
const lockWaitsFresh = 110 * time.Millisecond

// lockWaitQueries list each row lock wait as the waiting connection and the connection whose
// transaction holds the lock: INNODB_LOCK_WAITS (MariaDB, MySQL 5.7), else MySQL 8's
// performance_schema.data_lock_waits (INNODB_LOCK_WAITS is gone there). Both need PROCESS.
var lockWaitQueries = []string{
	"SELECT r.trx_mysql_thread_id, b.trx_mysql_thread_id FROM information_schema.INNODB_LOCK_WAITS w JOIN information_schema.INNODB_TRX r ON r.trx_id = w.requesting_trx_id JOIN information_schema.INNODB_TRX b ON b.trx_id = w.blocking_trx_id",
	"SELECT r.trx_mysql_thread_id, b.trx_mysql_thread_id FROM performance_schema.data_lock_waits w JOIN information_schema.INNODB_TRX r ON r.trx_id = w.REQUESTING_ENGINE_TRANSACTION_ID JOIN information_schema.INNODB_TRX b ON b.trx_id = w.BLOCKING_ENGINE_TRANSACTION_ID",
}

// lockWaits reads the server's row lock waits with q: waiting connection -> holders.
func lockWaits(ctx context.Context, db *sql.DB, q string) (map[uint32][]uint32, error) {
	rs, err := db.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	edges := map[uint32][]uint32{}
	for rs.Next() {
		var w, h uint32
		if err := rs.Scan(&w, &h); err != nil {
			return nil, err
		}
		edges[w] = append(edges[w], h)
	}
	return edges, rs.Err()
}

// closesCycle says the order and the server's row locks wait on each other: from a session
// waiting for the order, through the session it waits for (order) and on through the
// holders of the locks those wait for (locks) and the sessions they wait for, the way leads
// back to it. Only letting the order go ends such a cycle. A chain that ends at a session
// that runs (a slow statement, a stall of the server: it will finish and its transaction
// commit) or at another client's transaction is no cycle, and the order holds.
func closesCycle(locks map[uint32][]uint32, order map[uint32]uint32) bool {
	next := func(c uint32) []uint32 {
		out := locks[c]
		if b, ok := order[c]; ok {
			out = append(out[:len(out):len(out)], b)
		}
		return out
	}
	for start, first := range order {
		seen := map[uint32]bool{first: true}
		todo := []uint32{first}
		for len(todo) > 0 {
			c := todo[len(todo)-1]
			todo = todo[:len(todo)-1]
			if c == start {
				return true
			}
			for _, n := range next(c) {
				if !seen[n] {
					seen[n] = true
					todo = append(todo, n)
				}
			}
		}
	}
	return false
}

// watchStalls releases the order's waits whenever every session has been stuck for
// stallGrace, at least one waiting for the order and one running, and the order's waits and
// the server's lock waits close a cycle (cycle, given which session each waiting one waits
// for), until stop closes. It returns how many times it did.
func watchStalls(sessions []*progress, rel *releases, cycle func(order map[uint32]uint32) bool, stop <-chan struct{}, logf func(string, ...any)) int64 {
	tick := time.NewTicker(stallGrace / 4)
	defer tick.Stop()
	var n int64
	var asked time.Time
	for {
		select {
		case <-stop:
			return n
		case <-tick.C:
		}
		order, running := stalled(sessions)
		if len(order) == 0 || running == 0 || time.Since(asked) < lockWaitsFresh {
			continue
		}
		asked = time.Now()
		if !cycle(order) {
			continue
		}
		if n++; n <= logged {
			logf("replay: every session has waited for the captured order or for a row lock for %s, and a row lock wait leads to a session waiting for the order (a lock the replay took in another order than the capture): %d waiting statements go on without the order (%s)", stallGrace, len(order), where(sessions))
		}
		rel.release()
	}
}

// where names each session's statement by its line, and whether it waits or runs.
func where(sessions []*progress) string {
	var b strings.Builder
	for _, p := range sessions {
		what := "waits for the order"
		switch p.phase.Load() {
		case phaseRunning:
			what = "runs"
		case phaseFree, phaseDone:
			continue
		}
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "line %d %s", p.line.Load(), what)
	}
	return b.String()
}

// stalled says, when every session not done waits for the order or runs a statement past
// its captured time, which session each waiting one waits for (connection ids) and how many
// run; nothing otherwise.
func stalled(sessions []*progress) (order map[uint32]uint32, running int) {
	now := time.Now().UnixNano()
	limit := now - int64(stallGrace)
	order = map[uint32]uint32{}
	for _, p := range sessions {
		switch {
		case p.phase.Load() == phaseDone:
		case !p.stuck(now, limit):
			return nil, 0
		case p.id == nil:
		case p.phase.Load() == phaseWaiting:
			if b := p.blocker.Load(); b >= 0 && int(b) < len(sessions) && sessions[b].id != nil {
				order[p.id()] = sessions[b].id()
			}
		default:
			running++
		}
	}
	return order, running
}

// lockWaitsOf is the cycle check on a connection of its own to the target, opened when
// first asked (most replays never stall), and the close of it. When neither query can be
// read (no PROCESS privilege) it finds no cycle: the order holds, and the server's lock wait
// timeout breaks one.
func lockWaitsOf(ctx context.Context, cfg *mysql.Config) (func(order map[uint32]uint32) bool, func()) {
	var db *sql.DB
	queries := lockWaitQueries
	ask := func(order map[uint32]uint32) bool {
		if db == nil {
			conn, err := authretry.NewConnector(cfg.Clone())
			if err != nil {
				return false
			}
			db = sql.OpenDB(conn)
			db.SetMaxOpenConns(1)
		}
		for len(queries) > 0 {
			qctx, cancel := context.WithTimeout(ctx, time.Second)
			edges, err := lockWaits(qctx, db, queries[0])
			cancel()
			if err == nil {
				return closesCycle(edges, order)
			}
			if engine.Code(err) == 0 {
				return false // no answer this time: not a reason to give the query up
			}
			queries = queries[1:] // the server has no such table, or refuses it: the next
		}
		return false
	}
	return ask, func() {
		if db != nil {
			_ = db.Close()
		}
	}
}
