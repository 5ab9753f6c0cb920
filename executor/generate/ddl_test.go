package generate

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	_ "github.com/go-sql-driver/mysql"

	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
	"github.com/quadrant-bench/quadrant/spec/ddl"
)

// TestSchemaFileReadsAsServer: what validate reads of a schema file (spec/ddl) is what the
// run reads from information_schema after the file ran: each column's type, length,
// NULL, unsigned, auto-increment, generated and members, the unique keys and the foreign
// keys. The two check one column by the same rules, so they must see the same column.
func TestSchemaFileReadsAsServer(t *testing.T) {
	c := sandboxtest.Start(t, sandbox.Options{Name: "genddl"})
	db := sandboxtest.DB(t, c.Primary.DSN(""), 0)
	ctx := context.Background()
	aliases := filepath.Join(t.TempDir(), "aliases.sql")
	err := os.WriteFile(aliases, []byte(`CREATE DATABASE al; USE al;
CREATE TABLE a1 (id SERIAL, b BOOL NOT NULL, n NUMERIC(7,3), d DEC(4), r REAL, f8 FLOAT8, i1 INT1, i3 MIDDLEINT UNSIGNED,
  nv NATIONAL VARCHAR(10), nc NCHAR(3), cv CHARACTER VARYING(12), lv LONG VARCHAR, lvb LONG VARBINARY, ch CHAR, bn BINARY,
  bt BIT, dp DOUBLE PRECISION, z INT ZEROFILL, e ENUM('x','y''z'), t TEXT, i INTEGER UNIQUE KEY, PRIMARY KEY (b, i1));
CREATE TABLE a2 (x INT, y INT, UNIQUE (x, y));
CREATE UNIQUE INDEX yx ON a2 (y, x);
CREATE TABLE a3 (id INT PRIMARY KEY, x INT, y INT);
ALTER TABLE a3 ADD CONSTRAINT a3_a2 FOREIGN KEY (x, y) REFERENCES a2 (x, y), ADD COLUMN w VARCHAR(3) NOT NULL DEFAULT 'a';
CREATE TABLE a4 LIKE a3;
`), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct{ file, db string }{
		{aliases, "al"},
		{"../../spec/ddl/testdata/mariadb-dump.source.sql", "k"},
		{"../../examples/shop.sql", "shop"},
		{"../../spec/ddl/testdata/mariadb-dump.sql", "k"}, // the same tables again, as dumped
	} {
		t.Run(f.file, func(t *testing.T) {
			conn, err := db.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer discard(conn)
			if _, err := conn.ExecContext(ctx, "DROP DATABASE IF EXISTS "+f.db); err != nil {
				t.Fatal(err)
			}
			if err := runSchema(ctx, conn, f.file, nil); err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(f.file)
			if err != nil {
				t.Fatal(err)
			}
			s := ddl.ParseFor(string(data), ddl.MariaDB) // the sandbox is MariaDB
			var names []string
			for _, dt := range s.Tables {
				if dt.Unread {
					t.Errorf("table %s not read", dt.Name)
				}
				names = append(names, dt.Name)
			}
			if len(names) < 4 {
				t.Fatalf("read %d tables: %v", len(names), names)
			}
			infos, err := introspect(ctx, conn, f.db, names)
			if err != nil {
				t.Fatal(err)
			}
			for _, dt := range s.Tables {
				if got, want := fromFile(dt), fromServer(infos[dt.Name]); got != want {
					t.Errorf("table %s read from the file:\n%s\nfrom the server:\n%s", dt.Name, got, want)
				}
			}
		})
	}
}

func describeColumn(c *ddl.Column) string {
	length := int64(0)
	if ddl.IsString(c.Type) || ddl.IsBinary(c.Type) {
		length = c.Length // length: on a string is checked against it
	}
	ds := ""
	if c.Type == "decimal" || c.Type == "bit" {
		ds = fmt.Sprintf(" %d,%d", c.Precision, c.Scale)
	}
	return fmt.Sprintf("%s %s len=%d%s null=%v unsigned=%v autoinc=%v generated=%v members=%q known=%v\n",
		c.Name, c.Type, length, ds, c.Nullable, c.Unsigned, c.AutoIncrement, c.Generated, c.Members, ddl.Known(c.Type))
}

func describeKeys(uniques, fks []string) string {
	sort.Strings(uniques)
	sort.Strings(fks)
	return strings.Join(append(uniques, fks...), "")
}

func fromFile(t *ddl.Table) string {
	var b strings.Builder
	for _, c := range t.Columns {
		b.WriteString(describeColumn(c))
	}
	var u, f []string
	for _, k := range t.Uniques {
		u = append(u, fmt.Sprintf("unique %s (%s)\n", k.Name, strings.Join(k.Columns, ",")))
	}
	for _, k := range t.Foreign {
		f = append(f, fmt.Sprintf("foreign %s (%s) -> %s (%s)\n", k.Name, strings.Join(k.Columns, ","), k.Parent, strings.Join(k.ParentColumns, ",")))
	}
	return b.String() + describeKeys(u, f)
}

func fromServer(ti *tableInfo) string {
	if ti == nil {
		return "(none)"
	}
	var b strings.Builder
	for _, c := range ti.cols {
		b.WriteString(describeColumn(c.spec()))
	}
	var u, f []string
	for _, k := range ti.uniques {
		u = append(u, fmt.Sprintf("unique %s (%s)\n", k.name, strings.Join(k.cols, ",")))
	}
	for _, k := range ti.fks {
		f = append(f, fmt.Sprintf("foreign %s (%s) -> %s (%s)\n", k.name, strings.Join(k.cols, ","), k.parent, strings.Join(k.parentCols, ",")))
	}
	return b.String() + describeKeys(u, f)
}
