package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
)

// TestGenerateBadInput: what the command can tell without a server is refused with exit 2
// and a message saying what to give: no --target, a --rows that is not TABLE=N, no table
// at all, and a settings file whose problems are at file:line:col.
func TestGenerateBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "gen.yaml")
	if err := os.WriteFile(bad, []byte("seed: 3\ntables:\n  orders:\n    rows: 10\n    columns: {status: {distribution: zipff}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dsn := "db=u:p@tcp(127.0.0.1:1)/shop"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--rows", "customers=10"}, "give the server to fill with one --target NAME=DSN"},
		{[]string{"--target", dsn, "--rows", "customers"}, `--rows "customers": want TABLE=N`},
		{[]string{"--target", dsn, "--rows", "customers=-1"}, "N a whole number >= 0"},
		{[]string{"--target", dsn}, "no table to fill: give --rows TABLE=N"},
		{[]string{"--target", dsn, "--settings", bad}, bad + `:5:38: distribution must be one of uniform, zipf, normal, sequential, got "zipff"`},
		{[]string{"--target", dsn, "--rows", "a=1", "--schema", filepath.Join(dir, "nosuch.sql")}, "--schema: stat"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(append([]string{"generate"}, c.args...), &stdout, &stderr)
		if code != exitInvalid || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("generate %q: exit %d, stderr %q; want exit 2 saying %q", c.args, code, stderr.String(), c.want)
		}
		noStackTrace(t, stderr.String())
	}
}

