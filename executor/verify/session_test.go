package verify

import (
	"reflect"
	"testing"

	"github.com/quadrant-bench/quadrant/executor/traffic"
)

func texts(c *setContext) []string {
	var out []string
	for _, s := range c.assignments() {
		out = append(out, s.text)
	}
	return out
}

// A session's context is its session-scope SETs so far, each variable's last, last set
// last; a transaction's, a global's and another session's are not in it.
func TestCapturedSessionsSet(t *testing.T) {
	cs := newCapturedSessions()
	follow := func(id uint64, text string) (*setContext, string) {
		return cs.follow(&traffic.Statement{Session: id, Text: text})
	}
	for _, s := range []string{
		"SET sql_mode = ''",
		"/* app */ SET @@session.div_precision_increment=2, @a := 5, GLOBAL max_connections = 10",
		"SET NAMES utf8mb4",
		"SET TRANSACTION ISOLATION LEVEL READ COMMITTED",
		"SET SESSION sql_mode='ONLY_FULL_GROUP_BY'",
		"SET CHARACTER SET latin1",
	} {
		follow(1, s)
	}
	set, text := follow(1, "SELECT 1")
	want := []string{"SESSION div_precision_increment = 2", "@a := 5", "SESSION sql_mode = 'ONLY_FULL_GROUP_BY'", "CHARACTER SET latin1"}
	if text != "SELECT 1" || !reflect.DeepEqual(texts(set), want) {
		t.Errorf("session 1: %q in %q; want SELECT 1 in %q", text, texts(set), want)
	}
	if other, _ := follow(2, "SELECT 1"); other != nil {
		t.Errorf("session 2 has %q; want no SETs (the defaults)", texts(other))
	}
	for _, s := range []string{"SET sql_mode = 'ONLY_FULL_GROUP_BY'", "SET div_precision_increment=2"} {
		follow(3, s)
		follow(4, s)
	}
	if a, _ := follow(3, "SELECT 1"); a == nil || !a.equal(cs.byID[4].set) || a.equal(nil) {
		t.Errorf("sessions 3 and 4 set the same: contexts %q and %q, want equal ones, not the defaults", texts(a), texts(cs.byID[4].set))
	}
	if a, b := cs.byID[3].set, set; a.startOf(b) || !(*setContext)(nil).startOf(b) {
		t.Errorf("startOf: %q of %q, or defaults not the start of every context", texts(a), texts(b))
	}
}

// A text-protocol EXECUTE runs as the statement its session prepared, with the USING
// variables' values when they were set to literals.
func TestCapturedSessionsExecute(t *testing.T) {
	cs := newCapturedSessions()
	follow := func(text string) string {
		_, out := cs.follow(&traffic.Statement{Session: 7, Text: text})
		return out
	}
	follow(`PREPARE byId FROM 'SELECT name FROM t WHERE id = ? AND note <> ''a?'' AND k = ?'`)
	follow("SET @id = 3, @k = CONCAT('x', 'y')")
	if got, want := follow("EXECUTE byid USING @id, @k"), "SELECT name FROM t WHERE id = 3 AND note <> 'a?' AND k = @k"; got != want {
		t.Errorf("EXECUTE: %q, want %q", got, want)
	}
	if got := follow("EXECUTE byId USING @id"); got != "EXECUTE byId USING @id" {
		t.Errorf("EXECUTE with too few values: %q, want it as captured", got)
	}
	follow("DEALLOCATE PREPARE byId")
	if got := follow("EXECUTE byId USING @id, @k"); got != "EXECUTE byId USING @id, @k" {
		t.Errorf("EXECUTE after DEALLOCATE: %q, want it as captured", got)
	}
}

func str(s string) *string { return &s }

func row(cells ...string) []*string {
	r := make([]*string, len(cells))
	for i, c := range cells {
		if c != "NULL" {
			r[i] = str(c)
		}
	}
	return r
}

