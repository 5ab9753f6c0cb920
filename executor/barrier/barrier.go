// Package barrier starts the shards of one run together (quadrant run --shard K/N). It
// uses a table on a server every shard reaches anyway (the target, or --barrier-dsn) and
// that server's clock, so nothing else is needed between client machines and their own
// clocks may disagree: at each point every shard inserts (run_id, point, shard) and
// polls until N rows exist; the start time is the server's time of the last arrival plus
// a margin, which each shard turns into its own clock through the offset it measured
// with the lowest-round-trip SELECT NOW(6).
package barrier

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/quadrant-bench/quadrant/executor/internal/authretry"
	"github.com/quadrant-bench/quadrant/spec/shard"
)

// Table is the rendezvous table, in the DSN's database (created when missing, as a
// prepare would) or, when the DSN names none, in database quadrant.
const Table = "quadrant_barrier"

// DefaultDatabase holds the table when the DSN names no database.
const DefaultDatabase = "quadrant"

// Barrier is one shard's side of the rendezvous.
type Barrier struct {
	DB *sql.DB
	// Database holds Table (Open says which).
	Database string
	RunID    string
	Shard    shard.Shard
	// Timeout is how long a shard waits for the others at one point before it gives up.
	Timeout time.Duration
	// Margin is added to the last arrival so that every shard has seen it (polls are
	// Poll apart) and measured its offset before the start.
	Margin time.Duration
	Poll   time.Duration
	// Probes is how many SELECT NOW(6) the clock offset is taken from (the lowest
	// round trip wins: it bounds the error best).
	Probes int
}

// Meeting is what one point of the rendezvous gave this shard, for run.json.
type Meeting struct {
	Point string `json:"point"`
	// Start is T0 in the server's clock; Woke is when this shard's wait ended, in the
	// server's clock as this shard estimates it; Late is Woke - Start.
	Start time.Time     `json:"start"`
	Woke  time.Time     `json:"woke"`
	Late  time.Duration `json:"late_ns"`
	// Offset is server clock minus this machine's clock; RTT the round trip it was taken
	// with (its error is at most RTT/2).
	Offset time.Duration `json:"offset_ns"`
	RTT    time.Duration `json:"rtt_ns"`
	// Waited is how long this shard waited for the others (arrival to the last arrival).
	Waited time.Duration `json:"waited_ns"`
}

// ErrTimeout is returned when some shard did not arrive within Timeout.
var ErrTimeout = errors.New("barrier timeout")

func (b *Barrier) defaults() {
	if b.Timeout <= 0 {
		b.Timeout = 10 * time.Minute
	}
	if b.Margin <= 0 {
		b.Margin = 500 * time.Millisecond
	}
	if b.Poll <= 0 {
		b.Poll = 20 * time.Millisecond
	}
	if b.Probes <= 0 {
		b.Probes = 9
	}
}

// Init creates the table when it is missing.
func (b *Barrier) Init(ctx context.Context) error {
	if _, err := b.DB.ExecContext(ctx, "CREATE DATABASE IF NOT EXISTS "+quote(b.Database)); err != nil {
		return fmt.Errorf("barrier: create database %s: %w", b.Database, err)
	}
	_, err := b.DB.ExecContext(ctx, "CREATE TABLE IF NOT EXISTS "+b.table()+
		" (run_id VARCHAR(128) NOT NULL, point VARCHAR(64) NOT NULL, shard INT NOT NULL,"+
		" arrived DATETIME(6) NOT NULL, PRIMARY KEY (run_id, point, shard))")
	if err != nil {
		return fmt.Errorf("barrier: create table %s: %w", b.table(), err)
	}
	return nil
}

func quote(name string) string { return "`" + strings.ReplaceAll(name, "`", "``") + "`" }

func (b *Barrier) table() string { return quote(b.Database) + "." + Table }

