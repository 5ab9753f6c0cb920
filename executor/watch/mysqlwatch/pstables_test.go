package mysqlwatch

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/quadrant-bench/quadrant/executor/internal/rowset"
	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
)

// The performance_schema tables digests and waits read, as each server lays them out: MariaDB 10.11's
// recorded from a sandbox (TestPerformanceSchemaTablesOnMariaDB, with QUADRANT_RECORD_FIXTURES=1), MySQL
// 8.0's and 8.4's written from their reference manuals (no MySQL server can be installed where the tests
// run). Each file's header says which.
var servers = []struct {
	name      string
	digestLen int // MariaDB digests are MD5 (32 hex digits), MySQL 8's SHA-256 (64)
}{
	{"mariadb-10.11", 32},
	{"mysql-8.0", 64},
	{"mysql-8.4", 64},
}

func fixture(t *testing.T, table, server string) *rowset.Set {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "pstables", table+"."+server+".tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	set, err := rowset.ReadFixture(f)
	if err != nil {
		t.Fatalf("%s.%s: %v", table, server, err)
	}
	return set
}

// fxWork is the statements whose digests the fixtures hold, run on schema fx: what each class must add up to.
var fxWork = []struct {
	text                                 string // in DIGEST_TEXT
	count, sent, examined, noIndex, errs float64
}{
	{"SELECT `c` FROM `t` WHERE `k` = ?", 5, 5, 5, 0, 0},
	{"SELECT * FROM `t` WHERE `d` = ?", 3, 3, 9, 3, 0},
	{"SELECT * FROM `nosuch`", 2, 0, 0, 0, 2},
}

