// Package generate fills a user's own tables with generated rows, keys included: it reads
// the tables' definitions from information_schema, fills parents before children, takes
// foreign keys from the rows it made in the parent, and builds primary and unique keys
// that cannot collide. Every value is a function of (seed, table, column, row), so the
// rows are the same whatever the number of threads loading them.
package generate

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/quadrant-bench/quadrant/executor/workload/engine"
	"github.com/quadrant-bench/quadrant/spec/ddl"
	"github.com/quadrant-bench/quadrant/spec/shard"
	"github.com/quadrant-bench/quadrant/spec/sqltext"
)

// Options say what to generate.
type Options struct {
	// Schema is a file of DDL run first ("" for none).
	Schema string
	// After is a file of SQL run once every table is filled, in the database filled ("" for
	// none): a foreign key dropped to break a cycle is added back there. A sharded run's
	// leader runs it once all shards filled their parts.
	After string
	// Open opens Schema (the plan's roots' Open, so a symlink swapped in after validation
	// leads nowhere); nil is os.Open.
	Open func(path string) (*os.File, error)
	// Database holds the tables; "" means the one the schema leaves current, else the connection's.
	Database string
	Seed     int64
	Threads  int
	Tables   []Table
	// Logf is told what happens (which tables were filled); Loaded, if set, the rows
	// inserted so far of all, about once a second and at the end.
	Logf   func(format string, args ...any)
	Loaded func(done, total int64)
	// Shard is this process's part of a sharded run (quadrant run --shard K/N): it fills
	// rows [rows*K/N, rows*(K+1)/N) of every table, which compose into the rows of an
	// unsharded run because every value is a function of (seed, table, column, row). The
	// leader alone runs the schema; the others take the database from database:, else the
	// schema file's last USE, else the connection's.
	Shard shard.Shard
	// Meet, set in a sharded run, returns once every shard reached point: after the
	// leader's schema, after every shard found its tables empty (no shard inserts before
	// all have looked), and when every shard has filled its rows.
	Meet func(ctx context.Context, point string) error
	// Method is how the rows are sent: MethodAuto (""), MethodInsert or MethodLoadData.
	Method string
}

// part is the range of a table's rows this process fills.
func (o Options) part(rows int64) (from, to int64) {
	k, n := int64(o.Shard.Index), int64(max(o.Shard.Count, 1))
	return rows * k / n, rows * (k + 1) / n
}

// Table is one table to fill.
type Table struct {
	Name string
	Rows int64
	// PerParent, when set, gives the table its rows per row of a parent instead of Rows.
	PerParent *PerParent
	Columns   map[string]Settings
	// RowSample, when set, draws some columns together from rows of real data.
	RowSample *RowSample
	// Time is the column that carries the rows' time ("" found, TimeNone none): see timeorder.go.
	Time string
	// NoOverlap, when set, keeps the intervals of one entity's rows apart.
	NoOverlap *NoOverlap
}

// NoOverlap says the intervals [From, To) of the rows with one value of Entity (a foreign key
// column) never overlap.
type NoOverlap struct {
	Entity, From, To string
}

// RowSample draws Columns together from one row of Table (TABLE or DB.TABLE, on the target)
// at a time: values that go together in it stay together.
type RowSample struct {
	Table   string
	Columns []string
}

// PerParent is how many rows each row of a parent table gets: Min to Max, drawn by
// Distribution ("" uniform); Parent "" for the only table the foreign keys reference.
type PerParent struct {
	Parent       string
	Min, Max     int64
	Distribution string
}

// Result says what was filled.
type Result struct {
	Database string
	Filled   []string // in the order filled
	Rows     int64    // inserted by this process (a shard's part)
}

// bulkSize bounds one multi-row INSERT, as the builtin prepare's: well under the 16 MB
// default max_allowed_packet.
const bulkSize = 512 << 10

