package capture

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/quadrant-bench/quadrant/executor/traffic"
)

// started is the state at the capture's start: which tables existed (all of them, listed
// from information_schema) and the checksums it had the time for, smallest tables first.
type started struct {
	exists  map[string]string // lower-case "db.table" -> the name as the server spells it
	sums    traffic.Checksums
	unknown map[string]bool
}

// systemSchemas hold the server's own tables, never a capture's data.
var systemSchemas = []string{"mysql", "information_schema", "performance_schema", "sys"}

// startState checksums the tables before recording begins: which ones the capture will
// see written is known only at its end, so it takes every table of the filter's schemas
// (all user schemas without one), as many as the budget allows. Nil when o turns it off.
func startState(ctx context.Context, conn *sql.Conn, o Options) (*started, error) {
	if o.StateBudget < 0 {
		return nil, nil
	}
	rows, err := conn.QueryContext(ctx, "SELECT TABLE_SCHEMA, TABLE_NAME FROM information_schema.TABLES WHERE TABLE_TYPE = 'BASE TABLE' ORDER BY DATA_LENGTH + INDEX_LENGTH, TABLE_SCHEMA, TABLE_NAME")
	if err != nil {
		return nil, fmt.Errorf("list tables for their checksums: %w", err)
	}
	defer rows.Close()
	st := &started{exists: map[string]string{}, unknown: map[string]bool{}}
	var names []string
	for rows.Next() {
		var db, t string
		if err := rows.Scan(&db, &t); err != nil {
			return nil, err
		}
		if slices.Contains(systemSchemas, strings.ToLower(db)) || len(o.Filter.Schemas) > 0 && !slices.Contains(o.Filter.Schemas, db) {
			continue
		}
		st.exists[strings.ToLower(db+"."+t)] = db + "." + t
		names = append(names, db+"."+t)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	t0 := time.Now()
	var missed []string
	st.sums, missed, err = traffic.Checksum(ctx, conn, names, o.budget())
	if err != nil {
		return nil, err
	}
	for _, t := range missed {
		st.unknown[t] = true
	}
	o.Logf("capture: checksummed %d of %d tables in %.1fs (start state)", len(st.sums), len(names), time.Since(t0).Seconds())
	return st, nil
}

func (o *Options) budget() time.Duration {
	if o.StateBudget == 0 {
		return DefaultStateBudget
	}
	return o.StateBudget
}

// endState checksums the tables the kept statements wrote, once recording has ended, and
// keeps their start checksums: the capture's state.
func endState(ctx context.Context, conn *sql.Conn, o Options, st *started, sts []traffic.Statement) (*traffic.State, error) {
	rule := traffic.NewReadOnly()
	seen := map[string]bool{}
	var written []string
	for i := range sts {
		t, ok := traffic.WrittenTable(rule, &sts[i])
		if !ok {
			continue
		}
		if name, ok := st.exists[strings.ToLower(t)]; ok {
			t = name
		}
		if !seen[t] {
			seen[t] = true
			written = append(written, t)
		}
	}
	slices.Sort(written)
	out := &traffic.State{Start: traffic.Checksums{}}
	for _, t := range written {
		switch sum, ok := st.sums[t]; {
		case ok:
			out.Start[t] = sum
		case st.unknown[t]:
			out.Unknown = append(out.Unknown, t)
		default:
			out.Start[t] = nil // not there when the capture began
		}
	}
	end, missed, err := traffic.Checksum(ctx, conn, written, o.budget())
	if err != nil {
		return nil, err
	}
	out.End = end
	for _, t := range missed {
		if !slices.Contains(out.Unknown, t) {
			out.Unknown = append(out.Unknown, t)
		}
	}
	slices.Sort(out.Unknown)
	if len(out.Unknown) > 0 {
		o.Logf("capture: warning: %d written tables not checksummed within %s (a replay does not check them): %s", len(out.Unknown), o.budget(), strings.Join(out.Unknown, ", "))
	}
	return out, nil
}
