// Package engine is the part all SQL workloads share: a pinned connection
// with statements prepared once (the driver connects; the hot path, see wire,
// speaks the protocol itself), sysbench's read/write/other counting, MySQL
// error classification, and the closed/open loop that drives workers and cuts
// one measure.Interval per report interval.
package engine

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/quadrant-bench/quadrant/executor/internal/authretry"
	"github.com/quadrant-bench/quadrant/results/measure"
	"github.com/quadrant-bench/quadrant/spec/sqltext"
)

// Tally counts the statements of the current event, sysbench's way.
type Tally struct{ Reads, Writes, Other int64 }

// Stmt is a statement of a Conn: server-side prepared (ps_mode=auto) or
// sent as text with client-side interpolation (ps_mode=disable).
type Stmt struct {
	sql   string
	rows  bool // returns a result set (counted as a read)
	ps    driver.Stmt
	id    uint32 // prepared through the wire path (ps is nil)
	wired bool
	types []byte // parameter types last sent (wire path)
	dest  []driver.Value
	nargs int
	class int32 // its statement class when timed (PrepareAs), -1 otherwise
	// values: its rows are read (PrepareQuery), so it goes through the driver, which
	// decodes them; the wire path skips rows unread.
	values bool
}

// Conn is one worker's connection, used without database/sql so no pool,
// liveness check, context watcher or per-call allocation sits between the
// worker and the wire. Not safe for concurrent use.
type Conn struct {
	connector driver.Connector
	cfg       *mysql.Config // what it dials with: Run's control connection dials the same
	id        atomic.Uint32 // the server's connection id, 0 while not connected
	killed    atomic.Bool   // Run killed (or is about to kill) its statement at the stop
	prepared  bool
	dc        driver.Conn
	// The context-free interfaces, deprecated for drivers to implement: called on a bare
	// driver.Conn, they skip the driver's cancel watcher on every statement.
	//lint:ignore SA1019 the context-free driver calls skip the driver's per-call cancel watcher (see Conn)
	ex driver.Execer
	//lint:ignore SA1019 the context-free driver calls skip the driver's per-call cancel watcher (see Conn)
	q     driver.Queryer
	stmts []*Stmt
	T     Tally
	// The wire path, when the socket is ours (blockingConn): see wire.
	pio   packetIO
	loc   *time.Location
	w     *wire
	begin bool // a BEGIN waits to go out with the next command
	// Laps are the statements of the current event timed one by one (TimeStatements);
	// the loop hands them to the worker's recorder after each attempt at an event.
	Laps []measure.Lap
	// timing: the statement classes of BEGIN and COMMIT; sent and at are when the last
	// wire exchange was written and each of its replies arrived.
	timed              bool
	beginClass, commit int32
	sent               time.Time
	at                 [3]time.Time
}

// DialConfig tunes a copy of cfg for benchmarking: no liveness check, server-side
// prepares unless ps_mode=disable, and timeouts so a lost server cannot hang a worker.
// threads is the number of connections the caller will run at once (see blockingConn).
func DialConfig(cfg *mysql.Config, prepared bool, readTimeout time.Duration, threads int) *mysql.Config {
	c := cfg.Clone()
	c.CheckConnLiveness = false
	c.InterpolateParams = !prepared
	if c.Timeout == 0 {
		c.Timeout = 5 * time.Second
	}
	if c.ReadTimeout == 0 {
		c.ReadTimeout = readTimeout
	}
	if c.WriteTimeout == 0 {
		c.WriteTimeout = readTimeout
	}
	// Under TLS the socket is still ours: the driver runs the TLS handshake over it, and
	// open reads and writes the wire path through the driver's tls.Conn (see tlsIO).
	own := c.DialFunc == nil
	to := max(c.ReadTimeout, c.WriteTimeout)
	switch {
	case own && blockingSockets && threads <= maxBlockingThreads:
		// Blocking sockets with one socket timeout instead of per-packet deadlines; raw
		// reads when there is a spare P per worker, as Run sees to before its workers dial.
		c.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
			return dialBlocking(ctx, network, addr, to, runtime.GOMAXPROCS(0) > threads)
		}
		c.ReadTimeout, c.WriteTimeout = 0, 0
	case own:
		c.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
			var d net.Dialer
			nc, err := d.DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return newPollConn(nc, to), nil
		}
	}
	// The driver logs lost connections to stderr; the workload counts and reports them.
	c.Logger = discardLogger{}
	return c
}

