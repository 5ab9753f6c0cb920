package spec

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A generate step's body in a file of its own (quadrant generate --settings): defaults as in
// a plan, schema: relative to the file, and every problem at the file's line and column.
func TestLoadGenerate(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("shop.sql", "CREATE TABLE t (id INT);\n")
	g, err := LoadGenerate(write("ok.yaml", "schema: shop.sql\ntables:\n  t: {rows: 10, columns: {id: {distribution: zipf}}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if g.Seed != 1 || g.Threads != 1 || g.SchemaPath != filepath.Join(dir, "shop.sql") || len(g.Tables) != 1 || g.Tables[0].Rows != 10 || g.Tables[0].Columns.Lookup("id").Distribution != "zipf" {
		t.Errorf("loaded %+v", g)
	}
	bad := write("bad.yaml", "schema: nosuch.sql\nthreads: 0\ntables:\n  t:\n    rows: 5\n    columns: {c: {null_fraction: 2}}\nsed: 4\n")
	_, err = LoadGenerate(bad)
	want := []string{
		bad + ":1:9: generate schema nosuch.sql: file " + filepath.Join(dir, "nosuch.sql") + " does not exist",
		bad + ":2:10: threads must be at least 1",
		bad + ":6:34: t.c: null_fraction is a share between 0 and 1, got 2",
		bad + `:7:1: unknown key "sed" in generate`,
	}
	for _, w := range want {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("errors do not say %q:\n%v", w, err)
		}
	}
	if _, err := LoadGenerate(write("empty.yaml", "\n")); err == nil || !strings.Contains(err.Error(), "empty.yaml:1:1: the generate settings file is empty") {
		t.Errorf("an empty file: %v", err)
	}
}
