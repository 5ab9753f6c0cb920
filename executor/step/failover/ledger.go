package failover

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/quadrant-bench/quadrant/executor/internal/authretry"
	"github.com/quadrant-bench/quadrant/executor/sandbox"
)

// The ledger's table: one row per write, its id unique across the drill's writers.
const (
	ledgerSchema = "quadrant_drill"
	ledgerTable  = ledgerSchema + ".ledger"
)

// ledger is the drill's writers and what they saw: each commits one new id at a time and
// records it once COMMIT (autocommit) returned OK; an id whose write failed is not
// acknowledged, whatever the server did with it.
type ledger struct {
	cfg     *mysql.Config
	writers int
	addr    atomic.Pointer[string] // where a new connection goes
	epoch   atomic.Int64           // bumped at the promotion: connections opened after it reach the new primary
	next    atomic.Int64

	mu    sync.Mutex
	acked map[int64]time.Time
	// firstNew is when a connection of the current epoch first committed (zero: not yet).
	firstNew time.Time
	last     time.Time // the latest acknowledgement
	errs     int

	halt chan struct{}
	wg   sync.WaitGroup
	once sync.Once
}

func newLedger(cfg *mysql.Config, writers int) *ledger {
	return &ledger{cfg: cfg, writers: max(1, writers), acked: map[int64]time.Time{}, halt: make(chan struct{})}
}

// createLedger makes an empty ledger table on the primary (db). The replicas need not
// have it yet: they apply the CREATE before the ledger's first insert, and the promoted
// one has applied all of it before it is counted.
func createLedger(ctx context.Context, db *sql.DB, name string) error {
	for _, q := range []string{"CREATE DATABASE IF NOT EXISTS " + ledgerSchema, "DROP TABLE IF EXISTS " + ledgerTable,
		"CREATE TABLE " + ledgerTable + " (id BIGINT PRIMARY KEY, epoch INT NOT NULL)"} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("failover: create the ledger table on %s: %w", name, err)
		}
	}
	return nil
}

// start starts the writers; stop ends them once their write in flight has returned.
func (l *ledger) start(ctx context.Context) {
	for range l.writers {
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			l.write(ctx)
		}()
	}
}

func (l *ledger) stop() {
	l.once.Do(func() { close(l.halt) })
	l.wg.Wait()
}

func (l *ledger) halted() bool {
	select {
	case <-l.halt:
		return true
	default:
		return false
	}
}

// write is one writer: a connection of its own, opened again (at the current address)
// after any error and after the promotion.
func (l *ledger) write(ctx context.Context) {
	var db *sql.DB
	var epoch int64
	defer func() {
		if db != nil {
			db.Close()
		}
	}()
	for !l.halted() && ctx.Err() == nil {
		if db != nil && epoch != l.epoch.Load() {
			// After a promotion every writer connects again: a connection that outlived
			// the failover (a dsn target's, to an old primary still up) is not the new one's.
			db.Close()
			db = nil
		}
		if db == nil {
			c := l.cfg.Clone()
			c.Addr = *l.addr.Load()
			epoch = l.epoch.Load()
			conn, err := authretry.NewConnector(c)
			if err != nil {
				return
			}
			db = sql.OpenDB(conn)
			db.SetMaxOpenConns(1)
		}
		id := l.next.Add(1)
		// Not ctx: a write cut short by the client would be neither acknowledged nor
		// known lost; the connection's read timeout bounds it.
		_, err := db.Exec("INSERT INTO "+ledgerTable+" (id, epoch) VALUES (?, ?)", id, epoch)
		if err == nil {
			l.ack(id, epoch)
			continue
		}
		l.mu.Lock()
		l.errs++
		l.mu.Unlock()
		db.Close()
		db = nil
		time.Sleep(20 * time.Millisecond)
	}
}

func (l *ledger) ack(id, epoch int64) {
	now := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.acked[id] = now
	l.last = now
	if epoch > 0 && epoch == l.epoch.Load() && l.firstNew.IsZero() {
		l.firstNew = now
	}
}

