// Package sqlexport loads a results folder into SQL tables (MySQL or MariaDB), so that
// runs can be queried and joined over time: quadrant_runs, quadrant_iterations (one row
// per summary row), quadrant_summary and quadrant_timeseries (one row per value, named as
// the CSV column). Every row is keyed by the run's id; an export writes by primary key, so
// exporting a folder again changes nothing, and a folder that grew (a resumed run) adds
// only what is new.
package sqlexport

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/quadrant-bench/quadrant/results"
)

// Schema creates the tables when they are missing.
var Schema = []string{
	`CREATE TABLE IF NOT EXISTS quadrant_runs (
		run_id CHAR(32) NOT NULL PRIMARY KEY,
		plan VARCHAR(255) NOT NULL,
		plan_identity CHAR(64) NOT NULL,
		host VARCHAR(255) NOT NULL,
		started DATETIME(6) NOT NULL,
		ended DATETIME(6) NULL,
		status VARCHAR(32) NOT NULL,
		version VARCHAR(64) NOT NULL,
		run_json LONGTEXT NOT NULL
	)`,
	`CREATE TABLE IF NOT EXISTS quadrant_iterations (
		run_id CHAR(32) NOT NULL,
		iteration INT NOT NULL,
		target VARCHAR(64) NOT NULL,
		` + "`repeat`" + ` INT NOT NULL,
		cell VARCHAR(1024) NOT NULL,
		status VARCHAR(32) NOT NULL,
		PRIMARY KEY (run_id, iteration, target)
	)`,
	`CREATE TABLE IF NOT EXISTS quadrant_summary (
		run_id CHAR(32) NOT NULL,
		iteration INT NOT NULL,
		target VARCHAR(64) NOT NULL,
		name VARCHAR(255) NOT NULL,
		value DOUBLE NOT NULL,
		PRIMARY KEY (run_id, iteration, target, name)
	)`,
	`CREATE TABLE IF NOT EXISTS quadrant_timeseries (
		run_id CHAR(32) NOT NULL,
		target VARCHAR(64) NOT NULL,
		iteration INT NOT NULL,
		elapsed_s DOUBLE NOT NULL,
		name VARCHAR(255) NOT NULL,
		value DOUBLE NOT NULL,
		time DATETIME(6) NULL,
		PRIMARY KEY (run_id, target, iteration, elapsed_s, name)
	)`,
}

// RunID names a run across machines: the same folder, copied anywhere, has the same id.
func RunID(info *results.RunInfo) string {
	sum := sha256.Sum256([]byte(info.Host + "\x00" + info.Start.UTC().Format(time.RFC3339Nano) + "\x00" + info.Plan + "\x00" + info.PlanSHA256))
	return hex.EncodeToString(sum[:16])
}

// Counts are the rows an export wrote, by what happened to them.
type Counts struct {
	Inserted, Changed, Unchanged int64
}

func (c Counts) String() string {
	return fmt.Sprintf("%d rows inserted, %d changed, %d unchanged", c.Inserted, c.Changed, c.Unchanged)
}

