package builtin_test

import (
	"context"
	"database/sql"
	"errors"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
	"github.com/quadrant-bench/quadrant/executor/workload/builtin"
	"github.com/quadrant-bench/quadrant/executor/workload/engine/retrylog"
	"github.com/quadrant-bench/quadrant/spec/shard"
)

// A prepare whose batch waits on another session's locks past innodb_lock_wait_timeout
// (1205) sends that batch again, logs the retry and its count, and loads every row once.
// The other session locks sbtest1's rows and the gap after them while the table loads and
// lets go once the retry is logged: no timing is asserted.
func TestPrepareRetriesALockWaitTimeout(t *testing.T) {
	c := sandboxtest.Start(t, sandbox.Options{Name: "oltpretry", Config: []sandbox.Option{
		{Name: "innodb_lock_wait_timeout", Value: "1"},
		{Name: "innodb_flush_log_at_trx_commit", Value: "2"},
	}})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cfg, err := mysql.ParseDSN(c.Primary.DSN("sbtest"))
	if err != nil {
		t.Fatal(err)
	}
	p := builtin.DefaultParams()
	p.Tables, p.TableSize = 2, 200000
	log := retrylog.New(t, nil)
	prepared := make(chan error, 1)
	go func() { prepared <- builtin.Prepare(ctx, cfg, "oltp_read_write", p, 2, shard.Shard{}, log.Add, nil) }()

	db := sandboxtest.DB(t, c.Primary.DSN(""), 0)
	blocker, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer blocker.Close()
	if err := lockWhileLoading(ctx, db, blocker, p.TableSize); err != nil {
		t.Error(err)
	} else {
		select {
		case <-log.Retried():
		case err := <-prepared:
			t.Fatalf("prepare ended while sbtest1 was locked: %v", err)
		}
	}
	if _, err := blocker.ExecContext(ctx, "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	if err := <-prepared; err != nil {
		t.Fatalf("prepare: %v", err)
	}
	log.Check(t, `sbtest1 rows \d+ to \d+: lock wait timeout \(1205\), sending the batch again \(retry 1 of 9\)`, "")
	for _, table := range []string{"sbtest1", "sbtest2"} {
		var n, distinct int
		if err := db.QueryRowContext(ctx, "SELECT COUNT(*), COUNT(DISTINCT id) FROM sbtest."+table).Scan(&n, &distinct); err != nil || n != p.TableSize || distinct != n {
			t.Errorf("%s holds %d rows, %d ids (%v), want %d", table, n, distinct, err, p.TableSize)
		}
	}
}

// lockWhileLoading waits for sbtest1 to have rows and locks them and the gap after them in
// a transaction of blocker that the caller rolls back. It fails if the table is already full.
func lockWhileLoading(ctx context.Context, db *sql.DB, blocker *sql.Conn, size int) error {
	for {
		var n int
		err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'sbtest' AND table_name = 'sbtest1'").Scan(&n)
		if err != nil {
			return err
		}
		if n == 1 {
			break
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
	if _, err := blocker.ExecContext(ctx, "BEGIN"); err != nil {
		return err
	}
	for {
		// Waits for the batch in flight; with the 1 s lock wait timeout it may time out too.
		var n int
		err := blocker.QueryRowContext(ctx, "SELECT COUNT(*) FROM sbtest.sbtest1 FOR UPDATE").Scan(&n)
		var me *mysql.MySQLError
		if errors.As(err, &me) && me.Number == 1205 {
			continue
		}
		if err != nil {
			return err
		}
		if n >= size {
			return errors.New("sbtest1 was loaded before the blocking session locked it")
		}
		return nil
	}
}
