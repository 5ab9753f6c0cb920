package engine_test

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
	"github.com/quadrant-bench/quadrant/executor/workload/engine"
)

// Workers on two servers (a workload spread over a Galera cluster's nodes): at the stop, the
// statement of the worker stuck in a lock wait on the second server is killed there, by a
// control connection of its own server (a connection id means nothing on another). Its
// read timeout (10 s) is below the lock wait's (100 s): were the KILL sent to the first
// server, the worker would give up at its read timeout and leave its UPDATE waiting on the
// second, which the processlist would still show.
func TestStopKillsOnEachWorkersServer(t *testing.T) {
	lockWait := []sandbox.Option{{Name: "innodb_lock_wait_timeout", Value: "100"}}
	a := sandboxtest.Start(t, sandbox.Options{Name: "killa"})
	b := sandboxtest.Start(t, sandbox.Options{Name: "killb", Config: lockWait})
	dbB, err := sql.Open("mysql", b.Primary.DSN(""))
	if err != nil {
		t.Fatal(err)
	}
	defer dbB.Close()
	for _, q := range []string{"CREATE DATABASE k", "CREATE TABLE k.t (id INT PRIMARY KEY, v INT)", "INSERT INTO k.t VALUES (1, 0)"} {
		if _, err := dbB.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	hold, err := dbB.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer hold.Close()
	for _, q := range []string{"BEGIN", "SELECT * FROM k.t WHERE id = 1 FOR UPDATE"} {
		if _, err := hold.ExecContext(context.Background(), q); err != nil {
			t.Fatal(err)
		}
	}
	var dcs []*mysql.Config
	for _, dsn := range []string{a.Primary.DSN(""), b.Primary.DSN("k")} {
		cfg, err := mysql.ParseDSN(dsn)
		if err != nil {
			t.Fatal(err)
		}
		dcs = append(dcs, engine.DialConfig(cfg, true, 10*time.Second, 2))
	}
	tot, err := engine.Run(context.Background(), engine.Config{
		Threads: 2, Duration: 2 * time.Second, ReportInterval: time.Second, Ignore: []int{1205}, Rollback: true,
		Nodes: []string{"a", "b"}, NodeOf: func(i int) int { return i },
		Setup: func(ctx context.Context, i int) (engine.Worker, *engine.Conn, error) {
			conn, err := engine.Dial(ctx, dcs[i], true)
			if err != nil {
				return nil, nil, err
			}
			sqlText := "SELECT 1"
			if i == 1 {
				sqlText = "UPDATE t SET v = v + 1 WHERE id = 1" // waits for the holder's lock on b
			}
			s, err := conn.Prepare(sqlText)
			if err != nil {
				return nil, nil, err
			}
			return stmtWorker{s: []*engine.Stmt{s}}, conn, nil
		},
	})
	if err != nil || tot == nil {
		t.Fatalf("run: %v", err)
	}
	var waiting int
	if err := dbB.QueryRow("SELECT COUNT(*) FROM information_schema.processlist WHERE info LIKE 'UPDATE t SET%'").Scan(&waiting); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d events, %d errors (a: %+v, b: %+v); UPDATEs still waiting on b: %d", tot.Events, tot.Errors, tot.Nodes[0].Counts, tot.Nodes[1].Counts, waiting)
	if waiting != 0 {
		t.Errorf("%d UPDATE(s) still wait on b after the run: the stop did not kill it on its own server", waiting)
	}
	if tot.Errors != 0 || tot.Nodes[0].Counts.Events == 0 || tot.Nodes[1].Counts.Events != 0 {
		t.Errorf("errors %d, events a %d, b %d; want none (the kill is quadrant's), a's, none on b", tot.Errors, tot.Nodes[0].Counts.Events, tot.Nodes[1].Counts.Events)
	}
}