var procsMu sync.Mutex

// maxBlockingThreads is the most workers that get a blocking socket, a thread
// and a P each (see blockingConn). Beyond it workers use the netpoller: with a
// P per worker the scheduler's work grows with the number of Ps (timer and
// work-stealing scans, per-P caches), and at 1024 workers that overhead was
// most of the client's CPU while each P cached hundreds of KB.
const maxBlockingThreads = 64

// ensureProcs raises GOMAXPROCS (never lowers it) to threads+2 for up to
// maxBlockingThreads threads, so each worker can keep a P during its raw
// reads (see blockingConn) and the ticker still finds one. Only idle Ps are
// added: an I/O-bound client does not run more goroutines at once because of
// them. Run calls it, for every kind, before its workers dial: the one place
// GOMAXPROCS is set (process-wide, so concurrent workloads only ever raise it).
func ensureProcs(threads int) {
	if threads > maxBlockingThreads {
		return
	}
	want := threads + 2
	procsMu.Lock()
	defer procsMu.Unlock()
	if runtime.GOMAXPROCS(0) < want {
		runtime.GOMAXPROCS(want)
	}
}

type discardLogger struct{}

func (discardLogger) Print(...any) {}

// Dial opens a connection. prepared selects server-side prepared statements.
func Dial(ctx context.Context, cfg *mysql.Config, prepared bool) (*Conn, error) {
	c, err := DialLater(cfg, prepared)
	if err != nil {
		return nil, err
	}
	if err := c.open(ctx); err != nil {
		return nil, err
	}
	return c, nil
}

// DialLater is Dial without connecting yet: Reconnect opens the connection when it is needed
// (a replayed session's at its first statement, so only sessions that overlap hold one).
func DialLater(cfg *mysql.Config, prepared bool) (*Conn, error) {
	c := &Conn{prepared: prepared, loc: cfg.Loc, cfg: cfg}
	if dial := cfg.DialFunc; dial != nil {
		cfg = cfg.Clone()
		cfg.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
			nc, err := dial(ctx, network, addr)
			c.pio, _ = nc.(packetIO)
			return nc, err
		}
	}
	connector, err := authretry.NewConnector(cfg)
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	c.connector = connector
	return c, nil
}

// Path says how the connection's statements travel: "wire" (quadrant's own protocol
// code) or "driver" (go-sql-driver's), and whether over TLS ("wire+tls"); "" while not
// connected.
func (c *Conn) Path() string {
	if c.dc == nil {
		return ""
	}
	p := "driver"
	if c.w != nil {
		p = "wire"
	}
	if _, ok := c.pio.(*tlsIO); ok || driverTLS(c.dc) != nil {
		p += "+tls"
	}
	return p
}

// Connected says the connection is open.
func (c *Conn) Connected() bool { return c.dc != nil }

// Killed says Run ended the connection's statement at the workload's stop (KILL QUERY):
// an error from here on is quadrant's doing, not the server's answer to the workload.
func (c *Conn) Killed() bool { return c.killed.Load() }

func (c *Conn) open(ctx context.Context) error {
	c.pio = nil
	dc, err := c.connector.Connect(ctx)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	c.dc = dc
	c.w = nil
	if c.pio != nil {
		if tc := driverTLS(dc); tc != nil {
			c.pio = newTLSIO(tc, c.pio)
		}
	}
	if c.pio != nil && !noWire {
		c.w = newWire(c.pio, c.loc)
	}
	//lint:ignore SA1019 the context-free driver calls skip the driver's per-call cancel watcher (see Conn)
	c.ex = dc.(driver.Execer)
	//lint:ignore SA1019 the context-free driver calls skip the driver's per-call cancel watcher (see Conn)
	c.q = dc.(driver.Queryer)
	if err := c.learnID(); err != nil {
		return err
	}
	for _, s := range c.stmts {
		if err := c.prepare(s); err != nil {
			return err
		}
	}
	return nil
}

