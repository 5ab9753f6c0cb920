package traffic

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCommits: which statements end a transaction that wrote, per session, as replay's
// commit order keeps them.
func TestCommits(t *testing.T) {
	c := NewCommits(NewReadOnly())
	for i, s := range []struct {
		session uint64
		err     int
		text    string
		ends    bool
	}{
		{1, 0, "BEGIN", false},
		{1, 0, "SELECT v FROM t WHERE id = 1 FOR UPDATE", false},
		{2, 0, "INSERT INTO t VALUES (9)", true}, // autocommit write
		{1, 0, "UPDATE t SET v = 2 WHERE id = 1", false},
		{1, 0, "COMMIT", true},
		{1, 0, "BEGIN", false},
		{1, 0, "SELECT 1", false},
		{1, 0, "COMMIT", false}, // wrote nothing
		{2, 0, "START TRANSACTION", false},
		{2, 0, "INSERT INTO t VALUES (10)", false},
		{2, 0, "ROLLBACK", true}, // a rollback of a transaction that wrote releases its locks
		{3, 0, "SET autocommit = 0", false},
		{3, 0, "DELETE FROM t WHERE id = 3", false},
		{3, 0, "COMMIT", true},
		{3, 0, "UPDATE t SET v = 1", false},
		{3, errDeadlock, "UPDATE t SET v = 2", true}, // the server rolled it back
		{2, 1062, "INSERT INTO t VALUES (9)", false}, // a failed autocommit write commits nothing
		{2, 0, "CREATE TEMPORARY TABLE tmp (id INT)", false},
		{2, 0, "INSERT INTO tmp VALUES (1)", false},
		{2, 0, "ALTER TABLE t ADD COLUMN w INT", true},
		{4, 0, "BEGIN", false},
		{4, 0, "INSERT INTO t VALUES (11)", false},
		{4, 0, "ROLLBACK TO SAVEPOINT a", false},
		{4, 0, "BEGIN", true}, // commits the open transaction
	} {
		st := &Statement{Session: s.session, Error: s.err, Text: s.text}
		if got := c.Ends(st); got != s.ends {
			t.Errorf("%d: session %d %q (error %d): ends %v, want %v", i, s.session, s.text, s.err, got, s.ends)
		}
	}
}

// TestWrittenTable: the table a statement writes, in its session's database.
func TestWrittenTable(t *testing.T) {
	rule := NewReadOnly()
	for _, c := range []struct{ text, want string }{
		{"INSERT INTO items VALUES (1)", "cq.items"},
		{"insert ignore into `shop`.`orders` (a) values (1)", "shop.orders"},
		{"UPDATE counter SET v = 1", "cq.counter"},
		{"DELETE FROM t WHERE id = 1", "cq.t"},
		{"REPLACE INTO x(id) VALUES (1)", "cq.x"},
		{"CREATE TABLE IF NOT EXISTS n (id INT)", "cq.n"},
		{"CREATE INDEX i ON t (a)", ""},
		{"CREATE TEMPORARY TABLE tmp (id INT)", ""},
		{"SELECT * FROM t", ""},
		{"TRUNCATE TABLE t", "cq.t"},
	} {
		got, ok := WrittenTable(rule, &Statement{Session: 1, Schema: "cq", Text: c.text})
		if fmt.Sprint(got) != c.want || ok != (c.want != "") {
			t.Errorf("%q: %q %v, want %q", c.text, got, ok, c.want)
		}
	}
}

// TestQCapStateAndClock: the state set before the first statement and each statement's
// clock come back from the file; a state set after it is refused.
func TestQCapStateAndClock(t *testing.T) {
	var b strings.Builder
	w, err := NewWriter(&b, QCapHeader{Timed: true})
	if err != nil {
		t.Fatal(err)
	}
	sum := uint64(42)
	if err := w.SetState(&State{Start: Checksums{"db.t": &sum, "db.new": nil}, End: Checksums{"db.t": &sum}}); err != nil {
		t.Fatal(err)
	}
	st := Statement{Session: 1, Start: time.UnixMicro(1700000000000000), Duration: time.Millisecond, RowsSent: -1, RowsExamined: -1, Error: 0, Text: "COMMIT", ClockStart: 5, ClockEnd: 9}
	if err := w.Write(&st); err != nil {
		t.Fatal(err)
	}
	if err := w.SetState(&State{}); err == nil {
		t.Error("a state after the first statement was taken")
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "s.qcap")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, err := f.Next()
	if err != nil {
		t.Fatal(err)
	}
	if f.State == nil || *f.State.Start["db.t"] != 42 || f.State.Start["db.new"] != nil || len(f.State.Start) != 2 || got.ClockStart != 5 || got.ClockEnd != 9 {
		t.Errorf("state %+v, statement %+v", f.State, got)
	}
	if d := f.State.Start.Differ(Checksums{"db.t": &sum}); fmt.Sprint(d) != "[db.new]" {
		t.Errorf("differ %v, want [db.new] (the target lacks it: unknown)", d)
	}
}
