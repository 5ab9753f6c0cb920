package main

import (
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
}
