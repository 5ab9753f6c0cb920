package main

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/spec/plantest"
)

// The assertions of verdictPlan read a statement class and connecting; all but the first
// are false on any run. merge used to judge a merged folder with its own copy of the
// rules, which had no stmt.* and no connect_*: there the first two erred (a failure that
// says nothing of the numbers) and the last passed (a name it lacked read as nothing,
// which ?? turned into -1), while the same plan failed them unsharded on their values.
const verdictPlan = `
iteration:
  workload:
    builtin: oltp_point_select
    options: {tables: 1, table_size: 100, statement_stats: on}
    threads: 2
    duration: 1s
    connect: per_transaction
  assert:
    - "transactions > 0"
    - "stmt.point_select.count < 0"
    - "connect_p99_ms < 0"
    - "(connect_max_ms ?? -1) < 0"
`

// TestShardedRunGetsTheUnshardedVerdict runs one plan file unsharded and as two shards
// merged: both fail, on the same assertions, each with the values it read.
func TestShardedRunGetsTheUnshardedVerdict(t *testing.T) {
	dsn, db, _ := shardServer(t)
	// The table is loaded here, not by a setup step, so both runs are of the same file.
	for _, q := range []string{
		"CREATE DATABASE sbtest",
		"CREATE TABLE sbtest.sbtest1 (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, k INT NOT NULL DEFAULT 0, " +
			"c CHAR(120) NOT NULL DEFAULT '', pad CHAR(60) NOT NULL DEFAULT '', KEY k_1 (k))",
		"INSERT INTO sbtest.sbtest1 (k) WITH RECURSIVE n (i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100) SELECT i FROM n",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	plan := writePlan(t, plantest.DSN("verdicts", dsn, verdictPlan))
	root := t.TempDir()
	one := start(t, nil, "run", plan, "--out", root)
	if code := one.wait(t, 2*time.Minute); code != exitAssert {
		t.Fatalf("unsharded run exit %d, want 1 (assertions failed):\n%s", code, one.out.String())
	}
	whole := verdictOf(t, findRunDir(t, root))

	_, dirs := runShards(t, plan, "verdicts", "v1", 2, 3*time.Minute)
	out := filepath.Join(t.TempDir(), "merged")
	m := start(t, nil, "merge", dirs[0], dirs[1], "--out", out)
	if code := m.wait(t, time.Minute); code != exitAssert {
		t.Fatalf("merge exit %d, want 1 (assertions failed):\n%s", code, m.out.String())
	}
	merged := verdictOf(t, out)

	want := []string{
		"stmt.point_select.count < 0 (stmt.point_select.count=N)",
		"connect_p99_ms < 0 (connect_p99_ms=N)",
		"(connect_max_ms ?? -1) < 0 (connect_max_ms=N)",
	}
	if !slices.Equal(whole, want) {
		t.Fatalf("unsharded verdict %q, want %q", whole, want)
	}
	if !slices.Equal(merged, whole) {
		t.Errorf("merged verdict %q, unsharded %q", merged, whole)
	}
}

var figure = regexp.MustCompile(`=(-?[0-9.]+)([,)])`)

// verdictOf is the folder's one iteration's failed assertions, each number read shown as
// N (the runs measure different numbers); an iteration that did not fail is none.
func verdictOf(t *testing.T, dir string) []string {
	t.Helper()
	ri, err := results.ReadRunInfo(dir)
	if err != nil {
		t.Fatal(err)
	}
	it := ri.Iterations[0]
	if it.Status != results.StatusFailed || it.Error != "" {
		t.Fatalf("%s: iteration %s, error %q, want failed on its assertions", dir, it.Status, it.Error)
	}
	var out []string
	for _, f := range it.Failed {
		out = append(out, figure.ReplaceAllString(strings.TrimSpace(f), "=N$2"))
	}
	return out
}
