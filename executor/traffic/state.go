package traffic

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/quadrant-bench/quadrant/spec/sqltext"
)

// State is what a capture saw of the data its statements changed: CHECKSUM TABLE of every
// table they wrote, at the capture's start and at its end. A replay checks the target's
// start against Start before it sends anything (a target without the capture's starting
// data is the first cause of replay errors) and says whether it ended as End.
type State struct {
	// Start and End map "db.table" to its checksum; a nil checksum is a table that did not
	// exist. A table not checksummed within the capture's bound is absent (and in Unknown).
	Start Checksums `json:"start"`
	End   Checksums `json:"end"`
	// Unknown are the written tables whose start or end the capture could not checksum in
	// the time it allows itself.
	Unknown []string `json:"unknown,omitempty"`
}

// Checksums are tables' CHECKSUM TABLE values by "db.table"; nil: the table does not exist.
type Checksums map[string]*uint64

// Differ are the tables of want whose checksum on got differs (or is unknown), in order.
func (want Checksums) Differ(got Checksums) []string {
	var out []string
	for t, w := range want {
		g, ok := got[t]
		if !ok || (g == nil) != (w == nil) || g != nil && *g != *w {
			out = append(out, t)
		}
	}
	slices.Sort(out)
	return out
}

// Querier is what Checksum needs of a connection: *sql.DB and *sql.Conn are ones.
type Querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// Checksum runs CHECKSUM TABLE on tables ("db.table") one at a time until budget is spent:
// a large table takes as long as reading it, and a capture on a live server must not. The
// tables not checksummed in time are returned apart. A table that does not exist has a nil
// checksum (the server answers NULL).
func Checksum(ctx context.Context, q Querier, tables []string, budget time.Duration) (Checksums, []string, error) {
	out := Checksums{}
	ctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	for i, t := range tables {
		db, name, ok := strings.Cut(t, ".")
		if !ok {
			return nil, nil, fmt.Errorf("checksum: %q is not db.table", t)
		}
		sum, err := checksumOne(ctx, q, quoteName(db)+"."+quoteName(name))
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return out, tables[i:], nil
		}
		if err != nil {
			return nil, nil, fmt.Errorf("CHECKSUM TABLE %s: %w", t, err)
		}
		out[t] = sum
	}
	return out, nil, nil
}

func checksumOne(ctx context.Context, q Querier, table string) (*uint64, error) {
	rows, err := q.QueryContext(ctx, "CHECKSUM TABLE "+table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var name string
	var sum sql.Null[uint64]
	if rows.Next() {
		if err := rows.Scan(&name, &sum); err != nil {
			return nil, err
		}
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return nil, err
	}
	if !sum.Valid {
		return nil, nil
	}
	return &sum.V, nil
}

func quoteName(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }

// WrittenTable is the table ("db.table", as written) a statement writes by its text: the
// first table of an INSERT, REPLACE, UPDATE, DELETE, TRUNCATE, ALTER, DROP or CREATE TABLE
// (a multi-table UPDATE or DELETE names its first), in its session's default database when
// it names none. False for anything else, a temporary table (rule follows the session's),
// or an unqualified name without a default database.
func WrittenTable(rule *ReadOnly, s *Statement) (string, bool) {
	if !rule.Writes(s) {
		return "", false
	}
	words := strings.Fields(sqltext.SkipComments(s.Text))
	if len(words) < 2 {
		return "", false
	}
	switch strings.ToUpper(words[0]) {
	case "INSERT", "REPLACE", "UPDATE", "DELETE", "TRUNCATE", "ALTER", "DROP", "CREATE":
	default:
		return "", false
	}
	up := strings.ToUpper(words[0])
	for i, w := range words[1:] {
		switch strings.ToUpper(w) {
		case "INTO", "FROM", "IGNORE", "LOW_PRIORITY", "DELAYED", "HIGH_PRIORITY", "QUICK", "TABLE", "IF", "EXISTS", "NOT", "ONLINE", "OR":
			continue
		case "TEMPORARY", "DATABASE", "SCHEMA", "INDEX", "VIEW", "USER", "FUNCTION", "PROCEDURE", "TRIGGER", "EVENT", "UNIQUE", "FULLTEXT", "SPATIAL":
			return "", false
		}
		if (up == "CREATE" || up == "ALTER" || up == "DROP") && !slices.Contains(words[1:i+1], "TABLE") && !slices.Contains(words[1:i+1], "table") {
			return "", false
		}
		return qualify(w, s.Schema)
	}
	return "", false
}

// qualify reads a table name as written (`db`.`t`, db.t, t(cols...)) into "db.table".
func qualify(w, schema string) (string, bool) {
	if i := strings.IndexAny(w, "(,;"); i >= 0 {
		w = w[:i]
	}
	w = strings.ReplaceAll(w, "`", "")
	db, name, ok := strings.Cut(w, ".")
	if !ok {
		db, name = schema, w
	}
	if db == "" || name == "" {
		return "", false
	}
	return db + "." + name, true
}
