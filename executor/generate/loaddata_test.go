package generate_test

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/quadrant-bench/quadrant/executor/generate"
	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
)

// awkward are values LOAD DATA reads differently from an INSERT unless escaped: its field
// and line separators, its escape character, its NULL (\N), quotes, a NUL and bytes that
// are not UTF-8 (the binary column only).
var awkward = []string{"tab\there", "new\nline", `back\slash`, `\N`, "it's \"quoted\"", "nul\x00byte", "cr\r", "%_\\%"}

const typesDDL = `CREATE DATABASE ty; USE ty;
CREATE TABLE t (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, code VARCHAR(24) NOT NULL UNIQUE,
  name VARCHAR(40), body TEXT, raw VARBINARY(16), fixed BINARY(4), blobby BLOB,
  born DATE, seen DATETIME, stamp TIMESTAMP NULL, at TIME, yr YEAR,
  price DECIMAL(9,3), ratio DOUBLE, small FLOAT, n BIGINT UNSIGNED, flag TINYINT(1) NOT NULL,
  kind ENUM('a','b','c d') NOT NULL, tags SET('x','y','z'), bits BIT(5), bytebits BIT(16), doc JSON,
  total INT AS (n % 1000) STORED, KEY by_name (name(10), born DESC) COMMENT 'dropped for the load', KEY ` + "`odd``name`" + ` (price, n));
CREATE TABLE c (id INT NOT NULL PRIMARY KEY, t_id INT NOT NULL, note CHAR(10), FOREIGN KEY (t_id) REFERENCES t (id));`

// autoIncrement is the counter SHOW CREATE TABLE shows once rows went in.
var autoIncrement = regexp.MustCompile(` AUTO_INCREMENT=[0-9]+`)

func typesPlan(method string, threads int) generate.Options {
	return generate.Options{Seed: 5, Threads: threads, Method: method, Tables: []generate.Table{
		{Name: "t", Rows: 3000, Columns: map[string]generate.Settings{
			"name":     {Values: awkward, NullFraction: 0.2},
			"body":     {NullFraction: 0.3},
			"raw":      {Values: append([]string{"\xff\xfe\x00\t\n\\'"}, awkward...), NullFraction: 0.1},
			"blobby":   {NullFraction: 0.5},
			"stamp":    {NullFraction: 0.25},
			"price":    {NullFraction: 0.1, Min: "-50", Max: "999"},
			"tags":     {NullFraction: 0.1},
			"bits":     {NullFraction: 0.1},
			"bytebits": {Values: []string{"A", "ab", "\t\n"}},
		}},
		{Name: "c", Rows: 4000, Columns: map[string]generate.Settings{"t_id": {Distribution: "zipf"}, "note": {NullFraction: 0.5}}},
	}}
}

func checksumOf(t *testing.T, db *sql.DB, tables ...string) string {
	t.Helper()
	var out []string
	for _, tn := range tables {
		var name string
		var sum sql.NullInt64
		if err := db.QueryRow("CHECKSUM TABLE "+tn).Scan(&name, &sum); err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%s=%d", tn, sum.Int64))
	}
	return strings.Join(out, " ")
}

