package replay

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/quadrant-bench/quadrant/executor/capture"
	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
	"github.com/quadrant-bench/quadrant/executor/traffic"
	"github.com/quadrant-bench/quadrant/results/measure"
)

// cqLoad puts database cq in the same state every time: a counter row at 0 and no items.
func cqLoad(t *testing.T, s *sandbox.Server) {
	t.Helper()
	if err := s.Exec(context.Background(), "DROP DATABASE IF EXISTS cq", "CREATE DATABASE cq",
		"CREATE TABLE cq.counter (id INT PRIMARY KEY, v INT NOT NULL)", "INSERT INTO cq.counter VALUES (1, 0)",
		"CREATE TABLE cq.items (id INT PRIMARY KEY, session INT NOT NULL)"); err != nil {
		t.Fatal(err)
	}
}

// cqSession is go-tpc's NewOrder in small: it locks the counter row, reads the next id,
// inserts an item keyed on it and writes the counter back as a literal; one transaction in
// five rolls back, and the next one (of any session) takes the same id. A replay that runs
// a rolled-back transaction after the one that reused its id meets a duplicate key the
// capture did not have, and one that commits out of order leaves other data.
func cqSession(ctx context.Context, db *sql.DB, n int, stop <-chan struct{}) error {
	c, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	rng := rand.New(rand.NewPCG(uint64(n), 37))
	for {
		select {
		case <-stop:
			return nil
		default:
		}
		if _, err := c.ExecContext(ctx, "BEGIN"); err != nil {
			return err
		}
		var v int
		if err := c.QueryRowContext(ctx, "SELECT v FROM cq.counter WHERE id = 1 FOR UPDATE").Scan(&v); err != nil {
			return err
		}
		end := "COMMIT"
		if rng.IntN(5) == 0 {
			end = "ROLLBACK"
		}
		for _, q := range []string{fmt.Sprintf("INSERT INTO cq.items VALUES (%d, %d)", v+1, n), fmt.Sprintf("UPDATE cq.counter SET v = %d WHERE id = 1", v+1), end} {
			if _, err := c.ExecContext(ctx, q); err != nil {
				return fmt.Errorf("%s: %w", q, err)
			}
		}
		var items int
		if err := c.QueryRowContext(ctx, "SELECT COUNT(*) FROM cq.items").Scan(&items); err != nil {
			return err
		}
	}
}

