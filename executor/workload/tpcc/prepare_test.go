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

// A prepare at 4 threads whose new_order load meets another session's lock sends that
// batch again, logs the retry and its count, and loads every row once.
//
// The conflict is forced: a session inserts new_order (1, 1, 2500) before the loader gets
// there, uncommitted, and holds it until the loader has logged a retry of its batch of
// district 1 (orders 2101 to 3000); with innodb_lock_wait_timeout at 1 s that is a lock wait
// timeout (1205). A forced deadlock (1213: the session then asking for 2101) proved
// unreliable to stage: the loader's wait was at times not seen in INNODB_TRX for minutes.
// Both errors go through the same retry (engine.LoadRetry, whose TestLoadRetry covers 1213).
func TestPrepareRetriesABlockedBatch(t *testing.T) {
	c := sandboxtest.Start(t, sandbox.Options{Name: "tpccdeadlock", Config: []sandbox.Option{
		{Name: "innodb_buffer_pool_size", Value: "256M"},
		{Name: "innodb_flush_log_at_trx_commit", Value: "2"},
		{Name: "innodb_lock_wait_timeout", Value: "1"},
	}})
	db := sandboxtest.DB(t, c.Primary.DSN(""), 0)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()

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
	if err := holdNewOrder(ctx, db, blocker, log.Retried()); err != nil {
		t.Error(err)
	}
	if _, err := blocker.ExecContext(ctx, "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	if err := <-prepared; err != nil {
		t.Fatalf("prepare: %v", err)
	}

	log.Check(t, `new_order of warehouse 1 district 1, rows 1 to 900: (deadlock \(1213\)|lock wait timeout \(1205\)), sending the batch again \(retry 1 of 9\)`, "tpcc prepare: ")
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

// holdNewOrder inserts new_order (1, 1, 2500) in blocker's transaction once the table
// exists, before the loader gets there, and returns once the loader has logged a retry
// (retried closed) or after two minutes; the caller rolls it back. See
// TestPrepareRetriesABlockedBatch.
func holdNewOrder(ctx context.Context, db *sql.DB, blocker *sql.Conn, retried <-chan struct{}) error {
	for {
		var n int
		if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'tpcc' AND table_name = 'new_order'").Scan(&n); err != nil {
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
	for _, s := range []string{"BEGIN", "INSERT INTO tpcc.new_order VALUES (2500, 1, 1)"} {
		if _, err := blocker.ExecContext(ctx, s); err != nil {
			if me, ok := err.(*mysql.MySQLError); ok && me.Number == 1062 {
				return fmt.Errorf("the loader reached new_order before the blocking session: %w", err)
			}
			return err
		}
	}
	select {
	case <-retried:
		return nil
	case <-time.After(2 * time.Minute):
		return fmt.Errorf("the loader logged no retry of new_order's batch within 2 minutes of meeting the blocking session's row")
	case <-ctx.Done():
		return ctx.Err()
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
