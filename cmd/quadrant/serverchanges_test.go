package main

import (
	"strings"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
	"github.com/quadrant-bench/quadrant/spec/plantest"
)

// A folder's SQL that changes the user's server (a --target DSN) beyond the plan's own databases (here SET
// GLOBAL general_log and max_connections, as a trial's folder did) is an effect explain lists
// and rerun refuses without --allow-server-changes; allowed, the run puts both back at its end,
// as it puts back globals:.
func TestFolderServerChangesAllowedAndRestored(t *testing.T) {
	c := sandboxtest.Start(t, sandbox.Options{Name: "srvchg"})
	db := sandboxtest.DB(t, c.Primary.DSN(""), 0)
	before := map[string]string{"general_log": global(t, db, "general_log"), "max_connections": global(t, db, "max_connections")}
	plan := plantest.Sandbox("srvchg", "", `
setup:
  - workload: {builtin: oltp_point_select, action: prepare, options: {tables: 1, table_size: 100}}
  - sql: "SET GLOBAL general_log=ON; SET GLOBAL max_connections=77"
iteration:
  workload: {builtin: oltp_point_select, options: {tables: 1, table_size: 100}, duration: 1s}
teardown:
  - workload: {builtin: oltp_point_select, action: cleanup, options: {tables: 1}}
`)
	dir := hostileFolder(t, plan, map[string]string{})
	target := "db=" + c.Primary.DSN("")

	// on the folder's own sandbox, what its SQL changes goes with the sandbox
	p := start(t, nil, "explain", dir)
	if code := p.wait(t, time.Minute); code != 0 || strings.Contains(p.out.String(), "--allow-server-changes") {
		t.Fatalf("explain on the folder's sandbox: exit %d, lists the sandbox's own settings as the user's server's:\n%s", code, p.out.String())
	}
	p = start(t, nil, "explain", dir, "--target", target)
	code := p.wait(t, time.Minute)
	text := p.out.String()
	if code != 0 || !strings.Contains(text, "SET GLOBAL general_log") || !strings.Contains(text, "SET GLOBAL max_connections") || !strings.Contains(text, "[--allow-server-changes]") {
		t.Fatalf("explain: exit %d, does not list the server changes with their flag:\n%s", code, text)
	}
	refused(t, "", []string{"SET GLOBAL general_log", "--allow-server-changes"}, "rerun", dir, "--target", target, "--out", t.TempDir())
	if got := global(t, db, "general_log"); got != before["general_log"] {
		t.Fatalf("a refused rerun changed general_log to %s", got)
	}

	p = start(t, nil, "rerun", dir, "--target", target, "--out", t.TempDir(), "--allow-server-changes")
	if code := p.wait(t, 3*time.Minute); code != 0 {
		t.Fatalf("rerun --allow-server-changes: exit %d:\n%s", code, p.out.String())
	}
	for name, was := range before {
		if got := global(t, db, name); got != was {
			t.Errorf("after the rerun @@GLOBAL.%s = %s, want %s as before it", name, got, was)
		}
	}
}