// cqCapture captures sessions terminals running cqSession for d through performance_schema.
func cqCapture(t *testing.T, s *sandbox.Server, sessions int, d time.Duration) (string, *capture.Result) {
	t.Helper()
	db, err := sql.Open("mysql", s.DSN(""))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	path := filepath.Join(t.TempDir(), "cq.qcap")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := traffic.NewWriter(f, traffic.QCapHeader{Created: time.Now(), Source: "test", Timed: true})
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	errs := make([]error, sessions)
	res, err := capture.Run(context.Background(), db, w, capture.Options{Duration: d, Method: capture.PerfSchm, Logf: t.Logf,
		Started: func() {
			for i := range sessions {
				wg.Go(func() { errs[i] = cqSession(context.Background(), db, i+1, stop) })
			}
		},
		Stopped: func() { close(stop); wg.Wait() },
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	return path, res
}

// cqWhole checks that the capture lost no statement: each session's statements follow
// cqSession's loop, BEGIN, FOR UPDATE, INSERT, UPDATE, COMMIT or ROLLBACK, SELECT COUNT(*).
// A poll of performance_schema's ring that raced the server's writes once lost every
// statement of a 7 ms window, and no replay can reproduce a capture with holes.
func cqWhole(t *testing.T, path string) {
	t.Helper()
	f, err := traffic.Open(path, traffic.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	loop := []string{"BEGIN", "SELECT v FROM", "INSERT", "UPDATE", "", "SELECT COUNT"}
	next := map[uint64]int{}
	for {
		s, err := f.Next()
		if err != nil {
			break
		}
		i := next[s.Session]
		want := loop[i%len(loop)]
		if want == "" && (s.Text == "COMMIT" || s.Text == "ROLLBACK") || want != "" && strings.HasPrefix(s.Text, want) {
			next[s.Session] = i + 1
			continue
		}
		t.Fatalf("%s:%d: captured session %d's statement %d is %q, want %q: the capture lost statements", path, s.Line, s.Session, i+1, s.Text, cmp.Or(want, "COMMIT or ROLLBACK"))
	}
}

// TestCommitOrder is issue 37's: go-tpc-shaped contended traffic, captured through
// performance_schema with the tables' checksums, replayed as fast as it goes. In the
// capture's commit order it reproduces the capture (errors unlike it at most 0.1% of the
// statements, the end state the same); without, sessions that waited on each other in the
// capture no longer do, and it does not (so this test can fail). A target without the
// capture's starting data is refused before anything is sent, naming the tables.
func TestCommitOrder(t *testing.T) {
	c := sandboxtest.Start(t, sandbox.Options{Name: "cq", Config: []sandbox.Option{{Name: "performance_schema", Value: "ON"}, {Name: "innodb_lock_wait_timeout", Value: "2"}}})
	cqLoad(t, c.Primary)
	path, res := cqCapture(t, c.Primary, 4, 2*time.Second)
	f, err := traffic.Open(path, traffic.Options{})
	if err != nil {
		t.Fatal(err)
	}
	st := f.State
	first, err := f.Next()
	f.Close()
	if err != nil || first.ClockEnd <= first.ClockStart || first.ClockStart <= 0 {
		t.Fatalf("first statement %+v (%v): want the capture's clock", first, err)
	}
	if st == nil || slices.Sorted(mapsKeys(st.Start)) == nil || fmt.Sprint(slices.Sorted(mapsKeys(st.Start))) != "[cq.counter cq.items]" ||
		fmt.Sprint(slices.Sorted(mapsKeys(st.End))) != "[cq.counter cq.items]" || len(st.Unknown) > 0 {
		t.Fatalf("captured state %+v: want the checksums of cq.counter and cq.items at the start and the end", st)
	}
	t.Logf("captured %d statements of %d sessions (%d lost polls)", res.Statements, res.Sessions, res.Lost)
	cqWhole(t, path)

	run := func(timing, order string) (*measure.Total, error) {
		w := Workload(path, Replay{Timing: timing, Order: order, OrderTimeout: 5 * time.Second, Top: 10})
		wl, err := Kind.New(w, env(t, c.Primary))
		if err != nil {
			t.Fatal(err)
		}
		return wl.Run(context.Background(), func(*measure.Interval) {})
	}
	// timing: original keeps the captured gaps (the 2 s span), and the commit order must hold
	// with the sessions sleeping between statements as well as back to back.
	for _, tc := range []struct{ timing, order string }{{"none", "none"}, {"none", "commit"}, {"original", "commit"}} {
		timing, order := tc.timing, tc.order
		cqLoad(t, c.Primary)
		tot, err := run(timing, order)
		if err != nil {
			t.Fatalf("timing: %s, order: %s: %v", timing, order, err)
		}
		rp := fidelityOf(tot)
		t.Logf("timing: %s, order: %s: %d of %d statements in %.2fs, errors %v, %d unlike the capture, end state %s %v; %d waits for commits, %.0fms, %d timed out",
			timing, order, rp.StatementsReplayed, rp.StatementsCaptured, tot.Seconds(), tot.ErrorsByCode, rp.ErrorsUnlikeCapture, rp.EndState, rp.EndDiffers,
			rp.OrderWaits, measure.Ms(rp.OrderWaitTime), rp.OrderTimeouts)
		if rp.StatementsReplayed != rp.StatementsCaptured || rp.StatementsCaptured != res.Statements {
			t.Errorf("order: %s: %d of %d statements replayed, %d captured", order, rp.StatementsReplayed, rp.StatementsCaptured, res.Statements)
		}
		switch order {
		case "none":
			if rp.ErrorsUnlikeCapture*1000 <= rp.StatementsCaptured && rp.EndState == endSame {
				t.Errorf("order: none reproduced the capture (%d errors unlike it, end state %s): the traffic does not show what commit order is for", rp.ErrorsUnlikeCapture, rp.EndState)
			}
		case "commit":
			if rp.ErrorsUnlikeCapture*1000 > rp.StatementsCaptured || rp.EndState != endSame || rp.OrderTimeouts > 0 {
				t.Errorf("timing: %s, order: commit: %d errors unlike the capture's of %d statements (over 0.1%%), end state %q %v, %d waits timed out",
					timing, rp.ErrorsUnlikeCapture, rp.StatementsCaptured, rp.EndState, rp.EndDiffers, rp.OrderTimeouts)
			}
		}
	}
	// The last replay's leftovers are not the capture's start.
	tot, err := run("none", "commit")
	if err == nil || !strings.Contains(err.Error(), "cq.counter") || !strings.Contains(err.Error(), "cq.items") || tot != nil {
		t.Errorf("replay on another replay's leftovers: %v, %v; want it stopped before sending, naming cq.counter and cq.items", tot, err)
	}
	t.Run("insert first", func(t *testing.T) { testLockRace(t, c.Primary, insertFirst, false) })
	t.Run("insert long", func(t *testing.T) { testLockRace(t, c.Primary, insertLong, true) })
	t.Run("table groups", func(t *testing.T) { testTableGroups(t, c.Primary) })
	t.Run("primary keys", func(t *testing.T) { testPrimaryKeys(t, c.Primary) })
}

// testPrimaryKeys reads the keys the locking order goes per row by from the server: a
// primary key's columns in its order; none for a table without one, with another unique
// index or with a prefix in its key, nor for one the server does not have; a schema the
// server cannot read gives none, and says so once.
func testPrimaryKeys(t *testing.T, s *sandbox.Server) {
	if err := s.Exec(context.Background(), "DROP DATABASE IF EXISTS pk", "CREATE DATABASE pk",
		"CREATE TABLE pk.stock (i INT, w INT, q INT, PRIMARY KEY (w, i))", "CREATE TABLE pk.heap (a INT, KEY (a))",
		"CREATE TABLE pk.uniq (id INT PRIMARY KEY, email VARCHAR(50), UNIQUE KEY (email))",
		"CREATE TABLE pk.prefix (name VARCHAR(100), PRIMARY KEY (name(10)))"); err != nil {
		t.Fatal(err)
	}
	cfg, err := mysql.ParseDSN(s.DSN(""))
	if err != nil {
		t.Fatal(err)
	}
	keys := newPrimaryKeys(cfg, t.Logf)
	defer keys.close()
	got := fmt.Sprint(keys.key("pk.stock"), keys.key("pk.heap"), keys.key("pk.uniq"), keys.key("pk.prefix"), keys.key("pk.nope"))
	if got != "[w i] [] [] [] []" {
		t.Errorf("keys of stock, heap, uniq, prefix, nope: %s; want [w i] and none for the others", got)
	}
	cfg.Passwd = "wrong"
	var logged []string
	bad := newPrimaryKeys(cfg, func(f string, a ...any) { logged = append(logged, fmt.Sprintf(f, a...)) })
	defer bad.close()
	if k := fmt.Sprint(bad.key("pk.stock"), bad.key("other.t")); k != "[] []" || len(logged) != 1 || !strings.Contains(logged[0], "per table, not per row") {
		t.Errorf("keys from a server that refuses: %s, logged %q; want none, said once", k, logged)
	}
}

func mapsKeys(m traffic.Checksums) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// raceStatement is one statement of a hand-made capture: its session, captured start and end
// (µs) and text.
type raceStatement struct {
	session    uint64
	start, end int64
	text       string
}

// raceCapture writes statements as a capture with the performance_schema clock.
func raceCapture(t *testing.T, sts []raceStatement) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "race.qcap")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	t0 := time.Now().Add(-time.Hour)
	w, err := traffic.NewWriter(f, traffic.QCapHeader{Created: t0, Source: "test", Timed: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sts {
		if err := w.Write(&traffic.Statement{Session: s.session, Start: t0.Add(time.Duration(s.start) * time.Microsecond), Duration: time.Duration(s.end-s.start) * time.Microsecond,
			Schema: "lr", RowsSent: -1, RowsExamined: -1, Text: s.text, ClockStart: 1e6 + s.start*1e6, ClockEnd: 1e6 + s.end*1e6}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return path
}

// The races go-tpc's captures met (lockorder.go, stall.go), in small and exact: a NewOrder's
// INSERT into district 2 and a Delivery's FOR UPDATE on district 3, whose next-key lock
// covers the gap the INSERT goes into; in both the INSERT got there first.
//
// In insertFirst the FOR UPDATE started 43 µs before the INSERT and ended after it. The
// NewOrder's SELECT SLEEP took a microsecond in the capture and takes 300 ms replayed, so a
// replay that keeps only the commit order sends the FOR UPDATE first: the INSERT waits for
// Delivery's commit, which waits for NewOrder's (it came first), until the server's lock wait
// timeout fails the INSERT. The locking order (the INSERT ended first) sends it first.
var insertFirst = []raceStatement{
	{1, 0, 1, "BEGIN"},
	{2, 0, 1, "BEGIN"},
	{1, 2, 3, "SELECT SLEEP(0.3)"},
	{2, 57, 153, "SELECT id FROM queue WHERE d = 3 ORDER BY id LIMIT 1 FOR UPDATE"},
	{1, 100, 140, "INSERT INTO queue VALUES (2, 25)"},
	{2, 160, 170, "DELETE FROM queue WHERE d = 3 AND id = 30"},
	{1, 300, 310, "COMMIT"},
	{2, 400, 410, "COMMIT"},
}

// In insertLong the INSERT started first and ended last (it got into the gap, then took
// long): the locking order guesses the FOR UPDATE took the lock first and sends it first, and
// the INSERT waits for Delivery's commit, which waits for NewOrder's. The stall watchdog sees
// every session stuck, one in a lock wait, and lets Delivery's commit go.
var insertLong = []raceStatement{
	{1, 0, 1, "BEGIN"},
	{2, 0, 1, "BEGIN"},
	{1, 100, 1540, "INSERT INTO queue VALUES (2, 25)"},
	{2, 431, 1124, "SELECT id FROM queue WHERE d = 3 ORDER BY id LIMIT 1 FOR UPDATE"},
	{2, 1200, 1210, "DELETE FROM queue WHERE d = 3 AND id = 30"},
	{1, 1600, 1610, "COMMIT"},
	{2, 1700, 1710, "COMMIT"},
}

// testLockRace replays a race in commit order on district 2 empty and districts 1 and 3 with
// a row each: no error, the captured rows, the stalls broken as want says. Without the
// locking order insertFirst fails, without the watchdog insertLong (each checked by removing
// it: 1 error 1205, district 2 empty).
func testLockRace(t *testing.T, s *sandbox.Server, sts []raceStatement, stalls bool) {
	if err := s.Exec(context.Background(), "DROP DATABASE IF EXISTS lr", "CREATE DATABASE lr",
		"CREATE TABLE lr.queue (d INT, id INT, PRIMARY KEY (d, id))", "INSERT INTO lr.queue VALUES (1, 10), (3, 30)"); err != nil {
		t.Fatal(err)
	}
	wl, err := Kind.New(Workload(raceCapture(t, sts), Replay{Timing: "none", Order: "commit", OrderTimeout: 10 * time.Second, Top: 10}), env(t, s))
	if err != nil {
		t.Fatal(err)
	}
	tot, err := wl.Run(context.Background(), func(*measure.Interval) {})
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("mysql", s.DSN(""))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var rows string
	if err := db.QueryRow("SELECT GROUP_CONCAT(CONCAT(d, ':', id) ORDER BY d, id) FROM lr.queue").Scan(&rows); err != nil {
		t.Fatal(err)
	}
	if rp := fidelityOf(tot); tot.Errors != 0 || rows != "1:10,2:25" || (rp.OrderTimeouts > 0) != stalls {
		t.Errorf("the race replayed in commit order: %d errors %v, rows %s, %d order timeouts; want no error, 1:10,2:25 as captured, stalls broken %v", tot.Errors, tot.ErrorsByCode, rows, rp.OrderTimeouts, stalls)
	}
}

// testTableGroups reads a schema's foreign keys, views and triggers from the server: a child
// and its parent are one order group (and its grandparent), a table with a trigger and a view
// are ordered against every table, the others are their own; a schema the server cannot read
// puts every table in one order.
func testTableGroups(t *testing.T, s *sandbox.Server) {
	if err := s.Exec(context.Background(), "DROP DATABASE IF EXISTS tg", "CREATE DATABASE tg",
		"CREATE TABLE tg.a (id INT PRIMARY KEY)", "CREATE TABLE tg.b (id INT PRIMARY KEY, a INT, FOREIGN KEY (a) REFERENCES tg.a (id))",
		"CREATE TABLE tg.c (id INT PRIMARY KEY, b INT, FOREIGN KEY (b) REFERENCES tg.b (id))", "CREATE TABLE tg.lone (id INT PRIMARY KEY)",
		"CREATE TABLE tg.audited (id INT PRIMARY KEY)", "CREATE TRIGGER tg.t AFTER INSERT ON tg.audited FOR EACH ROW INSERT INTO tg.lone VALUES (NEW.id)",
		"CREATE VIEW tg.v AS SELECT * FROM tg.lone"); err != nil {
		t.Fatal(err)
	}
	cfg, err := mysql.ParseDSN(s.DSN(""))
	if err != nil {
		t.Fatal(err)
	}
	group := tableGroups(context.Background(), cfg, []string{"tg"}, t.Logf)
	got := fmt.Sprintf("%q %q %q %q %q %q", group("tg.c"), group("tg.b"), group("tg.lone"), group("tg.audited"), group("tg.v"), group("tg.other"))
	if a := group("tg.a"); a == "" || got != fmt.Sprintf("%q %q %q %q %q %q", a, a, "tg.lone", "", "", "tg.other") {
		t.Errorf("groups of c, b, lone, audited, v, other: %s (a's %q); want a's, a's, their own, every table, every table, its own", got, a)
	}
	cfg.Passwd = "wrong"
	if g := tableGroups(context.Background(), cfg, []string{"tg"}, t.Logf); g("tg.lone") != "" {
		t.Errorf("a schema not read: lone's group %q, want every table", g("tg.lone"))
	}
}