// Reconnect drops the connection and opens a new one, re-preparing every statement.
func (c *Conn) Reconnect(ctx context.Context) error {
	c.closeDriver()
	return c.open(ctx)
}

func (c *Conn) closeDriver() {
	if c.dc == nil {
		return
	}
	for _, s := range c.stmts {
		if s.ps != nil {
			_ = s.ps.Close()
			s.ps = nil
		}
		s.wired = false
	}
	_ = c.dc.Close()
	c.dc = nil
	c.id.Store(0)
	c.w = nil
	c.begin = false
}

// ID is the server's id of the connection (what KILL takes), 0 while not connected. Safe
// to call from another goroutine.
func (c *Conn) ID() uint32 { return c.id.Load() }

// learnID takes the connection id from the server's handshake when the socket is ours (no
// round trip; under TLS too: the handshake comes before it), from SELECT CONNECTION_ID()
// otherwise (a DialFunc of the DSN's).
func (c *Conn) learnID() error {
	if c.pio != nil {
		if id, ok := c.pio.connectionID(); ok {
			c.id.Store(id)
			return nil
		}
	}
	rows, err := c.q.Query("SELECT CONNECTION_ID()", nil)
	if err != nil {
		return fmt.Errorf("connection id: %w", err)
	}
	var id uint32
	_, err = eachRow(rows, nil, func(row []driver.Value) error {
		id = uint32(asUint(row[0]))
		return nil
	})
	if err != nil {
		return fmt.Errorf("connection id: %w", err)
	}
	c.id.Store(id)
	return nil
}

func asUint(v driver.Value) uint64 {
	switch x := v.(type) {
	case int64:
		return uint64(x)
	case uint64:
		return x
	case []byte:
		n, _ := strconv.ParseUint(string(x), 10, 64)
		return n
	}
	return 0
}

// Close closes the connection.
func (c *Conn) Close() error {
	c.closeDriver()
	return nil
}

// TimeStatements makes c time each statement prepared with a class (PrepareAs), and
// BEGIN and COMMIT as classes begin and commit (-1: not timed), into c.Laps. A BEGIN or
// COMMIT that goes out in one write with a statement is timed to its own reply and the
// statement from there: the server answers them in order, so the split is where the
// server's time went, without a round trip more.
func (c *Conn) TimeStatements(begin, commit int) {
	c.timed, c.beginClass, c.commit = true, int32(begin), int32(commit)
}

// Lap records a statement the caller timed itself (a text statement) as class.
func (c *Conn) Lap(class int, d time.Duration) {
	if c.timed {
		c.lap(int32(class), d)
	}
}

// LapError counts a server error (a deadlock, a lock wait timeout) against class: a lap
// without a latency. A lost connection is no statement's.
func (c *Conn) LapError(class int, err error) {
	if c.timed && class >= 0 && !Broken(err) {
		c.Laps = append(c.Laps, measure.Lap{Class: int32(class), US: -1})
	}
}

func (c *Conn) lap(class int32, d time.Duration) {
	if class >= 0 {
		c.Laps = append(c.Laps, measure.Lap{Class: class, US: d.Microseconds()})
	}
}

// now is the time when statements are timed, the zero time otherwise (no clock read).
func (c *Conn) now() time.Time {
	if c.timed {
		return time.Now()
	}
	return time.Time{}
}

// lapReplies times the last exchange's replies: a pipelined BEGIN's, then n (1 or 2)
// commands of classes a and b.
func (c *Conn) lapReplies(withBegin bool, n int, a, b int32) {
	if !c.timed {
		return
	}
	prev, i := c.sent, 0
	if withBegin {
		c.lap(c.beginClass, c.at[0].Sub(prev))
		prev, i = c.at[0], 1
	}
	c.lap(a, c.at[i].Sub(prev))
	if n == 2 {
		c.lap(b, c.at[i+1].Sub(c.at[i]))
	}
}

// Prepare registers a statement (prepared on the server when ps_mode=auto).
// Statements the server cannot prepare (1295) silently fall back to text.
func (c *Conn) Prepare(sql string) (*Stmt, error) { return c.PrepareAs(sql, -1) }