// ackedBefore are the ids acknowledged before t.
func (l *ledger) ackedBefore(t time.Time) []int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []int64
	for id, at := range l.acked {
		if at.Before(t) {
			out = append(out, id)
		}
	}
	return out
}

// isAcked says whether id was acknowledged.
func (l *ledger) isAcked(id int64) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	_, ok := l.acked[id]
	return ok
}

// firstCommit waits until a connection opened after the promotion committed, at most
// timeout, and returns when it did.
func (l *ledger) firstCommit(ctx context.Context, since time.Time, timeout time.Duration) (time.Time, error) {
	deadline := time.Now().Add(timeout)
	for {
		l.mu.Lock()
		first, errs := l.firstNew, l.errs
		l.mu.Unlock()
		if !first.IsZero() {
			return first, nil
		}
		if time.Now().After(deadline) {
			return time.Time{}, fmt.Errorf("none within %s of the promotion (%d failed writes since the drill began; raise recover_timeout if the server is slow to accept them)", timeout, errs)
		}
		if err := sleep(ctx, 10*time.Millisecond); err != nil {
			return time.Time{}, err
		}
	}
}

// ackAfter waits until a write is acknowledged after t, at most timeout, and returns when
// the latest was.
func (l *ledger) ackAfter(ctx context.Context, t time.Time, timeout time.Duration) (time.Time, error) {
	deadline := time.Now().Add(timeout)
	for {
		l.mu.Lock()
		last, errs := l.last, l.errs
		l.mu.Unlock()
		if last.After(t) {
			return last, nil
		}
		if time.Now().After(deadline) {
			return time.Time{}, fmt.Errorf("no ledger write acknowledged within %s (%d failed writes since the drill began; raise recover_timeout if the server is slow to accept them)", timeout, errs)
		}
		if err := sleep(ctx, 10*time.Millisecond); err != nil {
			return time.Time{}, err
		}
	}
}

// longestGap is the longest span from `from` to `to` in which no write was acknowledged
// (from `from` to the first acknowledgement after it, between two, to `to`), and the moment
// it ended.
func (l *ledger) longestGap(from, to time.Time) (time.Duration, time.Time) {
	l.mu.Lock()
	var ats []time.Time
	for _, at := range l.acked {
		if at.After(from) && !at.After(to) {
			ats = append(ats, at)
		}
	}
	l.mu.Unlock()
	slices.SortFunc(ats, time.Time.Compare)
	ats = append(ats, to)
	var gap time.Duration
	end, prev := to, from
	for _, at := range ats {
		if d := at.Sub(prev); d > gap {
			gap, end = d, at
		}
		prev = at
	}
	return gap, end
}

// querier is a pool or one of its connections.
type querier interface {
	QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error)
}

// count compares the new primary's ledger with what the clients saw: acknowledged ids it
// lacks, and ids it has that no client saw acknowledged (a commit whose OK the fault cut).
func count(ctx context.Context, db querier, l *ledger) (lost []int64, extra int, err error) {
	rows, err := db.QueryContext(ctx, "SELECT id FROM "+ledgerTable)
	if err != nil {
		return nil, 0, fmt.Errorf("read the ledger: %w", err)
	}
	defer rows.Close()
	present := map[int64]bool{}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, 0, err
		}
		present[id] = true
		if !l.isAcked(id) {
			extra++
		}
	}
	if err := rows.Err(); err != nil {
		return nil, 0, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for id := range l.acked {
		if !present[id] {
			lost = append(lost, id)
		}
	}
	return lost, extra, nil
}

// poll runs q (one boolean) on s until it is true, at most timeout; then the error is why().
func poll(ctx context.Context, s *sandbox.Server, timeout time.Duration, q string, why func() string) error {
	db, err := s.Open()
	if err != nil {
		return err
	}
	defer db.Close()
	deadline := time.Now().Add(timeout)
	for {
		var ok bool
		if err := db.QueryRowContext(ctx, q).Scan(&ok); err == nil && ok {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s", why())
		}
		if err := sleep(ctx, 50*time.Millisecond); err != nil {
			return err
		}
	}
}