// TestGenerateShop fills examples/shop.sql from the command line with exact row counts,
// then shows what it refuses (a table not in the schema, tables that already have rows:
// exit 2, nothing written) and what a failure half-way says (exit 3: the tables filled,
// the one it stopped in, the ones not started).
func TestGenerateShop(t *testing.T) {
	c := sandboxtest.Start(t, sandbox.Options{Name: "gencli"})
	db := sandboxtest.DB(t, c.Primary.DSN(""), 0)
	gen := func(args ...string) (int, string, string) {
		t.Helper()
		if args[0] != "--target" {
			args = append([]string{"--target", "db=" + c.Primary.DSN("")}, args...)
		}
		var stdout, stderr bytes.Buffer
		code := run(append([]string{"generate"}, args...), &stdout, &stderr)
		return code, stdout.String(), stderr.String()
	}
	count := func(table string) int {
		t.Helper()
		var n int
		if err := db.QueryRow("SELECT COUNT(*) FROM shop." + table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	// An account that may create and read shop's tables but not insert is refused before
	// the schema runs, with the grant to add.
	if _, err := db.Exec("CREATE USER app@'%' IDENTIFIED BY 'apppw'"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("GRANT CREATE, SELECT ON shop.* TO app@'%'"); err != nil {
		t.Fatal(err)
	}
	app := fmt.Sprintf("db=app:apppw@tcp(127.0.0.1:%d)/", c.Primary.Port())
	code, _, errOut := gen("--target", app, "--schema", "../../examples/shop.sql", "--rows", "customers=10", "--rows", "orders=10")
	if code != exitInvalid || !strings.Contains(errOut, "generate customers (check it is empty, then insert its rows) needs INSERT on shop.customers") ||
		!strings.Contains(errOut, "needs INSERT on shop.orders") || !strings.Contains(errOut, "app@%") {
		t.Errorf("an account without INSERT: exit %d, %q", code, errOut)
	}
	var schemas int
	if err := db.QueryRow("SELECT COUNT(*) FROM information_schema.schemata WHERE schema_name = 'shop'").Scan(&schemas); err != nil || schemas != 0 {
		t.Fatalf("shop exists after the refusal (%d, %v): the schema ran", schemas, err)
	}

	code, out, errOut := gen("--schema", "../../examples/shop.sql", "--seed", "42", "--threads", "2",
		"--rows", "order_items=2500", "--rows", "customers=300", "--rows", "orders=1000", "--rows", "products=50")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.HasPrefix(out, "generated 4 tables in shop on db: 3850 rows in ") || !strings.Contains(out, " rows/s") {
		t.Errorf("final line %q", out)
	}
	if !strings.Contains(errOut, "generate: filled shop.order_items with 2500 rows") || strings.Contains(errOut, c.Primary.Password()) {
		t.Errorf("progress on stderr %q", errOut)
	}
	for table, want := range map[string]int{"customers": 300, "products": 50, "orders": 1000, "order_items": 2500} {
		if got := count(table); got != want {
			t.Errorf("shop.%s has %d rows, want %d", table, got, want)
		}
	}

	shopDSN := "db=" + c.Primary.DSN("shop")
	code, _, errOut = gen("--target", shopDSN, "--rows", "nosuch=5")
	if code != exitInvalid || !strings.Contains(errOut, "no table nosuch in database shop") || !strings.Contains(errOut, "no row was written") {
		t.Errorf("unknown table: exit %d, %q", code, errOut)
	}
	code, _, errOut = gen("--target", shopDSN, "--rows", "customers=5")
	if code != exitInvalid || !strings.Contains(errOut, "table shop.customers already has rows") {
		t.Errorf("a filled table: exit %d, %q", code, errOut)
	}
	if got := count("customers"); got != 300 {
		t.Errorf("a refused generate left %d customers, want the 300 there before", got)
	}

	// A value the server refuses (strict mode) stops the fill in orders, its parent filled.
	if _, err := db.Exec("DROP DATABASE shop"); err != nil {
		t.Fatal(err)
	}
	settings := filepath.Join(t.TempDir(), "gen.yaml")
	text := "schema: " + mustAbs(t, "../../examples/shop.sql") + `
tables:
  customers: {rows: 100}
  orders: {rows: 200, columns: {status: {values: [lost]}}}
  products: {rows: 10}
  order_items: {rows: 300}
`
	if err := os.WriteFile(settings, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = gen("--settings", settings)
	if code != exitFailed {
		t.Fatalf("a refused value: exit %d, want 3: %s", code, errOut)
	}
	for _, want := range []string{"fill orders:", "filled before it: customers", "not filled: products, order_items"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("the failure does not say %q:\n%s", want, errOut)
		}
	}
}

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// generate --settings FILE --validate checks the file against its schema without a server:
// the employees settings pass and say what they would fill; a bad expression and a bad count
// exit 2 at their file:line:col, nothing connected.
func TestGenerateValidate(t *testing.T) {
	code, out, errOut := runCLI("generate", "--settings", "../../executor/generate/testdata/employees.yaml", "--validate")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"employees.yaml: valid (against employees.sql)", "salaries: 5 to 15 per parent row, about 20000 rows", "departments: 9 rows"} {
		if !strings.Contains(out, want) {
			t.Errorf("--validate lacks %q:\n%s", want, out)
		}
	}
	dir := t.TempDir()
	schema, err := os.ReadFile("../../executor/generate/testdata/employees.sql")
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.yaml")
	for name, data := range map[string]string{"employees.sql": string(schema), "bad.yaml": `schema: employees.sql
tables:
  employees: {rows: 10}
  salaries:
    per_parent: {min: 9, max: 3}
    columns:
      to_date: {expr: "form_date + days(1)"}
`} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, _, errOut = runCLI("generate", "--settings", bad, "--validate")
	if code != exitInvalid {
		t.Fatalf("exit %d, want %d: %s", code, exitInvalid, errOut)
	}
	for _, want := range []string{
		bad + ":5:23: salaries: per_parent min 9 is above max 3; swap them",
		bad + `:7:24: salaries.to_date: expr "form_date + days(1)": unknown column form_date`,
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("--validate of a bad file lacks %q:\n%s", want, errOut)
		}
	}
}

// --rows is honoured with --validate (issue 47: it was ignored, so a SMALLINT auto-increment
// at 70,000 rows passed): the checks count the rows the flags ask, a table the file does not
// list included.
func TestGenerateValidateRows(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string]string{
		"s.sql":  "CREATE DATABASE s; USE s;\nCREATE TABLE actor (actor_id SMALLINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY, name VARCHAR(45));\nCREATE TABLE category (category_id TINYINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY);\n",
		"g.yaml": "schema: s.sql\ntables:\n  actor: {rows: 200}\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(dir, "g.yaml")
	if code, out, errOut := runCLI("generate", "--settings", file, "--validate"); code != exitOK || !strings.Contains(out, "actor: 200 rows") {
		t.Fatalf("exit %d: %s%s", code, out, errOut)
	}
	code, out, errOut := runCLI("generate", "--settings", file, "--validate", "--rows", "actor=70000", "--rows", "category=300")
	if code != exitInvalid {
		t.Fatalf("exit %d, want %d: %s%s", code, exitInvalid, out, errOut)
	}
	for _, want := range []string{
		"--rows actor=70000: actor.actor_id is AUTO_INCREMENT, so generate numbers the 70000 rows",
		"--rows category=300: category.category_id is AUTO_INCREMENT, so generate numbers the 300 rows 1, 2, 3..., and tinyint unsigned holds at most 255",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("--validate --rows lacks %q:\n%s", want, errOut)
		}
	}
	if code, _, errOut := runCLI("generate", "--settings", file, "--validate", "--rows", "actor=x"); code != exitInvalid || !strings.Contains(errOut, `--rows "actor=x"`) {
		t.Errorf("a bad --rows at --validate: exit %d: %s", code, errOut)
	}
}

// --after FILE sets the settings' after file (relative to the current directory), as
// --schema does; one that does not exist is bad input.
func TestGenerateAfterFlag(t *testing.T) {
	dir := t.TempDir()
	after := filepath.Join(dir, "after.sql")
	if err := os.WriteFile(after, []byte("SELECT 1;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	g, err := generateSettings("", generateFlags{set: map[string]bool{"after": true}, after: after, rows: []string{"t=1"}})
	if err != nil || g.After != after || g.AfterPath != after {
		t.Fatalf("--after: %+v, %v", g, err)
	}
	if _, err := generateSettings("", generateFlags{set: map[string]bool{"after": true}, after: filepath.Join(dir, "nosuch.sql"), rows: []string{"t=1"}}); err == nil || !strings.Contains(err.Error(), "--after:") {
		t.Errorf("a missing --after file: %v", err)
	}
}