// PrepareAs is Prepare for a statement timed as class (see TimeStatements).
func (c *Conn) PrepareAs(sql string, class int) (*Stmt, error) {
	return c.register(&Stmt{sql: sql, rows: ReturnsRows(sql), nargs: -1, class: int32(class)})
}

// PrepareQuery registers a statement whose rows the caller reads with Query: prepared
// through the driver, which decodes them (the wire path, for Exec, skips rows unread).
func (c *Conn) PrepareQuery(sql string) (*Stmt, error) {
	return c.register(&Stmt{sql: sql, rows: true, nargs: -1, class: -1, values: true})
}

func (c *Conn) register(s *Stmt) (*Stmt, error) {
	if err := c.prepare(s); err != nil {
		return nil, err
	}
	c.stmts = append(c.stmts, s)
	return s, nil
}

func (c *Conn) prepare(s *Stmt) error {
	if !c.prepared {
		return nil
	}
	if c.w != nil && !s.values {
		id, n, err := c.wirePrepare(s.sql)
		if err != nil {
			if Code(err) == 1295 { // ER_UNSUPPORTED_PS
				return nil
			}
			return fmt.Errorf("prepare %q: %w", abbrev(s.sql), err)
		}
		s.id, s.nargs, s.wired, s.types = id, n, true, s.types[:0]
		return nil
	}
	if err := c.flushBegin(); err != nil {
		return err
	}
	ps, err := c.dc.Prepare(s.sql)
	if err != nil {
		if Code(err) == 1295 { // ER_UNSUPPORTED_PS
			return nil
		}
		return fmt.Errorf("prepare %q: %w", abbrev(s.sql), err)
	}
	s.ps = ps
	s.nargs = ps.NumInput()
	return nil
}

// Exec runs a registered statement with args, counting it in c.T.
func (c *Conn) Exec(s *Stmt, args []driver.Value) error {
	if s.wired {
		if len(args) != s.nargs {
			return fmt.Errorf("argument count mismatch (got: %d; has: %d)", len(args), s.nargs)
		}
		withBegin := c.takeBegin()
		if err := c.w.queueExecute(s.id, args, &s.types); err != nil {
			c.w.out = c.w.out[:0]
			return err
		}
		r, err := c.wireRound(withBegin)
		if err != nil {
			return err
		}
		c.lapReplies(withBegin, 1, s.class, -1)
		// Counted by what the statement is, as on the driver's path (Query
		// for statements that return rows, Exec and affected rows otherwise).
		if s.rows {
			c.T.Reads++
		} else {
			c.countAffected(r.affected)
		}
		return nil
	}
	if err := c.flushBegin(); err != nil {
		return err
	}
	t0 := c.now()
	if s.rows {
		rows, err := c.query(s, args)
		if err != nil {
			return err
		}
		s.dest, err = drain(rows, s.dest)
		if err == nil && c.timed {
			c.lap(s.class, time.Since(t0))
		}
		return err
	}
	var res driver.Result
	var err error
	if s.ps != nil {
		//lint:ignore SA1019 the context-free driver calls skip the driver's per-call cancel watcher (see Conn)
		res, err = s.ps.Exec(args)
	} else {
		res, err = c.ex.Exec(s.sql, args)
	}
	if err != nil {
		return err
	}
	if c.timed {
		c.lap(s.class, time.Since(t0))
	}
	c.count(res)
	return nil
}

// query sends s through the driver (its prepared statement, else the text protocol) and
// counts the read; the caller reads the rows.
func (c *Conn) query(s *Stmt, args []driver.Value) (driver.Rows, error) {
	var rows driver.Rows
	var err error
	if s.ps != nil {
		//lint:ignore SA1019 the context-free driver calls skip the driver's per-call cancel watcher (see Conn)
		rows, err = s.ps.Query(args)
	} else {
		rows, err = c.q.Query(s.sql, args)
	}
	if err == nil {
		c.T.Reads++
	}
	return rows, err
}