// Run runs the schema, then fills the tables of o on db.
func Run(ctx context.Context, db *sql.DB, o Options) (Result, error) {
	res := Result{}
	conn, err := db.Conn(ctx)
	if err != nil {
		return res, fmt.Errorf("connect: %w", err)
	}
	defer discard(conn)
	meet := func(point string) error {
		if !o.Shard.Sharded() || o.Meet == nil {
			return nil
		}
		return o.Meet(ctx, point)
	}
	if o.Schema != "" && o.Shard.Leader() {
		if err := runSchema(ctx, conn, o.Schema, o.Open); err != nil {
			return res, err
		}
	}
	if err := meet("schema"); err != nil {
		return res, err
	}
	if res.Database, err = fillDatabase(ctx, conn, o); err != nil {
		return res, err
	}
	if o.Tables, err = samples(ctx, conn, res.Database, o.Seed, o.Tables, o.Logf); err != nil {
		return res, err
	}
	ordered, plans, err := planTables(ctx, conn, res.Database, o)
	if err != nil {
		return res, err
	}
	if err := checkEmpty(ctx, conn, res.Database, ordered); err != nil {
		return res, err
	}
	loadData, how, err := chooseMethod(ctx, conn, o.Method)
	if err != nil {
		return res, err
	}
	discard(conn)
	if err := meet("checked"); err != nil {
		return res, err
	}
	logf := o.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	logf("generate: rows go in with %s", how)
	// The threads filling one table can deadlock each other, or wait on another session's
	// locks: such a batch is sent again, logged here, and the total said at the end.
	// The threads log one at a time, as the rest of the fill does.
	var logMu sync.Mutex
	retry := &engine.LoadRetry{Log: func(msg string) { logMu.Lock(); defer logMu.Unlock(); logf("generate: %s", msg) }}
	defer func() {
		logf("generate: %d batch(es) sent again after a deadlock or lock wait timeout", retry.Retries())
	}()

	var done atomic.Int64
	if o.Loaded != nil {
		var total int64
		for _, n := range ordered {
			from, to := o.part(plans[n].rows)
			total += to - from
		}
		defer reportProgress(o.Loaded, &done, total)()
	}
	for i, n := range ordered {
		if err := fillOne(ctx, db, o, &res, plans[n], ordered[i:], &done, retry, loadData, logf); err != nil {
			return res, err
		}
	}
	if err := meet("filled"); err != nil {
		return res, err
	}
	if o.After != "" && o.Shard.Leader() {
		return res, runAfter(ctx, db, o, res, logf)
	}
	return res, nil
}

// runAfter runs o.After on a connection of its own, in the database filled.
func runAfter(ctx context.Context, db *sql.DB, o Options, res Result, logf func(string, ...any)) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("after: connect: %w", err)
	}
	defer discard(conn)
	if _, err := conn.ExecContext(ctx, "USE "+quoteID(res.Database)); err != nil {
		return fmt.Errorf("after: %w", err)
	}
	if err := runSchema(ctx, conn, o.After, o.Open); err != nil {
		return fmt.Errorf("every table is filled (%s), but %w", strings.Join(res.Filled, ", "), err)
	}
	logf("generate: ran %s after the rows", o.After)
	return nil
}

// fillDatabase is the database to fill: the step's, else the schema file's (read here by
// a shard that did not run it), else the connection's.
func fillDatabase(ctx context.Context, conn *sql.Conn, o Options) (string, error) {
	database := o.Database
	if database == "" && o.Schema != "" && !o.Shard.Leader() {
		sf, err := ddl.ReadSchemaFile(o.Schema, o.Open)
		if err != nil {
			return "", err
		}
		database = sf.Database
	}
	if database == "" {
		var cur sql.NullString
		if err := conn.QueryRowContext(ctx, "SELECT DATABASE()").Scan(&cur); err != nil {
			return "", err
		}
		database = cur.String
	}
	if database == "" {
		return "", &SettingsError{errors.New("no database to fill: end the schema file with USE name, give the target's DSN a database, or set database: in the step")}
	}
	return database, nil
}

