package replay

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/go-sql-driver/mysql"

	"github.com/quadrant-bench/quadrant/executor/internal/authretry"
)

// What a statement locks beyond the tables it names, read from the target's schema for the
// locking order (lockorder.go): a foreign key's check locks the parent's row (a shared lock)
// and a cascade the child's, so the two tables are one order group; a view's tables and a
// trigger's are not in the statement's text, so a statement on a view or on a table with
// triggers is ordered against every table.
const (
	foreignKeysQuery = "SELECT CONSTRAINT_SCHEMA, TABLE_NAME, UNIQUE_CONSTRAINT_SCHEMA, REFERENCED_TABLE_NAME FROM information_schema.REFERENTIAL_CONSTRAINTS WHERE CONSTRAINT_SCHEMA IN (%s) OR UNIQUE_CONSTRAINT_SCHEMA IN (%[1]s)"
	viewsQuery       = "SELECT TABLE_SCHEMA, TABLE_NAME FROM information_schema.VIEWS WHERE TABLE_SCHEMA IN (%s)"
	triggersQuery    = "SELECT EVENT_OBJECT_SCHEMA, EVENT_OBJECT_TABLE FROM information_schema.TRIGGERS WHERE EVENT_OBJECT_SCHEMA IN (%s)"
)

// tableGroups reads the schemas' foreign keys, views and triggers from the target and says
// each table's order group: "" for a table ordered against every table. The names are the
// fingerprints' (lower case), so tables whose names differ only by case share a group. When
// the schema cannot be read, every table is ordered against every other (the safe order),
// and the log says why.
func tableGroups(ctx context.Context, cfg *mysql.Config, schemas []string, logf func(string, ...any)) func(string) string {
	all := func(string) string { return "" }
	if len(schemas) == 0 {
		return all
	}
	conn, err := authretry.NewConnector(cfg.Clone())
	if err != nil {
		logf("replay: the target's foreign keys, views and triggers not read (%v): the locking statements are kept in one order over all tables", err)
		return all
	}
	db := sql.OpenDB(conn)
	defer db.Close()
	in := strings.TrimSuffix(strings.Repeat("?,", len(schemas)), ",")
	args := make([]any, len(schemas))
	for i, s := range schemas {
		args[i] = s
	}
	parent := map[string]string{}
	find := func(t string) string {
		for parent[t] != "" && parent[t] != t {
			t = parent[t]
		}
		return t
	}
	whole := map[string]bool{}
	err = rows(ctx, db, fmt.Sprintf(foreignKeysQuery, in), append(args, args...), func(v []string) {
		a, b := find(name(v[0], v[1])), find(name(v[2], v[3]))
		if a != b {
			parent[a] = b
		}
	})
	for _, q := range []string{viewsQuery, triggersQuery} {
		if err == nil {
			err = rows(ctx, db, fmt.Sprintf(q, in), args, func(v []string) { whole[name(v[0], v[1])] = true })
		}
	}
	if err != nil {
		logf("replay: the target's foreign keys, views and triggers not read (%v): the locking statements are kept in one order over all tables", err)
		return all
	}
	return func(t string) string {
		if whole[t] {
			return ""
		}
		return find(t)
	}
}

func name(schema, table string) string { return strings.ToLower(schema + "." + table) }

// rows runs q and hands each row's columns to f.
func rows(ctx context.Context, db *sql.DB, q string, args []any, f func([]string)) error {
	rs, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rs.Close()
	cols, err := rs.Columns()
	if err != nil {
		return err
	}
	v := make([]sql.NullString, len(cols))
	ptrs := make([]any, len(cols))
	for i := range v {
		ptrs[i] = &v[i]
	}
	for rs.Next() {
		if err := rs.Scan(ptrs...); err != nil {
			return err
		}
		s := make([]string, len(v))
		for i := range v {
			s[i] = v[i].String
		}
		f(s)
	}
	return rs.Err()
}

// schemas are the databases the locking statements name.
func (l *lockScan) schemas() []string {
	var out []string
	for _, ss := range l.spans {
		for _, s := range ss {
			for _, t := range s.tables {
				if db, _, ok := strings.Cut(t, "."); ok && !slices.Contains(out, db) {
					out = append(out, db)
				}
			}
		}
	}
	slices.Sort(out)
	return out
}