// Export writes run into db in one transaction.
func Export(ctx context.Context, db *sql.DB, run *results.Run) (Counts, error) {
	var c Counts
	for _, stmt := range Schema {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			return c, fmt.Errorf("create tables: %w", err)
		}
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return c, err
	}
	defer tx.Rollback()
	id := RunID(run.Info)
	info, err := json.Marshal(run.Info)
	if err != nil {
		return c, err
	}
	ident := run.Info.PlanIdentity
	var ended any
	if run.Info.End != nil {
		ended = run.Info.End.UTC()
	}
	w := &upserter{tx: tx, ctx: ctx, counts: &c}
	if err := w.rows("quadrant_runs", []string{"run_id", "plan", "plan_identity", "host", "started", "ended", "status", "version", "run_json"},
		[][]any{{id, run.Info.Plan, ident, run.Info.Host, run.Info.Start.UTC(), ended, run.Info.Status, run.Info.Version, string(info)}}); err != nil {
		return c, err
	}

	S := run.Summary
	var its, sums [][]any
	for i := range S.Rows {
		it, err := strconv.Atoi(S.Value(i, results.ColIteration))
		if err != nil {
			continue // a torn line
		}
		target := S.Value(i, results.ColTarget)
		rep, _ := strconv.Atoi(S.Value(i, results.ColRepeat))
		var cell []string
		for _, a := range run.Info.Axes {
			cell = append(cell, a+"="+S.Value(i, a))
		}
		its = append(its, []any{id, it, target, rep, strings.Join(cell, " "), S.Value(i, results.ColStatus)})
		for _, name := range S.Header {
			if skipSummary[name] || contains(run.Info.Axes, name) {
				continue
			}
			if v, ok := S.Float(i, name); ok {
				sums = append(sums, []any{id, it, target, name, v})
			}
		}
	}
	if err := w.rows("quadrant_iterations", []string{"run_id", results.ColIteration, results.ColTarget, "`" + results.ColRepeat + "`", "cell", results.ColStatus}, its); err != nil {
		return c, err
	}
	if err := w.rows("quadrant_summary", []string{"run_id", results.ColIteration, results.ColTarget, "name", "value"}, sums); err != nil {
		return c, err
	}
	for _, target := range run.Targets {
		ts := run.Timeseries[target]
		var rows [][]any
		for i := range ts.Rows {
			it, err := strconv.Atoi(ts.Value(i, results.ColIteration))
			el, ok := ts.Float(i, results.ColElapsed)
			if err != nil || !ok {
				continue
			}
			var at any
			if t, err := time.Parse(time.RFC3339Nano, ts.Value(i, results.ColTime)); err == nil {
				at = t.UTC()
			}
			for _, name := range ts.Header {
				if name == results.ColIteration || name == results.ColElapsed || name == results.ColTime {
					continue
				}
				if v, ok := ts.Float(i, name); ok {
					rows = append(rows, []any{id, target, it, el, name, v, at})
				}
			}
		}
		if err := w.rows("quadrant_timeseries", []string{"run_id", results.ColTarget, results.ColIteration, results.ColElapsed, "name", "value", results.ColTime}, rows); err != nil {
			return c, err
		}
	}
	return c, tx.Commit()
}

// skipSummary are the summary's row keys that quadrant_iterations holds (duration_s is a
// value of quadrant_summary).
var skipSummary = map[string]bool{results.ColIteration: true, results.ColRepeat: true, results.ColTarget: true, results.ColStatus: true}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// upserter writes rows by primary key in batches: a row already there with the same
// values is left alone (MySQL counts it as 0 affected rows, a changed one as 2).
type upserter struct {
	tx     *sql.Tx
	ctx    context.Context
	counts *Counts
}

const batch = 500

func (u *upserter) rows(table string, cols []string, rows [][]any) error {
	if len(rows) == 0 {
		return nil
	}
	var set []string
	for _, c := range cols {
		set = append(set, c+" = VALUES("+c+")")
	}
	one := "(" + strings.TrimSuffix(strings.Repeat("?,", len(cols)), ",") + ")"
	before, err := u.count(table, rows[0][0])
	if err != nil {
		return err
	}
	var affected int64
	for start := 0; start < len(rows); start += batch {
		end := min(start+batch, len(rows))
		var args []any
		for _, r := range rows[start:end] {
			args = append(args, r...)
		}
		q := "INSERT INTO " + table + " (" + strings.Join(cols, ", ") + ") VALUES " +
			strings.TrimSuffix(strings.Repeat(one+",", end-start), ",") +
			" ON DUPLICATE KEY UPDATE " + strings.Join(set, ", ")
		res, err := u.tx.ExecContext(u.ctx, q, args...)
		if err != nil {
			return fmt.Errorf("%s: %w", table, err)
		}
		n, _ := res.RowsAffected()
		affected += n
	}
	after, err := u.count(table, rows[0][0])
	if err != nil {
		return err
	}
	// MySQL counts an inserted row as 1 affected, a changed one as 2, an unchanged one as 0
	inserted := after - before
	changed := (affected - inserted) / 2
	u.counts.Inserted += inserted
	u.counts.Changed += changed
	u.counts.Unchanged += int64(len(rows)) - inserted - changed
	return nil
}

func (u *upserter) count(table string, runID any) (int64, error) {
	var n int64
	err := u.tx.QueryRowContext(u.ctx, "SELECT COUNT(*) FROM "+table+" WHERE run_id = ?", runID).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", table, err)
	}
	return n, nil
}