// planTables reads the tables of o from the server and plans their values, parents
// before children: the tables in fill order and their plans.
func planTables(ctx context.Context, conn *sql.Conn, database string, o Options) ([]string, map[string]*tablePlan, error) {
	names := make([]string, len(o.Tables))
	byName := map[string]Table{}
	for i, t := range o.Tables {
		names[i] = t.Name
		byName[t.Name] = t
	}
	infos, err := introspect(ctx, conn, database, names)
	if err != nil {
		return nil, nil, &SettingsError{err}
	}
	ordered, err := order(names, infos)
	if err != nil {
		return nil, nil, &SettingsError{err}
	}
	plans := map[string]*tablePlan{}
	for _, n := range ordered {
		tp, err := planTable(o.Seed, infos[n], byName[n], plans)
		if err != nil {
			return nil, nil, &SettingsError{err}
		}
		plans[n] = tp
	}
	return ordered, plans, nil
}

// checkEmpty refuses a table that already has rows: its keys would collide with the
// generated ones.
func checkEmpty(ctx context.Context, conn *sql.Conn, database string, tables []string) error {
	for _, n := range tables {
		var any int
		err := conn.QueryRowContext(ctx, "SELECT EXISTS(SELECT 1 FROM "+quoteID(database)+"."+quoteID(n)+")").Scan(&any)
		if err != nil {
			return fmt.Errorf("read table %s: %w", n, err)
		}
		if any == 1 {
			return &SettingsError{fmt.Errorf("table %s.%s already has rows: generate fills empty tables only (its keys would collide with the rows there); TRUNCATE it first or remove it from tables: in the step", database, n)}
		}
	}
	return nil
}

// reportProgress calls loaded every second with the rows done of total; the function it
// returns stops it after a last call.
func reportProgress(loaded func(done, total int64), done *atomic.Int64, total int64) func() {
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				loaded(done.Load(), total)
			}
		}
	}()
	return func() { close(stop); wg.Wait(); loaded(done.Load(), total) }
}

// fillOne fills this process's part of todo[0] (planned as tp) and adds it to res; its
// error says what is left in the table, what was filled before it and what not (the rest
// of todo).
func fillOne(ctx context.Context, db *sql.DB, o Options, res *Result, tp *tablePlan, todo []string, done *atomic.Int64, retry *engine.LoadRetry, loadData bool, logf func(string, ...any)) error {
	n, rest := todo[0], todo[1:]
	began := time.Now()
	before := done.Load()
	from, to := o.part(tp.rows)
	send := loadRange
	if loadData {
		send = loadDataRange
		if err := loadable(tp); err != nil {
			if o.Method == MethodLoadData {
				return fmt.Errorf("fill %s with LOAD DATA: %w", n, err)
			}
			logf("generate: %s goes in with INSERTs: %v", n, err)
			send = loadRange
		}
	}
	// Shards load one table at once: one dropping its indexes under the others' load
	// (and the last adding them back) would race, so a sharded fill keeps them.
	err := fillTable(ctx, tableFill{
		db: db, database: res.Database, tp: tp, from: from, to: to,
		threads: max(o.Threads, 1), done: done, retry: retry, send: send, deferIdx: !o.Shard.Sharded(), logf: logf,
	})
	if err != nil {
		msg := fmt.Sprintf("fill %s: %v", n, err)
		if partial := leftIn(ctx, db, res.Database, n, done.Load()-before); partial > 0 {
			msg += fmt.Sprintf(" (%s is left with about %d of its %d rows: TRUNCATE it before generating again)", n, partial, to-from)
		}
		if len(res.Filled) > 0 {
			msg += fmt.Sprintf("; filled before it: %s", strings.Join(res.Filled, ", "))
		}
		if len(rest) > 0 {
			msg += fmt.Sprintf("; not filled: %s", strings.Join(rest, ", "))
		}
		return errors.New(msg)
	}
	res.Filled = append(res.Filled, n)
	res.Rows += to - from
	if o.Shard.Sharded() {
		logf("generate: shard %s filled rows %d..%d of %s.%s in %.1fs", o.Shard, from+1, to, res.Database, n, time.Since(began).Seconds())
	} else {
		logf("generate: filled %s.%s with %d rows in %.1fs", res.Database, n, tp.rows, time.Since(began).Seconds())
	}
	return nil
}

