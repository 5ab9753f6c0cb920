// Package mysqlwatch samples MySQL/MariaDB servers for the executor: global status counters and gauges,
// replica status and custom SQL metrics, each on its own connection (never the workload's, so a watcher
// neither waits behind nor disturbs the measured connections). It also snapshots and diffs global variables.
package mysqlwatch

import (
	"context"
	"crypto/tls"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/quadrant-bench/quadrant/executor/internal/authretry"
	"github.com/quadrant-bench/quadrant/executor/watch"
)

// dialTimeout bounds a reconnect attempt when the server is gone; the tick's own deadline bounds the rest.
const dialTimeout = 2 * time.Second

// Querier is what the variable snapshot needs: *sql.DB, *sql.Conn and *sql.Tx all satisfy it.
type Querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// conn is a sampler's private connection: a *sql.DB limited to one connection, which database/sql reopens on
// the next tick after a loss.
type conn struct {
	db   *sql.DB
	addr string // host:port only: DSNs carry passwords, messages must not
}

// openConn opens a sampler's connection and logs in. A connect that fails on the way (refused,
// reset, cut mid-handshake, timed out) is tried again, waiting twice as long each time up to
// maxBackoff, until ctx ends: the run's first readings must not hang on one lost packet.
// Still failing then, it returns the connection anyway, with an error that is
// watch.ErrUnavailable: database/sql connects again at a later tick. A server that answers
// with an error (access denied, unknown database) fails at once: trying again cannot help.
func openConn(ctx context.Context, what, dsn string) (*conn, error) {
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return nil, fmt.Errorf("%s: invalid DSN: %w", what, err)
	}
	if cfg.Timeout == 0 || cfg.Timeout > dialTimeout {
		cfg.Timeout = dialTimeout
	}
	connector, err := authretry.NewConnector(cfg)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", what, cfg.Addr, err)
	}
	db := sql.OpenDB(connector)
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	c := &conn{db: db, addr: cfg.Addr}
	err = retry(ctx, func() error { return db.PingContext(ctx) })
	switch {
	case err == nil:
		return c, nil
	case errors.Is(err, watch.ErrUnavailable):
		return c, fmt.Errorf("%s %s: connect: %w", what, cfg.Addr, err)
	}
	db.Close()
	return nil, fmt.Errorf("%s %s: connect: %w", what, cfg.Addr, err)
}

// retry runs f until it succeeds, fails for good (not transient) or ctx ends, waiting twice
// as long after each failure up to maxBackoff; a transient failure left when ctx ends is
// returned as watch.ErrUnavailable.
func retry(ctx context.Context, f func() error) error {
	for wait := firstBackoff; ; wait = min(2*wait, maxBackoff) {
		err := f()
		if err == nil || !transient(err) {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (%w)", err, watch.ErrUnavailable)
		case <-time.After(wait):
		}
	}
}

// The waits between a sampler's connect attempts at Start.
const (
	firstBackoff = 100 * time.Millisecond
	maxBackoff   = 2 * time.Second
)

// transient tells a connection lost or never made (worth another try) from a server's
// answer or a TLS certificate refused (not).
func transient(err error) bool {
	var me *mysql.MySQLError
	var ne net.Error
	var cve *tls.CertificateVerificationError
	switch {
	case errors.As(err, &me), errors.As(err, &cve):
		return false
	case errors.As(err, &ne), errors.Is(err, mysql.ErrInvalidConn), errors.Is(err, driver.ErrBadConn),
		errors.Is(err, mysql.ErrMalformPkt), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET), errors.Is(err, context.DeadlineExceeded):
		return true
	}
	return false
}

func (c *conn) close() error {
	if c == nil || c.db == nil {
		return nil
	}
	return c.db.Close()
}

// readPairs runs a two-column statement (SHOW GLOBAL STATUS / VARIABLES) and returns name -> value in
// server order, plus the moment the server most likely evaluated it (midway through the round trip).
func readPairs(ctx context.Context, q Querier, stmt string) (names, values []string, at time.Time, err error) {
	t0 := time.Now()
	rows, err := q.QueryContext(ctx, stmt)
	if err != nil {
		return nil, nil, time.Time{}, err
	}
	defer rows.Close()
	for rows.Next() {
		var n string
		var v sql.NullString
		if err := rows.Scan(&n, &v); err != nil {
			return nil, nil, time.Time{}, err
		}
		names = append(names, n)
		values = append(values, v.String)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, time.Time{}, err
	}
	t1 := time.Now()
	return names, values, t0.Add(t1.Sub(t0) / 2), nil
}

var errNotStarted = errors.New("sampler not started (Start failed or was not called)")

var (
	_ watch.Sampler = (*Status)(nil)
	_ watch.Sampler = (*Queries)(nil)
	_ watch.Sampler = (*Replication)(nil)
)
