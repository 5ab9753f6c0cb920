package traffic

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func readAll(t *testing.T, path string, opts Options) (*File, []*Statement, error) {
	t.Helper()
	f, err := Open(path, opts)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	var out []*Statement
	for {
		s, err := f.Next()
		if err == io.EOF {
			return f, out, nil
		}
		if err != nil {
			return f, out, err
		}
		out = append(out, s)
	}
}

// perSession is each session's statement texts in order.
func perSession(sts []*Statement) map[uint64][]string {
	m := map[uint64][]string{}
	for _, s := range sts {
		m[s.Session] = append(m[s.Session], s.Text)
	}
	return m
}

// TestServerLogsAgree: the slow log and the general log the same MariaDB server wrote for the
// same three sessions (testdata/mariadb-*.log, written by a sandbox with long_query_time=0) give
// the same statements per session in the same order, with the session state the logs show.
func TestServerLogsAgree(t *testing.T) {
	slowF, slow, err := readAll(t, "testdata/mariadb-slow.log", Options{})
	if err != nil {
		t.Fatal(err)
	}
	genF, gen, err := readAll(t, "testdata/mariadb-general.log", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if slowF.Format != SlowLog || genF.Format != General || !slowF.Timed || !genF.Timed {
		t.Fatalf("detected %s (timed %v) and %s (timed %v)", slowF.Format, slowF.Timed, genF.Format, genF.Timed)
	}
	ps, pg := perSession(slow), perSession(gen)
	for _, id := range []uint64{6, 7, 8} {
		if len(ps[id]) != 13 || strings.Join(ps[id], "|") != strings.Join(pg[id], "|") {
			t.Errorf("session %d:\nslow    %q\ngeneral %q", id, ps[id], pg[id])
		}
		if ps[id][0] != "USE rt" || !strings.HasPrefix(ps[id][12], "INSERT INTO steps (session, step, v)\nVALUES (") {
			t.Errorf("session %d: first %q, last %q", id, ps[id][0], ps[id][12])
		}
	}
	for _, s := range slow {
		if s.Session >= 6 && s.Session <= 8 {
			if s.Schema != "rt" || s.User != "root" || s.Duration <= 0 || s.RowsSent < 0 || s.RowsExamined < 0 || s.Start.IsZero() {
				t.Errorf("slow log statement %+v lacks what the log says", s)
			}
		}
	}
	for _, s := range gen {
		if s.Session == 6 && s.Text != "USE rt" && s.Schema != "rt" || s.Start.IsZero() || s.User != "root" || s.Duration != -1 {
			t.Errorf("general log statement %+v", s)
		}
	}
	// SELECT COUNT(*) FROM tmp_s sends one row; the slow log says so.
	for _, s := range slow {
		if strings.HasPrefix(s.Text, "SELECT COUNT(*)") && s.RowsSent != 1 {
			t.Errorf("%q: rows sent %d, want 1", s.Text, s.RowsSent)
		}
	}
}

// TestMySQLAndPerconaSlowLog: the formats of servers the test machine has no binary for,
// as their documentation and pt-query-digest's samples show them: MySQL 8.0 (ISO time, Id in
// User@Host, "use db;" only on change, log_slow_extra's Start/End) and Percona Server (extended
// Thread_id/Schema/Last_errno and InnoDB lines).
func TestMySQLAndPerconaSlowLog(t *testing.T) {
	_, sts, err := readAll(t, "testdata/mysql80-slow.log", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(sts) != 3 {
		t.Fatalf("%d statements: %+v", len(sts), sts)
	}
	if s := sts[0]; s.Session != 8 || s.Schema != "shop" || s.User != "app" || s.Text != "SELECT c FROM sbtest1 WHERE id=5021" ||
		s.RowsSent != 1 || s.RowsExamined != 1 || !s.Start.Equal(time.Date(2024, 1, 2, 10, 0, 0, 123000000, time.UTC)) {
		t.Errorf("first: %+v", s)
	}
	if sts[0].Error != -1 {
		t.Errorf("first: error %d, want -1 (unknown: no Errno field)", sts[0].Error)
	}
	if s := sts[1]; s.Session != 9 || s.Schema != "shop" || s.Error != 0 || !s.Start.Equal(time.Date(2024, 1, 2, 10, 0, 0, 200000000, time.UTC)) {
		t.Errorf("second (log_slow_extra Start:): %+v", s)
	}
	if s := sts[2]; s.Session != 8 || s.Schema != "other" || s.Text != "UPDATE t SET v = v + 1\nWHERE id = 3" {
		t.Errorf("third: %+v", s)
	}
	_, sts, err = readAll(t, "testdata/percona-slow.log", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(sts) != 2 || sts[0].Session != 12 || sts[0].Schema != "sbtest" || sts[0].RowsSent != 100 || sts[0].Error != 0 || sts[1].Session != 13 {
		t.Errorf("percona: %+v", sts)
	}
}

func writeFile(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "x.log")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestMalformed: a bad record stops the read with file:line by default, and is skipped (and
// reported) with SkipMalformed.
func TestMalformed(t *testing.T) {
	log := "# Time: 2024-01-02T10:00:00.123456Z\n# User@Host: app[app] @ localhost []  Id:     8\n" +
		"# Query_time: 0.000100  Lock_time: 0.000000 Rows_sent: 1  Rows_examined: 1\nSELECT 1;\n" +
		"# User@Host: app[app] @ localhost []  Id:     8\n# Query_time: zero  Lock_time: 0.000000 Rows_sent: 1  Rows_examined: 1\nSELECT 2;\n" +
		"# User@Host: app[app] @ localhost []  Id:     8\n# Query_time: 0.000100  Lock_time: 0.000000 Rows_sent: 1  Rows_examined: 1\nSELECT 3;\n" +
		"# User@Host: app[app] @ localhost []  Id:     8\n# Query_time: 0.0001"
	p := writeFile(t, log)
	_, sts, err := readAll(t, p, Options{})
	var le *LineError
	if !errors.As(err, &le) || le.Line != 6 || le.File != p || len(sts) != 1 {
		t.Fatalf("default: %d statements, error %v; want a stop at %s:6", len(sts), err, p)
	}
	var skipped []int
	_, sts, err = readAll(t, p, Options{SkipMalformed: true, OnSkip: func(e *LineError) { skipped = append(skipped, e.Line) }})
	if err != nil || len(sts) != 2 || sts[1].Text != "SELECT 3" || len(skipped) != 2 || skipped[0] != 6 || skipped[1] != 11 {
		t.Fatalf("skip: %d statements, skipped lines %v, error %v", len(sts), skipped, err)
	}
	// A general log with a line that is neither a command nor a continuation.
	p = writeFile(t, "Time\t\t    Id Command\tArgument\n240102 10:00:00\t     5 Connect\troot@localhost on db using TCP/IP\n"+
		"\t\t     5 Quit\t\ngarbage line\n")
	_, _, err = readAll(t, p, Options{Format: General})
	if !errors.As(err, &le) || le.Line != 4 {
		t.Fatalf("general: %v, want a stop at line 4", err)
	}
}

// TestQCap: a capture file round-trips every field, and a newer version is refused naming it.
func TestQCap(t *testing.T) {
	p := filepath.Join(t.TempDir(), "t.qcap")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	w, err := NewWriter(f, QCapHeader{Created: time.Now(), Source: "test", Timed: true})
	if err != nil {
		t.Fatal(err)
	}
	start := time.UnixMicro(1700000000123456)
	in := []Statement{
		{Session: 3, Start: start, Duration: 1500 * time.Microsecond, Schema: "db", User: "u", RowsSent: 2, RowsExamined: 9, Error: 0, Text: "SELECT 'a\nb'"},
		{Session: 4, Start: start.Add(time.Millisecond), Duration: -1, RowsSent: -1, RowsExamined: -1, Error: -1, Text: "COMMIT"},
		{Session: 4, Start: start.Add(2 * time.Millisecond), Duration: 10 * time.Microsecond, RowsSent: -1, RowsExamined: -1, Error: 1062, Text: "INSERT INTO t VALUES (1)"},
	}
	for i := range in {
		if err := w.Write(&in[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	tf, out, err := readAll(t, p, Options{})
	if err != nil || tf.Format != QCap || !tf.Timed || len(out) != len(in) {
		t.Fatalf("%v %v %d", err, tf, len(out))
	}
	for i := range in {
		o := *out[i]
		o.Line = 0
		if !o.Start.Equal(in[i].Start) {
			t.Errorf("start %v, want %v", o.Start, in[i].Start)
		}
		o.Start = in[i].Start
		if o != in[i] {
			t.Errorf("read %+v, wrote %+v", o, in[i])
		}
	}
	p2 := writeFile(t, `{"qcap":7,"timed":true}`+"\n"+`{"session":1,"text":"SELECT 1"}`+"\n")
	_, _, err = readAll(t, p2, Options{})
	if !errors.Is(err, ErrNewerVersion) || !strings.Contains(err.Error(), "version 7") {
		t.Fatalf("newer version: %v", err)
	}
}

// TestSQLFile: a plain SQL file is detected as such, one session, no times.
func TestSQLFile(t *testing.T) {
	p := writeFile(t, "-- setup\nCREATE TABLE t (a INT);\nINSERT INTO t VALUES (1);\nSELECT * FROM t\n")
	f, sts, err := readAll(t, p, Options{})
	if err != nil || f.Format != SQL || f.Timed || len(sts) != 3 || sts[2].Text != "SELECT * FROM t" || sts[1].Line != 3 {
		t.Fatalf("%v %+v %d", err, f, len(sts))
	}
}
