package transactions_test

import (
	"testing"

	"github.com/expr-lang/expr"

	"github.com/quadrant-bench/quadrant/executor/kinds"
	"github.com/quadrant-bench/quadrant/executor/workload"
	"github.com/quadrant-bench/quadrant/executor/workload/transactions"
	"github.com/quadrant-bench/quadrant/spec"
)

// An argument may name what validate let it name: a plan whose args read matrix.span and
// iteration.repeat loaded and validated, then failed every iteration with "unknown name
// matrix" when the run compiled them over vars alone. Each iteration's workload carries its
// own cell's names.
func TestArgsNameTheMatrix(t *testing.T) {
	const plan = `version: 1
name: names
targets: {db: {dsn: "u:p@tcp(127.0.0.1:3306)/d"}}
vars: {base: 100}
matrix:
  span: [10, 1000]
iteration:
  workload:
    transactions:
      - name: read
        statements:
          - sql: "SELECT ?, ?"
            args: ["matrix.span + vars.base", "iteration.repeat"]
    duration: 1s
`
	p, err := spec.LoadBytes("names.yaml", []byte(plan), spec.Options{Kinds: kinds.Registry()})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Iterations) != 2 {
		t.Fatalf("%d iterations, want 2", len(p.Iterations))
	}
	for i, want := range []int{110, 1100} {
		w := p.Iterations[i].Workload
		if _, err := transactions.Kind.New(w, workload.Env{}); err != nil {
			t.Fatalf("iteration %d: the kind refuses what validate accepted: %v", i+1, err)
		}
		for j, src := range []string{"matrix.span + vars.base", "iteration.repeat"} {
			v, err := expr.Eval(src, w.Names)
			if err != nil {
				t.Fatalf("iteration %d: %s over the workload's names: %v", i+1, src, err)
			}
			if j == 0 && v != want || j == 1 && v != 1 {
				t.Errorf("iteration %d: %s = %v", i+1, src, v)
			}
		}
	}
}
