// Package benchrun holds what the benchmark programs share: running a workload the way a
// plan would, a sandbox directory its unprivileged server can enter, and the server's status counters.
package benchrun

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/quadrant-bench/quadrant/executor/kinds"
	"github.com/quadrant-bench/quadrant/executor/workload"
	"github.com/quadrant-bench/quadrant/results/measure"
	"github.com/quadrant-bench/quadrant/spec"
)

// DefaultIgnore is a plan's on_error.ignore default (sysbench's --mysql-ignore-errors).
func DefaultIgnore() []int { return spec.WithDefaults(&spec.OnError{}).Ignore }

// Workload runs w through its kind on cfg, with the defaults a plan would give it.
func Workload(ctx context.Context, cfg *mysql.Config, w *spec.Workload) (*measure.Total, error) {
	return kinds.Do(ctx, spec.WithDefaults(w), workload.Env{Server: cfg}, func(*measure.Interval) {})
}

// Timed is w running threads connections for d.
func Timed(w *spec.Workload, threads int, d time.Duration) *spec.Workload {
	w.Threads, w.Duration = threads, d
	return w
}

// Settings turns script options into a plan's settings.
func Settings(m map[string]string) spec.Settings {
	var out spec.Settings
	for k, v := range m {
		out = append(out, spec.Setting{Name: k, Value: v})
	}
	return out
}

// PrepareTable creates sbtest.sbtest1 afresh with rows rows of sysbench's shape, for the
// benchmarks that load it with their own point selects rather than a plan's workload.
func PrepareTable(ctx context.Context, dsn string, rows int) error {
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	for _, s := range []string{
		"CREATE DATABASE IF NOT EXISTS sbtest",
		"DROP TABLE IF EXISTS sbtest.sbtest1",
		"CREATE TABLE sbtest.sbtest1 (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, k INT NOT NULL DEFAULT 0, c CHAR(120) NOT NULL DEFAULT '', pad CHAR(60) NOT NULL DEFAULT '')",
	} {
		if _, err := db.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("prepare: %s: %w", s, err)
		}
	}
	for done := 0; done < rows; {
		n := min(1000, rows-done)
		q := "INSERT INTO sbtest.sbtest1 (k, c, pad) VALUES " + strings.TrimSuffix(strings.Repeat("(1, REPEAT('x', 119), REPEAT('y', 59)),", n), ",")
		if _, err := db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("prepare: insert rows: %w", err)
		}
		done += n
	}
	return nil
}

// Status reads the server's numeric global status counters; nil when the server cannot be read.
func Status(ctx context.Context, db *sql.DB) map[string]int64 {
	rows, err := db.QueryContext(ctx, "SHOW GLOBAL STATUS")
	if err != nil {
		return nil
	}
	defer rows.Close()
	m := map[string]int64{}
	for rows.Next() {
		var name, value string
		if rows.Scan(&name, &value) == nil {
			var v int64
			if _, err := fmt.Sscan(value, &v); err == nil {
				m[name] = v
			}
		}
	}
	return m
}
