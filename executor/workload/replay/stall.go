package replay

import (
	"context"
	"database/sql"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-sql-driver/mysql"
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
	id       func() uint32 // the session's connection id on the server
}

func (p *progress) set(phase int32, captured time.Duration) {
	p.captured.Store(int64(captured))
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

// lockWaitQuery lists the connections whose statement waits for a row lock.
const lockWaitQuery = "SELECT trx_mysql_thread_id FROM information_schema.INNODB_TRX WHERE trx_state = 'LOCK WAIT'"

// lockWaits says which of ids the server has waiting for a row lock; none when it cannot
// tell (the order then holds, and the server's lock wait timeout breaks a cycle).
func lockWaits(ctx context.Context, db *sql.DB, ids map[uint32]bool) bool {
	rs, err := db.QueryContext(ctx, lockWaitQuery)
	if err != nil {
		return false
	}
	defer rs.Close()
	for rs.Next() {
		var id uint32
		if rs.Scan(&id) == nil && ids[id] {
			return true
		}
	}
	return false
}

// watchStalls releases the order's waits whenever every session has been stuck for
// stallGrace, at least one waiting for the order and one of those running in a lock wait
// (locked), until stop closes. It returns how many times it did.
func watchStalls(sessions []*progress, rel *releases, locked func(map[uint32]bool) bool, stop <-chan struct{}, logf func(string, ...any)) int64 {
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
		waiting, running := stalled(sessions)
		if waiting == 0 || len(running) == 0 || time.Since(asked) < lockWaitsFresh {
			continue
		}
		asked = time.Now()
		if !locked(running) {
			continue
		}
		if n++; n <= logged {
			logf("replay: every session has waited for the captured order or for a row lock for %s (a lock the replay took in another order than the capture): %d waiting statements go on without the order", stallGrace, waiting)
		}
		rel.release()
	}
}

// stalled says how many sessions wait for the order and which run a statement past its
// captured time, when every session not done is one or the other; 0 and nil otherwise.
func stalled(sessions []*progress) (int, map[uint32]bool) {
	now := time.Now().UnixNano()
	limit := now - int64(stallGrace)
	waiting, running := 0, map[uint32]bool{}
	for _, p := range sessions {
		switch {
		case p.phase.Load() == phaseDone:
		case !p.stuck(now, limit):
			return 0, nil
		case p.phase.Load() == phaseWaiting:
			waiting++
		case p.id != nil:
			running[p.id()] = true
		}
	}
	return waiting, running
}

// lockWaitsOf is lockWaits on a connection of its own to the target, opened when first
// asked (most replays never stall), and the close of it.
func lockWaitsOf(ctx context.Context, cfg *mysql.Config) (func(map[uint32]bool) bool, func()) {
	var db *sql.DB
	ask := func(ids map[uint32]bool) bool {
		if db == nil {
			conn, err := mysql.NewConnector(cfg.Clone())
			if err != nil {
				return false
			}
			db = sql.OpenDB(conn)
			db.SetMaxOpenConns(1)
		}
		qctx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		return lockWaits(qctx, db, ids)
	}
	return ask, func() {
		if db != nil {
			_ = db.Close()
		}
	}
}