// Query runs s, from PrepareQuery (or any statement on a connection without server-side
// prepares), and calls each with every row, counting it as a read. The row is reused from
// one call to the next: copy what must outlive it. An error of each ends the statement.
func (c *Conn) Query(s *Stmt, args []driver.Value, each func(row []driver.Value) error) error {
	if s.wired {
		return fmt.Errorf("query %q: prepared for the wire path, which skips rows; use PrepareQuery", abbrev(s.sql))
	}
	if err := c.flushBegin(); err != nil {
		return err
	}
	t0 := c.now()
	rows, err := c.query(s, args)
	if err != nil {
		return err
	}
	s.dest, err = eachRow(rows, s.dest, each)
	if err == nil && c.timed {
		c.lap(s.class, time.Since(t0))
	}
	return err
}

// QueryTextRows sends sql as a text-protocol statement and calls each with every row (reused,
// as Query's), counting it as a read.
func (c *Conn) QueryTextRows(sql string, each func(row []driver.Value) error) error {
	if err := c.flushBegin(); err != nil {
		return err
	}
	rows, err := c.q.Query(sql, nil)
	if err != nil {
		return err
	}
	c.T.Reads++
	_, err = eachRow(rows, nil, each)
	return err
}

// ExecText sends sql as a text-protocol statement (BEGIN, COMMIT, replayed SQL).
// rows says whether it returns a result set.
func (c *Conn) ExecText(sql string, rows bool, dest []driver.Value) ([]driver.Value, error) {
	if err := c.flushBegin(); err != nil {
		return dest, err
	}
	if rows {
		r, err := c.q.Query(sql, nil)
		if err != nil {
			return dest, err
		}
		c.T.Reads++
		return drain(r, dest)
	}
	res, err := c.ex.Exec(sql, nil)
	if err != nil {
		return dest, err
	}
	c.count(res)
	return dest, nil
}

// QueryText is ExecText that also says how many rows the result set had (0 without one): a
// replay compares it with the rows the capture recorded.
func (c *Conn) QueryText(sql string, rows bool, dest []driver.Value) ([]driver.Value, int64, error) {
	if !rows {
		dest, err := c.ExecText(sql, false, dest)
		return dest, 0, err
	}
	if err := c.flushBegin(); err != nil {
		return dest, 0, err
	}
	r, err := c.q.Query(sql, nil)
	if err != nil {
		return dest, 0, err
	}
	c.T.Reads++
	if n := len(r.Columns()); cap(dest) < n {
		dest = make([]driver.Value, n)
	} else {
		dest = dest[:n]
	}
	var sent int64
	for {
		if err := r.Next(dest); err != nil {
			if err == io.EOF {
				break
			}
			_ = r.Close()
			return dest, sent, err
		}
		sent++
	}
	return dest, sent, r.Close()
}

func (c *Conn) count(res driver.Result) {
	n, _ := res.RowsAffected()
	c.countAffected(n)
}

func (c *Conn) countAffected(n int64) {
	if n > 0 {
		c.T.Writes++
	} else {
		c.T.Other++
	}
}

// Begin starts a transaction. On the wire path the BEGIN is sent in the same
// write as the next statement (one round trip fewer per transaction); the
// server still runs them one after the other, and both are counted.
func (c *Conn) Begin() error {
	if c.w == nil {
		t0 := c.now()
		_, err := c.ExecText("BEGIN", false, nil)
		if err == nil && c.timed {
			c.lap(c.beginClass, time.Since(t0))
		}
		return err
	}
	if c.begin {
		if err := c.flushBegin(); err != nil {
			return err
		}
	}
	c.begin = true
	return nil
}

// Commit commits the transaction (with a BEGIN still waiting, both go in one write).
func (c *Conn) Commit() error { return c.control("COMMIT") }

