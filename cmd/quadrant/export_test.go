package main

import (
	"strings"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
	"github.com/quadrant-bench/quadrant/spec/plantest"
)

// A folder exported twice into a real server: the second export changes nothing and the
// row counts stay.
func TestExportTwiceChangesNothing(t *testing.T) {
	sandboxtest.SkipShort(t)
	plan := writePlan(t, plantest.Sandbox("exported", "", `setup:
  - workload: {builtin: oltp_point_select, action: prepare, options: {table_size: 500}}
matrix:
  threads: [1, 2]
iteration:
  workload: {builtin: oltp_point_select, options: {table_size: 500}, threads: "${{ matrix.threads }}", duration: 2s}
watch:
  status: [Com_select]
`))
	root := t.TempDir()
	p := start(t, nil, "run", plan, "--out", root)
	if code := p.wait(t, 5*time.Minute); code != 0 {
		t.Fatalf("run exit %d:\n%s", code, p.out.String())
	}
	dir := findRunDir(t, root)

	c := sandboxtest.Start(t, sandbox.Options{Name: "warehouse"})
	db := sandboxtest.DB(t, c.Primary.DSN(""), 0)
	if _, err := db.Exec("CREATE DATABASE bench_history"); err != nil {
		t.Fatal(err)
	}
	dsn := c.Primary.DSN("bench_history")
	tables := []string{"quadrant_runs", "quadrant_iterations", "quadrant_summary", "quadrant_timeseries"}
	counts := func() []int {
		var out []int
		for _, tb := range tables {
			var n int
			if err := db.QueryRow("SELECT COUNT(*) FROM bench_history." + tb).Scan(&n); err != nil {
				t.Fatal(err)
			}
			out = append(out, n)
		}
		return out
	}

	first := start(t, nil, "export", dir, "--dsn", dsn)
	if code := first.wait(t, 2*time.Minute); code != 0 {
		t.Fatalf("export exit %d:\n%s", code, first.out.String())
	}
	after1 := counts()
	want := []int{1, 2} // one run, two iterations on one target
	for i, n := range want {
		if after1[i] != n {
			t.Errorf("%s: %d rows, want %d", tables[i], after1[i], n)
		}
	}
	if after1[2] == 0 || after1[3] == 0 {
		t.Errorf("no summary or time-series rows: %v", after1)
	}
	var tx float64
	if err := db.QueryRow("SELECT SUM(value) FROM bench_history.quadrant_summary WHERE name = 'transactions'").Scan(&tx); err != nil || tx == 0 {
		t.Errorf("summary transactions in the database: %v, %v", tx, err)
	}

	second := start(t, nil, "export", dir, "--dsn", dsn)
	if code := second.wait(t, 2*time.Minute); code != 0 {
		t.Fatalf("second export exit %d:\n%s", code, second.out.String())
	}
	if !strings.Contains(second.out.String(), ": 0 rows inserted, 0 changed,") {
		t.Errorf("the second export wrote something: %s", second.out.String())
	}
	after2 := counts()
	for i := range tables {
		if after1[i] != after2[i] {
			t.Errorf("%s: %d rows after the first export, %d after the second", tables[i], after1[i], after2[i])
		}
	}
}
