package main

import (
	"strings"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
	"github.com/quadrant-bench/quadrant/spec/plantest"
)

// A sandbox plan rerun on the user's own server, its DSN naming a database the server does
// not have: the run creates it (no 1049 to fix by hand), loads it, and drops it at its end,
// so the server is as it was and a second rerun works the same (no 1050 "table exists"
// from the tables the first left, the plan having no cleanup).
func TestRerunOnDSNCreatesAndDropsItsDatabase(t *testing.T) {
	c := sandboxtest.Start(t, sandbox.Options{Name: "rerundsn"})
	db := sandboxtest.DB(t, c.Primary.DSN(""), 0)
	plan := plantest.Sandbox("rerundsn", "", `
setup:
  - workload: {builtin: oltp_point_select, action: prepare, options: {tables: 1, table_size: 100}}
iteration:
  workload: {builtin: oltp_point_select, options: {tables: 1, table_size: 100}, duration: 1s}
`)
	dir := hostileFolder(t, plan, map[string]string{})
	target := "db=" + c.Primary.DSN("rerundb")
	databases := func() int {
		var n int
		if err := db.QueryRow("SELECT COUNT(*) FROM information_schema.schemata WHERE schema_name = 'rerundb'").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	for run := 1; run <= 2; run++ {
		p := start(t, nil, "rerun", dir, "--target", target, "--out", t.TempDir())
		if code := p.wait(t, 3*time.Minute); code != 0 {
			t.Fatalf("rerun %d: exit %d:\n%s", run, code, p.out.String())
		}
		if n := databases(); n != 0 {
			t.Fatalf("after rerun %d the database it created is still there", run)
		}
	}

	// A database of the user's that holds a table the prepare would create: refused before
	// setup, naming the table and what to do, the table untouched.
	for _, stmt := range []string{"CREATE DATABASE rerundb", "CREATE TABLE rerundb.sbtest1 (mine INT)", "INSERT INTO rerundb.sbtest1 VALUES (42)", "CREATE TABLE rerundb.keepme (x INT)"} {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	p := start(t, nil, "rerun", dir, "--target", target, "--out", t.TempDir())
	code := p.wait(t, 3*time.Minute)
	if text := p.out.String(); code != 2 || !strings.Contains(text, "sbtest1 exist already") || !strings.Contains(text, "DROP TABLE sbtest1") || !strings.Contains(text, "--target db") {
		t.Fatalf("rerun into a database holding sbtest1: exit %d, want 2 naming the table and what to do:\n%s", code, text)
	}
	var mine int
	if err := db.QueryRow("SELECT mine FROM rerundb.sbtest1").Scan(&mine); err != nil || mine != 42 {
		t.Fatalf("the user's sbtest1 after the refusal: %d, %v", mine, err)
	}
	// Once the way is clear, the rerun loads into the user's database and takes its tables
	// away at the end, leaving the user's own.
	if _, err := db.Exec("DROP TABLE rerundb.sbtest1"); err != nil {
		t.Fatal(err)
	}
	p = start(t, nil, "rerun", dir, "--target", target, "--out", t.TempDir())
	if code := p.wait(t, 3*time.Minute); code != 0 {
		t.Fatalf("rerun into the user's database: exit %d:\n%s", code, p.out.String())
	}
	var tables string
	if err := db.QueryRow("SELECT GROUP_CONCAT(table_name) FROM information_schema.tables WHERE table_schema = 'rerundb'").Scan(&tables); err != nil || tables != "keepme" {
		t.Fatalf("tables of rerundb after the rerun: %q (%v), want the user's keepme alone", tables, err)
	}

	// A DSN naming no database: the prepare makes sysbench's sbtest, which the rerun
	// takes away with its tables.
	p = start(t, nil, "rerun", dir, "--target", "db="+c.Primary.DSN(""), "--out", t.TempDir())
	if code := p.wait(t, 3*time.Minute); code != 0 {
		t.Fatalf("rerun on a DSN without a database: exit %d:\n%s", code, p.out.String())
	}
	var n int
	if err := db.QueryRow("SELECT COUNT(*) FROM information_schema.schemata WHERE schema_name = 'sbtest'").Scan(&n); err != nil || n != 0 {
		t.Fatalf("sbtest after the rerun: %d (%v), want none as before it", n, err)
	}
}
