package main

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
	"github.com/quadrant-bench/quadrant/results"
)

// Ctrl-C while every worker waits on a lock another session holds: quadrant ends its own
// statements (KILL QUERY) instead of waiting out the lock, restores the globals it set and
// exits 130. The lock wait timeout is an hour and the lock is never released, so a run that
// waited for its statements could not end within the test's two minutes.
func TestInterruptDuringALockWait(t *testing.T) {
	c := sandboxtest.Start(t, sandbox.Options{Name: "lockwait"})
	db := sandboxtest.DB(t, c.Primary.DSN(""), 0)
	for _, q := range []string{"CREATE DATABASE app", "CREATE TABLE app.hot (id INT PRIMARY KEY, n INT)", "INSERT INTO app.hot VALUES (1, 0)",
		"SET GLOBAL innodb_lock_wait_timeout = 3600"} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	holder, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	for _, q := range []string{"BEGIN", "SELECT n FROM app.hot WHERE id = 1 FOR UPDATE"} {
		if _, err := holder.ExecContext(context.Background(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	before := global(t, db, "sync_binlog")
	plan := writePlan(t, fmt.Sprintf(`
version: 1
name: lockwait
targets:
  db: {dsn: "%s"}
iteration:
  globals: {sync_binlog: 7}
  workload:
    transactions: [{name: bump, statements: [{sql: "UPDATE app.hot SET n = n + 1 WHERE id = 1"}]}]
    threads: 2
    duration: 10m
`, c.Primary.DSN("")))
	root := t.TempDir()
	p := start(t, nil, "run", plan, "--out", root)
	dir := waitRows(t, p, root, "db", 1, 2) // two intervals: the workers are in their lock wait
	var waiting int
	if err := db.QueryRow("SELECT COUNT(*) FROM information_schema.innodb_trx WHERE trx_state = 'LOCK WAIT'").Scan(&waiting); err != nil || waiting != 2 {
		t.Fatalf("%d transactions in a lock wait (%v), want the 2 workers'", waiting, err)
	}
	t0 := time.Now()
	p.cmd.Process.Signal(syscall.SIGINT)
	if code := p.wait(t, 2*time.Minute); code != 130 {
		t.Fatalf("exit %d, want 130:\n%s", code, p.out.String())
	}
	t.Logf("stopped %.1fs after the interrupt, the lock still held", time.Since(t0).Seconds())
	if got := global(t, db, "sync_binlog"); got != before {
		t.Errorf("sync_binlog %s after the interrupt, want %s restored", got, before)
	}
	ri, err := results.ReadRunInfo(dir)
	if err != nil {
		t.Fatal(err)
	}
	if ri.Status != results.StatusInterrupted {
		t.Errorf("run.json status %s, want interrupted", ri.Status)
	}
}
