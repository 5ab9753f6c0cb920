package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quadrant-bench/quadrant/executor/generate/genplan"
	stepgenerate "github.com/quadrant-bench/quadrant/executor/step/generate"
)

const estimateSchema = "-- a mysqldump-like table, and one with a type the estimate does not know\n" +
	"CREATE TABLE IF NOT EXISTS `shop`.`t` (\n" +
	"  `id` int(10) unsigned NOT NULL AUTO_INCREMENT,\n" +
	"  `code` char(12) NOT NULL,\n" +
	"  `name` varchar(40) COMMENT 'a, b (c)',\n" +
	"  `price` decimal(10,2),\n" +
	"  `status` enum('a','b,c'),\n" +
	"  `twice` int AS (id * 2) VIRTUAL,\n" +
	"  PRIMARY KEY (`id`),\n" +
	"  KEY `k` (`code`, `name`)\n" +
	") ENGINE=InnoDB;\n" +
	"CREATE TABLE geo (id INT PRIMARY KEY, p POINT);\n"

// explain of a generate step shows each table's rows, size and time, and says which sizes
// it cannot know and what the figures rest on.
func TestExplainGenerateEstimates(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "s.sql"), []byte(estimateSchema), 0o644); err != nil {
		t.Fatal(err)
	}
	plan := filepath.Join(dir, "plan.yaml")
	if err := os.WriteFile(plan, []byte(`version: 1
name: est
targets: {db: {sandbox: {}}}
setup:
  - generate: {schema: s.sql, threads: 2, tables: {t: {rows: 1300000, columns: {name: {length: 30}}}, geo: {rows: 10, columns: {p: {values: ["POINT(1, 1)"]}}}}}
  - generate: {tables: {other: {rows: 5}}}
iteration:
  workload: {builtin: oltp_read_only, duration: 5s}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI("explain", plan)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// (4+12+31+5+1 + 18) * 1.3M rows / (15/16) = 98.4 MB; 1.3M rows at 2 x 65k rows/s = 10s
	for _, want := range []string{
		"t: 1300000 rows, about 93.9 MiB, about 10s",
		"geo: 10 rows, size unknown, under 0.1s",
		"unknown where the schema file does not create the table or uses a type this estimate does not know",
		"other: 5 rows, size unknown",
		"without a schema file the columns are known only on the server",
		"time at 65k rows/s per thread",
		"the data loads insert 1300015 rows",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("explain lacks %q:\n%s", want, out)
		}
	}
}

// A per_parent table is estimated at its parent's rows times the middle count, through a
// chain, the parent named or the only one the schema's foreign keys reference.
func TestExpectedRowsPerParent(t *testing.T) {
	g := &genplan.Generate{Tables: genplan.GenerateTables{
		{Name: "salaries", PerParent: &genplan.GeneratePerParent{Min: 5, Max: 15}},
		{Name: "employees", Rows: 2000},
		{Name: "notes", PerParent: &genplan.GeneratePerParent{Parent: "salaries", Min: 0, Max: 2}},
	}}
	got := stepgenerate.ExpectedRows(g, map[string][]string{"salaries": {"employees"}})
	if got["salaries"] != 20000 || got["notes"] != 20000 || got["employees"] != 2000 {
		t.Errorf("rows estimated %v, want salaries 20000 (2000 × 10), notes 20000 (20000 × 1)", got)
	}
}