// TestMethods: LOAD DATA and INSERTs fill a table of every type generate knows, with NULLs
// and the values LOAD DATA must escape, with the same rows (CHECKSUM TABLE), on 1 and 3
// threads; the log says which method ran; auto falls back to INSERTs when the server's
// local_infile is OFF and load_data then refuses to run.
func TestMethods(t *testing.T) {
	c := sandboxtest.Start(t, sandbox.Options{Name: "genload"})
	db := sandboxtest.DB(t, c.Primary.DSN(""), 0)
	ctx := context.Background()
	ddl := schema(t, typesDDL)
	fill := func(method string, threads int) (sums string, log []string) {
		t.Helper()
		if _, err := db.Exec("DROP DATABASE IF EXISTS ty"); err != nil {
			t.Fatal(err)
		}
		o := typesPlan(method, threads)
		o.Schema = ddl
		o.Logf = func(f string, a ...any) { log = append(log, fmt.Sprintf(f, a...)) }
		if _, err := generate.Run(ctx, db, o); err != nil {
			t.Fatalf("method %s, %d threads: %v", method, threads, err)
		}
		return checksumOf(t, db, "ty.t", "ty.c"), log
	}
	said := func(log []string, want string) bool {
		for _, l := range log {
			if strings.Contains(l, want) {
				return true
			}
		}
		return false
	}

	showCreate := func() string {
		t.Helper()
		var out []string
		for _, tn := range []string{"ty.t", "ty.c"} {
			var name, ddl string
			if err := db.QueryRow("SHOW CREATE TABLE "+tn).Scan(&name, &ddl); err != nil {
				t.Fatal(err)
			}
			out = append(out, autoIncrement.ReplaceAllString(ddl, ""))
		}
		return strings.Join(out, "\n")
	}
	// the tables as the schema makes them: no rows, so no index is dropped
	empty := typesPlan(generate.MethodInsert, 1)
	empty.Schema = ddl
	for i := range empty.Tables {
		empty.Tables[i].Rows = 0
	}
	if _, err := generate.Run(ctx, db, empty); err != nil {
		t.Fatal(err)
	}
	want := showCreate()

	ins, log := fill(generate.MethodInsert, 2)
	if !said(log, "t: index by_name, odd`name dropped for the load") || !said(log, "c keeps index t_id during the load") {
		t.Errorf("the log does not say t's plain indexes were dropped and c's foreign key index kept: %q", log)
	}
	if got := showCreate(); got != want {
		t.Errorf("after the load the tables are not as the schema made them:\n%s\nwant\n%s", got, want)
	}
	if !said(log, "multi-row INSERTs (method: insert)") {
		t.Errorf("method insert: the log does not say so: %q", log)
	}
	for _, q := range []string{
		"SELECT COUNT(*) FROM ty.t WHERE name LIKE '%\t%' OR name LIKE '%\n%' OR name LIKE '%\\\\\\\\%'",
		"SELECT COUNT(*) FROM ty.t WHERE name IS NULL",
		"SELECT COUNT(*) FROM ty.t WHERE raw = X'FFFE00090A5C27'",
		"SELECT COUNT(*) FROM ty.t WHERE bits IS NULL",
	} {
		if n := count(t, db, q); n == 0 {
			t.Errorf("%s = 0: the test's awkward values did not reach the table", q)
		}
	}
	load, log := fill(generate.MethodAuto, 2)
	if !said(log, "LOAD DATA LOCAL INFILE (the server's local_infile is ON)") {
		t.Errorf("method auto on a server with local_infile ON: the log does not say LOAD DATA: %q", log)
	}
	t.Logf("insert: %s; load_data: %s", ins, load)
	if load != ins {
		t.Errorf("LOAD DATA gave other rows than INSERTs:\n%s\n%s", load, ins)
	}
	if one, _ := fill(generate.MethodLoadData, 1); one != ins {
		t.Errorf("LOAD DATA on 1 thread gave other rows than INSERTs on 2:\n%s\n%s", one, ins)
	}

	if _, err := db.Exec("SET GLOBAL local_infile = OFF"); err != nil {
		t.Fatal(err)
	}
	defer db.Exec("SET GLOBAL local_infile = ON")
	off, log := fill(generate.MethodAuto, 3)
	if !said(log, "multi-row INSERTs (the server's local_infile is OFF)") {
		t.Errorf("method auto with local_infile OFF: the log does not say INSERTs: %q", log)
	}
	if off != ins {
		t.Errorf("auto with local_infile OFF gave other rows:\n%s\n%s", off, ins)
	}
	if _, err := db.Exec("DROP DATABASE IF EXISTS ty"); err != nil {
		t.Fatal(err)
	}
	o := typesPlan(generate.MethodLoadData, 1)
	o.Schema = ddl
	_, err := generate.Run(ctx, db, o)
	if err == nil || !strings.Contains(err.Error(), "local_infile is OFF") || !strings.Contains(err.Error(), "method: insert") {
		t.Errorf("method load_data with local_infile OFF: error %v, want one saying local_infile is OFF and method: insert", err)
	}
}

// TestLoadDataStrict: a value the column cannot hold is an error with LOAD DATA as with
// INSERTs, though LOAD DATA LOCAL makes it a warning, not a silently cut row.
func TestLoadDataStrict(t *testing.T) {
	c := sandboxtest.Start(t, sandbox.Options{Name: "genstrict"})
	db := sandboxtest.DB(t, c.Primary.DSN(""), 0)
	ddl := schema(t, "CREATE DATABASE st; USE st; CREATE TABLE s (id INT NOT NULL PRIMARY KEY, v VARCHAR(3) NOT NULL);")
	for _, m := range []string{generate.MethodInsert, generate.MethodLoadData} {
		if _, err := db.Exec("DROP DATABASE IF EXISTS st"); err != nil {
			t.Fatal(err)
		}
		_, err := generate.Run(context.Background(), db, generate.Options{Schema: ddl, Seed: 1, Threads: 1, Method: m,
			Tables: []generate.Table{{Name: "s", Rows: 10, Columns: map[string]generate.Settings{"v": {Values: []string{"far too long"}}}}}})
		if err == nil || !strings.Contains(err.Error(), "too long") && !strings.Contains(err.Error(), "truncated") {
			t.Errorf("method %s: a value longer than VARCHAR(3): error %v, want the server's", m, err)
		}
	}
}
