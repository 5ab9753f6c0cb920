package spec

import (
	"strings"
	"testing"
)

// A rerun loads plan.yaml from the results folder and renders it again: the identity must
// not move, whatever the text does (comments, the header, quoting, flow style).
func TestPlanIdentitySurvivesARerun(t *testing.T) {
	src := `version: 1
name: t
# why the pool is small
vars: {threads: 4, pool: 64M}
targets:
  db: {dsn: "bench:pw@tcp(db1:3307)/sbtest"}
matrix:
  threads: [1, "${{ vars.threads }}"]
iteration:
  workload: {builtin: oltp_point_select, threads: "${{ matrix.threads }}", duration: 1s}
`
	first, err := mustLoad(t, src, Options{}).Redacted()
	if err != nil {
		t.Fatal(err)
	}
	second, err := mustLoad(t, string(first), Options{}).Redacted()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(second), "# Resolved plan") != 1 {
		t.Errorf("the header is repeated on a rerun:\n%s", second)
	}
	a, _ := PlanIdentity(first)
	b, _ := PlanIdentity(second)
	if a == "" || a != b {
		t.Fatalf("identity %q then %q:\n%s\n---\n%s", a, b, first, second)
	}
	set, err := mustLoad(t, string(first), Options{Set: []string{"threads=16"}}).Redacted()
	if err != nil {
		t.Fatal(err)
	}
	if c, _ := PlanIdentity(set); c == a {
		t.Fatal("a --set did not change the identity")
	}
	diff, err := DiffPlans(first, set)
	if err != nil {
		t.Fatal(err)
	}
	if len(diff) != 1 || diff[0] != "vars.threads: 4 -> 16" {
		t.Fatalf("diff %q, want the one var", diff)
	}
}
