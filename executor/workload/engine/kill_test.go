package engine_test

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
	"github.com/quadrant-bench/quadrant/executor/workload/engine"
)

// stmtWorker runs its statements, in turn, per event.
type stmtWorker struct{ s []*engine.Stmt }

func (w stmtWorker) Event(c *engine.Conn) (int, error) {
	for _, s := range w.s {
		if err := c.Exec(s, nil); err != nil {
			return 0, err
		}
	}
	return 0, nil
}

// A worker stuck in a lock wait (another connection holds the row FOR UPDATE, with
// innodb_lock_wait_timeout 50) must not hold the run: neither an interrupt nor the
// workload's end waits for the lock wait timeout. Run kills quadrant's own statement, and the
// killed statement is not a workload error, nor is its event measured (the statement it ran
// before is not counted either); the other worker's events are measured.
func TestStopKillsStatementsInFlight(t *testing.T) {
	c := sandboxtest.Start(t, sandbox.Options{Name: "kill", Config: []sandbox.Option{{Name: "innodb_lock_wait_timeout", Value: "50"}}})
	db, err := sql.Open("mysql", c.Primary.DSN(""))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{"CREATE DATABASE IF NOT EXISTS k", "CREATE TABLE k.t (id INT PRIMARY KEY, v INT)", "INSERT INTO k.t VALUES (1, 0)"} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	base, err := mysql.ParseDSN(c.Primary.DSN("k"))
	if err != nil {
		t.Fatal(err)
	}
	dc := engine.DialConfig(base, true, time.Minute, 2)

	// The id KILL takes, read from the server's handshake, is the connection's.
	for _, cfg := range []*mysql.Config{dc, engine.DialConfig(base, true, time.Minute, 1000)} { // blocking socket, netpoller
		conn, err := engine.Dial(context.Background(), cfg, true)
		if err != nil {
			t.Fatal(err)
		}
		var id int64
		if err := conn.QueryTextRows("SELECT CONNECTION_ID()", func(r []driver.Value) error { id, _ = r[0].(int64); return nil }); err != nil {
			t.Fatal(err)
		}
		if id == 0 || uint32(id) != conn.ID() {
			t.Errorf("Conn.ID() = %d, SELECT CONNECTION_ID() = %d", conn.ID(), id)
		}
		_ = conn.Close()
	}

	run := func(t *testing.T, ctx context.Context, duration time.Duration) (*engine.AbortError, time.Duration, int64, int64, int64, error) {
		t.Helper()
		// The holder: an open transaction with the row locked until the run is over.
		hold, err := db.Conn(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		defer hold.Close()
		if _, err := hold.ExecContext(context.Background(), "BEGIN"); err != nil {
			t.Fatal(err)
		}
		if _, err := hold.ExecContext(context.Background(), "SELECT * FROM k.t WHERE id = 1 FOR UPDATE"); err != nil {
			t.Fatal(err)
		}
		defer hold.ExecContext(context.Background(), "ROLLBACK") // its error is ignored: Close ends the transaction anyway
		start := time.Now()
		tot, err := engine.Run(ctx, engine.Config{
			Threads: 2, Duration: duration, ReportInterval: time.Second, Ignore: []int{1205}, Rollback: true,
			Setup: func(ctx context.Context, i int) (engine.Worker, *engine.Conn, error) {
				conn, err := engine.Dial(ctx, dc, true)
				if err != nil {
					return nil, nil, err
				}
				stmts := []string{"SELECT 1"}
				if i == 0 {
					stmts = append(stmts, "UPDATE t SET v = v + 1 WHERE id = 1") // waits for the holder's lock
				}
				var w stmtWorker
				for _, sql := range stmts {
					s, err := conn.Prepare(sql)
					if err != nil {
						return nil, nil, err
					}
					w.s = append(w.s, s)
				}
				return w, conn, nil
			},
		})
		took := time.Since(start)
		if tot == nil {
			t.Fatalf("no total: %v", err)
		}
		var ae *engine.AbortError
		if err != nil {
			ae, _ = err.(*engine.AbortError)
		}
		return ae, took, tot.Events, tot.Errors, tot.Queries(), err
	}

	t.Run("interrupt", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		time.AfterFunc(1500*time.Millisecond, cancel)
		ae, took, events, errs, queries, err := run(t, ctx, time.Minute)
		t.Logf("interrupted run returned after %s: %v; %d events, %d errors", took.Round(time.Millisecond), err, events, errs)
		if took > 40*time.Second {
			t.Errorf("interrupted run took %s, want well under the 50 s lock wait", took.Round(time.Millisecond))
		}
		if ae != nil || err == nil || !strings.Contains(err.Error(), "interrupted") {
			t.Errorf("err = %v, want the interrupt only", err)
		}
		if errs != 0 || events == 0 {
			t.Errorf("%d errors and %d events, want none (the killed statement is quadrant's) and the other worker's", errs, events)
		}
		if queries != events {
			t.Errorf("%d statements counted in %d events of one statement each: the killed event's SELECT was counted", queries, events)
		}
	})
	t.Run("end", func(t *testing.T) {
		ae, took, events, errs, queries, err := run(t, context.Background(), 2*time.Second)
		t.Logf("run of 2 s returned after %s: %v; %d events, %d errors", took.Round(time.Millisecond), err, events, errs)
		if took > 40*time.Second {
			t.Errorf("a 2 s run took %s, want well under the 50 s lock wait", took.Round(time.Millisecond))
		}
		if ae != nil || err != nil {
			t.Errorf("err = %v, want none", err)
		}
		if errs != 0 || events == 0 {
			t.Errorf("%d errors and %d events, want none (the killed statement is quadrant's) and the other worker's", errs, events)
		}
		if queries != events {
			t.Errorf("%d statements counted in %d events of one statement each: the killed event's SELECT was counted", queries, events)
		}
	})
}
