package generate

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/quadrant-bench/quadrant/spec/ddl"
)

// column is one column as information_schema describes it once the DDL ran.
type column struct {
	table      string // its table's name: a default can follow it (a name in customers is a person's)
	name       string
	dataType   string // int, varchar, enum... (lower case)
	columnType string // int(10) unsigned, enum('a','b')...
	nullable   bool
	hasDefault bool
	charLen    int64
	precision  int64
	scale      int64
	unsigned   bool
	autoInc    bool
	generated  bool // virtual or stored: the server computes it
	members    []string
}

// key is a primary or unique key, or a foreign key with its parent.
type key struct {
	name       string
	cols       []string
	parent     string // foreign keys only
	parentCols []string
}

type tableInfo struct {
	name    string
	cols    []*column
	uniques []key // PRIMARY first
	fks     []key
}

func (t *tableInfo) column(name string) *column {
	for _, c := range t.cols {
		if c.name == name {
			return c
		}
	}
	return nil
}

// introspect reads the tables of db named in names as the server sees them.
func introspect(ctx context.Context, q *sql.Conn, db string, names []string) (map[string]*tableInfo, error) {
	out := map[string]*tableInfo{}
	for _, n := range names {
		out[n] = nil
	}
	if err := readColumns(ctx, q, db, out); err != nil {
		return nil, err
	}
	if err := readUniqueKeys(ctx, q, db, out); err != nil {
		return nil, err
	}
	if err := readForeignKeys(ctx, q, db, out); err != nil {
		return nil, err
	}
	markJSON(ctx, q, db, out)
	var missing []string
	for _, n := range names {
		if out[n] == nil {
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("no table %s in database %s; create it in the schema file (schema:), or remove it from tables: in the step", strings.Join(missing, ", "), db)
	}
	return out, nil
}

// readColumns reads the columns of the tables wanted in out (by name, nil until read).
func readColumns(ctx context.Context, q *sql.Conn, db string, out map[string]*tableInfo) error {
	rows, err := q.QueryContext(ctx, `SELECT TABLE_NAME, COLUMN_NAME, LOWER(DATA_TYPE), LOWER(COLUMN_TYPE), IS_NULLABLE,
		COLUMN_DEFAULT IS NOT NULL, COALESCE(CHARACTER_MAXIMUM_LENGTH, 0), COALESCE(NUMERIC_PRECISION, 0), COALESCE(NUMERIC_SCALE, 0), EXTRA
		FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? ORDER BY TABLE_NAME, ORDINAL_POSITION`, db)
	if err != nil {
		return fmt.Errorf("read the columns of %s from information_schema: %w", db, err)
	}
	defer rows.Close()
	for rows.Next() {
		var tn, nullable, extra string
		c := &column{}
		if err := rows.Scan(&tn, &c.name, &c.dataType, &c.columnType, &nullable, &c.hasDefault, &c.charLen, &c.precision, &c.scale, &extra); err != nil {
			return err
		}
		t, wanted := out[tn]
		if !wanted {
			continue
		}
		c.table = tn
		if t == nil {
			t = &tableInfo{name: tn}
			out[tn] = t
		}
		extra = strings.ToLower(extra)
		c.nullable = nullable == "YES"
		c.unsigned = strings.Contains(c.columnType, "unsigned")
		c.autoInc = strings.Contains(extra, "auto_increment")
		// MySQL says DEFAULT_GENERATED of a column whose default is an expression, which
		// the generator fills like any other.
		c.generated = strings.Contains(extra, "virtual generated") || strings.Contains(extra, "stored generated") || strings.Contains(extra, "persistent generated")
		if c.dataType == "enum" || c.dataType == "set" {
			c.members = members(c.columnType)
		}
		t.cols = append(t.cols, c)
	}
	return rows.Err()
}

// readUniqueKeys reads the unique keys of the tables of out, PRIMARY first, columns in key
// order.
func readUniqueKeys(ctx context.Context, q *sql.Conn, db string, out map[string]*tableInfo) error {
	uq := map[string]map[string]*key{}
	rows, err := q.QueryContext(ctx, `SELECT TABLE_NAME, INDEX_NAME, COLUMN_NAME FROM information_schema.STATISTICS
		WHERE TABLE_SCHEMA = ? AND NON_UNIQUE = 0 ORDER BY TABLE_NAME, INDEX_NAME = 'PRIMARY' DESC, INDEX_NAME, SEQ_IN_INDEX`, db)
	if err != nil {
		return fmt.Errorf("read the unique keys of %s from information_schema: %w", db, err)
	}
	defer rows.Close()
	for rows.Next() {
		var tn, in, cn string
		if err := rows.Scan(&tn, &in, &cn); err != nil {
			return err
		}
		t := out[tn]
		if t == nil {
			continue
		}
		if uq[tn] == nil {
			uq[tn] = map[string]*key{}
		}
		k := uq[tn][in]
		if k == nil {
			t.uniques = append(t.uniques, key{name: in})
			k = &t.uniques[len(t.uniques)-1]
			uq[tn][in] = k
		}
		k.cols = append(k.cols, cn)
	}
	return rows.Err()
}

// readForeignKeys reads the foreign keys of the tables of out; one into another database
// is refused.
func readForeignKeys(ctx context.Context, q *sql.Conn, db string, out map[string]*tableInfo) error {
	rows, err := q.QueryContext(ctx, `SELECT TABLE_NAME, CONSTRAINT_NAME, COLUMN_NAME, REFERENCED_TABLE_SCHEMA, REFERENCED_TABLE_NAME, REFERENCED_COLUMN_NAME
		FROM information_schema.KEY_COLUMN_USAGE WHERE TABLE_SCHEMA = ? AND REFERENCED_TABLE_NAME IS NOT NULL
		ORDER BY TABLE_NAME, CONSTRAINT_NAME, ORDINAL_POSITION`, db)
	if err != nil {
		return fmt.Errorf("read the foreign keys of %s from information_schema: %w", db, err)
	}
	defer rows.Close()
	fk := map[string]int{}
	for rows.Next() {
		var tn, cn, col, rs, rt, rc string
		if err := rows.Scan(&tn, &cn, &col, &rs, &rt, &rc); err != nil {
			return err
		}
		t := out[tn]
		if t == nil {
			continue
		}
		if rs != db {
			return fmt.Errorf("foreign key %s of %s references %s.%s in another database; generate fills one database: fill %s.%s yourself and drop the key, or move the tables together", cn, tn, rs, rt, rs, rt)
		}
		i, ok := fk[tn+"\x00"+cn]
		if !ok {
			t.fks = append(t.fks, key{name: cn, parent: rt})
			i = len(t.fks) - 1
			fk[tn+"\x00"+cn] = i
		}
		t.fks[i].cols = append(t.fks[i].cols, col)
		t.fks[i].parentCols = append(t.fks[i].parentCols, rc)
	}
	return rows.Err()
}

// markJSON marks MariaDB's JSON columns. MariaDB's JSON is a LONGTEXT checked by
// json_valid(): only the check says so. MySQL has a JSON type of its own, and no
// TABLE_NAME in CHECK_CONSTRAINTS, so the question fails there and is not needed.
func markJSON(ctx context.Context, q *sql.Conn, db string, out map[string]*tableInfo) {
	if jrows, err := q.QueryContext(ctx, `SELECT TABLE_NAME, CHECK_CLAUSE FROM information_schema.CHECK_CONSTRAINTS
		WHERE CONSTRAINT_SCHEMA = ? AND CHECK_CLAUSE LIKE 'json_valid(%'`, db); err == nil {
		defer jrows.Close()
		for jrows.Next() {
			var tn, clause string
			if jrows.Scan(&tn, &clause) != nil || out[tn] == nil {
				continue
			}
			name := strings.Trim(strings.TrimSuffix(strings.TrimPrefix(clause, "json_valid("), ")"), "`")
			if c := out[tn].column(name); c != nil {
				c.dataType = "json"
			}
		}
	}
}

// members reads the members of an enum(...) or set(...) column type, in which a doubled
// quote stands for one.
func members(columnType string) []string {
	i := strings.IndexByte(columnType, '(')
	if i < 0 {
		return nil
	}
	s := columnType[i+1:]
	var out []string
	var cur []byte
	in := false
	for j := 0; j < len(s); j++ {
		ch := s[j]
		switch {
		case !in && ch == '\'':
			in, cur = true, cur[:0]
		case in && ch == '\'' && j+1 < len(s) && s[j+1] == '\'':
			cur = append(cur, '\'')
			j++
		case in && ch == '\'':
			in = false
			out = append(out, string(cur))
		case in:
			cur = append(cur, ch)
		}
	}
	return out
}

// order lists the tables parents first. A cycle of foreign keys has no such order.
func order(names []string, tables map[string]*tableInfo) ([]string, error) {
	listed := map[string]bool{}
	for _, n := range names {
		listed[n] = true
	}
	for _, n := range names {
		for _, k := range tables[n].fks {
			if !listed[k.parent] {
				return nil, errors.New(ddl.UnlistedParent(n, k.cols, k.parent))
			}
		}
	}
	out, cycle := ddl.Order(names, func(n string) []string {
		var ps []string
		for _, k := range tables[n].fks {
			ps = append(ps, k.parent)
		}
		return ps
	})
	if cycle != nil {
		return nil, errors.New(ddl.CycleMessage(cycle))
	}
	return out, nil
}

// spec is the column as spec/ddl's rules (shared with validate) take it.
func (c *column) spec() *ddl.Column {
	return &ddl.Column{Name: c.name, Type: c.dataType, TypeText: c.columnType, Length: c.charLen, Precision: c.precision, Scale: c.scale,
		Unsigned: c.unsigned, Nullable: c.nullable, AutoIncrement: c.autoInc, Generated: c.generated, Members: c.members}
}