// leftIn is how many rows a table whose load failed holds. The rows counted as sent are not
// it: a LOAD DATA that failed on its warnings has put its rows in without being counted. The
// table was empty, so COUNT(*) is the answer (a shard's share with its siblings' rows); when
// it cannot be had (the server gone), the rows counted stand.
func leftIn(ctx context.Context, db *sql.DB, database, table string, counted int64) int64 {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	var n int64
	if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+quoteID(database)+"."+quoteID(table)).Scan(&n); err != nil {
		return counted
	}
	return n
}

func runSchema(ctx context.Context, conn *sql.Conn, path string, open func(string) (*os.File, error)) error {
	if open == nil {
		open = os.Open
	}
	f, err := open(path)
	if err != nil {
		return fmt.Errorf("schema: %w", err)
	}
	defer f.Close()
	sp := sqltext.NewSplitter(f)
	for {
		stmt, line, err := sp.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("schema %s: %w", path, err)
		}
		if _, err := conn.ExecContext(ctx, string(stmt)); err != nil {
			return fmt.Errorf("schema %s line %d: %w", path, line, err)
		}
	}
}

// discard closes conn instead of handing it back to db's pool: its session (the schema's USE,
// the load's unique_checks and foreign_key_checks off) must not reach the plan's next steps.
func discard(conn *sql.Conn) {
	_ = conn.Raw(func(any) error { return driver.ErrBadConn })
	conn.Close()
}

func quoteID(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }

// tableFill is one table's load: rows [from, to) of tp, sent by threads connections each
// with send, counted in done.
type tableFill struct {
	db       *sql.DB
	database string
	tp       *tablePlan
	from, to int64
	threads  int
	done     *atomic.Int64
	retry    *engine.LoadRetry
	send     fillFunc
	deferIdx bool // drop the plain secondary indexes for the load
	logf     func(string, ...any)
}

// fillTable loads rows [from, to) of a table, with its plain secondary indexes dropped when
// deferIdx is set; they are added back even when the load failed, so that a failed run leaves
// the schema as it found it.
func fillTable(ctx context.Context, f tableFill) error {
	if !f.deferIdx {
		return load(ctx, f)
	}
	restore, err := deferIndexes(ctx, f.db, f.database, f.tp, f.logf)
	if err != nil {
		return err
	}
	err = load(ctx, f)
	if rerr := restore(context.WithoutCancel(ctx)); rerr != nil {
		if err == nil {
			return rerr
		}
		return fmt.Errorf("%w; %w", err, rerr)
	}
	return err
}

// fillFunc sends rows [from, to) of a table on a connection of its own, each batch sent
// again after a deadlock or lock wait timeout (retry): loadRange or loadDataRange.
type fillFunc func(ctx context.Context, db *sql.DB, database string, tp *tablePlan, from, to int64, done *atomic.Int64, retry *engine.LoadRetry) error

// load fills rows [f.from, f.to) of a table: f.threads take consecutive ranges of them,
// each filled by f.send.
func load(ctx context.Context, f tableFill) error {
	start, rows := f.from, f.to-f.from
	if rows <= 0 {
		return nil
	}
	threads := int(min(int64(f.threads), rows))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// The first error is the one to tell: the others are mostly the cancel it caused
	// (a killed query, a connection the driver then calls bad).
	var first error
	var once sync.Once
	var wg sync.WaitGroup
	for t := range threads {
		from, to := start+rows*int64(t)/int64(threads), start+rows*int64(t+1)/int64(threads)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := f.send(ctx, f.db, f.database, f.tp, from, to, f.done, f.retry); err != nil {
				once.Do(func() { first = err })
				cancel()
			}
		}()
	}
	wg.Wait()
	if err := f.tp.failure(); err != nil {
		return err
	}
	return first
}

