package generate_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/executor/generate"
	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
	"github.com/quadrant-bench/quadrant/executor/workload/engine/retrylog"
)

// A fill at 4 threads whose batches wait on another session's lock past
// innodb_lock_wait_timeout (1205) sends them again, logs each retry and their count, and
// inserts every row once. The other session holds the empty table's gap from before the fill
// until a retry is logged: no timing is asserted.
func TestFillRetriesALockWaitTimeout(t *testing.T) {
	c := sandboxtest.Start(t, sandbox.Options{Name: "genretry", Config: []sandbox.Option{{Name: "innodb_lock_wait_timeout", Value: "1"}}})
	db := sandboxtest.DB(t, c.Primary.DSN(""), 0)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	for _, method := range []string{generate.MethodInsert, generate.MethodLoadData} {
		t.Run(method, func(t *testing.T) {
			for _, s := range []string{"DROP DATABASE IF EXISTS g", "CREATE DATABASE g", "CREATE TABLE g.t (id INT PRIMARY KEY, v INT, s VARCHAR(20))"} {
				if _, err := db.ExecContext(ctx, s); err != nil {
					t.Fatal(err)
				}
			}
			blocker, err := db.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer blocker.Close()
			for _, s := range []string{"BEGIN", "SELECT * FROM g.t FOR UPDATE"} {
				if _, err := blocker.ExecContext(ctx, s); err != nil {
					t.Fatal(err)
				}
			}
			log := retrylog.New(t, nil)
			o := generate.Options{Database: "g", Seed: 1, Threads: 4, Method: method, Tables: []generate.Table{{Name: "t", Rows: 20000}},
				Logf: func(f string, args ...any) { log.Add(fmt.Sprintf(f, args...)) }}
			filled := make(chan error, 1)
			go func() { _, err := generate.Run(ctx, db, o); filled <- err }()
			select {
			case <-log.Retried():
			case err := <-filled:
				t.Fatalf("the fill ended while the table was locked: %v", err)
			}
			if _, err := blocker.ExecContext(ctx, "ROLLBACK"); err != nil {
				t.Fatal(err)
			}
			if err := <-filled; err != nil {
				t.Fatalf("fill: %v", err)
			}
			log.Check(t, `generate: t rows \d+ to \d+: lock wait timeout \(1205\), sending the batch again \(retry 1 of 9\)`, "generate: ")
			if n := count(t, db, "SELECT COUNT(DISTINCT id) FROM g.t"); n != 20000 || count(t, db, "SELECT COUNT(*) FROM g.t") != n {
				t.Errorf("g.t holds %d distinct ids, want 20000 rows each once", n)
			}
		})
	}
}
