package tpcc_test

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
	"github.com/quadrant-bench/quadrant/executor/workload"
	"github.com/quadrant-bench/quadrant/spec"
)

// A prepare at 4 threads whose new_order load InnoDB picks as a deadlock's victim sends
// that batch again, logs the retry and its count, and loads every row once.
//
// The deadlock is forced: a session that has written 5000 rows elsewhere (so InnoDB rolls
// back the loader, the lighter transaction) inserts new_order (1, 1, 2500) before the loader
// gets there, uncommitted. The loader's batch of district 1 (orders 2101 to 3000) inserts
// 2101 to 2499 and waits on 2500; the session then asks for 2101: each waits on the other.
func TestPrepareRetriesADeadlockedBatch(t *testing.T) {
	c := sandboxtest.Start(t, sandbox.Options{Name: "tpccdeadlock", Config: []sandbox.Option{
		{Name: "innodb_buffer_pool_size", Value: "256M"},
		{Name: "innodb_flush_log_at_trx_commit", Value: "2"},
	}})
	db := sandboxtest.DB(t, c.Primary.DSN(""), 0)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	for _, s := range []string{"CREATE DATABASE ballast", "CREATE TABLE ballast.b (id INT PRIMARY KEY, pad CHAR(100))"} {
		if _, err := db.ExecContext(ctx, s); err != nil {
			t.Fatal(err)
		}
	}

	var mu sync.Mutex
	var logged []string
	env := workload.Env{Server: dsnConfig(t, c.Primary.DSN("tpcc")), Log: func(msg string) {
		mu.Lock()
		logged = append(logged, msg)
		mu.Unlock()
		t.Log(msg)
	}}
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
	if err := deadlockNewOrder(ctx, db, blocker); err != nil {
		t.Error(err)
	}
	if _, err := blocker.ExecContext(ctx, "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	if err := <-prepared; err != nil {
		t.Fatalf("prepare: %v", err)
	}

	mu.Lock()
	all := strings.Join(logged, "\n")
	mu.Unlock()
	if !strings.Contains(all, "new_order of warehouse 1 district 1, rows 1 to 900: deadlock (1213), sending the batch again (retry 1 of 9)") {
		t.Errorf("no retry of new_order's batch logged:\n%s", all)
	}
	m := regexp.MustCompile(`tpcc prepare: (\d+) batch\(es\) sent again after a deadlock or lock wait timeout`).FindStringSubmatch(all)
	if m == nil || m[1] == "0" {
		t.Errorf("the prepare's log does not count its retries (at least 1):\n%s", all)
	}
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

// deadlockNewOrder makes the loader of new_order deadlock with blocker, in a transaction the
// caller rolls back: see TestPrepareRetriesADeadlockedBatch.
func deadlockNewOrder(ctx context.Context, db *sql.DB, blocker *sql.Conn) error {
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
	var ballast strings.Builder
	ballast.WriteString("INSERT INTO ballast.b VALUES ")
	for i := 1; i <= 5000; i++ {
		if i > 1 {
			ballast.WriteString(",")
		}
		fmt.Fprintf(&ballast, "(%d, 'x')", i)
	}
	for _, s := range []string{"BEGIN", ballast.String(), "INSERT INTO tpcc.new_order VALUES (2500, 1, 1)"} {
		if _, err := blocker.ExecContext(ctx, s); err != nil {
			if me, ok := err.(*mysql.MySQLError); ok && me.Number == 1062 {
				return fmt.Errorf("the loader reached new_order before the blocking session: %w", err)
			}
			return err
		}
	}
	// The loader waits on (1, 1, 2500) once it has inserted 2101 to 2499.
	for {
		var n int
		if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.innodb_trx WHERE trx_state = 'LOCK WAIT' AND trx_query LIKE 'INSERT INTO new_order %'").Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			break
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
	var id int
	if err := blocker.QueryRowContext(ctx, "SELECT no_o_id FROM tpcc.new_order WHERE no_w_id = 1 AND no_d_id = 1 AND no_o_id = 2101 FOR UPDATE").Scan(&id); err != nil && err != sql.ErrNoRows {
		return fmt.Errorf("the blocking session's locking read (InnoDB should have rolled back the loader, not it): %w", err)
	}
	return nil
}

func dsnConfig(t *testing.T, dsn string) *mysql.Config {
	t.Helper()
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}
