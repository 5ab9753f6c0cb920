package capture

import (
	"context"
	"database/sql"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql"

	"github.com/quadrant-bench/quadrant/executor/internal/rowset"
	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
	"github.com/quadrant-bench/quadrant/executor/traffic"
)

// The tables a capture reads, as each server lays them out: MariaDB 10.11's recorded from a sandbox
// (TestCaptureOnMariaDB, with QUADRANT_RECORD_FIXTURES=1), MySQL 8.0's and 8.4's written down (no MySQL
// server can be installed where the tests run). Each file's header says from where.
var servers = []string{"mariadb-10.11", "mysql-8.0", "mysql-8.4"}

func fixture(t *testing.T, path string) *rowset.Set {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	set, err := rowset.ReadFixture(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return set
}

// fxWork is what the fixtures' session ran, on schema fx as root; rows as both servers count them.
var fxWork = []struct {
	text           string
	sent, examined int64
	errno          int // as performance_schema records it
}{
	{"SELECT c FROM t WHERE k = 1", 1, 1, 0},
	{"UPDATE t SET c = c + 1 WHERE k = 2", 0, 1, 0},
	{"SELECT * FROM nosuch", 0, 0, 1146},
}

// check finds fxWork in sts, in order, each once: what it must read whatever the server's columns.
func check(t *testing.T, where string, sts []traffic.Statement, slowLog bool) {
	t.Helper()
	var got []traffic.Statement
	for _, s := range sts {
		if s.Schema == "fx" {
			got = append(got, s)
		}
	}
	want := fxWork
	if len(got) != len(want) {
		t.Fatalf("%s: %d statements in fx, want %d: %+v", where, len(got), len(want), got)
	}
	for i, w := range want {
		s := got[i]
		errno := w.errno
		if slowLog {
			errno = -1 // the slow log keeps failed statements but not their error
		}
		if s.Text != w.text || s.RowsSent != w.sent || s.RowsExamined != w.examined || s.Error != errno || s.User != "root" || s.Session == 0 || s.Duration <= 0 || s.Start.IsZero() {
			t.Errorf("%s: statement %d: %+v, want %q sent %d examined %d error %d by root", where, i, s, w.text, w.sent, w.examined, errno)
		}
		if i > 0 && (s.Session != got[0].Session || s.Start.Before(got[i-1].Start)) {
			t.Errorf("%s: statement %d in session %d at %v after session %d at %v", where, i, s.Session, s.Start, got[0].Session, got[i-1].Start)
		}
	}
}

// TestSlowLogFixtures: mysql.slow_log reads by column name on each server (MariaDB's has rows_affected,
// MySQL's lacks it and has sql_text as a MEDIUMBLOB).
func TestSlowLogFixtures(t *testing.T) {
	for _, s := range servers {
		set := fixture(t, filepath.Join("testdata", "slow_log."+s+".tsv"))
		sts, err := slowLogStatements(set)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		check(t, s, sts, true)
	}
}

// TestHistoryFixtures: events_statements_history_long reads by column name on each server (MySQL 8 has
// STATEMENT_ID, CPU_TIME, EXECUTION_ENGINE... that MariaDB lacks); a poll that sees the same rows again
// adds nothing; a text as long as performance_schema_max_sql_text_length is counted as cut, not kept.
func TestHistoryFixtures(t *testing.T) {
	for _, s := range servers {
		set := fixture(t, filepath.Join("testdata", "events_statements_history_long."+s+".tsv"))
		iStart := set.Index("TIMER_START")
		timer0 := int64(-1)
		for _, r := range set.Rows {
			if v, ok := rowset.Int(r[iStart]); ok && (timer0 < 0 || v < timer0) {
				timer0 = v
			}
		}
		base := time.Date(2026, 12, 1, 22, 0, 0, 0, time.UTC)
		h := &history{base: base, timer0: timer0, maxText: 1024, seen: map[uint64]uint64{}, users: map[uint64]string{}, cut: math.MaxInt64}
		sts, err := h.add(set)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		check(t, s, sts, false)
		if again, err := h.add(set); err != nil || len(again) != 0 {
			t.Errorf("%s: the same rows again gave %d statements, %v", s, len(again), err)
		}
		// A poll takes what ended before its cut; the next poll, with a later cut, the rest.
		last := sts[len(sts)-1].ClockEnd + timer0 - 1
		held := &history{base: base, timer0: timer0, maxText: 1024, seen: map[uint64]uint64{}, users: map[uint64]string{}, cut: last}
		first, _ := held.add(set)
		held.cut = math.MaxInt64
		rest, _ := held.add(set)
		if len(first) != len(sts)-1 || len(rest) != 1 || rest[0].Text != sts[len(sts)-1].Text {
			t.Errorf("%s: a cut at the last statement's end took %d then %d statements, want %d then it", s, len(first), len(rest), len(sts)-1)
		}
		short := &history{base: base, timer0: timer0, maxText: len("SELECT * FROM nosuch"), seen: map[uint64]uint64{}, users: map[uint64]string{}, cut: math.MaxInt64}
		sts, _ = short.add(set)
		for _, st := range sts {
			if len(st.Text) >= short.maxText {
				t.Errorf("%s: %q kept, at or over the %d-byte limit", s, st.Text, short.maxText)
			}
		}
		if short.truncated < 2 {
			t.Errorf("%s: %d statements counted as cut, want the UPDATE and the SELECT of nosuch", s, short.truncated)
		}
	}
}

// TestSetupConsumersFixtures: the consumers the capture turns on are named alike on every server (the
// setup_consumers fixtures are mysqlwatch's: one table, one copy); a server without one is told which.
func TestSetupConsumersFixtures(t *testing.T) {
	for _, s := range servers {
		set := fixture(t, filepath.Join("..", "watch", "mysqlwatch", "testdata", "pstables", "setup_consumers."+s+".tsv"))
		was, err := consumers(set)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		if was["global_instrumentation"] != "YES" || was["events_statements_history_long"] != "NO" {
			t.Errorf("%s: %v", s, was)
		}
		for _, r := range set.Rows {
			if r[set.Index("NAME")].String == "events_statements_history_long" {
				r[set.Index("NAME")].String = "events_statements_history_longer"
			}
		}
		if _, err := consumers(set); err == nil || !strings.Contains(err.Error(), "events_statements_history_long") {
			t.Errorf("%s: without the consumer: %v", s, err)
		}
	}
}

// TestCaptureOnMariaDB captures fxWork through each method from a real MariaDB, through Run; with
// QUADRANT_RECORD_FIXTURES=1 it writes the tables' rows it read to testdata as the MariaDB fixtures.
func TestCaptureOnMariaDB(t *testing.T) {
	c := sandboxtest.Start(t, sandbox.Options{Name: "cap", Config: []sandbox.Option{{Name: "performance_schema", Value: "ON"}}})
	root := sandboxtest.DB(t, c.Primary.DSN(""), 2)
	for _, q := range []string{"CREATE DATABASE fx", "CREATE TABLE fx.t (k INT PRIMARY KEY, c INT)", "INSERT INTO fx.t VALUES (1, 1), (2, 2)"} {
		if _, err := root.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	var version string
	if err := root.QueryRow("SELECT VERSION()").Scan(&version); err != nil {
		t.Fatal(err)
	}
	for _, method := range []string{SlowLog, PerfSchm} {
		out := filepath.Join(t.TempDir(), "traffic.qcap")
		f, err := os.Create(out)
		if err != nil {
			t.Fatal(err)
		}
		w, err := traffic.NewWriter(f, traffic.QCapHeader{Created: time.Now(), Source: method, Timed: true})
		if err != nil {
			t.Fatal(err)
		}
		// The session connects once the capture has started: the slow log's long_query_time=0 reaches
		// only connections opened after it.
		var session *sql.DB
		done := make(chan error, 1)
		started := make(chan struct{})
		go func() {
			_, err := Run(context.Background(), root, w, Options{Duration: 2 * time.Second, Method: method, Logf: t.Logf, Poll: 50 * time.Millisecond,
				Started: func() { close(started) }})
			done <- err
		}()
		select {
		case <-started:
		case err := <-done:
			t.Fatalf("%s: %v", method, err)
		}
		session = sandboxtest.DB(t, c.Primary.DSN("fx"), 1)
		for _, w := range fxWork {
			_, err := session.Exec(w.text)
			if (err != nil) != (w.errno != 0) {
				t.Fatalf("%s: %v", w.text, err)
			}
		}
		if err := <-done; err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		f.Close()
		qf, err := traffic.Open(out, traffic.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var sts []traffic.Statement
		for {
			s, err := qf.Next()
			if err != nil {
				break
			}
			sts = append(sts, *s)
		}
		qf.Close()
		check(t, "live "+method, sts, method == SlowLog)

		if os.Getenv("QUADRANT_RECORD_FIXTURES") == "" {
			continue
		}
		table, query := "slow_log", "SELECT * FROM mysql.slow_log WHERE db = 'fx'"
		if method == PerfSchm {
			// the session is still open: threads still has its user
			table, query = "events_statements_history_long", `SELECT h.*, t.PROCESSLIST_USER FROM performance_schema.events_statements_history_long h
  LEFT JOIN performance_schema.threads t ON t.THREAD_ID = h.THREAD_ID WHERE h.CURRENT_SCHEMA = 'fx' ORDER BY h.EVENT_ID`
		}
		conn, err := root.Conn(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		set, err := readSet(context.Background(), conn, query)
		conn.Close()
		if err != nil {
			t.Fatal(err)
		}
		rf, err := os.Create(filepath.Join("testdata", table+".mariadb-10.11.tsv"))
		if err != nil {
			t.Fatal(err)
		}
		header := "recorded from MariaDB " + version + " (a quadrant sandbox, performance_schema=ON; TestCaptureOnMariaDB, capture method " + method + ")\n" + query
		if err := rowset.WriteFixture(rf, header, set); err != nil {
			t.Fatal(err)
		}
		rf.Close()
		t.Logf("recorded %s (%d rows)", rf.Name(), len(set.Rows))
	}
}