func runFxWork(t *testing.T, c *sandbox.Cluster) {
	t.Helper()
	root := sandboxtest.DB(t, c.Primary.DSN(""), 1)
	for _, q := range []string{"CREATE DATABASE fx", "CREATE TABLE fx.t (k INT PRIMARY KEY, c INT, d INT)", "INSERT INTO fx.t VALUES (1, 1, 1), (2, 2, 2), (3, 3, 3)"} {
		if _, err := root.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db := sandboxtest.DB(t, c.Primary.DSN("fx"), 1)
	run := func(q string, n int, fail bool) {
		for i := 0; i < n; i++ {
			rows, err := db.Query(strings.ReplaceAll(q, "?", string(rune('1'+i%3))))
			if (err != nil) != fail {
				t.Fatalf("%s: %v", q, err)
			}
			if err == nil {
				for rows.Next() {
				}
				rows.Close()
			}
		}
	}
	// interpolated, not prepared: MariaDB gives prepared statements no digest
	run("SELECT c FROM t WHERE k = ?", 5, false)
	run("SELECT * FROM t WHERE d = ?", 3, false)
	run("SELECT * FROM nosuch", 2, true)
	// A client has a statement's answer before the server adds it to the summaries; the next statement on
	// the connection starts after that.
	run("DO 0", 1, false)
}

func checkFxDigests(t *testing.T, where string, got map[string]DigestStats, digestLen int) {
	t.Helper()
	for _, w := range fxWork {
		var found []DigestStats
		for _, d := range got {
			if d.Schema == "fx" && strings.Contains(d.Text, w.text) {
				found = append(found, d)
			}
		}
		if len(found) != 1 {
			t.Errorf("%s: %d digests of %q in fx, want 1 (all: %+v)", where, len(found), w.text, got)
			continue
		}
		d := found[0]
		if d.Count != w.count || d.RowsSent != w.sent || d.RowsExamined != w.examined || d.NoIndexUsed != w.noIndex || d.Errors != w.errs {
			t.Errorf("%s: %q: count %v sent %v examined %v no index %v errors %v, want %v %v %v %v %v", where, w.text,
				d.Count, d.RowsSent, d.RowsExamined, d.NoIndexUsed, d.Errors, w.count, w.sent, w.examined, w.noIndex, w.errs)
		}
		if d.TimerPs <= 0 {
			t.Errorf("%s: %q: SUM_TIMER_WAIT %v", where, w.text, d.TimerPs)
		}
		if len(d.Digest) != digestLen {
			t.Errorf("%s: %q: digest %q, want %d hex digits", where, w.text, d.Digest, digestLen)
		}
	}
}

// TestDigestFixtures: the digest table of each server reads into the same statement classes, by column
// name whatever else the server's table has (MySQL 8: QUERY_SAMPLE_TEXT, QUANTILE_95, SUM_CPU_TIME...),
// and MySQL's 64-digit digests are kept whole.
func TestDigestFixtures(t *testing.T) {
	for _, s := range servers {
		set := fixture(t, "events_statements_summary_by_digest", s.name)
		got, err := parseDigests(set)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		checkFxDigests(t, s.name, got, s.digestLen)
		if s.name != "mariadb-10.11" {
			// The manuals' tables end with the row of NULL digest that takes what no longer fits.
			if d, ok := got["\x00"]; !ok || !strings.Contains(d.Text, "performance_schema_digests_size") || d.Count == 0 {
				t.Errorf("%s: the overflow row: %+v, %v", s.name, d, ok)
			}
		}
	}
}

// A table without a column the digests need is an error naming it, not a column of zeros.
func TestDigestsMissingColumn(t *testing.T) {
	set := fixture(t, "events_statements_summary_by_digest", "mysql-8.4")
	set.Columns[set.Index("SUM_NO_GOOD_INDEX_USED")] = "SUM_NO_GOOD_INDEX"
	if _, err := parseDigests(set); err == nil || !strings.Contains(err.Error(), "SUM_NO_GOOD_INDEX_USED") {
		t.Fatalf("err %v, want the missing column named", err)
	}
}

// TestWaitFixtures: the wait summary reads by name on each server, without idle and without events that
// never happened (the fixtures hold both, as a table read whole would); the InnoDB file instruments are
// named alike on both (wait/io/file/innodb/...).
func TestWaitFixtures(t *testing.T) {
	for _, s := range servers {
		set := fixture(t, "events_waits_summary_global_by_event_name", s.name)
		got, err := parseWaits(set)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		iName, iCount, iTimer := set.Index("EVENT_NAME"), set.Index("COUNT_STAR"), set.Index("SUM_TIMER_WAIT")
		var idle, zero, innodb bool
		for _, r := range set.Rows {
			name := r[iName].String
			w, ok := got[name]
			switch {
			case name == "idle":
				idle = true
				if ok {
					t.Errorf("%s: idle kept", s.name)
				}
			case r[iCount].String == "0":
				zero = true
				if ok {
					t.Errorf("%s: %s kept with no events", s.name, name)
				}
			default:
				if !ok || w.Count == 0 || rowsFloat(r[iCount].String) != w.Count || rowsFloat(r[iTimer].String) != w.TimerPs {
					t.Errorf("%s: %s read as %+v from COUNT_STAR %s, SUM_TIMER_WAIT %s", s.name, name, w, r[iCount].String, r[iTimer].String)
				}
				innodb = innodb || strings.HasPrefix(name, "wait/io/file/innodb/")
			}
		}
		if !idle || !zero || !innodb {
			t.Errorf("%s: the fixture should hold idle (%v), an event that never happened (%v) and InnoDB file waits (%v)", s.name, idle, zero, innodb)
		}
	}
}

func rowsFloat(s string) float64 {
	f, _ := strconv.ParseFloat(s, 64)
	return f
}

// TestSetupConsumersFixtures: the digest consumer has the same name on every server and is on in all three
// tables as they ship (MariaDB: with quadrant's ServerSettings); turned off, the check says how to turn it on.
func TestSetupConsumersFixtures(t *testing.T) {
	for _, s := range servers {
		set := fixture(t, "setup_consumers", s.name)
		if err := digestConsumer(set); err != nil {
			t.Errorf("%s: %v", s.name, err)
		}
		for _, r := range set.Rows {
			if r[set.Index("NAME")].String == "statements_digest" {
				r[set.Index("ENABLED")].String = "NO"
			}
		}
		if err := digestConsumer(set); err == nil || !strings.Contains(err.Error(), "SET ENABLED = 'YES' WHERE NAME = 'statements_digest'") {
			t.Errorf("%s: disabled: %v", s.name, err)
		}
	}
}

// TestPerformanceSchemaTablesOnMariaDB reads digests, waits and setup_consumers from a real MariaDB with
// the settings quadrant gives a sandbox, through the same code as a run; with QUADRANT_RECORD_FIXTURES=1 it
// writes what it read to testdata/pstables as the MariaDB fixtures.
func TestPerformanceSchemaTablesOnMariaDB(t *testing.T) {
	integration(t)
	var cfg []sandbox.Option
	for _, kv := range ServerSettings() {
		cfg = append(cfg, sandbox.Option{Name: kv[0], Value: kv[1]})
	}
	c := sandboxtest.Start(t, sandbox.Options{Name: "wps", Config: cfg})
	ctx := context.Background()
	root := sandboxtest.DB(t, c.Primary.DSN(""), 1)
	if err := CheckPerformanceSchema(ctx, root, "digests", true); err != nil {
		t.Fatal(err)
	}
	runFxWork(t, c)
	digests, err := Digests(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	checkFxDigests(t, "live", digests, 32)
	waits, err := Waits(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := waits["idle"]; ok || len(waits) == 0 {
		t.Errorf("live waits: %d events, idle among them: %v", len(waits), ok)
	}
	if os.Getenv("QUADRANT_RECORD_FIXTURES") == "" {
		return
	}
	var version string
	if err := root.QueryRow("SELECT VERSION()").Scan(&version); err != nil {
		t.Fatal(err)
	}
	for _, r := range []struct{ table, query string }{
		{"events_statements_summary_by_digest", "SELECT * FROM performance_schema.events_statements_summary_by_digest WHERE SCHEMA_NAME = 'fx' ORDER BY DIGEST_TEXT"},
		{"events_waits_summary_global_by_event_name", "SELECT * FROM performance_schema.events_waits_summary_global_by_event_name WHERE EVENT_NAME = 'idle' OR EVENT_NAME LIKE 'wait/io/file/innodb/%' OR EVENT_NAME LIKE 'wait/%/table/sql/handler' ORDER BY EVENT_NAME"},
		{"setup_consumers", "SELECT * FROM performance_schema.setup_consumers"},
	} {
		set, err := readSet(ctx, root, r.query)
		if err != nil {
			t.Fatal(err)
		}
		record(t, filepath.Join("testdata", "pstables", r.table+".mariadb-10.11.tsv"),
			"recorded from MariaDB "+version+" (a quadrant sandbox with ServerSettings; TestPerformanceSchemaTablesOnMariaDB)\n"+r.query, set)
	}
}

func record(t *testing.T, path, header string, set *rowset.Set) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := rowset.WriteFixture(f, header, set); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	t.Logf("recorded %s (%d rows)", path, len(set.Rows))
}
