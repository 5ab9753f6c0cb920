package generate

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
)

// deferIndexes drops a table's plain secondary indexes (KEY, not UNIQUE, FULLTEXT or SPATIAL)
// before its rows go in, and returns what adds them back, in one ALTER TABLE. InnoDB then
// builds each index once by sorting instead of inserting every row's entry at a random
// place: the server's CPU per row of an sbtest-shaped table falls by about a third, and it is
// what sysbench's prepare does (CREATE INDEX after the rows). Each index comes back as SHOW
// CREATE TABLE wrote it (prefixes, order, comments, IGNORED...). An index the server will not
// drop (one a foreign key needs) stays, and one a foreign key needs is not asked; so do all of a table with no rows to load.
func deferIndexes(ctx context.Context, db *sql.DB, database string, tp *tablePlan, logf func(string, ...any)) (func(context.Context) error, error) {
	none := func(context.Context) error { return nil }
	if tp.rows == 0 {
		return none, nil
	}
	table := quoteID(database) + "." + quoteID(tp.name)
	var name, ddl string
	if err := db.QueryRowContext(ctx, "SHOW CREATE TABLE "+table).Scan(&name, &ddl); err != nil {
		return nil, fmt.Errorf("read the definition of %s: %w", tp.name, err)
	}
	needs, err := fkColumns(ctx, db, database, tp.name, ddl)
	if err != nil {
		return nil, err
	}
	var dropped, names []string
	all := indexes(ddl)
	for _, ix := range all {
		if !ix.plain {
			continue
		}
		if fk := neededBy(ix, needs, all); fk != "" {
			// the server refuses to drop it (error 1553): it is not asked
			logf("generate: %s keeps index %s during the load: foreign key %s needs it", tp.name, ix.name, fk)
			continue
		}
		if _, err := db.ExecContext(ctx, "ALTER TABLE "+table+" DROP INDEX "+quoteID(ix.name)); err != nil {
			logf("generate: %s keeps index %s during the load: %v", tp.name, ix.name, err)
			continue
		}
		ix.dropped = true
		dropped = append(dropped, "ADD "+ix.def)
		names = append(names, ix.name)
	}
	if len(dropped) == 0 {
		return none, nil
	}
	logf("generate: %s: index %s dropped for the load, added back after it", tp.name, strings.Join(names, ", "))
	return func(ctx context.Context) error {
		if _, err := db.ExecContext(ctx, "ALTER TABLE "+table+" "+strings.Join(dropped, ", ")); err != nil {
			return fmt.Errorf("add back index %s of %s (dropped for the load): %w; add it yourself: ALTER TABLE %s %s",
				strings.Join(names, ", "), tp.name, err, table, strings.Join(dropped, ", "))
		}
		return nil
	}, nil
}

// index is one index of a SHOW CREATE TABLE: its definition line, name and columns (a
// column with a prefix length, which cannot serve a foreign key, as "`col`(n)").
type index struct {
	def, name string
	cols      []string
	plain     bool // KEY: neither PRIMARY, UNIQUE, FULLTEXT nor SPATIAL
	dropped   bool
}

func indexes(ddl string) []*index {
	var out []*index
	for _, line := range strings.Split(ddl, "\n") {
		def := strings.TrimSuffix(strings.TrimSpace(line), ",")
		ix := &index{def: def}
		rest, ok := strings.CutPrefix(def, "KEY `")
		if ok {
			ix.plain = true
		} else if rest, ok = strings.CutPrefix(def, "UNIQUE KEY `"); !ok {
			if rest, ok = strings.CutPrefix(def, "PRIMARY KEY ("); !ok {
				continue
			}
			rest = "PRIMARY` (" + rest
		}
		end := strings.Index(rest, "` (")
		if end < 0 {
			continue
		}
		ix.name = strings.ReplaceAll(rest[:end], "``", "`")
		for _, c := range strings.Split(cutColumns(rest[end+3:]), ",") {
			c = strings.TrimSpace(c)
			if name, ok := strings.CutPrefix(c, "`"); ok && strings.HasSuffix(name, "`") {
				c = strings.ToLower(strings.ReplaceAll(strings.TrimSuffix(name, "`"), "``", "`"))
			}
			ix.cols = append(ix.cols, c)
		}
		out = append(out, ix)
	}
	return out
}

// cutColumns is the column list at the start of s, up to its closing parenthesis (a prefix
// length's own parentheses and quoted names skipped).
func cutColumns(s string) string {
	depth, quoted := 0, false
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '`':
			quoted = !quoted
		case quoted:
		case s[i] == '(':
			depth++
		case s[i] == ')' && depth == 0:
			return s[:i]
		case s[i] == ')':
			depth--
		}
	}
	return s
}

// fkCols is a foreign key's columns on this table's side: its own foreign key's, or the
// columns another table's foreign key references here.
type fkCols struct {
	name string
	cols []string
}

// fkColumns reads the foreign keys that need an index of table: its own (from its
// definition) and those of tables that reference it (from information_schema).
func fkColumns(ctx context.Context, db *sql.DB, database, table, ddl string) ([]fkCols, error) {
	var out []fkCols
	for _, line := range strings.Split(ddl, "\n") {
		def := strings.TrimSpace(line)
		rest, ok := strings.CutPrefix(def, "CONSTRAINT `")
		if !ok {
			continue
		}
		name, after, ok := strings.Cut(rest, "` FOREIGN KEY (")
		if !ok {
			continue
		}
		var cols []string
		for _, c := range strings.Split(cutColumns(after), ",") {
			cols = append(cols, strings.ToLower(strings.ReplaceAll(strings.Trim(strings.TrimSpace(c), "`"), "``", "`")))
		}
		out = append(out, fkCols{name: strings.ReplaceAll(name, "``", "`"), cols: cols})
	}
	rows, err := db.QueryContext(ctx, `SELECT CONSTRAINT_NAME, TABLE_NAME, REFERENCED_COLUMN_NAME FROM information_schema.KEY_COLUMN_USAGE
		WHERE REFERENCED_TABLE_SCHEMA = ? AND REFERENCED_TABLE_NAME = ? ORDER BY TABLE_SCHEMA, TABLE_NAME, CONSTRAINT_NAME, POSITION_IN_UNIQUE_CONSTRAINT`, database, table)
	if err != nil {
		return nil, fmt.Errorf("read the foreign keys that reference %s: %w", table, err)
	}
	defer rows.Close()
	at := map[string]int{}
	for rows.Next() {
		var cn, tn, col string
		if err := rows.Scan(&cn, &tn, &col); err != nil {
			return nil, err
		}
		k := tn + "." + cn
		i, ok := at[k]
		if !ok {
			out = append(out, fkCols{name: k})
			i = len(out) - 1
			at[k] = i
		}
		out[i].cols = append(out[i].cols, strings.ToLower(col))
	}
	return out, rows.Err()
}

// neededBy is the foreign key that needs ix, or "": one whose columns begin ix and begin no
// other index that stays (InnoDB's rule for the index a foreign key uses).
func neededBy(ix *index, fks []fkCols, all []*index) string {
	for _, f := range fks {
		if !slices.Equal(prefix(ix.cols, len(f.cols)), f.cols) {
			continue
		}
		served := false
		for _, o := range all {
			if o.name != ix.name && !o.dropped && slices.Equal(prefix(o.cols, len(f.cols)), f.cols) {
				served = true
			}
		}
		if !served {
			return f.name
		}
	}
	return ""
}

func prefix(s []string, n int) []string {
	if len(s) < n {
		return nil
	}
	return s[:n]
}