// session makes a load fast and its values exact. unique_checks=0 lets InnoDB skip reading
// unique secondary indexes on insert, and foreign_key_checks=0 skips the parent lookups:
// both only because the generator builds every unique key from a permutation (no two rows
// share one) and takes every foreign key from the parent's own rows, filled before. Strict
// mode turns a value that does not fit into an error instead of a silently changed row; UTC
// keeps TIMESTAMP values the same on every server.
var session = []string{
	"SET SESSION unique_checks = 0",
	"SET SESSION foreign_key_checks = 0",
	"SET SESSION sql_mode = 'STRICT_ALL_TABLES,NO_ENGINE_SUBSTITUTION'",
	"SET SESSION time_zone = '+00:00'",
}

// loadRange sends its rows in multi-row INSERTs.
func loadRange(ctx context.Context, db *sql.DB, database string, tp *tablePlan, from, to int64, done *atomic.Int64, retry *engine.LoadRetry) error {
	var head strings.Builder
	head.WriteString("INSERT INTO " + quoteID(database) + "." + quoteID(tp.name) + " (")
	for i, g := range tp.gens {
		if i > 0 {
			head.WriteString(", ")
		}
		head.WriteString(quoteID(g.col.name))
	}
	head.WriteString(") VALUES ")
	conn, err := loadConn(ctx, db)
	if err != nil {
		return err
	}
	defer func() { discard(conn) }()
	buf := make([]byte, 0, bulkSize+4096)
	pending, sent := int64(0), from // rows in buf, the first's index
	flush := func() error {
		if pending == 0 {
			return nil
		}
		if err := sendBatch(ctx, db, &conn, retry, string(buf), tp.name, sent, sent+pending); err != nil {
			return err
		}
		done.Add(pending)
		sent += pending
		buf, pending = buf[:0], 0
		return nil
	}
	for row := from; row < to; row++ {
		if pending == 0 {
			buf = append(buf, head.String()...)
		} else {
			buf = append(buf, ',')
		}
		buf = tp.appendRow(append(buf, '('), row)
		buf = append(buf, ')')
		pending++
		if len(buf) >= bulkSize {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	return flush()
}

// sendBatch sends rows [from, to) of table in one statement on *conn, again after InnoDB
// chose it as a deadlock's victim (1213) or its lock wait timed out (1205): parallel INSERTs
// into one table deadlock each other (MariaDB takes a table lock for the first INSERT into an
// empty table with unique_checks and foreign_key_checks off, which several threads can ask
// at once; insert-intention locks on the gaps of its indexes do too). The statement runs
// alone in autocommit, so the server rolled all of it back and sending it again inserts its
// rows exactly once. The batch goes again on a new connection: the driver discards one
// whose LOAD DATA LOCAL failed (since v1.10.2, so that its unread results cannot reach a
// later statement), and a new one costs nothing beside a retry's backoff.
func sendBatch(ctx context.Context, db *sql.DB, conn **sql.Conn, retry *engine.LoadRetry, stmt, table string, from, to int64) error {
	what := fmt.Sprintf("%s rows %d to %d", table, from+1, to)
	return retry.Batch(ctx, what, func() error {
		_, err := (*conn).ExecContext(ctx, stmt)
		return err
	}, func() error {
		discard(*conn)
		c, err := loadConn(ctx, db)
		if err != nil {
			return err
		}
		*conn = c
		return nil
	})
}

// loadConn is a connection of its own for a loader, its session set for the load.
func loadConn(ctx context.Context, db *sql.DB) (*sql.Conn, error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	for _, s := range session {
		if _, err := conn.ExecContext(ctx, s); err != nil {
			discard(conn)
			return nil, fmt.Errorf("%s: %w", s, err)
		}
	}
	return conn, nil
}

// sortedKeys is for messages that list a map.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// SettingsError is a generate refused before it wrote anything because what it was asked
// does not fit the tables on the server: a table or column that is not there, a key too
// narrow for its rows, a cycle of foreign keys, a table that already has rows. A command
// exits on it as on bad input.
type SettingsError struct{ Err error }

func (e *SettingsError) Error() string { return e.Err.Error() }
func (e *SettingsError) Unwrap() error { return e.Err }