// Wait arrives at point, waits for all N shards, then sleeps until the common start
// time. It returns what it saw, also with an error (a timeout names who is missing).
func (b *Barrier) Wait(ctx context.Context, point string) (Meeting, error) {
	b.defaults()
	m := Meeting{Point: point}
	n := max(b.Shard.Count, 1)
	arrived := time.Now()
	if _, err := b.DB.ExecContext(ctx, "INSERT INTO "+b.table()+" (run_id, point, shard, arrived) VALUES (?, ?, ?, NOW(6))"+
		" ON DUPLICATE KEY UPDATE arrived = NOW(6)", b.RunID, point, b.Shard.Index); err != nil {
		return m, fmt.Errorf("barrier %s: arrive: %w", point, err)
	}
	deadline := arrived.Add(b.Timeout)
	var last time.Time
	for {
		var count int
		var lastArr sql.NullTime
		err := b.DB.QueryRowContext(ctx, "SELECT COUNT(*), MAX(arrived) FROM "+b.table()+" WHERE run_id = ? AND point = ?", b.RunID, point).Scan(&count, &lastArr)
		if err != nil {
			return m, fmt.Errorf("barrier %s: %w", point, err)
		}
		if count >= n {
			last = lastArr.Time
			break
		}
		if time.Now().After(deadline) {
			return m, fmt.Errorf("barrier %s: %w: %d of %d shards arrived within %s (missing: %s); the others were not started, or failed before this point: see their output, and start every shard with the same --run-id (or raise --barrier-timeout when they start further apart)",
				point, ErrTimeout, count, n, b.Timeout, b.missing(ctx, point, n))
		}
		select {
		case <-ctx.Done():
			return m, ctx.Err()
		case <-time.After(b.Poll):
		}
	}
	m.Waited = time.Since(arrived)
	off, rtt, err := b.offset(ctx)
	if err != nil {
		return m, fmt.Errorf("barrier %s: clock offset: %w", point, err)
	}
	m.Offset, m.RTT = off, rtt
	m.Start = last.Add(b.Margin)
	// m.Start is in the server's clock; this machine's clock reads it Offset earlier.
	if d := time.Until(m.Start.Add(-off)); d > 0 {
		select {
		case <-ctx.Done():
			return m, ctx.Err()
		case <-time.After(d):
		}
	}
	m.Woke = time.Now().Add(off)
	m.Late = m.Woke.Sub(m.Start)
	return m, nil
}

// missing lists the shards that did not arrive at point.
func (b *Barrier) missing(ctx context.Context, point string, n int) string {
	rows, err := b.DB.QueryContext(ctx, "SELECT shard FROM "+b.table()+" WHERE run_id = ? AND point = ?", b.RunID, point)
	if err != nil {
		return "unknown: " + err.Error()
	}
	defer rows.Close()
	here := map[int]bool{}
	for rows.Next() {
		var k int
		if rows.Scan(&k) == nil {
			here[k] = true
		}
	}
	out := ""
	for k := range n {
		if !here[k] {
			if out != "" {
				out += ", "
			}
			out += fmt.Sprintf("%d/%d", k, n)
		}
	}
	return out
}

// offset estimates server clock minus local clock from the probe with the lowest round
// trip, assuming the server read its clock half way.
func (b *Barrier) offset(ctx context.Context) (off, rtt time.Duration, err error) {
	conn, err := b.DB.Conn(ctx) // one connection: the first probe pays for dialing, not the rest
	if err != nil {
		return 0, 0, err
	}
	defer conn.Close()
	rtt = -1
	for range b.Probes {
		var server time.Time
		sent := time.Now()
		if err := conn.QueryRowContext(ctx, "SELECT NOW(6)").Scan(&server); err != nil {
			return 0, 0, err
		}
		got := time.Now()
		if r := got.Sub(sent); rtt < 0 || r < rtt {
			rtt = r
			off = server.Sub(sent.Add(r / 2))
		}
	}
	return off, rtt, nil
}

// Clean removes this shard's rows of the run. Run it at the end, after the last point's
// start: the others have seen all N rows of it by then (they poll Poll apart, well
// within Margin).
func (b *Barrier) Clean(ctx context.Context) error {
	_, err := b.DB.ExecContext(ctx, "DELETE FROM "+b.table()+" WHERE run_id = ? AND shard = ?", b.RunID, b.Shard.Index)
	return err
}

// Open connects to the barrier's server from a go-sql-driver/mysql DSN, reading and
// writing times in UTC whatever the server's time zone, so that its clock and this
// machine's compare. It returns the database the table goes in.
func Open(dsn string) (*sql.DB, string, error) {
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return nil, "", fmt.Errorf("barrier: %w", err)
	}
	cfg = cfg.Clone()
	database := cfg.DBName
	if database == "" {
		database = DefaultDatabase
	}
	cfg.DBName = "" // it may not exist yet: Init creates it
	cfg.ParseTime, cfg.Loc = true, time.UTC
	if cfg.Params == nil {
		cfg.Params = map[string]string{}
	}
	cfg.Params["time_zone"] = "'+00:00'"
	c, err := authretry.NewConnector(cfg)
	if err != nil {
		return nil, "", fmt.Errorf("barrier: %w", err)
	}
	db := sql.OpenDB(c)
	db.SetMaxOpenConns(2)
	return db, database, nil
}
