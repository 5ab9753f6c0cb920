package genplan

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quadrant-bench/quadrant/spec"
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

// after: is relative to the file, must exist, and asks the privileges its statements take
// (ALTER, and REFERENCES where the server checks it) at its own line.
func TestGenerateAfter(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"s.sql":     "CREATE DATABASE s; USE s;\nCREATE TABLE t (id INT PRIMARY KEY, u_id INT);\nCREATE TABLE u (id INT PRIMARY KEY, t_id INT, FOREIGN KEY (t_id) REFERENCES t (id));\n",
		"after.sql": "ALTER TABLE t ADD FOREIGN KEY (u_id) REFERENCES u (id);\n",
		"ok.yaml":   "schema: s.sql\nafter: after.sql\ntables:\n  t: {rows: 10}\n  u: {rows: 10}\n",
		"bad.yaml":  "schema: s.sql\nafter: nosuch.sql\ntables:\n  t: {rows: 10}\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	g, err := LoadGenerate(filepath.Join(dir, "ok.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if g.AfterPath != filepath.Join(dir, "after.sql") {
		t.Errorf("after resolves to %q", g.AfterPath)
	}
	var after *spec.AccountNeed
	for _, n := range g.Privileges(spec.AccountServer{ChecksReferences: true}) {
		if n.What == "generate after" {
			after = &n
		}
	}
	if after == nil || after.Pos.Line != 2 || len(after.Any) != 1 || len(after.Any[0]) != 2 || after.Any[0][0].Names[0] != "ALTER" || after.Any[0][1].Names[0] != "REFERENCES" || after.Any[0][0].DB != "s" {
		t.Errorf("the after file's privileges: %+v", after)
	}
	bad := filepath.Join(dir, "bad.yaml")
	if _, err := LoadGenerate(bad); err == nil || !strings.Contains(err.Error(), bad+":2:8: generate after nosuch.sql: file") {
		t.Errorf("a missing after file: %v", err)
	}
}