// ExecCommit runs s, the last statement of a transaction, and commits, in one
// write on the wire path. Only for transactions that have written nothing:
// the COMMIT runs even when s fails, which must not make anything durable
// (a statement that fails on a lock wait timeout is rolled back alone). The
// COMMIT is counted only when s succeeded, as if it had been sent after it.
func (c *Conn) ExecCommit(s *Stmt, args []driver.Value) error {
	if !s.wired || !s.rows {
		if err := c.Exec(s, args); err != nil {
			return err
		}
		return c.Commit()
	}
	if len(args) != s.nargs {
		return fmt.Errorf("argument count mismatch (got: %d; has: %d)", len(args), s.nargs)
	}
	withBegin := c.takeBegin()
	if err := c.w.queueExecute(s.id, args, &s.types); err != nil {
		c.w.out = c.w.out[:0]
		return err
	}
	c.w.queueQuery("COMMIT")
	rs, errs, err := c.exchange(withBegin, 2)
	if err != nil {
		return err
	}
	if _, err := c.afterBegin(withBegin, rs, errs); err != nil {
		return err
	}
	c.T.Reads++
	cr, cerr := rs[1], errs[1]
	if withBegin {
		cr, cerr = rs[2], errs[2]
	}
	if cerr != nil {
		return cerr
	}
	c.lapReplies(withBegin, 2, s.class, c.commit)
	c.countAffected(cr.affected)
	return nil
}

// Rollback rolls the transaction back.
func (c *Conn) Rollback() error { return c.control("ROLLBACK") }

func (c *Conn) control(sql string) error {
	class := int32(-1)
	if sql == "COMMIT" {
		class = c.commit
	}
	if c.w == nil {
		t0 := c.now()
		_, err := c.ExecText(sql, false, nil)
		if err == nil && c.timed {
			c.lap(class, time.Since(t0))
		}
		return err
	}
	withBegin := c.takeBegin()
	c.w.queueQuery(sql)
	r, err := c.wireRound(withBegin)
	if err != nil {
		return err
	}
	c.lapReplies(withBegin, 1, class, -1)
	c.countAffected(r.affected)
	return nil
}

// flushBegin sends a waiting BEGIN on its own.
func (c *Conn) flushBegin() error {
	if !c.begin {
		return nil
	}
	c.begin = false
	c.w.queueQuery("BEGIN")
	r, err := c.wireRound(false)
	if err != nil {
		return err
	}
	c.lapReplies(false, 1, c.beginClass, -1)
	c.countAffected(r.affected)
	return nil
}

// wireRound writes the queued command, preceded by a waiting BEGIN, and
// reads the replies; it returns the command's reply. A failed BEGIN is
// returned after the command behind it has been answered (and counted: it ran).
func (c *Conn) wireRound(withBegin bool) (reply, error) {
	rs, errs, err := c.exchange(withBegin, 1)
	if err != nil {
		return reply{}, err
	}
	return c.afterBegin(withBegin, rs, errs)
}

// afterBegin counts a pipelined BEGIN and returns the next command's reply,
// or the BEGIN's error once that command has been counted.
func (c *Conn) afterBegin(withBegin bool, rs [3]reply, errs [3]error) (reply, error) {
	if !withBegin {
		return rs[0], errs[0]
	}
	if errs[0] == nil {
		c.countAffected(rs[0].affected)
		return rs[1], errs[1]
	}
	if errs[1] == nil {
		c.countReply(rs[1])
	}
	return rs[1], errs[0]
}

// exchange writes the queued commands and reads a reply for each: a waiting
// BEGIN's, then n more. Server errors are per reply; a broken connection ends
// the exchange and is returned alone.
func (c *Conn) exchange(withBegin bool, n int) (rs [3]reply, errs [3]error, err error) {
	if c.timed {
		c.sent = time.Now()
	}
	if err := c.w.flush(); err != nil {
		return rs, errs, err
	}
	if withBegin {
		n++
	}
	for i := range n {
		rs[i], errs[i] = c.w.readReply()
		if c.timed {
			c.at[i] = time.Now()
		}
		if errs[i] != nil && Broken(errs[i]) {
			return rs, errs, errs[i]
		}
	}
	return rs, errs, nil
}

// takeBegin queues a waiting BEGIN in front of the next command.
func (c *Conn) takeBegin() bool {
	if !c.begin {
		return false
	}
	c.begin = false
	c.w.queueQuery("BEGIN")
	return true
}

// countReply counts a statement whose kind is only known from its reply.
func (c *Conn) countReply(r reply) {
	if r.resultSet {
		c.T.Reads++
	} else {
		c.countAffected(r.affected)
	}
}