func TestDiffRows(t *testing.T) {
	cols := []string{"id", "price"}
	for _, c := range []struct {
		name    string
		b, o    held
		ordered bool
		want    string
		nb, no  int
	}{
		{"ordered value", held{cols, [][]*string{row("1", "1.5"), row("2", "12.50"), row("3", "1")}, false},
			held{cols, [][]*string{row("1", "1.5"), row("2", "12.5000"), row("3", "1")}, false}, true,
			"row 2, column 2 (price): 12.50 → 12.5000", 2, 2},
		{"ordered order", held{cols, [][]*string{row("1", "a"), row("2", "B")}, false},
			held{cols, [][]*string{row("2", "B"), row("1", "a")}, false}, true,
			"row 1, column 1 (id): 1 → 2", 2, 2},
		{"ordered shorter", held{cols, [][]*string{row("1", "a"), row("2", "NULL")}, false},
			held{cols, [][]*string{row("1", "a")}, false}, true,
			"row 2: (2, NULL) → none", 1, 0},
		{"unordered same rows other order", held{cols, [][]*string{row("1", "a"), row("2", "b")}, false},
			held{cols, [][]*string{row("2", "b"), row("1", "a")}, false}, false, sameAgain, 0, 0},
		{"unordered one changed", held{cols, [][]*string{row("3", "c"), row("1", "a"), row("2", "b")}, false},
			held{cols, [][]*string{row("2", "b"), row("1", "a"), row("3", "C")}, false}, false,
			"row 3 (sorted), column 2 (price): c → C", 1, 1},
		{"unordered extra", held{cols, [][]*string{row("1", "a")}, false},
			held{cols, [][]*string{row("1", "a"), row("1", "a")}, false}, false,
			"row 2 (sorted): none → (1, a)", 0, 1},
		{"unordered too large", held{cols, [][]*string{row("1", "a")}, true},
			held{cols, [][]*string{row("2", "a")}, false}, false, tooLarge, 0, 0},
		{"ordered past the bounds", held{cols, [][]*string{row("1", "a")}, true},
			held{cols, [][]*string{row("1", "a")}, true}, true, tooLarge, 0, 0},
		{"ordered within the bounds", held{cols, [][]*string{row("1", "a")}, true},
			held{cols, [][]*string{row("2", "a")}, true}, true, "row 1, column 1 (id): 1 → 2", 1, 1},
		{"columns", held{cols, [][]*string{row("1", "a")}, false},
			held{[]string{"id"}, [][]*string{row("1")}, false}, false, "columns id, price → id", 1, 1},
	} {
		b, o, first := diffRows(c.b, c.o, c.ordered)
		if first != c.want || len(b) != c.nb || len(o) != c.no {
			t.Errorf("%s: %q with %d and %d rows; want %q with %d and %d", c.name, first, len(b), len(o), c.want, c.nb, c.no)
		}
	}
}

func TestWithFirstDifference(t *testing.T) {
	got := withFirstDifference("orders: ref on k → ALL; row checksum (in order) differs, rows 3 → 2; warnings none → 1265:1", "row 2: (2, b) → none", 3, 2)
	if want := "orders: ref on k → ALL; row 2: (2, b) → none, rows 3 → 2; warnings none → 1265:1"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// A SET one target refuses is a difference of its own, said before the statement's.
func TestCompareSessionSettings(t *testing.T) {
	fp := &fingerprint{id: "q1", text: "select ?", samples: []sample{{text: "SELECT 1"}}}
	base := &targetRun{outcomes: [][]outcome{{{ran: true, rows: 1, sum: "1:a"}}}, plans: make([][]planOutcome, 1)}
	next := &targetRun{outcomes: [][]outcome{{{ran: true, rows: 1, sum: "1:b", setup: "SET SESSION query_cache_type = 1: error 1193"}}}, plans: make([][]planOutcome, 1)}
	r := compare(fp, "base", "new", base, next, 0)
	if want := "session settings: none → SET SESSION query_cache_type = 1: error 1193"; r.Results != "different" || r.Differences != want {
		t.Errorf("%s: %s; want different: %s", r.Results, r.Differences, want)
	}
}
