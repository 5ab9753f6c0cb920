package tpcc_test

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
	"github.com/quadrant-bench/quadrant/executor/workload"
	"github.com/quadrant-bench/quadrant/executor/workload/engine/retrylog"
	"github.com/quadrant-bench/quadrant/spec"
)

// A prepare at 4 threads whose new_order load deadlocks with another session sends that
// batch again, logs the retry (a deadlock, 1213) and its count, and loads every row once.
//
// The deadlock is forced. A session, made the heavier transaction by 5,000 ballast rows
// (InnoDB rolls back the lighter one), inserts new_order (1, 1, 2500) before the loader
// gets there. The loader's batch of district 1 (orders 2101 to 3000, one autocommit
// INSERT) inserts 2101 to 2499 and waits on 2500; once the server shows that wait (the
// session's transaction blocking another in INNODB_LOCK_WAITS, whatever its text), the
// session asks for 2101 FOR UPDATE: each waits on the other, and InnoDB rolls back the
// loader's batch at once. innodb_lock_wait_timeout is 10 minutes, so a busy host cannot
// turn either wait into a timeout (1205) first.
func TestPrepareRetriesADeadlockedBatch(t *testing.T) {
	c := sandboxtest.Start(t, sandbox.Options{Name: "tpccdeadlock", Config: []sandbox.Option{
		{Name: "innodb_buffer_pool_size", Value: "256M"},
		{Name: "innodb_flush_log_at_trx_commit", Value: "2"},
		{Name: "innodb_lock_wait_timeout", Value: "600"},
	}})
	db := sandboxtest.DB(t, c.Primary.DSN(""), 0)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	for _, s := range []string{"CREATE DATABASE ballast", "CREATE TABLE ballast.b (id INT PRIMARY KEY)"} {
		if _, err := db.ExecContext(ctx, s); err != nil {
			t.Fatal(err)
		}
	}

	log := retrylog.New(t, func(line string) bool { return strings.HasPrefix(line, "new_order of warehouse 1 district 1,") })
	env := workload.Env{Server: dsnConfig(t, c.Primary.DSN("tpcc")), Log: log.Add}
	one := spec.Settings{{Name: "warehouses", Value: 1}}
	prepared := make(chan error, 1)
	go func() {
		_, err := do(t, env, tpccWorkload("prepare", 4, one))
		prepared <- err
	}()
	blocker, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer blocker.Close()
	if err := deadlockNewOrder(ctx, db, blocker, log.Retried()); err != nil {
		t.Error(err)
	}
	if _, err := blocker.ExecContext(ctx, "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	if err := <-prepared; err != nil {
		t.Fatalf("prepare: %v", err)
	}

	log.Check(t, `new_order of warehouse 1 district 1, rows 1 to 900: deadlock \(1213\), sending the batch again \(retry 1 of 9\)`, "tpcc prepare: ")
	for table, want := range map[string]int{"item": 100000, "stock": 100000, "customer": 30000, "history": 30000, "orders": 30000, "new_order": 9000} {
		var n int
		if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM tpcc."+table).Scan(&n); err != nil || n != want {
			t.Errorf("%s holds %d rows (%v), want %d", table, n, err, want)
		}
	}
	if _, err := do(t, env, tpccWorkload("check", 1, one)); err != nil {
		t.Errorf("check after the prepare: %v", err)
	}
}

// deadlockNewOrder makes the loader of new_order deadlock with blocker (see
// TestPrepareRetriesADeadlockedBatch) and returns once the loader has logged its retry
// (retried closed); the caller rolls blocker's transaction back, which the retry waits on.
func deadlockNewOrder(ctx context.Context, db *sql.DB, blocker *sql.Conn, retried <-chan struct{}) error {
	if err := poll(ctx, db, "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'tpcc' AND table_name = 'new_order'"); err != nil {
		return err
	}
	for _, s := range []string{"BEGIN", "INSERT INTO ballast.b SELECT seq FROM ballast.seq_1_to_5000", "INSERT INTO tpcc.new_order VALUES (2500, 1, 1)"} {
		if _, err := blocker.ExecContext(ctx, s); err != nil {
			if me, ok := err.(*mysql.MySQLError); ok && me.Number == 1062 {
				return fmt.Errorf("the loader reached new_order before the blocking session: %w", err)
			}
			return err
		}
	}
	var trx string
	if err := blocker.QueryRowContext(ctx, "SELECT trx_id FROM information_schema.innodb_trx WHERE trx_mysql_thread_id = CONNECTION_ID()").Scan(&trx); err != nil {
		return fmt.Errorf("the blocking session's transaction id: %w", err)
	}
	// The loader reaches new_order after the items, stock, customers and orders: minutes.
	if err := poll(ctx, db, "SELECT COUNT(*) FROM information_schema.innodb_lock_waits WHERE blocking_trx_id = '"+trx+"'"); err != nil {
		return fmt.Errorf("waiting for the loader to wait on new_order (1, 1, 2500): %w", err)
	}
	var id int
	err := blocker.QueryRowContext(ctx, "SELECT no_o_id FROM tpcc.new_order WHERE no_w_id = 1 AND no_d_id = 1 AND no_o_id = 2101 FOR UPDATE").Scan(&id)
	if err != nil && err != sql.ErrNoRows {
		return fmt.Errorf("the blocking session's locking read of 2101 (InnoDB should have rolled back the loader, the lighter transaction, not it): %w", err)
	}
	select {
	case <-retried:
		return nil
	case <-time.After(2 * time.Minute):
		return fmt.Errorf("the loader logged no retry of new_order's batch within 2 minutes of the deadlock")
	case <-ctx.Done():
		return ctx.Err()
	}
}

// poll runs query, a count, every 200 ms until it is more than 0. Not more often: InnoDB's
// information_schema transaction and lock tables are a cache that is refreshed only when
// it was last read over 100 ms before (trx0i_s.cc, CACHE_MIN_IDLE_TIME_NS), so a 5 ms
// poll kept reading the loader's state from before its wait; one run saw the wait a
// minute late, an earlier version of this test never within its 10 minutes.
func poll(ctx context.Context, db *sql.DB, query string) error {
	for {
		var n int
		if err := db.QueryRowContext(ctx, query).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func dsnConfig(t *testing.T, dsn string) *mysql.Config {
	t.Helper()
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}