func (c *Conn) wirePrepare(sql string) (uint32, int, error) {
	if err := c.flushBegin(); err != nil {
		return 0, 0, err
	}
	c.w.queuePrepare(sql)
	if err := c.w.flush(); err != nil {
		return 0, 0, err
	}
	return c.w.readPrepare()
}

func drain(rows driver.Rows, dest []driver.Value) ([]driver.Value, error) {
	return eachRow(rows, dest, nil)
}

// eachRow reads rows into dest (grown to their width) and calls each, if set, for every row.
func eachRow(rows driver.Rows, dest []driver.Value, each func(row []driver.Value) error) ([]driver.Value, error) {
	if n := len(rows.Columns()); cap(dest) < n {
		dest = make([]driver.Value, n)
	} else {
		dest = dest[:n]
	}
	for {
		if err := rows.Next(dest); err != nil {
			if err == io.EOF {
				break
			}
			_ = rows.Close()
			return dest, err
		}
		if each != nil {
			if err := each(dest); err != nil {
				_ = rows.Close()
				return dest, err
			}
		}
	}
	return dest, rows.Close()
}

// ReturnsRows guesses from the first keyword whether a statement returns a
// result set; it decides between the driver's Query (read) and Exec paths.
func ReturnsRows(sql string) bool {
	kw := strings.ToUpper(firstWord(sql))
	switch kw {
	case "SELECT", "SHOW", "WITH", "VALUES", "TABLE", "DESC", "DESCRIBE", "EXPLAIN", "CHECKSUM", "ANALYZE", "CHECK", "OPTIMIZE", "REPAIR", "HELP":
		return true
	}
	return false
}

// firstWord skips blanks, comments (entering executable ones: the server runs them) and
// parentheses.
func firstWord(s string) string {
	for {
		s = sqltext.SkipComments(s)
		if !strings.HasPrefix(s, "(") {
			break
		}
		s = s[1:]
	}
	end := strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '_')
	})
	if end < 0 {
		return s
	}
	return s[:end]
}

func abbrev(s string) string {
	if len(s) > 80 {
		return s[:77] + "..."
	}
	return s
}

// MySQL client error numbers used for errors the driver reports without a number.
const (
	CodeConnError  = 2003 // CR_CONN_HOST_ERROR: cannot connect
	CodeServerLost = 2013 // CR_SERVER_LOST: connection lost or timed out mid-query
)

// Code returns the MySQL error number of err: the server's number, 2003 for a
// failed connect, 2013 for a lost connection or a read/write timeout, 0 otherwise.
func Code(err error) int {
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return int(me.Number)
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return CodeConnError
	}
	if Broken(err) {
		return CodeServerLost
	}
	return 0
}

// CodeDeadlock is ER_LOCK_DEADLOCK (SQLSTATE 40001): an InnoDB deadlock, or on a Galera node
// a transaction that lost certification (CertFailure).
const CodeDeadlock = 1213

// CertFailure reports whether err is a Galera node's certification failure: the transaction
// conflicted with one another node committed first (it failed certification at COMMIT, or
// the other's write set aborted it where it stood, a brute-force abort), and the node rolled
// it back. It comes as error 1213, as an InnoDB deadlock. Builds that word it their own way
// say "WSREP detected deadlock/conflict and aborted the transaction"; MariaDB 10.11 sends
// a deadlock's own message ("Deadlock found when trying to get lock"), as seen on its
// sandboxes (executor.TestGaleraSpreadCertFailures), so certifies, set when the server is a
// Galera node (wsrep_on=ON), counts every 1213 there: on such a node a transaction of a
// workload spread over the cluster loses mostly to the other nodes' (the wsrep status'
// wsrep_local_cert_failures and wsrep_local_bf_aborts against InnoDB's deadlocks tell how
// many of them were).
func CertFailure(err error, certifies bool) bool {
	var me *mysql.MySQLError
	if !errors.As(err, &me) || me.Number != CodeDeadlock {
		return false
	}
	return certifies || strings.HasPrefix(me.Message, "WSREP")
}

// Broken reports whether err leaves the connection unusable (no server error number).
func Broken(err error) bool {
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return false
	}
	var ne net.Error
	return errors.Is(err, driver.ErrBadConn) || errors.Is(err, mysql.ErrInvalidConn) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.As(err, &ne)
}
